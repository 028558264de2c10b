"""relay: the events Relayscope emits. Frozen msgspec Structs on one base class.

Every relay carries ``type`` (the JSON tag), ``seq`` (0-based, emission order), ``line``
(1-based input line it came from) and ``lane`` (``"main"``, or the id of the Task/Agent
tool_use that spawned the sub-agent, or ``stream-N`` for an Arbiter fleet stream). The
schema, with one example per type, is documented in ``docs/relay-events.md``; fields
without a default are always written (as ``null`` when unknown), fields with a default are
left out while they hold it.

This module holds data definitions only (no state); it imports nothing else from relayscope.
"""

# No ``from __future__ import annotations``: msgspec evaluates a Struct's string annotations (a
# compile and an eval per field) when a decoder of it is made at import; real ones cost nothing.

import functools
from typing import Any, ClassVar, Final, get_args

import msgspec
from msgspec import Raw, Struct

Number = int | float


_str_decoder: Final = msgspec.json.Decoder(str)


# gc=False: relays are frozen trees of plain values, never part of a reference cycle, and are
# built for most input lines; untracked, they cost the cyclic GC nothing.
class Relay(Struct, frozen=True, tag_field="type", omit_defaults=True, gc=False):
    seq: int
    line: int
    lane: str
    file: str | None = None  # input file, when several files are translated together
    # what the line's own fields say of where it came from (``meaning.FIELD_MEANINGS``: a
    # skill or agent it is attributed to, an API error status), on its first row; usually none
    notes: tuple[str, ...] = ()

    type: ClassVar[str]


# EXTRA: ``session_meta`` and ``turn_complete`` stand for lines that newer CLI versions keep adding
# fields to (``subagent_stats``, ``terminal_reason``, ``ttft_ms``, ``plugin_errors``, ...). What no
# field of theirs carries rides along in ``extra``, unchanged, so nothing of the line is lost and
# a field added next year needs no release of ours. Left out when there is none.

# Each subclass is kw_only: that moves its fields after the common ones in the output.


class SessionMeta(Relay, tag="session_meta", kw_only=True, frozen=True):
    type: ClassVar[str] = "session_meta"
    session_id: str | None
    model: str | None
    tools: list[Any]
    cwd: str | None = None
    version: str | None = None
    source: str | None = None  # "init", "request_received", "transcript"
    extra: dict[str, Any] = {}  # the init line's other fields, as it gave them (see EXTRA)


class TextDelta(Relay, tag="text_delta", kw_only=True, frozen=True):
    type: ClassVar[str] = "text_delta"
    text: str
    message_id: str | None
    block_index: int | None
    partial: bool = False  # a fragment (streamed delta or in-place growth), not a whole block


class ThinkingDelta(Relay, tag="thinking_delta", kw_only=True, frozen=True):
    type: ClassVar[str] = "thinking_delta"
    text: str
    message_id: str | None
    block_index: int | None
    partial: bool = False
    redacted: bool = False
    # Thinking whose text the CLI left out (``thinking.display`` omitted: empty text with a
    # signature, or streamed deltas with no text): what is known of it instead.
    omitted: bool = False
    estimated_tokens: int | None = None  # the CLI's estimate (``system/thinking_tokens``, the delta's own)
    duration_ms: Number | None = None  # the assistant frame's ``thinking_duration_ms``: the thinking's time


class ToolUse(Relay, tag="tool_use", kw_only=True, frozen=True):
    type: ClassVar[str] = "tool_use"
    id: str
    name: str
    input: Raw  # a JSON object, passed through unchanged
    message_id: str | None = None
    block_index: int | None = None


class ToolResult(Relay, tag="tool_result", kw_only=True, frozen=True):
    type: ClassVar[str] = "tool_result"
    tool_use_id: str
    content: Raw  # a JSON string, kept as it arrived; ``text`` decodes it
    is_error: bool
    attachments: tuple[str, ...] = ()  # non-text block types summarised into ``content``
    launched: bool = False  # a spawn's result that only says its agent was launched in the background

    @property
    def text(self) -> str:
        """``content`` as a Python string."""
        return _str_decoder.decode(self.content) if self.content else ""


class ContentBlock(Relay, tag="content_block", kw_only=True, frozen=True):
    """An assistant content block of a type the translator does not know."""

    type: ClassVar[str] = "content_block"
    block_type: str
    data: Raw
    message_id: str | None = None
    block_index: int | None = None


class UserMessage(Relay, tag="user_message", kw_only=True, frozen=True):
    """User text: a prompt, or a sub-agent's prompt echoed in its lane."""

    type: ClassVar[str] = "user_message"
    text: str
    replay: bool = False  # the CLI echoing the user's input back (``isReplay``), not a new prompt


class TurnComplete(Relay, tag="turn_complete", kw_only=True, frozen=True):
    type: ClassVar[str] = "turn_complete"
    subtype: str | None
    is_error: bool
    result: str | None
    cost_usd: Number | None
    usage: dict[str, Any] | None
    duration_ms: Number | None
    num_turns: int | None
    session_id: str | None = None
    extra: dict[str, Any] = {}  # the result line's other fields, as it gave them (see EXTRA)


class Usage(Relay, tag="usage", kw_only=True, frozen=True):
    """Final token usage of one API message (or one fleet stream's ``token_usage``)."""

    type: ClassVar[str] = "usage"
    message_id: str | None
    model: str | None
    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    request_id: str | None = None  # the session record's ``requestId``: with message_id, one API message


class LaneStart(Relay, tag="lane_start", kw_only=True, frozen=True):
    type: ClassVar[str] = "lane_start"
    parent_lane: str | None
    depth: int
    agent_type: str | None = None
    description: str | None = None
    inferred: bool = False  # lane told apart by fingerprint, not by parent_tool_use_id
    label: str | None = None
    resumed_by: str | None = None  # a lane that had ended, continued by this SendMessage call: its next span


class LaneEnd(Relay, tag="lane_end", kw_only=True, frozen=True):
    type: ClassVar[str] = "lane_end"
    tool_use_id: str | None
    is_error: bool = False
    agent_id: str | None = None  # from the spawning call's tool_use_result
    total_tokens: int | None = None
    returned: str | None = None  # what the agent returned, when a record of it says (a workflow's journal)


class System(Relay, tag="system", kw_only=True, frozen=True):
    """A system event other than init (compact_boundary, task_*, hook_*, status ...)."""

    type: ClassVar[str] = "system"
    subtype: str | None
    data: Raw
    state: str | None = None  # a task_* event: its task's state after it (running, completed, failed)
    retracts: tuple[int, ...] = ()  # model_refusal_fallback: seqs of the content relays it withdraws


class Passthrough(Relay, tag="passthrough", kw_only=True, frozen=True):
    """An input event of a type the translator does not act on, kept whole."""

    type: ClassVar[str] = "passthrough"
    event_type: str | None
    data: Raw


class Error(Relay, tag="error", kw_only=True, frozen=True):
    type: ClassVar[str] = "error"
    message: str
    raw: str = ""  # the start of the offending line


class Warning(Relay, tag="warning", kw_only=True, frozen=True):
    """An input line that was translated, but not exactly as written: bytes that are not UTF-8
    or lone surrogates replaced with U+FFFD, fields of the wrong type ignored, a value out of
    range. Comes before the relays of that line."""

    type: ClassVar[str] = "warning"
    message: str
    raw: str = ""  # the start of the offending line


class ToolCall(Relay, tag="tool_call", kw_only=True, frozen=True):
    """Arbiter's ``tool_call``: a tool ran (no id or input on that wire)."""

    type: ClassVar[str] = "tool_call"
    tool: str | None
    ok: bool | None


class SubAgentResponse(Relay, tag="sub_agent_response", kw_only=True, frozen=True):
    type: ClassVar[str] = "sub_agent_response"
    agent: str | None
    content: str | None


class File(Relay, tag="file", kw_only=True, frozen=True):
    type: ClassVar[str] = "file"
    path: str | None
    size: int | None
    encoding: str | None
    content: str | None


AnyRelay = (
    SessionMeta
    | TextDelta
    | ThinkingDelta
    | ToolUse
    | ToolResult
    | ContentBlock
    | UserMessage
    | TurnComplete
    | Usage
    | LaneStart
    | LaneEnd
    | System
    | Passthrough
    | Error
    | Warning
    | ToolCall
    | SubAgentResponse
    | File
)

RELAY_TYPES: Final[dict[str, type[Relay]]] = {cls.type: cls for cls in get_args(AnyRelay)}

_encoder: Final = msgspec.json.Encoder()


def encode_ndjson(relays: list[Relay]) -> bytes:
    """Relays as NDJSON bytes, one object per line."""
    return _encoder.encode_lines(relays)


def decode_relay(data: bytes | str) -> Relay:
    """One relay back from its JSON form (for consumers and tests)."""
    return _decoder().decode(data)  # type: ignore[no-any-return]


@functools.cache
def _decoder() -> msgspec.json.Decoder[Any]:
    """Made when first asked for: a translate decodes no relays (the decoder of every relay type
    was a tenth of the core's import)."""
    return msgspec.json.Decoder(AnyRelay)


def to_dict(relay: Relay) -> dict[str, Any]:
    """A relay as plain JSON-compatible Python objects, ``Raw`` fields decoded."""
    return msgspec.json.decode(_encoder.encode(relay))  # type: ignore[no-any-return]
