"""One run as it is read: the builder fed line by line, timestamps kept, lost blocks watched for."""

from __future__ import annotations

import hashlib
import math
import sys
from array import array
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Final

from .. import relay as R
from .. import spans as S
from .._bounded import WITHDRAW_WINDOW, RecentMap
from ..audit import Inventory, Key, RelayKeys, describe
from ..audit import digest as audit_digest
from ..folds import THRESHOLD_S
from ..lanes import MAIN

FORMATS: Final = ("chrome-trace", "otlp")
LINE_US: Final = 1000  # off the time axis: one line (or relay) is drawn as one millisecond
SCOPE: Final = "relayscope"
STAMPS_KEPT: Final = 1 << 14  # lines whose timestamps a late relay (a message's usage) may still ask for
LOST_AFTER: Final = 4096  # lines a block may wait for the relay that carries it before it counts as lost
SEEN_KEPT: Final = 1 << 13  # digests of emitted blocks per generation (two are kept: 8,192 to 16,384 blocks back)
OPEN_KEPT: Final = 256  # blocks whose text is held for a partial relay that may still continue it
ERRORS_KEPT: Final = 1000  # unreadable lines named on stderr; the rest are counted
EVENTS_KEPT: Final = 1000  # marks kept as events of one span; the rest are counted


def _base(name: str | None) -> str | None:
    return name.replace("\\", "/").rsplit("/", 1)[-1] if name else name


def day_start(now: float) -> float:
    """The start of ``now``'s UTC day: where an untimed run is placed by default (a collector's
    default view, "the last 7 days", shows it; the same bytes all day)."""
    return float(int(now) // 86400 * 86400)


# -- one run as it is read ------------------------------------------------------------------

class Live:
    """One session (or stream) as its relays come: relays in, finished spans, calls and marks
    out. ``seed``: what names the run beside its session id: its first line that is not blank."""

    def __init__(self, name: str | None, stamps: S.Stamps, seed: bytes, several: bool = False,
                 lost: Iterable[S.Lost] = (), notes: S.StampNotes | None = None) -> None:
        self.name = name
        self.seed = seed
        self.timing = S.Timing(stamps, several)
        self.known_lost = list(lost)  # blocks the whole-file audit found lost (several files)
        self.builder: S.Builder | None = None
        self.stamp_notes = notes
        # what could not be read (file, line, message), told by the reader when the run ends (an
        # Arbiter ``error`` event is content, not such a line)
        self.errors: list[tuple[str | None, int, str]] = []
        self.error_count = 0
        self._early: list[Found] = []  # lost blocks found before the axis was known
        self.watch: LostWatch | None = None  # one text's streamed audit (a folder's is whole)
        self.folds: dict[str, Any] | None = None  # a session's folded gaps, from its whole timeline

    def feed(self, relays: Iterable[R.Relay]) -> list[S.Closed]:
        b = self.builder
        x = self.timing.x
        for r in relays:
            if b is not None:  # the axis is known: each relay straight to the builder
                b.feed(r, x(r))
                continue
            self._take(self.timing.feed(r))
            b = self.builder
        return self.drain()

    def finish(self, late: Callable[[S.Builder], None] | None = None) -> list[S.Closed]:
        self._take(self.timing.finish())
        b = self.builder_now()
        self.lost([])
        if late is not None:
            late(b)
        b.finish()
        if self.stamp_notes is not None:
            b.notes.extend(self.stamp_notes.words())
        return self.drain()

    def builder_now(self) -> S.Builder:
        if self.builder is None:
            self.builder = S.Builder(self.timing.axis or S.LINE, self.known_lost, THRESHOLD_S)
        return self.builder

    def lost(self, found: list[Found]) -> None:
        """Blocks no relay carries (the streamed audit), each on the lane it was found in."""
        if self.builder is None:
            self._early.extend(found)  # the axis, which places them, is not known yet
            return
        b = self.builder
        if self._early:
            found, self._early = self._early + found, []
        for line, file, lane, words, x in found:
            b.lost(S.Lost(line, file, words), lane, float(line) if b.axis == S.LINE else x)

    def _take(self, pairs: list[tuple[R.Relay, float]]) -> None:
        if pairs:
            b = self.builder_now()
            for r, x in pairs:
                b.feed(r, x)
            if self._early:
                self.lost([])

    def drain(self) -> list[S.Closed]:
        if self.builder is None or not self.builder.closed:
            return []
        out, self.builder.closed = self.builder.closed, []
        return out


class StampRing:
    """The timestamps of one file's last ``size`` lines, by line number, in a fixed array (NaN:
    none): a late relay may still ask for its line's time; older lines answer None."""

    __slots__ = ("size", "top", "values")

    def __init__(self, size: int = STAMPS_KEPT) -> None:
        self.size = size
        self.values = array("d", [math.nan]) * size
        self.top = 0  # the last line put

    def put(self, line: int, seconds: float | None) -> None:
        self.values[line % self.size] = math.nan if seconds is None else seconds
        self.top = max(self.top, line)

    def get(self, line: int) -> float | None:
        if not self.top - self.size < line <= self.top:
            return None
        v = self.values[line % self.size]
        return None if v != v else v  # NaN: no stamp


_WIDE: Final = sys.hash_info.width >= 64  # CPython on 64-bit machines; Pyodide's hashes are 32 bits


def _digest(key: Key) -> int:
    """A block's key as 8 bytes, for as long as this process runs: the key's own hash where it has
    64 bits (its texts are hashed once, and the hash is kept on them), else BLAKE2b of it."""
    if _WIDE:
        return hash(key)
    raw = repr(key).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "big")


class _BoundedKeys(RelayKeys):
    """The audit's relay keys, holding the text of the last ``OPEN_KEPT`` blocks only (the ones a
    partial relay may still continue: the message being streamed or grown)."""

    def __init__(self) -> None:
        super().__init__()
        self.open_blocks = RecentMap(OPEN_KEPT)


class _Seen:
    """Digests of the blocks done with lately (emitted, or said lost): two generations of at most
    ``SEEN_KEPT`` (a block repeats close to where it was first seen, as the translator's own windows
    assume; one repeated further apart is looked at again)."""

    __slots__ = ("new", "old")

    def __init__(self) -> None:
        self.new: set[int] = set()
        self.old: set[int] = set()

    def add(self, d: int) -> None:
        self.new.add(d)
        if len(self.new) >= SEEN_KEPT:
            self.old, self.new = self.new, set()

    def discard(self, d: int) -> None:
        self.new.discard(d)
        self.old.discard(d)

    def __contains__(self, d: int) -> bool:
        return d in self.new or d in self.old


_GROWS: Final = (R.TextDelta, R.ThinkingDelta)  # the blocks a partial relay may continue
Found = tuple[int, str | None, str, str, float]  # a lost block: its line and file, the lane and x where it was, its words


class LostWatch:
    """The audit's question, asked as the lines pass: which blocks of the inventory does no relay
    carry? A block no relay has carried ``LOST_AFTER`` lines after its line is lost (``due``);
    a block of a message a refusal fallback withdraws is retracted, never lost (the audit's rule:
    its inventory, ``audit.Inventory`` without its items, says which). Held: digests of what was
    done with lately, the blocks still waiting (digest, line, words), the text of the last blocks a
    partial relay may continue: constant in the input's length. What the audit counts once, this
    says once, unless its repeats are further apart than that window."""

    def __init__(self, file: str | None = None) -> None:
        self.file = file
        self.inv = Inventory(file, keep=False)
        self.keys = _BoundedKeys()
        self.emitted = _Seen()
        self.growing: RecentMap[int, int] = RecentMap(WITHDRAW_WINDOW)  # a streamed block's first seq -> digest so far
        self.pending: dict[int, tuple[Found, bytes]] = {}  # digest -> where the block was, the audit's digest
        self.order: deque[tuple[int, int]] = deque()  # (line, digest) in the order found
        self.where: tuple[str, float] = (MAIN, 0.0)

    def line(self, number: int, raw: bytes) -> None:
        self.inv.add_line(number, raw)
        if self.inv.fresh:
            self._found()

    def _found(self) -> None:
        """The blocks the inventory found since it was last asked."""
        for key, number, _ in self.inv.fresh:
            self.add(key, number)
        self.inv.fresh.clear()

    def relays(self, relays: Iterable[R.Relay], x_of: Callable[[R.Relay], float | None]) -> None:
        feed, emitted, pending, growing = self.keys.feed, self.emitted, self.pending, self.growing
        for r in relays:
            found = feed(r)
            x = x_of(r)
            self.where = (r.lane, self.where[1] if x is None else x)  # off the time axis the line places it
            if found is None:
                continue
            key, first = found
            d = _digest(key)
            if first != r.seq:  # a streamed block grows: only its whole key counts
                old = growing.get(first)
                if old is not None and old != d:
                    emitted.discard(old)
                growing[first] = d
            elif type(r) in _GROWS:
                growing[first] = d
            emitted.add(d)
            pending.pop(d, None)

    def add(self, key: Key, number: int) -> None:
        d = _digest(key)
        if d not in self.emitted and d not in self.pending:
            where = (number, self.file, self.where[0], describe(key), self.where[1])
            self.pending[d] = (where, audit_digest(key))  # what a refusal fallback may name later
            self.order.append((number, d))

    def due(self, number: int) -> list[Found]:
        """The blocks found ``LOST_AFTER`` lines before ``number`` that no relay carried since."""
        out: list[Found] = []
        order, pending, withdrawn = self.order, self.pending, self.inv.withdrawn
        while order and order[0][0] <= number - LOST_AFTER:
            d = order.popleft()[1]
            got = pending.pop(d, None)
            if got is not None:
                self.emitted.add(d)  # done with: said once, as the audit counts a block once
                if not (withdrawn and got[1] in withdrawn):  # withdrawn: retracted, not lost
                    out.append(got[0])
        return out

    def finish(self) -> list[Found]:
        """End of input: what still waits is lost."""
        self.inv.finish()
        self._found()  # the streamed blocks the end made whole
        return self.due(sys.maxsize)

    def notes(self) -> list[str]:
        return retracted_words(len(self.inv.withdrawn))


def retracted_words(n: int) -> list[str]:
    return [f"{n} block(s) retracted by a model_refusal_fallback (withdrawn on purpose: neither lost "
            "nor emitted)"] if n else []


