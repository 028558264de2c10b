"""A message to a sub-agent that returned (``SendMessage``): its row, its links, its second span.

The session is tests/fixtures/shapes/sendmessage/, built from PROTOCOL.md section 8 (the call's
``{"to", "summary", "message"}``, the agent's later work appended to its own file) and the
result's ``toolUseResult {success, message, resumedAgentId}`` as public notes quote it from
CLI 2.1.204-2.1.284 (no public capture holds a whole resumed agent's file; see its README).
tests/fixtures/shapes/sendmessage-running/ sends the same words twice, to the agent while it runs
(queued: no span) and, by its name, after it returned (resumed): the span is tied by the agent the
result names, not by the words.
"""

from __future__ import annotations

import json

from _cli import main
from _corpus import ROOT

from relayscope import relay as R
from relayscope.intake import read_in_folder
from relayscope.multifile import translate_files
from relayscope.spans import build, stamps_of
from relayscope.web import model

FOLDER = ROOT / "tests" / "fixtures" / "shapes" / "sendmessage" / "-Users-dev-shop"
AGENT = "a07a9762b84dff5e9"
SPAWN, MESSAGE = "toolu_01SpawnReviewer000001", "toolu_01MessageReviewer00001"
LABEL = "general-purpose: Review the parser diff"


def folder_files() -> dict[str, bytes]:
    return {str(p.relative_to(FOLDER)): p.read_bytes() for p in sorted(FOLDER.rglob("*"))
            if p.is_file() and read_in_folder(str(p.relative_to(FOLDER)))}


def test_the_agents_work_after_the_message_comes_after_the_call_in_its_lane() -> None:
    [result] = translate_files(folder_files())
    relays = result.relays
    call = next(r.seq for r in relays if isinstance(r, R.ToolUse) and r.id == MESSAGE)
    starts = [r for r in relays if isinstance(r, R.LaneStart) and r.lane == SPAWN]
    ends = [r for r in relays if isinstance(r, R.LaneEnd) and r.lane == SPAWN]
    assert [s.resumed_by for s in starts] == [None, MESSAGE] and len(ends) == 2
    assert starts[1].seq > call and starts[1].line == 5  # the message, line 5 of the agent's file
    later = [r for r in relays if r.lane == SPAWN and starts[1].seq < r.seq < ends[1].seq and not isinstance(r, R.Usage)]
    assert [r.line for r in later] == [5, 6, 7, 8] and all(r.file and r.file.endswith(f"agent-{AGENT}.jsonl") for r in later)
    assert result.lanes[SPAWN].messages == (MESSAGE,)
    assert sorted(r.line for r in relays if r.file and r.file.endswith(".jsonl") and AGENT in r.file
                  and not isinstance(r, R.LaneStart | R.LaneEnd | R.Usage)) == [1, 2, 3, 4, 5, 6, 7, 8]


def test_the_row_says_who_the_message_is_for() -> None:
    code, out, err = main("translate", "-f", "text", str(FOLDER))
    assert code == 0, err
    text = out.decode()
    assert f"→ {LABEL}: run the parser tests too" in text
    assert f"continued by the message of call {MESSAGE}" in text
    assert '{"to":' not in text


def test_the_second_span_is_drawn_and_the_lanes_time_counted_once() -> None:
    files = folder_files()
    [result] = translate_files(files)
    timeline = build(result.relays, stamps_of({k: v.splitlines() for k, v in files.items()}), several=True)
    track = next(t for t in timeline.tracks if t.id == SPAWN)
    assert track.agent is not None and [s.tool_id for s in track.resumed] == [MESSAGE]
    first, second = track.agent, track.resumed[0]
    assert (first.end - first.start, second.end - second.start) == (27.0, 37.0)  # 09:00:03-30, 09:00:41-01:18
    assert [s for s in timeline.spans if s.lane == SPAWN and s.kind == "agent"] == [first, second]
    lane = next(f for f in timeline.figures["lanes"] if f["lane"] == SPAWN)
    assert lane["wall"] == 64.0  # the 11 s between the spans, when it had returned, are none of its time
    code, out, _ = main("stats", str(FOLDER))
    assert code == 0 and f"{LABEL}: wall 1m 04s" in out.decode()
    code, out, _ = main("export", "--format", "chrome-trace", str(FOLDER))
    spans = [e for e in json.loads(out)["traceEvents"] if e.get("cat") == "agent" and e["args"]["lane"] == SPAWN]
    assert [e["dur"] // 1_000_000 for e in spans] == [27, 37]


def test_the_page_links_the_call_and_the_lane_both_ways() -> None:
    ws = model.Workspace()
    for _ in ws.load(folder_files()):
        pass
    rows = [ws.row(i) for i in range(len(ws.relays))]
    call = next(r for r in rows if isinstance(r.relay, R.ToolUse) and r.relay.id == MESSAGE)
    assert call.opens_lane == SPAWN
    assert ws.shown(call).startswith(f"→ {LABEL}: run the parser tests too")
    resumed = next(r for r in rows if isinstance(r.relay, R.LaneStart) and r.relay.resumed_by == MESSAGE)
    assert resumed.back_to == call.seq


def test_a_workflow_calls_row_opens_its_runs_lanes_and_they_lead_back() -> None:
    folder = ROOT / "tests" / "fixtures" / "shapes" / "workflow" / "-Users-dev-shop"
    ws = model.Workspace()
    for _ in ws.load({str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
                      and read_in_folder(str(p.relative_to(folder)))}):
        pass
    rows = [ws.row(i) for i in range(len(ws.relays))]
    call = next(r for r in rows if isinstance(r.relay, R.ToolUse) and r.relay.name == "Workflow")
    assert call.opens_lane == "wf_3a1b2c3d-4e5/a3f1c2d4e5b6a7980"
    backs = [r.back_to for r in rows if isinstance(r.relay, R.LaneStart) and r.relay.lane.startswith("wf_")]
    assert backs == [call.seq, call.seq]
    assert {lane.id for lane in ws.lanes} >= {"wf_3a1b2c3d-4e5/a3f1c2d4e5b6a7980", "wf_3a1b2c3d-4e5/a9e8d7c6b5a4f3e21"}



RUNNING = ROOT / "tests" / "fixtures" / "shapes" / "sendmessage-running" / "-Users-dev-shop"
QUEUED, RESUMED = "toolu_01MessageRunning0001", "toolu_01MessageReturned001"


def running_files() -> dict[str, bytes]:
    return {str(p.relative_to(RUNNING)): p.read_bytes() for p in sorted(RUNNING.rglob("*"))
            if p.is_file() and read_in_folder(str(p.relative_to(RUNNING)))}


def test_the_span_after_a_message_is_tied_by_the_agent_the_result_names_not_by_the_words() -> None:
    """The same words are sent twice: first to the running agent by its id (its result: queued,
    the words land inside its first span, line 4), then, after it returned, by its name ("reviewer",
    the result's resumedAgentId is its id). Only the second call resumes it, at line 6."""
    [result] = translate_files(running_files())
    relays = result.relays
    starts = [r for r in relays if isinstance(r, R.LaneStart) and r.lane == SPAWN]
    assert [(s.resumed_by, s.line) for s in starts] == [(None, 1), (RESUMED, 6)]
    ends = [r for r in relays if isinstance(r, R.LaneEnd) and r.lane == SPAWN]
    later = [r.line for r in relays if r.lane == SPAWN and starts[1].seq < r.seq < ends[-1].seq
             and not isinstance(r, R.Usage)]
    assert later == [6, 7, 8, 9]
    first = [r.line for r in relays if r.lane == SPAWN and r.file and AGENT in r.file and r.seq < starts[1].seq
             and not isinstance(r, R.LaneStart | R.LaneEnd | R.Usage)]
    assert first == [1, 2, 3, 4, 5]  # the queued words are part of its first span
    assert result.lanes[SPAWN].messages == (RESUMED,)
    call = next(r.seq for r in relays if isinstance(r, R.ToolUse) and r.id == RESUMED)
    assert starts[1].seq > call


def test_a_message_by_the_agents_name_links_to_its_lane_and_second_span() -> None:
    code, out, err = main("translate", "-f", "text", str(RUNNING))
    assert code == 0, err
    text = out.decode()
    assert text.count(f"→ {LABEL}: run the parser tests too") == 2 and "→ reviewer" not in text
    ws = model.Workspace()
    for _ in ws.load(running_files()):
        pass
    rows = [ws.row(i) for i in range(len(ws.relays))]
    call = next(r for r in rows if isinstance(r.relay, R.ToolUse) and r.relay.id == RESUMED)
    assert call.opens_lane == SPAWN and ws.shown(call).startswith(f"→ {LABEL}: ")
    resumed = next(r for r in rows if isinstance(r.relay, R.LaneStart) and r.relay.resumed_by)
    assert resumed.back_to == call.seq
    files = running_files()
    [result] = translate_files(files)
    timeline = build(result.relays, stamps_of({k: v.splitlines() for k, v in files.items()}), several=True)
    track = next(t for t in timeline.tracks if t.id == SPAWN)
    assert [s.tool_id for s in track.resumed] == [RESUMED]
    assert track.resumed[0].end - track.resumed[0].start == 44.0  # 09:00:34 .. 09:01:18


def test_a_background_agents_lane_ends_where_its_work_ends_not_at_its_launch_result() -> None:
    """The reviewer runs in the background: its spawn's result (line 3 of the main file) only says
    it was launched. Its first span's lane_end is its last record before the message (line 5 of
    its file, 09:00:29), in the text output, the page's rows and the swimlanes alike."""
    files = running_files()
    [result] = translate_files(files)
    relays = result.relays
    launch = next(r for r in relays if isinstance(r, R.ToolResult) and r.tool_use_id == SPAWN)
    assert launch.launched and (launch.file, launch.line) == ("5d3e9f10-2a4b-4c6d-8e0f-1a2b3c4d5e70.jsonl", 3)
    ends = [r for r in relays if isinstance(r, R.LaneEnd) and r.lane == SPAWN]
    assert [(r.file and r.file.rsplit("/", 1)[-1], r.line) for r in ends] == [
        (f"agent-{AGENT}.jsonl", 5), (f"agent-{AGENT}.jsonl", 9)]
    assert ends[0].seq < launch.seq  # right after its work, before the result that launched it
    last = max(r.seq for r in relays if r.lane == SPAWN and r.seq < ends[0].seq and not isinstance(r, R.Usage))
    assert all(isinstance(r, R.Usage) for r in relays[last + 1:ends[0].seq])
    code, out, err = main("translate", "-f", "text", "--color", "never", str(RUNNING))
    assert code == 0, err
    rows = [line for line in out.decode().splitlines() if "lane_end" in line]
    assert len(rows) == 2 and all(f"{AGENT}.jsonl:" in row for row in rows)
    assert f"{AGENT}.jsonl:5" in rows[0]
    timeline = build(relays, stamps_of({k: v.splitlines() for k, v in files.items()}), several=True)
    track = next(t for t in timeline.tracks if t.id == SPAWN)
    assert track.agent is not None and track.agent.end - track.agent.start == 26.0  # 09:00:03 .. 09:00:29
    call = next(s for s in timeline.spans if s.kind == "tool" and s.tool_id == SPAWN)
    assert round(call.end - call.start, 1) == 0.4  # the main agent waited for the launch only
    ws = model.Workspace()
    for _ in ws.load(files):
        pass
    assert [(r.line, r.file == ends[0].file) for r in ws.relays if isinstance(r, R.LaneEnd) and r.lane == SPAWN] \
        == [(5, True), (9, True)]
