"""folds: a run's time axis with its idle hours folded away, so that the work gets the width.

Theory of operation
-------------------
Real sessions are long and mostly idle: a person starts a run, leaves, comes back hours or days
later. On a true time axis the work is a sliver. A **gap** is a stretch of the run on the wall-clock
axis with nothing in flight in any lane - no tool call, no sub-agent, no model answer being waited
on (``spans.busy``: what the figures call busy) - and no record at all (no relay, no mark falls in
it). Every gap longer than ``THRESHOLD_S`` becomes a **break**: it keeps a narrow width of the axis
(``BREAK_SHARE`` of the work's length each, all of them together at most ``BREAKS_SHARE``), drawn as
a break and labelled with the time it folds (``4h 07m idle``).

``THRESHOLD_S`` = 5 minutes, chosen from the real sessions (tools/idle_gaps.py measures them: the
sessions of tests/fixtures/real/ and ../shared/corpus/real/session-jsonl/, 103 idle gaps): half of
the idle gaps are under a second and 90 % under 6 minutes (a person reading an answer, typing the
next prompt), while the 10 % longer than 5 minutes hold 99.35 % of all idle time (the person was
away: hours, days). A lower threshold adds breaks for the pauses of a working session and wins
almost no width; a higher one leaves idle hours on the axis.

The map between true time ``t`` and the folded axis ``x`` is piecewise linear: slope 1 on work,
``width / gap`` inside a break, so it is monotone, invertible and continuous; ``x`` is in seconds
from the run's start (``x(start) == 0``: small numbers keep a narrow break's inverse exact to the
microsecond, where seconds since the epoch would not), so a run with no break maps to ``t - start``.
Off the run's ends it goes on at slope 1. :meth:`Fold.to_axis` and :meth:`Fold.to_time` go either
way; :meth:`Fold.to_json` gives the breaks (``{start, end, folded_ms, at, width, label}``) and the
map as segments (``[t0, t1, x0, x1]``): the same data for the page's swimlanes (drawn in JS from
what the worker sends), an HTML snapshot, and ``relayscope stats``. Spans and marks keep their
true times; only where they are drawn moves.

Only the wall-clock axis folds (``spans.TIME``): on the input-line and relay-order axes x is no
time, and nothing is idle. Pure: no I/O, no DOM; must not change the timeline or the relays.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any, Final

import msgspec

from . import relay as R
from .spans import TIME, Stamps, Timeline, busy, duration_words, positions

__all__ = ["BREAKS_SHARE", "BREAK_SHARE", "THRESHOLD_S", "Break", "Fold", "fold", "idle_gaps", "of_run"]

THRESHOLD_S: Final = 300.0  # a gap longer than this folds (see the module doc for why 5 minutes)
BREAK_SHARE: Final = 0.02  # of the work's length on the axis, what each break keeps
BREAKS_SHARE: Final = 0.2  # of the work's length, what all breaks together keep at most


class Break(msgspec.Struct, frozen=True):
    """One folded gap: true ``start`` and ``end`` (seconds since the epoch), and where it sits on
    the folded axis: from ``at`` for ``width``."""

    start: float
    end: float
    at: float
    width: float

    @property
    def folded_ms(self) -> float:
        """The true time the break stands for, in ms (what its label says)."""
        return (self.end - self.start) * 1000

    @property
    def label(self) -> str:
        return f"{duration_words(self.end - self.start, TIME)} idle"


class Fold(msgspec.Struct, frozen=True):
    """The folded axis of one run: its breaks and the piecewise-linear map (``segments``: true
    ``[t0, t1]`` onto axis ``[x0, x1]``, in order, covering the run; the axis starts at 0)."""

    start: float
    end: float
    breaks: tuple[Break, ...] = ()
    segments: tuple[tuple[float, float, float, float], ...] = ()
    threshold_s: float = THRESHOLD_S

    @property
    def axis_end(self) -> float:
        """The folded axis' length (its start is 0)."""
        return self.segments[-1][3] if self.segments else 0.0

    @property
    def folded_s(self) -> float:
        """The true time all breaks stand for, less what they keep on the axis."""
        return sum(b.end - b.start - b.width for b in self.breaks)

    def to_axis(self, t: float) -> float:
        """A true time's place on the folded axis."""
        return _along(self.segments, t, 0, 2) if self.segments else t - self.start

    def to_time(self, x: float) -> float:
        """The true time at a place on the folded axis (the inverse of :meth:`to_axis`)."""
        return _along(self.segments, x, 2, 0) if self.segments else x + self.start

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values for the page, a snapshot or ``stats --json``: true times in seconds
        since the epoch, ``folded_ms`` in ms, axis places (``at``, ``width``, ``x0``, ``x1``,
        ``axis_end``) in seconds from the run's start on the folded axis."""
        return {
            "threshold_s": self.threshold_s, "start": self.start, "end": self.end, "axis_end": _r(self.axis_end),
            "folded_s": _r(self.folded_s),
            "breaks": [{"start": b.start, "end": b.end, "folded_ms": _r(b.folded_ms), "at": _r(b.at),
                        "width": _r(b.width), "label": b.label} for b in self.breaks],
            "segments": [[t0, t1, _r(x0), _r(x1)] for t0, t1, x0, x1 in self.segments],
        }


def _r(x: float) -> float:
    return round(x, 3)


def _along(segs: Sequence[tuple[float, float, float, float]], v: float, src: int, dst: int) -> float:
    """``v`` on the segments' ``src`` side (0: true time, 2: axis) carried to the ``dst`` side,
    linearly within its segment and at slope 1 off the ends."""
    k = max(bisect.bisect_right(segs, v, key=itemgetter(src)) - 1, 0)
    seg = segs[k]
    lo, hi, out_lo, out_hi = seg[src], seg[src + 1], seg[dst], seg[dst + 1]
    if v <= lo or hi == lo:
        return out_lo + (v - lo)
    if v >= hi:  # past the last segment (any other holds v or ends where the next begins)
        return out_hi + (v - hi)
    return out_lo + (v - lo) * (out_hi - out_lo) / (hi - lo)


def idle_gaps(points: Iterable[float], busy: Iterable[tuple[float, float]], start: float, end: float,
              threshold: float = THRESHOLD_S) -> list[tuple[float, float]]:
    """The stretches of ``[start, end]`` longer than ``threshold`` that hold no point and touch no
    busy interval, in order (``busy`` merged and sorted, as ``spans.busy`` gives it)."""
    edges = sorted({start, end, *(p for p in points if start <= p <= end)})
    flights = list(busy)
    out: list[tuple[float, float]] = []
    k = 0
    for a, b in itertools.pairwise(edges):
        if b - a <= threshold:
            continue
        while k < len(flights) and flights[k][1] <= a:
            k += 1
        # the stretch minus the flights that cross it: each free piece longer than threshold
        at = a
        j = k
        while j < len(flights) and flights[j][0] < b:
            lo, hi = flights[j]
            if lo - at > threshold:
                out.append((at, lo))
            at = max(at, hi)
            j += 1
        if b - at > threshold:
            out.append((at, b))
    return out


def _unfolded(start: float, end: float, threshold: float) -> Fold:
    """The axis as it is: one segment of slope 1 (none for a run that ends before it starts)."""
    return Fold(start, end, (), ((start, end, 0.0, end - start),) if end >= start else (), threshold)


def fold(gaps: Sequence[tuple[float, float]], start: float, end: float, threshold: float = THRESHOLD_S) -> Fold:
    """The folded axis of ``[start, end]`` with each of ``gaps`` (disjoint, in order, inside it)
    as a break. A gap a break would not shrink (the work is so long that a break's share of it is
    wider than the gap) is left as it is."""
    if not gaps or end <= start:
        return _unfolded(start, end, threshold)
    work = (end - start) - sum(b - a for a, b in gaps)
    keep = work * min(BREAK_SHARE, BREAKS_SHARE / len(gaps)) if work > 0 else threshold
    breaks: list[Break] = []
    segs: list[tuple[float, float, float, float]] = []
    t, x = start, 0.0
    for a, b in gaps:
        if b - a <= keep:
            continue
        if a > t:
            segs.append((t, a, x, x + (a - t)))
            x += a - t
        breaks.append(Break(a, b, x, keep))
        segs.append((a, b, x, x + keep))
        t, x = b, x + keep
    if end > t or not segs:
        segs.append((t, end, x, x + (end - t)))
    return Fold(start, end, tuple(breaks), tuple(segs), threshold)


def of_run(tl: Timeline, relays: Sequence[R.Relay], stamps: Stamps, threshold: float = THRESHOLD_S,
           xs: Sequence[float] | None = None) -> Fold:
    """The folded axis of one run (``spans.build``'s timeline of these relays); no break off the
    wall-clock axis. ``xs``: the relays' ``positions``, if the caller has them already."""
    if tl.axis != TIME or not relays:
        return _unfolded(tl.start, tl.end, threshold)
    if xs is None:
        xs = positions(relays, tl.axis, stamps)
    points = [*xs, *(m.at for m in tl.marks), *(s.start for s in tl.spans), *(s.end for s in tl.spans)]
    return fold(idle_gaps(points, busy(tl), tl.start, tl.end, threshold), tl.start, tl.end, threshold)
