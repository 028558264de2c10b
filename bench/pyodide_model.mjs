// The page's view model under Pyodide in Node, against the CLI in the same Pyodide: the part of
// the page's analysis time that is Python, without a browser (bench/web_scale.py times the page).
//
//   node bench/pyodide_model.mjs FILE [--runs 3] [--parts] [--profile] [--jumps]
//   node bench/pyodide_model.mjs FILE --engine [--runs 3]
//
// Loads Pyodide from node_modules (after `make site`) with msgspec from its vendored wheel, and relayscope from py/ as it is in the work tree (mounted, not the built wheel, so an
// edit is measured at once). In one run, best of --runs each:
//   cli     relayscope.cli.main(["translate", "-s", "lineage", FILE]) with stdout to /dev/null;
//   model   for _ in Workspace().load(data, name=...): pass (what the page's worker runs);
//   step0   then ws.step(0) and ws.row(0): what the page draws first;
//   lanes   the swimlanes' timeline of that workspace (spans.build, as web/swimlanes.py builds it);
// printed in ms and as ratios to cli. --parts adds the model's parts (splitting, translating with
// and without the trace, the lookups); --profile, cProfile's top functions of one model run;
// --jumps, the load without the step-through's checkpoints (Workspace(checkpoint_bytes=0)) and, on
// workspaces loaded with and without them, far jumps: ws.step to the last step, the middle one,
// then step 10 (bench/_jumps.py, mounted from bench/; bench/jump_bench.py does the same in CPython).
// --engine prints only one JSON object: bench/_engine_parts.py's times here (bench/engine_gap.py
// runs the same in CPython and compares).
// Must not: write anywhere but stdout.
import { readFileSync } from "node:fs";
import { resolve, basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--"));
if (!file) {
  console.error("usage: node bench/pyodide_model.mjs FILE [--runs N] [--parts] [--profile] [--jumps] [--engine]");
  process.exit(2);
}
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
const profile = args.includes("--profile");

const indexURL = resolve(root, "node_modules/pyodide") + "/";
const { loadPyodide } = await import(indexURL + "pyodide.mjs");
const py = await loadPyodide({ indexURL });
const wheel = readFileSync(resolve(root, "static/vendor/wheels/msgspec-0.22.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl"));
py.FS.writeFile("/tmp/msgspec.whl", wheel);
py.FS.mkdirTree("/src");
py.FS.mount(py.FS.filesystems.NODEFS, { root: resolve(root, "py") }, "/src");
py.FS.mkdirTree("/bench");
py.FS.mount(py.FS.filesystems.NODEFS, { root: resolve(root, "bench") }, "/bench");
py.FS.mkdirTree("/data");
py.FS.mount(py.FS.filesystems.NODEFS, { root: dirname(resolve(file)) }, "/data");
py.globals.set("PATH", "/data/" + basename(file));
py.globals.set("RUNS", runs);
py.globals.set("PROFILE", profile);
py.globals.set("PARTS", args.includes("--parts"));
py.globals.set("JUMPS", args.includes("--jumps"));
if (args.includes("--engine")) {
  py.runPython(`
import json, site, sys, zipfile
zipfile.ZipFile("/tmp/msgspec.whl").extractall(site.getsitepackages()[0])
sys.path[:0] = ["/src", "/bench"]
from _engine_parts import measure
print(json.dumps({"python": sys.version.split()[0], "ms": measure(PATH, RUNS)}))
`);
  process.exit(0);
}
py.runPython(`
import site, sys, zipfile
zipfile.ZipFile("/tmp/msgspec.whl").extractall(site.getsitepackages()[0])
sys.path.insert(0, "/src")
import contextlib, io, os, time
from relayscope import cli
from relayscope.web.model import Workspace

data = open(PATH, "rb").read()

def run_cli():
    out = open(os.devnull, "w")
    with contextlib.redirect_stdout(out):
        cli.main(["translate", "-s", "lineage", PATH])

def run_model():
    ws = Workspace()
    for _ in ws.load(data, name="x"):
        pass
    return ws

def best(f):
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - t)
        del result
    return min(times)

cli_s = best(run_cli)
model_s = best(run_model)
ws = run_model()
t = time.perf_counter()
ws.step(0)
ws.row(0)
first = time.perf_counter() - t
print(f"{os.path.basename(PATH)}: {len(data) / 2**20:.1f} MB, {len(ws.relays)} relays; best of {RUNS} (Pyodide {sys.version.split()[0]})")
print(f"  cli    {cli_s * 1000:8.0f} ms   x1.00")
print(f"  model  {model_s * 1000:8.0f} ms   x{model_s / cli_s:.2f}")
print(f"  step0  {first * 1000:8.0f} ms            (ws.step(0) and ws.row(0) after the load)")
from relayscope import spans
from relayscope.web.swimlanes import _lost

def stamps(file, line):
    stamp = ws.line_time(file, line)
    return spans.parse(stamp) if stamp else None

lanes_s = best(lambda: spans.build(ws.relays, stamps, _lost(ws.fates)))
print(f"  lanes  {lanes_s * 1000:8.0f} ms   x{lanes_s / cli_s:.2f}   (the swimlanes' timeline of the load, spans.build)")
if PARTS:
    from relayscope.analysis import Analyzer
    from relayscope.wire import split_lines
    t = time.perf_counter()
    lines = split_lines(data)
    print(f"  split  {(time.perf_counter() - t) * 1000:8.0f} ms")
    for trace in (True, False):
        def go():
            a = Analyzer("lineage", trace=trace)
            for _ in a.feed_steps(lines):
                pass
            return a
        print(f"  translate (trace={trace!s:5}) {best(go) * 1000:8.0f} ms")
    t = time.perf_counter()
    for _ in ws._index():
        pass
    print(f"  _index {(time.perf_counter() - t) * 1000:8.0f} ms")
if JUMPS:
    def run_plain():
        ws = Workspace(checkpoint_bytes=0)
        for _ in ws.load(data, name="x"):
            pass
        return ws
    loads = {run_plain: [], run_model: []}
    for _ in range(RUNS):  # alternating: the machine's drift falls on both alike
        for f, times in loads.items():
            t = time.perf_counter()
            f()
            times.append(time.perf_counter() - t)
    plain_s, with_s = min(loads[run_plain]), min(loads[run_model])
    print(f"  load without checkpoints {plain_s * 1000:8.0f} ms, with {with_s * 1000:8.0f} ms: x{with_s / plain_s:.3f}"
          f" (best of {RUNS}, alternating)")
    sys.path.insert(0, "/bench")
    from _jumps import far_jumps
    for label, load in (("without", run_plain), ("with", run_model)):
        del ws
        ws = load()
        print(f"  jumps {label:7} checkpoints: {far_jumps(ws)}")
if PROFILE:
    import cProfile, pstats
    del ws
    ws = Workspace()
    cProfile.run('for _ in ws.load(data, name="x"): pass', "/tmp/model.prof")
    pstats.Stats("/tmp/model.prof").sort_stats("tottime").print_stats(25)
`);
