"""gutter: which column of the rows' gutter each lane's track takes, for rows in the order drawn.

A lane's track runs from its first row to its last *as drawn* (in time order, a sub-agent's rows
sit among main's), so lanes that ran together have tracks side by side. Columns are given by
interval colouring over row positions: lanes by their first row, each into the first column free
again (its last lane's track ended above), at most ``MAX_COLS`` of them.

Must not: know the workspace or the page (it is given each row's lane, in order), or colour lanes
(view.LaneLayout does, the same whatever the order).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Final

MAX_COLS: Final = 8  # lane columns drawn in the rows' gutter; lanes beyond share the row colour only


class Gutter:
    """The lanes' tracks over rows drawn in one order: ``lanes[i]`` is the lane of row ``i``."""

    def __init__(self, lanes: Sequence[str] = ()) -> None:
        n = len(lanes)  # dicts made in C (55,000 rows: a few ms): the last one written wins
        last = dict(zip(lanes, range(n), strict=True))
        first = dict(zip(reversed(lanes), range(n - 1, -1, -1), strict=True))
        self.spans = {lane: (first[lane], last[lane]) for lane in sorted(first, key=first.__getitem__)}
        ends: list[int] = []  # per column: the last row of the lane that holds it
        column: dict[str, int] = {}
        for lane, (start, end) in self.spans.items():
            col = next((c for c, e in enumerate(ends) if e < start), len(ends))
            ends[col:col + 1] = [end]
            column[lane] = col
        self.columns = min(len(ends), MAX_COLS)
        # per column: its lanes' first rows, in order, for a bisect per row
        self._starts: list[list[int]] = [[] for _ in range(self.columns)]
        self._lanes: list[list[str]] = [[] for _ in range(self.columns)]
        for lane, col in column.items():
            if col < self.columns:
                self._starts[col].append(self.spans[lane][0])
                self._lanes[col].append(lane)

    def at(self, col: int, pos: int) -> str | None:
        """The lane whose track is in column ``col`` at row ``pos`` (its place as drawn), if any."""
        k = bisect_right(self._starts[col], pos) - 1
        if k < 0:
            return None
        lane = self._lanes[col][k]
        return lane if self.spans[lane][1] >= pos else None
