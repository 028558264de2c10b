"""loading: reading an input into the workspace, re-running it, auditing it.

Job: a text or a folder's files, whole or a slice at a time (``start_load``/``load_more``), into
relays and steps; the same input again with another strategy; the lookups rows and steps need
(``_index``), the audit and what became of each block. An input that grows is growing.py's.
Heavy work is a generator that yields its progress in [0, 1] after each slice, so that the page
can hand control back to the browser between slices.
Must not: draw or build markup, or decide what a row or a step shows (``rows``, ``stepping``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

import msgspec

from .. import fates as F
from .. import relay as R
from .. import trace as T
from ..analysis import SLICE_BYTES, Analyzer
from ..audit import StrategyAudit
from ..drift import Drift, DriftReport
from ..multifile import audit_steps, merge_audits, translate_groups
from ..subagents import LaneStates
from ..translator import DEFAULT_STRATEGY, StrategyName
from ..usage import Tally
from .checkpoints import Checkpoints
from .search import Search
from .workstate import AuditView, ErrorView, Input, Loading, Text

INDEX_SLICE: Final = 50_000  # relays per pass of the lookups between two pauses (a 600 MB input has 340,000)


class Loader(Search):
    """Loading, re-running and auditing; the lookups made after each."""


    def load(self, data: Text | Mapping[str, Text], *, name: str | None = None,
             strategy: StrategyName = DEFAULT_STRATEGY, fmt: str = "auto") -> Iterator[float]:
        """Read one text (``str``/``bytes``) or several files (``{name: content}``); one file
        given as several is the text."""
        if isinstance(data, Mapping) and len(data) != 1:
            self._input = Input([], {str(k): as_bytes(v) for k, v in data.items()}, fmt, name, False)
            self.audit, self._items = None, None
            yield from self.rerun(strategy)
            return
        if isinstance(data, Mapping):
            ((only, text),) = data.items()
            name, data = name or str(only), text
        content = as_bytes(data)
        self.start_load(name=name, strategy=strategy, fmt=fmt, size=len(content))
        yield from self.load_more(content)
        yield from self.end_load()

    # A single text given a slice at a time (the page reads a big file so, and translates each
    # slice while the browser reads the next): lines are split and translated as they come, and
    # nothing else of the input is held, so the whole file never sits in memory twice.

    def start_load(self, *, name: str | None = None, strategy: StrategyName = DEFAULT_STRATEGY,
                   fmt: str = "auto", size: int = 0) -> None:
        """Begin a single text of ``size`` bytes (for progress; 0 if unknown): ``load_more``
        each slice of it in order, then ``end_load``. The same result as ``load(text)``."""
        self._input = Input([], {}, fmt, name, True)
        self.audit, self._items = None, None
        self.strategy, self.name = strategy, name
        self._loading = Loading(*self._single_analyzer(strategy), size)

    def load_more(self, chunk: bytes | bytearray) -> Iterator[float]:
        """Split and translate the complete lines of ``chunk`` (what is left of the last line waits
        for the next slice), yielding progress in [0, 1) after each ``SLICE_BYTES`` of input.
        A bytearray may be the caller's buffer, filled again for the next slice once this has run
        to its end: nothing of it is kept, its lines are copied out as bytes."""
        assert self._loading is not None and self._input is not None, "start_load first"
        ld, lines = self._loading, self._input.lines
        if not chunk:
            return
        # a line must be bytes (decode_line checks the UTF-8 of bytes only): pieces are copied out
        # through a memoryview, once (a bytearray's own slices are bytearrays, to be copied again)
        view = memoryview(chunk)
        ld.ends_line = chunk.endswith(b"\n")
        pos, stop = 0, len(chunk)
        cps = ld.checkpoints
        step = min(SLICE_BYTES, cps.spacing) if cps is not None else SLICE_BYTES
        while pos < stop:
            end = chunk.find(b"\n", min(pos + step, stop))
            if end == -1:
                end = chunk.rfind(b"\n", pos, stop)
            if end == -1:  # no newline left: the rest waits for the next slice
                ld.rest.append(bytes(view[pos:]))  # joined once, at the line's end
                ld.done += stop - pos
                break
            new = bytes(view[pos:end]).split(b"\n")
            if ld.rest:
                new[0] = b"".join([*ld.rest, new[0]])
                ld.rest = []
            lines.extend(new)
            for _ in ld.analyzer.feed_steps(new, 1 << 62, finish=False):  # no pause within a slice
                pass
            if cps is not None:
                cps.passed(ld.analyzer, end + 1 - pos)
            ld.done += end + 1 - pos
            pos = end + 1
            yield min(ld.done / ld.size, 0.98) if ld.size else 0.0

    def so_far(self) -> int:
        """A first look at a text still loading: ``relays`` becomes the list the load
        fills (the one it ends with), so that rows can be made of what is translated so far
        (without the lookups, which come at the end). Returns how many relays there are."""
        if self._loading is not None:
            self.relays = self._loading.analyzer.relays
        return len(self.relays)

    def end_load(self) -> Iterator[float]:
        """The last line (even without a newline), then the lookups."""
        assert self._loading is not None and self._input is not None, "start_load first"
        ld, self._loading = self._loading, None
        lines = self._input.lines
        if ld.rest:  # the last line, without a newline (a final newline ends a line, starts none)
            last = b"".join(ld.rest)
            lines.append(last)
            ld.analyzer.feed_line(last)
        self._input.trailing_newline = ld.ends_line
        ld.analyzer.finish()
        self._single_done(ld.analyzer, ld.checkpoints)
        self.lines_total = len(lines)
        yield 0.99
        yield from self._index()
        yield 1.0

    def rerun(self, strategy: StrategyName) -> Iterator[float]:
        """Translate the loaded input again, with ``strategy``."""
        if self._input is None:
            raise ValueError("nothing loaded")
        self.strategy = strategy
        self.name = self._input.name
        if self._input.single:
            analyzer, cps = self._single_analyzer(strategy)
            step = min(SLICE_BYTES, cps.spacing) if cps is not None else SLICE_BYTES
            for p in analyzer.feed_steps(self._input.lines, step):
                if cps is not None:
                    cps.passed(analyzer, step)  # a yield comes after ``step`` bytes of lines at least
                yield p
            self._single_done(analyzer, cps)
        else:
            yield 0.0
            yield from self._run_files(strategy)
        self.lines_total = self._input.line_count()
        yield from self._index()
        yield 1.0

    def _single_analyzer(self, strategy: StrategyName) -> tuple[Analyzer, Checkpoints | None]:
        """The analyzer of a single input, and the checkpoints of its translator to take as it goes
        (kept by ``_single_done`` if the translator kept marks)."""
        assert self._input is not None
        self._replay, self._step_cache, self._checkpoints = None, {}, None
        lazy = self.lazy_trace
        cps = Checkpoints(self.checkpoint_bytes) if lazy and self.checkpoint_bytes > 0 else None
        self._drift = Drift()  # counted as the lines are translated, slice by slice
        return Analyzer(strategy, self._input.fmt, trace=not lazy, marks=lazy, drift=self._drift), cps

    def _single_done(self, analyzer: Analyzer, checkpoints: Checkpoints | None) -> None:
        """Take a single input's translation, finished, from ``analyzer``."""
        assert self._input is not None
        self.format = analyzer.format
        self.relays = analyzer.relays
        marks = analyzer.marks
        lines = len(self._input.lines)
        if marks is None:
            self.trace = analyzer.trace
        elif len(marks) - lines in (0, 1):  # a step per line, and one at the end for usage still open
            self._trace, self._marks, self._checkpoints = None, marks, checkpoints
        else:  # cannot be (a step per line); should it be, the trace is made whole
            self._trace, self._marks = None, None
        self.errors = [ErrorView(None, line, msg) for line, msg in analyzer.errors]
        self._lane_meta = dict(analyzer.lanes)

    def _run_files(self, strategy: StrategyName) -> Iterator[float]:
        assert self._input is not None
        files = {k: bytes(v) for k, v in self._input.files.items()}  # bytes already: no copy
        relays: list[R.Relay] = []
        steps: list[T.TraceStep] = []
        errors: list[ErrorView] = []
        formats = []
        self._lane_meta = {}
        total = sum(len(c) for c in files.values()) or 1
        done = 0
        self._drift = drift = Drift()  # counted as each group is translated
        for g in translate_groups(files, strategy, trace=True, fmt=self._input.fmt, drift=drift):
            formats.append(g.format)
            self._lane_meta.update(g.lanes)
            seqs_from, new_relays, new_steps = len(relays), g.relays, g.trace
            errors.extend(ErrorView(f, line, msg) for f, line, msg in g.errors)
            if seqs_from:  # one seq space across groups
                new_relays = [msgspec.structs.replace(r, seq=r.seq + seqs_from) for r in new_relays]
                for s in new_steps:
                    s.seqs = [q + seqs_from for q in s.seqs]
            relays.extend(new_relays)
            steps.extend(new_steps)
            done += sum(len(files[f]) for f in g.files if f in files)
            yield min(done / total, 0.99)
        self.relays, self.trace, self.errors = relays, steps, errors
        self.format = formats[0] if len(set(formats)) == 1 else "mixed"

    def drift_report(self) -> DriftReport | None:
        """What the loaded input has that this version does not know (``drift``), as counted while
        it was translated; None before a load. A watched folder's is counted from its lines when
        asked (its files are translated elsewhere, ``live.LiveFiles``)."""
        if self._input is None:
            return None
        if self._drift is not None:
            return self._drift.report()
        d = Drift()  # not kept: the folder may grow
        for file in self._input.files:
            if file.endswith(".meta.json"):
                continue
            for number, line in enumerate(self._input.file_lines(file), 1):
                d.add(number, line, file)
        return d.report()

    def _index(self) -> Iterator[float]:
        """The lookups rows and steps need; in three passes, with a pause after each."""
        self._haystack = None
        self._stamps = {}
        self._time_keys, self._time_last, self._timed, self._axis = [], {}, False, None
        self._step_index_ = None
        marks = self._marks
        if marks is not None:  # its lists serve as they are; seqs to steps by bisection (_step_at)
            self._st_line, self._st_lane, self._st_fp, self._st_reset, self._st_end = marks.columns()
            self._st_file = [marks.file] * len(marks)
            self._step_of_seq = []
            first_seen = [fp for fp in dict.fromkeys(self._st_fp) if fp is not None]
            self._fp_order = dict(zip(first_seen, range(len(first_seen)), strict=True))
        else:
            self._st_line, self._st_file, self._st_lane, self._st_fp, self._st_reset = [], [], [], [], []
            self._step_of_seq = [0] * len(self.relays)
            self._step_index_ = {}
            order: dict[str, int] = {}
            self._fp_order = order
            for i, s in enumerate(self.trace):
                self._add_step(s)
                for q in s.seqs:
                    self._step_of_seq[q] = i
                self._step_index_.setdefault((s.file, s.line), i)
                if s.fp is not None and s.fp not in order:
                    order[s.fp] = len(order)
        yield 0.99
        relays = self.relays
        for start in range(0, max(len(relays), 1), INDEX_SLICE):  # a run may span slices: its state is kept
            self._group_and_bookkeeping(start, start + INDEX_SLICE)
            yield 0.99
        self.fates = self._fates()
        yield 0.99
        self._lane_views, self._tally, self._states, self._results = {}, Tally(), LaneStates(), []
        for start in range(0, len(relays), INDEX_SLICE):
            self._count_lanes(relays[start:start + INDEX_SLICE])
            yield 0.99
        self.lanes = self._finish_lanes()
        self._lane_ids = {lane.id for lane in self.lanes}

    def _fates(self) -> F.Fates | None:
        if self._items is None:
            return None
        # the highest seq emitted up to each step: a lost block's placeholder goes right after it
        upto: list[int] = []
        if self._marks is not None:
            upto = [end - 1 for end in self._st_end]
        else:
            top = -1
            for s in self.trace:
                if s.seqs:
                    top = max(top, max(s.seqs))
                upto.append(top)
        return F.compute(self.relays, self._st_lane, upto, self._items, self._step_index)

    def run_audit(self) -> Iterator[float]:
        """Every strategy against one inventory of the input's content blocks: the one audit
        entry point (``multifile.audit_steps``), on the input exactly as it was translated."""
        if self._input is None:
            raise ValueError("nothing loaded")
        source: list[bytes] | dict[str, bytes]
        if self._input.single:
            source = self._input.lines
        else:
            source = {k: bytes(v) for k, v in self._input.files.items()}
        self.audit, self.audit_error = None, None
        try:
            groups = yield from audit_steps(source, fmt=self._input.fmt)
            self.audit = [_audit_view(a) for a in merge_audits(groups)]
        except Exception as exc:  # a bug in the audit must not cost the translation shown beside it
            self.audit_error = (f"The audit could not be completed ({type(exc).__name__}: {str(exc)[:200]}); "
                                "the translation above is complete and unaffected.")
            groups = []
        # one group (one stream, or one session): its inventory is that of the relays shown
        self._items = groups[0].items if len(groups) == 1 and groups[0].items else None
        self.fates = self._fates()
        yield 1.0


def as_bytes(value: Text) -> bytes:
    # surrogatepass: text from JavaScript may hold lone surrogates (an emoji cut in half); their
    # bytes reach the translator, which reads them as U+FFFD with a warning, not as a crash
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else bytes(value)


def _audit_view(a: StrategyAudit) -> AuditView:
    lost = a.first_lost or {}
    dup = a.first_duplicated or {}
    return AuditView(
        strategy=a.strategy, blocks=a.blocks, emitted=a.emitted, lost=a.lost, duplicated=a.duplicated,
        first_lost_line=lost.get("line"), first_lost_file=lost.get("file"), first_lost_block=lost.get("block"),
        first_dup_seqs=list(dup.get("seqs", [])), first_dup_block=dup.get("block"), retracted=a.retracted,
    )
