"""What the translator reads of a line beside its blocks: lanes, raw lines, extra fields, agents' results."""

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec import UNSET, Raw

from ..lanes import MAIN
from ..wire import (
    Block,
    Event,
    Frame,
    strip_line,
)
from .blocks import _any, _enc


def _explicit_lane(ev: Event) -> str | None:
    """The lane named by ``parent_tool_use_id``: None when the key is absent."""
    parent = ev.parent_tool_use_id
    if parent is UNSET:
        return None
    return parent or MAIN


def _raw_line(f: Frame) -> Raw:
    """The line as a JSON value: without the JSON white space around it (a leading carriage return
    would be written into the relay's one line)."""
    text = f.text
    return Raw(text.strip(b" \t\r\n") if isinstance(text, bytes) else text.strip(" \t\r\n"))


def _fields(f: Frame) -> Any:
    """The line as generic JSON (a rare system line whose fields decide something), or None."""
    try:
        return _any.decode(strip_line(f.text))
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return None


# The fields of an init and of a result line that session_meta and turn_complete carry in fields
# of their own; the rest goes to their ``extra`` (see relay.EXTRA).
_INIT_FIELDS: Final = frozenset({"type", "subtype", "session_id", "model", "tools", "cwd", "claude_code_version"})
_INIT_NO_TOOLS: Final = _INIT_FIELDS - {"tools"}
_RESULT_FIELDS: Final = frozenset({"type", "subtype", "is_error", "result", "total_cost_usd", "cost_usd", "usage",
                                   "duration_ms", "num_turns", "session_id"})


def _extra(f: Frame, known: frozenset[str]) -> dict[str, Any]:
    """The line's fields outside ``known``, as it gave them (one line a turn: decoded generically)."""
    try:
        obj = _any.decode(strip_line(f.text))
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return {}  # bytes that are not UTF-8: the line's warning relay holds it
    return {k: v for k, v in obj.items() if k not in known} if isinstance(obj, dict) else {}


def _raw_block(f: Frame, b: Block) -> Raw:
    """The untouched JSON of an unknown content block (rare: decode the line generically)."""
    try:
        obj = _any.decode(f.text)
        if obj.get("type") == "stream_event":
            return Raw(_enc.encode(obj["event"]["content_block"]))
        content = f.event.message.content  # type: ignore[union-attr]
        position = next(i for i, c in enumerate(content) if c is b)  # type: ignore[arg-type]
        return Raw(_enc.encode(obj["message"]["content"][position]))
    except (msgspec.DecodeError, KeyError, IndexError, TypeError, AttributeError, StopIteration,
            RecursionError, UnicodeError):
        return Raw(_enc.encode({k: v for k, v in msgspec.structs.asdict(b).items() if v and not isinstance(v, Raw)}))


class _AgentResult(msgspec.Struct):
    agentId: Any = None
    totalTokens: Any = None
    status: Any = None
    isAsync: Any = None


def _agent_result(ev: Event) -> tuple[str | None, int | None, bool]:
    """A spawn's result: the agent it names, its tokens, and whether it only says the agent was
    launched in the background (``status: "async_launched"`` or ``isAsync: true``)."""
    raw = ev.tool_use_result or ev.toolUseResult
    if not raw:
        return None, None, False
    try:
        info = msgspec.json.decode(raw, type=_AgentResult)
    except (msgspec.DecodeError, RecursionError):
        return None, None, False
    agent = info.agentId if isinstance(info.agentId, str) else None
    tokens = info.totalTokens if isinstance(info.totalTokens, int) and not isinstance(info.totalTokens, bool) else None
    return agent, tokens, info.status == "async_launched" or info.isAsync is True
