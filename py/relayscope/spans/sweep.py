"""The builder's state of each lane and call, and the sweep that cuts the run into stretches."""

from __future__ import annotations

import math
from typing import Final

import msgspec

from .. import relay as R
from .records import HELD_KEPT, Call, Mark, Span, Track

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
    via: str | None = None  # a later span: the SendMessage call that continued the lane


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


