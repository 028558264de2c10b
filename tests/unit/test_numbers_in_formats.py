"""Numbers and times from the input as the output formats allow: token counts past 64 bits are
clamped (and said) where OTLP's int64 and protobuf's varints cannot hold them, a negative one
never makes the protobuf encoder loop; a sub-agent timed before its spawning call stays inside
its parent's span (clipped, and said); a length no run can have reads as "more than N years"."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from _corpus import SESSION_FILES, session_rel
from _run_lines import AGENT, call, heartbeat, init, run
from _within import within

from relayscope import export, meaning, otlp
from relayscope import spans as S
from relayscope.cli.library import _duration
from relayscope.subagents import LaneStates
from relayscope.web import rowinfo

INT64 = (-(2**63), 2**63 - 1)
HUGE = 10**30


def _tokens_run(tokens: dict[str, int]) -> bytes:
    lines = [
        {"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-x"},
        {"type": "assistant", "session_id": "s1",
         "message": {"id": "m1", "model": "claude-x", "content": [{"type": "text", "text": "hi"}], "usage": tokens}},
        {"type": "result", "subtype": "success", "session_id": "s1", "usage": tokens},
    ]
    return "\n".join(json.dumps(x) for x in lines).encode() + b"\n"


def _otlp_spans(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def _ints(attrs: list[dict[str, Any]]) -> dict[str, int]:
    return {a["key"]: int(a["value"]["intValue"]) for a in attrs if "intValue" in a["value"]}


@pytest.mark.parametrize("tokens", [
    {"input_tokens": HUGE, "output_tokens": -HUGE, "cache_read_input_tokens": 2**64},
    {"input_tokens": 2**63, "output_tokens": 5},
    {"input_tokens": -(2**63) - 1, "output_tokens": -5},
])
def test_token_counts_past_int64_are_clamped_and_said_in_otlp_json(tokens: dict[str, int]) -> None:
    doc = json.loads(export.otlp(export.runs(_tokens_run(tokens))))
    spans = _otlp_spans(doc)
    clamped = [s for s in spans if any(a["key"] == "relayscope.clamped" for a in s["attributes"])]
    assert clamped, "the spans that carried a count past int64 say so"
    for s in spans:
        for key, v in _ints(s["attributes"]).items():
            assert INT64[0] <= v <= INT64[1], (s["name"], key, v)
    chat = next(s for s in spans if s["name"].startswith("chat"))
    said = next(a["value"]["stringValue"] for a in chat["attributes"] if a["key"] == "relayscope.clamped")
    assert "gen_ai.usage.input_tokens=" in said and "clamped" in said
    assert len(said) < 600  # a 30-digit count is shown cut, never as all its digits


def _within(seconds: float, fn: Callable[[], Any]) -> Any:
    return within(seconds, fn, "still running: the protobuf encoder loops")


def test_a_negative_count_past_int64_never_makes_the_protobuf_encoder_loop() -> None:
    assert isinstance(_within(5, lambda: otlp._varint(-HUGE)), ValueError)
    with pytest.raises(ValueError):
        otlp._varint(2**64)
    assert otlp._varint(-1) == b"\xff" * 9 + b"\x01"  # int64 -1: ten bytes, as protobuf writes it


def test_the_protobuf_request_of_huge_counts_parses_with_the_reference_schema() -> None:
    pb2 = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    runs = export.runs(_tokens_run({"input_tokens": HUGE, "output_tokens": -HUGE}))
    spans = export.Spans(export.writer("otlp", lambda _b: None, 0.0))
    batches = []
    for run_, items, _done in export._replay(runs):
        batches.append((spans.resource(run_), spans.of(run_, items)))
    body = _within(5, lambda: otlp.encode(batches))
    assert isinstance(body, bytes), body
    req = pb2.ExportTraceServiceRequest.FromString(body)
    got = [s for rs in req.resource_spans for ss in rs.scope_spans for s in ss.spans]
    chat = next(s for s in got if s.name.startswith("chat"))
    attrs = {a.key: a.value for a in chat.attributes}
    assert attrs["gen_ai.usage.input_tokens"].int_value == INT64[1]
    assert attrs["gen_ai.usage.output_tokens"].int_value == INT64[0]
    assert "relayscope.clamped" in attrs


# -- a child inside its parent ------------------------------------------------------------------

def _family() -> list[Path]:
    main = next(p for p in SESSION_FILES if p.name == "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
    return [main, *sorted(main.with_suffix("").glob("subagents/*.jsonl"))]


def _earlier(data: bytes, hours: float) -> bytes:
    def back(m: re.Match[bytes]) -> bytes:
        t = datetime.fromisoformat(m.group(1).decode().replace("Z", "+00:00")) - timedelta(hours=hours)
        return b'"timestamp":"' + t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3].encode() + b'Z"'
    return re.sub(rb'"timestamp":"([^"]+)"', back, data)


def test_a_sub_agent_timed_before_its_spawning_call_stays_inside_its_parent_clipped_and_said() -> None:
    files = {session_rel(p): _earlier(p.read_bytes(), 5) if "subagents" in p.parts else p.read_bytes()
             for p in _family()}
    runs = export.runs(files)
    spans = _otlp_spans(json.loads(export.otlp(runs)))
    by_id = {s["spanId"]: s for s in spans}
    children = [s for s in spans if s.get("parentSpanId") in by_id]
    assert len(children) > 50
    for s in children:
        parent = by_id[s["parentSpanId"]]
        assert int(parent["startTimeUnixNano"]) <= int(s["startTimeUnixNano"]), (s["name"], parent["name"])
        assert int(s["endTimeUnixNano"]) <= int(parent["endTimeUnixNano"]), (s["name"], parent["name"])
    root = next(s for s in spans if "parentSpanId" not in s)
    notes = next(a["value"]["stringValue"] for a in root["attributes"] if a["key"] == "relayscope.notes")
    assert "timed before the lane began" in notes and "clipped" in notes
    trace = json.loads(export.chrome_trace(runs))
    assert any("clipped" in n for n in trace["otherData"]["notes"])
    # the same input as recorded (nothing earlier than its call): nothing clipped, nothing said
    plain = export.runs({session_rel(p): p.read_bytes() for p in _family()})
    assert not any("clipped" in n for r in plain for n in r.timeline.notes)


# -- lengths no run has -------------------------------------------------------------------------

@pytest.mark.parametrize(("seconds", "words"), [
    (1e308, "more than 1,000 years"), (float("inf"), "more than 1,000 years"),
    (3 * 365.25 * 86400 + 5, "more than 3 years"), (365.25 * 86400, "more than 1 year"),
])
def test_a_length_past_a_year_is_said_in_years_by_every_duration_formatter(seconds: float, words: str) -> None:
    assert meaning.elapsed_words(seconds) == words
    assert S.duration_words(seconds, S.TIME) == words
    assert rowinfo.duration(seconds) == words
    assert _duration(seconds) == words
    assert meaning.elapsed_words(3725) == "1h 02m" and S.duration_words(3725, S.TIME) == "1h 02m"


def test_a_heartbeat_of_1e308_seconds_reads_as_more_than_1000_years() -> None:
    beat = heartbeat(AGENT, 0, 30) | {"elapsed_time_seconds": 1e308}
    relays = run([init(), call("a-1", "m1", AGENT, "Agent", {"subagent_type": "Explore", "description": "map"}),
                  beat])
    states = LaneStates()
    states.feed(relays)
    assert states.words() == {AGENT: "running, more than 1,000 years"}
    words = meaning.summarize("tool_progress", None, {"heartbeat": True, "elapsed_time_seconds": 1e308})
    assert words == "heartbeat · tool running, more than 1,000 years"
