"""Helpers for the app's browser tests: where inputs are, and AppDriver, the moves a user makes.

Imported by conftest.py and the tests (pytest puts this folder on sys.path)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from browser import wait_js  # noqa: E402,F401  (tools/ is not a package; the tests import it from here)

# the real captures the repository carries (tests/fixtures/real/SOURCES.tsv), same layout as shared/corpus/real
CORPUS = ROOT / "tests" / "fixtures" / "real"
EXAMPLES_DIR = ROOT / "static" / "examples"
# a session's folder: its main transcript and two sub-agents' (ef958aa1), with timestamps
SUBAGENT_SESSION = (CORPUS / "session-jsonl" / "handgemacht-ai__claude-code-log" / "test" / "test_data"
                    / "real_projects" / "-experiments-worktrees")
SETTLED_RUN = "html[data-app-state=done], html[data-app-state=error]"
RUN_TIMEOUT_MS = 120_000
# the swimlanes are built after a load's "done" (screen.py): none being built
LANES_DRAWN = "[data-testid=swimlanes]:not([data-building])"
# The page's long tasks (Long Tasks API, from before its first script) and a 20 ms timer's ticks:
# add_init_script() it, then read window.__longTasks ({start, duration}) and window.__ticks.
LONG_TASKS = """
window.__longTasks = [];
window.__ticks = [];
setInterval(() => window.__ticks.push(performance.now()), 20);
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longTasks.push({start: e.startTime, duration: e.duration});
}).observe({type: "longtask", buffered: true});
"""


class AppDriver:
    """One booted page of the app and the moves a user makes on it. Every move that starts work
    waits for <html data-app-state> to settle (the app flips it to "analyzing" synchronously in
    the handler, so the previous "done" is never mistaken for this one)."""

    def __init__(self, page, log, site) -> None:
        self.page, self.log, self.site = page, log, site

    def testid(self, name: str):
        return self.page.locator(f'[data-testid="{name}"]')

    def settle(self, expect: str = "done") -> None:
        """The move's job ended in ``expect``; when "done", the swimlanes it builds after it drawn too."""
        self.page.wait_for_selector(SETTLED_RUN, state="attached", timeout=RUN_TIMEOUT_MS)
        state = self.page.get_attribute("html", "data-app-state")
        assert state == expect, f"app state {state!r}: {self.testid('status').text_content()}\n{self.log.report()}"
        if expect == "done":
            self.lanes_drawn()

    def lanes_drawn(self) -> None:
        """The swimlanes are built (after the rows: drawn, or found to show nothing the rows do not)."""
        self.page.wait_for_selector(LANES_DRAWN, state="attached", timeout=RUN_TIMEOUT_MS)

    def example(self, example_id: str, strategy: str = "lineage") -> None:
        self.page.evaluate("document.getElementById('examples-box').open = true")
        self.page.click(f'[data-testid="example"][data-example="{example_id}"]')
        self.settle()
        self.strategy(strategy)

    def paste(self, text: str, expect: str = "done") -> None:
        self.testid("paste-input").fill(text)
        self.settle(expect)

    def open_files(self, files, strategy: str = "lineage", expect: str = "done") -> None:
        """files: paths, or Playwright file payloads ({name, mimeType, buffer})."""
        self.testid("file-input").set_input_files(files)
        self.settle(expect)
        if expect == "done":
            self.strategy(strategy)

    def open_folder(self, folder: Path = SUBAGENT_SESSION) -> None:
        self.testid("folder-input").set_input_files(folder)
        self.settle()

    def strategy(self, name: str) -> None:
        if self.testid("strategy").input_value() != name:
            self.testid("strategy").select_option(name)
            self.settle()

    def relay_count(self) -> int:
        """Relay events shown (after filters, and with bookkeeping records hidden)."""
        return int(self.testid("relay-count").text_content())

    def total(self) -> int:
        """Every relay event of the input, shown or not."""
        return int(self.testid("relay-count").get_attribute("data-total"))

    def lanes(self) -> list[str]:
        return self.page.eval_on_selector_all('[data-testid="lane"]', "els => els.map(e => e.dataset.lane)")

    def step_position(self) -> str:
        return self.testid("step-position").text_content()

    def tab(self, name: str) -> None:
        """Show the detail panel's tab ``name`` (row, stepper, lanes, audit, share)."""
        tab = self.page.locator(f'[data-testid="detail-tab"][data-tab="{name}"]')
        if tab.get_attribute("aria-selected") != "true":
            tab.click()

    def reading(self, name: str) -> None:
        """The run or the protocol reading."""
        self.page.locator(f'[data-testid="reading"] label:has(input[value="{name}"])').click()

    def run_audit(self) -> None:
        self.tab("audit")
        if self.testid("run-audit").is_visible():
            self.testid("run-audit").click()
            self.settle()

    def audit_cell(self, strategy: str, column: str) -> int:
        cell = self.page.locator(f'[data-testid="audit"] tr[data-strategy="{strategy}"] td[data-col="{column}"]')
        return int(cell.text_content().replace("\u202f", ""))

    def pwned(self) -> object:
        return self.page.evaluate("window.__pwned")



def cli_ndjson(*paths: Path, strategy: str = "lineage") -> bytes:
    run = subprocess.run(
        [sys.executable, "-m", "relayscope", "translate", "-s", strategy, *map(str, paths)],
        capture_output=True,
    )
    assert run.returncode in (0, 1), run.stderr.decode()
    return run.stdout


# -- acting waits for the app to have handled the act ---------------------------------------------
#
# Python runs in a web worker: a click is handled a few milliseconds after Playwright's click()
# returns. The page counts what it has handed the worker and not yet seen handled
# (<html data-inflight>, static/js/ui.mjs). Every act a test makes through Playwright waits for
# that count to come back to 0, so that what a test reads next is what the act did, as it was
# when Python ran on the page's thread. (Work an act starts is waited on through
# data-app-state, as ever: AppDriver.settle.)

SYNCED = 'html:not([data-inflight]), html[data-inflight="0"]'
ACTS = ("click", "dblclick", "fill", "press", "press_sequentially", "type", "select_option",
        "set_input_files", "check", "uncheck", "dispatch_event", "tap", "clear")


def synced(page) -> None:
    """Wait until every frame of ``page`` has handled what it was handed: an act on a locator in
    a frame (an embed) is counted by the app in that frame, not by the page around it."""
    from playwright.sync_api import Error

    for frame in page.frames:
        try:
            frame.wait_for_selector(SYNCED, state="attached", timeout=RUN_TIMEOUT_MS)
        except Error as exc:
            gone = ("navigat", "closed", "detached")
            if not page.is_closed() and not any(word in str(exc) for word in gone):
                raise


class _Keyboard:
    def __init__(self, page, keyboard) -> None:
        self._page, self._keyboard = page, keyboard

    def __getattr__(self, name: str):
        attr = getattr(self._keyboard, name)
        if name not in ("press", "type", "insert_text", "down", "up"):
            return attr

        def act(*args, **kwargs):
            result = attr(*args, **kwargs)
            synced(self._page)
            return result

        return act


def install_synced_acts() -> None:
    from playwright.sync_api import Locator, Page

    def wrap(cls, name: str, page_of) -> None:
        original = getattr(cls, name)

        def act(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
            synced(page_of(self))
            return result

        act.__wrapped__ = original
        setattr(cls, name, act)

    for name in ACTS:
        if hasattr(Locator, name):
            wrap(Locator, name, lambda loc: loc.page)
        if hasattr(Page, name):
            wrap(Page, name, lambda page: page)
    keyboard = Page.keyboard
    Page.keyboard = property(lambda page: _Keyboard(page, keyboard.fget(page)))


def boot_probed(page, site, request_log) -> None:
    """Open the app with LONG_TASKS watching from the first script; wait until it is ready."""
    from urllib.parse import urlsplit

    parts = urlsplit(site.url)
    request_log.origin = f"{parts.scheme}://{parts.netloc}"
    page.add_init_script(LONG_TASKS)
    page.goto(site.url)
    page.wait_for_selector("html[data-app-state=ready]", state="attached", timeout=RUN_TIMEOUT_MS)


# rows whose box lies wholly inside the timeline's box and the window
ROWS_IN_VIEW = """() => {
  const tl = document.querySelector('[data-testid=timeline]').getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=timeline] [role=row]')].filter((row) => {
    const r = row.getBoundingClientRect();
    return r.height > 0 && r.top >= tl.top && r.bottom <= tl.bottom && r.top >= 0 && r.bottom <= innerHeight;
  }).length;
}"""
