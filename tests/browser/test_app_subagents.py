"""Sub-agents and the newest CLI shapes on the page, against the built site: a sub-agent whose
transcript the input lacks marked on its call's row, in the lanes panel and in the swimlanes, with
the file to look for; lane states from the core (a heartbeat: "running, 30 s"); the CLI's own count
held against the lanes; a permission denial as an error row linked to the call it refused and
back; a published change's address as a link (text, http(s) only); the run's capabilities on the
session row and the results' timing on the main lane's card.

The stream-json lines are written here, in the shapes PROTOCOL.md section 7 gives, with values of
our own. The view data is unit-tested in tests/unit/test_web_subagents.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from _app import CORPUS, AppDriver

SESSION_DIR = (CORPUS / "session-jsonl" / "handgemacht-ai__claude-code-log" / "test" / "test_data"
               / "real_projects" / "-experiments-worktrees")
SESSION = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
LEFT_OUT = "agent-a4ca7529859c158c2.jsonl"

SID = "b7e2-page-run"
SCOUT, SLOW, PUSH = "toolu_page_scout", "toolu_page_slow", "toolu_page_push"
URL = "https://github.com/example/shop/pull/7"


def _call(uuid: str, tool_id: str, name: str, tool_input: dict) -> dict:
    return {"type": "assistant", "uuid": uuid, "parent_tool_use_id": None, "session_id": SID,
            "message": {"id": f"msg_{uuid}", "role": "assistant", "model": "claude-opus-5",
                        "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]}}


def _beat(agent: str, n: int, seconds: int) -> dict:
    return {"type": "tool_progress", "tool_use_id": f"{agent}-heartbeat-{n}", "tool_name": "Agent",
            "parent_tool_use_id": agent, "elapsed_time_seconds": seconds, "heartbeat": True, "session_id": SID,
            "uuid": f"hb-{agent}-{n}"}


def _answer(uuid: str, tool_id: str, text: str, error: bool = False) -> dict:
    return {"type": "user", "uuid": uuid, "parent_tool_use_id": None, "session_id": SID,
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": text,
                                                     "is_error": error}]}}


def _published(uuid: str, url: str) -> dict:
    return {"type": "system", "subtype": "code_change_published", "provider": "github", "url": url,
            "repo": "example/shop", "identifier": "7", "action": "pushed", "session_id": SID, "uuid": uuid}


RUN = [
    {"type": "system", "subtype": "init", "session_id": SID, "model": "claude-opus-5", "cwd": "/w/shop",
     "tools": ["Bash", "Agent"], "claude_code_version": "2.1.270", "uuid": "init-1",
     "capabilities": ["interrupt_receipt_v1", "msg_lifecycle_v1"], "memory_paths": {"auto": "/w/.mem"},
     "view_mode": "default", "per_turn_effort_active": True, "scratchpad_path": "/tmp/pad-7"},
    _call("c1", SCOUT, "Agent", {"subagent_type": "Explore", "description": "scout the shop", "prompt": "scout"}),
    _call("c2", SLOW, "Agent", {"subagent_type": "Explore", "description": "slow audit", "prompt": "audit"}),
    _beat(SCOUT, 0, 15),
    {"type": "assistant", "uuid": "s1", "parent_tool_use_id": SCOUT, "session_id": SID,
     "message": {"id": "msg_s1", "role": "assistant", "model": "claude-opus-5",
                 "content": [{"type": "text", "text": "scouted <script>window.__pwned=1</script>"}]}},
    _beat(SLOW, 0, 15),
    _beat(SLOW, 1, 30),
    _answer("r1", SCOUT, "the shop has 2 services"),
    _call("c3", PUSH, "Bash", {"command": "git push origin main"}),
    {"type": "system", "subtype": "permission_denied", "tool_name": "Bash", "tool_use_id": PUSH,
     "decision_reason_type": "rule", "message": "Permission to use Bash with command git push origin main has "
     "been denied.", "session_id": SID, "uuid": "deny-1"},
    _answer("r3", PUSH, "Permission denied", error=True),
    {"type": "system", "subtype": "vcs_state_changed", "kind": "push", "cwd": "/w/shop", "session_id": SID,
     "uuid": "vcs-1"},
    _published("pub-1", URL),
    _published("pub-2", "javascript:window.__pwned=2"),
    _published("pub-3", 'https://example.com/"><script>window.__pwned=3</script>'),
    {"type": "result", "subtype": "success", "is_error": False, "result": "done", "duration_ms": 42000,
     "num_turns": 3, "session_id": SID, "total_cost_usd": 0.12, "uuid": "res-1",
     "first_content_frame_ms": 1250, "time_to_request_ms": 180, "ttft_ms": 1200, "ttft_stream_ms": 1230,
     "terminal_reason": "completed",
     "subagent_stats": {"spawned": 3, "requested": {"background": 0, "foreground": 3, "unset": 0},
                        "started_in_background": 0, "max_depth": 1, "spawned_by_subagents": 0, "completed": 1,
                        "failed": 0, "killed": {"parent": 0, "user": 0, "system": 0},
                        "refused": {"depth_limit": 0, "concurrency_limit": 0, "budget": 0},
                        "by_type": {"Explore": 3}}},
]


def row(app: AppDriver, *, kind: str, text: str):
    return app.page.locator(f'[data-testid="timeline"] .row[data-type="{kind}"]').filter(has_text=text)


def open_session(app: AppDriver, tmp_path: Path, leave_out: str | None = None) -> Path:
    folder = tmp_path / "-experiments-worktrees"
    shutil.copytree(SESSION_DIR, folder)
    if leave_out is not None:
        (folder / SESSION / "subagents" / leave_out).unlink()
    app.testid("folder-input").set_input_files(folder)
    app.settle()
    return folder


def missing(app: AppDriver, where: str) -> list[tuple[str, str]]:
    return app.page.eval_on_selector_all(f'{where} [data-testid="missing-agent"]',
                                         "els => els.map(e => [e.dataset.lane, e.dataset.file])")


def test_six_agent_calls_with_two_transcripts_say_four_missing_in_the_lanes_and_swimlanes(
        app: AppDriver, tmp_path: Path) -> None:
    open_session(app, tmp_path)
    app.page.wait_for_selector('[data-testid="swimlanes"][data-view]', state="attached")
    in_lanes = missing(app, '[data-testid="lanes"]')
    assert len(in_lanes) == 4 and len({f for _, f in in_lanes}) == 4
    assert all(f.startswith("agent-") and f.endswith(".jsonl") for _, f in in_lanes)
    assert missing(app, '[data-testid="swimlanes"]') == in_lanes
    card = app.page.locator(f'[data-testid="lanes"] [data-testid="missing-agent"][data-lane="{in_lanes[0][0]}"]')
    assert f"look for {in_lanes[0][1]}" in card.text_content()
    said = app.testid("subagent-check").text_content()
    assert "4 sub-agent transcripts the records name are not in the input: " in said
    assert all(f in said for _, f in in_lanes)
    assert len(app.lanes()) == 3  # the two with a transcript keep their own cards, completed
    states = app.page.eval_on_selector_all('[data-testid="lane-state"]', "els => els.map(e => e.textContent)")
    assert states == ["completed", "completed"]


def test_a_transcript_left_out_is_named_on_its_call_row_lane_card_and_swimlane_card(
        app: AppDriver, tmp_path: Path) -> None:
    open_session(app, tmp_path, leave_out=LEFT_OUT)
    page = app.page
    page.wait_for_selector('[data-testid="swimlanes"][data-view]', state="attached")
    cards = missing(app, '[data-testid="swimlanes"]')
    assert len(cards) == 5 and LEFT_OUT in {f for _, f in cards}
    assert missing(app, '[data-testid="lanes"]') == cards
    lane = next(k for k, f in cards if f == LEFT_OUT)
    # the swimlane card's link brings the call's row into view, selected, and marked with the file
    card = page.locator(f'[data-testid="swimlanes"] [data-testid="missing-agent"][data-lane="{lane}"]')
    card.scroll_into_view_if_needed()
    card.get_by_role("button").click()
    selected = page.locator('[data-testid="timeline"] .row[aria-selected="true"]')
    page.wait_for_selector('[data-testid="timeline"] .row[aria-selected="true"] [data-testid="missing-agent"]')
    assert selected.get_attribute("data-type") == "tool_use"
    mark = selected.locator('[data-testid="missing-agent"]')
    assert (mark.get_attribute("data-lane"), mark.get_attribute("data-file")) == (lane, LEFT_OUT)
    assert mark.text_content() == f"missing {LEFT_OUT}"
    if "open" not in selected.get_attribute("class").split():  # opened, the detail says where to look
        selected.locator(".summary").click()
    page.wait_for_selector('[data-testid="missing-agent-note"]')
    assert f"look for {LEFT_OUT}" in app.testid("missing-agent-note").text_content()
    # and in the lanes panel the same: each card in the order the calls were made
    in_swimlanes = page.eval_on_selector_all("#swimlanes-tracks > [data-lane]", "els => els.map(e => e.dataset.lane)")
    in_lanes = page.eval_on_selector_all("#lanes > [data-lane]", "els => els.map(e => e.dataset.lane)")
    assert in_swimlanes == in_lanes and len(in_lanes) == 7 and in_lanes[0] == "main"
    spawned = page.eval_on_selector_all('#lanes [data-testid="lane-spawn"]', "els => els.map(e => +e.dataset.target)")
    assert len(spawned) == 6 and spawned == sorted(spawned)
    # a call whose sub-agent's transcript is there carries no mark
    assert page.locator('[data-testid="timeline"] .row[data-lane="main"] [data-testid="missing-agent"]').count() \
        == page.locator('[data-testid="timeline"] [data-testid="missing-agent"]').count()


def test_the_newest_shapes_on_the_page(app: AppDriver) -> None:
    app.paste("\n".join(json.dumps(x) for x in RUN))
    page = app.page
    # heartbeats: no row of their own (bookkeeping), but the lane's state moves
    summaries = page.locator('[data-testid="timeline"] .row .summary').all_text_contents()
    assert summaries and not [s for s in summaries if "heartbeat" in s]
    state = page.locator(f'[data-testid="lane"][data-lane="{SLOW}"] [data-testid="lane-state"]')
    assert (state.text_content(), state.get_attribute("data-state")) == ("running, 30 s", "running")
    assert page.locator(f'[data-testid="lane"][data-lane="{SCOUT}"] [data-testid="lane-state"]').text_content() \
        == "completed"
    # the CLI's count held against the lanes
    said = app.testid("subagent-check").text_content()
    assert "The CLI counted 3 sub-agents (1 completed, 0 failed)" in said
    assert "2 sub-agents the CLI counted have no record here" in said
    # the results' timing on the main lane's card
    timing = page.locator('[data-testid="lane"][data-lane="main"] [data-testid="lane-timing"]').text_content()
    assert timing == ("timing: request sent 180 ms · first token 1,200 ms · first streamed token 1,230 ms · "
                      "first content 1,250 ms")
    # the run's capabilities on the session row
    assert "capabilities interrupt_receipt_v1, msg_lifecycle_v1" in row(app, kind="session_meta", text="session") \
        .locator(".summary").text_content()
    # a denial: an error row, linked to the call it refused, and that call back to it
    denial = row(app, kind="system", text="permission denied: Bash")
    assert "failed" in denial.get_attribute("class").split()
    call_seq = int(denial.locator('[data-testid="refused-call"]').get_attribute("data-target"))
    denial.locator('[data-testid="refused-call"]').click()
    call = page.locator(f'[data-testid="timeline"] .row[data-seq="{call_seq}"]')
    assert call.get_attribute("aria-selected") == "true" and call.get_attribute("data-type") == "tool_use"
    assert call.locator('[data-testid="denied-by"]').get_attribute("data-target") == denial.get_attribute("data-seq")
    # a published change: its address as a link, as text; a javascript: or markup-bearing one is no link
    links = page.locator('[data-testid="published-link"]')
    assert links.count() == 1
    assert (links.get_attribute("href"), links.text_content()) == (URL, URL)
    assert set(links.get_attribute("rel").split()) >= {"noopener", "noreferrer"}
    assert links.evaluate("a => a.children.length") == 0
    published = page.locator('[data-testid="timeline"] .row').filter(has=links)
    assert URL not in published.locator('[data-testid="row-summary"]').text_content()  # said once: the link
    assert row(app, kind="system", text="javascript:window.__pwned=2").count() == 1  # said as text
    # the swimlanes say the running agent's state too
    page.wait_for_selector('[data-testid="swimlanes"][data-view]', state="attached")
    figures = page.locator(f'[data-testid="swimlane-track"][data-lane="{SLOW}"] [data-testid="swimlane-lane-figures"]')
    assert figures.text_content().startswith("running, 30 s · ")
    assert app.pwned() is None
