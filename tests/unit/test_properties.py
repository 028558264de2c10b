"""Property tests over generated event sequences: cumulative and per-block shapes,
interleaved lanes, repeated rows, garbage lines."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from relayscope import relay as R
from relayscope.translator import STRATEGIES, Translator

texts = st.text(min_size=1, max_size=12)


@st.composite
def messages(draw: st.DrawFn, lane: str | None, n: int) -> list[dict[str, Any]]:
    """One API message's events: blocks, in cumulative or per-block shape."""
    blocks: list[dict[str, Any]] = []
    for i in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["text", "thinking", "tool_use"]))
        if kind == "tool_use":
            blocks.append({"type": "tool_use", "id": f"toolu_{lane}_{n}_{i}", "name": "Bash", "input": {"i": i}})
        elif kind == "thinking":
            blocks.append({"type": "thinking", "thinking": f"{draw(texts)} #{n}.{i}"})
        else:
            blocks.append({"type": "text", "text": f"{draw(texts)} #{n}.{i}"})
    cumulative = draw(st.booleans())
    with_id = draw(st.booleans()) or not cumulative
    events = []
    for i in range(len(blocks)):
        content = blocks[: i + 1] if cumulative else [blocks[i]]
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if with_id:
            message["id"] = f"msg_{lane}_{n}"
        event: dict[str, Any] = {"type": "assistant", "message": message}
        if lane is not None or draw(st.booleans()):
            event["parent_tool_use_id"] = lane
        events.append(event)
        if draw(st.integers(0, 5)) == 0:  # a repeated row, as on-disk transcripts have
            events.append(event)
    return events


@st.composite
def transcripts(draw: st.DrawFn) -> list[str]:
    lanes = [None, *[f"toolu_agent{i}" for i in range(draw(st.integers(0, 3)))]]
    streams = []
    for lane in lanes:
        events = []
        for n in range(draw(st.integers(1, 3))):
            events.extend(draw(messages(lane, n)))
        streams.append(events)
    lines = [json.dumps({"type": "system", "subtype": "init", "session_id": "s"})]
    while any(streams):  # interleave the lanes' events, each lane's order kept
        pick = draw(st.sampled_from([s for s in streams if s]))
        lines.append(json.dumps(pick.pop(0)))
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from(["", "garbage", "[1]", '{"type":"future_event"}', '{"type": 5}',
                                               '{"type":"user","message":{"content":null}}', "\ufeff"])))
    if draw(st.booleans()):
        lines.append(json.dumps({"type": "result", "subtype": "success", "result": "ok"}))
    return lines


def tool_ids(lines: list[str]) -> set[str]:
    ids = set()
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("type") == "assistant":
            ids |= {b["id"] for b in obj["message"]["content"] if b["type"] == "tool_use"}
    return ids


@given(transcripts(), st.sampled_from(sorted(STRATEGIES)))
def test_never_raises_and_every_line_is_accounted_for(lines: list[str], strategy: str) -> None:
    t = Translator(strategy, trace=True)
    relays: list[R.Relay] = []
    for line in lines:
        relays.extend(t.feed_line(line))
    relays.extend(t.finish())
    steps = [s for s in t.trace if s.kind != "end of input"]
    assert [s.line for s in steps] == list(range(1, len(lines) + 1))
    assert all(s.decision in ("emit", "partial", "skip", "ignore", "error") for s in steps)
    assert sorted(seq for s in t.trace for seq in s.seqs) == [r.seq for r in relays] == list(range(len(relays)))
    for s in steps:
        if s.decision == "error":
            assert any(isinstance(r, R.Error) and r.line == s.line for r in relays)


@given(transcripts())
def test_lineage_emits_every_tool_use_exactly_once_in_its_lane(lines: list[str]) -> None:
    t = Translator("lineage")
    relays = [r for line in lines for r in t.feed_line(line)]
    emitted = [r for r in relays if isinstance(r, R.ToolUse)]
    assert sorted(r.id for r in emitted) == sorted(tool_ids(lines))
    for r in emitted:  # ids are minted per lane above: toolu_<lane>_...
        lane = r.id.split("_", 1)[1].rsplit("_", 2)[0]
        assert r.lane == ("main" if lane == "None" else lane)


@given(transcripts())
def test_lineage_never_emits_a_whole_text_block_twice(lines: list[str]) -> None:
    t = Translator("lineage")
    whole = [(r.lane, r.text) for line in lines for r in t.feed_line(line)
             if isinstance(r, R.TextDelta | R.ThinkingDelta) and not r.partial]
    assert len(whole) == len(set(whole))


@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_any_line_at_all_is_survived(line: str | bytes) -> None:
    for name in STRATEGIES:
        t = Translator(name, trace=True)
        t.feed_line(line)
        t.finish()
        assert t.trace and t.trace[0].line == 1
