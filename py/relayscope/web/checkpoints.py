"""checkpoints: a translation's state kept as a load goes, and a translation made again from one.

Job: when to take a checkpoint of the load's translator (``Translator.checkpoint``), which to
drop as they pile up, the nearest one before a line; and the translation a step is made again in.
Must not: translate by itself, or know steps, rows or the page (``stepping`` uses what this keeps).
"""

from __future__ import annotations

import bisect
from typing import Any, Final

import msgspec

from ..analysis import Analyzer
from ..translator import Translator

# Checkpoints of the load's translation (``Checkpoints``), taken as the load passes every
# CHECKPOINT_BYTES of input, so that a step far from the last one looked at is made again from the
# nearest checkpoint before it instead of from the first line: a jump translates again at most that
# much input and one slice of the load more (checkpoints are taken between slices), wherever it
# goes. Bounded: past CHECKPOINTS_KEPT of them, or CHECKPOINT_ENTRIES entries in all
# (``Translator.checkpoint_size``; ~12 bytes each), every other one goes and the spacing doubles.
# A checkpoint of a big state (tens of thousands of ids, in a long turn) is spaced by its size too,
# CHECKPOINT_BYTES_PER_ENTRY bytes of input per entry: an entry takes 35 to 80 ns, a byte 11 to
# 15 ns to translate, so taking checkpoints costs the load 1 to 3% whatever the state
# (bench/jump_bench.py --unique).
CHECKPOINT_BYTES: Final = 2 << 20
CHECKPOINTS_KEPT: Final = 512
CHECKPOINT_ENTRIES: Final = 4_000_000
CHECKPOINT_BYTES_PER_ENTRY: Final = 256


class Replay(msgspec.Struct):
    """A translation of the input again, standing before line ``next`` (0-based)."""

    translator: Translator
    next: int = 0


class Checkpoints(msgspec.Struct):
    """Checkpoints of the load's translator (``Translator.checkpoint``) about every ``spacing``
    bytes of input: a step is made again from the nearest one at or before it. The load's
    translator keeps marks, as the one that makes steps again does: their states are the same."""

    spacing: int
    lines: list[int] = msgspec.field(default_factory=list)  # the line (0-based) each stands before, ascending
    states: list[tuple[Any, ...]] = msgspec.field(default_factory=list)
    sizes: list[int] = msgspec.field(default_factory=list)  # entries of each (``Translator.checkpoint_size``)
    _since: int = 0  # bytes passed since the last one
    _wait: int = 0  # bytes to pass before the next one, for its size (at least ``spacing``)

    def passed(self, analyzer: Analyzer, nbytes: int) -> None:
        """The load fed ``nbytes`` more bytes of input (at least; callers count what they know
        without summing line lengths, which touches every line and cost half as much as the
        checkpoints) and stands between two lines: take a checkpoint there if it is time."""
        self._since += nbytes
        if self._since < max(self.spacing, self._wait):
            return
        t = analyzer.translator
        if analyzer.marks is None or not isinstance(t, Translator):  # the format is not known yet, or not stream-json
            return
        size = t.checkpoint_size()
        self.lines.append(t.lines)
        self.states.append(t.checkpoint())
        self.sizes.append(size)
        while len(self.lines) > 1 and (len(self.lines) > CHECKPOINTS_KEPT or sum(self.sizes) > CHECKPOINT_ENTRIES):
            del self.lines[1::2], self.states[1::2], self.sizes[1::2]
            self.spacing *= 2
        self._since, self._wait = 0, size * CHECKPOINT_BYTES_PER_ENTRY

    def before(self, line: int) -> tuple[int, tuple[Any, ...] | None]:
        """The last checkpoint at or before ``line``: (its line, its state); (0, None) if none."""
        k = bisect.bisect_right(self.lines, line) - 1
        return (self.lines[k], self.states[k]) if k >= 0 else (0, None)
