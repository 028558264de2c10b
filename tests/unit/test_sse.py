"""Arbiter fleet streams: one lane per stream_id, depth kept, usage and done carried."""

from __future__ import annotations

from _corpus import SEEDS

from relayscope import relay as R
from relayscope.analysis import analyze


def fleet(text: str | bytes) -> list[R.Relay]:
    return analyze(text).relays


def test_the_seed_fan_out_gets_a_lane_per_stream() -> None:
    a = analyze((SEEDS / "fleet-parallel.sse").read_bytes())
    assert a.format == "sse" and not a.errors
    starts = {r.lane: r for r in a.relays if isinstance(r, R.LaneStart)}
    assert list(starts) == ["main", "stream-1", "stream-2", "stream-3"]
    assert [starts[k].depth for k in starts] == [0, 1, 1, 1]
    assert starts["stream-2"].agent_type == "researcher_b" and starts["stream-2"].parent_lane == "main"
    text = {r.lane: r.text for r in a.relays if isinstance(r, R.TextDelta) and r.lane != "main"}
    assert text == {"stream-1": "RESULT: Paris...", "stream-2": "RESULT: Berlin...", "stream-3": "RESULT: Rome..."}
    usage = {r.lane: (r.input_tokens, r.output_tokens) for r in a.relays if isinstance(r, R.Usage)}
    assert usage == {"stream-3": (842, 126), "stream-2": (910, 143), "stream-1": (803, 131), "main": (1240, 210)}
    done = a.relays[-1]
    assert isinstance(done, R.TurnComplete) and done.usage == {"input_tokens": 2553, "output_tokens": 610}
    assert [r.lane for r in a.relays if isinstance(r, R.LaneEnd)] == ["stream-3", "stream-2", "stream-1", "main"]
    # agent_start after stream_start opens nothing new, and every line has a step
    assert [s.line for s in a.trace] == list(range(1, a.lines + 1))


def test_relays_point_at_their_data_line() -> None:
    relays = fleet((SEEDS / "fleet-parallel.sse").read_bytes())
    first_text = next(r for r in relays if isinstance(r, R.TextDelta))
    assert first_text.line == 8  # the "data:" line of the first text event


def test_heartbeats_ids_replays_and_bad_data() -> None:
    text = "\n".join([
        ": heartbeat", "",
        "id: 1", "event: stream_start", 'data: {"stream_id":0,"depth":0,"agent":"m"}', "",
        "id: 2", "event: text", 'data: {"stream_id":0,"delta":"hello"}', "",
        "id: 2", "event: text", 'data: {"stream_id":0,"delta":"hello"}', "",  # replayed
        "event: text", "data: {not json", "",
        "event: escalation", 'data: {"stream_id":0,"reason":"why"}', "",
        "event: done", 'data: {"ok":false,"error":"boom"}',  # no final blank line
    ])
    a = analyze(text)
    kinds = [r.type for r in a.relays]
    assert kinds == ["lane_start", "text_delta", "error", "passthrough", "turn_complete"]
    assert [line for line, _ in a.errors] == [16]
    replay = next(s for s in a.trace if s.decision == "skip")
    assert "replayed event id 2" in replay.reason
    done = a.relays[-1]
    assert isinstance(done, R.TurnComplete) and done.is_error and done.result == "boom"
    assert a.trace[0].reason.startswith("comment")


def test_nested_streams_keep_depth_and_parent() -> None:
    text = "\n\n".join([
        'event: stream_start\ndata: {"stream_id":0,"depth":0,"agent":"m"}',
        'event: stream_start\ndata: {"stream_id":1,"depth":1,"agent":"a"}',
        'event: stream_start\ndata: {"stream_id":2,"depth":2,"agent":"b"}',
    ]) + "\n\n"
    starts = {r.lane: r for r in fleet(text) if isinstance(r, R.LaneStart)}
    assert (starts["stream-2"].depth, starts["stream-2"].parent_lane) == (2, "stream-1")


def test_what_no_relay_field_carries_rides_in_extra() -> None:
    meta, *_ = fleet((SEEDS / "fleet-parallel.sse").read_bytes())
    assert isinstance(meta, R.SessionMeta) and meta.extra == {"agent": "index"}
    text = "\n".join([
        "event: done", 'data: {"ok":true,"content":"x","error":"a warning","input_tokens":"many","request_id":"r",'
        '"duration_ms":12,"cost":{"usd":1}}', "",
    ])
    (done,) = [r for r in fleet(text) if isinstance(r, R.TurnComplete)]
    assert (done.result, done.duration_ms, done.session_id, done.usage) == ("x", 12, "r", None)
    assert done.extra == {"error": "a warning", "input_tokens": "many", "cost": {"usd": 1}}
