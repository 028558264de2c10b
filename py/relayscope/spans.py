"""spans: the run in time. From the relays (and the input lines' timestamps) it builds, per lane,
the agent span (its spawning call to that call's result), the tool spans (``tool_use`` to its
``tool_result``), the model turns as marks, the lost blocks and errors as marks; and the figures
of "where the time went" per lane and for the run (wall time, time in tools by tool, waiting on
the model, idle gaps, tokens).

The axis (``Timeline.axis``):

* ``time``: every line that opens or closes a span carries its own ``timestamp`` (session
  transcripts; stream-json lines that have one). x is seconds since the epoch; a line without
  one takes the time of the line before it in its file.
* ``line``: otherwise, for one input: x is the input line number. What the stream says of time
  itself (a result's ``duration_ms`` and ``ttft_ms``, a sub-agent task's ``duration_ms`` in its
  ``task_notification``) is kept as ``reported_ms`` beside the figures, never mixed into x.
* ``order``: as ``line``, for several files without timestamps: x is the relay's seq.

A sub-agent's track carries its state as the lanes panel shows it (``subagents.LaneStates``:
running, with the last heartbeat's time; completed; failed); the main track carries what the
results report of the run's timing (``first_content_frame_ms``, ``time_to_request_ms``,
``ttft_ms``, ``ttft_stream_ms``), each result's value kept.

Reuses the layers below: lanes (labels, depth, parent) come from the ``lane_start`` relays, the
key input of a tool call from ``present``, the lost blocks from the audit's inventory
(``audit.relay_keys``: the audit's own mapping, so the two cannot disagree).

Pure: no I/O, no DOM. Must not: parse input lines beyond their ``timestamp`` (``stamp``), or
change the relays.
"""

from __future__ import annotations

import bisect
import heapq
import statistics
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
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
TOP_TOOLS: Final = 8
SLICE_RELAYS: Final = 25_000  # relays per slice of build_steps  # tools listed by time in the figures; the rest are summed as "other"
# Assistant-side relays: what the model wrote (a model turn is the first of a message's).
_MODEL_SIDE: Final = (R.TextDelta, R.ThinkingDelta, R.ToolUse, R.ContentBlock)
_MODEL_TYPES: Final = frozenset(_MODEL_SIDE)
_ENDS: Final = frozenset({R.ToolUse, R.ToolResult})
# the relays build_steps looks at beyond their lane and position (a type test on each is slow in Pyodide)
_NOTED: Final = frozenset({R.ToolUse, R.ToolResult, R.LaneStart, R.Usage, R.SessionMeta, R.TurnComplete, R.Error,
                           R.System, R.TextDelta, R.ThinkingDelta, R.ContentBlock, R.Passthrough})
_STATED: Final = frozenset({R.ToolUse, R.ToolResult, R.System, R.Passthrough})  # what moves a lane's state
# What a result reports of the run's timing (ms), in the order the figures list them.
TIMING: Final = ("time_to_request_ms", "ttft_ms", "ttft_stream_ms", "first_content_frame_ms")


# -- timestamps (the page's rows read them the same way: web/rowinfo re-exports these) ----------

class _Stamp(msgspec.Struct):
    timestamp: str | None = None


_stamp: Final = msgspec.json.Decoder(_Stamp)


def parse(stamp: str) -> float | None:
    """Seconds since the epoch of an ISO 8601 stamp (``Z`` allowed), or None."""
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


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


def stamps_of(files: Mapping[str | None, Sequence[bytes]]) -> Stamps:
    """A ``Stamps`` over input lines held in memory (``{file: lines}``, ``None`` for one text);
    each line is read once, when first asked for."""
    seen: dict[tuple[str | None, int], float | None] = {}

    def at(file: str | None, line: int) -> float | None:
        key = (file, line)
        if key not in seen:
            lines = files.get(file if file in files else None)
            seen[key] = line_seconds(lines[line - 1]) if lines and 1 <= line <= len(lines) else None
        return seen[key]
    return at


# -- the data -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Span:
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
    tool_id: str | None = None  # tool_use id (an agent: its spawning call's)
    error: bool = False
    child_lane: str | None = None  # a Task/Agent call: the lane it started

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


@dataclass(frozen=True, slots=True)
class Mark:
    kind: str  # "model" | "lost" | "error"
    lane: str
    at: float
    seq: int | None  # None for a lost block (no relay carries it)
    line: int
    file: str | None
    text: str


@dataclass(slots=True)
class Track:
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
    timing: dict[str, list[float]] = field(default_factory=dict)  # TIMING field -> each result's value


@dataclass(slots=True)
class Timeline:
    axis: str
    tracks: list[Track] = field(default_factory=list)  # main first, each sub-agent under its parent
    spans: list[Span] = field(default_factory=list)  # agents first (in track order), then tools by seq
    marks: list[Mark] = field(default_factory=list)
    start: float = 0.0
    end: float = 0.0
    session_id: str | None = None

    @property
    def axis_words(self) -> str:
        return AXIS_WORDS[self.axis]

    def track(self, lane: str) -> Track | None:
        return next((t for t in self.tracks if t.id == lane), None)


@dataclass(frozen=True, slots=True)
class Lost:
    """A content block no relay carries (the audit's word: lost), where it was in the input."""

    line: int
    file: str | None
    words: str


def lost_blocks(relays: Iterable[R.Relay], items: Mapping[Key, Item]) -> list[Lost]:
    """The blocks of the audit's inventory that the relays do not carry, in input order."""
    emitted = {key for key, _ in relay_keys(relays)}
    lost = [Lost(it.line, it.file, describe(key)) for key, it in items.items() if key not in emitted]
    lost.sort(key=lambda b: (b.file or "", b.line))
    return lost


# -- building -------------------------------------------------------------------------------

def _axis(relays: Sequence[R.Relay], stamps: Stamps) -> str:
    """``time`` when every span's ends carry a timestamp (and one does at all)."""
    ends = 0
    for r in relays:  # the first end without one settles it (an untimed stream: at its first call)
        if type(r) in _ENDS:
            ends += 1
            if stamps(r.file, r.line) is None:
                return _untimed(relays)
    if ends or (relays and all(stamps(r.file, r.line) is not None for r in relays[:64])):
        return TIME
    return _untimed(relays)


def _untimed(relays: Sequence[R.Relay]) -> str:
    first = relays[0].file if relays else None
    return ORDER if any(r.file != first for r in relays) else LINE


def positions(relays: Sequence[R.Relay], axis: str, stamps: Stamps) -> list[float]:
    """Each relay's x on ``axis`` (by index; the page's range filter reads them)."""
    if axis == LINE:
        return [float(r.line) for r in relays]
    if axis == ORDER:
        return [float(r.seq) for r in relays]
    last: dict[str | None, float] = {}
    xs: list[float] = []
    first = next((t for r in relays if (t := stamps(r.file, r.line)) is not None), 0.0)
    for r in relays:
        t = stamps(r.file, r.line)
        if t is None:
            t = last.get(r.file, first)
        last[r.file] = t
        xs.append(t)
    return xs


def build(relays: Sequence[R.Relay], stamps: Stamps, lost: Iterable[Lost] = ()) -> Timeline:
    """The timeline of one session (or stream): see the module doc."""
    steps = build_steps(relays, stamps, lost)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: Timeline = done.value
            return result


def build_steps(relays: Sequence[R.Relay], stamps: Stamps,
                lost: Iterable[Lost] = ()) -> Generator[None, None, Timeline]:
    """:func:`build` a slice at a time: yields after every ``SLICE_RELAYS`` relays looked at (the
    page's worker answers the reader between slices); returns the timeline."""
    axis = _axis(relays, stamps) if relays else LINE
    xs = positions(relays, axis, stamps)
    tl = Timeline(axis)
    tracks: dict[str, Track] = {}
    uses: dict[str, int] = {}  # tool_use id -> index in relays
    results: dict[str, int] = {}
    last_x: dict[str, float] = {}
    last_seq: dict[str, int] = {}
    first_at: dict[str, int] = {}
    msg_model: dict[str | None, str] = {}
    seen_msgs: set[tuple[str, str | None]] = set()
    states = LaneStates()
    for i, r in enumerate(relays):
        if not i % SLICE_RELAYS and i:
            yield
        lane = r.lane
        tr = tracks.get(lane)
        if tr is None:
            tr = tracks[lane] = Track(lane, lane_label(MAIN, None, None) if lane == MAIN else lane,
                                      None if lane == MAIN else MAIN, 0 if lane == MAIN else 1, first_seq=r.seq)
            first_at[lane] = i
        last_x[lane], last_seq[lane] = xs[i], r.seq
        kind = type(r)
        if kind not in _NOTED:
            continue
        if kind in _STATED:
            states.add(r)
        if isinstance(r, R.ToolUse):
            uses.setdefault(r.id, i)
        elif isinstance(r, R.ToolResult):
            results.setdefault(r.tool_use_id, i)
        elif isinstance(r, R.LaneStart):
            tr.label, tr.parent, tr.depth = r.label or lane_label(lane, r.agent_type, r.description), r.parent_lane, r.depth
        elif isinstance(r, R.Usage):
            tr.input_tokens += r.input_tokens
            tr.output_tokens += r.output_tokens
            tr.cache_read_tokens += r.cache_read_input_tokens
            tr.cache_creation_tokens += r.cache_creation_input_tokens
            if r.model:
                tr.model = tr.model or r.model
                msg_model.setdefault(r.message_id, r.model)
        elif isinstance(r, R.SessionMeta):
            tl.session_id = tl.session_id or r.session_id
            tr.model = tr.model or r.model
        elif isinstance(r, R.TurnComplete):
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
                tl.marks.append(Mark("error", lane, xs[i], r.seq, r.line, r.file, f"run ended: {r.subtype or 'error'}"))
        elif isinstance(r, R.Error):
            tl.marks.append(Mark("error", lane, xs[i], r.seq, r.line, r.file, clip(r.message, 120)))
        elif isinstance(r, R.System) and r.subtype == "task_notification":
            _task_time(r, tracks)
        if kind in _MODEL_TYPES:
            mid = getattr(r, "message_id", None)
            if mid is not None and (lane, mid) not in seen_msgs:
                seen_msgs.add((lane, mid))
                tl.marks.append(Mark("model", lane, xs[i], r.seq, r.line, r.file, mid))
    # model turns: named after the model that answered, once the usage has told it
    tl.marks = [Mark(m.kind, m.lane, m.at, m.seq, m.line, m.file, msg_model.get(m.text, "model turn"))
                if m.kind == "model" else m for m in tl.marks]
    tools: list[Span] = []
    yield
    for n, (tid, i) in enumerate(uses.items()):
        if not n % SLICE_RELAYS and n:
            yield
        u = relays[i]
        assert isinstance(u, R.ToolUse)
        j = results.get(tid)
        res = relays[j] if j is not None else None
        end = xs[j] if j is not None else max(last_x[u.lane], xs[i])
        tools.append(Span("tool", u.lane, u.name, u.input,
                          xs[i], max(end, xs[i]), u.seq, res.seq if res is not None else None, u.line, u.file,
                          tool_id=tid, error=bool(isinstance(res, R.ToolResult) and res.is_error),
                          child_lane=tid if tid in tracks and tid != u.lane else None))
    for tr in tracks.values():
        if tr.id == MAIN or tr.id not in uses:
            first = first_at[tr.id]
            start, seq, line, file = xs[first], relays[first].seq, relays[first].line, relays[first].file
        else:
            u = relays[uses[tr.id]]
            start, seq, line, file = xs[uses[tr.id]], u.seq, u.line, u.file
        j = results.get(tr.id) if tr.id != MAIN else None
        end = xs[j] if j is not None else last_x[tr.id]
        end_seq = relays[j].seq if j is not None else (last_seq[tr.id] if tr.id == MAIN else None)
        closing = relays[j] if j is not None else None
        err = isinstance(closing, R.ToolResult) and closing.is_error
        tr.agent = Span("agent", tr.id, tr.label, tr.label, start, max(end, start), seq, end_seq, line, file,
                        tool_id=tr.id if tr.id != MAIN and tr.id in uses else None, error=err)
    for lane, st in states.lanes.items():
        tr = tracks.get(lane)
        if tr is not None and lane != MAIN:
            tr.state, tr.status, tr.elapsed_s = st.state, status_words(st), st.elapsed_s
    tl.tracks = _ordered(tracks)
    yield
    _pack(tools, tl.tracks)
    yield
    tl.spans = [t.agent for t in tl.tracks if t.agent is not None] + sorted(tools, key=lambda s: s.seq)
    tl.marks.extend(_lost_marks(relays, xs, lost, axis, stamps))
    tl.marks.sort(key=lambda m: (m.at, m.line))
    every = [s.start for s in tl.spans] + [s.end for s in tl.spans] + [m.at for m in tl.marks]
    tl.start, tl.end = (min(every), max(every)) if every else (0.0, 0.0)
    return tl


def _task_time(r: R.System, tracks: Mapping[str, Track]) -> None:
    """A sub-agent task's own account of its time (stream-json ``task_notification``)."""
    try:
        data = msgspec.json.decode(r.data)
    except (msgspec.DecodeError, RecursionError):
        return
    if not isinstance(data, dict):
        return
    usage, lane = data.get("usage"), data.get("tool_use_id")
    tr = tracks.get(lane) if isinstance(lane, str) else None
    if tr is not None and isinstance(usage, dict) and isinstance(usage.get("duration_ms"), int | float):
        tr.reported_ms = float(usage["duration_ms"])


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

    def walk(t: Track) -> None:
        if t.id in seen:
            return
        seen.add(t.id)
        out.append(t)
        for c in sorted(children.get(t.id, []), key=lambda c: c.first_seq):
            walk(c)
    if MAIN in tracks:
        walk(tracks[MAIN])
    for t in sorted(tracks.values(), key=lambda t: t.first_seq):  # a parent cycle: still shown
        walk(t)
    return out


def _pack(tools: list[Span], tracks: list[Track]) -> None:
    """Give each tool span the lowest row of its lane's track where it overlaps no other (a heap
    of the rows' ends and one of the rows set free: a long run's calls never scan every row)."""
    busy: dict[str, list[tuple[float, int]]] = {}  # lane -> (end, row) of the rows in use
    free: dict[str, list[int]] = {}  # lane -> rows free again, lowest first
    rows: dict[str, int] = {}
    by_lane = {t.id: t for t in tracks}
    for k, s in sorted(enumerate(tools), key=lambda p: (p[1].start, p[1].seq)):
        used, spare = busy.setdefault(s.lane, []), free.setdefault(s.lane, [])
        while used and used[0][0] <= s.start:
            heapq.heappush(spare, heapq.heappop(used)[1])
        if spare:
            row = heapq.heappop(spare)
        else:
            row = rows.get(s.lane, 0)
            rows[s.lane] = row + 1
        heapq.heappush(used, (s.end, row))
        if row:
            tools[k] = _with_row(s, row)
    for lane, n in rows.items():
        if lane in by_lane:
            by_lane[lane].rows = max(1, n)


def _with_row(s: Span, row: int) -> Span:
    return Span(s.kind, s.lane, s.name, s.text, s.start, s.end, s.seq, s.end_seq, s.line, s.file, row,
                s.tool_id, s.error, s.child_lane)


def _lost_marks(relays: Sequence[R.Relay], xs: Sequence[float], lost: Iterable[Lost], axis: str,
                stamps: Stamps) -> list[Mark]:
    """A lost block sits on the lane of the relay at or before its line (in its file)."""
    lost = list(lost)
    if not lost:
        return []
    index: dict[str | None, tuple[list[int], list[int]]] = {}
    for n, r in enumerate(relays):
        lines, at = index.setdefault(r.file, ([], []))
        if not lines or r.line >= lines[-1]:
            lines.append(r.line)
            at.append(n)
    out: list[Mark] = []
    for b in lost:
        lines, at = index.get(b.file) or index.get(None) or ([], [])
        k = bisect.bisect_right(lines, b.line) - 1
        i: int | None = at[k] if k >= 0 else (at[0] if at else None)
        lane = relays[i].lane if i is not None else MAIN
        if axis == TIME:
            x = stamps(b.file, b.line)
            x = x if x is not None else (xs[i] if i is not None else 0.0)
        elif axis == LINE:
            x = float(b.line)
        else:
            x = xs[i] + 0.5 if i is not None else 0.0
        out.append(Mark("lost", lane, x, None, b.line, b.file, b.words))
    return out


# -- where the time went --------------------------------------------------------------------

def _union(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _length(intervals: Iterable[tuple[float, float]]) -> float:
    return sum(b - a for a, b in intervals)


def _model_intervals(relays: Sequence[R.Relay], xs: Sequence[float],
                     starts: Mapping[str, float]) -> dict[str, list[tuple[float, float]]]:
    """Per lane: from what the model was last given (a prompt, tool results, the lane's start) to
    the end of the message it answered with: the time the lane waited on the model. One pass."""
    out: dict[str, list[tuple[float, float]]] = {}
    since: dict[str, float | None] = dict(starts)
    msg: dict[str, str | None] = {}
    began: dict[str, float] = {}
    last: dict[str, float] = {}
    for i, r in enumerate(relays):
        lane = r.lane
        if isinstance(r, _MODEL_SIDE):
            mid = getattr(r, "message_id", None) or f"@{r.seq}"
            cur = msg.get(lane)
            if cur is None or mid != cur:
                if cur is not None:
                    out.setdefault(lane, []).append((began[lane], last[lane]))
                s = since.get(lane)
                msg[lane], began[lane], since[lane] = mid, s if s is not None else xs[i], None
            last[lane] = xs[i]
        elif isinstance(r, R.ToolResult | R.UserMessage):
            if msg.get(lane) is not None:
                out.setdefault(lane, []).append((began[lane], last[lane]))
                msg[lane] = None
            since[lane] = xs[i]
    for lane, cur in msg.items():
        if cur is not None:
            out.setdefault(lane, []).append((began[lane], last[lane]))
    return {k: [(a, b) for a, b in v if b > a] for k, v in out.items()}


def busy(tl: Timeline, relays: Sequence[R.Relay], xs: Sequence[float]) -> list[tuple[float, float]]:
    """Where something was in flight in any lane, merged, in order: a tool call, a sub-agent, the
    model answering (what the figures count as not idle); ``xs`` the relays' ``positions``."""
    waits = _model_intervals(relays, xs, {t.id: t.agent.start for t in tl.tracks if t.agent is not None})
    flights = [(s.start, s.end) for s in tl.spans if s.kind == "tool" or s.lane != MAIN]
    return _union(flights + [iv for lane in waits.values() for iv in lane])


def figures(tl: Timeline, relays: Sequence[R.Relay], stamps: Stamps, top: int = TOP_TOOLS) -> dict[str, Any]:
    """Where the time went, per lane and for the run, in the axis' unit (seconds on ``time``,
    lines or relays otherwise). Plain JSON values, in a fixed order."""
    xs = positions(relays, tl.axis, stamps)
    unit = "s" if tl.axis == TIME else ("lines" if tl.axis == LINE else "relays")
    lanes: list[dict[str, Any]] = []
    busy_all: list[tuple[float, float]] = []
    tools_all: list[tuple[float, float]] = []  # while some tool call ran, in any lane
    by_tool_all: dict[str, list[float]] = {}
    totals = {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_creation_tokens": 0}
    model_all = 0.0
    waits = _model_intervals(relays, xs, {t.id: t.agent.start for t in tl.tracks if t.agent is not None})
    tools_of: dict[str, list[Span]] = {}
    for s in tl.spans:
        if s.kind == "tool":
            tools_of.setdefault(s.lane, []).append(s)
    for tr in tl.tracks:
        agent = tr.agent
        assert agent is not None
        tools = tools_of.get(tr.id, [])
        tool_iv = _union((s.start, s.end) for s in tools)
        tools_all.extend(tool_iv)
        model_iv = _union(waits.get(tr.id, []))
        busy = _union(tool_iv + model_iv)
        busy_all.extend(busy)
        wall = agent.duration
        by_tool: dict[str, list[float]] = {}
        for s in tools:
            acc = by_tool.setdefault(s.name, [0, 0.0])
            acc[0] += 1
            acc[1] += s.duration
            acc_all = by_tool_all.setdefault(s.name, [0, 0.0])
            acc_all[0] += 1
            acc_all[1] += s.duration
        model = _length(model_iv)
        model_all += model
        tokens = {"input_tokens": tr.input_tokens, "output_tokens": tr.output_tokens,
                  "cache_read_tokens": tr.cache_read_tokens, "cache_creation_tokens": tr.cache_creation_tokens}
        for k, v in tokens.items():
            totals[k] += v
        lanes.append({
            "lane": tr.id, "label": tr.label, "depth": tr.depth, "parent": tr.parent, "model": tr.model,
            "wall": _round(wall), "tools": _round(_length(tool_iv)), "model_wait": _round(model),
            "idle": _round(max(0.0, wall - _length(busy))), "longest_idle": _round(_longest_gap(busy, agent)),
            "tool_calls": len(tools),
            "by_tool": _top(by_tool, top), "tokens": tokens,
            "reported_ms": tr.reported_ms, "ttft_ms": tr.ttft_ms,
            "state": tr.state, "status": tr.status, "elapsed_s": tr.elapsed_s,
            "timing": {k: _round(statistics.median(v)) for k, v in tr.timing.items()},
            "timing_results": max((len(v) for v in tr.timing.values()), default=0),
        })
    wall = tl.end - tl.start
    return {
        "axis": tl.axis, "axis_words": tl.axis_words, "unit": unit, "session_id": tl.session_id,
        "run": {"wall": _round(wall), "tools": _round(_length(_union(tools_all))),
                "model_wait": _round(model_all), "idle": _round(max(0.0, wall - _length(_union(busy_all)))),
                "tool_calls": sum(int(v[0]) for v in by_tool_all.values()), "by_tool": _top(by_tool_all, top),
                "agents": len(tl.tracks) - (1 if tl.track(MAIN) else 0), "tokens": totals,
                "lost_blocks": sum(1 for m in tl.marks if m.kind == "lost"),
                "errors": sum(1 for m in tl.marks if m.kind == "error")},
        "lanes": lanes,
    }


def _longest_gap(busy: list[tuple[float, float]], agent: Span) -> float:
    """The longest stretch of the lane's span with neither a tool call nor the model at work."""
    edges = [agent.start, *(x for iv in busy for x in iv), agent.end]
    return max((b - a for a, b in zip(edges[::2], edges[1::2], strict=False)), default=0.0)


def _round(x: float) -> float:
    return round(x, 3)


def _top(by_tool: Mapping[str, list[float]], top: int) -> list[dict[str, Any]]:
    ranked = sorted(by_tool.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
    out = [{"tool": k, "calls": int(v[0]), "time": _round(v[1])} for k, v in ranked[:top]]
    rest = ranked[top:]
    if rest:
        out.append({"tool": "other", "calls": int(sum(v[0] for _, v in rest)), "time": _round(sum(v[1] for _, v in rest))})
    return out


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
    carry them (``export.figures`` adds them)."""
    unit = fig["unit"]

    def q(v: float) -> str:
        return duration_words(v, fig["axis"]) if unit == "s" else f"{v:g} {unit}"
    run = fig["run"]
    out = [f"axis: {fig['axis_words']}" + (f" · session {fig['session_id']}" if fig.get("session_id") else ""),
           f"run: wall {q(run['wall'])} · in tools {q(run['tools'])} ({run['tool_calls']} calls) · "
           f"waiting on the model {q(run['model_wait'])} · idle {q(run['idle'])} · {run['agents']} sub-agent(s)",
           f"     tokens {run['tokens']['input_tokens']} in · {run['tokens']['output_tokens']} out · "
           f"{run['tokens']['cache_read_tokens']} cache read · {run['tokens']['cache_creation_tokens']} cache write"
           + (f" · {run['lost_blocks']} lost block(s)" if run["lost_blocks"] else "")
           + (f" · {run['errors']} error(s)" if run["errors"] else "")]
    out += [f"     {t['tool']:<16} {t['calls']:>5} calls  {q(t['time'])}" for t in run["by_tool"]]
    for ln in fig["lanes"]:
        out.append(f"{'  ' * ln['depth']}{ln['label']}: wall {q(ln['wall'])} · tools {q(ln['tools'])} · "
                   f"model {q(ln['model_wait'])} · idle {q(ln['idle'])} (longest gap {q(ln['longest_idle'])}) · "
                   f"{ln['tokens']['input_tokens']} in / {ln['tokens']['output_tokens']} out tokens"
                   + (f" · reported {ln['reported_ms']:g} ms" if ln["reported_ms"] is not None else "")
                   + (f" · {ln['status']}" if ln.get("status") else ""))
        if ln.get("timing"):
            out.append(f"{'  ' * ln['depth']}  timing: {timing_words(ln['timing'], ln['timing_results'])}")
    out += folded_lines(fig.get("folds") or {})
    return "\n".join(out) + "\n"
