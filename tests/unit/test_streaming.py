"""--include-partial-messages: deltas are emitted as they come, never repeated by the snapshot.

The real capture (streaming-haiku) only streams text; tool calls and thinking are streamed
the same way by the API, so these tests write out the documented event sequence
(PROTOCOL.md section 1, stream_event) for them.
"""

from __future__ import annotations

import json
from typing import Any

from relayscope import relay as R
from relayscope.translator import Translator


def se(event: dict[str, Any], parent: str | None = None) -> str:
    return json.dumps({"type": "stream_event", "event": event, "parent_tool_use_id": parent, "session_id": "s"})


def assistant(block: dict[str, Any], parent: str | None = None) -> str:
    return json.dumps({"type": "assistant", "parent_tool_use_id": parent, "session_id": "s",
                       "message": {"id": "msg_1", "role": "assistant", "content": [block],
                                   "usage": {"input_tokens": 5, "output_tokens": 1}}})


TOOL = {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "ls -la"}}


def streamed_tool(with_snapshot: bool) -> list[str]:
    lines = [
        se({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        se({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        se({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me "}}),
        se({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "list."}}),
        se({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "abc"}}),
        assistant({"type": "thinking", "thinking": "Let me list.", "signature": "abc"}),
        se({"type": "content_block_stop", "index": 0}),
        se({"type": "content_block_start", "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {}}}),
        se({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"comm'}}),
        se({"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": 'and": "ls -la"}'}}),
    ]
    if with_snapshot:
        lines.append(assistant(TOOL))
    lines += [
        se({"type": "content_block_stop", "index": 1}),
        se({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 42}}),
        se({"type": "message_stop"}),
    ]
    return lines


def run(lines: list[str]) -> list[R.Relay]:
    t = Translator("lineage", trace=True)
    out = [r for line in lines for r in t.feed_line(line)] + t.finish()
    assert [s.line for s in t.trace if s.kind != "end of input"] == list(range(1, len(lines) + 1))
    return out


def test_streamed_tool_use_is_emitted_once_with_its_name_and_full_input() -> None:
    for with_snapshot in (True, False):
        relays = run(streamed_tool(with_snapshot))
        tools = [r for r in relays if isinstance(r, R.ToolUse)]
        assert len(tools) == 1, with_snapshot
        assert (tools[0].id, tools[0].name, tools[0].block_index) == ("toolu_9", "Bash", 1)
        assert json.loads(bytes(tools[0].input)) == {"command": "ls -la"}


def test_streamed_thinking_is_deltas_only_and_usage_is_the_final_count() -> None:
    relays = run(streamed_tool(True))
    thinking = [r for r in relays if isinstance(r, R.ThinkingDelta)]
    assert [t.text for t in thinking] == ["Let me ", "list."] and all(t.partial for t in thinking)
    (usage,) = [r for r in relays if isinstance(r, R.Usage)]
    assert (usage.message_id, usage.input_tokens, usage.output_tokens) == ("msg_1", 5, 42)


def test_a_snapshot_longer_than_its_deltas_adds_only_the_missing_text() -> None:
    lines = [
        se({"type": "message_start", "message": {"id": "msg_1"}}),
        se({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        se({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}),
        assistant({"type": "text", "text": "Hello, world"}),  # a delta went missing
    ]
    texts = [r for r in run(lines) if isinstance(r, R.TextDelta)]
    assert [t.text for t in texts] == ["Hello", ", world"]
    assert "".join(t.text for t in texts) == "Hello, world"


def test_sub_agent_streams_stay_in_their_lanes() -> None:
    lines = [se({"type": "message_start", "message": {"id": "msg_main"}}),
             se({"type": "message_start", "message": {"id": "msg_sub"}}, "toolu_agent"),
             se({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
             se({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                "toolu_agent"),
             se({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "sub"}},
                "toolu_agent"),
             se({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "main"}})]
    texts = {(r.lane, r.message_id, r.text) for r in run(lines) if isinstance(r, R.TextDelta)}
    assert texts == {("toolu_agent", "msg_sub", "sub"), ("main", "msg_main", "main")}
