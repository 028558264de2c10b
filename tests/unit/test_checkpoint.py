"""Translator checkpoints (``Translator.checkpoint`` / ``restore``): a translator restored from a
checkpoint goes on exactly as the one it was taken from, for every strategy, however often and in
whatever order checkpoints are restored, while the translator they were taken from goes on too."""

from __future__ import annotations

import json
import random
from pathlib import Path

import _gen
import pytest
from _corpus import FIXTURE_STREAM_JSON, ROOT, SEEDS
from hypothesis import given
from hypothesis import strategies as st
from test_properties import transcripts

from relayscope import trace as T
from relayscope._bounded import Recent, RecentMap
from relayscope.formats.session import SessionTranslator
from relayscope.lanes import LaneTracker
from relayscope.translator import STRATEGIES, LineageDedup, Translator

INPUTS = sorted(FIXTURE_STREAM_JSON.glob("*.jsonl")) + sorted(SEEDS.glob("*.ndjson")) + [
    ROOT / "static" / "examples" / "real-streaming.jsonl"]


def _stream(index: int, kind: str, **fields: object) -> str:
    return json.dumps({"type": "stream_event", "parent_tool_use_id": None,
                       "event": {"type": kind, "index": index, **fields}})


# A streamed message whose tool_use is started again at its index (the first record stays in the
# message's tools only; the snapshot naming it is reported as an internal error, which the
# checkpoints must carry too), text deltas, block stops, a sub-agent, a turn end, a bad line.
STREAMED = [
    json.dumps({"type": "system", "subtype": "init", "session_id": "s"}),
    json.dumps({"type": "stream_event", "parent_tool_use_id": None,
                "event": {"type": "message_start", "message": {"id": "m1", "usage": {"input_tokens": 1}}}}),
    _stream(0, "content_block_start", content_block={"type": "tool_use", "id": "t1", "name": "Bash"}),
    _stream(0, "content_block_delta", delta={"type": "input_json_delta", "partial_json": '{"a":'}),
    _stream(0, "content_block_start", content_block={"type": "tool_use", "id": "t2", "name": "Task"}),
    _stream(0, "content_block_delta", delta={"type": "input_json_delta", "partial_json": '{"b": 1}'}),
    _stream(1, "content_block_start", content_block={"type": "text", "text": "he"}),
    _stream(1, "content_block_delta", delta={"type": "text_delta", "text": "llo"}),
    json.dumps({"type": "assistant", "message": {"id": "m1", "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"a": 1}},
        {"type": "text", "text": "hello, world"}]}, "parent_tool_use_id": None}),
    _stream(0, "content_block_stop"),
    _stream(1, "content_block_stop"),
    json.dumps({"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "sub"}]}}),
    json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t2",
                                                         "content": "done"}]}}),
    json.dumps({"type": "result", "subtype": "success", "result": "ok"}),
    json.dumps({"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "again"}]}}),
    "{not json",
]


def _inputs() -> list[tuple[str, list[bytes]]]:
    return [(p.name, p.read_bytes().split(b"\n")) for p in INPUTS] + [
        ("streamed", [line.encode() for line in STREAMED])]


def _marked(strategy: str) -> Translator:
    t = Translator(strategy)
    t.marks = T.Marks()  # as the web page's load and its translations again
    return t


WINDOW = 16  # lines translated on from every checkpoint
TO_THE_END = 10  # checkpoints, spread over the input, translated on to its end and finished


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize(("name", "lines"), _inputs(), ids=lambda v: v if isinstance(v, str) else "")
def test_restored_checkpoints_go_on_as_the_whole_translation(name: str, lines: list[bytes], strategy: str) -> None:
    """A checkpoint before every line, restored twice in a shuffled order (what the first restore
    did must not show): from each, the next WINDOW lines give the whole translation's steps and
    relays; from TO_THE_END of them, spread over the input, the rest of the input and its finish do.
    (Every checkpoint to the end would cost the square of the input's lines.)"""
    whole = Translator(strategy, trace=True)
    per_line = [whole.feed_line(line) for line in lines]
    relays = [r for out in per_line for r in out] + whole.finish()
    live = _marked(strategy)
    checkpoints = []
    for k, line in enumerate(lines):  # a checkpoint before every line, the live translator going on
        checkpoints.append((k, live.checkpoint()))
        live.feed_line(line)
    ends = {round(i * (len(lines) - 1) / max(TO_THE_END - 1, 1)) for i in range(TO_THE_END)}
    order = random.Random(name).sample(checkpoints, len(checkpoints))
    for k, cp in order + order[::-1]:
        t = _marked("none")  # a checkpoint's strategy is restored with it
        t.restore(cp)
        t.tracing = True
        if k in ends:
            rest = [r for line in lines[k:] for r in t.feed_line(line)] + t.finish()
            assert t.trace == whole.trace[k:], (name, k)
            assert rest == relays[len(relays) - len(rest):], (name, k)
            assert t.seq == whole.seq
        else:
            got = [r for line in lines[k:k + WINDOW] for r in t.feed_line(line)]
            assert t.trace == whole.trace[k:min(k + WINDOW, len(lines))], (name, k)  # its finish is not reached
            assert got == [r for out in per_line[k:k + WINDOW] for r in out], (name, k)


def test_a_checkpoint_holds_every_attribute() -> None:
    """A new attribute of the translator, a strategy or the lanes must be added to checkpoint and
    restore (or be shown not to need it) before this list is changed."""
    t = Translator("lineage")
    assert set(vars(t)) == {
        "tracing", "trace", "errors", "warnings", "error_count", "warning_count", "internal_errors", "file",
        "lines", "_seq", "_out", "_started", "_scratch", "marks", "strategy_name", "strategy", "lane_events",
        "lanes", "_prev_fp", "_pending", "_lane_msg", "_flushed", "_recent", "_thinking_est",
        # not de-dup state: the load's drift counter, which a restored translator never carries (steps made
        # again from a checkpoint must not count the input's new records twice: tests/unit/test_drift.py)
        "drift"}
    assert set(vars(LineageDedup())) == {"msgs", "tool_ids", "result_ids", "streaming", "_gen"}
    assert set(vars(STRATEGIES["fingerprint"]())) == {"index", "fp", "msg_id"}
    assert set(LaneTracker.__slots__) == {"infer", "lanes", "spawns", "tool_lane", "contexts", "_open",
                                          "_last_bound"}


def test_other_translators_refuse_a_checkpoint() -> None:
    with pytest.raises(TypeError, match="SessionTranslator"):
        SessionTranslator("lineage").checkpoint()


def test_bounded_maps_restore_their_order_and_limit() -> None:
    m: RecentMap[str, int] = RecentMap(3)
    s: Recent[str] = Recent(3)
    for i in range(5):
        m[f"k{i}"] = i
        s.add(f"k{i}")
    m["k3"] = 30  # a new value keeps its key's place
    cm, cs = m.checkpoint(), s.checkpoint()
    m["k9"], m["k2"] = 9, 20
    s.add("k9")
    m2: RecentMap[str, int] = RecentMap()
    s2: Recent[str] = Recent()
    m2.restore(cm)
    s2.restore(cs)
    assert list(m2.items()) == [("k2", 2), ("k3", 30), ("k4", 4)] and list(s2) == ["k2", "k3", "k4"]
    m2["k5"] = 5
    s2.add("k5")
    assert list(m2) == ["k3", "k4", "k5"] and list(s2) == ["k3", "k4", "k5"]  # the oldest leaves, as before


def test_messages_are_shared_until_changed() -> None:
    """Lineage's messages are not copied for a checkpoint: the first change after it copies one."""
    lines = sorted(FIXTURE_STREAM_JSON.glob("*.jsonl"))[0].read_bytes().split(b"\n")  # not filesystem order
    t = _marked("lineage")
    for line in lines[:20]:
        t.feed_line(line)
    strategy = t.strategy
    assert isinstance(strategy, LineageDedup) and strategy.msgs
    (_, keys, msgs), *_ = t.checkpoint()[2]
    assert all(a is b for a, b in zip(msgs, strategy.msgs.values(), strict=True))
    t.feed_line(lines[20])
    assert sum(a is not strategy.msgs.get(k) for k, a in zip(keys, msgs, strict=True)) <= 1


def test_checkpoint_size_counts_entries() -> None:
    path = Path(ROOT / "static" / "examples" / "real-subagents.jsonl")
    t = _marked("lineage")
    sizes = []
    for line in path.read_bytes().split(b"\n"):
        t.feed_line(line)
        sizes.append(t.checkpoint_size())
    assert sizes[0] >= 1 and max(sizes) > 20


@given(st.one_of(_gen.streams(), transcripts()), st.sampled_from(sorted(STRATEGIES)), st.lists(st.integers(0, 99)))
def test_any_input_goes_on_the_same_from_any_checkpoint(lines: list[bytes] | list[str], strategy: str,
                                                        picks: list[int]) -> None:
    """Hostile lines (``_gen``) and generated sub-agent transcripts: checkpoints at every line,
    restored in any order, each go on as the whole translation."""
    whole = Translator(strategy, trace=True)
    relays = [r for line in lines for r in whole.feed_line(line)] + whole.finish()
    live = _marked(strategy)
    checkpoints = []
    for line in lines:
        checkpoints.append(live.checkpoint())
        live.feed_line(line)
    checkpoints.append(live.checkpoint())
    for pick in picks or [0]:
        k = pick % len(checkpoints)
        t = _marked(strategy)
        t.restore(checkpoints[k])
        t.tracing = True
        rest = [r for line in lines[k:] for r in t.feed_line(line)] + t.finish()
        assert t.trace == whole.trace[k:]
        assert rest == relays[len(relays) - len(rest):]
