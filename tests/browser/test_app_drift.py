"""The newest Claude Code output on the page, against the built site: the drift notice and its one-click filter to the
rows of records new to this version, lane state from task events, retracted rows.
The view data is unit-tested in tests/unit/test_meaning.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

from _app import CORPUS, AppDriver

INIT = {"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-opus-5", "tools": []}


def asst(uuid: str, mid: str, blocks: list, parent: str | None = None) -> dict:
    return {"type": "assistant", "uuid": uuid, "parent_tool_use_id": parent,
            "message": {"id": mid, "role": "assistant", "model": "claude-opus-5", "content": blocks}}


TRANSCRIPT = [
    INIT,
    {"type": "foo_event", "x": 1},
    asst("u1", "m1", [{"type": "tool_use", "id": "toolu_bg", "name": "Agent",
                       "input": {"subagent_type": "fork", "description": "long job", "prompt": "p"}}]),
    {"type": "system", "subtype": "task_started", "task_id": "abcdefghijklmnopq", "tool_use_id": "toolu_bg",
     "task_type": "local_agent", "is_backgrounded": True},
    {"type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_bg", "content": "Async agent launched"}]}},
    asst("u2", "m2", [{"type": "text", "text": "withdrawn <script>alert(1)</script>"}]),
    {"type": "system", "subtype": "model_refusal_fallback", "retracted_message_uuids": ["u2"]},
    {"type": "system", "subtype": "brand_new", "detail": "?"},
    {"type": "result", "subtype": "success", "is_error": False, "result": "ok"},
    {"type": "system", "subtype": "task_notification", "task_id": "abcdefghijklmnopq", "tool_use_id": "toolu_bg",
     "status": "completed", "summary": "long job"},
]


def rows(app: AppDriver) -> list[tuple[str, str]]:
    return app.page.locator('[data-testid="timeline"] .row').evaluate_all(
        "rs => rs.map(r => [r.dataset.type, r.dataset.line || ''])")


def test_the_drift_notice_filters_to_the_new_records_in_one_click_and_back(app: AppDriver) -> None:
    app.paste("\n".join(json.dumps(x) for x in TRANSCRIPT))
    page = app.page
    notice = app.testid("drift-notice")
    assert notice.is_visible()
    assert notice.get_attribute("data-records") == "2"
    assert app.testid("drift-text").text_content() == ("2 records of 2 types new to relayscope 0.1.0: "
                                                       "foo_event (1), system/brand_new (1); 2 new fields: x (1), detail (1)")
    total = app.relay_count()
    app.testid("drift-filter").click()
    page.wait_for_selector('[data-testid="drift-notice"][data-active="true"]')
    page.wait_for_selector('html[data-inflight="0"]')
    assert app.relay_count() == 2
    types = page.locator('[data-testid="timeline"] .row').evaluate_all("rs => rs.map(r => r.dataset.type)")
    assert sorted(types) == ["passthrough", "system"]
    assert app.testid("drift-filter").text_content() == "show all rows"
    app.testid("drift-filter").click()
    page.wait_for_selector('[data-testid="drift-notice"][data-active="false"]')
    page.wait_for_selector('html[data-inflight="0"]')
    assert app.relay_count() == total
    # lane state from the task events, the last one after the run's result
    lane = page.locator('[data-testid="lane"][data-lane="toolu_bg"] [data-testid="lane-state"]')
    assert lane.text_content() == "completed"
    assert app.testid("run-tokens").count() == 0  # no lane used tokens here
    # the withdrawn text: struck through, said in words, and still text (never markup)
    retracted = page.locator('[data-testid="timeline"] .row.retracted')
    assert retracted.count() == 1 and "<script>" in retracted.locator(".summary").text_content()
    assert app.testid("audit-retracted").text_content().startswith("1 block(s) withdrawn by the model")
    assert app.pwned() is None
    _shots(page)
    # an input with nothing new: no notice
    app.paste(json.dumps(INIT))
    assert not notice.is_visible()


def test_the_drift_notice_of_a_session_opened_from_several_files_and_after_another_strategy(app: AppDriver) -> None:
    """Two captures of one session id are two sessions of a library, each with its own key; the
    one opened counts what it has that is new (no pass after the load), its filter finds those
    rows, and another strategy counts it again."""
    new = "\n".join(json.dumps(x) for x in TRANSCRIPT).encode()
    known = json.dumps(INIT).encode()
    app.testid("file-input").set_input_files([{"name": "a.jsonl", "mimeType": "application/json", "buffer": known},
                                              {"name": "b.jsonl", "mimeType": "application/json", "buffer": new}])
    app.settle()
    listed = app.page.locator('[data-testid=library-session]')
    assert sorted(listed.nth(k).get_attribute("data-session") for k in range(listed.count())) == [
        "s1@a.jsonl", "s1@b.jsonl"]
    app.page.click('[data-testid=library-session][data-session="s1@b.jsonl"] button.lib-open')
    app.settle()
    app.strategy("lineage")
    want = ("2 records of 2 types new to relayscope 0.1.0: foo_event (1), system/brand_new (1); "
            "2 new fields: x (1), detail (1)")
    assert app.testid("drift-text").text_content() == want
    app.testid("drift-filter").click()
    app.page.wait_for_selector('[data-testid="drift-notice"][data-active="true"]')
    app.page.wait_for_selector('html[data-inflight="0"]')
    assert app.relay_count() == 2
    app.strategy("none")
    assert app.testid("drift-text").text_content() == want
    assert app.testid("drift-notice").get_attribute("data-records") == "2"


def _shots(page) -> None:
    """Screenshots for looking at (not assertions): 1280 and 390 wide, light and dark."""
    out = Path(os.environ.get("SHOTS_DIR", "/work/shots/newest"))
    if not out.parent.is_dir():
        return
    out.mkdir(exist_ok=True)
    size = page.viewport_size
    for width in (1280, 390):
        for scheme in ("light", "dark"):
            page.set_viewport_size({"width": width, "height": 900})
            page.emulate_media(color_scheme=scheme)
            page.screenshot(path=str(out / f"drift-{width}-{scheme}.png"))
    page.emulate_media(color_scheme="light")
    page.set_viewport_size(size)


def test_a_model_with_no_known_price_is_named_in_its_lane_card(app: AppDriver) -> None:
    capture = CORPUS / "stream-json" / "colonelpanik__overseer__docs__superpowers__claude-stream.jsonl"
    # without its result line, the capture gives no cost of its own: only an estimate could
    app.paste("\n".join(line for line in capture.read_text().splitlines() if '"type":"result"' not in line))
    card = app.page.locator('[data-testid="lane"][data-lane="main"]')
    assert card.locator('[data-testid="lane-unpriced"]').text_content() == (
        "cost: unknown (no known price for claude-opus-5)")
    assert card.locator('[data-testid="lane-cost"]').count() == 0  # never a price borrowed from another model
    assert "claude-opus-5" in card.locator('[data-testid="lane-model"]').text_content()
    out = Path(os.environ.get("SHOTS_DIR", "/work/shots/newest"))
    if out.is_dir():
        app.tab("lanes")
        for scheme in ("light", "dark"):
            app.page.emulate_media(color_scheme=scheme)
            card.screenshot(path=str(out / f"lane-unpriced-{scheme}.png"))
        app.page.emulate_media(color_scheme="light")


def test_the_lanes_panel_sums_the_whole_run_once_per_api_message(app: AppDriver) -> None:
    capture = CORPUS / "stream-json" / "SimonErich__obers_ui__.broins__tmp__drivers__claude__last_raw_stream@014042a4.jsonl"
    app.paste(capture.read_text())
    total = app.testid("run-tokens").text_content()
    cards = app.page.locator('[data-testid="lane-tokens"]').all_text_contents()
    outs = [int(c.split(" in · ")[1].split(" out")[0].replace(",", "").replace("\u202f", "").replace(" ", ""))
            for c in cards]
    assert len(cards) > 1
    want = sum(outs)
    got = int(total.split(" in · ")[1].split(" out")[0].replace(",", "").replace("\u202f", "").replace(" ", ""))
    assert got == want and total.startswith("whole run: ")
    # the stream's per-message output counts are first counts: the result's modelUsage is the total
    assert "22,754 out" in app.testid("run-reported").text_content().replace("\u202f", ",").replace("\u00a0", ",")
    assert "the results' totals are right" in app.testid("run-note").text_content()
    out = Path(os.environ.get("SHOTS_DIR", "/work/shots/newest"))
    if out.is_dir():
        app.tab("lanes")
        for width in (1280, 390):
            app.page.set_viewport_size({"width": width, "height": 900})
            app.testid("run-tokens").scroll_into_view_if_needed()
            app.testid("run-tokens").screenshot(path=str(out / f"lanes-run-total-{width}.png"))
        app.page.set_viewport_size({"width": 1400, "height": 900})
