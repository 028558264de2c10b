"""Selection both ways, in a real browser at 1280x800: a span clicked on the swimlanes, a fate
link ("→ result"), an audit link or an example brings its row into view (inside the rows' box and
the viewport) and selects it; the row selected is outlined on its span in the swimlanes."""

from __future__ import annotations

import pytest
from _app import AppDriver
from test_app_swimlanes import point_of, spans_of, tracks  # where the page draws a span

from relayscope.web.rowdraw import ROW_H


@pytest.fixture(autouse=True)
def laptop(app: AppDriver) -> None:
    app.page.set_viewport_size({"width": 1280, "height": 800})


def open_session(app: AppDriver) -> None:
    app.open_folder()
    app.page.wait_for_selector("[data-testid=swimlanes][data-view]", state="attached")
    app.reading("protocol")  # results have rows of their own, and links to their calls, there
    app.page.evaluate("() => { window.scrollTo(0, 0); document.getElementById('timeline').scrollTop = 0; }")


def click_span(app: AppDriver, lane: str, span: dict) -> None:
    app.page.locator(f'[data-testid=swimlane-track][data-lane="{lane}"] .sl-lane').scroll_into_view_if_needed()
    app.page.mouse.click(*point_of(app, lane, span))


def in_view(app: AppDriver, seq: int) -> None:
    """Row ``seq`` is selected, and its box lies inside the rows' box and inside the viewport."""
    row = app.page.wait_for_selector(f'[data-testid=timeline] .row.selected[data-seq="{seq}"]', state="attached")
    app.page.wait_for_timeout(100)  # a scroll is applied in the next frame
    box = row.bounding_box()
    rows = app.testid("timeline").bounding_box()
    height = app.page.viewport_size["height"]
    assert box is not None and box["height"] >= ROW_H - 1
    assert box["y"] >= 0 and box["y"] + ROW_H <= height, (box, height)
    assert rows["y"] - 1 <= box["y"] and box["y"] + ROW_H <= rows["y"] + rows["height"] + 1, (box, rows)


def test_a_span_clicked_brings_its_row_into_view_selected(app) -> None:
    open_session(app)
    sub = tracks(app)[2]
    span = max((s for s in spans_of(app, sub) if s["row"] >= 1), key=lambda s: s["start"])
    click_span(app, sub, span)
    in_view(app, span["seq"])


def test_the_row_selected_is_outlined_on_its_span(app) -> None:
    open_session(app)
    sub = tracks(app)[1]
    call = next(s for s in spans_of(app, sub) if s["row"] >= 1)
    track = app.page.locator(f'[data-testid=swimlane-track][data-lane="{sub}"]')
    canvas = track.locator("canvas")
    before = canvas.evaluate("c => c.toDataURL()")
    assert track.get_attribute("data-selected") is None
    # the call's row, found in the rows and clicked there (not on the swimlanes)
    timeline = app.testid("timeline")
    row = app.page.locator(f'[data-testid=timeline] .row[data-seq="{call["seq"]}"]')
    y = 0
    while not row.count():
        y += 400
        timeline.evaluate("(t, y) => { t.scrollTop = y; }", y)
        app.page.wait_for_timeout(50)
        assert y < 20_000, "the call's row is never drawn"
    row.locator("[data-testid=row-summary]").click()
    app.page.wait_for_selector(f'[data-testid=swimlane-track][data-lane="{sub}"][data-selected="{call["seq"]}"]',
                               state="attached")
    app.page.wait_for_timeout(100)  # drawn in the next animation frame
    assert canvas.evaluate("c => c.toDataURL()") != before
    assert app.page.locator("[data-testid=swimlane-track][data-selected]").count() == 1
    # its result is on the same span: selecting it keeps the outline there
    app.page.locator(".row.selected [data-testid=pair-link]").click()
    result = int(app.page.locator(".row.selected").get_attribute("data-seq"))
    assert result != call["seq"]
    assert track.get_attribute("data-selected") == str(call["seq"])


def test_a_fate_link_brings_the_result_into_view(app) -> None:
    open_session(app)
    # an Agent call on main: its result comes back after the sub-agent's rows, far below
    call = max((s for s in spans_of(app, "main") if s["name"] == "Agent"), key=lambda s: s["end"] - s["start"])
    click_span(app, "main", call)
    in_view(app, call["seq"])
    link = app.page.locator(".row.selected [data-testid=pair-link]")
    result = int(link.get_attribute("data-target"))
    link.click()
    in_view(app, result)


def test_an_audit_link_and_an_example_select_their_row_in_view(app) -> None:
    app.page.evaluate("document.getElementById('examples-box').open = true")
    app.page.click('[data-testid="example"][data-example="cumulative-dedup"]')
    app.settle()
    selected = app.page.locator("[data-testid=timeline] .row.selected.emitted")
    assert selected.count() == 1  # the example opens on its first repeated block, selected
    in_view(app, int(selected.get_attribute("data-seq")))
    app.strategy("index")
    app.tab("audit")  # the audit is a tab of the detail panel
    app.page.click('[data-testid="audit-notes"] li[data-strategy="none"] [data-testid="audit-first-dup"]')
    app.settle()
    in_view(app, int(app.page.locator(".row.selected").get_attribute("data-seq")))
