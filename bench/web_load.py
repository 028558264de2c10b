"""Cold load of the web app against a bare Pyodide boot, measured in the same run.

Usage (after `make site`; `make test` installs what it needs):

    .venv/bin/python bench/web_load.py [--runs 5]

Each run opens a fresh browser context (empty cache) on the built site, served on 127.0.0.1:
  bare      a page that only calls loadPyodide() from static/vendor/pyodide/ (with our lock);
  packages  the same, plus loadPyodide({packages: ["relayscope"]}) and `import relayscope`;
  app       index.html (PyScript + our lock) until <html data-app-state="ready">.
Times are the page's own performance.now() when done (ms since navigation start); the table
shows medians and each one's ratio to bare. Order is rotated between runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from browser import launch
from serve import serving

# Served only to the benchmark (through a Playwright route), never part of the site.
BARE_PAGE = """<!doctype html>
<html data-app-state="loading"><head><link rel="icon" href="data:,">
<script type="module">
import { loadPyodide } from "./static/vendor/pyodide/pyodide.mjs";
const packages = PACKAGES;
const py = await loadPyodide({
  lockFileURL: new URL("./pyodide-lock.json", location.href).href, packages,
});
py.runPython(packages.length ? "import relayscope" : "import sys");
document.documentElement.dataset.loadMs = performance.now().toFixed(0);
document.documentElement.dataset.appState = "ready";
</script></head><body></body></html>
"""

PAGES = {
    "bare": ("bench-bare.html", BARE_PAGE.replace("PACKAGES", "[]")),
    "packages": ("bench-packages.html", BARE_PAGE.replace("PACKAGES", '["relayscope"]')),
    "app": ("", None),
}


def load_ms(browser, url: str, body: str | None) -> float:
    context = browser.new_context()
    try:
        if body is not None:
            context.route(url, lambda route: route.fulfill(body=body, content_type="text/html"))
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector(
            "html[data-app-state=ready], html[data-app-state=error]",
            state="attached",
            timeout=120_000,
        )
        if page.get_attribute("html", "data-app-state") != "ready":
            raise SystemExit(f"{url}: the page ended in error")
        return float(page.get_attribute("html", "data-load-ms"))
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not (ROOT / "static" / "vendor" / "pyodide" / "pyodide.mjs").is_file():
        raise SystemExit("static/vendor/ is empty: run `make site` first")

    from playwright.sync_api import sync_playwright

    names = list(PAGES)
    times: dict[str, list[float]] = {name: [] for name in names}
    with serving(ROOT) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        load_ms(browser, base + PAGES["bare"][0], PAGES["bare"][1])  # warm the OS file cache
        for run in range(args.runs):
            for name in names[run % len(names) :] + names[: run % len(names)]:
                path, body = PAGES[name]
                times[name].append(load_ms(browser, base + path, body))
        browser.close()

    bare = statistics.median(times["bare"])
    print(f"cold load to ready, median of {args.runs} runs (ms since navigation start)")
    for name in names:
        median = statistics.median(times[name])
        runs = " ".join(f"{t:.0f}" for t in times[name])
        print(f"  {name:<9}{median:7.0f} ms   x{median / bare:.2f} of bare   [{runs}]")


if __name__ == "__main__":
    main()
