"""The page's view of sub-agents and of the newest CLI shapes, under CPython: sub-agents whose
transcript the input lacks (on their call's row, in the lanes panel's data), lane states from
``subagents.LaneStates`` (a heartbeat: "running, 30 s"), the CLI's own count held against the
lanes, permission denials linked to their calls both ways, published changes, init capabilities
on the session row and the results' timing."""

from __future__ import annotations

from pathlib import Path

from _corpus import FIXTURE_SESSIONS
from _run_lines import AGENT, AGENT_2, BASH, a_run_with_two_agents, heartbeat, init, stats, text
from _run_lines import result as result_line

from relayscope import relay as R
from relayscope.web import newest
from relayscope.web.model import Workspace

WORKTREES = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees"
SESSION = "ef958aa1-0e93-49f0-bb71-150f63befcd1"


def loaded(data: bytes | dict[str, bytes]) -> Workspace:
    ws = Workspace()
    for _ in ws.load(data, strategy="lineage"):
        pass
    return ws


def session_files(leave_out: str | None = None) -> dict[str, bytes]:
    return {str(p.relative_to(WORKTREES)): p.read_bytes() for p in sorted(WORKTREES.rglob("*.jsonl"))
            if p.name != leave_out}


def spawn_calls(ws: Workspace) -> list[R.ToolUse]:
    return [r for r in ws.relays if isinstance(r, R.ToolUse) and r.name in ("Agent", "Task")]


def test_six_agent_calls_and_two_transcripts_say_four_are_missing_with_the_files_to_look_for() -> None:
    ws = loaded(session_files())
    calls = spawn_calls(ws)
    given = {Path(k).name for k in session_files()}
    missing = newest.missing_agents(ws)
    assert len(calls) == 6 and len(missing) == 4
    assert all(m.file.startswith("agent-") and m.file.endswith(".jsonl") and m.file not in given for m in missing)
    by_call = {c.id: newest.missing_file(ws, c) for c in calls}
    assert sorted(f for f in by_call.values() if f) == sorted(m.file for m in missing)
    for m in missing:  # each card links to its call's row and its result's
        assert m.spawn_seq is not None and ws.relays[m.spawn_seq].id == m.lane  # type: ignore[union-attr]
        assert m.result_seq is not None and ws.relays[m.result_seq].tool_use_id == m.lane  # type: ignore[union-attr]
        assert m.parent == "main" and m.label.startswith("general-purpose: ")
    facts = newest.lanes_facts(ws)
    assert facts.missing == missing
    assert facts.words[-1].startswith("4 sub-agent transcripts the records name are not in the input: agent-")
    # the two lanes with their transcript: completed, no file to look for
    assert [(v.state, v.status) for v in ws.lanes if v.id != "main"] == [("completed", "completed")] * 2


def test_leaving_a_transcript_out_names_it_too() -> None:
    files = session_files()
    left = next(k for k in files if "/subagents/" in k)
    ws = loaded(session_files(leave_out=Path(left).name))
    missing = newest.missing_agents(ws)
    assert len(missing) == 5 and Path(left).name in {m.file for m in missing}
    assert len([v for v in ws.lanes if v.id != "main"]) == 1


def test_a_heartbeat_moves_its_lane_to_running_with_the_time_and_adds_no_content_row() -> None:
    lines = a_run_with_two_agents()
    cut = next(k for k, x in enumerate(lines) if x.get("type") == "user" and x["uuid"] == "u-1")
    ws = loaded(text(lines[:cut]))  # the agents still running
    lanes = {v.id: v for v in ws.lanes}
    assert (lanes[AGENT].state, lanes[AGENT].status) == ("running", "running, 1m 00s")
    assert lanes[AGENT_2].status == "running, 30 s"
    beats = [r.seq for r in ws.relays if isinstance(r, R.Passthrough) and r.event_type == "tool_progress"]
    assert len(beats) == 3 and all(ws.is_bookkeeping(q) for q in beats)
    ws = loaded(text(lines))
    assert {v.id: v.status for v in ws.lanes if v.id != "main"} == {AGENT: "completed", AGENT_2: "failed"}


def test_a_beat_alone_makes_a_lane_running_before_its_frames_come() -> None:
    ws = loaded(text([init(), heartbeat(AGENT, 0, 45)]))
    assert next(v for v in ws.lanes if v.id == AGENT).status == "running, 45 s"


def test_the_clis_count_is_held_against_the_lanes_in_the_panels_words() -> None:
    ws = loaded(text(a_run_with_two_agents(forwarded=False)))
    words = newest.subagent_words(ws)
    assert words[0].startswith("the CLI counted 2 sub-agents (1 completed, 1 failed)")
    assert words[1].startswith("2 sub-agents the CLI counted have no record here")
    assert newest.missing_agents(ws) == []  # stream-json: no transcript file to look for
    plain = [x for x in a_run_with_two_agents() if x.get("type") != "result"] + [result_line()]
    assert newest.subagent_words(loaded(text(plain))) == []


def test_a_denial_and_the_call_it_refused_link_each_other() -> None:
    ws = loaded(text(a_run_with_two_agents()))
    push = next(r for r in ws.relays if isinstance(r, R.ToolUse) and r.id == BASH)
    denial = next(r for r in ws.relays if isinstance(r, R.System) and r.subtype == "permission_denied")
    assert newest.refusal_of(ws, push) == denial.seq
    assert newest.refused_call(ws, denial.seq) == push.seq
    heartbeat_row = next(r for r in ws.relays if isinstance(r, R.Passthrough))
    assert newest.refused_call(ws, heartbeat_row.seq) is None  # a heartbeat names a call, refuses none
    other = next(r for r in ws.relays if isinstance(r, R.ToolUse) and r.id == AGENT)
    assert newest.refusal_of(ws, other) is None


def test_the_results_timing_and_the_sessions_capabilities_are_said() -> None:
    ws = loaded(text([init(), result_line(stats(0, 0, 0)), result_line(time_to_request_ms=400)]))
    assert newest.run_timing(ws) == ("request sent 306 ms · first token 1,390 ms · first streamed token 1,410 ms"
                                     " · first content 1,460 ms (median of 2 results)")
    assert newest.run_timing(loaded(text([init()]))) is None
    session = next(r for r in ws.relays if isinstance(r, R.SessionMeta))
    assert ws.shown(ws.row(session.seq)).endswith(
        "capabilities interrupt_receipt_v1, msg_lifecycle_v1")


def test_missing_sub_agents_are_placed_under_their_lane_in_the_order_they_were_spawned() -> None:
    ws = loaded(session_files())
    order = newest.placed([(v.id, v.depth, v.spawn_seq) for v in ws.lanes], newest.missing_agents(ws))
    spawned = [x.spawn_seq if isinstance(x, newest.MissingAgent) else next(v.spawn_seq for v in ws.lanes if v.id == x)
               for x in order]
    assert order[0] == "main" and spawned[1:] == sorted(c.seq for c in spawn_calls(ws))
    assert [isinstance(x, newest.MissingAgent) for x in order] == [False, False, True, True, False, True, True]
    # a nested lane stays under its parent; one whose parent has no card goes last
    deep = newest.MissingAgent("t9", "agent-x.jsonl", "x", "nowhere", 2, 5, None)
    first = newest.MissingAgent("t1", "agent-y.jsonl", "y", "main", 1, 1, None)
    assert newest.placed([("main", 0, None), ("a", 1, 3), ("a1", 2, 4), ("b", 1, 7)], [deep, first]) == [
        "main", first, "a", "a1", "b", deep]
    late = newest.MissingAgent("t2", "agent-z.jsonl", "z", "a", 2, 6, None)
    assert newest.placed([("main", 0, None), ("a", 1, 3), ("a1", 2, 4), ("b", 1, 7)], [late]) == [
        "main", "a", "a1", late, "b"]
