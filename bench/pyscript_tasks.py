"""The PyScript page's main-thread tasks: relayscope in PyScript's worker (static/pyscript.html,
as shipped) against the same translation with PyScript on the page's own thread, in one run.

Usage (after `make site`):

    .venv/bin/python bench/pyscript_tasks.py [--runs 3]

Each run opens, on a fresh browser context, served by tools/serve.py (a plain static host: no
special headers, so no SharedArrayBuffer):
  worker  static/pyscript.html until <html data-app-state="done">, then one edit of the
          transcript and one change of strategy, each until "done" again;
  main    a page written to a temporary folder beside a link to static/: the same PyScript,
          Pyodide, config and wheels, a `<script type="py">` on the main thread that translates
          the same example and writes the count, until "done".
It prints the longest main-thread task after first contentful paint (Long Tasks API, observed
from before the first script), boot-to-done, and the ratio of each to the worker page's in the
same run. The page's claim is "no task over 250 ms once painted".

Must not: write anything outside its temporary folder.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from browser import launch
from serve import serving

OBSERVER = ("window.__lt = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) "
            "window.__lt.push([e.startTime, e.duration]); }).observe({type: 'longtask', buffered: true});")
MAIN_PAGE = """<!doctype html><html data-app-state="loading"><head><meta charset="utf-8">
<script type="module" src="./static/vendor/pyscript/core.js"></script></head><body>
<p id="count">0</p><script type="py" src="./main.py" config="./main.json"></script></body></html>"""
MAIN_CONFIG = """{"interpreter": "./static/vendor/pyodide/pyodide.mjs", "packages_cache": "never",
 "packages": ["./static/vendor/wheels/relayscope-0.1.0-py3-none-any.whl"]}"""
MAIN_PY = """from pyscript import document, fetch
from relayscope.analysis import analyze
text = await (await fetch("./static/examples/index-bug.ndjson")).text()
document.getElementById("count").textContent = str(len(analyze(text, "index").relays))
document.documentElement.dataset.appState = "done"
"""
DONE = "html[data-app-state=done], html[data-app-state=error]"


def visit(browser, url: str, edit: bool) -> tuple[float, float]:
    """(longest task after first paint in ms, seconds to "done") of one fresh visit."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.add_init_script(OBSERVER)
        start = time.monotonic()
        page.goto(url)
        page.wait_for_selector(DONE, state="attached", timeout=120_000)
        boot = time.monotonic() - start
        assert page.get_attribute("html", "data-app-state") == "done", url
        if edit:
            page.fill("#ps-input", page.input_value("#ps-input") + "\n")
            page.wait_for_selector(DONE, state="attached")
            page.select_option("#ps-strategy", "lineage")
            page.wait_for_selector(DONE, state="attached")
        page.wait_for_timeout(300)
        fcp = page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || 0")
        tasks = [d for s, d in page.evaluate("window.__lt") if s >= fcp]
        return max(tasks, default=0.0), boot
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "static").symlink_to(ROOT / "static")
        (folder / "main.html").write_text(MAIN_PAGE, encoding="utf-8")
        (folder / "main.json").write_text(MAIN_CONFIG, encoding="utf-8")
        (folder / "main.py").write_text(MAIN_PY, encoding="utf-8")
        results: dict[str, list[tuple[float, float]]] = {"worker": [], "main": []}
        with serving(folder) as url, sync_playwright() as playwright:
            browser = launch(playwright)
            for run in range(args.runs):
                order = ["worker", "main"] if run % 2 == 0 else ["main", "worker"]
                for name in order:
                    page = "static/pyscript.html" if name == "worker" else "main.html"
                    results[name].append(visit(browser, url + page, edit=name == "worker"))
            browser.close()
    base_task = statistics.median(t for t, _ in results["worker"]) or 1.0
    base_boot = statistics.median(b for _, b in results["worker"])
    print(f"{'page':8} {'longest task after paint (ms)':>32} {'ratio':>7} {'boot to done (s)':>18} {'ratio':>7}")
    for name, rows in results.items():
        task = statistics.median(t for t, _ in rows)
        boot = statistics.median(b for _, b in rows)
        each = ", ".join(f"{t:.0f}" for t, _ in rows)
        print(f"{name:8} {task:>20.0f} ({each:>9}) {task / base_task:>7.1f} {boot:>18.2f} {boot / base_boot:>7.2f}")


if __name__ == "__main__":
    main()
