"""Structured hypothesis generators for hostile input: objects with the real ``type`` values
(PROTOCOL.md sections 1-3 and 5), fields of the right type or of any other, deep nesting,
extreme numbers, escapes (lone surrogates included), and raw bytes spliced into lines.

Every generator draws *lines* (``bytes``, or ``str`` where the entry point takes text), so
that the tests can check each input line is accounted for."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

# --- the vocabulary of real output -------------------------------------------------------------

TOP_TYPES = ["system", "assistant", "user", "result", "stream_event", "rate_limit_event",
             "control_request", "control_response", "keep_alive", "future_event_type"]
SESSION_TYPES = ["summary", "progress", "queue-operation", "file-history-snapshot", "attachment",
                 "mode", "last-prompt", "ai-title", "custom-title", "tag"]
SYSTEM_SUBTYPES = ["init", "result", "compact_boundary", "status", "hook_started", "hook_response",
                   "task_started", "task_progress", "task_notification", "task_updated",
                   "background_tasks_changed", "thinking_tokens", "api_retry", "stop_hook_summary",
                   "turn_duration", "local_command", "notification", None]
RESULT_SUBTYPES = ["success", "error_max_turns", "error_during_execution", "error_max_budget_usd"]
BLOCK_TYPES = ["text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image",
               "server_tool_use", "web_search_tool_result", "tool_reference", "document"]
STREAM_TYPES = ["message_start", "content_block_start", "content_block_delta", "content_block_stop",
                "message_delta", "message_stop", "ping"]
DELTA_TYPES = ["text_delta", "thinking_delta", "input_json_delta", "signature_delta", "citations_delta"]
TOOL_NAMES = ["Task", "Agent", "Bash", "Read", "ToolSearch", "mcp__x__y"]
SSE_EVENTS = ["request_received", "stream_start", "agent_start", "text", "tool_call", "file",
              "sub_agent_response", "token_usage", "advisor", "escalation", "stream_end", "error",
              "done", "message", "future_event"]

# A few ids, so that generated events refer to each other (a result answers a call, a sub-agent
# lane names a spawn, a record's parent is another record).
IDS = ["toolu_A", "toolu_B", "call_1", "msg_1", "msg_2", "u1", "u2", "u3", "a1", ""]

# --- values ------------------------------------------------------------------------------------

numbers = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([-1, -3, 2**31, 2**63, 50_000_000, 10**30, -(10**30)]),
    st.floats(allow_nan=False, allow_infinity=False),
)
texts = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["", "caf\u00e9", "\u2028", "\ufeff", "\U0001f600", "a\nb", "\"quoted\"", "\\"]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, texts)
any_json = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=2),
                                                         st.dictionaries(texts, inner, max_size=2)),
                        max_leaves=4)


def maybe(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Usually a value of the right type, sometimes any JSON value at all (a wrong type)."""
    return st.one_of(good, good, good, good, good, any_json)


def ids() -> st.SearchStrategy[Any]:
    return maybe(st.sampled_from(IDS))


@st.composite
def objects(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[Any]], most: int = 5) -> dict[str, Any]:
    """An object with a few of ``fields`` (each maybe wrong-typed). Few: drawing every field
    of every object made generation, not the code under test, the cost of a test."""
    keys = draw(st.lists(st.sampled_from(sorted(fields)), max_size=most, unique=True))
    return {key: draw(maybe(fields[key])) for key in keys}


def blocks() -> st.SearchStrategy[Any]:
    return st.builds(
        lambda kind, body: {"type": kind, **body},
        maybe(st.sampled_from(BLOCK_TYPES)),
        objects({"text": texts, "thinking": texts, "id": st.sampled_from(IDS), "name": st.sampled_from(TOOL_NAMES),
                 "input": st.fixed_dictionaries({}, optional={"prompt": texts, "description": texts,
                                                              "subagent_type": texts}),
                 "tool_use_id": st.sampled_from(IDS), "content": st.one_of(texts, st.none(), st.lists(
                     st.fixed_dictionaries({"type": st.sampled_from(["text", "image", "tool_reference"])},
                                           optional={"text": texts}), max_size=2)),
                 "is_error": st.booleans(), "signature": texts}),
    )


def messages() -> st.SearchStrategy[Any]:
    return objects({"id": st.sampled_from(IDS), "model": texts, "role": texts,
                    "content": st.one_of(st.lists(maybe(blocks()), max_size=3), texts),
                    "usage": objects({"input_tokens": numbers, "output_tokens": numbers,
                                      "cache_read_input_tokens": numbers}),
                    "stop_reason": texts})


def stream_inner() -> st.SearchStrategy[Any]:
    return st.builds(
        lambda kind, body: {"type": kind, **body},
        maybe(st.sampled_from(STREAM_TYPES)),
        objects({"index": numbers, "message": messages(), "content_block": blocks(),
                 "delta": st.builds(lambda k, b: {"type": k, **b}, maybe(st.sampled_from(DELTA_TYPES)),
                                    objects({"text": texts, "thinking": texts, "partial_json": texts})),
                 "usage": objects({"output_tokens": numbers})}),
    )


def events() -> st.SearchStrategy[dict[str, Any]]:
    """A stream-json event or session record: a real type with its fields, some wrong."""
    return st.builds(
        lambda kind, body: {"type": kind, **body},
        maybe(st.sampled_from(TOP_TYPES + SESSION_TYPES)),
        objects({"subtype": st.one_of(st.sampled_from(SYSTEM_SUBTYPES), st.sampled_from(RESULT_SUBTYPES)),
                 "message": messages(), "parent_tool_use_id": st.one_of(st.none(), st.sampled_from(IDS)),
                 "session_id": texts, "uuid": st.sampled_from(IDS), "parentUuid": st.sampled_from(IDS),
                 "isSidechain": st.booleans(), "sessionId": texts, "agentId": st.sampled_from(IDS),
                 "tools": st.lists(texts, max_size=2), "model": texts, "is_error": st.booleans(),
                 "result": texts, "duration_ms": numbers, "num_turns": numbers, "total_cost_usd": numbers,
                 "usage": objects({"input_tokens": numbers}), "event": stream_inner(),
                 "tool_use_result": objects({"agentId": texts, "totalTokens": numbers}),
                 "toolUseResult": objects({"agentId": st.sampled_from(IDS)}),
                 "tool_use_id": st.sampled_from(IDS)}),
    )


# --- lines -------------------------------------------------------------------------------------


def _nest(depth: int, inner: str) -> str:
    return "[" * depth + inner + "]" * depth


@st.composite
def damaged(draw: st.DrawFn, line: bytes) -> bytes:
    """A line damaged the ways real files are: cut, raw bytes spliced in, a BOM, CRLF."""
    how = draw(st.sampled_from(["cut", "bytes", "bom", "crlf", "surrogate"]))
    if how == "cut":
        return line[: draw(st.integers(0, len(line)))]
    if how == "bytes":
        at = draw(st.integers(0, len(line)))
        return line[:at] + draw(st.binary(min_size=1, max_size=4)) + line[at:]
    if how == "bom":
        return b"\xef\xbb\xbf" + line
    if how == "crlf":
        return line + b"\r"
    at = line.find(b'":"')
    esc = draw(st.sampled_from([b"\\ud83d", b"\\ude00", b"\\ud83d\\ude00", b"\\\\ud83d"]))
    return line if at < 0 else line[: at + 3] + esc + line[at + 3:]


@st.composite
def json_lines(draw: st.DrawFn) -> bytes:
    """One line of stream-json (or session) input, often valid, sometimes hostile."""
    kind = draw(st.integers(0, 19))
    if kind == 0:
        return draw(st.binary(max_size=40))
    if kind == 1:
        depth = draw(st.sampled_from([5, 200, 1000, 5000]))
        return ('{"type":"assistant","message":{"content":' + _nest(depth, "1") + "}}").encode()
    if kind == 2:
        return draw(st.sampled_from([b"", b"   ", b"\xef\xbb\xbf", b"garbage {", b"[1]", b'"\x80"', b"null",
                                     b'{"type":{}}', b'{"type":[1]}', b'{"type":"text","text":12345}']))
    line = json.dumps(draw(events()), ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    if kind == 3:
        return draw(damaged(line))
    return line


@st.composite
def sse_lines(draw: st.DrawFn) -> list[bytes]:
    """The lines of one Arbiter SSE event (or of a damaged one), blank line included."""
    name = draw(maybe(st.sampled_from(SSE_EVENTS)))
    data = draw(objects({"request_id": texts, "agent": texts, "message": any_json, "stream_id": numbers,
                         "depth": numbers, "delta": texts, "tool": texts, "ok": st.booleans(), "path": texts,
                         "size": numbers, "content": texts, "model": texts, "input_tokens": numbers,
                         "output_tokens": numbers, "duration_ms": numbers, "error": texts}))
    lines = [b"event: " + str(name).encode("utf-8", "surrogatepass")[:40].replace(b"\n", b" ")]
    payload = json.dumps(data).encode()
    if draw(st.integers(0, 9)) == 0:
        payload = draw(damaged(payload))
    lines.append(b"data: " + payload)
    if draw(st.booleans()):
        lines.insert(0, b"id: " + draw(st.sampled_from([b"1", b"2", b"0", b"7", "\u00b2".encode(), b"9" * 5000,
                                                         b"-1", b"x", b""])))
    if draw(st.integers(0, 5)) == 0:
        lines.append(draw(st.sampled_from([b": heartbeat", b"retry: 10", b"bogus line", b"\xff\xfe"])))
    lines.append(b"")
    return lines


def sse_streams() -> st.SearchStrategy[list[bytes]]:
    return st.lists(sse_lines(), max_size=8).map(lambda events: [line for e in events for line in e])


def streams() -> st.SearchStrategy[list[bytes]]:
    return st.lists(json_lines(), max_size=12)
