"""Axe-core over every state a person sees, light and dark, 1280 and 390 px wide, and the
keyboard: every control reachable by Tab (or by arrows inside a widget that is one Tab stop),
usable without a mouse, with a focus ring one can see.

axe-core comes from PyPI's `axe-playwright-python` (pinned in pyproject's dev extras; it bundles
axe-core 4.12.1 as `axe.min.js`). The test injects it into the page it scans; the site never ships
it. axe compiles its message templates with `new Function`, which the pages' CSP (no eval)
refuses, so every page here lives in a browser context of this module's own with `bypass_csp`: the
CSP the site ships is unchanged. One booted app page serves every state of the app (the theme is
switched with emulate_media, the width with the viewport), so the module boots Python a handful of
times, not once per test.

A scan fails on any `serious` or `critical` violation and prints the others (`moderate`, `minor`)
as warnings, so they show in every run's summary. States that are not on this build yet (the
PyScript page, the swimlane view) skip, naming what they wait for, and run once they land.

Must not: change the shared fixtures, wait with sleeps, or scan a state without first checking the
page is in it (a scan of the wrong screen passes for the wrong reason).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from _app import CORPUS, ROOT, SETTLED_RUN, SYNCED, AppDriver
from axe_playwright_python.base import AXE_SCRIPT
from conftest import BOOT_TIMEOUT_MS, SETTLED, RequestLog, origin, recorded_page

THEMES = ("light", "dark")
WIDTHS = (1280, 390)
HEIGHT = {1280: 800, 390: 844, 360: 640}
BLOCKING = ("serious", "critical")
SESSION_DIR = (CORPUS / "session-jsonl" / "handgemacht-ai__claude-code-log" / "test" / "test_data"
               / "real_projects" / "-experiments-worktrees")
PYSCRIPT_PAGE = ROOT / "static" / "pyscript.html"
SWIMLANES = '[data-testid="swimlanes"]'
# the view draws each lane's spans on a canvas: the lane's box is the Tab stop
# (`swimlane-canvas`), arrows move between its spans (said in its aria-description) and Enter
# selects the span's row in the timeline
SWIMLANE_TRACK = f'{SWIMLANES} [data-testid="swimlane-canvas"]'
# the embed a reader sees in a 360 px column: the index bug at the block it loses, every panel
EMBED = "?embed=1&example=index-bug&strategy=index&step=4&panels=stepper,timeline,lanes,audit,toolbar"


class A11yNotice(UserWarning):
    """A moderate or minor axe finding: reported in the run's summary, not a failure."""


# -- axe ------------------------------------------------------------------------------------------

def axe_scan(page) -> dict:
    """axe-core's verdict on `page`'s document as it is now (frames are scanned as their own
    states: an embed is the `embed` state)."""
    if page.evaluate("() => typeof window.axe") == "undefined":
        page.evaluate(AXE_SCRIPT)
    return page.evaluate(
        "opts => axe.run(document, opts)",
        {"resultTypes": ["violations", "incomplete"], "iframes": False},
    )


def describe(violation: dict) -> str:
    nodes = violation["nodes"]
    first = nodes[0]
    summary = " ".join((first.get("failureSummary") or "").split())[:300]
    return (f"{violation['impact']:>8} {violation['id']} x{len(nodes)}: e.g. {', '.join(map(str, first['target']))}"
            f" -- {summary}")


def report(case: str, results: dict) -> list[str]:
    """Print every violation; warn the non-blocking ones; return the blocking ones."""
    blocking = []
    for v in results["violations"]:
        line = describe(v)
        print(f"[{case}] {line}")
        if v["impact"] in BLOCKING:
            blocking.append(line)
        else:
            warnings.warn(A11yNotice(f"{case}: {line}"), stacklevel=2)
    contrast = [v for v in results["incomplete"] if v["id"] == "color-contrast"]
    for v in contrast:  # text axe could not judge (over a gradient, an image; a glyph): to look at
        why: dict[str, int] = {}
        for node in v["nodes"]:
            for check in node["any"]:
                key = (check.get("data") or {}).get("messageKey") or check["message"][:60]
                why[key] = why.get(key, 0) + 1
        print(f"[{case}] needs review: color-contrast x{len(v['nodes'])} {why}")
    return blocking


# -- the pages the states are shown on ------------------------------------------------------------

def synced(page) -> None:
    page.wait_for_selector(SYNCED, state="attached", timeout=BOOT_TIMEOUT_MS)


def frame_painted(page) -> None:
    """Two animation frames: resize observers and media-query listeners have run."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


@dataclass
class Shown:
    """A page showing one state, in a context of its own that bypasses the page's CSP."""

    context: Any
    page: Any
    log: RequestLog
    state: str = ""
    python: bool = True  # Python runs on it: acts are waited on through data-inflight
    held: list = field(default_factory=list)  # requests held back (the loading state)

    def close(self) -> None:
        for route in self.held:
            route.abort()
        self.context.close()


class Pages:
    """The module's pages: one booted app page for the app's states, and one page at a time for
    the others (loading, the embed, the tour, the PyScript page)."""

    def __init__(self, browser, site) -> None:
        self.browser, self.site = browser, site
        self.app: Shown | None = None
        self.other: Shown | None = None

    def new(self, width: int, route: tuple[str, Callable] | None = None) -> Shown:
        log = RequestLog()
        context, page = recorded_page(self.browser, log, bypass_csp=True,
                                      viewport={"width": width, "height": HEIGHT[width]})
        context.set_default_timeout(BOOT_TIMEOUT_MS)  # a busy machine: 30 s is not always enough
        shown = Shown(context, page, log)
        if route is not None:
            context.route(route[0], route[1])
        log.origin = origin(self.site.url)
        return shown

    def booted(self) -> Shown:
        """The app page, booted (Python ready); made on first use."""
        if self.app is None:
            self.app = self.new(1280)
            self.app.page.goto(self.site.url)
            self.app.page.wait_for_selector(SETTLED, state="attached", timeout=BOOT_TIMEOUT_MS)
            assert self.app.page.get_attribute("html", "data-app-state") == "ready", self.app.log.report()
            self.app.state = "empty"
        return self.app

    def driver(self) -> AppDriver:
        shown = self.booted()
        return AppDriver(shown.page, shown.log, self.site)

    def alone(self, state: str, make: Callable[[], Shown]) -> Shown:
        """The one page of a state shown on a page of its own, made once for all its cases."""
        if self.other is not None and self.other.state != state:
            self.other.close()
            self.other = None
        if self.other is None:
            shown = make()
            shown.state = state
            self.other = shown
        return self.other

    def close(self) -> None:
        for shown in (self.app, self.other):
            if shown is not None:
                shown.close()


@pytest.fixture(scope="module")
def pages(browser, site) -> Iterator[Pages]:
    p = Pages(browser, site)
    yield p
    p.close()


# -- the states -----------------------------------------------------------------------------------
#
# Each puts the page in its state (if it is not there already) and checks it is: a scan of the
# wrong screen would pass for the wrong reason.

def on_app(pages: Pages, state: str, enter: Callable[[AppDriver], None]) -> Shown:
    shown = pages.booted()
    if shown.state != state:
        if shown.state == "broken":  # a state that failed half-way: start again from a fresh page
            fresh(pages.driver())
        shown.state = "broken"
        # entered as at 1280 px: up to 700 px the controls a state is reached by (Help, Share…,
        # the strategy) are behind the Menu button; the case's width is set after (show)
        if shown.page.viewport_size != {"width": 1280, "height": HEIGHT[1280]}:
            shown.page.set_viewport_size({"width": 1280, "height": HEIGHT[1280]})
        enter(pages.driver())
        shown.state = state
    return shown


def fresh(driver: AppDriver) -> None:
    """Back to the empty page: a reload (Python boots again)."""
    driver.page.goto(driver.site.url)
    driver.page.wait_for_selector(SETTLED, state="attached", timeout=BOOT_TIMEOUT_MS)
    assert driver.page.get_attribute("html", "data-app-state") == "ready"


def state_empty(pages: Pages) -> Shown:
    shown = pages.booted()
    if shown.state != "empty":
        shown.state = "broken"
        fresh(pages.driver())
        shown.state = "empty"
    assert shown.page.is_hidden('[data-testid="workspace"]')
    return shown


def state_loading(pages: Pages) -> Shown:
    """Python still booting: the worker's script is held back until the state's cases are done."""
    held: list = []

    def make() -> Shown:
        shown = pages.new(1280, route=("**/static/js/worker.mjs", lambda route: held.append(route)))
        shown.held = held
        shown.python = False
        shown.page.goto(pages.site.url)
        shown.page.wait_for_selector('[data-testid="status"]', state="attached")
        return shown

    shown = pages.alone("loading", make)
    assert shown.page.get_attribute("html", "data-app-state") == "loading"
    return shown


def enter_stream(driver: AppDriver) -> None:
    """The stream-json example with sub-agents, as its card opens it (on `index`, which loses
    blocks: their placeholder rows are part of what a person sees)."""
    driver.page.evaluate("document.getElementById('examples-box').open = true")
    driver.page.click('[data-testid="example"][data-example="real-subagents"]')
    driver.settle()
    assert len(driver.lanes()) > 1  # sub-agents: lanes beside main


def state_stream(pages: Pages) -> Shown:
    return on_app(pages, "stream-subagents", enter_stream)


def state_session(pages: Pages) -> Shown:
    def enter(driver: AppDriver) -> None:
        driver.testid("folder-input").set_input_files(SESSION_DIR)
        driver.settle()
        driver.strategy("lineage")  # the default, whatever the state before chose
        assert len(driver.lanes()) > 1 and driver.page.locator(".lane-file").count() > 0

    return on_app(pages, "session-folder", enter)


def state_search(pages: Pages) -> Shown:
    def enter(driver: AppDriver) -> None:
        driver.testid("folder-input").set_input_files(SESSION_DIR)
        driver.settle()
        box = driver.testid("filter")
        box.fill("agent")
        box.press("Enter")  # the first match: its words marked, "1 of m", "in detail" on others
        driver.page.wait_for_selector('[data-testid="search-count"]:not([hidden])', state="attached")
        driver.page.wait_for_selector('[data-testid="timeline"] mark', state="attached")
        driver.page.wait_for_selector('[data-testid="match-in-detail"]', state="attached")

    return on_app(pages, "search", enter)


_LIBRARY: list = []  # the library's folder, made once for the module


def library_folder():
    if not _LIBRARY:
        import tempfile
        from pathlib import Path

        from test_app_library import make_projects
        _LIBRARY.append(make_projects(Path(tempfile.mkdtemp(prefix="a11y-library-"))))
    return _LIBRARY[0]


def enter_library(driver: AppDriver) -> None:
    """A folder of three projects' sessions: the list, its figures all filled in."""
    driver.testid("folder-input").set_input_files(library_folder())
    driver.page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
    driver.page.wait_for_selector('[data-testid="library"]:not([hidden]):not([data-filling])', state="attached",
                                  timeout=BOOT_TIMEOUT_MS)
    assert driver.page.locator('[data-testid="library-session"]').count() == 9


def state_library(pages: Pages) -> Shown:
    return on_app(pages, "library", enter_library)


def state_library_search(pages: Pages) -> Shown:
    def enter(driver: AppDriver) -> None:
        enter_library(driver)
        box = driver.testid("library-search")
        box.fill("tool:Read")
        box.press("Enter")
        driver.page.wait_for_selector('[data-testid="library"]:not([data-searching])', state="attached",
                                      timeout=BOOT_TIMEOUT_MS)
        assert driver.page.locator('[data-testid="library-hits"]').count() > 0

    return on_app(pages, "library-search", enter)


def state_library_session(pages: Pages) -> Shown:
    def enter(driver: AppDriver) -> None:
        enter_library(driver)
        driver.page.locator('[data-testid="library-session"] button.lib-open').first.click()
        driver.settle()
        assert driver.testid("library-back").is_visible()

    return on_app(pages, "library-session", enter)


def state_missing_agent(pages: Pages) -> Shown:
    """A session folder with six sub-agent calls and two of their transcripts: the lanes panel's
    cards of the four missing, in view, each with the file to look for."""
    def enter(driver: AppDriver) -> None:
        driver.testid("folder-input").set_input_files(SESSION_DIR)
        driver.settle()
        driver.strategy("lineage")
        driver.tab("lanes")
        card = driver.page.locator('[data-testid="lanes"] [data-testid="missing-agent"]')
        assert card.count() == 4
        card.first.scroll_into_view_if_needed()
        assert card.first.is_visible()

    return on_app(pages, "lanes-missing-agent", enter)


def state_row_expanded(pages: Pages) -> Shown:
    def enter(driver: AppDriver) -> None:
        enter_stream(driver)
        page = driver.page
        page.focus('[data-testid="timeline"]')
        page.keyboard.press("Home")
        for _ in range(40):  # to the first row with a fingerprint (its detail names it), then open it
            if page.locator(".row.selected .fp:not(.none)").count():
                break
            page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        page.wait_for_selector('.row.selected [data-testid="row-detail"]')

    shown = on_app(pages, "row-expanded", enter)
    assert shown.page.locator('[data-testid="row-detail"]').count() == 1
    return shown


def enter_lost(driver: AppDriver) -> None:
    driver.example("index-bug", strategy="index")  # opens at the block `index` loses
    driver.page.wait_for_selector('[data-testid="timeline"] .row.lost')
    assert "lost" in driver.page.text_content('[data-testid="step-facts"] dd[data-fact="decision"]')


def state_lost_step(pages: Pages) -> Shown:
    return on_app(pages, "lost-block-step", enter_lost)


def state_audit(pages: Pages) -> Shown:
    def enter(driver: AppDriver) -> None:
        enter_lost(driver)
        driver.run_audit()
        driver.page.wait_for_selector('[data-testid="audit"] tr[data-strategy="index"]')

    shown = on_app(pages, "audit", enter)
    if shown.page.get_attribute("#tab-audit", "aria-selected") != "true":  # a tab of the detail panel
        shown.page.click("#tab-audit")
    shown.page.locator('[data-testid="audit"]').scroll_into_view_if_needed()
    return shown


def state_session_protocol(pages: Pages) -> Shown:
    """The session folder in the protocol reading (it opens in the run reading)."""
    def enter(driver: AppDriver) -> None:
        state_session(pages)
        driver.reading("protocol")
        assert driver.page.locator('[data-testid="reading"] input:checked').get_attribute("value") == "protocol"

    shown = on_app(pages, "session-protocol", enter)
    assert shown.page.locator('[data-testid="stepper"]').is_visible()
    return shown


def state_row_tab(pages: Pages) -> Shown:
    """The run reading with a row selected and shown in the detail panel's Row tab."""
    def enter(driver: AppDriver) -> None:
        state_session(pages)
        driver.reading("run")
        driver.tab("row")
        driver.page.locator('[data-testid="timeline"] [role="row"][data-type="tool_use"]').first.click()

    shown = on_app(pages, "row-tab", enter)
    assert shown.page.locator('[data-testid="row-panel"]').is_visible()
    return shown


def state_lanes_tab(pages: Pages) -> Shown:
    def enter(driver: AppDriver) -> None:
        state_session(pages)
        driver.tab("lanes")

    shown = on_app(pages, "lanes-tab", enter)
    assert shown.page.locator('[data-testid="lanes"]').is_visible()
    return shown


def state_outline_tab(pages: Pages) -> Shown:
    """The run reading of a session with sub-agents, the outline open on its chapters and the
    first prompt's row selected from it; a message's Markdown opened."""
    def enter(driver: AppDriver) -> None:
        state_session(pages)
        driver.reading("run")
        driver.tab("outline")
        driver.page.locator('[data-testid="outline-item"]').first.click()
        driver.page.locator('[data-testid="timeline"] [role="row"][data-type="text_delta"] .summary').first.click()

    shown = on_app(pages, "outline-tab", enter)
    assert shown.page.locator('[data-testid="outline"]').is_visible()
    assert shown.page.locator('[data-testid="outline-item"]').count() > 0
    return shown


def state_share_tab(pages: Pages) -> Shown:
    def enter(driver: AppDriver) -> None:
        enter_lost(driver)
        driver.testid("open-share").click()

    shown = on_app(pages, "share-tab", enter)
    assert shown.page.locator('[data-testid="share"]').is_visible()
    return shown


def state_detail_folded(pages: Pages) -> Shown:
    def enter(driver: AppDriver) -> None:
        enter_lost(driver)
        driver.testid("detail-fold").click()

    shown = on_app(pages, "detail-folded", enter)
    assert shown.page.get_attribute("html", "data-detail") == "closed"
    return shown


def state_help(pages: Pages) -> Shown:
    def enter(driver: AppDriver) -> None:
        enter_lost(driver)  # the example, in its own reading (protocol), whatever was shown before
        if driver.testid("help").is_hidden():
            driver.testid("help-toggle").click()
        driver.page.wait_for_selector('[data-testid="help"]', state="visible")

    shown = on_app(pages, "help", enter)
    shown.page.locator('[data-testid="help"]').scroll_into_view_if_needed()
    return shown


def no_swimlanes(page) -> bool:
    """No swimlane view drawn: none on the page, or only an empty placeholder for it."""
    view = page.locator(SWIMLANES)
    return view.count() == 0 or (view.first.is_hidden() and page.locator(SWIMLANE_TRACK).count() == 0)


def state_swimlanes(pages: Pages) -> Shown:
    shown = on_app(pages, "swimlanes", enter_stream)
    if no_swimlanes(shown.page):
        pytest.skip(f"no swimlane view ({SWIMLANES}) on this build yet: runs once it lands")
    shown.page.locator(SWIMLANES).first.scroll_into_view_if_needed()
    assert shown.page.locator(SWIMLANES).first.is_visible(), "the swimlane view is drawn but hidden"
    return shown


def state_embed(pages: Pages) -> Shown:
    def make() -> Shown:
        shown = pages.new(360)
        shown.page.goto(pages.site.url + EMBED)
        shown.page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        return shown

    shown = pages.alone("embed", make)
    assert shown.page.get_attribute("html", "data-app-state") == "done", shown.log.report()
    assert shown.page.get_attribute("html", "data-embed") == "1"
    return shown


def state_tour(pages: Pages) -> Shown:
    """The tour's own text; its frames are embeds (the `embed` state), answered here by a blank
    page so that six Pythons do not boot for nothing."""

    def blank(route) -> None:
        if "embed=1" in route.request.url:
            route.fulfill(content_type="text/html",
                          body="<!doctype html><html lang=en><title>embed</title><main></main></html>")
        else:
            route.continue_()

    def make() -> Shown:
        shown = pages.new(1280, route=("**/index.html*", blank))
        shown.python = False
        shown.page.goto(pages.site.url + "static/tour.html")
        shown.page.wait_for_selector('[data-testid="tour-embed"]', state="attached")
        return shown

    return pages.alone("tour", make)


def state_pyscript(pages: Pages) -> Shown:
    if not PYSCRIPT_PAGE.is_file():
        pytest.skip("no static/pyscript.html on this build yet: runs once it lands")

    def make() -> Shown:
        shown = pages.new(1280)
        shown.python = False  # PyScript's own: no data-inflight to wait on
        shown.page.goto(pages.site.url + "static/pyscript.html")
        shown.page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        return shown

    shown = pages.alone("pyscript", make)
    assert shown.page.get_attribute("html", "data-app-state") == "done", shown.log.report()
    return shown


STATES: dict[str, tuple[Callable[[Pages], Shown], tuple[int, ...]]] = {
    "loading": (state_loading, WIDTHS),
    "empty": (state_empty, WIDTHS),
    "stream-subagents": (state_stream, WIDTHS),
    "session-folder": (state_session, WIDTHS),
    "search": (state_search, WIDTHS),
    "lanes-missing-agent": (state_missing_agent, WIDTHS),
    "row-expanded": (state_row_expanded, WIDTHS),
    "lost-block-step": (state_lost_step, WIDTHS),
    "audit": (state_audit, WIDTHS),
    "session-protocol": (state_session_protocol, WIDTHS),
    "row-tab": (state_row_tab, WIDTHS),
    "lanes-tab": (state_lanes_tab, WIDTHS),
    "outline-tab": (state_outline_tab, WIDTHS),
    "share-tab": (state_share_tab, WIDTHS),
    "detail-folded": (state_detail_folded, WIDTHS),
    "help": (state_help, WIDTHS),
    "swimlanes": (state_swimlanes, WIDTHS),
    "library": (state_library, WIDTHS),
    "library-search": (state_library_search, WIDTHS),
    "library-session": (state_library_session, WIDTHS),
    "embed": (state_embed, (360,)),
    "tour": (state_tour, WIDTHS),
    "pyscript": (state_pyscript, WIDTHS),
}
CASES = [(s, t, w) for s, (_, widths) in STATES.items() for t in THEMES for w in widths]


def show(shown: Shown, theme: str, width: int) -> None:
    """Put the page in `theme` (as the system's scheme: the app follows it) at `width`. A page
    of the app must follow it; one of another hand (the PyScript page) that stays light in the
    dark case is said in a warning, and scanned as it is."""
    page = shown.page
    page.emulate_media(color_scheme=theme)
    if page.viewport_size != {"width": width, "height": HEIGHT[width]}:
        page.set_viewport_size({"width": width, "height": HEIGHT[width]})
    frame_painted(page)
    if shown.python:
        synced(page)
    dark = page.evaluate("""() => {
        const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number);
        return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
    }""")
    if shown.state == "pyscript" and dark != (theme == "dark"):
        warnings.warn(A11yNotice(f"{shown.state}: does not follow the {theme} scheme"), stacklevel=2)
        return
    assert dark == (theme == "dark"), f"the page is not {theme}"


@pytest.mark.parametrize(("state", "theme", "width"), CASES, ids=[f"{s}-{t}-{w}" for s, t, w in CASES])
def test_axe_finds_nothing_serious(pages: Pages, state: str, theme: str, width: int) -> None:
    enter, _ = STATES[state]
    shown = enter(pages)
    show(shown, theme, width)
    case = f"{state}-{theme}-{width}"
    blocking = report(case, axe_scan(shown.page))
    assert not blocking, f"{case}: serious or critical accessibility violations:\n" + "\n".join(blocking)


def test_the_two_dark_schemes_agree() -> None:
    """app.css says the dark colours twice (the system's scheme, and the theme button's choice):
    the scans above see the first; the second must be the same values."""
    css = (ROOT / "static" / "css" / "app.css").read_text(encoding="utf-8")
    media = re.search(r':root:not\(\[data-theme="light"\]\)\s*\{(.*?)\}', css, re.S)
    chosen = re.search(r':root\[data-theme="dark"\]\s*\{(.*?)\}', css, re.S)
    assert media and chosen

    def values(block: str) -> dict[str, str]:
        return dict(re.findall(r"(--[\w-]+|color-scheme)\s*:\s*([^;]+);", block))

    assert values(media.group(1)) == values(chosen.group(1))
    assert len(values(media.group(1))) > 10


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two #rrggbb colours."""

    def luminance(hex_: str) -> float:
        channels = [int(hex_[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_every_text_colour_reads_on_every_background() -> None:
    """What app.css's header promises, for every pair, including those no scanned state shows
    today (a warning on a selected row, an error on an emitted one)."""
    css = (ROOT / "static" / "css" / "app.css").read_text(encoding="utf-8")
    light_block = css[css.index(":root {"):css.index("@media (prefers-color-scheme: dark)")]
    dark_block = css[css.index(':root[data-theme="dark"]'):]
    light = dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})", light_block))
    dark = {**light, **dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})", dark_block[:dark_block.index("}")]))}
    texts = ("--fg", "--muted", "--accent", "--error", "--warn", "--ok")
    grounds = ("--bg", "--panel", "--field", "--emitted", "--selected", "--accent-soft", "--error-soft", "--warn-soft")
    low = [f"{name}: {t} on {g} {contrast(scheme[t], scheme[g]):.2f}"
           for name, scheme in (("light", light), ("dark", dark)) for t in texts for g in grounds
           if contrast(scheme[t], scheme[g]) < 4.5]
    assert not low, "text below 4.5:1:\n" + "\n".join(low)


# -- the keyboard ---------------------------------------------------------------------------------

NATIVE = "a[href], button, input, select, textarea, summary"
# Marks every control a person can see (native controls and anything with a tabindex >= 0; those
# inside timeline rows are the rows' own, reached through the rows: see the row test) with
# data-a11y-id, and notes how its focus-ring carrier looks unfocused. The carrier is the element,
# or for a visually hidden file input the label that wears it.
MARK = """native => {
  document.activeElement?.blur?.();
  const ring = el => {
    const s = getComputedStyle(el);
    return {style: s.outlineStyle, width: s.outlineWidth, color: s.outlineColor, shadow: s.boxShadow};
  };
  const carrier = el => (el.matches('input') && el.getBoundingClientRect().width <= 1 && el.closest('label')) || el;
  const out = [];
  for (const el of document.querySelectorAll(native + ', [tabindex]')) {
    if (el.disabled || el.closest('.row')) continue;
    if (el.tabIndex < 0 && !el.matches(native)) continue;  // focused by the app, not by Tab
    if (el.closest('details:not([open])') && !el.matches('summary')) continue;
    const c = carrier(el);
    if (!c.checkVisibility({visibilityProperty: true})) continue;
    el.dataset.a11yId = String(out.length);
    out.push({id: el.dataset.a11yId, what: el.outerHTML.slice(0, 120), ring: ring(c)});
  }
  window.__a11yRing = ring; window.__a11yCarrier = carrier;
  return out;
}"""
# What has the focus now, and how its carrier's ring looks.
FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const c = window.__a11yCarrier(el);
  const box = c.getBoundingClientRect();
  return {id: el.dataset.a11yId ?? null, what: el.outerHTML.slice(0, 120), ring: window.__a11yRing(c),
          size: box.width * box.height};
}"""


# How many controls the composite widget around `stop` (a group, a toolbar ..., or a list such as
# the examples gallery) keeps out of the Tab order (roving tabindex: one stop, arrows within); 0
# when `stop` is a form field (arrows change its value) or in no such widget.
GROUP_SIZE = """stop => {
  const el = document.querySelector(`[data-a11y-id="${stop}"]`);
  if (!el || el.matches('input, select, textarea')) return 0;
  const g = el.closest('[role=group], [role=toolbar], [role=radiogroup], [role=tablist], [role=menubar], ul, ol');
  return g ? [...g.querySelectorAll('[data-a11y-id]')].filter(e => e.tabIndex < 0).length : 0;
}"""


# The controls among `missed` that are no Tab stop of their own (tabindex=-1) because a composite
# widget does the same by keys: each names the widget it works (aria-controls) and its keys
# (aria-keyshortcuts), and a Tab stop inside that widget, reached by the walk, declares every one
# of those keys in its own aria-keyshortcuts. {missed id: the stop's id} (the swimlane view's zoom
# buttons: the focused track takes + − 0 Esc). Anything short of that stays missed.
KEYS_ON_A_STOP = """([missed, reached]) => {
  const keys = el => new Set((el.getAttribute('aria-keyshortcuts') || '').toLowerCase().split(/\\s+/).filter(Boolean));
  const out = {};
  for (const id of missed) {
    const el = document.querySelector(`[data-a11y-id="${id}"]`);
    if (!el || el.tabIndex >= 0) continue;
    const own = keys(el);
    const widget = document.getElementById(el.getAttribute('aria-controls') || '');
    if (!own.size || !widget) continue;
    for (const stop of reached) {
      const s = document.querySelector(`[data-a11y-id="${stop}"]`);
      if (s && widget.contains(s) && [...own].every(k => keys(s).has(k))) { out[id] = stop; break; }
    }
  }
  return out;
}"""


def reach_everything(page, controls: list[dict]) -> tuple[dict[str, dict], list[str], dict[str, str]]:
    """Tab through the page, then arrows through each widget that is one Tab stop: what each
    control reached looked like focused, the Tab order, and the controls reached by their keys on
    a widget's stop instead (KEYS_ON_A_STOP)."""
    reached, order = tab_walk(page, controls)
    missed = [c for c in controls if c["id"] not in reached]
    ids = {c["id"] for c in controls}
    # controls inside a widget that is one Tab stop (chips, a toolbar's buttons: roving tabindex)
    # are reached by arrows from the stop: walk each such widget from its stop (a stop MARK did
    # not mark, e.g. a scrolling list the browser makes focusable, is no such widget's)
    for stop in order if missed else []:
        if stop not in ids:
            continue
        size = page.evaluate(GROUP_SIZE, stop)
        if size > 0:
            # both ways from the stop: a roving stop is the control last used, not always the first
            for key in ("ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"):
                page.focus(f'[data-a11y-id="{stop}"]')
                for _ in range(size + 1):
                    page.keyboard.press(key)
                    now = page.evaluate(FOCUSED)
                    if now is not None and now["id"] is not None:
                        reached.setdefault(now["id"], now)
    missed_ids = [c["id"] for c in controls if c["id"] not in reached]
    by_keys = page.evaluate(KEYS_ON_A_STOP, [missed_ids, [k for k in reached if k in ids]])
    # a radio group is one Tab stop (its checked radio); the arrows choose the others, as the
    # platform does (walking them would change the choice, so they are not walked here)
    radios = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('input[type=radio][data-a11y-id]')]
        .map(e => [e.dataset.a11yId, e.name]))""")
    chosen = {radios[k] for k in reached if k in radios}
    by_keys.update({k: "arrows" for k in missed_ids if radios.get(k) in chosen})
    return reached, order, by_keys


def ring_shows(now: dict, before: dict) -> bool:
    """A focus ring one can see: an outline (or the browser's own, `auto`), or a box-shadow the
    element does not have unfocused."""
    outline = now["style"] not in ("none", "hidden") and (
        now["style"] == "auto" or float(now["width"].rstrip("px") or 0) >= 1)
    transparent = now["color"] in ("transparent", "rgba(0, 0, 0, 0)")
    shadow = now["shadow"] not in ("none", before["shadow"])
    return (outline and not transparent) or shadow


def tab_walk(page, controls: list[dict]) -> tuple[dict[str, dict], list[str]]:
    """Tab through the page from its top: what each Tab stop was and how its ring looked."""
    page.evaluate("() => { window.scrollTo(0, 0); document.body.tabIndex = -1; document.body.focus(); "
                  "document.body.removeAttribute('tabindex'); }")
    reached: dict[str, dict] = {}
    order: list[str] = []
    for _ in range(2 * len(controls) + 20):
        page.keyboard.press("Tab")
        now = page.evaluate(FOCUSED)
        if now is None:
            continue
        key = now["id"] if now["id"] is not None else now["what"]
        if order and key == order[0]:
            break  # round the page once
        order.append(key)
        reached.setdefault(key, now)
    return reached, order


@pytest.fixture
def keyboard_page(pages: Pages) -> Iterator[Shown]:
    """The app at 1280 px, light, on the index bug's lost block with Help open: most controls at
    once (examples, toolbar, chips, legend, stepper, audit links, share)."""
    shown = state_help(pages)
    show(shown, "light", 1280)
    yield shown
    shown.state = "keyboard"  # changed by the test: whoever comes next enters its state again


def test_every_control_is_reached_by_tab_and_shows_a_focus_ring(keyboard_page: Shown) -> None:
    page = keyboard_page.page
    controls = page.evaluate(MARK, NATIVE)
    assert len(controls) > 20, controls
    reached, _order, by_keys = reach_everything(page, controls)
    missed = [c["what"] for c in controls if c["id"] not in reached and c["id"] not in by_keys]
    assert not missed, f"{len(missed)} of {len(controls)} controls not reachable from the keyboard:\n" + "\n".join(missed)
    before = {c["id"]: c["ring"] for c in controls}
    ringless = [f"{r['what']}: {r['ring']}" for key, r in reached.items()
                if key in before and not (ring_shows(r["ring"], before[key]) and r["size"] > 0)]
    assert not ringless, "focused without a visible focus ring:\n" + "\n".join(ringless)


def test_nothing_clickable_is_out_of_the_keyboards_reach(keyboard_page: Shown) -> None:
    """Whatever looks clickable (a pointer cursor) is a native control, inside one (its label),
    or a timeline row (the rows are one Tab stop, worked by keys: the next test)."""
    odd = keyboard_page.page.evaluate("""native => {
        const out = [];
        for (const el of document.querySelectorAll('body *')) {
            if (getComputedStyle(el).cursor !== 'pointer' || !el.checkVisibility()) continue;
            if (el.closest(native + ', label, .row')) continue;
            if (el.querySelector(native)) continue;  // a wrapper whose control is inside
            out.push(el.outerHTML.slice(0, 120));
        }
        return out;
    }""", NATIVE)
    assert not odd, "clickable but not a control:\n" + "\n".join(odd)


def test_timeline_rows_and_their_links_work_from_the_keyboard(pages: Pages) -> None:
    """Arrows select rows, Enter opens and Esc closes one; the selected row's links (to its call
    or result, to a lane) are the next Tab stops and Enter follows them."""
    shown = state_session(pages)
    show(shown, "light", 1280)
    page = shown.page
    try:
        pages.driver().reading("protocol")  # results have rows of their own there (the run reading folds them in)
        page.focus('[data-testid="timeline"]')
        page.keyboard.press("Home")
        for _ in range(60):
            if page.locator('.row.selected [data-testid="pair-link"]').count():
                break
            page.keyboard.press("ArrowDown")
        link = page.locator('.row.selected [data-testid="pair-link"]')
        assert link.count() == 1, "no row with a link to its call or result in reach"
        target = link.get_attribute("data-target")
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.dataset.testid") == "pair-link", page.evaluate(
            "() => document.activeElement.outerHTML.slice(0, 200)")
        page.keyboard.press("Enter")
        assert page.get_attribute(".row.selected", "data-seq") == target
        assert page.locator('.row.selected [data-testid="row-detail"]').count() == 1
        page.focus('[data-testid="timeline"]')
        page.keyboard.press("Escape")
        assert page.locator('[data-testid="row-detail"]').count() == 0
        page.keyboard.press("Enter")
        assert page.locator('.row.selected [data-testid="row-detail"]').count() == 1
    finally:
        shown.state = "keyboard"


def test_native_controls_work_from_the_keyboard(keyboard_page: Shown) -> None:
    page = keyboard_page.page
    page.focus('[data-testid="help-toggle"]')
    page.keyboard.press("Enter")
    assert page.is_hidden('[data-testid="help"]')
    page.keyboard.press("Space")
    assert page.is_visible('[data-testid="help"]')
    before = page.text_content('[data-testid="step-position"]')
    page.focus('[data-testid="step-prev"]')
    page.keyboard.press("Enter")
    assert page.text_content('[data-testid="step-position"]') != before
    page.focus("#fp-legend-box > summary")
    page.keyboard.press("Enter")
    assert page.locator('[data-testid="fp-legend"] li').count() > 0


# a track's spans as the page holds them (swimlanes.mjs's spansOf, for scripts and tests)
SPANS_OF = ("(b) => import('./static/js/swimlanes.mjs')"
            ".then((m) => m.spansOf(b.closest('[data-testid=swimlane-track]').dataset.lane))")


def test_swimlane_spans_are_reached_by_keys(pages: Pages) -> None:
    """Tab reaches the swimlane view; in each track the arrows walk every span, and Enter on
    each selects a different row of the timeline (its call); Down goes to the next track."""
    shown = state_stream(pages)
    page = shown.page
    if no_swimlanes(page):
        pytest.skip(f"no swimlane view ({SWIMLANES}) on this build yet: runs once it lands")
    shown.state = "keyboard"
    pages.driver().strategy("lineage")  # every call kept: every tool span drawn
    show(shown, "light", 1280)
    tracks = page.locator(SWIMLANE_TRACK)
    assert tracks.count() > 1, f"no tracks matched {SWIMLANE_TRACK!r}: the view's hooks changed?"
    on_track = "() => document.activeElement?.dataset.testid === 'swimlane-canvas'"
    page.evaluate("() => { window.scrollTo(0, 0); document.activeElement?.blur?.(); }")
    for _ in range(300):
        page.keyboard.press("Tab")
        if page.evaluate(on_track):
            break
    assert page.evaluate(on_track), "Tab never reaches a swimlane track"
    walked = 0
    for t in range(tracks.count()):
        box = tracks.nth(t)
        assert page.evaluate(on_track) and box.evaluate("b => b === document.activeElement"), f"track {t} not reached by Down"
        spans = min(len(page.evaluate(SPANS_OF, box.element_handle())), 40)
        page.keyboard.press("Home")
        seqs, said = set(), set()
        for k in range(spans):
            if k:
                page.keyboard.press("ArrowRight")
            said.add(box.get_attribute("aria-description"))
            page.keyboard.press("Enter")
            seqs.add(page.get_attribute(".row.selected", "data-seq"))
            box.focus()  # Enter selected a row; the reader goes on in the track
        assert len(seqs) == spans, f"track {t}: Enter on {spans} spans selected {len(seqs)} rows"
        assert None not in said, f"track {t}: a span the keys reached is not said (aria-description)"
        walked += spans
        if t + 1 < tracks.count():
            page.keyboard.press("ArrowDown")
    print(f"swimlanes: keys walked {walked} spans over {tracks.count()} tracks")
    assert walked > 0


def test_the_swimlane_view_is_one_tab_stop_and_its_buttons_keys_work_there(pages: Pages) -> None:
    """The swimlane view (a run with sub-agents) adds one Tab stop, its tracks; its zoom buttons
    are for the pointer and reached by their keys on the focused track (KEYS_ON_A_STOP), and
    each key does there what its button does."""
    shown = state_swimlanes(pages)
    shown.state = "keyboard"
    show(shown, "light", 1280)
    page = shown.page
    controls = page.evaluate(MARK, NATIVE)
    reached, order, by_keys = reach_everything(page, controls)
    # the view's Tab stops: what in it is in the Tab order (tabIndex >= 0) and shows; the walk reached it
    # (besides the button in its heading that folds the whole view away)
    inside = page.evaluate("""sel => [...document.querySelector(sel).querySelectorAll('*')]
        .filter(e => e.tabIndex >= 0 && !e.disabled && e.checkVisibility() && e.dataset.testid !== 'swimlanes-fold')
        .map(e => e.dataset.a11yId ?? e.outerHTML.slice(0, 120))""",
                           SWIMLANES)
    assert len(inside) == 1, f"{len(inside)} Tab stops in the swimlane view: {inside}"
    assert inside[0] in order, "Tab never reaches the swimlane view"
    stop = page.locator(f'[data-a11y-id="{inside[0]}"]')
    assert stop.get_attribute("data-testid") == "swimlane-canvas"
    buttons = page.locator(f'{SWIMLANES} button[aria-keyshortcuts]:visible')
    assert buttons.count() == 3  # +, −, Fit (Clear range shows with a range: test_app_swimlanes)
    for b in range(buttons.count()):
        button = buttons.nth(b)
        assert by_keys.get(button.get_attribute("data-a11y-id")) == inside[0], button.evaluate("e => e.outerHTML")
    missed = [c["what"] for c in controls if c["id"] not in reached and c["id"] not in by_keys]
    assert not missed, "\n".join(missed)

    def width() -> float:
        a, b = map(float, page.get_attribute(SWIMLANES, "data-view").split())
        return b - a

    def zoomed_in_once() -> None:  # from here each of the four changes the view
        page.click('[data-testid="swimlane-fit"]')
        page.wait_for_selector(f'{SWIMLANES}[data-view="{fit}"]', state="attached")
        page.click('[data-testid="swimlane-zoom-in"]')
        page.wait_for_selector(f'{SWIMLANES}:not([data-view="{fit}"])', state="attached")

    def after(act: Callable[[], None], on_the_track: bool = False) -> float:
        zoomed_in_once()
        if on_the_track:
            stop.focus()
            page.wait_for_timeout(50)  # a frame: focus may bring the span it lands on into view
        before = page.get_attribute(SWIMLANES, "data-view")
        act()
        page.wait_for_selector(f'{SWIMLANES}:not([data-view="{before}"])', state="attached")
        return width()

    page.click('[data-testid="swimlane-fit"]')
    page.wait_for_timeout(100)  # a frame: data-view is written when the view is drawn
    fit = page.get_attribute(SWIMLANES, "data-view")
    for testid, key in (("swimlane-zoom-in", "+"), ("swimlane-zoom-in", "="), ("swimlane-zoom-out", "-"),
                        ("swimlane-fit", "0")):
        by_button = after(lambda t=testid: page.click(f'[data-testid="{t}"]'))

        by_key = after(lambda k=key: page.keyboard.press(k), on_the_track=True)  # the key zooms about the span it is on, the button about the middle: the width
        assert by_key == pytest.approx(by_button, rel=1e-3), f"{key} on the track: width {by_key}; {testid}: {by_button}"
