"""The timeline's records (spans, calls, marks, tracks, the timeline) and the axes' names."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import msgspec

from .. import relay as R
from ..audit import Item, Key, describe, relay_keys
from ..present import clip, tool_input_summary

TIME: Final = "time"
LINE: Final = "line"
ORDER: Final = "order"
AXIS_WORDS: Final = {TIME: "wall-clock time", LINE: "input line order", ORDER: "relay order"}
TOP_TOOLS: Final = 8  # tools listed by time in the figures; the rest are summed as "other"
DECIDE_WITHIN: Final = 64  # relays looked at for the axis when none opens or closes a span
AWAITING_USAGE: Final = 64  # finished model calls held for their usage, at most
HELD_KEPT: Final = 256  # stretches held until a lane at work in them moves (the oldest then counts as idle)
MAX_SECONDS: Final = (2**63 - 1) // 1000 / 1e6  # 2262-04-11: nanoseconds still fit a signed 64-bit int
# Assistant-side relays: what the model wrote.
_MODEL_SIDE: Final = (R.TextDelta, R.ThinkingDelta, R.ToolUse, R.ContentBlock)
_MODEL_TYPES: Final = frozenset(_MODEL_SIDE)
_INPUTS: Final = frozenset({R.ToolResult, R.UserMessage})  # what the model is given
_ENDS: Final = frozenset({R.ToolUse, R.ToolResult})
# the relays the builder looks at beyond their lane and position (a type test on each is slow in Pyodide)
_NOTED: Final = frozenset({R.ToolUse, R.ToolResult, R.LaneStart, R.Usage, R.SessionMeta, R.TurnComplete, R.Error,
                           R.System, R.TextDelta, R.ThinkingDelta, R.ContentBlock, R.UserMessage, R.Passthrough})
_STATED: Final = frozenset({R.ToolUse, R.ToolResult, R.System, R.Passthrough})  # what moves a lane's state
# What a result reports of the run's timing (ms), in the order the figures list them.
TIMING: Final = ("time_to_request_ms", "ttft_ms", "ttft_stream_ms", "first_content_frame_ms")


# -- the data -------------------------------------------------------------------------------

class Span(msgspec.Struct, frozen=True):
    kind: str  # "agent" | "tool"
    lane: str  # the track it is drawn on (a tool: where it was called; an agent: its own lane)
    name: str  # tool name, or the lane's label
    text: str | msgspec.Raw  # a tool: its input as it came (the label is made when asked); an agent: its label
    start: float
    end: float
    seq: int  # the relay that opens it (tool_use; an agent's spawning tool_use, else its first relay)
    end_seq: int | None  # the relay that closes it (tool_result), None while open
    line: int
    file: str | None
    row: int = 0  # tool: its row in the lane's track (calls that overlap in time take rows 1, 2 ...)
    tool_id: str | None = None  # tool_use id (an agent: its spawning call's, when that call is its parent)
    error: bool = False
    child_lane: str | None = None  # a Task/Agent call: the lane it started
    parent_lane: str | None = None  # an agent: the lane it hangs under (cycles broken)

    @property
    def open(self) -> bool:
        return self.end_seq is None

    @property
    def label(self) -> str:
        """A tool call: its name and key input (``Bash command: pytest -q``); an agent: its label."""
        if isinstance(self.text, str):
            return self.text
        return clip(f"{self.name} {tool_input_summary(self.text, 80)}", 100)

    @property
    def duration(self) -> float:
        return self.end - self.start


class Call(msgspec.Struct, frozen=True):
    """One model call (an API message): from what the model was last given to its answer's last
    block, with the usage the message reported (0 when it reported none)."""

    lane: str
    start: float
    end: float
    message_id: str | None
    model: str | None
    seq: int  # its first relay
    line: int
    file: str | None
    row: int = 0  # calls of one lane that overlap in time take rows 1, 2 ...
    input_tokens: int = 0  # as the API counts it: without the cache reads and writes
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    usage: bool = False  # whether the message reported usage


class Mark(msgspec.Struct, frozen=True):
    kind: str  # "model" | "lost" | "error"
    lane: str
    at: float
    seq: int | None  # None for a lost block (no relay carries it)
    line: int
    file: str | None
    text: str


class Track(msgspec.Struct):
    """One lane's track: what the lanes panel knows of it, its agent span and its figures."""

    id: str
    label: str
    parent: str | None
    depth: int
    agent: Span | None = None
    model: str | None = None
    rows: int = 1  # rows its tool spans take
    resumed: list[Span] = msgspec.field(default_factory=list)  # its later spans: work after a message (SendMessage)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    reported_ms: float | None = None  # what the input says the lane took (duration_ms), if it says
    ttft_ms: float | None = None
    first_seq: int = -1
    state: str | None = None  # a sub-agent: running, completed or failed (subagents.LaneState)
    status: str | None = None  # the state in words: "running, 30 s" while a heartbeat said so
    elapsed_s: float | None = None  # the longest running time its heartbeats reported
    timing: dict[str, list[float]] = msgspec.field(default_factory=dict)  # TIMING field -> each result's value


class Timeline(msgspec.Struct):
    axis: str
    tracks: list[Track] = msgspec.field(default_factory=list)  # main first, each sub-agent under its parent
    spans: list[Span] = msgspec.field(default_factory=list)  # agents first (in track order), then tools by seq
    marks: list[Mark] = msgspec.field(default_factory=list)
    calls: list[Call] = msgspec.field(default_factory=list)  # model calls, by seq
    start: float = 0.0
    end: float = 0.0
    session_id: str | None = None
    notes: list[str] = msgspec.field(default_factory=list)  # what was assumed or repaired, in words
    figures: dict[str, Any] = msgspec.field(default_factory=dict)

    @property
    def axis_words(self) -> str:
        return AXIS_WORDS[self.axis]

    def track(self, lane: str) -> Track | None:
        return next((t for t in self.tracks if t.id == lane), None)


class Lost(msgspec.Struct, frozen=True):
    """A content block no relay carries (the audit's word: lost), where it was in the input."""

    line: int
    file: str | None
    words: str


def lost_blocks(relays: Iterable[R.Relay], items: Mapping[Key, Item], by_file: bool = True) -> list[Lost]:
    """The blocks of the audit's inventory that the relays do not carry, in input order (a block a
    refusal fallback withdrew is retracted, never lost: the audit's rule). ``by_file``: the
    inventory tells user text apart by file (a session's files); a stream's does not."""
    emitted = {key if by_file or key[0] != "user_text" else key[:3] for key, _ in relay_keys(relays)}
    lost = [Lost(it.line, it.file, describe(key)) for key, it in items.items() if key not in emitted and not it.retracted]
    lost.sort(key=lambda b: (b.file or "", b.line))
    return lost


