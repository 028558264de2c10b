"""lineage's growth-versus-new-block rule (translator.py, "The lineage table"), both ways.

A block grows only while it streams; across assistant events a block never grows. The two
shapes are the real one (one block per event, PROTOCOL.md; every capture in the corpus) and the
seeds' cumulative arrays (seeds/002), written out here because the edge (a block that begins
with the text of an earlier block of its message) is in no capture.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from relayscope import relay as R
from relayscope import trace as T
from relayscope.multifile import audit_lines
from relayscope.translator import (
    NEW_BLOCK,
    SAME_BLOCK,
    STREAM_GREW,
    STREAMED,
    TOOL_ELSEWHERE,
    TOOL_SEEN,
    Translator,
)


def assistant(*blocks: dict[str, Any], msg_id: str | None = "msg_1") -> str:
    message: dict[str, Any] = {"role": "assistant", "content": list(blocks)}
    if msg_id is not None:
        message["id"] = msg_id
    return json.dumps({"type": "assistant", "parent_tool_use_id": None, "session_id": "s", "message": message})


def se(event: dict[str, Any]) -> str:
    return json.dumps({"type": "stream_event", "event": event, "parent_tool_use_id": None, "session_id": "s"})


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def run(lines: list[str]) -> tuple[list[R.Relay], list[T.TraceStep]]:
    t = Translator("lineage", trace=True)
    out = [r for line in lines for r in t.feed_line(line)] + t.finish()
    return out, t.trace


def texts(relays: list[R.Relay]) -> list[tuple[str, bool]]:
    return [(r.text, r.partial) for r in relays if isinstance(r, R.TextDelta)]


def actions(steps: list[T.TraceStep]) -> list[list[tuple[str, str]]]:
    return [[(b.action, b.reason) for b in s.blocks] for s in steps]


def test_real_shape_a_block_beginning_with_an_earlier_block_is_a_new_block() -> None:
    # a former bug: it used to be taken for growth and emitted as the suffix " world"
    lines = [assistant(text("Hello")), assistant(text("Hello world"))]
    relays, steps = run(lines)
    assert texts(relays) == [("Hello", False), ("Hello world", False)]
    assert actions(steps) == [[(NEW_BLOCK.action, NEW_BLOCK.reason)], [(NEW_BLOCK.action, NEW_BLOCK.reason)]]
    assert [b.index for s in steps for b in s.blocks] == [0, 1]
    lineage = next(a for a in audit_lines([line.encode() for line in lines]) if a.strategy == "lineage")
    assert (lineage.blocks, lineage.lost, lineage.duplicated, lineage.unmatched) == (2, 0, 0, 0)


def test_real_shape_the_same_block_again_is_a_duplicate() -> None:
    relays, steps = run([assistant(text("Hello")), assistant(text("Hello"))])
    assert texts(relays) == [("Hello", False)]
    assert actions(steps)[1] == [(SAME_BLOCK.action, SAME_BLOCK.reason)]


def test_real_shape_without_message_id_prefix_is_still_a_new_block() -> None:
    # without message.id the first-block fingerprint names the message (seeds/000): both blocks
    # fall in one message when their first 64 characters agree
    first = "x" * 70
    relays, _ = run([assistant(text(first), msg_id=None), assistant(text(first + " and more"), msg_id=None)])
    assert texts(relays) == [(first, False), (first + " and more", False)]


def test_cumulative_shape_repeats_are_skipped_and_a_prefixed_new_block_is_emitted_whole() -> None:
    lines = [assistant(text("Hello")),
             assistant(text("Hello"), text("Hello world")),
             assistant(text("Hello"), text("Hello world"), {"type": "tool_use", "id": "t1", "name": "Bash",
                                                            "input": {}})]
    relays, steps = run(lines)
    assert texts(relays) == [("Hello", False), ("Hello world", False)]
    assert [r.id for r in relays if isinstance(r, R.ToolUse)] == ["t1"]
    assert "(cumulative)" in steps[1].reason and "(cumulative)" in steps[2].reason
    assert [a for a, _ in actions(steps)[2]] == [SAME_BLOCK.action, SAME_BLOCK.action, NEW_BLOCK.action]


def test_cumulative_shape_a_changed_block_at_a_known_position_is_not_skipped() -> None:
    # position pairs blocks only while they are the same block: a different second block is new
    relays, _ = run([assistant(text("A"), text("B")), assistant(text("A"), text("C"))])
    assert texts(relays) == [("A", False), ("B", False), ("C", False)]


def test_a_streaming_block_grows_by_the_snapshot_and_only_the_suffix_is_emitted() -> None:
    lines = [se({"type": "message_start", "message": {"id": "msg_1"}}),
             se({"type": "content_block_start", "index": 0, "content_block": text("")}),
             se({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}}),
             assistant(text("Hello"))]
    relays, steps = run(lines)
    assert texts(relays) == [("Hel", True), ("lo", True)]
    assert actions(steps)[3] == [(STREAM_GREW.action, STREAM_GREW.reason.format(n=2))]


def test_a_finished_streamed_block_does_not_grow_a_new_block_that_begins_with_it() -> None:
    lines = [se({"type": "message_start", "message": {"id": "msg_1"}}),
             se({"type": "content_block_start", "index": 0, "content_block": text("")}),
             se({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}}),
             se({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "lo"}}),
             se({"type": "content_block_stop", "index": 0}),
             assistant(text("Hello")),
             assistant(text("Hello again"))]
    relays, steps = run(lines)
    assert texts(relays) == [("Hel", True), ("lo", True), ("Hello again", False)]
    assert actions(steps)[5] == [(STREAMED.action, STREAMED.reason)]
    assert actions(steps)[6] == [(NEW_BLOCK.action, NEW_BLOCK.reason)]


@pytest.mark.parametrize("same_message", [True, False])
def test_tool_use_ids_are_global(same_message: bool) -> None:
    tool = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}
    relays, steps = run([assistant(tool), assistant(tool, msg_id="msg_1" if same_message else "msg_2")])
    assert [r.id for r in relays if isinstance(r, R.ToolUse)] == ["t1"]
    rule = TOOL_SEEN if same_message else TOOL_ELSEWHERE
    assert actions(steps)[1] == [(rule.action, rule.reason)]


def test_a_tool_use_started_again_at_its_index_leaves_no_block_behind() -> None:
    """Hostile streaming: tool_use t1 starts at index 0, then t2 starts at index 0 before t1 stops;
    a snapshot then names t1. t1 is no longer anywhere in the message: the snapshot emits it (its
    streamed input was never), t2 comes out at its stop, each once, and nothing is an error (it was
    an internal error: the snapshot's lookup found t1 by id but not at any position)."""
    def start(index: int, block: dict[str, Any]) -> str:
        return se({"type": "content_block_start", "index": index, "content_block": block})

    lines = [
        se({"type": "message_start", "message": {"id": "msg_1"}}),
        start(0, {"type": "tool_use", "id": "t1", "name": "Bash"}),
        se({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a":'}}),
        start(0, {"type": "tool_use", "id": "t2", "name": "Task"}),
        se({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"b":1}'}}),
        assistant({"type": "tool_use", "id": "t1", "name": "Bash", "input": {"a": 1}}),
        se({"type": "content_block_stop", "index": 0}),
        assistant({"type": "tool_use", "id": "t1", "name": "Bash", "input": {"a": 1}}),
    ]
    t = Translator("lineage", trace=True)
    relays = [r for line in lines for r in t.feed_line(line)] + t.finish()
    assert not [r for r in relays if isinstance(r, R.Error)]
    tools = [(r.id, json.loads(bytes(r.input))) for r in relays if isinstance(r, R.ToolUse)]
    assert tools == [("t1", {"a": 1}), ("t2", {"b": 1})]
    assert t.trace[-1].decision == T.SKIP  # the same snapshot again: already emitted


def tool(tool_id: str | None, *, omit_id: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_use", "name": "Bash", "input": {"n": tool_id}}
    if not omit_id:
        block["id"] = tool_id
    return block


# Rows of one block after the first of their message, each shape the table tells apart: a new
# call after text or after another call, the same call again (in its message, in another), a call
# with no id or a null one, a call a stream started, a first block that is a call with no id.
ONE_BLOCK_ROWS = {
    "calls after text": [assistant(text("a")), assistant(tool("t1")), assistant(tool("t2"))],
    "calls after a call": [assistant(tool("t1")), assistant(tool("t2")), assistant(tool("t3"))],
    "the same call again": [assistant(text("a")), assistant(tool("t1")), assistant(tool("t1"))],
    "the first call again": [assistant(tool("t1")), assistant(tool("t2")), assistant(tool("t1"))],
    "a call of another message": [assistant(tool("t1"), msg_id="m0"), assistant(text("a")), assistant(tool("t1"))],
    "calls with no id": [assistant(text("a")), assistant(tool(None)), assistant(tool(None, omit_id=True)),
                         assistant(tool(None))],
    "a first call with no id": [assistant(tool(None)), assistant(tool("t1")), assistant(tool(None))],
    "a first call with an empty id": [assistant(tool("")), assistant(tool("t1")), assistant(tool(""))],
    "a streamed call": [se({"type": "message_start", "message": {"id": "msg_1"}}),
                        se({"type": "content_block_start", "index": 0,
                            "content_block": {"type": "tool_use", "id": "t1", "name": "Bash"}}),
                        assistant(tool("t1")), assistant(tool("t2")),
                        se({"type": "content_block_stop", "index": 0}), assistant(tool("t1"))],
    "a streamed call after text": [se({"type": "message_start", "message": {"id": "msg_1"}}),
                                   se({"type": "content_block_start", "index": 0, "content_block": text("a")}),
                                   se({"type": "content_block_stop", "index": 0}),
                                   se({"type": "content_block_start", "index": 1,
                                       "content_block": {"type": "tool_use", "id": "t1", "name": "Bash"}}),
                                   assistant(tool("t1")), se({"type": "content_block_stop", "index": 1})],
    "text after calls": [assistant(tool("t1")), assistant(text("a")), assistant(text("a")), assistant(tool("t2"))],
}


@pytest.mark.parametrize("rows", ONE_BLOCK_ROWS.values(), ids=ONE_BLOCK_ROWS.keys())
def test_rows_decided_without_the_tables_loop_come_out_as_the_loop_decides_them(rows: list[str]) -> None:
    """Without a trace the commonest rows (one block: a message's first, or a call it does not have)
    are decided before the loop over the message's blocks; with one, every row goes through it."""
    traced, _ = run(rows)
    plain = Translator("lineage")
    assert [r for line in rows for r in plain.feed_line(line)] + plain.finish() == traced
