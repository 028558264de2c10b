"""Exports that every viewer reads right: children inside parents whatever lines are missing,
model calls as spans with their usage, siblings apart, no event at ts 0, untimed runs placed and
labelled, figures that add up, timestamps read the same in every time zone and kept in range,
parent cycles broken; and the OTLP protobuf encoder checked against the reference schema.

Expectations come from the raw records (``json``) where the input says them (usage per message),
else from the rule itself (a child's interval within its parent's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON, REAL_FILES, session_rel, sweep

from relayscope import export, otlp

DAY = 1_780_000_000.0  # a fixed untimed start, so the bytes do not depend on today
PARALLEL = next(FIXTURE_SESSIONS.rglob("ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"))
AGENTS = FIXTURE_STREAM_JSON / "DragonelRoland__self-agents__.agent__claude_output.jsonl"


def _otlp(data: bytes | dict[str, bytes]) -> list[dict[str, Any]]:
    doc = json.loads(export.otlp(export.runs(data), DAY))
    return [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def _attrs(span: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}


def _nested(spans: list[dict[str, Any]]) -> None:
    """One root per trace; every parent there; every child within its parent's interval."""
    by_id = {s["spanId"]: s for s in spans}
    assert len([s for s in spans if "parentSpanId" not in s]) == 1
    for s in spans:
        p = by_id.get(s.get("parentSpanId", ""))
        if "parentSpanId" in s:
            assert p is not None, s["name"]
            assert int(p["startTimeUnixNano"]) <= int(s["startTimeUnixNano"]), (p["name"], s["name"])
            assert int(s["endTimeUnixNano"]) <= int(p["endTimeUnixNano"]), (p["name"], s["name"])
        seen = {s["spanId"]}
        while p is not None:  # no parent cycle
            assert p["spanId"] not in seen
            seen.add(p["spanId"])
            p = by_id.get(p.get("parentSpanId", ""))


def _cut_before_result(path: Path) -> bytes:
    """The capture as a killed run leaves it: no ``result`` line, its last lines missing."""
    lines = path.read_bytes().split(b"\n")
    last_use = max(i for i, ln in enumerate(lines) if b'"tool_use"' in ln and b'"assistant"' in ln)
    return b"\n".join(lines[: last_use + 1]) + b"\n"


@pytest.mark.parametrize("path", sweep(REAL_FILES, ids=lambda p: p.name))
def test_children_stay_inside_their_parents_when_the_run_was_cut(path: Path) -> None:
    data = path.read_bytes()
    if b'"tool_use"' not in data:
        pytest.skip("no tool call")
    _nested(_otlp(_cut_before_result(path)))
    _nested(_otlp(data))


@pytest.mark.parametrize("path", sweep(REAL_FILES, ids=lambda p: p.name))
def test_every_event_of_a_lanes_thread_starts_inside_its_span_as_the_devtools_engine_reads_it(path: Path) -> None:
    """The DevTools engine (and speedscope) end a span before its end time: an event that starts at
    the very end of its lane's span (the last call of a cut run) would be a second root."""
    data = path.read_bytes()
    if b'"tool_use"' not in data:
        pytest.skip("no tool call")
    for text in (_cut_before_result(path), data):
        events = json.loads(export.chrome_trace(export.runs(text), DAY))["traceEvents"]
        agents = {e["tid"]: e for e in events if e.get("cat") == "agent"}
        for e in events:
            a = agents.get(e.get("tid"))
            if e["ph"] in ("X", "i") and a is not None and e is not a:
                assert a["ts"] <= e["ts"] < a["ts"] + a["dur"], (e["name"], e["ts"], a["ts"] + a["dur"])


def test_a_cut_run_keeps_its_last_calls_inside_the_main_agent() -> None:
    spans = _otlp(_cut_before_result(AGENTS))
    root = next(s for s in spans if "parentSpanId" not in s)
    last = max(int(s["endTimeUnixNano"]) for s in spans)
    assert int(root["endTimeUnixNano"]) == last  # the root is the longest: no child outlives it


def _raw_usage(path: Path) -> dict[str, dict[str, int]]:
    """Per message id, its last usage as the capture gives it."""
    out: dict[str, dict[str, int]] = {}
    for raw in path.read_bytes().split(b"\n"):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        msg = rec.get("message") if isinstance(rec, dict) and rec.get("type") == "assistant" else None
        if isinstance(msg, dict) and isinstance(msg.get("usage"), dict) and isinstance(msg.get("id"), str):
            out[msg["id"]] = msg["usage"]
    return out


def test_model_calls_are_chat_spans_whose_input_counts_the_cache() -> None:
    usage = _raw_usage(AGENTS)
    chats = [s for s in _otlp(AGENTS.read_bytes()) if _attrs(s)["gen_ai.operation.name"] == "chat"]
    assert len(chats) == len(usage) > 5
    for s in chats:
        a = _attrs(s)
        u = usage[a["gen_ai.response.id"]]
        whole = u.get("input_tokens", 0) + u.get("cache_read_input_tokens", 0) + u.get("cache_creation_input_tokens", 0)
        assert int(a["gen_ai.usage.input_tokens"]) == whole == int(a["llm.token_count.prompt"])
        assert int(a["gen_ai.usage.cache_read.input_tokens"]) == u.get("cache_read_input_tokens", 0)
        assert int(a["gen_ai.usage.cache_creation.input_tokens"]) == u.get("cache_creation_input_tokens", 0)
        assert int(a["gen_ai.usage.output_tokens"]) == u.get("output_tokens", 0)
        assert a["openinference.span.kind"] == "LLM" and s["name"].startswith("chat ")
        assert int(s["startTimeUnixNano"]) <= int(s["endTimeUnixNano"])


def test_parallel_calls_are_siblings_on_threads_of_their_own() -> None:
    runs = export.runs({str(p): p.read_bytes() for p in [PARALLEL, *sorted(PARALLEL.with_suffix("").glob("subagents/*.jsonl"))]})
    doc = json.loads(export.chrome_trace(runs, DAY))
    agents = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e["name"] == "Agent"]
    overlapping = [(a, b) for i, a in enumerate(agents) for b in agents[i + 1:]
                   if a["ts"] < b["ts"] + b["dur"] and b["ts"] < a["ts"] + a["dur"]]
    assert overlapping
    for a, b in overlapping:
        assert a["tid"] != b["tid"]  # on one thread a flame chart would draw them as parent and child
    names = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "thread_name"}
    assert any("· parallel" in n for n in names.values())


def test_no_event_sits_at_ts_zero_and_untimed_runs_are_placed_and_labelled() -> None:
    data = AGENTS.read_bytes()
    doc = json.loads(export.chrome_trace(export.runs(data), DAY))
    assert all(e["ts"] > 0 for e in doc["traceEvents"] if e["ph"] != "M")
    assert min(e["ts"] for e in doc["traceEvents"] if e["ph"] != "M") >= DAY * 1e6
    assert "input line order" in doc["otherData"]["axis"] and "1 ms = 1 input line" in doc["otherData"]["axis"]
    spans = _otlp(data)
    assert min(int(s["startTimeUnixNano"]) for s in spans) >= DAY * 1e9
    res = json.loads(export.otlp(export.runs(data), DAY))["resourceSpans"][0]["resource"]["attributes"]
    assert any(a["key"] == "relayscope.axis" and "input line order" in a["value"]["stringValue"] for a in res)


@pytest.mark.parametrize("path", sweep([p for p in REAL_FILES] + sorted(FIXTURE_SESSIONS.rglob("*.jsonl"))[:12],
                                       ids=lambda p: p.name))
def test_stats_parts_add_up_to_the_wall_time(path: Path) -> None:
    for fig in export.figures(export.runs(path.read_bytes())):
        for part in [fig["run"], *fig["lanes"]]:
            assert part["tools"] + part["model_wait"] + part["idle"] == pytest.approx(part["wall"], abs=0.003), part
            assert min(part["tools"], part["model_wait"], part["idle"]) >= 0
            assert set(part["overlap"]) == {"model_and_tools", "parallel_tools"}


def test_stats_say_the_overlaps_on_a_session_with_parallel_agents() -> None:
    files = {str(p): p.read_bytes() for p in [PARALLEL, *sorted(PARALLEL.with_suffix("").glob("subagents/*.jsonl"))]}
    (fig,) = export.figures(export.runs(files))
    assert fig["run"]["overlap"]["parallel_tools"] > 0
    for part in [fig["run"], *fig["lanes"]]:
        assert part["tools"] + part["model_wait"] + part["idle"] == pytest.approx(part["wall"], abs=0.003)


def _session(stamps: list[str], session: str = "s-tz") -> bytes:
    """A small session transcript: a Bash call and its result at the given times."""
    recs = [
        {"type": "user", "sessionId": session, "uuid": "u1", "timestamp": stamps[0],
         "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "sessionId": session, "uuid": "a1", "timestamp": stamps[1],
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-x",
                     "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}],
                     "usage": {"input_tokens": 3, "output_tokens": 4}}},
        {"type": "user", "sessionId": session, "uuid": "u2", "timestamp": stamps[2],
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}},
    ]
    return b"\n".join(json.dumps(r).encode() for r in recs) + b"\n"


def _cli(args: list[str], data: bytes, tmp_path: Path, tz: str) -> subprocess.CompletedProcess[bytes]:
    src = tmp_path / "s.jsonl"
    src.write_bytes(data)
    env = {**os.environ, "TZ": tz}
    return subprocess.run([sys.executable, "-m", "relayscope", *args, str(src)], capture_output=True, env=env)


def test_stamps_without_an_offset_are_utc_whatever_the_time_zone(tmp_path: Path) -> None:
    data = _session(["2026-03-01T10:00:00", "2026-03-01T10:00:01", "2026-03-01T10:00:05"])
    outs = {tz: _cli(["export", "--format", "otlp"], data, tmp_path, tz) for tz in ("UTC", "Asia/Tokyo", "America/Denver")}
    assert len({o.stdout for o in outs.values()}) == 1
    spans = json.loads(outs["UTC"].stdout)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    tool = next(s for s in spans if s["name"] == "execute_tool Bash")
    assert int(tool["startTimeUnixNano"]) == 1772359201 * 10**9  # 2026-03-01T10:00:01Z
    assert b"without a time-zone offset read as UTC" in outs["Asia/Tokyo"].stderr
    stats = {tz: _cli(["stats", "--json"], data, tmp_path, tz).stdout for tz in ("UTC", "Asia/Tokyo")}
    assert len(set(stats.values())) == 1


def test_times_outside_1970_to_2262_are_clamped_and_said(tmp_path: Path) -> None:
    data = _session(["1969-12-31T23:59:00Z", "1969-12-31T23:59:30Z", "2300-01-01T00:00:00Z"])
    got = _cli(["export", "--format", "otlp"], data, tmp_path, "UTC")
    spans = json.loads(got.stdout)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for s in spans:
        for k in ("startTimeUnixNano", "endTimeUnixNano"):
            assert 0 < int(s[k]) < 2**63
    assert b"clamped" in got.stderr
    otlp.encode([([], [export.OSpan(b"t" * 16, b"s" * 8, None, "x", 1, 2**63 - 1, [])])])  # encodes


def _cyclic(kind: str) -> bytes:
    """stream-json whose parent_tool_use_id links loop: a call in the lane it spawns, or two lanes
    each spawned from the other."""
    init = {"type": "system", "subtype": "init", "session_id": "s-cycle", "model": "m", "tools": []}

    def use(lane: str | None, tid: str, mid: str) -> dict[str, Any]:
        return {"type": "assistant", "parent_tool_use_id": lane, "session_id": "s-cycle",
                "message": {"id": mid, "role": "assistant", "model": "m",
                            "content": [{"type": "tool_use", "id": tid, "name": "Task",
                                         "input": {"description": "d", "prompt": "p", "subagent_type": "x"}}]}}

    def result(lane: str | None, tid: str) -> dict[str, Any]:
        return {"type": "user", "parent_tool_use_id": lane, "session_id": "s-cycle",
                "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "ok"}]}}
    if kind == "self":
        recs = [init, use("toolu_A", "toolu_A", "m1"), result("toolu_A", "toolu_A")]
    else:
        recs = [init, use("toolu_B", "toolu_A", "m1"), use("toolu_A", "toolu_B", "m2"), result("toolu_A", "toolu_B"),
                result("toolu_B", "toolu_A")]
    return b"\n".join(json.dumps(r).encode() for r in recs) + b"\n"


@pytest.mark.parametrize("kind", ["self", "two"])
def test_a_parent_cycle_is_broken_and_said(kind: str) -> None:
    data = _cyclic(kind)
    _nested(_otlp(data))
    runs = export.runs(data)
    assert any("cycle" in n for n in runs[0].timeline.notes)
    doc = json.loads(export.chrome_trace(runs, DAY))
    assert any("cycle" in n for n in doc["otherData"]["notes"])
    by_thread: dict[int, list[tuple[int, int]]] = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "X" and e["cat"] != "model":
            by_thread.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_thread.values():  # nested or apart on each thread
        for a in spans:
            for b in spans:
                assert a[1] <= b[0] or b[1] <= a[0] or (a[0] <= b[0] and b[1] <= a[1]) or (b[0] <= a[0] and a[1] <= b[1])


# -- the protobuf encoder against the reference schema ----------------------------------------

@pytest.mark.parametrize("path", [AGENTS, PARALLEL], ids=lambda p: session_rel(p) if p == PARALLEL else p.name)
def test_protobuf_encoding_is_what_the_reference_schema_reads(path: Path) -> None:
    trace_service_pb2 = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    json_format = pytest.importorskip("google.protobuf.json_format")
    runs = export.runs(path.read_bytes())
    spans = export.Spans(export.OtlpJson(lambda _b: None, DAY))
    batches = [(spans.resource(r.live), spans.of(r.live, r.closed)) for r in runs]
    req = trace_service_pb2.ExportTraceServiceRequest()
    req.ParseFromString(otlp.encode(batches))
    assert req.SerializeToString() == otlp.encode(batches)  # every field where the schema puts it
    as_json = json.loads(otlp.encode_json(batches))
    for rs in as_json["resourceSpans"]:  # OTLP/JSON ids are hex; protobuf's JSON mapping wants base64
        for ss in rs["scopeSpans"]:
            for sp in ss["spans"]:
                for k in ("traceId", "spanId", "parentSpanId"):
                    if k in sp:
                        sp[k] = __import__("base64").b64encode(bytes.fromhex(sp[k])).decode()
    assert json_format.Parse(json.dumps(as_json), trace_service_pb2.ExportTraceServiceRequest()) == req
    assert sum(len(ss.spans) for rs in req.resource_spans for ss in rs.scope_spans) > 10


def test_settings_follow_the_otel_variables() -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318/", "OTEL_EXPORTER_OTLP_HEADERS": "a=1,b=x%20y",
           "OTEL_EXPORTER_OTLP_TIMEOUT": "2500"}
    s = otlp.settings(None, ["c=3"], None, env)
    assert s is not None and s.endpoint == "http://127.0.0.1:4318/v1/traces"
    assert s.headers == {"a": "1", "b": "x y", "c": "3"} and s.timeout == 2.5 and s.protocol == otlp.PROTOBUF
    t = otlp.settings(None, [], None, {**env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://h:1/custom",
                                       "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"})
    assert t is not None and t.endpoint == "http://h:1/custom" and t.protocol == otlp.JSON
    assert otlp.settings("http://h:2", [], None, {}).endpoint == "http://h:2/v1/traces"  # type: ignore[union-attr]
    assert otlp.settings(None, [], None, {}) is None
    with pytest.raises(otlp.SettingsError):
        otlp.settings("http://h", [], "grpc", {})


def test_a_collector_that_is_down_gets_the_batch_when_it_is_back() -> None:
    calls: list[bytes] = []
    said: list[str] = []
    answers = [("not reachable (refused)", 0.0), ("the collector answered 503", 2.0), (None, None)]
    s = otlp.Sender(otlp.Settings("http://127.0.0.1:9/v1/traces"), give_up=None, say=said.append,
                    sleep=lambda _t: None)
    s._post = lambda body: (calls.append(body), answers.pop(0))[1]  # type: ignore[method-assign]
    span = export.OSpan(b"t" * 16, b"s" * 8, None, "x", 1, 2, [])
    s.add([("service.name", "claude-code")], [span])
    s.flush()
    assert len(calls) == 3 and len(set(calls)) == 1 and s.sent == 1
    assert "holding 1 span(s)" in said[0] and "delivered" in said[-1]
