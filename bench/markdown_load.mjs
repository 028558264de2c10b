// What a message's Markdown costs the page in Pyodide (web/markdown_view.py, markdown-it-py):
//
//   node bench/markdown_load.mjs [--runs 3]
//
// Each run boots the runtime the site serves in Node, unpacks the built wheels
// (static/vendor/wheels, after `make site`) and times, in Python: the app's import (the
// baseline, what every visit pays), then what the first opened message adds (importing
// markdown-it-py and making its parser), then drawing a 6 KB message (headings, a list, a table,
// code) on the worker's DOM mirror, and the same message again. Prints each as ms and as a ratio
// to the app's import in the same run; and the bytes the two wheels add to the site's download.
// Must not: write anywhere but stdout.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { resolve, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const runs = Number(args.includes("--runs") ? args[args.indexOf("--runs") + 1] : "3");
const wheels = join(here, "static", "vendor", "wheels");
const ours = (name) => name.startsWith("msgspec-") || name.startsWith("relayscope-")
  || name.startsWith("markdown_it_py-") || name.startsWith("mdurl-");

async function boot() {
  const indexURL = join(here, "static", "vendor", "pyodide") + "/";
  const { loadPyodide } = await import(indexURL + "pyodide.mjs");
  const py = await loadPyodide({ indexURL });
  for (const name of readdirSync(wheels).filter(ours)) py.FS.writeFile("/tmp/" + name, readFileSync(join(wheels, name)));
  py.runPython(`
import os, site, zipfile
sp = site.getsitepackages()[0]
for name in os.listdir("/tmp"):
    if name.endswith(".whl"):
        zipfile.ZipFile("/tmp/" + name).extractall(sp)
if os.path.exists("/tmp/site-packages.pyc.zip"):
    zipfile.ZipFile("/tmp/site-packages.pyc.zip").extractall(sp.split("lib/python")[0])
`);
  return py;
}

const TIMED = `
import time
t0 = time.perf_counter()
from relayscope.web.app import App
t1 = time.perf_counter()
from relayscope.web import markdown_view
markdown_view.parser()
t2 = time.perf_counter()
part = "## Step\\n\\nSome **bold** and \`code\`, a [link](https://example.com).\\n\\n- one\\n- two\\n\\n| a | b |\\n|--|--:|\\n| 1 | 2 |\\n\\n\`\`\`py\\nprint(1)\\n\`\`\`\\n\\n"
text = part * (6000 // len(part))
markdown_view.draw(text)
t3 = time.perf_counter()
markdown_view.draw(text)
t4 = time.perf_counter()
(t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000, (t4 - t3) * 1000, len(text)
`;

const rows = [];
for (let k = 0; k < runs; k++) {
  const py = await boot();
  rows.push(py.runPython(TIMED).toJs());
}
const med = (i) => rows.map((r) => r[i]).sort((a, b) => a - b)[Math.floor(rows.length / 2)];
const app = med(0);
const bytes = readdirSync(wheels).filter((n) => n.startsWith("markdown_it_py-") || n.startsWith("mdurl-"))
  .reduce((s, n) => s + statSync(join(wheels, n)).size, 0);
console.log(`runs: ${runs} (medians)   message: ${rows[0][4]} characters`);
console.log(`app import (baseline)            ${app.toFixed(1)} ms   1.00`);
for (const [label, i] of [["first message: import + parser", 1], ["first message drawn", 2], ["the same again", 3]]) {
  console.log(`${label.padEnd(32)} ${med(i).toFixed(1)} ms   ${(med(i) / app).toFixed(2)}`);
}
console.log(`wheels added to the site: ${(bytes / 1024).toFixed(0)} KiB (markdown-it-py, mdurl)`);
