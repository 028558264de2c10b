"""snapshot.axis: where a time falls across the snapshot's swimlanes.

An :class:`Axis` maps a time to 0..1 across the lanes and gives the labels under them and the
breaks (folded gaps, with what each stands for). :func:`folded` is the page's folded axis
(``folds``: idle gaps over 5 minutes drawn narrow); :func:`linear` is true time (or line order);
any other plugs in through ``render(axis=...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from .. import spans as S
from ..export import Run
from ..folds import Fold, of_run


class Axis(Protocol):
    """Where a time falls across the swimlanes (0 to 1), the labels under them, and the breaks
    (from, to, in 0 to 1, and what each stands for)."""

    def x(self, t: float) -> float: ...

    def labels(self) -> list[tuple[float, str]]: ...

    def breaks(self) -> list[tuple[float, float, str]]: ...


@dataclass(frozen=True, slots=True)
class Linear:
    start: float
    end: float
    axis: str

    def x(self, t: float) -> float:
        return (t - self.start) / (self.end - self.start) if self.end > self.start else 0.0

    def labels(self) -> list[tuple[float, str]]:
        if self.axis != S.TIME:
            unit = "line" if self.axis == S.LINE else "relay"
            return [(0.0, f"{unit} {self.start:g}"), (1.0, f"{unit} {self.end:g}")]
        return [(0.0, _clock(self.start)), (1.0, _clock(self.end))]

    def breaks(self) -> list[tuple[float, float, str]]:
        return []


@dataclass(frozen=True, slots=True)
class Folded:
    fold: Fold

    def x(self, t: float) -> float:
        end = self.fold.axis_end
        return self.fold.to_axis(t) / end if end > 0 else 0.0

    def labels(self) -> list[tuple[float, str]]:
        return [(0.0, _clock(self.fold.start)), (1.0, _clock(self.fold.end))]

    def breaks(self) -> list[tuple[float, float, str]]:
        end = self.fold.axis_end
        return [(b.at / end, (b.at + b.width) / end, f"{b.label}: {_clock(b.start)} to {_clock(b.end)} UTC")
                for b in self.fold.breaks] if end > 0 else []


def linear(run: Run) -> Axis:
    """True time (or line order) from the run's first span to its last."""
    tl = run.timeline
    return Linear(tl.start, tl.end, tl.axis)


def folded(run: Run) -> Axis:
    """The page's folded axis (``folds.of_run``) on wall-clock time; else :func:`linear`."""
    if run.timeline.axis != S.TIME:
        return linear(run)
    return Folded(of_run(run.timeline, run.relays, run.stamps))


AxisOf = Callable[[Run], Axis]


def _clock(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%H:%M:%S")
