"""The README's screenshot: the built site with a real session folder loaded, as a PNG.

Job: serve the site as `make site` leaves it (tools/serve.py), open it in Debian's Chromium
(tools/browser.py), load the three-file session `ef958aa1` from tests/fixtures/real/ through the
"Open folder" input, and write docs/img/relayscope.png. One command, no manual step:
`.venv/bin/python tools/screenshot.py` (add `--theme dark`, `--width 390` for other views;
`--folder DIR` loads another session folder instead, `--out` writes elsewhere).
Must not: build anything (run `make site` first; it says so when the site is not built), nor
load anything from another origin.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from browser import launch  # noqa: E402  (tools/ is not a package)
from serve import serving  # noqa: E402

SESSION = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
PROJECT = (ROOT / "tests" / "fixtures" / "real" / "session-jsonl" / "handgemacht-ai__claude-code-log"
           / "test" / "test_data" / "real_projects" / "-experiments-worktrees")
OUT = ROOT / "docs" / "img" / "relayscope.png"
TIMEOUT_MS = 120_000
SETTLED = "html[data-app-state=done], html[data-app-state=error]"
SYNCED = 'html:not([data-inflight]), html[data-inflight="0"]'


def session_folder(tmp: Path) -> Path:
    """A project folder holding only the session (its main file and its two sub-agent files), as
    a reader would pick it under ~/.claude/projects/."""
    folder = tmp / PROJECT.name
    folder.mkdir()
    shutil.copy2(PROJECT / f"{SESSION}.jsonl", folder)
    shutil.copytree(PROJECT / SESSION, folder / SESSION)
    return folder


def shoot(page: Any, url: str, folder: Path, out: Path) -> None:
    page.goto(url)
    page.wait_for_selector("html[data-app-state=ready]", state="attached", timeout=TIMEOUT_MS)
    page.locator('[data-testid="folder-input"]').set_input_files(folder)
    page.wait_for_selector(SETTLED, state="attached", timeout=TIMEOUT_MS)
    state = page.get_attribute("html", "data-app-state")
    if state != "done":
        raise SystemExit(f"the page ended in {state!r}, not 'done': nothing written")
    page.wait_for_selector(SYNCED, state="attached", timeout=TIMEOUT_MS)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(300)  # a frame for the last ops to be painted
    out.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--folder", type=Path, default=None, help="a session folder to load instead")
    args = parser.parse_args(argv)
    if not (ROOT / "static" / "vendor" / "pyodide" / "pyodide.mjs").is_file():
        raise SystemExit("the site is not built: run `make site` first")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, serving(ROOT) as url, sync_playwright() as pw:
        browser = launch(pw)
        context = browser.new_context(viewport={"width": args.width, "height": args.height},
                                      color_scheme=args.theme)
        shoot(context.new_page(), url, args.folder or session_folder(Path(tmp)), args.out)
        browser.close()
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
