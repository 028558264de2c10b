"""The rows' order in a real browser: a session with sub-agents lists its rows in time across
lanes, each row carrying its time (data-time, ISO 8601); "by lane" (order=lane) puts each
sub-agent's rows after the call that started it; stream-json keeps the stream's order."""

from __future__ import annotations

import itertools
from datetime import datetime

from _app import CORPUS, AppDriver

from relayscope.web.rowdraw import ROW_H

STREAM = CORPUS / "stream-json" / "ArturoKuang__sandbox_ai_compiler__.repomirror__claude_output.jsonl"


def all_rows(app: AppDriver) -> list[dict]:
    """Every row of the timeline in the order drawn, scrolled through (it is virtualized):
    seq, lane, type and data-time of each. In a window six times as tall (the timeline is 72vh),
    so that a scroll brings six times the rows and the walk takes a sixth of the scrolls."""
    size = app.page.viewport_size
    assert size is not None
    app.page.set_viewport_size({"width": size["width"], "height": size["height"] * 6})
    try:
        return _all_rows(app)
    finally:
        app.page.set_viewport_size(size)


def _all_rows(app: AppDriver) -> list[dict]:
    page = app.page
    timeline = page.locator("[data-testid=timeline]")
    # the rows' height (the sizer's: the box is taller than them when they fit in it)
    total, height = timeline.evaluate("t => [document.getElementById('timeline-sizer').offsetHeight, t.clientHeight]")
    seen: dict[int, dict] = {}
    for top in range(0, total, max(ROW_H, height - ROW_H)):
        timeline.evaluate("(t, y) => { t.scrollTop = y; }", top)
        at = timeline.evaluate("t => t.scrollTop")
        # the rows at the top and at the bottom of the box drawn (the ops of one scroll can come
        # in more than one batch: rows read between them would be missed)
        last = min(total - ROW_H, (int(at) + height) // ROW_H * ROW_H - ROW_H)
        for y in (int(at) // ROW_H * ROW_H, last):
            page.wait_for_selector(f'[data-testid=timeline] [role=row][style*="top: {y}px"]', state="attached")
        for row in page.eval_on_selector_all(
                "[data-testid=timeline] [role=row]",
                "els => els.map(e => ({top: parseFloat(e.style.top), seq: +e.dataset.seq, lane: e.dataset.lane,"
                " type: e.dataset.type, time: e.dataset.time || null}))"):
            seen[int(row["top"])] = row
    rows = [seen[k] for k in sorted(seen)]
    assert len(rows) == app.relay_count() + sum(1 for r in rows if r["seq"] < 0)
    return rows


def instants(rows: list[dict]) -> list[float]:
    return [datetime.fromisoformat(r["time"].replace("Z", "+00:00")).timestamp() for r in rows if r["time"]]


def test_a_session_with_sub_agents_is_in_time_order_across_lanes(app) -> None:
    app.open_folder()
    app.reading("protocol")  # a row for every relay (the run reading folds results into their calls)
    assert app.testid("order").input_value() == "time"
    rows = all_rows(app)
    times = instants(rows)
    assert len(times) >= len(rows) - 5  # nearly every row of a transcript has its line's time
    assert times == sorted(times), "a row's time is earlier than the one above it"
    # the sub-agents ran while main waited: their rows sit among main's, not in one block
    lanes = [r["lane"] for r in rows]
    switches = sum(1 for a, b in itertools.pairwise(lanes) if a != b)
    assert len(set(lanes)) == 3 and switches > 8
    # seq is identity, not position: every relay is still there once
    seqs = [r["seq"] for r in rows]
    assert len(set(seqs)) == len(seqs) and seqs != sorted(seqs)


def test_by_lane_puts_each_sub_agent_after_its_call_and_the_address_keeps_it(app) -> None:
    app.open_folder()
    app.reading("protocol")  # a row for every relay (the run reading folds results into their calls)
    app.testid("order").select_option("lane")
    assert "order=lane" in app.page.url
    rows = all_rows(app)
    seqs = [r["seq"] for r in rows]
    assert seqs == sorted(seqs)
    starts = [k for k, r in enumerate(rows) if r["type"] == "lane_start" and r["lane"] != "main"]
    assert len(starts) == 2
    for k in starts:
        call = rows[k - 1]
        assert call["lane"] == "main" and call["type"] == "tool_use"
        sub = rows[k]["lane"]
        own = [r for r in rows[k:] if r["lane"] == sub]
        block = rows[k:k + len(own)]
        # its rows come together, but for the usage and end its transcript reports after main's answer
        assert sum(1 for r in block if r["lane"] == sub) >= len(own) - 3
    app.testid("order").select_option("time")
    assert "order=lane" not in app.page.url
    times = instants(all_rows(app))
    assert times == sorted(times)


def test_an_address_with_order_lane_opens_by_lane(app) -> None:
    app.page.goto(app.site.url + "?example=real-session&order=lane")
    app.settle()
    assert app.testid("order").input_value() == "lane"
    seqs = [r["seq"] for r in all_rows(app) if r["seq"] >= 0]
    assert seqs == sorted(seqs)


def test_stream_json_keeps_the_stream_order(app) -> None:
    app.page.goto(app.site.url)
    app.page.wait_for_selector("html[data-app-state=ready]", state="attached")
    app.open_files(str(STREAM))
    rows = all_rows(app)
    seqs = [r["seq"] for r in rows if r["seq"] >= 0]
    assert seqs == sorted(seqs)
