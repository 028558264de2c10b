"""The library in the page against the command line: listing a large ``~/.claude/projects`` and
searching it, as ratios to baselines timed in the same run.

Usage (after `make site`):

    .venv/bin/python bench/library_page_bench.py [--copies 222] [--query Bash] [--runs 1]

The library is tests/fixtures/library/projects (nine real sessions of five families) and
``--copies`` more projects holding the same sessions under new ids (222: about 2,000 sessions,
290 MB), written once to bench/out/. Measured in the same run, each page figure divided by the
baseline run just before it:

  cli list   `relayscope sessions DIR --json > /dev/null` (wall time);
  page list  the folder given to the page's folder input, the listing job's own time
             (<html data-analysis-ms>: from the input's files handed to Python to the list shown,
             every row drawn); goal: within 2.5x the CLI's listing;
  cat        `cat` of every file of the library > /dev/null (wall time);
  cli search `relayscope search DIR QUERY --json > /dev/null`;
  page search Enter in the library's search box to the search's end (``data-search-ms`` on
             ``#library``); goal: within 3x cat;
  long tasks the page's main-thread tasks over 50 ms (the Long Tasks API) while listing (from the
             input's `change`: the browser's own building of the input's file list comes before
             it, to the list drawn and 1 s after), while the figures of a whole read fill in
             (from then to Enter) and while searching (from Enter to the
             search's end and 1 s after): the longest, and how many went over 200 ms (goal:
             none). Each task is placed by its start: the observer hands entries over late, so
             a task of one phase can be handed over in the next.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from browser import launch
from serve import serving

FIXTURE = ROOT / "tests" / "fixtures" / "library" / "projects"
OUT = ROOT / "bench" / "out"
# The page's long tasks after the folder input's `change` (Chromium builds the input's file list
# before it, in a task of its own that grows with the number of files: not the app's)
LONG_TASKS = """
window.__longTasks = [];
window.__change = Infinity;
document.addEventListener("change", () => { window.__change = performance.now(); }, {capture: true});
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.startTime >= window.__change) window.__longTasks.push([e.startTime, e.duration]);
}).observe({type: "longtask", buffered: true});
"""


def make_library(copies: int) -> Path:
    """The fixture and ``copies`` more projects of its sessions under new ids (made once)."""
    root = OUT / f"library-{copies}"
    projects = root / "projects"
    if (root / "done").is_file():
        return projects
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(FIXTURE, projects)
    for k in range(copies):
        for source in sorted(p for p in FIXTURE.iterdir() if p.is_dir()):
            target = projects / f"-bench-copy{k:04d}{source.name}"
            target.mkdir(parents=True)
            for main in source.glob("*.jsonl"):
                new = f"{k:08d}-0000-4000-8000-{main.stem[-12:]}"
                shutil.copy(main, target / f"{new}.jsonl")
                if (source / main.stem).is_dir():
                    shutil.copytree(source / main.stem, target / new)
    (root / "done").write_text("")
    return projects


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def files_of(projects: Path) -> list[str]:
    return sorted(str(p) for p in projects.rglob("*") if p.is_file())


def page_run(browser, url: str, projects: Path, query: str) -> dict[str, float]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.add_init_script(LONG_TASKS)
    page.goto(url)
    page.wait_for_selector("html[data-app-state=ready]", state="attached", timeout=120_000)
    page.locator("[data-testid=folder-input]").set_input_files(projects)
    page.wait_for_selector("[data-testid=library]:not([hidden])", state="attached", timeout=600_000)
    page.wait_for_selector("html[data-app-state=done]", state="attached", timeout=600_000)
    listed_at = page.evaluate("performance.now()") + 1000
    listing = float(page.get_attribute("html", "data-analysis-ms")) / 1000
    listed = int(page.locator("[data-testid=library-count]").text_content().replace("\u202f", ""))
    # the figures of a whole read would compete with the search: let them finish first
    page.wait_for_selector("[data-testid=library]:not([data-filling])", state="attached", timeout=3_600_000)
    fill = float(page.get_attribute("[data-testid=library]", "data-fill-ms")) / 1000
    box = page.locator("[data-testid=library-search]")
    box.fill(query)
    enter = page.evaluate("performance.now()")
    box.press("Enter")
    page.wait_for_selector("[data-testid=library][data-search-ms]", state="attached", timeout=600_000)
    searched_at = page.evaluate("performance.now()") + 1000
    search = float(page.get_attribute("[data-testid=library]", "data-search-ms")) / 1000
    page.wait_for_timeout(1000)
    tasks = page.evaluate("window.__longTasks.slice()")
    long_list = [d for t, d in tasks if t <= listed_at]
    long_fill = [d for t, d in tasks if listed_at < t < enter]
    long_search = [d for t, d in tasks if enter <= t <= searched_at]
    context.close()
    return {"list": listing, "listed": listed, "fill": fill, "search": search,
            "long_list": max(long_list, default=0), "over_list": sum(1 for t in long_list if t > 200),
            "long_fill": max(long_fill, default=0), "over_fill": sum(1 for t in long_fill if t > 200),
            "long_search": max(long_search, default=0), "over_search": sum(1 for t in long_search if t > 200)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=222)
    ap.add_argument("--query", default="Bash")
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args()
    projects = make_library(args.copies)
    files = files_of(projects)
    size = sum(Path(f).stat().st_size for f in files)
    py = [sys.executable, "-m", "relayscope"]
    from playwright.sync_api import sync_playwright

    rows = []
    with serving(ROOT) as url, sync_playwright() as pw:
        browser = launch(pw)
        for _ in range(args.runs):
            cli_list = wall([*py, "sessions", str(projects), "--json"])
            cat = wall(["cat", *files])
            cli_search = wall([*py, "search", str(projects), args.query, "--json"])
            page = page_run(browser, url, projects, args.query)
            rows.append((cli_list, cat, cli_search, page))
        browser.close()
    print(f"library: {len(files)} files, {size / 1e6:.0f} MB, {rows[0][3]['listed']} sessions listed; "
          f"query {args.query!r}")
    for cli_list, cat, cli_search, page in rows:
        print(f"  cli list {cli_list:6.2f} s   page list {page['list']:6.2f} s   ratio {page['list'] / cli_list:4.2f}x"
              "  (goal 2.5x)")
        print(f"  cat      {cat:6.2f} s   cli search {cli_search:6.2f} s ({cli_search / cat:4.2f}x cat)   "
              f"page search {page['search']:6.2f} s   ratio {page['search'] / cat:4.2f}x cat  (goal 3x)")
        print(f"  page: whole-read figures filled in {page['fill']:.1f} s; longest task listing "
              f"{page['long_list']:.0f} ms ({page['over_list']} over 200 ms), filling in {page['long_fill']:.0f} ms "
              f"({page['over_fill']} over 200 ms), searching "
              f"{page['long_search']:.0f} ms ({page['over_search']} over 200 ms)")
    if len(rows) > 1:
        print(f"  median page/cli list {statistics.median(r[3]['list'] / r[0] for r in rows):.2f}x, "
              f"page search/cat {statistics.median(r[3]['search'] / r[1] for r in rows):.2f}x")


if __name__ == "__main__":
    main()
