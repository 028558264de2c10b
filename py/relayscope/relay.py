"""relay: the events Relayscope emits. Frozen msgspec Structs on one base class.

Every relay carries ``type`` (the JSON tag), ``seq`` (0-based, emission order), ``line``
(1-based input line it came from) and ``lane`` (``"main"``, or the id of the Task/Agent
tool_use that spawned the sub-agent, or ``stream-N`` for an Arbiter fleet stream). The
schema, with one example per type, is documented in ``docs/relay-events.md``; fields
without a default are always written (as ``null`` when unknown), fields with a default are
left out while they hold it.

This module holds data definitions only; it imports nothing else from relayscope.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Union, get_args

import msgspec
from msgspec import Raw, Struct

Number = Union[int, float]


class Relay(Struct, frozen=True, tag_field="type", omit_defaults=True):
    seq: int
    line: int
    lane: str
    file: str | None = None  # input file, when several files are translated together

    type: ClassVar[str]


def _tag(name: str) -> dict[str, Any]:
    # kw_only on the subclasses moves their fields after the common ones in the output.
    return {"tag": name, "kw_only": True}


class SessionMeta(Relay, **_tag("session_meta")):
    type: ClassVar[str] = "session_meta"
    session_id: str | None
    model: str | None
    tools: list[Any]
    cwd: str | None = None
    version: str | None = None
    source: str | None = None  # "init", "request_received", "transcript"


class TextDelta(Relay, **_tag("text_delta")):
    type: ClassVar[str] = "text_delta"
    text: str
    message_id: str | None
    block_index: int | None
    partial: bool = False  # a fragment (streamed delta or in-place growth), not a whole block


class ThinkingDelta(Relay, **_tag("thinking_delta")):
    type: ClassVar[str] = "thinking_delta"
    text: str
    message_id: str | None
    block_index: int | None
    partial: bool = False
    redacted: bool = False


class ToolUse(Relay, **_tag("tool_use")):
    type: ClassVar[str] = "tool_use"
    id: str
    name: str
    input: Raw  # a JSON object, passed through unchanged
    message_id: str | None = None
    block_index: int | None = None


class ToolResult(Relay, **_tag("tool_result")):
    type: ClassVar[str] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool
    attachments: tuple[str, ...] = ()  # non-text block types summarised into ``content``


class ContentBlock(Relay, **_tag("content_block")):
    """An assistant content block of a type the translator does not know."""

    type: ClassVar[str] = "content_block"
    block_type: str
    data: Raw
    message_id: str | None = None
    block_index: int | None = None


class UserMessage(Relay, **_tag("user_message")):
    """User text: a prompt, or a sub-agent's prompt echoed in its lane."""

    type: ClassVar[str] = "user_message"
    text: str


class TurnComplete(Relay, **_tag("turn_complete")):
    type: ClassVar[str] = "turn_complete"
    subtype: str | None
    is_error: bool
    result: str | None
    cost_usd: Number | None
    usage: dict[str, Any] | None
    duration_ms: Number | None
    num_turns: int | None
    session_id: str | None = None


class Usage(Relay, **_tag("usage")):
    """Final token usage of one API message (or one fleet stream's ``token_usage``)."""

    type: ClassVar[str] = "usage"
    message_id: str | None
    model: str | None
    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0


class LaneStart(Relay, **_tag("lane_start")):
    type: ClassVar[str] = "lane_start"
    parent_lane: str | None
    depth: int
    agent_type: str | None = None
    description: str | None = None
    inferred: bool = False  # lane told apart by fingerprint, not by parent_tool_use_id
    label: str | None = None


class LaneEnd(Relay, **_tag("lane_end")):
    type: ClassVar[str] = "lane_end"
    tool_use_id: str | None
    is_error: bool = False
    agent_id: str | None = None  # from the spawning call's tool_use_result
    total_tokens: int | None = None


class System(Relay, **_tag("system")):
    """A system event other than init (compact_boundary, task_*, hook_*, status ...)."""

    type: ClassVar[str] = "system"
    subtype: str | None
    data: Raw


class Passthrough(Relay, **_tag("passthrough")):
    """An input event of a type the translator does not act on, kept whole."""

    type: ClassVar[str] = "passthrough"
    event_type: str | None
    data: Raw


class Error(Relay, **_tag("error")):
    type: ClassVar[str] = "error"
    message: str
    raw: str = ""  # the start of the offending line


class ToolCall(Relay, **_tag("tool_call")):
    """Arbiter's ``tool_call``: a tool ran (no id or input on that wire)."""

    type: ClassVar[str] = "tool_call"
    tool: str | None
    ok: bool | None


class SubAgentResponse(Relay, **_tag("sub_agent_response")):
    type: ClassVar[str] = "sub_agent_response"
    agent: str | None
    content: str | None


class File(Relay, **_tag("file")):
    type: ClassVar[str] = "file"
    path: str | None
    size: int | None
    encoding: str | None
    content: str | None


AnyRelay = Union[
    SessionMeta,
    TextDelta,
    ThinkingDelta,
    ToolUse,
    ToolResult,
    ContentBlock,
    UserMessage,
    TurnComplete,
    Usage,
    LaneStart,
    LaneEnd,
    System,
    Passthrough,
    Error,
    ToolCall,
    SubAgentResponse,
    File,
]

RELAY_TYPES: Final[dict[str, type[Relay]]] = {cls.type: cls for cls in get_args(AnyRelay)}

_encoder: Final = msgspec.json.Encoder()
_decoder: Final = msgspec.json.Decoder(AnyRelay)


def encode_ndjson(relays: list[Relay]) -> bytes:
    """Relays as NDJSON bytes, one object per line."""
    return _encoder.encode_lines(relays)


def decode_relay(data: bytes | str) -> Relay:
    """One relay back from its JSON form (for consumers and tests)."""
    return _decoder.decode(data)  # type: ignore[no-any-return]


def to_dict(relay: Relay) -> dict[str, Any]:
    """A relay as plain JSON-compatible Python objects, ``Raw`` fields decoded."""
    return msgspec.json.decode(_encoder.encode(relay))  # type: ignore[no-any-return]
