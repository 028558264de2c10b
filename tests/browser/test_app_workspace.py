"""The workspace layout and the two readings, in a real browser against the built site: the page
is one screen (the rows its one scroll area), the detail panel's tabs and size (kept in the
address), the reading switch, and the loose ends (focus, the status line, input that is not a
transcript)."""

from __future__ import annotations

import re

import pytest
from _app import CORPUS, ROWS_IN_VIEW, AppDriver
from conftest import SETTLED, RequestLog, new_app_page

SESSION = next(CORPUS.rglob("ef958aa1-*.jsonl"))
SESSION_FILES = [SESSION, *sorted((SESSION.parent / SESSION.stem / "subagents").glob("*.jsonl"))]

PAGE_FITS = "() => [document.documentElement.scrollHeight, innerHeight]"
FOCUSED = "() => document.activeElement === document.body ? 'body' : (document.activeElement.id || document.activeElement.tagName)"


@pytest.fixture(scope="module")
def ws(browser, site):
    """One booted page at 1280x800 for the module (booting Pyodide takes seconds)."""
    log = RequestLog()
    context, page = new_app_page(browser, site, log, viewport={"width": 1280, "height": 800})
    page.goto(site.url)
    page.wait_for_selector(SETTLED, state="attached", timeout=120_000)
    yield AppDriver(page, log, site)
    context.close()


def load_session(app: AppDriver) -> None:
    app.page.set_viewport_size({"width": 1280, "height": 800})
    app.open_files([str(f) for f in SESSION_FILES])


def reading(app: AppDriver) -> str:
    return app.page.locator("[data-testid=reading] input:checked").get_attribute("value")


def query(app: AppDriver) -> str:
    return app.page.url.split("?", 1)[-1]


def test_at_1280_twenty_rows_fit_beside_the_swimlanes_and_the_page_does_not_scroll(ws) -> None:
    load_session(ws)
    assert ws.testid("swimlanes").is_visible()
    assert ws.page.evaluate(ROWS_IN_VIEW) >= 20
    height, inner = ws.page.evaluate(PAGE_FITS)
    assert height == inner
    # the input folded into the toolbar: the paste box is one line, the gallery closed
    assert ws.testid("paste-input").bounding_box()["height"] < 40
    assert not ws.page.evaluate("document.getElementById('examples-box').open")
    # the detail panel is beside the rows
    side, timeline = ws.page.locator("#side").bounding_box(), ws.testid("timeline").bounding_box()
    assert side["x"] >= timeline["x"] + timeline["width"]


def test_at_390_the_first_row_is_on_the_first_screen_wrapped_with_its_time(ws) -> None:
    load_session(ws)
    ws.page.set_viewport_size({"width": 390, "height": 844})
    ws.page.wait_for_timeout(300)  # the timeline's resize reaches the worker, which draws the rows again
    first = ws.page.locator("[data-testid=timeline] [role=row]").first
    box = first.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 844
    assert box["height"] >= 60  # three lines: the summary wraps over two
    summary = ws.page.locator("[data-testid=timeline] [role=row][data-seq='6'] [data-testid=row-summary]")
    assert summary.bounding_box()["height"] >= 36  # two lines of text, not one cut at the row's width
    times = ws.page.locator("[data-testid=timeline] [data-testid=row-time]")
    assert times.count() and times.first.is_visible() and re.match(r"\d\d:\d\d:\d\d", times.first.text_content())
    height, inner = ws.page.evaluate(PAGE_FITS)
    assert height == inner
    side, timeline = ws.page.locator("#side").bounding_box(), ws.testid("timeline").bounding_box()
    assert side["y"] >= timeline["y"] + timeline["height"]  # a bottom sheet
    ws.page.set_viewport_size({"width": 1280, "height": 800})


def test_the_detail_panel_is_tabs_each_kept_in_the_address(ws) -> None:
    load_session(ws)
    tablist = ws.testid("detail-tabs")
    assert tablist.get_attribute("role") == "tablist"
    tabs = tablist.locator("[role=tab]")
    names = [tabs.nth(k).get_attribute("data-tab") for k in range(tabs.count())]
    assert names == ["row", "outline", "stepper", "lanes", "audit", "share"]
    for k in range(tabs.count()):
        panel = ws.page.locator(f"#{tabs.nth(k).get_attribute('aria-controls')}")
        assert panel.get_attribute("role") == "tabpanel"
        assert panel.get_attribute("aria-labelledby") == tabs.nth(k).get_attribute("id")
    tablist.locator("[data-tab=lanes]").click()
    assert ws.testid("lanes").is_visible() and not ws.testid("stepper").is_visible()
    assert "tab=lanes" in query(ws)
    assert tablist.locator("[data-tab=lanes]").get_attribute("aria-selected") == "true"
    ws.page.keyboard.press("ArrowRight")  # the tab focused by the click: arrows move, and show
    assert tablist.locator("[data-tab=audit]").get_attribute("aria-selected") == "true"
    assert ws.page.evaluate(FOCUSED) == "tab-audit"
    assert ws.testid("audit").is_visible() and "tab=audit" in query(ws)


def test_the_detail_panel_resizes_by_keys_and_pointer_and_the_address_keeps_it(ws, browser, site) -> None:
    load_session(ws)
    side = ws.page.locator("#side")
    before = side.bounding_box()["width"]
    ws.testid("detail-resizer").focus()
    ws.page.keyboard.press("ArrowLeft")
    ws.page.wait_for_selector("html[data-inflight='0']", state="attached")
    assert side.bounding_box()["width"] > before + 30
    size = int(re.search(r"size=(\d+)", query(ws)).group(1))
    handle = ws.testid("detail-resizer").bounding_box()
    ws.page.mouse.move(handle["x"] + 2, handle["y"] + 200)
    ws.page.mouse.down()
    ws.page.mouse.move(640, handle["y"] + 200, steps=4)
    ws.page.mouse.up()
    ws.page.wait_for_selector("html[data-inflight='0']", state="attached")
    dragged = int(re.search(r"size=(\d+)", query(ws)).group(1))
    assert dragged > size and 45 <= dragged <= 55
    # a page opened at that address shows the panel at that size
    log = RequestLog()
    context, page = new_app_page(browser, site, log, viewport={"width": 1280, "height": 800})
    try:
        page.goto(site.url + f"?example=index-bug&size={dragged}&tab=audit")
        page.wait_for_selector("html[data-app-state=done]", state="attached", timeout=120_000)
        width = page.locator("#side").bounding_box()["width"] / page.locator("#panes").bounding_box()["width"]
        assert abs(width * 100 - dragged) < 3
        assert page.locator("#tab-audit").get_attribute("aria-selected") == "true"
    finally:
        context.close()


def test_a_session_opens_in_the_run_reading_and_one_click_shows_the_protocol(ws) -> None:
    load_session(ws)
    assert reading(ws) == "run"
    chips = ws.page.eval_on_selector_all("[data-testid=type-filter] [data-type]", "els => els.map(e => e.dataset.type)")
    assert set(chips) <= {"messages", "tools", "thinking", "errors", "lifecycle"} and "tools" in chips
    assert not ws.page.locator("[data-testid=timeline] [role=row][data-type=tool_result]").count()  # folded in
    assert ws.page.locator("#tab-stepper").get_attribute("aria-selected") == "false"  # not open by default
    assert not ws.testid("stepper").is_visible()
    shown_run = ws.relay_count()
    ws.page.locator("[data-testid=reading] label:has(input[value=protocol])").click()
    assert reading(ws) == "protocol" and "reading=protocol" in query(ws)
    chips = ws.page.eval_on_selector_all("[data-testid=type-filter] [data-type]", "els => els.map(e => e.dataset.type)")
    assert "tool_use" in chips and "tool_result" in chips
    assert ws.relay_count() > shown_run  # every relay event, results too
    assert ws.testid("stepper").is_visible()
    ws.page.locator("[data-testid=reading] label:has(input[value=run])").click()
    assert reading(ws) == "run" and "reading=run" in query(ws)


def test_an_example_opens_in_the_protocol_reading_and_closes_the_gallery(ws) -> None:
    ws.example("index-bug")
    assert reading(ws) == "protocol"
    assert not ws.page.evaluate("document.getElementById('examples-box').open")


def test_following_a_result_link_keeps_the_focus_in_the_rows(ws) -> None:
    ws.example("index-bug")
    link = ws.page.locator("[data-testid=timeline] [data-testid=pair-link]").first
    link.locator("xpath=ancestor::div[@role='row']").click()
    ws.page.locator("[data-testid=timeline] .row.selected [data-testid=pair-link]").click()
    assert ws.page.evaluate(FOCUSED) == "timeline"


def test_escape_in_the_filter_keeps_the_focus_and_the_status_line_stays_true(ws) -> None:
    load_session(ws)
    ws.testid("filter").click()
    ws.testid("filter").press_sequentially("Agent")
    ws.page.wait_for_selector("[data-testid=status]:has-text('match')", timeout=30_000)
    ws.settle()
    assert "match" in ws.testid("status").text_content()
    ws.page.keyboard.press("Escape")  # the first Esc leaves the box, the search kept: the status says so
    assert ws.page.evaluate(FOCUSED) == "timeline"
    assert "match" in ws.testid("status").text_content() and ws.testid("filter").input_value() == "Agent"
    ws.page.keyboard.press("Escape")  # the second clears it
    ws.settle()
    assert ws.page.evaluate(FOCUSED) == "timeline"
    assert ws.testid("filter").input_value() == ""
    assert "match" not in ws.testid("status").text_content()
    assert ws.relay_count() == int(re.search(r"(\d+) of", ws.testid("status").text_content()).group(1))


def test_a_readme_is_one_message_not_rows_of_errors(ws) -> None:
    readme = "# A project\n\nSome words about it.\n\n" + "\n".join(f"- item {k}" for k in range(40)) + "\n"
    load_session(ws)  # a session shown: the README is refused over it and the session stays
    ws.open_files([{"name": "README.md", "mimeType": "text/markdown", "buffer": readme.encode()}])
    message = ws.testid("message")
    assert message.is_visible() and "does not look like a transcript" in message.text_content()
    assert "README.md" in message.text_content()
    assert ws.testid("workspace").is_visible()
    assert not ws.testid("errors").is_visible()
    assert "relay events" not in ws.testid("status").text_content()
