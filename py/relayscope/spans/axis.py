"""The axis: relays placed in time, in input line order or in relay order (the ordering)."""

from __future__ import annotations

from collections.abc import Sequence

from .. import relay as R
from .records import _ENDS, DECIDE_WITHIN, LINE, ORDER, TIME
from .stamps import Stamps

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


