"""growing: an input that grows while it is shown (a watched file or folder): its new bytes
translated as they come, nothing twice, and the lookups grown by what is new.

Job: ``start_live``, ``append`` (complete lines at once, a partial last line waits), ``finish_live``
(what only the end settles), and another strategy while watching (``rerun``: what was read so
far, again, and on from there).
Must not: read files (watch.py does), or draw.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..analysis import SLICE_BYTES, Analyzer
from ..drift import Drift
from ..live import LiveFiles
from ..translator import DEFAULT_STRATEGY, StrategyName
from .loading import Loader, as_bytes
from .workstate import ErrorView, Input, Text


class Growing(Loader):
    """A loaded input that may also grow (``live``)."""


    def start_live(self, name: str | None = None, *, folder: bool = False,
                   strategy: StrategyName = DEFAULT_STRATEGY, fmt: str = "auto") -> None:
        """Begin an empty input that :meth:`append` grows: one file, or a folder's files."""
        self._input = Input([], {}, fmt, name, not folder)
        self.strategy, self.name, self.audit = strategy, name, None
        self._live_rest = {}
        self._live = self._new_live(strategy)
        self.relays, self.trace, self.errors, self.lines_total = [], [], [], 0
        self.format = None
        for _ in self._index():
            pass

    @property
    def live(self) -> bool:
        return self._live is not None

    def append(self, data: Text | Mapping[str, Text]) -> range:
        """New bytes of the watched input (for a folder, ``{file: new bytes}``); complete lines
        are translated at once, a partial last line waits. Returns the seqs of the new relays.
        Nothing is translated twice; the lookups grow by what is new."""
        if self._live is None or self._input is None:
            raise ValueError("not watching: call start_live first")
        first = len(self.relays)
        steps = len(self.trace)
        if isinstance(data, Mapping):
            changes: dict[str | None, bytes] = {
                str(k): self._take_lines(str(k), as_bytes(v)) for k, v in data.items()}
            self._feed_live(changes)
        else:
            self._feed_live({None: self._take_lines(None, as_bytes(data))})
        self._grow_index(first, steps)
        return range(first, len(self.relays))

    def finish_live(self) -> range:
        """The watch ends: a last line without a newline, and the usage of messages still
        open, as translating the finished input would give. Returns the seqs of the new relays."""
        live, input_ = self._live, self._input
        if live is None or input_ is None:
            return range(len(self.relays), len(self.relays))
        first, steps = len(self.relays), len(self.trace)
        rests = {k: v for k, v in self._live_rest.items() if v}
        self._live_rest = {}
        for key, rest in rests.items():
            self._keep(key, rest, False)
        if isinstance(live, Analyzer):
            live.feed_text(rests.get(None, b""))
            live.finish()
        else:
            self.relays.extend(live.feed_many({str(k): v for k, v in rests.items()}))
            self.relays.extend(live.finish())
        self._live = None
        self._sync_live(live)
        self._grow_index(first, steps)
        return range(first, len(self.relays))

    def _new_live(self, strategy: StrategyName) -> Analyzer | LiveFiles:
        assert self._input is not None
        if self._input.single:
            self._drift = Drift()
            return Analyzer(strategy, self._input.fmt, trace=True, drift=self._drift)
        self._drift = None  # a folder watched: counted when asked (drift_report)
        return LiveFiles(strategy, self._input.fmt, trace=True)

    def rerun(self, strategy: StrategyName) -> Iterator[float]:
        """Translate the input again, with ``strategy`` (one being watched: what was read so far)."""
        if self._live is None or self._input is None:
            yield from super().rerun(strategy)
            return
        self.strategy, self.name = strategy, self._input.name
        yield from self._rerun_live(strategy)

    def _take_lines(self, key: str | None, data: bytes) -> bytes:
        """Keep the complete lines of ``data`` for raw views and re-runs; returns them."""
        assert self._input is not None
        rest = self._live_rest.get(key, b"") + data
        cut = rest.rfind(b"\n") + 1
        self._live_rest[key] = rest[cut:]
        whole = rest[:cut]
        if whole:
            self._keep(key, whole, True)
        return whole

    def _keep(self, key: str | None, data: bytes, whole_lines: bool) -> None:
        """Keep what a watched input grew by: its complete lines (``whole_lines``), or at its end
        the last line, which has no newline."""
        inp = self._input
        assert inp is not None
        if key is None:
            inp.lines.extend(data[:-1].split(b"\n") if whole_lines else [data])
            inp.trailing_newline = whole_lines  # what is kept ends with a line's newline
        else:
            grown = inp.files.setdefault(key, bytearray())
            assert isinstance(grown, bytearray)
            grown.extend(data)
            inp.grew(key)

    def _feed_live(self, changes: Mapping[str | None, bytes]) -> None:
        live = self._live
        if isinstance(live, Analyzer):
            live.feed_text(changes[None])  # complete lines: the analyzer keeps the relays
        elif live is not None:
            self.relays.extend(live.feed_many({k: v for k, v in changes.items() if k is not None and v}))
        if live is not None:
            self._sync_live(live)

    def _sync_live(self, live: Analyzer | LiveFiles) -> None:
        assert self._input is not None
        if isinstance(live, Analyzer):
            self.format = live.format
            self.relays, self.trace = live.relays, live.trace
            self.errors = [ErrorView(None, line, msg) for line, msg in live.errors]
            self._lane_meta = dict(live.lanes)
        else:
            self.trace = live.trace
            self.errors = [ErrorView(f, line, msg) for f, line, msg in live.errors]
            formats = live.formats()
            self.format = formats.pop() if len(formats) == 1 else ("mixed" if formats else None)
            self._lane_meta = live.lanes()
        self.lines_total = self._input.line_count()

    def _rerun_live(self, strategy: StrategyName) -> Iterator[float]:
        """Another strategy while watching: what was read so far, again, and on from there."""
        assert self._input is not None
        live = self._live = self._new_live(strategy)
        if isinstance(live, Analyzer):
            yield from live.feed_steps(self._input.lines, SLICE_BYTES, finish=False)
        else:
            self.relays = live.feed_many({k: bytes(v) for k, v in self._input.files.items()})
            yield 0.9
        self._sync_live(live)
        yield from self._index()
        yield 1.0

    def _grow_index(self, first: int, steps: int) -> None:
        """The lookups of :meth:`_index`, for relays from ``first`` and steps from ``steps`` on."""
        new = self.relays[first:]
        self._step_of_seq.extend([0] * len(new))
        trace = self.trace
        for i in range(steps, len(trace)):
            s = trace[i]
            self._add_step(s)
            for q in s.seqs:
                self._step_of_seq[q] = i
            self._step_index.setdefault((s.file, s.line), i)
            if s.fp is not None and s.fp not in self._fp_order:
                self._fp_order[s.fp] = len(self._fp_order)
        self._group_and_bookkeeping(first)  # goes on from where the last look stopped
        self.lanes = self._grow_lanes(new)
        self._lane_ids = {lane.id for lane in self.lanes}
        self.grow_search(first)  # after the lanes: a session row names its lane's model
