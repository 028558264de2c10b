"""The builder: relays in, spans, calls and marks out, one relay at a time."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from .. import relay as R
from ..lanes import MAIN, lane_label
from ..present import clip
from ..subagents import LaneStates, status_words
from .records import (
    _INPUTS,
    _MODEL_TYPES,
    _NOTED,
    _STATED,
    AWAITING_USAGE,
    AXIS_WORDS,
    LINE,
    ORDER,
    TIME,
    TIMING,
    TOP_TOOLS,
    Call,
    Lost,
    Mark,
    Span,
    Track,
)
from .sweep import _ANSWERING, _IDLE, _WAITING, Closed, _Ended, _Lane, _Open, _Sweep
from .where import _figures_of, _round, _Sums, _sums, _sums_added, _top, counted


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
        self._clipped: dict[str, int] = {}  # lane -> its records timed before it began
        # a background agent (its spawn's result says "launched"): its lane ends at its lane_end,
        # not at that result; the launches whose lane has not begun (their call's start and lane)
        self._launched: set[str] = set()
        self._launches: dict[str, _Open] = {}
        self._ended: set[str] = set()  # lanes whose lane_end came while their call was open

    # -- feeding -------------------------------------------------------------------------------

    def feed(self, r: R.Relay, x: float) -> None:
        # This runs for every relay of a run (the page's swimlanes build a 600 MB run's 340,000):
        # the calls that would do nothing are not made (a sweep or a lane already at x, nothing
        # held to resolve), and a relay that is no block of the model's answer takes none of it.
        lane = r.lane
        ln = self._lanes.get(lane)
        if lane != MAIN:  # a record timed before its lane began (its spawning call) is drawn at that start
            floor = ln.start if ln is not None else self._spawn_x(lane)
            if floor is not None and x < floor:
                self._clipped[lane] = self._clipped.get(lane, 0) + 1
                x = floor
        elif ln is not None and x < ln.start:  # main is the root: it begins at its earliest record
            ln.start = x
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
        if ln is None:
            if kind is R.LaneEnd:
                return  # a lane already closed
            if lane in self.tracks and kind is R.LaneStart and getattr(r, "resumed_by", None):
                ln = self._reopen_lane(r, x)  # continued by a message after it returned: its next span
            elif lane in self.tracks:  # a closed lane: only its last message's usage still counts
                if kind is R.Usage:
                    assert isinstance(r, R.Usage)
                    self._take_usage(self.tracks[lane], r)
                return
            else:
                ln = self._open_lane(r, x, r if isinstance(r, R.LaneStart) else None)
        if x > ln.clock:  # ``_advance`` counts nothing at or before the lane's clock
            self._advance(ln, x, model_side)
        if x > ln.last_x:
            ln.last_x = x
        ln.last_seq = r.seq
        if kind not in _NOTED:
            if kind is R.LaneEnd:
                self._lane_end(ln)
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
        for lane, n in self._clipped.items():
            self.notes.append(f"{counted(n, 'event')} of lane {lane} {'is' if n == 1 else 'are'} timed before the "
                              "lane began (its spawning call): drawn from its start, so its spans stay inside "
                              "their parent's (clipped)")
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
        call = self._calls.get(lane) or self._launches.pop(lane, None)
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

    def _spawn_x(self, lane: str) -> float | None:
        """Where a lane not open yet will begin when its spawning call is its parent (as
        :meth:`_open_lane` decides), else None."""
        call = self._calls.get(lane)
        if call is None or lane in self.tracks or call.use.lane == lane or self._under(call.use.lane, lane):
            return None
        return call.x

    def _reopen_lane(self, r: R.Relay, x: float) -> _Lane:
        """A lane that ended, continued by a SendMessage call: a new span of its track from here."""
        tr = self.tracks[r.lane]
        ln = _Lane(tr, x, r.seq, r.line, r.file, None, x, r.seq, x, via=getattr(r, "resumed_by", None))
        self._lanes[tr.id] = ln
        parent = self._lanes.get(tr.parent or MAIN)
        if parent is not None and not parent.closed:
            parent.children[tr.id] = None
        ln.since = x
        self._at_work.add(tr.id)
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
        span = Span("agent", tr.id, tr.label, tr.label, ln.start, end, ln.seq, end_seq, ln.line, ln.file,
                    tool_id=ln.via or ln.spawn, error=error, parent_lane=tr.parent)
        tr.rows = max(tr.rows if ln.via else 1, len(ln.rows))
        self.closed.append(span)
        sums = _sums(ln, end)
        if ln.via is not None and tr.agent is not None:  # a later span: the lane's time counted once
            tr.resumed.append(span)
            at = next(i for i, (t, _) in enumerate(self._lane_ends) if t is tr)
            self._lane_ends[at] = (tr, _sums_added(self._lane_ends[at][1], sums))
        else:
            tr.agent = span
            self._lane_ends.append((tr, sums))
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

    def _lane_end(self, ln: _Lane) -> None:
        """A lane_end closes a lane no tool_result closes (a background agent's, a span after a
        message) at its last record; a lane whose spawning call is open waits for that call's
        result (a launch's result then closes it)."""
        lane = ln.track.id
        if ln.via is not None or lane in self._launched:
            self._close_lane(ln, ln.last_x, None)
        elif lane != MAIN:
            self._ended.add(lane)

    def _launch(self, c: _Open) -> None:
        """The call's result says its agent was launched in the background: its lane goes on (or
        has not begun yet: it begins at the call), and ends at its lane_end (or came already)."""
        lane = c.use.id
        kid = self._lanes.get(lane)
        if kid is None:
            if lane not in self.tracks:
                self._launches[lane] = c
            self._launched.add(lane)
        elif lane in self._ended:
            self._close_lane(kid, kid.last_x, None)
        else:
            self._launched.add(lane)

    def _close_call(self, c: _Open, res: R.ToolResult | None, at: float, end_seq: int | None) -> None:
        use = c.use
        ln = self._lanes[use.lane]
        self._calls.pop(use.id, None)
        ln.calls.pop(use.id, None)
        end = max(at, c.x)
        error = bool(res is not None and res.is_error)
        if res is not None and res.launched:  # the call took its launch; its agent's work is its lane's
            self._launch(c)
        elif c.child is not None:
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
            for span in ([tr.agent] if tr.agent is not None else []) + tr.resumed:
                start, end = min(start, span.start), max(end, span.end)
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


def _free_row(rows: list[float], x: float) -> int:
    """The lowest row free at ``x`` (its last span ended by then), taken until set free."""
    for k, free_at in enumerate(rows):
        if free_at <= x:
            rows[k] = float("inf")
            return k
    rows.append(float("inf"))
    return len(rows) - 1


