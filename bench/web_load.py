"""Start-up of the web app against a bare Pyodide boot: cold, warm, main-thread freeze, input echo.

Usage (after `make site`; `make test` installs what it needs):

    .venv/bin/python bench/web_load.py [--runs 5] [--breakdown]

Every run launches Chromium on fresh, empty profiles (a real on-disk profile each, as a user's
browser has: an HTTP cache, V8's code cache, Cache Storage and IndexedDB) on the built site,
served on 127.0.0.1 by tools/serve.py (a plain static server: Last-Modified, no caching rules):
  bare       bench/out/bare.html: only loadPyodide() with our lock, from node_modules/pyodide/:
             Pyodide exactly as npm ships it, whatever the build does to static/vendor/;
  runtime    bench/out/runtime.html: the same from static/vendor/pyodide/, the runtime the app
             boots on (the standard library compiled to bytecode): what the app adds to it;
  app        index.html until <html data-app-state="ready">;
  cold/warm  the first visit on the fresh profile, then a second visit in a new tab of the
             same profile (what a user gets when they come back);
  paste      a cold visit of the app into whose text area a transcript is typed (Input.insertText,
             as a paste lands) ~0.6 s after navigation: how long until the page echoes it
             (its `input` event), and when the app has analyzed it.
Times are the page's performance.now() (ms since navigation start). The longest task is the
longest main-thread task from navigation to `ready` (Long Tasks API, observed from before the
first script runs). The table shows medians over the runs and each one's ratio to a cold bare
boot in the same run; scenario order is rotated between runs.

--against DIR (repeatable) adds the same cold/warm visits of another build of the site (a `make dist` folder,
e.g. of the main branch), served the same way in the same run: before/after on equal terms.

--profile adds one more cold visit of the app under V8's sampling profiler and prints the time
under each named JS function (inclusive) on the page's thread. Python boots in a
web worker, which this profiler does not see: what it shows is what the page's thread does
(parsing, ui.mjs applying the worker's ops).

--breakdown adds, for the cold and warm app visits, where the time goes: when each file the
page fetches started and finished (Resource Timing; `transfer 0` means it came from the HTTP
cache), and the marks the page sets (performance.mark, e.g. the Pyodide shim's).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from browser import CHROMIUM, CHROMIUM_ARGS
from serve import serving

OUT = ROOT / "bench" / "out"
PASTE_AT_S = 0.6
PASTE_FILE = ROOT / "static" / "examples" / "index-bug.ndjson"

# Written to bench/out/ and served like the site (a Playwright route would turn the HTTP cache
# off, and the warm visit needs it), never part of the site.
BARE_PAGE = """<!doctype html>
<html data-app-state="loading"><head><link rel="icon" href="data:,">
<script type="module">
import { loadPyodide } from "../../PYODIDE/pyodide.mjs";
await loadPyodide({ lockFileURL: new URL("../../pyodide-lock.json", location.href).href });
document.documentElement.dataset.loadMs = performance.now().toFixed(0);
document.documentElement.dataset.appState = "ready";
</script></head><body></body></html>
"""

# Before any script of the page: long tasks (buffered, so nothing before the observer is
# missed), every change of <html data-app-state> with its time, the first `input` event, and the
# text area focused as soon as the parser adds it, so that typed text has somewhere to land.
INIT_SCRIPT = """
window.__bench = { tasks: [], states: [], echo: null };
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) __bench.tasks.push([e.startTime, e.duration]);
  }).observe({ type: "longtask", buffered: true });
} catch {}
new MutationObserver((records) => {
  for (const r of records) if (r.target === document.documentElement) {
    __bench.states.push([r.target.dataset.appState, performance.now()]);
  }
}).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-app-state"] });
addEventListener("input", () => { if (__bench.echo === null) __bench.echo = performance.now(); }, true);
new MutationObserver((_, observer) => {
  const area = document.querySelector('[data-testid="paste-input"]');
  if (!area) return;
  observer.disconnect();
  area.focus();
  __bench.focused = performance.now();
}).observe(document, { childList: true, subtree: true });
document.addEventListener("DOMContentLoaded", () => { __bench.dcl = performance.now(); });
"""
# The paste landed and was analyzed, or it found no text area and the app is idle.
PASTE_SETTLED = """() => {
  const state = document.documentElement.dataset.appState;
  return state === "done" || state === "error" || (state === "ready" && window.__bench.echo === null);
}"""

RESULT_JS = """() => ({
  ...window.__bench,
  loadMs: Number(document.documentElement.dataset.loadMs),
  timeOrigin: performance.timeOrigin,
  resources: performance.getEntriesByType("resource").map((e) => ({
    name: e.name, start: e.startTime, end: e.responseEnd, transfer: e.transferSize,
  })),
  marks: performance.getEntriesByType("mark").map((e) => [e.name, e.startTime]),
})"""

SETTLED = "html[data-app-state=ready], html[data-app-state=error], html[data-app-state=done]"


def profile(playwright, user_data_dir: str):
    context = playwright.chromium.launch_persistent_context(
        user_data_dir, executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    context.add_init_script(INIT_SCRIPT)
    return context


def summarize(raw: dict) -> dict:
    ready = raw["loadMs"]
    boot = [d for start, d in raw["tasks"] if start < ready]
    raw.update(ready=ready, longest=max(boot, default=0.0), over200=sum(d > 200 for d in boot))
    return raw


def visit(context, url: str) -> dict:
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_selector(SETTLED, state="attached", timeout=120_000)
        if page.get_attribute("html", "data-app-state") == "error":
            raise SystemExit(f"{url}: the page ended in error: {page.text_content('body')[:300]}")
        return summarize(page.evaluate(RESULT_JS))
    finally:
        page.close()


def cold_and_warm(playwright, url: str) -> tuple[dict, dict]:
    with tempfile.TemporaryDirectory(prefix="web-load-") as user_data_dir:
        context = profile(playwright, user_data_dir)
        try:
            cold = visit(context, url)
            warm = visit(context, url)
        finally:
            context.close()
    return cold, warm


def paste_visit(playwright, url: str, at: float) -> dict:
    text = PASTE_FILE.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="web-load-") as user_data_dir:
        context = profile(playwright, user_data_dir)
        try:
            page = context.new_page()
            started = time.time()
            page.goto(url, wait_until="commit")
            time.sleep(max(0.0, started + at - time.time()))
            pasted = time.time() * 1000  # epoch ms, the clock performance.timeOrigin is on
            page.keyboard.insert_text(text)
            page.wait_for_function(PASTE_SETTLED, timeout=120_000)
            raw = summarize(page.evaluate(RESULT_JS))
        finally:
            context.close()
    raw["paste_at"] = pasted - raw["timeOrigin"]
    raw["echo_after"] = None if raw["echo"] is None else raw["echo"] - raw["paste_at"]
    raw["done_at"] = next((t for state, t in raw["states"] if state in ("done", "error")), None)
    raw["final"] = raw["states"][-1][0] if raw["states"] else "?"
    return raw


def profile_visit(playwright, url: str) -> tuple[dict, list[tuple[str, float]]]:
    """A cold visit under the CPU profiler: ms spent inside each named JS function."""
    with tempfile.TemporaryDirectory(prefix="web-load-") as user_data_dir:
        context = profile(playwright, user_data_dir)
        try:
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 500})
            cdp.send("Profiler.start")
            page.goto(url)
            page.wait_for_selector(SETTLED, state="attached", timeout=120_000)
            prof = cdp.send("Profiler.stop")["profile"]
            raw = summarize(page.evaluate(RESULT_JS))
        finally:
            context.close()
    nodes = {n["id"]: n for n in prof["nodes"]}
    parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", [])}
    inclusive: dict[str, float] = {}
    for sample, delta in zip(prof["samples"], prof["timeDeltas"], strict=True):
        names, node = set(), sample
        while node is not None:
            frame = nodes[node]["callFrame"]
            if frame["functionName"] and "wasm-function" not in frame["functionName"]:
                names.add(f"{frame['functionName']} ({frame['url'].rsplit('/', 1)[-1] or '-'})")
            node = parent.get(node)
        for name in names:
            inclusive[name] = inclusive.get(name, 0.0) + delta / 1000
    return raw, sorted(inclusive.items(), key=lambda kv: -kv[1])


def med(values: list) -> float:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def each(values) -> str:
    return " ".join("-" if v is None else f"{v:.0f}" for v in values)


def breakdown(label: str, raw: dict, base: str) -> None:
    print(f"\n{label}: ready at {raw['ready']:.0f} ms, DOMContentLoaded at {raw.get('dcl', 0):.0f} ms; "
          f"long tasks before ready (start+duration): "
          + ", ".join(f"{s:.0f}+{d:.0f}" for s, d in raw["tasks"] if s < raw["ready"]))
    events = [(r["start"], f"fetch   {r['name'].removeprefix(base)}  ->{r['end']:.0f} ms  "
               f"(transfer {r['transfer']})") for r in raw["resources"]]
    events += [(t, f"mark    {name}") for name, t in raw["marks"]]
    events += [(t, f"state   {state}") for state, t in raw["states"]]
    for t, what in sorted(events):
        print(f"  {t:7.0f} ms  {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--paste-at", type=float, default=PASTE_AT_S, help="seconds after navigation")
    parser.add_argument("--against", type=Path, action="append", default=[],
                        help="another built site (make dist) to compare; may be repeated")
    parser.add_argument("--profile", action="store_true", help="profile one cold visit of the app")
    parser.add_argument("--breakdown", action="store_true", help="print where the app's boot time goes")
    args = parser.parse_args()
    if not (ROOT / "static" / "vendor" / "pyodide" / "pyodide.mjs").is_file():
        raise SystemExit("static/vendor/ is empty: run `make site` first")
    if not (ROOT / "node_modules" / "pyodide" / "pyodide.mjs").is_file():
        raise SystemExit("node_modules/ is empty: run `make site` first")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "bare.html").write_text(BARE_PAGE.replace("PYODIDE", "node_modules/pyodide"), encoding="utf-8")
    (OUT / "runtime.html").write_text(BARE_PAGE.replace("PYODIDE", "static/vendor/pyodide"), encoding="utf-8")

    from playwright.sync_api import sync_playwright

    against = {f"vs {k + 1}": path.resolve() for k, path in enumerate(args.against)}
    names = ["bare", "runtime", "app", *against]
    results: dict[str, list[dict]] = {f"{n} {v}": [] for n in names for v in ("cold", "warm")}
    results["paste"] = []
    with ExitStack() as stack:
        base = stack.enter_context(serving(ROOT))
        playwright = stack.enter_context(sync_playwright())
        bare_url, app_url = base + "bench/out/bare.html", base
        scenarios = [("bare", bare_url), ("runtime", base + "bench/out/runtime.html"), ("app", app_url),
                     ("paste", app_url)]
        scenarios += [(name, stack.enter_context(serving(path))) for name, path in against.items()]
        cold_and_warm(playwright, bare_url)  # warm the OS file cache and the server
        for run in range(args.runs):
            k = run % len(scenarios)
            for name, url in scenarios[k:] + scenarios[:k]:
                if name == "paste":
                    results["paste"].append(paste_visit(playwright, url, args.paste_at))
                else:
                    cold, warm = cold_and_warm(playwright, url)
                    results[f"{name} cold"].append(cold)
                    results[f"{name} warm"].append(warm)
        if args.profile:
            raw, inclusive = profile_visit(playwright, app_url)
            print(f"\napp cold, profiled: ready at {raw['ready']:.0f} ms; ms inside each JS function:")
            for name, ms in inclusive[:30]:
                print(f"  {ms:7.0f}  {name}")
        if args.breakdown:
            breakdown("app cold (last run)", results["app cold"][-1], base)
            breakdown("app warm (last run)", results["app warm"][-1], base)

    bare = med([r["ready"] for r in results["bare cold"]])
    print(f"\nstart-up, median of {args.runs} runs (ms since navigation start; x = ratio to a cold bare "
          f"Pyodide boot in the same run)")
    print(f"  {'':<14}{'ready':>8}{'x bare':>9}{'longest task':>15}{'tasks > 200 ms':>16}   ready, each run")
    for name, path in against.items():
        print(f"  ({name}: {path})")
    for name in (k for k in results if k != "paste"):
        rs = results[name]
        ready = med([r["ready"] for r in rs])
        print(f"  {name:<14}{ready:8.0f}{ready / bare:9.2f}{med([r['longest'] for r in rs]):12.0f} ms"
              f"{med([r['over200'] for r in rs]):16.0f}   [{each(r['ready'] for r in rs)}]")
    print("  (a paste that lands during a long task is echoed when the task ends: the longest task is the "
          "worst echo delay)")
    ps = results["paste"]
    echoed = sum(r["echo_after"] is not None for r in ps)
    print(f"  paste at {med([r['paste_at'] for r in ps]):.0f} ms into a cold app: echoed after "
          f"{med([r['echo_after'] for r in ps]):.0f} ms (echoed in {echoed}/{len(ps)} runs; each: "
          f"{each(r['echo_after'] for r in ps)}); "
          f"analyzed at {med([r['done_at'] for r in ps]):.0f} ms (ready at {med([r['ready'] for r in ps]):.0f}; "
          f"final states: {' '.join(r['final'] for r in ps)})")


if __name__ == "__main__":
    main()
