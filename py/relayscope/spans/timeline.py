"""A whole timeline: relays placed on the axis, built and collected (tracks in order)."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Final

from .. import relay as R
from ..lanes import MAIN
from .axis import Timing
from .builder import Builder
from .records import LINE, ORDER, Call, Lost, Mark, Span, Timeline, Track
from .stamps import Stamps
from .where import run_parts

SLICE_RELAYS: Final = 2_500  # relays per slice of build_steps (a few ms: the caller hands the thread back by time)

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
    tl.spans = [s for t in tl.tracks for s in ([t.agent] if t.agent is not None else []) + t.resumed] + tools
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


