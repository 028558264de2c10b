"""spans: the run in time, built as the relays pass, holding only what is still open.

Per lane: the agent span (its spawning call to that call's result), the tool spans (``tool_use``
to its ``tool_result``), the model calls (``Call``: from what the model was last given to the last
block of its answer, with the message's usage), the lost blocks and errors as marks; and the
figures of "where the time went" per lane and for the run, as running sums.

Theory of operation
-------------------
:class:`Timing` turns relays into ``(relay, x)``: it holds the first relays until the axis is
known, then gives each its x. :class:`Builder` takes them one at a time and puts every span,
call and mark on ``closed`` the moment it is finished; what it holds is what is still open (calls
without a result, lanes without an end, a message's call until its usage comes) and a few
numbers per lane. ``relayscope export`` and ``stats`` stream through the two in constant memory;
:func:`build` collects everything into a :class:`Timeline` for the page's swimlanes and the tests.

The axis (``Timing``):

* ``time``: the first line that opens or closes a span (else, with none among the first 64
  relays, every one of them) carries a ``timestamp``. x is seconds since the epoch; a line without
  one takes the time of the line before it in its file. A stamp without an offset is UTC; one
  before 1970 or past 2262-04-11 (where nanoseconds leave a signed 64-bit integer) is clamped
  into that range; both are counted in ``notes``.
* ``line``: otherwise, for one input: x is the input line number. What the stream says of time
  itself (a result's ``duration_ms`` and ``ttft_ms``, a task's ``duration_ms``) is kept as
  ``reported_ms`` beside the figures, never mixed into x.
* ``order``: as ``line``, for several files without timestamps: x is the relay's seq.

Rules that keep every viewer right (a table: what, the rule, why):

============================  ===============================================  =====================================
what                          rule                                             why
============================  ===============================================  =====================================
a child outliving its parent  a span ends at the latest of its own end and     a flame chart or waterfall draws a
(lines missing: no result)    its children's; closing a lane closes what is    child outside its parent as a root
                              still open in it and under it, at that time
a call without a result       runs to its lane's last event, marked open       nothing says when it ended
two calls at once in a lane   the second takes the lowest free row (rows are   siblings drawn on one track nest,
                              given at the call's start: streaming)            which reads as parent and child
a lane whose parent chain     attached to main, said in ``notes``              a parent cycle has no root
loops (or names itself)
a call in the lane it spawns  not that lane's parent, said in ``notes``        the same cycle, one step long
============================  ===============================================  =====================================

Figures: the lane's wall time is cut into stretches between its relays, each counted once:
*tools* while a call of the lane runs, else *model* while the lane waits on the model (from its
last input, or its start, to the last block of the answer: a stretch ended by more input, or by
the lane's end, was no model's), else *idle*; so tools + model + idle = wall. What ran at
the same time is said beside as overlaps: the model answering while a call ran, calls in
parallel. The run's figures cut the run's wall time the same way over all lanes.

A sub-agent's track carries its state as the lanes panel shows it (``subagents.LaneStates``:
running, with the last heartbeat's time; completed; failed); the main track carries what the
results report of the run's timing (``first_content_frame_ms``, ``time_to_request_ms``,
``ttft_ms``, ``ttft_stream_ms``), each result's value kept. The run's idle stretches longer than
``gaps_over`` (no call, no model at work, no record) are kept for ``folds``.

Reuses the layers below: lane labels from ``lanes``, a call's key input from ``present``, lost
blocks from the audit's inventory (``audit.relay_keys``: the audit's own mapping).
Pure: no I/O, no DOM. Must not: parse input lines beyond their ``timestamp``, or change relays.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any, Final

import msgspec

from . import relay as R
from .audit import Item, Key, describe, relay_keys
from .lanes import MAIN, lane_label
from .present import clip, tool_input_summary
from .subagents import LaneStates, status_words

TIME: Final = "time"
LINE: Final = "line"
ORDER: Final = "order"
AXIS_WORDS: Final = {TIME: "wall-clock time", LINE: "input line order", ORDER: "relay order"}
TOP_TOOLS: Final = 8  # tools listed by time in the figures; the rest are summed as "other"
SLICE_RELAYS: Final = 2_500  # relays per slice of build_steps (a few ms: the caller hands the thread back by time)
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


# -- timestamps (the page's rows read them the same way: web/rowinfo re-exports these) ----------

class _Stamp(msgspec.Struct):
    timestamp: str | None = None


_stamp: Final = msgspec.json.Decoder(_Stamp)


def read_stamp(stamp: str) -> tuple[float, str | None] | None:
    """Seconds since the epoch of an ISO 8601 stamp and what was assumed of it: ``"utc"`` (no
    offset: taken as UTC), ``"clamped"`` (outside 1970 .. 2262-04-11), else None; None when it
    does not parse."""
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    note = None
    if when.tzinfo is None:  # the machine's zone would make the output depend on TZ
        when, note = when.replace(tzinfo=UTC), "utc"
    try:
        seconds = when.timestamp()
    except (OverflowError, ValueError):
        return None
    if not 0.0 <= seconds <= MAX_SECONDS:
        return min(max(seconds, 0.0), MAX_SECONDS), "clamped"
    return seconds, note


def parse(stamp: str) -> float | None:
    """Seconds since the epoch of an ISO 8601 stamp (``Z`` allowed; no offset: UTC), or None."""
    got = read_stamp(stamp)
    return got[0] if got else None


def timestamp(raw: bytes) -> str | None:
    """The line's top-level ``timestamp`` (ISO 8601), if it has one that parses."""
    try:
        value = _stamp.decode(raw).timestamp
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):  # RecursionError: nested too deep
        return None
    return value if value and parse(value) is not None else None


def line_seconds(raw: bytes) -> float | None:
    """The line's ``timestamp`` as seconds since the epoch, or None."""
    stamp = timestamp(raw)
    return parse(stamp) if stamp else None


Stamps = Callable[[str | None, int], float | None]  # (file, line) -> seconds, or None


class StampNotes(msgspec.Struct):
    """What reading the stamps assumed: stamps without an offset, stamps clamped."""

    utc: int = 0
    clamped: int = 0

    def read(self, raw: bytes) -> float | None:
        stamp = timestamp(raw)
        got = read_stamp(stamp) if stamp else None
        if got is None:
            return None
        if got[1] == "utc":
            self.utc += 1
        elif got[1] == "clamped":
            self.clamped += 1
        return got[0]

    def words(self) -> list[str]:
        out = []
        if self.utc:
            out.append(f"{self.utc} timestamp(s) without a time-zone offset read as UTC")
        if self.clamped:
            out.append(f"{self.clamped} timestamp(s) before 1970 or after 2262-04-11 clamped into that range")
        return out


def stamps_of(files: Mapping[str | None, Sequence[bytes]], notes: StampNotes | None = None) -> Stamps:
    """A ``Stamps`` over input lines held in memory (``{file: lines}``, ``None`` for one text);
    each line is read once, when first asked for."""
    seen: dict[tuple[str | None, int], float | None] = {}
    read = (notes or StampNotes()).read

    def at(file: str | None, line: int) -> float | None:
        key = (file, line)
        if key not in seen:
            lines = files.get(file if file in files else None)
            seen[key] = read(lines[line - 1]) if lines and 1 <= line <= len(lines) else None
        return seen[key]
    return at


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


# -- the axis -------------------------------------------------------------------------------

class Timing:
    """Relays in, ``(relay, x)`` out, in the same order. The first relays wait until the axis is
    decided (the module doc); ``several`` says the input is several files (untimed: ``order``)."""

    def __init__(self, stamps: Stamps, several: bool = False, axis: str | None = None) -> None:
        self.stamps = stamps
        self.several = several
        self.axis: str | None = axis
        self._held: list[R.Relay] = []
        self._last: dict[str | None, float] = {}
        self._first = 0.0

    def feed(self, r: R.Relay) -> list[tuple[R.Relay, float]]:
        if self.axis is None:
            self._held.append(r)
            if type(r) in _ENDS:
                self._decide(self.stamps(r.file, r.line) is not None)
            elif len(self._held) >= DECIDE_WITHIN:
                self._decide(all(self.stamps(h.file, h.line) is not None for h in self._held))
            return self._release() if self.axis is not None else []
        return [(r, self.x(r))]

    def finish(self) -> list[tuple[R.Relay, float]]:
        if self.axis is None:
            held = self._held
            self._decide(bool(held) and all(self.stamps(h.file, h.line) is not None for h in held))
        return self._release()

    def _decide(self, timed: bool) -> None:
        self.axis = TIME if timed else (ORDER if self.several else LINE)
        if timed:
            self._first = next((t for h in self._held if (t := self.stamps(h.file, h.line)) is not None), 0.0)

    def _release(self) -> list[tuple[R.Relay, float]]:
        held, self._held = self._held, []
        return [(h, self.x(h)) for h in held]

    def x(self, r: R.Relay) -> float:
        if self.axis == LINE:
            return float(r.line)
        if self.axis == ORDER:
            return float(r.seq)
        t = self.stamps(r.file, r.line)
        if t is None:
            t = self._last.get(r.file, self._first)
        self._last[r.file] = t
        return t


def positions(relays: Sequence[R.Relay], axis: str, stamps: Stamps) -> list[float]:
    """Each relay's x on ``axis`` (by index; the page's range filter reads them)."""
    if axis == LINE:  # no call per relay (a 600 MB run has 320,000)
        return [float(r.line) for r in relays]
    if axis == ORDER:
        return [float(r.seq) for r in relays]
    timing = Timing(stamps, axis=axis)
    if axis == TIME:
        timing._first = next((t for r in relays if (t := stamps(r.file, r.line)) is not None), 0.0)
    return [timing.x(r) for r in relays]


# -- the builder ----------------------------------------------------------------------------

_WAITING: Final = 1  # given its input, no answer yet: the stretch is the model's if it answers (not more input)
_ANSWERING: Final = 2  # the model has written: the stretch after is its if more of the answer follows
_IDLE: Final = 0


class _Open(msgspec.Struct, eq=False):
    """A tool call without its result yet."""

    use: R.ToolUse
    x: float
    row: int
    child: str | None = None  # the lane it spawned, once that lane started


class _Lane(msgspec.Struct, eq=False):
    track: Track
    start: float
    seq: int
    line: int
    file: str | None
    spawn: str | None  # the spawning call that is this lane's parent span (None: hangs under its parent lane)
    last_x: float
    last_seq: int
    clock: float  # the sweep of its wall time has reached here
    floor: float = float("-inf")  # the latest end of what closed under it
    calls: dict[str, _Open] = msgspec.field(default_factory=dict)
    children: dict[str, None] = msgspec.field(default_factory=dict)  # open lanes under it
    rows: list[float] = msgspec.field(default_factory=list)  # per tool row: when it is free (inf: in use)
    call_rows: list[float] = msgspec.field(default_factory=list)  # the same for its model calls
    state: int = _WAITING
    tentative: float = 0.0  # after the model wrote: the model's if it writes again, else idle
    tools: float = 0.0
    model: float = 0.0
    both: float = 0.0  # the model answering while a call ran
    parallel: float = 0.0  # two calls or more at once
    gap: float = 0.0
    longest: float = 0.0
    by_tool: dict[str, list[float]] = msgspec.field(default_factory=dict)
    msg: str | None = None  # the message being answered
    msg_start: float = 0.0
    msg_last: float = 0.0
    msg_first: R.Relay | None = None
    msg_at: float = 0.0  # x of its first relay
    since: float | None = None  # when the lane was last given input (None: answered since)
    closed: bool = False


class _Held(msgspec.Struct, eq=False):
    """A stretch of the run while lanes were at work on the model: the model's if one of them
    writes next, idle if each is given input or ends first."""

    dt: float
    lanes: set[str]
    gaps: list[tuple[float, float]]


class _Sweep:
    """The run's wall time cut as a lane's is (module doc), over every lane at once; and its idle
    stretches longer than ``gaps_over`` (between two relays: no record in them), for ``folds``."""

    def __init__(self, gaps_over: float = math.inf) -> None:
        self.clock: float | None = None
        self.tools = self.model = self.idle = self.both = self.parallel = 0.0
        self.held: list[_Held] = []  # consecutive stretches of one set of lanes are one
        self.gaps_over = gaps_over
        self.gaps: list[tuple[float, float]] = []

    def advance(self, x: float, open_calls: int, at_work: set[str], model_side: bool) -> None:
        """To ``x``: ``at_work``, the lanes waiting on the model or answering."""
        if self.clock is None:
            self.clock = x
            return
        dt = x - self.clock
        if dt <= 0:
            if dt < 0:  # a record out of time order: a long stretch it falls in is shorter
                self._cut(self.gaps, x)
                if self.held:
                    self._cut(self.held[-1].gaps, x)
            return
        began, self.clock = self.clock, x
        if open_calls:
            self.tools += dt
            if model_side:
                self.both += dt
            if open_calls > 1:
                self.parallel += dt
        elif at_work:
            held = self.held[-1] if self.held and self.held[-1].lanes == at_work else None
            if held is None:
                held = _Held(0.0, set(at_work), [])
                self.held.append(held)
                if len(self.held) > HELD_KEPT:  # none of its lanes has moved for that long: it was idle
                    self._idle(self.held.pop(0))
            held.dt += dt
            if dt > self.gaps_over:
                held.gaps.append((began, x))
        else:
            self.idle += dt
            if dt > self.gaps_over:
                self.gaps.append((began, x))

    def _cut(self, gaps: list[tuple[float, float]], x: float) -> None:
        """A record at ``x`` inside a long stretch already kept: what is left on either side of it
        (the stretches are in time order: only those ending after ``x`` are looked at)."""
        k = len(gaps) - 1
        while k >= 0 and gaps[k][1] > x:
            a, b = gaps[k]
            if a < x:
                gaps[k:k + 1] = [piece for piece in ((a, x), (x, b)) if piece[1] - piece[0] > self.gaps_over]
                return
            k -= 1

    def _idle(self, held: _Held) -> None:
        self.idle += held.dt
        self.gaps.extend(held.gaps)

    def resolve(self, lane: str, model: bool) -> None:
        """Lane ``lane`` wrote (``model``), or was given input or ended: the stretches held for it."""
        if not self.held:
            return
        keep: list[_Held] = []
        for held in self.held:
            if lane in held.lanes:
                if model:
                    self.model += held.dt
                    continue
                held.lanes.discard(lane)
                if not held.lanes:
                    self._idle(held)
                    continue
            keep.append(held)
        self.held = keep


Closed = Span | Call | Mark
# a model call ended, waiting for its usage: lane, start, end, message id, seq, line, file, row
_Ended = tuple[str, float, float, str | None, int, int, str | None, int]


class Builder:
    """Relays with their x in (:meth:`feed`, in relay order), finished spans, calls and marks out
    (``closed``, which the caller may empty as it goes); :meth:`finish` closes what is open.
    ``lost``: blocks no relay carries, by line (one file, or by file), placed as the relays pass."""

    def __init__(self, axis: str, lost: Iterable[Lost] = (), gaps_over: float = math.inf) -> None:
        self.axis = axis
        self.closed: list[Closed] = []
        self.tracks: dict[str, Track] = {}
        self.session_id: str | None = None
        self.notes: list[str] = []
        self.start: float | None = None
        self.end: float | None = None
        self.lost_count = 0
        self.errors = 0
        self._lanes: dict[str, _Lane] = {}
        self._calls: dict[str, _Open] = {}  # open tool calls by id, every lane
        # finished model calls waiting for their usage, by message id: the Call's fields but its model and
        # usage (it is made once, when they are known), and the x of its first relay
        self._awaiting: dict[str, tuple[_Ended, float]] = {}
        self._usage: dict[str, R.Usage] = {}  # usage that came before its call finished
        self._sweep = _Sweep(gaps_over)
        self._at_work: set[str] = set()  # lanes waiting on the model or answering
        self._states = LaneStates()
        self.whole: tuple[float, float, float, float] | None = None  # the run's parts from its timeline
        self._lost: dict[str | None, list[Lost]] = {}  # by file, last line first
        for b in sorted(lost, key=lambda b: -b.line):
            self._lost.setdefault(b.file, []).append(b)
        self._last: tuple[R.Relay, float] | None = None
        self._last_in: dict[str | None, tuple[str, float]] = {}  # per file: the lane and x of its last relay
        self._lane_ends: list[tuple[Track, _Sums]] = []  # closed lanes (their state freed): their figures
        self._by_tool: dict[str, list[float]] = {}
        self._tokens = {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_creation_tokens": 0}

    # -- feeding -------------------------------------------------------------------------------

    def feed(self, r: R.Relay, x: float) -> None:
        # This runs for every relay of a run (the page's swimlanes build a 600 MB run's 340,000):
        # the calls that would do nothing are not made (a sweep or a lane already at x, nothing
        # held to resolve), and a relay that is no block of the model's answer takes none of it.
        if self._lost:  # the last relay is looked at only to place lost blocks
            self._place_lost(r.file, r.line)
            self._last_in[r.file] = (r.lane, x)
            self._last = (r, x)
        if self.start is None or x < self.start:
            self.start = x
        if self.end is None or x > self.end:
            self.end = x
        kind = type(r)
        model_side = kind in _MODEL_TYPES
        sweep = self._sweep
        if x != sweep.clock:  # at the sweep's clock it has nothing to count
            sweep.advance(x, len(self._calls), self._at_work, model_side)
        if kind in _STATED:
            self._states.add(r)
        lane = r.lane
        ln = self._lanes.get(lane)
        if ln is None:
            if lane in self.tracks:  # a closed lane: only its last message's usage still counts
                if kind is R.Usage:
                    assert isinstance(r, R.Usage)
                    self._take_usage(self.tracks[lane], r)
                return
            ln = self._open_lane(r, x, r if isinstance(r, R.LaneStart) else None)
        if x > ln.clock:  # ``_advance`` counts nothing at or before the lane's clock
            self._advance(ln, x, model_side)
        if x > ln.last_x:
            ln.last_x = x
        ln.last_seq = r.seq
        if kind not in _NOTED:
            return
        if model_side:
            mid = getattr(r, "message_id", None) or f"@{r.seq}"
            if ln.msg != mid or ln.tentative or sweep.held:
                self._model_side(ln, r, x, mid)
            else:  # the next block of the message being answered, nothing held: as _model_side
                ln.msg_last = x
                ln.state = _ANSWERING
                self._at_work.add(lane)
        if kind is R.ToolUse:
            assert isinstance(r, R.ToolUse)
            self._tool_use(ln, r, x)
        elif kind in _INPUTS:
            self._input(ln, x)
            if kind is R.ToolResult:
                assert isinstance(r, R.ToolResult)
                self._tool_result(r, x)
        elif kind is R.LaneStart:
            assert isinstance(r, R.LaneStart)
            self._lane_start(ln, r)
        elif kind is R.Usage:
            assert isinstance(r, R.Usage)
            self._take_usage(ln.track, r)
        elif kind is R.SessionMeta:
            assert isinstance(r, R.SessionMeta)
            self.session_id = self.session_id or r.session_id
            ln.track.model = ln.track.model or r.model
        elif kind is R.TurnComplete:
            assert isinstance(r, R.TurnComplete)
            self._turn_complete(ln.track, r, x)
        elif kind is R.Error:
            assert isinstance(r, R.Error)
            self._mark(Mark("error", r.lane, x, r.seq, r.line, r.file, clip(r.message, 120)))
        elif kind is R.System:
            assert isinstance(r, R.System)
            if r.subtype == "task_notification":
                self._task_time(r)

    def finish(self) -> None:
        """End of input: every open lane closes at its last event (children first), then main."""
        for file in list(self._lost):
            self._place_lost(file, None)
        order = sorted(self._lanes.values(), key=lambda ln: -ln.track.depth)
        for ln in order:
            if not ln.closed and (ln.spawn is None or ln.spawn not in self._calls):
                self._close_lane(ln, ln.last_x, None)
        for c in sorted(self._calls.values(), key=lambda c: c.use.seq):  # calls of lanes closed meanwhile
            self._close_call(c, None, self._lanes[c.use.lane].last_x, None)
        for mid in list(self._awaiting):
            self._flush_call(mid)
        for lane, st in self._states.lanes.items():
            tr = self.tracks.get(lane)
            if tr is not None and lane != MAIN:
                tr.state, tr.status, tr.elapsed_s = st.state, status_words(st), st.elapsed_s

    # -- lanes ---------------------------------------------------------------------------------

    def _open_lane(self, r: R.Relay, x: float, start: R.LaneStart | None) -> _Lane:
        lane = r.lane
        tr = Track(lane, lane_label(MAIN, None, None) if lane == MAIN else lane, None if lane == MAIN else MAIN,
                   0 if lane == MAIN else 1, first_seq=r.seq)
        self.tracks[lane] = tr
        call = self._calls.get(lane)
        began, seq, line, file = x, r.seq, r.line, r.file
        ln = _Lane(tr, began, seq, line, file, None, x, r.seq, x)
        self._lanes[lane] = ln
        if lane != MAIN and call is not None:
            if call.use.lane == lane or self._under(call.use.lane, lane):
                self.notes.append(f"the call {lane} is in the lane it spawned: not that lane's parent (a cycle)")
            else:
                call.child = lane
                ln.spawn = lane
                ln.start, ln.seq, ln.line, ln.file, ln.clock = call.x, call.use.seq, call.use.line, call.use.file, call.x
                tr.parent = call.use.lane
        if lane != MAIN:
            parent = self._lanes.get(tr.parent or MAIN)
            if parent is not None and not parent.closed:
                parent.children[lane] = None
        ln.since = ln.start  # its start is what the model was first given (a prompt that comes is later)
        self._at_work.add(lane)
        return ln

    def _lane_start(self, ln: _Lane, r: R.LaneStart) -> None:
        tr = ln.track
        tr.label = r.label or lane_label(tr.id, r.agent_type, r.description)
        tr.depth = r.depth
        parent = r.parent_lane
        if tr.id == MAIN or parent is None:
            return
        if ln.spawn is not None:
            parent = self._calls[ln.spawn].use.lane if ln.spawn in self._calls else tr.parent
        if parent == tr.id or self._under(parent, tr.id):
            self.notes.append(f"lane {tr.id} names {'itself' if parent == tr.id else 'a lane under it'} as its "
                              "parent (a cycle): drawn under main")
            parent = MAIN
        if parent != tr.parent:
            old = self._lanes.get(tr.parent or MAIN)
            if old is not None:
                old.children.pop(tr.id, None)
            tr.parent = parent
            new = self._lanes.get(parent or MAIN)
            if new is not None and not new.closed:
                new.children[tr.id] = None

    def _under(self, lane: str | None, ancestor: str) -> bool:
        """Whether ``lane`` hangs (at any depth) under ``ancestor``."""
        seen: set[str] = set()
        while lane is not None and lane not in seen:
            if lane == ancestor:
                return True
            seen.add(lane)
            tr = self.tracks.get(lane)
            lane = tr.parent if tr is not None else None
        return False

    def _close_lane(self, ln: _Lane, at: float, end_seq: int | None, error: bool = False) -> float:
        """Close a lane at ``at``: what is open in it and under it first. Returns its end."""
        stack: list[tuple[_Lane, bool]] = [(ln, False)]
        end = at
        while stack:  # iterative: sub-agents nest deep
            cur, ready = stack.pop()
            if cur.closed:
                continue
            if not ready:
                stack.append((cur, True))
                for child in reversed(list(cur.children)):
                    kid = self._lanes.get(child)
                    if kid is not None and not kid.closed and kid.spawn not in cur.calls:
                        stack.append((kid, False))
                continue
            for c in sorted(cur.calls.values(), key=lambda c: c.use.seq):
                self._close_call(c, None, max(at, cur.last_x, c.x), None)
            end = self._end_lane(cur, at, end_seq if cur is ln else None, error and cur is ln)
        return end

    def _end_lane(self, ln: _Lane, at: float, end_seq: int | None, error: bool) -> float:
        tr = ln.track
        ln.closed = True
        end = max(at, ln.last_x, ln.floor, ln.start)
        self._advance(ln, end, False)
        self._resolve(ln, model=False)
        self._end_message(ln)
        self._at_work.discard(tr.id)
        parent = self._lanes.get(tr.parent) if tr.parent else None
        if parent is not None:
            parent.children.pop(tr.id, None)
            parent.floor = max(parent.floor, end)
        if tr.id == MAIN:
            end_seq = ln.last_seq
        tr.agent = Span("agent", tr.id, tr.label, tr.label, ln.start, end, ln.seq, end_seq, ln.line, ln.file,
                        tool_id=ln.spawn, error=error, parent_lane=tr.parent)
        tr.rows = max(1, len(ln.rows))
        self.closed.append(tr.agent)
        self._lane_ends.append((tr, _sums(ln, end)))
        del self._lanes[tr.id]  # what a closed lane held is done with; its track stays
        return end

    # -- tool calls ----------------------------------------------------------------------------

    def _tool_use(self, ln: _Lane, r: R.ToolUse, x: float) -> None:
        if r.id in self._calls:
            return  # the same call again (a repeated row): its first sighting opened it
        row = _free_row(ln.rows, x)
        c = _Open(r, x, row)
        self._calls[r.id] = ln.calls[r.id] = c
        kid = self._lanes.get(r.id)
        if kid is None:
            return
        if r.id == ln.track.id or self._under(ln.track.id, r.id):
            self.notes.append(f"the call {r.id} is in the lane it spawned (or under it): not that lane's parent "
                              "(a cycle)")
        elif not kid.closed and kid.spawn is None:
            c.child = r.id  # the lane began before its call was seen (lines out of order)

    def _tool_result(self, r: R.ToolResult, x: float) -> None:
        c = self._calls.get(r.tool_use_id)
        if c is not None:
            self._close_call(c, r, x, r.seq)

    def _close_call(self, c: _Open, res: R.ToolResult | None, at: float, end_seq: int | None) -> None:
        use = c.use
        ln = self._lanes[use.lane]
        self._calls.pop(use.id, None)
        ln.calls.pop(use.id, None)
        end = max(at, c.x)
        error = bool(res is not None and res.is_error)
        if c.child is not None:
            kid = self._lanes.get(c.child)
            done = self.tracks.get(c.child)
            if kid is not None and not kid.closed:
                end = max(end, self._close_lane(kid, end, end_seq, error))
            elif done is not None and done.agent is not None:
                end = max(end, done.agent.end)
        ln.rows[c.row] = end
        ln.floor = max(ln.floor, end)
        acc = ln.by_tool.setdefault(use.name, [0, 0.0])
        acc[0] += 1
        acc[1] += end - c.x
        acc = self._by_tool.setdefault(use.name, [0, 0.0])
        acc[0] += 1
        acc[1] += end - c.x
        self.closed.append(Span("tool", use.lane, use.name, use.input, c.x, end, use.seq, end_seq, use.line,
                                use.file, c.row, use.id, error, c.child))

    # -- model calls ---------------------------------------------------------------------------

    def _model_side(self, ln: _Lane, r: R.Relay, x: float, mid: str) -> None:
        if ln.msg != mid:
            self._end_message(ln)
            ln.msg, ln.msg_start, ln.msg_first, ln.msg_at = mid, ln.since if ln.since is not None else x, r, x
            ln.since = None
        ln.msg_last = x
        self._resolve(ln, model=True)
        ln.state = _ANSWERING
        self._at_work.add(ln.track.id)

    def _input(self, ln: _Lane, x: float) -> None:
        self._end_message(ln)
        self._resolve(ln, model=False)
        ln.state = _WAITING
        ln.since = x
        self._at_work.add(ln.track.id)

    def _end_message(self, ln: _Lane) -> None:
        first = ln.msg_first
        if first is None or ln.msg is None:
            return
        mid = ln.msg
        ln.msg, ln.msg_first = None, None
        start, end = ln.msg_start, max(ln.msg_last, ln.msg_start)
        row = _free_row(ln.call_rows, start)
        ln.call_rows[row] = end
        call = (ln.track.id, start, end, getattr(first, "message_id", None), first.seq, first.line, first.file, row)
        self._awaiting[mid] = (call, ln.msg_at)
        if mid in self._usage:
            self._flush_call(mid)
        elif len(self._awaiting) > AWAITING_USAGE:
            self._flush_call(next(iter(self._awaiting)))

    def _take_usage(self, tr: Track, r: R.Usage) -> None:
        tr.input_tokens += r.input_tokens
        tr.output_tokens += r.output_tokens
        tr.cache_read_tokens += r.cache_read_input_tokens
        tr.cache_creation_tokens += r.cache_creation_input_tokens
        self._tokens["input_tokens"] += r.input_tokens
        self._tokens["output_tokens"] += r.output_tokens
        self._tokens["cache_read_tokens"] += r.cache_read_input_tokens
        self._tokens["cache_creation_tokens"] += r.cache_creation_input_tokens
        if r.model:
            tr.model = tr.model or r.model
        if r.message_id is None:
            return
        self._usage[r.message_id] = r
        if r.message_id in self._awaiting:
            self._flush_call(r.message_id)
        elif len(self._usage) > AWAITING_USAGE:
            del self._usage[next(iter(self._usage))]

    def _flush_call(self, mid: str) -> None:
        (lane, start, end, message_id, seq, line, file, row), at = self._awaiting.pop(mid)
        u = self._usage.pop(mid, None)
        model = u.model if u is not None else None
        if model is None:  # the message said none: its lane's
            tr = self.tracks.get(lane)
            model = tr.model if tr else None
        if u is not None:
            call = Call(lane, start, end, message_id, model, seq, line, file, row, u.input_tokens, u.output_tokens,
                        u.cache_read_input_tokens, u.cache_creation_input_tokens, True)
        else:
            call = Call(lane, start, end, message_id, model, seq, line, file, row)
        self.closed.append(call)
        if call.message_id is not None:
            self.closed.append(Mark("model", call.lane, at, call.seq, call.line, call.file,
                                    call.model or "model turn"))

    # -- the sweep -----------------------------------------------------------------------------

    def _advance(self, ln: _Lane, x: float, model_side: bool) -> None:
        dt = x - ln.clock
        if dt <= 0:
            return
        ln.clock = x
        calls = len(ln.calls)
        if calls:
            ln.tools += dt
            ln.longest, ln.gap = max(ln.longest, ln.gap), 0.0
            if model_side:
                ln.both += dt
            if calls > 1:
                ln.parallel += dt
        elif ln.state != _IDLE:  # the model's if it writes next; idle if more input or the end comes
            ln.tentative += dt
        else:
            ln.gap += dt
            ln.longest = max(ln.longest, ln.gap)

    def _resolve(self, ln: _Lane, model: bool) -> None:
        """The model wrote (``model``: the stretch held since its input or its last block was its),
        or the lane was given input or ended (it was idle)."""
        if ln.tentative:
            if model:
                ln.model += ln.tentative
                ln.gap = 0.0
            else:
                ln.gap += ln.tentative
                ln.longest = max(ln.longest, ln.gap)
            ln.tentative = 0.0
        if not model:
            ln.state = _IDLE
        self._sweep.resolve(ln.track.id, model)

    # -- the rest ------------------------------------------------------------------------------

    def _turn_complete(self, tr: Track, r: R.TurnComplete, x: float) -> None:
        if r.duration_ms is not None:
            tr.reported_ms = (tr.reported_ms or 0.0) + float(r.duration_ms)
        ttft = r.extra.get("ttft_ms") if r.extra else None
        if isinstance(ttft, int | float):
            tr.ttft_ms = (tr.ttft_ms or 0.0) + float(ttft)
        for name in TIMING if r.extra else ():
            value = r.extra.get(name)
            if isinstance(value, int | float) and not isinstance(value, bool):
                tr.timing.setdefault(name, []).append(float(value))
        if r.is_error:
            self._mark(Mark("error", r.lane, x, r.seq, r.line, r.file, f"run ended: {r.subtype or 'error'}"))

    def _task_time(self, r: R.System) -> None:
        """A sub-agent task's own account of its time (stream-json ``task_notification``)."""
        try:
            data = msgspec.json.decode(r.data)
        except (msgspec.DecodeError, RecursionError):
            return
        if not isinstance(data, dict):
            return
        usage, lane = data.get("usage"), data.get("tool_use_id")
        tr = self.tracks.get(lane) if isinstance(lane, str) else None
        if tr is not None and isinstance(usage, dict) and isinstance(usage.get("duration_ms"), int | float):
            tr.reported_ms = float(usage["duration_ms"])

    def _mark(self, m: Mark) -> None:
        if m.kind == "error":
            self.errors += 1
        elif m.kind == "lost":
            self.lost_count += 1
        self.closed.append(m)

    def lost(self, b: Lost, lane: str, x: float) -> None:
        """A lost block found at the end (the CLI's streaming audit): its mark."""
        self._mark(Mark("lost", lane, x, None, b.line, b.file, b.words))

    def _place_lost(self, file: str | None, line: int | None) -> None:
        """The lost blocks of ``file`` before ``line`` (None: all) go on the lane of the relay at or
        before their line in that file."""
        waiting = self._lost.get(file)
        if waiting is None and file not in self._last_in and None in self._lost:
            file, waiting = None, self._lost[None]  # one text: its blocks carry no file
        while waiting and (line is None or waiting[-1].line < line):
            b = waiting.pop()
            lane, x = self._last_in.get(file) or ((self._last[0].lane, self._last[1]) if self._last else (MAIN, 0.0))
            at = float(b.line) if self.axis == LINE else x + (0.5 if self.axis == ORDER else 0.0)
            self.lost(b, lane, at)
        if not waiting:
            self._lost.pop(file, None)

    # -- figures -------------------------------------------------------------------------------

    def bounds(self) -> tuple[float, float]:
        """The run's start and end (after :meth:`finish`): its first record to its last."""
        start, end = self.start or 0.0, self.end or 0.0
        for tr in self.tracks.values():
            if tr.agent is not None:
                start, end = min(start, tr.agent.start), max(end, tr.agent.end)
        return start, end

    @property
    def gaps(self) -> list[tuple[float, float]]:
        """The idle stretches longer than ``gaps_over``, in order (``folds`` folds them)."""
        return sorted(self._sweep.gaps)

    def figures(self, order: Sequence[str] | None = None) -> dict[str, Any]:
        """Where the time went (after :meth:`finish`): per lane (in ``order``, else closing
        order) and for the run. Plain JSON values, in a fixed order."""
        sw = self._sweep
        start, end = self.bounds()
        wall = end - start
        run_tools, run_model, both, parallel = self.whole or (sw.tools, sw.model, sw.both, sw.parallel)
        tools = min(run_tools, wall)
        model = min(run_model, max(0.0, wall - tools))
        lanes = [_figures_of(tr, sums) for tr, sums in self._lane_ends]
        if order is not None:
            at = {f["lane"]: f for f in lanes}
            lanes = [at[k] for k in order if k in at]
        unit = "s" if self.axis == TIME else ("lines" if self.axis == LINE else "relays")
        return {
            "axis": self.axis, "axis_words": AXIS_WORDS[self.axis], "unit": unit, "session_id": self.session_id,
            "run": {"wall": _round(wall), "tools": _round(tools), "model_wait": _round(model),
                    "idle": _round(max(0.0, wall - tools - model)),
                    "overlap": {"model_and_tools": _round(both), "parallel_tools": _round(parallel)},
                    "tool_calls": int(sum(v[0] for v in self._by_tool.values())),
                    "by_tool": _top(self._by_tool, TOP_TOOLS),
                    "agents": len(self.tracks) - (1 if MAIN in self.tracks else 0), "tokens": dict(self._tokens),
                    "lost_blocks": self.lost_count, "errors": self.errors},
            "lanes": lanes,
            "notes": list(self.notes),
        }


class _Sums(msgspec.Struct, frozen=True):
    """What a closed lane's figures need of it (the lane itself is freed)."""

    wall: float
    tools: float
    model: float
    longest: float
    both: float
    parallel: float
    by_tool: dict[str, list[float]]


def _sums(ln: _Lane, end: float) -> _Sums:
    return _Sums(end - ln.start, ln.tools, ln.model, max(ln.longest, ln.gap), ln.both, ln.parallel, ln.by_tool)


def _figures_of(tr: Track, s: _Sums) -> dict[str, Any]:
    import statistics  # here, not at the top: about 10 ms of the page's import in Pyodide
    wall = s.wall
    tools, model = min(s.tools, wall), min(s.model, max(0.0, wall - s.tools))
    idle = max(0.0, wall - tools - model)
    return {
        "lane": tr.id, "label": tr.label, "depth": tr.depth, "parent": tr.parent, "model": tr.model,
        "wall": _round(wall), "tools": _round(tools), "model_wait": _round(model), "idle": _round(idle),
        "longest_idle": _round(min(s.longest, idle)),
        "overlap": {"model_and_tools": _round(s.both), "parallel_tools": _round(s.parallel)},
        "tool_calls": int(sum(v[0] for v in s.by_tool.values())),
        "by_tool": _top(s.by_tool, TOP_TOOLS),
        "tokens": {"input_tokens": tr.input_tokens, "output_tokens": tr.output_tokens,
                   "cache_read_tokens": tr.cache_read_tokens, "cache_creation_tokens": tr.cache_creation_tokens},
        "reported_ms": tr.reported_ms, "ttft_ms": tr.ttft_ms,
        "state": tr.state, "status": tr.status, "elapsed_s": tr.elapsed_s,
        "timing": {k: _round(statistics.median(v)) for k, v in tr.timing.items()},
        "timing_results": max((len(v) for v in tr.timing.values()), default=0),
    }


def _free_row(rows: list[float], x: float) -> int:
    """The lowest row free at ``x`` (its last span ended by then), taken until set free."""
    for k, free_at in enumerate(rows):
        if free_at <= x:
            rows[k] = float("inf")
            return k
    rows.append(float("inf"))
    return len(rows) - 1


# -- building a whole timeline ----------------------------------------------------------------

def build(relays: Sequence[R.Relay], stamps: Stamps, lost: Iterable[Lost] = (), several: bool = False) -> Timeline:
    """The timeline of one session (or stream): see the module doc."""
    return _finished(build_steps(relays, stamps, lost, several))


def _finished(steps: Generator[None, None, Timeline]) -> Timeline:
    """A timeline built a slice at a time (``build_steps``, ``_collect_steps``), built at once."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: Timeline = done.value
            return result


def build_steps(relays: Sequence[R.Relay], stamps: Stamps, lost: Iterable[Lost] = (),
                several: bool | None = None) -> Generator[None, None, Timeline]:
    """:func:`build` a slice at a time: yields after every ``SLICE_RELAYS`` relays looked at (the
    page's worker answers the reader between slices); returns the timeline. ``several``: the
    relays come from several files (None: told by their ``file``)."""
    if several is None:
        first = relays[0].file if relays else None
        several = any(r.file != first for r in relays)
    timing = Timing(stamps, several)
    lost = list(lost)
    b: Builder | None = None
    for start in range(0, len(relays), SLICE_RELAYS):
        if start:
            yield
        part = relays[start:start + SLICE_RELAYS]
        if b is None:  # the axis is not decided yet: Timing holds the first relays
            for k, r in enumerate(part, 1):
                pending = timing.feed(r)
                if pending:
                    b = Builder(timing.axis or LINE, lost)
                    for rel, x in pending:
                        b.feed(rel, x)
                    part = part[k:]
                    break
            else:
                continue
        # the axis is known: each relay straight to the builder, its x made here (no call for
        # the untimed axes, no pair for each: this runs for every relay)
        feed, axis = b.feed, timing.axis
        if axis == LINE:
            for r in part:
                feed(r, float(r.line))
        elif axis == ORDER:
            for r in part:
                feed(r, float(r.seq))
        else:
            x_of = timing.x
            for r in part:
                feed(r, x_of(r))
    tail = timing.finish()
    if b is None:
        b = Builder(timing.axis or LINE, lost)
    for rel, x in tail:
        b.feed(rel, x)
    b.finish()
    yield
    tl = yield from _collect_steps(b)
    if several:  # the files' relays come a file at a time, not in time order
        b.whole = run_parts(tl)
        tl.figures = b.figures([t.id for t in tl.tracks])
    return tl


def collect(b: Builder) -> Timeline:
    """A finished builder's spans, calls and marks as one :class:`Timeline`."""
    return _finished(_collect_steps(b))


def _collect_steps(b: Builder) -> Generator[None, None, Timeline]:
    """:func:`collect`, a pause after each sort (each is a whole run's spans, calls or marks)."""
    tl = Timeline(b.axis, session_id=b.session_id)
    tl.tracks = _ordered(b.tracks)
    tools = [c for c in b.closed if type(c) is Span and c.kind == "tool"]
    tools.sort(key=attrgetter("seq"))
    tl.spans = [t.agent for t in tl.tracks if t.agent is not None] + tools
    yield
    tl.calls = sorted((c for c in b.closed if type(c) is Call), key=attrgetter("seq"))
    yield
    tl.marks = sorted((m for m in b.closed if type(m) is Mark), key=attrgetter("at", "line"))
    yield
    every = [s.start for s in tl.spans] + [s.end for s in tl.spans] + [m.at for m in tl.marks]
    if b.start is not None and b.end is not None:  # the first record to the last (the figures' wall)
        every += b.bounds()
    tl.start, tl.end = (min(every), max(every)) if every else (0.0, 0.0)
    tl.notes = list(b.notes)
    tl.figures = b.figures([t.id for t in tl.tracks])
    return tl


def _ordered(tracks: Mapping[str, Track]) -> list[Track]:
    """Main first, then each lane right under the lane that spawned it, in order of appearance."""
    children: dict[str | None, list[Track]] = {}
    for t in tracks.values():
        if t.id == MAIN:
            continue
        parent = t.parent if t.parent in tracks and t.parent != t.id else MAIN
        children.setdefault(parent, []).append(t)
    out: list[Track] = []
    seen: set[str] = set()
    for root in ([tracks[MAIN]] if MAIN in tracks else []) + sorted(tracks.values(), key=lambda t: t.first_seq):
        stack = [root]  # iterative: sub-agents nest deep
        while stack:
            t = stack.pop()
            if t.id in seen:
                continue
            seen.add(t.id)
            out.append(t)
            stack.extend(sorted(children.get(t.id, []), key=lambda c: -c.first_seq))
    return out


# -- where the time went --------------------------------------------------------------------

def _merged(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        elif b > a:
            out.append((a, b))
    return out


def _length(merged: Sequence[tuple[float, float]]) -> float:
    return sum(b - a for a, b in merged)


def _common(x: Sequence[tuple[float, float]], y: Sequence[tuple[float, float]]) -> float:
    """How long two merged interval lists overlap."""
    total, i, j = 0.0, 0, 0
    while i < len(x) and j < len(y):
        total += max(0.0, min(x[i][1], y[j][1]) - max(x[i][0], y[j][0]))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return total


def run_parts(tl: Timeline) -> tuple[float, float, float, float]:
    """The run's (tools, model, model_and_tools, parallel_tools) from its spans and model calls:
    for a run whose relays do not come in time order (a session's files, each read in turn), where
    the sweep that follows the relays cannot go back. Tools: while a call ran; model: while a
    model call ran and no tool; parallel: while two calls or more ran."""
    tools = [(s.start, s.end) for s in tl.spans if s.kind == "tool"]
    merged, model = _merged(tools), _merged((c.start, c.end) for c in tl.calls)
    edges = sorted([(a, 1) for a, _ in tools] + [(b, -1) for _, b in tools])
    parallel, running, at = 0.0, 0, 0.0
    for x, step in edges:
        if running > 1:
            parallel += x - at
        running, at = running + step, x
    both = _common(merged, model)
    return _length(merged), _length(model) - both, both, parallel


def busy(tl: Timeline) -> list[tuple[float, float]]:
    """Where something was in flight in any lane, merged, in order: a tool call, a sub-agent, a
    model call (from its input to its answer's last block): what the figures count as not idle."""
    return _merged([(s.start, s.end) for s in tl.spans if s.kind == "tool" or s.lane != MAIN]
                   + [(c.start, c.end) for c in tl.calls])


def figures(tl: Timeline, relays: Sequence[R.Relay] = (), stamps: Stamps | None = None,
            top: int = TOP_TOOLS) -> dict[str, Any]:
    """Where the time went, per lane and for the run, in the axis' unit (seconds on ``time``,
    lines or relays otherwise): the running sums the timeline was built with."""
    return tl.figures


def _round(x: float) -> float:
    return round(x, 3)


def _top(by_tool: Mapping[str, list[float]], top: int) -> list[dict[str, Any]]:
    ranked = sorted(by_tool.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
    out = [{"tool": k, "calls": int(v[0]), "time": _round(v[1])} for k, v in ranked[:top]]
    rest = ranked[top:]
    if rest:
        out.append({"tool": "other", "calls": int(sum(v[0] for _, v in rest)), "time": _round(sum(v[1] for _, v in rest))})
    return out


def counted(n: int, noun: str, number: Callable[[int], str] = str) -> str:
    """``1 sub-agent``, ``3 sub-agents``: a count in words (the number written by ``number``)."""
    return f"{number(n)} {noun}{'' if n == 1 else 's'}"


def duration_words(seconds: float, axis: str) -> str:
    """A span's length for people: ``4.2 s``, ``2m 05s``; ``12 lines`` off the time axis."""
    if axis == LINE:
        n = round(seconds)
        return f"{n} line" + ("" if n == 1 else "s")
    if axis == ORDER:
        n = round(seconds)
        return f"{n} relay" + ("" if n == 1 else "s")
    if seconds < 10:
        return f"{seconds:.1f} s" if seconds >= 0.1 else f"{seconds * 1000:.0f} ms"
    s = round(seconds)
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s" if s >= 60 else f"{s} s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


_TIMING_WORDS: Final = {"time_to_request_ms": "request sent", "ttft_ms": "first token",
                        "ttft_stream_ms": "first streamed token", "first_content_frame_ms": "first content"}


def timing_words(timing: Mapping[str, float], results: int) -> str:
    """``request sent 0.1 s · first token 0.9 s ...``: a result's timing (the median of several)."""
    words = " · ".join(f"{_TIMING_WORDS[k]} " + (f"{v:,.0f} ms" if v < 10_000 else duration_words(v / 1000, TIME))
                       for k, v in timing.items() if k in _TIMING_WORDS)
    return words + (f" (median of {results} results)" if results > 1 else "")


def _utc(t: float) -> str:
    try:
        return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return f"{t:g}"


def folded_lines(folds: Mapping[str, Any]) -> list[str]:
    """The folded gaps (``folds.Fold.to_json``) as ``stats`` lists them: true times, in UTC."""
    breaks = folds.get("breaks") or []
    if not breaks:
        return []
    total = sum(b["folded_ms"] for b in breaks) / 1000
    head = (f"folded: {len(breaks)} idle gap{'s' if len(breaks) != 1 else ''} over "
            f"{duration_words(folds['threshold_s'], TIME)}, {duration_words(total, TIME)} in all")
    return [head] + [f"     {_utc(b['start'])} → {_utc(b['end'])} UTC  {b['label']}" for b in breaks]


def render_figures(fig: Mapping[str, Any]) -> str:
    """The figures as a short text report (``relayscope stats``); the folded gaps when the figures
    carry them (``export`` adds them)."""
    unit = fig["unit"]

    def q(v: float) -> str:
        return duration_words(v, fig["axis"]) if unit == "s" else f"{v:g} {unit}"

    def overlaps(o: Mapping[str, float]) -> str:
        parts = ([f"the model answering while a tool ran {q(o['model_and_tools'])}"] if o["model_and_tools"] else []) \
            + ([f"tools in parallel {q(o['parallel_tools'])}"] if o["parallel_tools"] else [])
        return f" (overlaps, counted once above: {', '.join(parts)})" if parts else ""
    run = fig["run"]
    out = [f"axis: {fig['axis_words']}" + (f" · session {fig['session_id']}" if fig.get("session_id") else ""),
           f"run: wall {q(run['wall'])} = in tools {q(run['tools'])} ({run['tool_calls']} calls) + "
           f"waiting on the model {q(run['model_wait'])} + idle {q(run['idle'])}{overlaps(run['overlap'])} · "
           f"{counted(run['agents'], 'sub-agent')}",
           f"     tokens {run['tokens']['input_tokens']} in · {run['tokens']['output_tokens']} out · "
           f"{run['tokens']['cache_read_tokens']} cache read · {run['tokens']['cache_creation_tokens']} cache write"
           + (f" · {counted(run['lost_blocks'], 'lost block')}" if run["lost_blocks"] else "")
           + (f" · {counted(run['errors'], 'error')}" if run["errors"] else "")]
    out += [f"     {t['tool']:<16} {t['calls']:>5} calls  {q(t['time'])}" for t in run["by_tool"]]
    for ln in fig["lanes"]:
        out.append(f"{'  ' * ln['depth']}{ln['label']}: wall {q(ln['wall'])} = tools {q(ln['tools'])} + "
                   f"model {q(ln['model_wait'])} + idle {q(ln['idle'])} (longest gap {q(ln['longest_idle'])})"
                   f"{overlaps(ln['overlap'])} · "
                   f"{ln['tokens']['input_tokens']} in / {ln['tokens']['output_tokens']} out tokens"
                   + (f" · reported {ln['reported_ms']:g} ms" if ln["reported_ms"] is not None else "")
                   + (f" · {ln['status']}" if ln.get("status") else ""))
        if ln.get("timing"):
            out.append(f"{'  ' * ln['depth']}  timing: {timing_words(ln['timing'], ln['timing_results'])}")
    out += folded_lines(fig.get("folds") or {})
    out += [f"note: {n}" for n in fig.get("notes", [])]
    return "\n".join(out) + "\n"
