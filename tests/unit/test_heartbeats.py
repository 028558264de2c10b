"""A running sub-agent's heartbeat (top-level ``tool_progress``, PROTOCOL.md 7): Claude Code's
bookkeeping, kept in the trace and behind the bookkeeping chip, adding no content row; it moves its
sub-agent's state ("running, 30 s") in the lanes and on its swimlane track."""

from __future__ import annotations

import json

from _run_lines import (
    AGENT,
    AGENT_2,
    BASH,
    a_run_with_two_agents,
    call,
    cli,
    heartbeat,
    init,
    run,
    text,
)

from relayscope import meaning
from relayscope import relay as R
from relayscope import spans as S
from relayscope.present import summary
from relayscope.subagents import LaneStates, status_words
from relayscope.translator import Translator


def test_a_heartbeat_is_bookkeeping_in_its_agents_lane_about_the_agent_call() -> None:
    relays = run([init(), call("a-1", "m1", AGENT, "Agent", {"subagent_type": "Explore", "description": "map"}),
                  heartbeat(AGENT, 0, 30)])
    (beat,) = [r for r in relays if isinstance(r, R.Passthrough)]
    assert beat.event_type == "tool_progress" and beat.lane == AGENT
    assert summary(beat) == "heartbeat · Agent running, 30 s"
    assert meaning.place_of("tool_progress") == "bookkeeping" and meaning.is_bookkeeping(beat)
    assert meaning.call_of(beat) == AGENT  # its own tool_use_id ("...-heartbeat-0") is no call's
    assert not meaning.is_error(beat)
    # no content row: nothing but the lane's start and the heartbeat itself is in the lane
    assert [type(r) for r in relays if r.lane == AGENT] == [R.LaneStart, R.Passthrough]


def test_heartbeat_words_from_missing_or_mistyped_fields() -> None:
    assert meaning.summarize("tool_progress", None, {"heartbeat": True, "elapsed_time_seconds": 3725}) == \
        "heartbeat · tool running, 1h 02m"
    assert meaning.summarize("tool_progress", None, {"tool_name": "Agent", "elapsed_time_seconds": "30"}) == \
        "tool progress · Agent running"
    assert meaning.summarize("tool_progress", None, "not an object") == "tool progress · tool running"


def test_heartbeats_move_the_lane_state_while_it_runs_and_its_end_settles_it() -> None:
    lines = a_run_with_two_agents()
    relays = run(lines)
    cut = next(i for i, r in enumerate(relays) if isinstance(r, R.ToolResult))  # before the first answer
    states = LaneStates()
    states.feed(relays[:cut])
    assert states.words() == {AGENT: "running, 1m 00s", AGENT_2: "running, 30 s"}
    assert states.lanes[AGENT].heartbeats == 2 and states.lanes[AGENT].elapsed_s == 60
    states.feed(relays[cut:])
    assert states.words() == {AGENT: "completed", AGENT_2: "failed"}
    assert status_words(states.lanes[AGENT]) == "completed"


def test_a_heartbeat_alone_says_a_lane_runs_when_no_call_and_no_frame_of_it_is_in_the_input() -> None:
    states = LaneStates()
    states.feed(run([init(), heartbeat(AGENT, 4, 150)]))
    assert states.words() == {AGENT: "running, 2m 30s"}


def test_the_swimlane_tracks_carry_the_state_and_the_heartbeats_time() -> None:
    lines = a_run_with_two_agents()
    relays = run(lines)
    stamps = S.stamps_of({None: text(lines).splitlines()})
    tracks = {t.id: t for t in S.build(relays, stamps).tracks}
    assert (tracks[AGENT].state, tracks[AGENT].status, tracks[AGENT].elapsed_s) == ("completed", "completed", 60)
    assert tracks[AGENT_2].state == "failed" and tracks["main"].state is None
    # a stream cut while the agents run: running, with the time the last heartbeat said
    cut = lines[:lines.index(heartbeat(AGENT, 1, 60)) + 1]
    relays = run(cut)
    tl = S.build(relays, S.stamps_of({None: text(cut).splitlines()}))
    assert {t.id: t.status for t in tl.tracks} == {"main": None, AGENT: "running, 1m 00s", AGENT_2: "running, 30 s"}
    lanes = {ln["lane"]: ln for ln in S.figures(tl, relays, S.stamps_of({None: text(cut).splitlines()}))["lanes"]}
    assert lanes[AGENT]["status"] == "running, 1m 00s" and lanes[AGENT]["elapsed_s"] == 60


def test_an_ordinary_tools_progress_stays_on_the_call_and_opens_no_lane() -> None:
    beat = {**heartbeat(BASH, 0, 45), "tool_name": "Bash"}
    relays = run([init(), call("a-1", "m1", BASH, "Bash", {"command": "make"}), beat])
    (row,) = [r for r in relays if isinstance(r, R.Passthrough)]
    assert row.lane == "main" and summary(row) == "heartbeat · Bash running, 45 s"
    assert not [r for r in relays if isinstance(r, R.LaneStart) and r.lane != "main"]
    states = LaneStates()
    states.feed(relays)
    assert states.words() == {}


def test_text_output_shows_the_heartbeat_on_its_agents_call() -> None:
    lines = [init(), call("a-1", "m1", AGENT, "Agent", {"subagent_type": "Explore", "description": "map"}),
             heartbeat(AGENT, 0, 30)]
    out = cli("translate", "-f", "text", data=text(lines)).splitlines()
    seq = next(line for line in out if " tool_use " in line).split()[0]
    (row,) = [line for line in out if "heartbeat" in line]
    assert row.endswith(f"heartbeat · Agent running, 30 s · call #{seq}")
    assert "Explore: map" in row  # the sub-agent's lane
    (kept,) = [x for x in map(json.loads, cli("translate", data=text(lines)).splitlines()) if x["type"] == "passthrough"]
    assert kept["data"] == lines[-1] and kept["lane"] == AGENT  # the whole line, as it came


def test_the_trace_keeps_the_heartbeat_as_a_known_record_in_its_agents_lane() -> None:
    t = Translator("lineage", trace=True)
    for line in [init(), call("a-1", "m1", AGENT, "Agent", {"subagent_type": "Explore", "description": "map"}),
                 heartbeat(AGENT, 0, 30)]:
        t.feed_line(json.dumps(line))
    step = t.trace[-1]
    assert (step.kind, step.lane, step.reason) == ("passthrough:tool_progress", AGENT, "tool_progress record passed through")
