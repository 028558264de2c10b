"""A 50 MB transcript in the web app: analysis time against the CLI, and the page's longest task.

Usage (after `make site`; `make test` installs what it needs):

    .venv/bin/python bench/web_scale.py [--mb 50] [--runs 1] [--audit]
    .venv/bin/python bench/web_scale.py --first-rows 5,50,600   # first rows and done per size

The input is the real stream-json corpus (shared/corpus/real/stream-json/*.jsonl, or the fixtures
in tests/fixtures/real/stream-json/ when shared/ is absent) concatenated
and repeated up to --mb megabytes, written once to bench/out/. Measured in the same run:
  cli        `relayscope translate -s lineage FILE > /dev/null` (wall time), run once before
             each browser run: the machine's speed drifts, so each browser run is divided by
             the CLI run next to it and the table gives the median of those ratios;
  model      the page's view model (relayscope.web.model.Workspace.load) under CPython;
  worker     the same Workspace.load in a bare module worker in the same Chromium (Pyodide
             loaded as the app loads it, the bytes already in Python, no app, no DOM): the
             part of the page's time that is the engine running Python, not the app;
  browser    the app in headless Chromium: the file given to its file input, from the input's
             `change` event to <html data-app-state="done"> as the page sees them (reading the
             file a slice at a time, translating, drawing the first screen; where that time
             went, as the page reports it in <html data-analysis-parts>, and `outside the job`:
             the time from `change` to done less data-analysis-ms; and to its first rows, with
             their spread: drawn while the rest is translated; Playwright's own
             hand-over of the file comes before `change` and is not counted), and to the
             swimlanes drawn (built after `done`: <html data-lanes-ms> appears; a build that
             draws them before `done` counts `done`), then a re-run
             with the 'none' strategy, a text filter over every row, then (--audit) the audit
             of every strategy.
--against DIR (a `make dist` folder of another build; given again for more builds) loads the same
file in that build too, in the same rounds (each run divided by a CLI run just before it), and
prints its line beside this build's: a before and after in one run, on a machine whose speed drifts
(with --first-rows too: each load in a browser of its own, so that each renderer's peak is its own).
The swimlanes' own account of their build (<html data-lanes-parts>: the timeline, the tracks,
sending them, the hand-backs, the cycle collector's share, the longest slice) is printed where the
build gives one.
With --first-rows SIZES (MB, comma-separated), only the load, per size: the file chosen to its
first screen of rows (<html data-first-rows-ms> appears: drawn while the rest is translated) and
to done and to the swimlanes drawn, each as a ratio to the CLI run just before it on the same file.
--first-rows also prints the peak RSS of the renderer process the page and its worker run in.
While the page works, a PerformanceObserver records every long task (a main-thread task over
50 ms, the browser's Long Tasks API); the table gives the longest and how many exceeded 200 ms.
Times are ratios against the CLI.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "py"))
from browser import launch, wait_js
from serve import serving

sys.path.insert(0, str(ROOT / "bench"))
from _inputs import stream_json_dir

OUT = ROOT / "bench" / "out"

LONG_TASKS = """
window.__changed = null; window.__doneAt = null; window.__firstAt = null; window.__lanesAt = null;
document.addEventListener("change", (e) => {
  if (e.target?.type === "file") {
    window.__changed = performance.now(); window.__doneAt = null; window.__firstAt = null; window.__lanesAt = null;
  }
}, true);
new MutationObserver(() => {
  const root = document.documentElement;
  if (window.__changed !== null && window.__doneAt === null && root.dataset.appState === "done")
    window.__doneAt = performance.now();
  if (window.__changed !== null && window.__firstAt === null && root.dataset.firstRowsMs !== undefined)
    window.__firstAt = performance.now();
  // the swimlanes, built after "done": their data-lanes-ms comes anew (a build before them has none)
  if (window.__doneAt !== null && window.__lanesAt === null && root.dataset.lanesMs !== undefined)
    window.__lanesAt = performance.now();
}).observe(document, {attributes: true, subtree: true,
                      attributeFilter: ["data-app-state", "data-first-rows-ms", "data-lanes-ms"]});
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longTasks.push({start: e.startTime, duration: e.duration});
}).observe({type: "longtask", buffered: true});
"""


def make_input(mb: int) -> Path:
    path = OUT / f"corpus-{mb}mb.jsonl"
    if path.is_file():
        return path
    files = sorted(stream_json_dir().glob("*.jsonl"))
    one = b"".join(f.read_bytes().rstrip(b"\n") + b"\n" for f in files)
    data = bytearray()
    while len(data) < mb * 2**20:
        data += one
    OUT.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# The CLI as an installed one runs: from bytecode (pip compiles it at install). A machine that
# sets PYTHONDONTWRITEBYTECODE would compile every module at each start (~0.1 s here).
CLI_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cli_seconds(path: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "relayscope", "translate", "-s", "lineage", str(path)],
                   stdout=subprocess.DEVNULL, check=True, env=CLI_ENV)
    return time.perf_counter() - start


def model_seconds(path: Path) -> tuple[float, int, float]:
    from relayscope.web.model import Workspace

    data = path.read_bytes()
    ws = Workspace()
    start = last = time.perf_counter()
    worst = 0.0
    for _ in ws.load(data, name=path.name):
        now = time.perf_counter()
        worst, last = max(worst, now - last), now
    return time.perf_counter() - start, len(ws.relays), worst


# A bare worker that times Workspace.load on the input, as the app's worker loads Pyodide.
WORKER_PAGE = """<!doctype html><html><head><link rel="icon" href="data:,"><script type="module">
const worker = new Worker(new URL("./model-worker.mjs", location.href), {type: "module"});
worker.onmessage = (e) => { document.documentElement.dataset.result = e.data; };
worker.postMessage(new URLSearchParams(location.search).get("input"));
</script></head><body></body></html>
"""
WORKER = """import { loadPyodide } from "../../static/js/pyodide-local.mjs";
self.onmessage = async (e) => {
  const py = await loadPyodide({ packages: ["relayscope"] });
  py.globals.set("BUFFER", await (await fetch("./" + e.data)).arrayBuffer());
  postMessage(py.runPython(`
import time
from relayscope.web.model import Workspace
data = BUFFER.to_bytes()
start = time.perf_counter()
for _ in Workspace().load(data, name="input"):
    pass
str((time.perf_counter() - start) * 1000)
`));
};
"""


def worker_run(browser, url: str, path: Path) -> float:
    (OUT / "model-worker.html").write_text(WORKER_PAGE)
    (OUT / "model-worker.mjs").write_text(WORKER)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}bench/out/model-worker.html?input={path.name}")
        page.wait_for_selector("html[data-result]", state="attached", timeout=600_000)
        return float(page.get_attribute("html", "data-result"))
    finally:
        context.close()


# The swimlanes of the last job drawn: none being built (a build before they came after "done" has no
# data-building: there this holds at "done").
LANES_DRAWN = "[data-testid=swimlanes]:not([data-building])"


def lanes_drawn(page, timeout: float) -> float:
    """Wait for the swimlanes built after "done"; the file's `change` to them drawn (ms)."""
    page.wait_for_selector(LANES_DRAWN, state="attached", timeout=timeout)
    return page.evaluate("(window.__lanesAt ?? window.__doneAt) - window.__changed")


def account(page, attr: str) -> dict[str, float]:
    """The page's own account of a part of its time (``read=12 translate=700 ...``, ms) as a dict."""
    return {k: float(v) for k, v in (p.split("=") for p in (page.get_attribute("html", attr) or "").split())}


def medians(runs: list[dict[str, Any]], key: str) -> str:
    """Each part of the runs' accounts ``key``, its median over the runs."""
    names = dict.fromkeys(k for r in runs for k in r[key])
    return ", ".join(f"{k} {statistics.median(r[key].get(k, 0.0) for r in runs):.0f}" for k in names) or "none"


def browser_run(browser, url: str, path: Path, audit: bool) -> dict[str, float]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        context.add_init_script(LONG_TASKS)
        page = context.new_page()
        page.goto(url)
        settled = "html[data-app-state=done], html[data-app-state=error], html[data-app-state=ready]"
        page.wait_for_selector(settled, state="attached", timeout=120_000)
        t0 = page.evaluate("performance.now()")
        page.set_input_files('[data-testid="file-input"]', str(path))
        page.wait_for_selector("html[data-app-state=done], html[data-app-state=error]", state="attached",
                               timeout=600_000)
        if page.get_attribute("html", "data-app-state") != "done":
            raise SystemExit("the page ended in error: " + page.text_content('[data-testid="status"]'))
        result = {
            "load_wall": page.evaluate("performance.now()") - t0,
            "load": page.evaluate("window.__doneAt - window.__changed"),
            # a file of more than one slice shows its first screen of rows before the rest is read
            "first": page.evaluate("window.__firstAt === null ? NaN : window.__firstAt - window.__changed"),
            "lanes": lanes_drawn(page, 600_000),
            "analysis": float(page.get_attribute("html", "data-analysis-ms")),
            "relays": int(page.text_content('[data-testid="relay-count"]')),
            "slice": float(page.get_attribute("html", "data-longest-slice-ms")),
            "parts": account(page, "data-analysis-parts"),
            "lanes_parts": account(page, "data-lanes-parts"),
        }
        page.select_option('[data-testid="strategy"]', "none")
        page.wait_for_selector("html[data-app-state=done]", state="attached", timeout=600_000)
        # the page's time outside the job: the file's `change` to the job's start, and the
        # job's end to the page showing "done" (its last ops applied)
        result["outside"] = result["load"] - result["analysis"]
        result["rerun"] = float(page.get_attribute("html", "data-analysis-ms"))
        page.wait_for_selector(LANES_DRAWN, state="attached", timeout=600_000)  # the filter below alone
        t1 = page.evaluate("performance.now()")
        tasks = page.evaluate("window.__longTasks")
        work = [t["duration"] for t in tasks if t["start"] >= t0]
        result["longest"] = max(work, default=0.0)
        result["over200"] = sum(d > 200 for d in work)
        # a text filter over every row (the first one builds the search index)
        total = page.text_content('[data-testid="relay-count"]')
        page.fill('[data-testid="filter"]', "error")
        wait_js(page, f"document.querySelector('[data-testid=relay-count]').textContent !== '{total}'",
                600_000)
        result["filter"] = page.evaluate("performance.now()") - t1
        tasks = page.evaluate("window.__longTasks")
        result["filter_longest"] = max((t["duration"] for t in tasks if t["start"] >= t1), default=0.0)
        page.fill('[data-testid="filter"]', "")
        wait_js(page, f"document.querySelector('[data-testid=relay-count]').textContent === '{total}'",
                600_000)
        t1 = page.evaluate("performance.now()")
        if audit:
            page.click('[data-testid="run-audit"]')
            page.wait_for_selector("html[data-app-state=done]", state="attached", timeout=600_000)
            result["audit"] = float(page.get_attribute("html", "data-analysis-ms"))
            tasks = page.evaluate("window.__longTasks")
            result["audit_longest"] = max((t["duration"] for t in tasks if t["start"] >= t1), default=0.0)
        return result
    finally:
        context.close()


def first_rows_run(browser, url: str, path: Path) -> dict[str, float]:
    """The file chosen -> its first rows on screen, and -> done (ms, as the page sees them)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        context.add_init_script(LONG_TASKS)
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("html[data-app-state=ready]", state="attached", timeout=120_000)
        page.evaluate("delete document.documentElement.dataset.firstRowsMs")
        page.set_input_files('[data-testid="file-input"]', str(path))
        page.wait_for_selector("html[data-app-state=done], html[data-app-state=error]", state="attached",
                               timeout=1_800_000)
        if page.get_attribute("html", "data-app-state") != "done":
            raise SystemExit("the page ended in error: " + page.text_content('[data-testid="status"]'))
        return {"first": page.evaluate("window.__firstAt - window.__changed"),
                "done": page.evaluate("window.__doneAt - window.__changed"),
                "lanes": lanes_drawn(page, 1_800_000),
                "first_attr": float(page.get_attribute("html", "data-first-rows-ms")),
                "peak_mb": renderer_peak_mb(),
                "parts": page.get_attribute("html", "data-analysis-parts") or "",
                "lanes_parts": page.get_attribute("html", "data-lanes-parts") or ""}
    finally:
        context.close()


def renderer_peak_mb() -> float:
    """The largest peak RSS (VmHWM) among the renderer processes this run's Chromium started: the
    page and its workers (Python's WebAssembly memory is most of it). Read from /proc, descendants
    of this process only (other Chromiums may run beside)."""
    def parent(pid: str) -> str:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[1]

    me, peak = str(os.getpid()), 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"--type=renderer" not in f.read():
                    continue
            up = pid
            while up not in ("0", "1", me):
                up = parent(up)
            if up != me:
                continue
            with open(f"/proc/{pid}/status") as f:
                hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
            peak = max(peak, hwm)
        except (OSError, StopIteration, IndexError):
            continue
    return peak / 1024


def first_rows(sizes: list[int], against: list[Path]) -> None:
    from playwright.sync_api import sync_playwright

    print("asked   file MB   cli ms   first rows ms (x cli)   done ms (x cli)   swimlanes ms (x cli)   "
          "(first rows: after the first 256 KiB)")
    with contextlib.ExitStack() as stack, sync_playwright() as playwright:
        builds = [("", stack.enter_context(serving(ROOT)))]
        builds += [(f" {other}", stack.enter_context(serving(other.resolve()))) for other in against]
        for mb in sizes:
            path = make_input(mb)  # whole copies of the corpus: the file may be larger than asked
            cli_seconds(path)  # bytecode and file cache
            for name, url in builds:
                cli = cli_seconds(path) * 1000
                browser = launch(playwright)  # a browser of its own: the renderer's peak is this load's
                r = first_rows_run(browser, url, path)
                browser.close()
                print(f"{mb:4d} MB {path.stat().st_size / 2**20:8.1f} {cli:8.0f}   {r['first']:8.0f} "
                      f"(x{r['first'] / cli:.3f})      {r['done']:8.0f} (x{r['done'] / cli:.2f})   "
                      f"{r['lanes']:8.0f} (x{r['lanes'] / cli:.2f})   (page's "
                      f"data-first-rows-ms {r['first_attr']:.0f}; renderer peak RSS {r['peak_mb']:.0f} MB){name}")
                print(f"          (done: {r['parts']}; swimlanes: {r['lanes_parts'] or 'no account'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--audit", action="store_true", help="also time the audit (4 strategies)")
    parser.add_argument("--first-rows", metavar="SIZES", help="MB, comma-separated: first rows and done per size")
    parser.add_argument("--against", type=Path, action="append", default=[],
                        help="a `make dist` folder of another build, loaded in the same rounds (repeatable)")
    args = parser.parse_args()
    if not (ROOT / "static" / "vendor" / "pyodide" / "pyodide.mjs").is_file():
        raise SystemExit("static/vendor/ is empty: run `make site` first")
    if args.first_rows:
        first_rows([int(x) for x in args.first_rows.split(",")], args.against)
        return
    path = make_input(args.mb)
    size = path.stat().st_size
    model, relays, worst_slice = model_seconds(path)
    cli_seconds(path)  # writes the bytecode, warms the file cache

    from playwright.sync_api import sync_playwright

    runs: list[dict[str, Any]] = []
    others: dict[Path, list[dict[str, Any]]] = {d: [] for d in args.against}
    with contextlib.ExitStack() as stack, sync_playwright() as playwright:
        url = stack.enter_context(serving(ROOT))
        other_urls = {d: stack.enter_context(serving(d.resolve())) for d in args.against}
        browser = launch(playwright)
        for _ in range(args.runs):
            cli = cli_seconds(path)
            runs.append(browser_run(browser, url, path, args.audit) | {"cli": cli * 1000,
                                                                     "worker": worker_run(browser, url, path)})
            for d, other_url in other_urls.items():
                cli = cli_seconds(path)
                others[d].append(browser_run(browser, other_url, path, args.audit) | {"cli": cli * 1000})
        browser.close()

    def med(key: str) -> float:
        return statistics.median(r[key] for r in runs)

    def ratio(key: str) -> float:
        return statistics.median(r[key] / r["cli"] for r in runs)

    def spread(rs: list[dict[str, Any]], key: str) -> str:
        values = [r[key] for r in rs]
        return f"{statistics.median(values):.0f} [{min(values):.0f}-{max(values):.0f}]"

    cli = med("cli") / 1000

    print(f"{path.name}: {size / 2**20:.1f} MB, {relays} relay events (lineage); browser runs: {args.runs}")
    cli_runs = ", ".join(f"{r['cli']:.0f}" for r in runs)
    pairs = ", ".join(f"{r['load'] / r['cli']:.2f}" for r in runs)
    print(f"  cli      {cli * 1000:8.0f} ms   x1.00   (median; runs: {cli_runs})")
    print(f"  model    {model * 1000:8.0f} ms   x{model / cli:.2f}   (CPython; longest slice {worst_slice * 1000:.0f} ms)")
    print(f"  worker   {med('worker'):8.0f} ms   x{ratio('worker'):.2f}   (Workspace.load in a bare worker in Chromium: "
          f"the engine's share)")
    print(f"  browser  {med('load'):8.0f} ms   x{ratio('load'):.2f}   (file chosen -> done; each run over the "
          f"CLI run before it: {pairs}; relays shown {runs[0]['relays']})")
    pairs = ", ".join(f"{r['lanes'] / r['cli']:.2f}" for r in runs)
    print(f"  lanes    {med('lanes'):8.0f} ms   x{ratio('lanes'):.2f}   (file chosen -> the swimlanes drawn, after "
          f"done; each run over the CLI run before it: {pairs})")
    print(f"           {'':8}      (data-analysis-ms {med('analysis'):.0f}; outside the job {spread(runs, 'outside')}; "
          f"first rows {spread(runs, 'first')}; with Playwright's hand-over of the file {med('load_wall'):.0f} ms)")
    print(f"           {'':8}      (the page's own account, medians: {medians(runs, 'parts')} ms;"
          f" of the swimlanes: {medians(runs, 'lanes_parts')} ms)")
    for against, other in others.items():
        pairs = ", ".join(f"{r['load'] / r['cli']:.2f}" for r in other)
        load = statistics.median(r["load"] for r in other)
        x = statistics.median(r["load"] / r["cli"] for r in other)
        print(f"  against  {load:8.0f} ms   x{x:.2f}   ({against}: file chosen -> done; each run over the CLI "
              f"run before it: {pairs})")
        pairs = ", ".join(f"{r['lanes'] / r['cli']:.2f}" for r in other)
        lanes = statistics.median(r["lanes"] for r in other)
        x = statistics.median(r["lanes"] / r["cli"] for r in other)
        print(f"           {lanes:8.0f} ms   x{x:.2f}   (its swimlanes drawn: {pairs})")
        print(f"           {'':8}      (its data-analysis-ms {statistics.median(r['analysis'] for r in other):.0f}; "
              f"outside the job {spread(other, 'outside')}; first rows {spread(other, 'first')})")
        print(f"           {'':8}      (its own account, medians: {medians(other, 'parts')} ms;"
              f" of the swimlanes: {medians(other, 'lanes_parts')} ms)")
    print(f"  rerun    {med('rerun'):8.0f} ms   x{ratio('rerun'):.2f}   (strategy 'none', in the page)")
    print(f"  filter   {med('filter'):8.0f} ms            (text 'error' over every row, typed -> shown; "
          f"longest task {med('filter_longest'):.0f} ms)")
    if args.audit:
        print(f"  audit    {med('audit'):8.0f} ms   x{ratio('audit'):.2f}   "
              f"(4 strategies; longest task {med('audit_longest'):.0f} ms)")
    print(f"  longest main-thread task while analyzing: {med('longest'):.0f} ms; "
          f"tasks over 200 ms: {med('over200'):.0f}; longest slice the app timed: {med('slice'):.0f} ms")


if __name__ == "__main__":
    main()
