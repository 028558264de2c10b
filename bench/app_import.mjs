// What importing the page's app costs in Pyodide, the part of a warm start no snapshot holds:
//
//   node bench/app_import.mjs [--runs 3] [--against SITE]... [--classes]
//
// Each run boots the runtime the site serves (static/vendor/pyodide: its standard library is
// compiled) in Node, unpacks the built wheels (static/vendor/wheels, after `make site`) and times,
// in Python, `import msgspec` and then `from relayscope.web.app import App`. --against adds a
// built site (a `make dist` folder's site/) to the same run, runs interleaved, and prints each
// build's app import as a ratio to the first's. --classes times making a class of three fields
// (a frozen slots dataclass, a frozen msgspec.Struct; 50 of each) in the same Pyodide.
// Must not: write anywhere but stdout.
import { readFileSync, readdirSync } from "node:fs";
import { resolve, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const runs = Number(opt("--runs", "3"));
const sites = [here, ...args.flatMap((a, i) => (a === "--against" ? [resolve(args[i + 1])] : []))];

async function boot(site) {
  const indexURL = join(site, "static", "vendor", "pyodide") + "/";
  const { loadPyodide } = await import(indexURL + "pyodide.mjs");
  const py = await loadPyodide({ indexURL });
  const wheels = join(site, "static", "vendor", "wheels");
  for (const name of readdirSync(wheels)) py.FS.writeFile("/tmp/" + name, readFileSync(join(wheels, name)));
  py.runPython(`
import os, site, zipfile
sp = site.getsitepackages()[0]
for name in os.listdir("/tmp"):
    if name.startswith(("msgspec-", "relayscope-")):
        zipfile.ZipFile("/tmp/" + name).extractall(sp)
if os.path.exists("/tmp/site-packages.pyc.zip"):  # the stdlib's bytecode, as the page unpacks it
    zipfile.ZipFile("/tmp/site-packages.pyc.zip").extractall(sp.split("lib/python")[0])
`);
  return py;
}

const IMPORT = `
import time
t0 = time.perf_counter()
import msgspec
t1 = time.perf_counter()
from relayscope.web.app import App
t2 = time.perf_counter()
(t1 - t0) * 1000, (t2 - t1) * 1000
`;

const CLASSES = `
import dataclasses, time, msgspec
t0 = time.perf_counter()
for _ in range(50):
    @dataclasses.dataclass(frozen=True, slots=True)
    class A:
        a: int
        b: str = ""
        c: list = dataclasses.field(default_factory=list)
t1 = time.perf_counter()
for _ in range(50):
    class B(msgspec.Struct, frozen=True):
        a: int
        b: str = ""
        c: list = []
t2 = time.perf_counter()
(t1 - t0) * 20, (t2 - t1) * 20
`;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times = sites.map(() => ({ msgspec: [], app: [] }));
for (let r = 0; r < runs; r++) {
  for (const [i, site] of sites.entries()) {
    const py = await boot(site);
    const [m, a] = py.runPython(IMPORT).toJs();
    times[i].msgspec.push(m);
    times[i].app.push(a);
    if (args.includes("--classes") && i === 0 && r === 0) {
      const [dc, st] = py.runPython(CLASSES).toJs();
      console.log(`making a class: dataclass ${dc.toFixed(2)} ms, msgspec.Struct ${st.toFixed(3)} ms`);
    }
  }
}
const base = median(times[0].app);
console.log(`import in Pyodide, median of ${runs} (ms; x = the app's import against this tree's build)`);
for (const [i, site] of sites.entries()) {
  const { msgspec, app } = times[i];
  const each = app.map((v) => v.toFixed(0)).join(" ");
  console.log(`  ${i ? "vs " + i : "this"}  msgspec ${median(msgspec).toFixed(0).padStart(4)}  app ${median(app).toFixed(0).padStart(4)}`
    + `  x ${(median(app) / base).toFixed(2)}  [${each}]  ${site}`);
}
