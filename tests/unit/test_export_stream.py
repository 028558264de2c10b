"""``export`` and ``stats`` as the input is read: the lost blocks the audit finds (a block a refusal
fallback withdrew is retracted, never lost), each one in the output even when its lane's span was
already written; what a long run holds stays bounded; a folder read a session at a time; span ids
unique when a capture repeats its ids, and the same however the input is read; a lane's wall time
from its first record to its last, the same in stats, both exports and the page's axis.

Expectations come from the audit (the lost blocks), the raw records (timestamps) or the rule
itself (every id once)."""

from __future__ import annotations

import collections
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON, REAL_FILES, SESSION_FILES, sweep
from test_meaning import REFUSAL

from relayscope import export
from relayscope import spans as S
from relayscope.multifile import audit_input, audit_lines
from relayscope.wire import split_lines

DAY = 1_780_000_000.0
STRATEGIES = ["none", "index", "fingerprint", "lineage"]
AGENTS = FIXTURE_STREAM_JSON / "DragonelRoland__self-agents__.agent__claude_output.jsonl"
PARALLEL = next(FIXTURE_SESSIONS.rglob("ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"))


def _family(main: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in [main, *sorted(main.with_suffix("").glob("subagents/*"))]}


def _lost(source: bytes | dict[str, bytes], strategy: str) -> collections.Counter[str]:
    return collections.Counter(m.text for _, items, _ in export.stream(source, strategy) for m in items
                               if isinstance(m, S.Mark) and m.kind == "lost")


def _spans(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def _attrs(attrs: list[dict[str, Any]]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in attrs}


# -- lost blocks ------------------------------------------------------------------------------

REFUSAL_TEXT = b"\n".join(json.dumps(r).encode() for r in REFUSAL) + b"\n"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_withdrawn_block_is_retracted_never_lost(strategy: str) -> None:
    (audit,) = audit_lines(split_lines(REFUSAL_TEXT), [strategy])
    assert _lost(REFUSAL_TEXT, strategy) == collections.Counter(audit.lost_keys)
    assert _lost({"refusal.jsonl": REFUSAL_TEXT}, strategy) == collections.Counter(audit.lost_keys)
    (run,) = export.runs(REFUSAL_TEXT, strategy)
    assert any("2 block(s) retracted" in n for n in run.timeline.notes)


@pytest.mark.parametrize("path", sweep(REAL_FILES, ids=lambda p: p.name))
@pytest.mark.parametrize("strategy", ["index", "lineage"])
def test_the_lost_blocks_of_a_streamed_export_are_the_audits(path: Path, strategy: str) -> None:
    data = path.read_bytes()
    (audit,) = audit_lines(split_lines(data), [strategy])
    assert _lost(data, strategy) == collections.Counter(audit.lost_keys)


@pytest.mark.parametrize("strategy", ["index", "lineage"])
def test_the_lost_blocks_of_a_session_folder_are_the_audits(strategy: str) -> None:
    files = _family(PARALLEL)
    want = collections.Counter(k for a in audit_input(files, [strategy]) for k in a.audits[0].lost_keys)
    assert _lost(files, strategy) == want


def test_the_lost_blocks_are_the_same_without_64_bit_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    data = AGENTS.read_bytes()  # Pyodide's hashes have 32 bits: its digests are BLAKE2b
    wide = _lost(data, "index")
    monkeypatch.setattr(export.live, "_WIDE", False)
    assert _lost(data, "index") == wide and sum(wide.values()) > 10


def _timed(n: int) -> str:
    return f"2026-03-01T10:00:{n:02d}Z"


def _late_loss() -> bytes:
    """A sub-agent whose first block the ``index`` strategy loses; its lane ends (the Task's result)
    long before the input does, so the block is found lost after the lane's span was written."""
    def asst(n: int, mid: str, blocks: list[dict[str, Any]], lane: str | None = None) -> dict[str, Any]:
        return {"type": "assistant", "parent_tool_use_id": lane, "session_id": "s-late", "timestamp": _timed(n),
                "message": {"id": mid, "role": "assistant", "model": "m", "content": blocks}}
    recs = [{"type": "system", "subtype": "init", "session_id": "s-late", "model": "m", "tools": [],
             "timestamp": _timed(0)},
            asst(1, "m1", [{"type": "tool_use", "id": "toolu_T", "name": "Task",
                            "input": {"description": "d", "prompt": "p", "subagent_type": "x"}}]),
            asst(2, "s1", [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "toolu_T"),
            {"type": "user", "parent_tool_use_id": None, "session_id": "s-late", "timestamp": _timed(3),
             "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_T",
                                                       "content": "ok"}]}},
            asst(4, "m2", [{"type": "text", "text": "done"}]),
            {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "session_id": "s-late",
             "timestamp": _timed(5)}]
    return b"\n".join(json.dumps(r).encode() for r in recs) + b"\n"


def test_a_block_found_lost_after_its_lane_ended_is_an_event_of_the_root() -> None:
    data = _late_loss()
    (audit,) = audit_lines(split_lines(data), ["index"])
    assert audit.lost_keys == ["text 'a' in s1"]
    spans = _spans(json.loads(export.otlp(export.runs(data, "index"), DAY)))
    events = [(s, _attrs(e["attributes"])) for s in spans for e in s.get("events", []) if e["name"] == "lost block"]
    assert len(events) == 1
    (span, attrs), = events
    assert "parentSpanId" not in span and attrs["relayscope.lane"] == "toolu_T"  # the root, naming the lane
    trace = json.loads(export.chrome_trace(export.runs(data, "index"), DAY))
    (mark,) = [e for e in trace["traceEvents"] if e["name"] == "lost block"]
    assert mark["args"]["lane"] == "toolu_T"


def test_a_block_lost_again_later_is_said_once_as_the_audit_counts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for part in (export.live, export.reading):  # the watch, and the source that asks it
        monkeypatch.setattr(part, "LOST_AFTER", 2)  # decided long before its copy comes
    data = _late_loss() * 3
    (audit,) = audit_lines(split_lines(data), ["index"])
    assert _lost(data, "index") == collections.Counter(audit.lost_keys) == {"text 'a' in s1": 1}


# -- bounded ----------------------------------------------------------------------------------

def _many_agents(n: int) -> bytes:
    """stream-json with ``n`` sub-agents one after another, each with a text block and a result."""
    recs: list[dict[str, Any]] = [{"type": "system", "subtype": "init", "session_id": "s-many", "model": "m",
                                   "tools": []}]
    for k in range(n):
        tid = f"toolu_{k:06d}"
        recs += [{"type": "assistant", "parent_tool_use_id": None, "session_id": "s-many",
                  "message": {"id": f"m{k}", "role": "assistant", "model": "m", "content": [
                      {"type": "tool_use", "id": tid, "name": "Task",
                       "input": {"description": f"d{k}", "prompt": "p", "subagent_type": "x"}}]}},
                 {"type": "assistant", "parent_tool_use_id": tid, "session_id": "s-many",
                  "message": {"id": f"s{k}", "role": "assistant", "model": "m",
                              "content": [{"type": "text", "text": f"working on {k} " * 20}]}},
                 {"type": "user", "parent_tool_use_id": None, "session_id": "s-many",
                  "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid,
                                                           "content": "ok"}]}}]
    return b"\n".join(json.dumps(r).encode() for r in recs) + b"\n"


@pytest.mark.parametrize("strategy", ["lineage", "index"])  # index loses blocks: they wait, then go
def test_what_a_long_run_holds_stays_within_its_bounds(monkeypatch: pytest.MonkeyPatch, strategy: str) -> None:
    monkeypatch.setattr(export.live, "SEEN_KEPT", 64)
    for part in (export.live, export.reading):
        monkeypatch.setattr(part, "LOST_AFTER", 32)
    monkeypatch.setattr(export.reading, "YIELD_AFTER", 8)  # looked at often
    data = _many_agents(600)
    held: list[tuple[int, int, int, int, int]] = []
    lost = 0
    for live, items, done in export.stream(data.splitlines(keepends=True), strategy):  # a line at a time
        b, w = live.builder, live.watch
        assert b is not None and w is not None
        held.append((len(b._lanes), len(w.emitted.new) + len(w.emitted.old), len(w.pending),
                     len(w.keys.open_blocks), len(w.order)))
        lost += sum(1 for m in items if isinstance(m, S.Mark) and m.kind == "lost")
        if done and strategy == "lineage":
            assert len(b.tracks) == 601  # every lane was seen; only the open ones were held
    (audit,) = audit_lines(split_lines(data), [strategy])
    assert lost == audit.lost and len(held) > 10
    assert max(h[0] for h in held) <= 2  # main and the sub-agent at work
    assert max(h[1] for h in held) <= 2 * 64
    assert max(h[2] for h in held) <= 2 * 32 and max(h[4] for h in held) <= 2 * 32
    assert max(h[3] for h in held) <= export.OPEN_KEPT


def test_a_folder_is_read_a_session_at_a_time() -> None:
    files = {**_family(PARALLEL), "other.jsonl": AGENTS.read_bytes()}
    events: list[str] = []

    def read(name: str) -> bytes:
        events.append(f"read {Path(name).name}")
        return files[name]
    for live, _items, done in export.stream(files, "lineage", read=read):
        if done:
            events.append(f"done {Path(live.name or '').name}")
    assert events.index(f"done {PARALLEL.name}") < events.index("read other.jsonl")
    assert events[-1] == "done other.jsonl"
    whole = export.export(export.runs(files), "otlp", DAY)
    streamed: list[bytes] = []
    export.write(files, "otlp", streamed.append, untimed_start=DAY)
    assert b"".join(streamed) == whole


# -- ids --------------------------------------------------------------------------------------

def test_span_ids_are_unique_when_a_capture_repeats_its_ids_and_the_same_however_it_is_read() -> None:
    data = AGENTS.read_bytes() * 2  # the same capture twice: every tool and message id again
    whole = _spans(json.loads(export.otlp(export.runs(data), DAY)))
    ids = [s["spanId"] for s in whole]
    assert len(ids) == len(set(ids)) > 100
    assert all(s["parentSpanId"] in set(ids) for s in whole if "parentSpanId" in s)
    by_line: list[bytes] = []
    export.write(data.splitlines(keepends=True), "otlp", by_line.append, untimed_start=DAY)
    assert [s["spanId"] for s in _spans(json.loads(b"".join(by_line)))] == ids


# -- wall time --------------------------------------------------------------------------------

def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def test_a_lanes_wall_time_runs_from_its_first_record_to_its_last_everywhere() -> None:
    """The session's records run from 13:10:51 to a /exit at 15:09 (its last span ends at 13:50):
    a session left open and closed later lasted that long; the wait is idle."""
    files = _family(PARALLEL)
    stamps = [_seconds(r["timestamp"]) for r in map(json.loads, split_lines(files[str(PARALLEL)]))
              if r.get("timestamp")]
    first, last = min(stamps), max(stamps)
    runs = export.runs(files)
    (fig,) = export.figures(runs)
    main = fig["lanes"][0]
    assert last - first > 7000 and main["lane"] == "main"
    assert main["wall"] == pytest.approx(last - first, abs=0.001)
    assert fig["run"]["wall"] == main["wall"]
    tl = runs[0].timeline
    busy_until = max([s.end for s in tl.spans if s.kind == "tool"] + [c.end for c in tl.calls])
    assert main["longest_idle"] == pytest.approx(last - busy_until, abs=0.001)  # the wait for the /exit
    assert main["tools"] + main["model_wait"] + main["idle"] == pytest.approx(main["wall"], abs=0.003)
    root = next(s for s in _spans(json.loads(export.otlp(runs, DAY))) if "parentSpanId" not in s)
    assert int(root["startTimeUnixNano"]) / 1e9 == pytest.approx(first, abs=1e-6)
    assert int(root["endTimeUnixNano"]) / 1e9 == pytest.approx(last, abs=1e-6)
    trace = json.loads(export.chrome_trace(runs, DAY))
    (agent,) = [e for e in trace["traceEvents"] if e.get("cat") == "agent" and e["args"]["lane"] == "main"]
    assert agent["ts"] / 1e6 == pytest.approx(first, abs=1e-6)
    assert (agent["ts"] + agent["dur"]) / 1e6 == pytest.approx(last, abs=1e-6)
    assert (tl.start, tl.end) == (pytest.approx(first, abs=1e-6), pytest.approx(last, abs=1e-6))  # the page's axis


@pytest.mark.parametrize("path", sweep(SESSION_FILES, ids=lambda p: p.name))
def test_stats_read_as_they_come_fold_the_gaps_the_page_folds(path: Path) -> None:
    """The folded gaps of a session file read a line at a time (kept as the relays pass) are the
    ones the page's timeline gives (``folds.of_run``), and so are a folder's."""
    data = path.read_bytes()
    (whole,) = export.figures(export.runs(data))
    (streamed,) = [export.run_figures(live) for live, _, done in export.stream(data.splitlines(keepends=True))
                   if done]
    assert streamed == whole


def test_a_session_folder_folds_its_gaps_as_the_page_does() -> None:
    files = _family(PARALLEL)
    (whole,) = export.figures(export.runs(files))
    (streamed,) = [export.run_figures(live) for live, _, done in export.stream(files) if done]
    assert streamed == whole and [b["label"] for b in whole["folds"]["breaks"]] == [
        "7m 51s idle", "7m 10s idle", "1h 15m idle"]


def test_a_folders_run_counts_the_time_of_files_read_out_of_time_order() -> None:
    """Two sub-agent files without their session: read one after the other, the later one first
    (their relays do not come in time order); they never ran at once, so the run's time in tools
    is the sum of theirs."""
    files = {str(p): p.read_bytes() for p in sorted(PARALLEL.with_suffix("").glob("subagents/*.jsonl"))}
    (fig,) = [export.run_figures(live) for live, _, done in export.stream(files) if done]
    agents = [ln for ln in fig["lanes"] if ln["lane"] != "main"]
    assert len(agents) == 2 and fig["run"]["overlap"]["parallel_tools"] == max(
        ln["overlap"]["parallel_tools"] for ln in agents)
    assert fig["run"]["tools"] == pytest.approx(sum(ln["tools"] for ln in agents), abs=0.002)
    assert fig["run"]["tools"] + fig["run"]["model_wait"] + fig["run"]["idle"] == pytest.approx(fig["run"]["wall"],
                                                                                                abs=0.003)
