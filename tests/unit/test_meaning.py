"""The newest Claude Code output (PROTOCOL.md section 6), with its meaning.

One test per shape, from the documented shapes (synthetic lines where no capture has them) and
the five captures of CLI 2.1.143-2.1.233 in tests/fixtures/real/stream-json; the drift report on
made-up types; the token rule on real session fixtures, the expectation computed here from the raw
records; ccusage (when installed) against the same totals; every relay of the new captures checked
against docs/relay-events.md."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON, ROOT
from _schema import problems

from relayscope import cli, meaning
from relayscope import relay as R
from relayscope.audit import render
from relayscope.drift import describe, drift_of
from relayscope.meaning import BOOKKEEPING, RECORDS, SYSTEM, summarize, task_state
from relayscope.multifile import audit_lines, translate_files
from relayscope.present import summary
from relayscope.translator import Translator
from relayscope.usage import Tally, estimate, usage_report
from relayscope.web import model

NEW_CAPTURES = {
    "fluskapp__flusk-dev__test__fixtures__claude-stream.jsonl": "2.1.233",
    "colonelpanik__overseer__docs__superpowers__claude-stream.jsonl": "2.1.223",
    "GuhyupLee__waifu-agent__tests__fixtures__claude-multiturn.jsonl": "2.1.207",
    "DavidMarom__fb2-b__.ralph__logs__claude_output_2026-05-27_00-08-50_stream.log": "2.1.146",
    "marquex__trackgentic__.agentic__session__mp9zkenj.jsonl": "2.1.143",
}


def run(lines: list[dict[str, Any] | str], strategy: str = "lineage") -> list[R.Relay]:
    t = Translator(strategy)
    out: list[R.Relay] = []
    for line in lines:
        out += t.feed_line(line if isinstance(line, str) else json.dumps(line))
    return out + t.finish()


INIT = {"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-opus-5", "tools": []}


def asst(uuid: str, mid: str, blocks: list[dict[str, Any]], parent: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "assistant", "uuid": uuid, "parent_tool_use_id": parent, "session_id": "s1",
            "message": {"id": mid, "role": "assistant", "model": "claude-opus-5", "content": blocks,
                        "usage": {"input_tokens": 3, "output_tokens": 7}}, **extra}


# --- the captures ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(NEW_CAPTURES))
def test_the_new_captures_are_carried_with_their_sources_and_every_relay_is_documented(name: str) -> None:
    path = FIXTURE_STREAM_JSON / name
    sources = (ROOT / "tests" / "fixtures" / "real" / "SOURCES.tsv").read_text()
    assert f"stream-json/{name}\t" in sources
    data = path.read_bytes()
    assert f'"claude_code_version":"{NEW_CAPTURES[name]}"'.encode() in data
    relays = translate_files({name: data})[0].relays
    assert relays
    assert [p for r in relays for p in problems(r)] == []
    # nothing new to this version in them: every type, subtype and field has its place
    assert drift_of(data.split(b"\n")).records == 0


@pytest.mark.parametrize("name", sorted(NEW_CAPTURES))
def test_every_content_block_of_the_new_captures_comes_out_once(name: str) -> None:
    lines = (FIXTURE_STREAM_JSON / name).read_bytes().split(b"\n")
    (lineage,) = audit_lines(lines, ["lineage"])
    assert (lineage.lost, lineage.duplicated, lineage.unmatched) == (0, 0, 0)


# --- 1. meaning: every record type and subtype has a place and a summary -------------------------


def test_every_known_type_and_subtype_has_a_place_and_a_summary_from_missing_or_mistyped_fields() -> None:
    for table, kind in ((RECORDS, None), (SYSTEM, "system")):
        for name, row in table.items():
            assert row.place in (meaning.CONTENT, meaning.LIFECYCLE, meaning.BOOKKEEPING_PLACE)
            for fields in ({}, {"status": 5, "patch": "x", "usage": [], "rate_limit_info": 3, "retracted_message_uuids": 7,
                            "compact_metadata": {"pre_tokens": "a"}}, None, [1, 2]):
                text = summarize(kind or name, name if kind else None, fields)  # type: ignore[arg-type]
                assert isinstance(text, str) and text


@pytest.mark.parametrize(("line", "place", "text"), [
    ({"type": "rate_limit_event", "rate_limit_info": {"status": "allowed", "resetsAt": 1787015400,
                                                      "rateLimitType": "five_hour"}}, "lifecycle",
     "rate limit allowed · five_hour · resets 2026-08-18 01:10 UTC"),
    ({"type": "system", "subtype": "post_turn_summary", "status_category": "review_ready",
      "status_detail": "reading the source", "needs_action": ""}, "lifecycle", "review_ready · reading the source"),
    ({"type": "system", "subtype": "thinking_tokens", "estimated_tokens": 35, "estimated_tokens_delta": 30},
     "bookkeeping", "thinking: ~35 tokens (+30)"),
    ({"type": "system", "subtype": "notification", "key": "stop-hook-error", "text": "Stop hook error occurred"},
     "lifecycle", "notification stop-hook-error · Stop hook error occurred"),
    ({"type": "system", "subtype": "task_updated", "task_id": "t1", "patch": {"status": "completed", "end_time": 1}},
     "lifecycle", "task t1 → completed"),
    ({"type": "system", "subtype": "api_retry", "attempt": 1, "max_retries": 10, "retry_delay_ms": 529.4,
      "error_status": 429, "error": "rate_limit"}, "lifecycle", "API retry 1/10 · in 0.5 s · 429 rate_limit"),
    ({"type": "system", "subtype": "task_summary", "task_id": "t1", "summary": "done"}, "lifecycle",
     "task summary · t1 · done"),
    ({"type": "system", "subtype": "background_tasks_changed"}, "lifecycle", "background tasks changed"),
    ({"type": "system", "subtype": "tool_progress", "subagent_type": "Explore", "heartbeat": True}, "bookkeeping",
     "heartbeat · Explore running"),
    ({"type": "system", "subtype": "tool_use_summary", "summary": "3 reads"}, "lifecycle", "tool use summary · 3 reads"),
    ({"type": "system", "subtype": "peer_message_hold"}, "lifecycle", "peer message held"),
    ({"type": "system", "subtype": "away_summary", "content": "You were away: tests pass"}, "content",
     "while you were away · You were away: tests pass"),
    ({"type": "system", "subtype": "informational", "content": "Switched model"}, "lifecycle", "info · Switched model"),
    ({"type": "system", "subtype": "turn_duration", "durationMs": 247515, "messageCount": 103}, "bookkeeping",
     "turn took 247.5 s · 103 messages"),
    ({"type": "system", "subtype": "model_refusal_fallback", "retracted_message_uuids": ["a", "b"],
      "conversation_reset": True}, "lifecycle", "model refusal: 2 message(s) retracted · conversation reset"),
    ({"type": "control_response", "response": {"subtype": "success"}}, "bookkeeping", "control_response · success"),
    ({"type": "command_lifecycle", "command": "/compact", "state": "started"}, "lifecycle",
     "command · /compact · started"),
    ({"type": "atis-latch"}, "bookkeeping", "atis latch"),
    ({"type": "custom-title", "customTitle": "Fix the bug"}, "bookkeeping", "title · Fix the bug"),
    ({"type": "pr-link", "prUrl": "https://example.org/pr/1"}, "bookkeeping", "pull request · https://example.org/pr/1"),
])
def test_each_newer_shape_gets_its_place_and_a_readable_row(line: dict[str, Any], place: str, text: str) -> None:
    relays = run([INIT, line])
    (r,) = [r for r in relays if isinstance(r, R.System | R.Passthrough)]
    assert summary(r) == text
    assert meaning.place_of(line["type"], line.get("subtype")) == place
    assert meaning.is_bookkeeping(r) == (place == "bookkeeping")
    assert problems(r) == []


def test_the_page_hides_exactly_the_tables_bookkeeping() -> None:
    assert model.BOOKKEEPING is BOOKKEEPING
    assert {"progress", "hook_started", "status", "thinking_tokens", "atis-latch"} <= BOOKKEEPING
    assert not {"rate_limit_event", "task_started", "model_refusal_fallback", "attachment"} & BOOKKEEPING


# --- model_refusal_fallback: retracted, never lost or emitted -----------------------------------


REFUSAL = [
    INIT,
    {"type": "user", "message": {"role": "user", "content": "go"}, "parent_tool_use_id": None},
    asst("u-1", "msg_1", [{"type": "text", "text": "kept"}]),
    asst("u-2", "msg_2", [{"type": "text", "text": "withdrawn text"}]),
    asst("u-3", "msg_2", [{"type": "tool_use", "id": "toolu_w", "name": "Bash", "input": {"command": "ls"}}]),
    {"type": "system", "subtype": "model_refusal_fallback", "retracted_message_uuids": ["u-2", 5],
     "conversation_reset": False, "uuid": "u-4"},
    asst("u-5", "msg_3", [{"type": "text", "text": "after the fallback"}]),
    {"type": "result", "subtype": "success", "is_error": False, "result": "ok"},
]


def test_a_refusal_fallback_names_the_relays_it_withdraws() -> None:
    relays = run(REFUSAL)
    (fallback,) = [r for r in relays if isinstance(r, R.System) and r.subtype == "model_refusal_fallback"]
    withdrawn = {r.seq for r in relays if isinstance(r, R.TextDelta | R.ToolUse)
                 and r.message_id == "msg_2"}
    assert set(fallback.retracts) == withdrawn and len(withdrawn) == 2
    assert summary(fallback) == "model refusal: 1 message(s) retracted · " + "withdraws " + ", ".join(
        f"#{q}" for q in sorted(withdrawn))
    assert problems(fallback) == []
    # a fallback of another shape withdraws nothing and breaks nothing
    odd = run([INIT, asst("u-1", "m", [{"type": "text", "text": "x"}]),
               {"type": "system", "subtype": "model_refusal_fallback", "retracted_message_uuids": "u-1"}])
    assert [r.retracts for r in odd if isinstance(r, R.System)] == [()]


def test_the_audit_counts_retracted_blocks_as_retracted_never_lost_or_emitted() -> None:
    lines = [json.dumps(x).encode() for x in REFUSAL]
    for a in audit_lines(lines):
        assert a.retracted == 2, a.strategy
        assert a.blocks == 5 and a.emitted + a.lost + a.retracted == a.blocks  # the prompt is one
    (lineage,) = audit_lines(lines, ["lineage"])
    assert (lineage.emitted, lineage.lost) == (3, 0)
    text = render([lineage])
    assert "lineage: 2 block(s) retracted by a model_refusal_fallback" in text
    assert "tokens: 3 API message(s) · 9 in · 21 out" in text and "no known price for claude-opus-5" in text


def test_the_page_marks_retracted_rows() -> None:
    ws = model.Workspace()
    for _ in ws.load("\n".join(json.dumps(x) for x in REFUSAL)):
        pass
    withdrawn = {r.seq for r in ws.relays if getattr(r, "message_id", None) == "msg_2" and not isinstance(r, R.Usage)}
    assert ws.retracted == withdrawn


# --- omitted thinking ---------------------------------------------------------------------------


def test_omitted_thinking_says_so_with_its_tokens_and_time() -> None:
    relays = run([INIT,
                  {"type": "system", "subtype": "thinking_tokens", "estimated_tokens": 412, "estimated_tokens_delta": 12},
                  asst("u-1", "msg_1", [{"type": "thinking", "thinking": "", "signature": "EtMC"}],
                       thinking_display="omitted", thinking_duration_ms=5300),
                  asst("u-2", "msg_2", [{"type": "thinking", "thinking": "", "signature": "EtMD"}]),
                  asst("u-3", "msg_3", [{"type": "thinking", "thinking": ""}])])
    thinking = [r for r in relays if isinstance(r, R.ThinkingDelta)]
    assert [summary(r) for r in thinking] == ["thinking omitted (412 tokens, 5.3 s)", "thinking omitted", "(empty)"]
    assert [r.omitted for r in thinking] == [True, True, False]
    assert all(problems(r) == [] for r in thinking)


def test_streamed_thinking_with_no_text_is_emitted_once_as_omitted() -> None:
    """The GuhyupLee capture (2.1.207, claude-opus-4-8): a thinking block streamed with no text and a
    signature, its snapshot empty too; lineage used to lose it (already streamed, nothing emitted)."""
    lines = (FIXTURE_STREAM_JSON / "GuhyupLee__waifu-agent__tests__fixtures__claude-multiturn.jsonl").read_bytes()
    relays = translate_files({"x.jsonl": lines})[0].relays
    omitted = [r for r in relays if isinstance(r, R.ThinkingDelta) and r.omitted]
    assert len(omitted) == 1 and summary(omitted[0]).startswith("thinking omitted")
    deltas = run([INIT,
                  {"type": "stream_event", "parent_tool_use_id": None, "event": {"type": "message_start", "message": {
                      "id": "msg_9", "model": "m", "usage": {"input_tokens": 1, "output_tokens": 1}}}},
                  {"type": "stream_event", "parent_tool_use_id": None, "event": {
                      "type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}},
                  {"type": "stream_event", "parent_tool_use_id": None, "event": {
                      "type": "content_block_delta", "index": 0,
                      "delta": {"type": "thinking_delta", "thinking": "", "estimated_tokens": 40}}},
                  {"type": "stream_event", "parent_tool_use_id": None, "event": {"type": "content_block_stop", "index": 0}}])
    (piece,) = [r for r in deltas if isinstance(r, R.ThinkingDelta)]
    assert piece.omitted and piece.estimated_tokens == 40 and summary(piece) == "thinking omitted (40 tokens)"


# --- sub-agents: meta.json links, depth-2 forwarded frames, background and forked agents ----------


def test_meta_json_linked_sub_agents_still_land_in_their_spawning_calls_lane() -> None:
    folder = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees"
    files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*.jsonl")}
    agent = "ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a36efb2a1231c41e2.jsonl"
    main = next(k for k in files if "/" not in k)
    spawn = next(b["id"] for line in files[main].splitlines() for b in _blocks(line)
                 if b.get("type") == "tool_use" and b.get("name") in ("Task", "Agent")
                 and "a36efb2a1231c41e2" in files[main].decode())
    files[agent.replace(".jsonl", ".meta.json")] = json.dumps({"agentType": "Explore", "toolUseId": spawn}).encode()
    relays = [r for res in translate_files(files) for r in res.relays]
    lanes = {r.lane for r in relays if r.file == agent}
    assert lanes == {spawn}


def _blocks(line: bytes) -> list[dict[str, Any]]:
    obj = json.loads(line)
    content = obj.get("message", {}).get("content") if isinstance(obj.get("message"), dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def test_forwarded_frames_at_depth_two_nest_under_their_depth_one_agent() -> None:
    relays = run([INIT,
                  asst("u1", "m1", [{"type": "tool_use", "id": "toolu_A", "name": "Agent",
                                     "input": {"subagent_type": "Explore", "description": "outer", "prompt": "p"}}]),
                  asst("u2", "m2", [{"type": "tool_use", "id": "toolu_B", "name": "Agent",
                                     "input": {"subagent_type": "fork", "description": "inner", "prompt": "q"}}],
                       parent="toolu_A", subagent_type="Explore", task_description="outer"),
                  asst("u3", "m3", [{"type": "text", "text": "deep"}], parent="toolu_B",
                       subagent_type="fork", task_description="inner")])
    starts = {r.lane: r for r in relays if isinstance(r, R.LaneStart)}
    assert (starts["toolu_B"].parent_lane, starts["toolu_B"].depth, starts["toolu_B"].agent_type) == ("toolu_A", 2, "fork")
    assert next(r for r in relays if isinstance(r, R.TextDelta)).lane == "toolu_B"


BACKGROUND = [
    INIT,
    asst("u1", "m1", [{"type": "tool_use", "id": "toolu_bg", "name": "Agent",
                       "input": {"subagent_type": "fork", "description": "long job", "prompt": "p",
                                 "run_in_background": True}}]),
    {"type": "system", "subtype": "task_started", "task_id": "abcdefghijklmnopq", "tool_use_id": "toolu_bg",
     "task_type": "local_agent", "is_backgrounded": True, "spawn_depth": 1, "description": "long job"},
    {"type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_bg", "content": "Async agent launched"}]}},
    {"type": "system", "subtype": "task_started", "task_id": "bash123", "tool_use_id": "toolu_sh",
     "task_type": "local_bash", "description": "npm test"},
    {"type": "result", "subtype": "success", "is_error": False, "result": "launched"},
    asst("u2", "m2", [{"type": "text", "text": "background work"}], parent="toolu_bg"),
]


@pytest.mark.parametrize(("end", "state"), [
    ({"type": "system", "subtype": "task_notification", "task_id": "abcdefghijklmnopq", "tool_use_id": "toolu_bg",
      "status": "completed", "summary": "long job"}, "completed"),
    ({"type": "system", "subtype": "task_updated", "task_id": "abcdefghijklmnopq", "tool_use_id": "toolu_bg",
      "patch": {"status": "failed", "end_time": 5}}, "failed"),
    (None, "running"),
])
def test_a_background_agents_lane_shows_its_state_from_task_events_after_the_runs_result(
        end: dict[str, Any] | None, state: str) -> None:
    lines = BACKGROUND + ([end] if end else [])
    relays = run(lines)
    states = [(r.lane, r.state) for r in relays if isinstance(r, R.System)]
    assert states[0] == ("toolu_bg", "running")
    assert ("main", None) in states  # a background bash task: no lane, no state
    assert next(r for r in relays if isinstance(r, R.TextDelta)).lane == "toolu_bg"
    ws = model.Workspace()
    for _ in ws.load("\n".join(json.dumps(x) for x in lines)):
        pass
    lane = next(v for v in ws.lanes if v.id == "toolu_bg")
    assert (lane.state, lane.agent_type) == (state, "fork")
    assert next(v for v in ws.lanes if v.id == "main").state is None
    assert task_state("task_updated", {"patch": 3}) is None and task_state("status", {}) is None


# --- 2. drift -----------------------------------------------------------------------------------


MADE_UP = [INIT, {"type": "foo", "x": 1}, {"type": "foo"}, {"type": "system", "subtype": "bar", "session_id": "s1"},
           asst("u1", "m1", [{"type": "text", "text": "hi"}], zzz_new_field=True),
           {"type": "result", "subtype": "success", "is_error": False, "result": "ok"}]


def test_drift_reports_made_up_types_subtypes_and_fields_and_the_records_still_pass_through() -> None:
    lines = [json.dumps(x) for x in MADE_UP]
    report = drift_of(lines)
    assert report.types == {"foo": 2, "system/bar": 1}
    assert report.fields == {"x": 1, "zzz_new_field": 1}
    assert report.records == 4 and report.lines == [2, 3, 4, 5]
    assert describe("F", report) == ("F: 3 records of 2 types new to relayscope 0.1.0: foo (2), system/bar (1); "
                                     "2 new fields: x (1), zzz_new_field (1)")
    relays = run(lines)
    assert [r.event_type for r in relays if isinstance(r, R.Passthrough)] == ["foo", "foo"]
    assert [summary(r) for r in relays if isinstance(r, R.System)] == ["system/bar (new to this version)"]
    assert drift_of([b"\xef\xbb\xbf" + json.dumps(INIT).encode(), b"not json", b"[1]", b""]).records == 0


def test_translate_and_trace_say_the_drift_on_stderr_and_audit_json_carries_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "made-up.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in MADE_UP) + "\n")
    want = f"{path}: 3 records of 2 types new to relayscope 0.1.0: foo (2), system/bar (1); 2 new fields"
    for argv in (["translate", str(path)], ["trace", str(path)], ["translate", str(tmp_path)]):
        assert cli.main(argv) == 0
        err = capsys.readouterr().err
        assert err.count("new to relayscope") == 1 and want.replace(str(path), argv[1] if argv[1] == str(path)
                                                                    else "made-up.jsonl") in err, (argv, err)
    assert cli.main(["audit", "--json", str(path)]) == 0
    audits = json.loads(capsys.readouterr().out)
    assert all(a["drift"]["types"] == {"foo": 2, "system/bar": 1} and a["drift"]["records"] == 4 for a in audits)
    quiet = tmp_path / "known.jsonl"
    quiet.write_text(json.dumps(INIT) + "\n")
    assert cli.main(["translate", str(quiet)]) == 0
    assert "new to relayscope" not in capsys.readouterr().err


def test_the_page_has_the_drift_rows_for_its_notice() -> None:
    from relayscope.web import newest
    ws = model.Workspace()
    for _ in ws.load("\n".join(json.dumps(x) for x in MADE_UP)):
        pass
    view = newest.drift_view(ws)
    assert view is not None and view.report.records == 4
    assert {ws.relays[q].line for q in view.seqs} == {2, 3, 4, 5}
    clean = model.Workspace()
    for _ in clean.load(json.dumps(INIT)):
        pass
    assert newest.drift_view(clean) is None


# --- 3. tokens: once per API message, final values, per lane and run ----------------------------


SESSION_FILES = sorted(p for p in FIXTURE_SESSIONS.rglob("*.jsonl"))


def _expected_from_raw(paths: list[Path]) -> dict[str, int]:
    """Per API message (message.id), the values of its last record that carries usage, summed:
    computed from the raw records, sharing nothing with the translator."""
    last: dict[str, dict[str, Any]] = {}
    for path in paths:
        for raw in path.read_bytes().splitlines():
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            msg = obj.get("message") if isinstance(obj, dict) else None
            if obj.get("type") == "assistant" and isinstance(msg, dict) and isinstance(msg.get("usage"), dict) \
                    and isinstance(msg.get("id"), str):
                last[msg["id"]] = msg["usage"]
    total: Counter[str] = Counter()
    for u in last.values():
        for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            total[k] += int(u.get(k) or 0)
    total["messages"] = len(last)
    return dict(total)


def _session_groups() -> list[list[Path]]:
    """Each main session file with its sub-agent files (``<session>/subagents/``)."""
    groups = []
    for p in SESSION_FILES:
        if p.name.startswith("agent-"):
            continue
        subs = sorted((p.parent / p.stem / "subagents").glob("*.jsonl")) if (p.parent / p.stem).is_dir() else []
        groups.append([p, *subs])
    return groups


@pytest.mark.parametrize("group", _session_groups(), ids=lambda g: g[0].name)
def test_tokens_are_counted_once_per_api_message_with_final_values(group: list[Path]) -> None:
    files = {str(p.relative_to(FIXTURE_SESSIONS)): p.read_bytes() for p in group}
    relays = [r for res in translate_files(files) for r in res.relays]
    report = usage_report(relays)
    want = _expected_from_raw(group)
    got = report.run
    assert {"messages": got.messages, "input_tokens": got.input_tokens, "output_tokens": got.output_tokens,
            "cache_read_input_tokens": got.cache_read_input_tokens,
            "cache_creation_input_tokens": got.cache_creation_input_tokens} == {
        k: want.get(k, 0) for k in ("messages", "input_tokens", "output_tokens", "cache_read_input_tokens",
                                    "cache_creation_input_tokens")}
    assert sum(t.output_tokens for t in report.lanes.values()) == got.output_tokens
    # the same rule in the audit and on the page
    assert audit_tokens(files) == msgspec_builtins(report)
    ws = model.Workspace()
    for _ in ws.load(files if len(files) > 1 else next(iter(files.values()))):
        pass
    assert sum(v.output_tokens for v in ws.lanes) == got.output_tokens
    assert sum(v.input_tokens + v.cache_read_tokens + v.cache_creation_tokens for v in ws.lanes) == (
        got.input_tokens + got.cache_read_input_tokens + got.cache_creation_input_tokens)


def audit_tokens(files: dict[str, bytes]) -> Any:
    from relayscope.multifile import audit_input
    results = audit_input(files) if len(files) > 1 else audit_input(next(iter(files.values())))
    (group,) = results
    lineage = next(a for a in group.audits if a.strategy == "lineage")
    return lineage.tokens


def msgspec_builtins(report: Any) -> Any:
    import msgspec
    return msgspec.to_builtins(report)


def test_a_message_written_as_several_records_counts_its_last_values_once() -> None:
    rows = [INIT] + [asst(f"u{i}", "msg_1", [{"type": "text", "text": f"block {i}"}]) for i in range(3)]
    for i, row in enumerate(rows[1:], 1):
        row["message"]["usage"] = {"input_tokens": 10, "output_tokens": 5 * i, "cache_read_input_tokens": 100}
    relays = run(rows)
    assert [(r.input_tokens, r.output_tokens) for r in relays if isinstance(r, R.Usage)] == [(10, 15)]
    t = Tally()
    t.feed(relays + relays)  # the same message given twice: counted once
    assert (t.run.messages, t.run.output_tokens, t.run.cache_read_input_tokens) == (1, 15, 100)


@pytest.mark.parametrize(("name", "partial"), [
    ("SimonErich__obers_ui__.broins__tmp__drivers__claude__last_raw_stream@014042a4.jsonl", False),
    ("fluskapp__flusk-dev__test__fixtures__claude-stream.jsonl", True)])
def test_plain_stream_json_says_its_per_message_counts_are_lower_bounds_and_trusts_the_results(
        name: str, partial: bool) -> None:
    """Without partial messages, each assistant frame carries its message's first output count (3, 4 ...);
    the result's modelUsage has the run's totals: the report keeps both and says which is right. With
    partial messages (message_delta's final usage) the per-message sums equal the result's totals."""
    raw = (FIXTURE_STREAM_JSON / name).read_bytes()
    want: Counter[str] = Counter()
    for line in raw.splitlines():
        obj = json.loads(line)
        if obj.get("type") == "result":
            for u in obj.get("modelUsage", {}).values():
                want.update({k: u.get(k, 0) for k in ("inputTokens", "outputTokens", "cacheReadInputTokens",
                                                       "cacheCreationInputTokens")})
    report = usage_report(translate_files({name: raw})[0].relays)
    rep = report.reported
    assert rep is not None
    assert (rep.input_tokens, rep.output_tokens, rep.cache_read_input_tokens, rep.cache_creation_input_tokens) == (
        want["inputTokens"], want["outputTokens"], want["cacheReadInputTokens"], want["cacheCreationInputTokens"])
    ours = (report.run.input_tokens, report.run.output_tokens, report.run.cache_read_input_tokens,
            report.run.cache_creation_input_tokens)
    if partial:
        assert ours == (rep.input_tokens, rep.output_tokens, rep.cache_read_input_tokens,
                        rep.cache_creation_input_tokens)
        assert report.note is None
    else:
        assert report.run.output_tokens < rep.output_tokens
        assert report.note is not None and "the results' totals are right" in report.note
    ws = model.Workspace()
    for _ in ws.load(raw):
        pass
    main = next(v for v in ws.lanes if v.id == "main")
    assert main.reported.output_tokens == rep.output_tokens and main.usage_note == report.note
    # session transcripts carry final counts: no note there
    session = FIXTURE_SESSIONS / "marot__spotter/test/fixtures/transcripts/short.jsonl"
    assert usage_report(translate_files({"s.jsonl": session.read_bytes()})[0].relays).note is None


def test_a_model_with_no_known_price_says_so_and_borrows_none() -> None:
    path = FIXTURE_STREAM_JSON / "colonelpanik__overseer__docs__superpowers__claude-stream.jsonl"
    relays = translate_files({"c.jsonl": path.read_bytes()})[0].relays
    report = usage_report(relays)
    assert "claude-opus-5" in report.run.unpriced and report.run.est_cost_usd is None
    assert estimate("claude-opus-5", 1000, 1000) is None
    assert report.run.cost_note() == "no known price for claude-opus-5: its tokens are not in the estimate"
    ws = model.Workspace()
    for _ in ws.load(path.read_bytes()):
        pass
    main = next(v for v in ws.lanes if v.id == "main")
    assert main.unpriced == ["claude-opus-5"] and main.est_cost_usd is None


# make test installs ccusage, pinned, into tools/ccusage/ (its package.json); CCUSAGE_DIR names another.
CCUSAGE = next((str(p) for p in (
    Path(os.environ.get("CCUSAGE_DIR", ROOT / "tools" / "ccusage")) / "node_modules" / ".bin" / "ccusage",)
    if p.exists()), None) or shutil.which("ccusage")


@pytest.mark.skipif(CCUSAGE is None, reason="ccusage is not installed: make test installs it into tools/ccusage/ "
                    "(or CCUSAGE_DIR=a folder where ccusage 20.0.24 is installed)")
@pytest.mark.parametrize("group", _session_groups(), ids=lambda g: g[0].name)
def test_ccusage_agrees_on_per_session_totals(group: list[Path]) -> None:
    """ccusage --offline over the session laid out as ~/.claude/projects/: its input, output and
    cache totals equal the sums of our usage relays. Where they differ, we are right: a message
    whose record is repeated without its requestId (duplicate-assistant-response.jsonl) is one API
    message, which ccusage counts twice (it de-duplicates only on message id + request id)."""
    with tempfile.TemporaryDirectory() as home:
        project = Path(home) / "projects" / "p"
        for p in group:
            dest = project / p.relative_to(group[0].parent)
            dest.parent.mkdir(parents=True, exist_ok=True)
            # ccusage 20.0.24 drops, silently, every record whose timestamp has microseconds (the
            # 1.0.35 sidechain.jsonl fixture: it reports 0 tokens); cut to milliseconds, it agrees
            dest.write_bytes(re.sub(rb'("timestamp":"[0-9T:.-]{23})[0-9]{3}Z"', rb'\1Z"', p.read_bytes()))
        out = subprocess.run([str(CCUSAGE), "session", "--json", "--offline", "--no-cost"], capture_output=True,
                             env={**os.environ, "CLAUDE_CONFIG_DIR": home}, timeout=120, check=True).stdout
    found = json.loads(out)
    sessions = found.get("session") or found.get("sessions") or []  # 20.0.24 says "session"
    files = {str(p.relative_to(FIXTURE_SESSIONS)): p.read_bytes() for p in group}
    run_ = usage_report([r for res in translate_files(files) for r in res.relays]).run
    theirs: defaultdict[str, int] = defaultdict(int)
    for s in sessions:
        for k in ("inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens"):
            theirs[k] += int(s.get(k) or 0)
    ours = (run_.input_tokens, run_.output_tokens, run_.cache_read_input_tokens, run_.cache_creation_input_tokens)
    got = (theirs["inputTokens"], theirs["outputTokens"], theirs["cacheReadTokens"], theirs["cacheCreationTokens"])
    if group[0].name == "duplicate-assistant-response.jsonl":
        # line 3 repeats msg_01R62tkBs9tw5X76JmpWXYbc's record without its requestId: ccusage adds its
        # usage (4 in, 5 out, 16,114 cache write) a second time; it is one API message, counted once
        assert tuple(a - b for a, b in zip(got, ours, strict=True)) == (4, 5, 0, 16114)
        return
    assert got == ours
