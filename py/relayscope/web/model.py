"""model: what the web page shows, computed in plain Python (no DOM, no js imports).

The page (``main.py``) owns the DOM; this module owns the numbers and the text. It is
unit-tested under CPython (``tests/unit/test_web_model.py``) and runs unchanged in Pyodide.

Heavy work (translating, re-translating with another strategy, the audit) is written as
generators that yield their progress in [0, 1] after each slice of work, so that the page can
hand control back to the browser between slices (``await asyncio.sleep(0)``) and stay
responsive on a 50 MB transcript. A slice is a bounded number of input bytes.

Everything returned is plain data for ``textContent``: this module never builds markup.
"""

from __future__ import annotations

import base64
import bisect
import collections
import itertools
import json
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from .. import fates as F
from .. import relay as R
from .. import trace as T
from ..analysis import SLICE_BYTES, Analyzer
from ..audit import StrategyAudit
from ..lanes import MAIN, Lane, lane_label
from ..live import LiveFiles
from ..multifile import audit_steps, group_files, merge_audits, translate_session
from ..present import clip, summary
from ..translator import STRATEGIES, Translator
from . import prices, rowinfo

SHARE_LIMIT: Final = 100_000  # characters of URL fragment; longer links break in chat apps and proxies
SEARCH_SLICE: Final = 2000  # relays per slice of the search index
SPLIT_SHARE: Final = 0.1  # of the progress bar: splitting the input into lines
FP_COLORS: Final = 12
# Records that only keep Claude Code's own books: hidden from the timeline until asked for.
BOOKKEEPING: Final = frozenset({"progress", "file-history-snapshot", "queue-operation", "last-prompt",
                                "mode", "ai-title", "hook_progress", "hook_started", "hook_response"})
# Newer CLIs stream thinking as deltas with no text (only an estimate of its size).
NO_THINKING_TEXT: Final = "(thinking: the stream carries no text for it)"
GAP_LOOKBACK: Final = 2000  # relays searched back for the previous row of a lane (a drawn row's gap)
# Relays looked at from each end of a lane for its first and last timestamp: every record of a
# timed input has one, and an untimed input must not cost a decode of thousands of lines per lane.
WALL_LOOK: Final = 24
INDEX_SLICE: Final = 50_000  # relays per pass of the lookups between two pauses (a 600 MB input has 340,000)
# Steps made again around the one a reader looks at (``Workspace._replay_around``), before and
# after it; and how many are kept before they are made again on demand.
REPLAY_BACK: Final = 64
REPLAY_AHEAD: Final = 64
STEPS_KEPT: Final = 4096
# Checkpoints of that translation (``_Checkpoints``), taken as the load passes every
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

Text = str | bytes


@dataclass(frozen=True, slots=True)
class Example:
    id: str
    title: str
    blurb: str  # two lines, in the reader's words
    path: str  # relative to the site root
    strategy: str = "lineage"  # the strategy that shows the example's point
    focus: str = ""  # where it opens: "lost" (first lost block), "dup" (first duplicate), "" (start)


EXAMPLES: Final = [
    Example("cumulative-dedup", "Cumulative de-dup",
            "Each assistant event repeats every block before it, so a naive reader prints them again.\n"
            "Opens with no de-dup ('none') on the first repeat; compare with lineage: each block once.",
            "static/examples/cumulative-dedup.ndjson", "none", "dup"),
    Example("index-bug", "The index bug",
            "Two sub-agents share one stream; when B's content is as long as the index, 'index' skips it.\n"
            "Opens on 'index' at the block it loses, with the audit's line about it.",
            "static/examples/index-bug.ndjson", "index", "lost"),
    Example("interleaved-subagents", "Interleaved sub-agents",
            "Parallel sub-agents on one stream, told apart by the fingerprint of their first block.\n"
            "Opens on 'fingerprint'; compare with lineage, which also gives each agent its own lane.",
            "static/examples/interleaved-subagents.ndjson", "fingerprint"),
    Example("gotchas", "Protocol gotchas",
            "Thinking sent as text, tool results as a string, an array or null, a result encoded twice.\n"
            "Opens on 'index' where it loses a one-block event; every strategy cleans up the rest.",
            "static/examples/gotchas.ndjson", "index", "lost"),
    Example("fleet-parallel", "Arbiter fleet streaming",
            "An Arbiter master fans out to three researchers over one server-sent-events connection.\n"
            "One lane per stream, with its depth, its token usage and the final done event.",
            "static/examples/fleet-parallel.sse"),
    Example("real-subagents", "Real capture: parallel sub-agents",
            "Claude Code 2.1 with Agent calls: one block per event, each tagged with the call it serves.\n"
            "Opens on 'index' at the first block it loses; lineage emits every block once in its lane.",
            "static/examples/real-subagents.jsonl", "index", "lost"),
    Example("real-streaming", "Real capture: partial messages",
            "With --include-partial-messages, text arrives in pieces, then again as a whole message.\n"
            "'lineage' streams the pieces and does not repeat the text when the whole message follows.",
            "static/examples/real-streaming.jsonl"),
    Example("real-session", "Real capture: a session transcript",
            "A session file from ~/.claude/projects: sub-agents run inline, marked as side chains.\n"
            "Each gets its own lane, linked to the call that started it; compare 'index' in the audit.",
            "static/examples/real-session.jsonl"),
]


@dataclass(frozen=True, slots=True)
class ErrorView:
    file: str | None
    line: int
    message: str


@dataclass(slots=True)
class LaneView:
    id: str
    label: str
    agent_type: str | None = None
    description: str | None = None
    depth: int = 0
    parent: str | None = None
    inferred: bool = False
    spawn_seq: int | None = None
    result_seq: int | None = None
    end_seq: int | None = None
    relay_count: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    cost_usd: float | None = None
    file: str | None = None
    model: str | None = None  # of the lane's first usage that names one
    wall_s: float | None = None  # first to last timestamp, or the turns' duration_ms
    est_cost_usd: float | None = None  # from prices.PRICES, when the input gives no cost
    first_seq: int = -1
    last_seq: int = -1
    duration_ms: float = 0.0


@dataclass(frozen=True, slots=True)
class RowView:
    seq: int
    type: str
    lane: str
    file: str | None
    line: int
    summary: str
    pair: int | None
    opens_lane: str | None
    back_to: int | None
    fp: str | None
    fp_color: int | None
    mark: str | None
    partial: bool
    relay: R.Relay = field(repr=False)
    workspace: Workspace = field(repr=False)
    fp_label: str = "●"  # a number once the palette is used up, so no two fingerprints look alike
    fragments: int = 0  # a group of consecutive partial deltas of one block: how many
    joined: str | None = None  # that group's text

    # Only an opened row shows these, and the timeline makes a RowView for every row it draws
    # while scrolling: so they are computed on access (pretty JSON, whole tool output).
    @property
    def detail(self) -> str:
        """The full content, as plain text."""
        return self.joined if self.joined is not None else detail(self.relay)

    @property
    def time(self) -> str | None:
        """The input line's timestamp (ISO), where it has one."""
        return self.workspace.row_time(self.seq)

    @property
    def raw_pretty(self) -> str | None:
        """The input line as indented JSON (None when it is not JSON)."""
        return pretty_json(self.raw)

    @property
    def gap(self) -> float | None:
        """Seconds since the previous row of the same lane that has a time (bookkeeping aside)."""
        return self.workspace.row_gap(self.seq)

    @property
    def raw(self) -> str:
        """The input line the relay came from."""
        return self.workspace.raw_line(self.file, self.line)


@dataclass(frozen=True, slots=True)
class StepView:
    index: int
    file: str | None
    line: int
    kind: str
    lane: str | None
    decision: str
    reason: str
    reset: str | None
    fp: str | None
    prev_fp: str | None
    fp_changed: bool
    before: Any
    after: Any
    seqs: list[int]
    raw: str
    content: list[str]
    pointer_before: int | None
    pointer_after: int | None
    blocks: list[tuple[int, str, str, str]]
    note: str | None
    fates: list[F.BlockFate] = field(default_factory=list)  # of the blocks not emitted
    fp_mark: tuple[int, str] | None = None  # colour and label of fp, as in the rows
    prev_fp_mark: tuple[int, str] | None = None


@dataclass(frozen=True, slots=True)
class AuditView:
    strategy: str
    blocks: int
    emitted: int
    lost: int
    duplicated: int
    first_lost_line: int | None
    first_lost_file: str | None
    first_lost_block: str | None
    first_dup_seqs: list[int]
    first_dup_block: str | None


RESET_MARKS: Final = T.RESET_LABELS
_LANE_CARD_TYPES: Final = frozenset({R.LaneStart, R.LaneEnd, R.Usage, R.TurnComplete})  # what a lane card sums
_any: Final = msgspec.json.Decoder()


@dataclass(slots=True)
class _Input:
    """What was loaded, kept so that the same input can be re-run with another strategy."""

    files: dict[str | None, list[bytes]]  # file name (None for a single text) -> its lines
    fmt: str
    name: str | None
    single: bool
    trailing_newline: bool = False  # of the single text, so that its bytes can be given back exactly


@dataclass(slots=True)
class _Loading:
    """A single text being loaded a slice at a time (``Workspace.start_load``)."""

    analyzer: Analyzer
    checkpoints: _Checkpoints | None  # being taken (``Workspace._single_analyzer``)
    size: int  # bytes expected, for progress (0: unknown)
    done: int = 0  # bytes taken so far
    rest: list[bytes] = field(default_factory=list)  # a line whose newline has not come yet, in pieces
    ends_line: bool = False  # the last byte taken is a newline


@dataclass(slots=True)
class _Replay:
    """A translation of the input again, standing before line ``next`` (0-based)."""

    translator: Translator
    next: int = 0


@dataclass(slots=True)
class _Checkpoints:
    """Checkpoints of the load's translator (``Translator.checkpoint``) about every ``spacing``
    bytes of input: a step is made again from the nearest one at or before it. The load's
    translator keeps marks, as the one that makes steps again does: their states are the same."""

    spacing: int
    lines: list[int] = field(default_factory=list)  # the line (0-based) each stands before, ascending
    states: list[tuple[Any, ...]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)  # entries of each (``Translator.checkpoint_size``)
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


@dataclass(slots=True)
class Workspace:
    strategy: str = "lineage"
    format: str | None = None
    name: str | None = None
    relays: list[R.Relay] = field(default_factory=list)
    _trace: list[T.TraceStep] | None = field(default_factory=list)  # None: not made yet (see ``trace``)
    errors: list[ErrorView] = field(default_factory=list)
    lanes: list[LaneView] = field(default_factory=list)
    audit: list[AuditView] | None = None
    audit_error: str | None = None  # the audit failed (a bug): the translation stands, this says so
    lines_total: int = 0
    _input: _Input | None = None
    _lane_meta: dict[str, Lane] = field(default_factory=dict)  # lane id -> what the lanes layer knows
    _step_of_seq: list[int] = field(default_factory=list)
    _step_index_: dict[tuple[str | None, int], int] | None = None  # (file, line) -> first step; see _step_index
    _by_tool_use: dict[str, int] = field(default_factory=dict)
    _by_tool_result: dict[str, int] = field(default_factory=dict)
    _lane_ids: set[str] = field(default_factory=set)
    _haystack: list[str] | None = None
    fates: F.Fates | None = None  # what became of each block, once the audit's inventory exists
    _items: dict[Any, Any] | None = None  # the audit's inventory of a single input
    _fp_order: dict[str, int] = field(default_factory=dict)  # fingerprint -> first-seen ordinal
    _bookkeeping: set[int] = field(default_factory=set)
    _group_end: dict[int, int] = field(default_factory=dict)  # head seq -> last seq of its group
    _member_head: dict[int, int] = field(default_factory=dict)  # other seqs of a group -> head
    _group_open: tuple[tuple[Any, ...] | None, int] = (None, -1)  # the run the last relay is in
    _stamps: dict[tuple[str | None, int], str | None] = field(default_factory=dict)
    _lane_views: dict[str, LaneView] = field(default_factory=dict)
    _live: Analyzer | LiveFiles | None = None  # the translator a watched input is fed to (issue 12)
    _loading: _Loading | None = None  # a single text coming a slice at a time (start_load)
    _live_rest: dict[str | None, bytes] = field(default_factory=dict)  # per file: a partial last line
    # A single stream-json input is translated with marks, not the trace (trace.Marks: its
    # fields cost a third of the translation); a step is made again when it is looked at.
    lazy_trace: bool = True
    _marks: T.Marks | None = None
    _replay: _Replay | None = None
    _step_cache: dict[int, T.TraceStep] = field(default_factory=dict)
    checkpoint_bytes: int = CHECKPOINT_BYTES  # 0: no checkpoints (every far jump from the first line)
    _checkpoints: _Checkpoints | None = None
    # of each step, what rows and lookups need of every step (the marks' lists, or the trace's)
    _st_line: list[int] = field(default_factory=list)
    _st_file: list[str | None] = field(default_factory=list)
    _st_lane: list[str | None] = field(default_factory=list)
    _st_fp: list[str | None] = field(default_factory=list)
    _st_reset: list[str | None] = field(default_factory=list)
    _st_end: list[int] = field(default_factory=list)  # with marks: where each step's seqs end

    # -- loading ---------------------------------------------------------------------------

    def load(self, data: Text | Mapping[str, Text], *, name: str | None = None,
             strategy: str = "lineage", fmt: str = "auto") -> Iterator[float]:
        """Read one text (``str``/``bytes``) or several files (``{name: content}``)."""
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}")
        files = {str(k): _as_bytes(v) for k, v in data.items()} if isinstance(data, Mapping) else None
        if files is not None and len(files) == 1:
            ((only, content),) = files.items()
            name = name or only
        elif files is None:
            content = _as_bytes(data)  # type: ignore[arg-type]
        else:
            split: dict[str | None, list[bytes]] = {k: [] for k in files}
            self._input = _Input(split, fmt, name, False)
            total = sum(map(len, files.values())) or 1
            done = 0
            for k, content in files.items():
                for p in _split_into(content, split[k]):
                    yield SPLIT_SHARE * (done + p * len(content)) / total
                done += len(content)
            self.audit, self._items = None, None
            for p in self.rerun(strategy):
                yield SPLIT_SHARE + (1 - SPLIT_SHARE) * p
            return
        self.start_load(name=name, strategy=strategy, fmt=fmt, size=len(content))
        yield from self.load_more(content)
        yield from self.end_load()

    # A single text given a slice at a time (the page reads a big file so, and translates each
    # slice while the browser reads the next): lines are split and translated as they come, and
    # nothing else of the input is held, so the whole file never sits in memory twice.

    def start_load(self, *, name: str | None = None, strategy: str = "lineage", fmt: str = "auto",
                   size: int = 0) -> None:
        """Begin a single text of ``size`` bytes (for progress; 0 if unknown): ``load_more``
        each slice of it in order, then ``end_load``. The same result as ``load(text)``."""
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}")
        self._input = _Input({None: []}, fmt, name, True)
        self.audit, self._items = None, None
        self.strategy, self.name = strategy, name
        self._loading = _Loading(*self._single_analyzer(strategy), size)

    def load_more(self, chunk: bytes | bytearray) -> Iterator[float]:
        """Split and translate the complete lines of ``chunk`` (what is left of the last line waits
        for the next slice), yielding progress in [0, 1) after each ``SLICE_BYTES`` of input.
        A bytearray may be the caller's buffer, filled again for the next slice once this has run
        to its end: nothing of it is kept, its lines are copied out as bytes."""
        assert self._loading is not None and self._input is not None, "start_load first"
        ld, lines = self._loading, self._input.files[None]
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

    def end_load(self) -> Iterator[float]:
        """The last line (even without a newline), then the lookups."""
        assert self._loading is not None and self._input is not None, "start_load first"
        ld, self._loading = self._loading, None
        lines = self._input.files[None]
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

    def rerun(self, strategy: str) -> Iterator[float]:
        """Translate the loaded input again, with ``strategy``."""
        if self._input is None:
            raise ValueError("nothing loaded")
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}")
        self.strategy = strategy
        self.name = self._input.name
        if self._live is not None:
            yield from self._rerun_live(strategy)
            return
        if self._input.single:
            analyzer, cps = self._single_analyzer(strategy)
            step = min(SLICE_BYTES, cps.spacing) if cps is not None else SLICE_BYTES
            for p in analyzer.feed_steps(self._input.files[None], step):
                if cps is not None:
                    cps.passed(analyzer, step)  # a yield comes after ``step`` bytes of lines at least
                yield p
            self._single_done(analyzer, cps)
        else:
            yield 0.0
            yield from self._run_files(strategy)
        self.lines_total = sum(len(lines) for lines in self._input.files.values())
        yield from self._index()
        yield 1.0

    def _single_analyzer(self, strategy: str) -> tuple[Analyzer, _Checkpoints | None]:
        """The analyzer of a single input, and the checkpoints of its translator to take as it goes
        (kept by ``_single_done`` if the translator kept marks)."""
        assert self._input is not None
        self._replay, self._step_cache, self._checkpoints = None, {}, None
        lazy = self.lazy_trace
        cps = _Checkpoints(self.checkpoint_bytes) if lazy and self.checkpoint_bytes > 0 else None
        return Analyzer(strategy, self._input.fmt, trace=not lazy, marks=lazy), cps

    def _single_done(self, analyzer: Analyzer, checkpoints: _Checkpoints | None) -> None:
        """Take a single input's translation, finished, from ``analyzer``."""
        assert self._input is not None
        self.format = analyzer.format
        self.relays = analyzer.relays
        marks = analyzer.marks
        lines = len(self._input.files[None])
        if marks is None:
            self.trace = analyzer.trace
        elif len(marks) - lines in (0, 1):  # a step per line, and one at the end for usage still open
            self._trace, self._marks, self._checkpoints = None, marks, checkpoints
        else:  # cannot be (a step per line); should it be, the trace is made whole
            self._trace, self._marks = None, None
        self.errors = [ErrorView(None, line, msg) for line, msg in analyzer.errors]
        self._lane_meta = dict(analyzer.lanes)

    def _run_files(self, strategy: str) -> Iterator[float]:
        assert self._input is not None
        files = {k: b"\n".join(v) for k, v in self._input.files.items() if k is not None}
        groups = group_files(files, self._input.fmt)
        relays: list[R.Relay] = []
        steps: list[T.TraceStep] = []
        errors: list[ErrorView] = []
        formats = []
        self._lane_meta = {}
        total = sum(len(c) for c in files.values()) or 1
        done = 0
        for g in groups:
            if g.format == "session":
                result = translate_session(g.files, strategy, trace=True)
                formats.append("session")
                self._lane_meta.update(result.lanes)
                seqs_from, new_relays, new_steps = len(relays), result.relays, result.trace
                errors.extend(ErrorView(f, line, msg) for f, line, msg in result.errors)
            else:
                a = Analyzer(strategy, g.format, trace=True, file=g.name)
                for _ in a.feed_steps(self._input.files[g.name], SLICE_BYTES):
                    pass
                formats.append(a.format or g.format)
                self._lane_meta.update(a.lanes)
                seqs_from, new_relays, new_steps = len(relays), a.relays, a.trace
                errors.extend(ErrorView(g.name, line, msg) for line, msg in a.errors)
            if seqs_from:  # one seq space across groups
                new_relays = [msgspec.structs.replace(r, seq=r.seq + seqs_from) for r in new_relays]
                for s in new_steps:
                    s.seqs = [q + seqs_from for q in s.seqs]
            relays.extend(new_relays)
            steps.extend(new_steps)
            done += sum(len(c) for c in g.files.values())
            yield min(done / total, 0.99)
        self.relays, self.trace, self.errors = relays, steps, errors
        self.format = formats[0] if len(set(formats)) == 1 else "mixed"

    @property
    def trace(self) -> list[T.TraceStep]:
        """Every step of the translation shown. Kept as marks (``lazy_trace``), the whole trace
        is made when first asked for: by one more translation of the input, with the trace on."""
        if self._trace is None:
            assert self._input is not None and self._input.single
            a = Analyzer(self.strategy, self._input.fmt, trace=True, keep=False)
            for _ in a.feed_steps(self._input.files[None], SLICE_BYTES):
                pass
            self._trace = a.trace
        return self._trace

    @trace.setter
    def trace(self, steps: list[T.TraceStep]) -> None:
        self._trace, self._marks = steps, None

    def _step(self, i: int) -> T.TraceStep:
        """Step ``i`` whole: from the trace, or else made again around it (``_replay_around``)."""
        if self._trace is not None or self._marks is None:
            return self.trace[i]
        n = len(self._marks)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"step {i} of {n}")
        found = self._step_cache.get(i)
        if found is None:
            self._replay_around(i)
            found = self._step_cache[i]
        return found

    def _replay_around(self, i: int) -> None:
        """Translate again up to step ``i`` without the trace, then the steps from REPLAY_BACK
        before it to REPLAY_AHEAD after it with the trace on, and keep those: a reader steps
        through neighbours. The translation starts from the last checkpoint at or before
        REPLAY_BACK steps before ``i`` (``_Checkpoints``; the first line when there is none),
        unless the one already under way stands between that checkpoint and ``i``: then it goes
        on. Marks are kept in step with lines (one step per line, then one at the end), which is
        what makes this exact."""
        assert self._input is not None and self._marks is not None
        lines = self._input.files[None]
        start, state = self._checkpoints.before(max(i - REPLAY_BACK, 0)) if self._checkpoints else (0, None)
        rp = self._replay
        if rp is None or rp.next > i or rp.next < start:
            fresh = Analyzer(self.strategy, "stream-json", marks=True, keep=False).translator
            assert isinstance(fresh, Translator)
            if state is not None:  # into a translator of its own: the checkpoint stays as it is
                fresh.restore(state)
            rp = self._replay = _Replay(fresh, start)
        t = rp.translator
        lo, hi = max(i - REPLAY_BACK, rp.next), min(i + REPLAY_AHEAD + 1, len(self._marks))
        if len(self._step_cache) > STEPS_KEPT:
            self._step_cache = {}
        feed = t.feed_line
        for k in range(rp.next, lo):
            feed(lines[k])
        t.tracing = True
        try:
            for k in range(lo, min(hi, len(lines))):
                feed(lines[k])
                self._step_cache[k] = t.trace[-1]
            rp.next = min(hi, len(lines))
            if hi > len(lines):  # the step at the end of input
                t.finish()
                assert len(t.trace) == len(lines) - lo + 1, "no step at the end of input"
                self._step_cache[len(lines)] = t.trace[-1]
                rp.next = hi
        finally:
            t.tracing = False
            t.trace.clear()
            if t.marks is not None:  # nobody reads this translation's marks: the load's are kept
                t.marks.clear()

    # -- watching an input that grows (issue 12) ---------------------------------------------

    def start_live(self, name: str | None = None, *, folder: bool = False, strategy: str = "lineage",
                   fmt: str = "auto") -> None:
        """Begin an empty input that :meth:`append` grows: one file, or a folder's files."""
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}")
        self._input = _Input({} if folder else {None: []}, fmt, name, not folder)
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
                str(k): self._take_lines(str(k), _as_bytes(v)) for k, v in data.items()}
            self._feed_live(changes)
        else:
            self._feed_live({None: self._take_lines(None, _as_bytes(data))})
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
            input_.files.setdefault(key, []).append(rest)
            input_.trailing_newline = False
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

    def _new_live(self, strategy: str) -> Analyzer | LiveFiles:
        assert self._input is not None
        if self._input.single:
            return Analyzer(strategy, self._input.fmt, trace=True)
        return LiveFiles(strategy, self._input.fmt, trace=True)

    def _take_lines(self, key: str | None, data: bytes) -> bytes:
        """Keep the complete lines of ``data`` for raw views and re-runs; returns them."""
        assert self._input is not None
        rest = self._live_rest.get(key, b"") + data
        cut = rest.rfind(b"\n") + 1
        self._live_rest[key] = rest[cut:]
        whole = rest[:cut]
        if whole:
            self._input.files.setdefault(key, []).extend(whole[:-1].split(b"\n"))
            self._input.trailing_newline = True  # what is kept ends with a line's newline
        return whole

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
        self.lines_total = sum(len(lines) for lines in self._input.files.values())

    def _rerun_live(self, strategy: str) -> Iterator[float]:
        """Another strategy while watching: what was read so far, again, and on from there."""
        assert self._input is not None
        live = self._live = self._new_live(strategy)
        if isinstance(live, Analyzer):
            yield from live.feed_steps(self._input.files[None], SLICE_BYTES, finish=False)
        else:
            self.relays = live.feed_many({str(k): b"".join(x + b"\n" for x in v)
                                          for k, v in self._input.files.items() if k is not None})
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
        if self._haystack is not None:
            self._haystack.extend(_searchable(r) for r in new)
        self.lanes = self._grow_lanes(new)
        self._lane_ids = {lane.id for lane in self.lanes}

    # -- derived views ---------------------------------------------------------------------

    def _index(self) -> Iterator[float]:
        """The lookups rows and steps need; in three passes, with a pause after each."""
        self._haystack = None
        self._stamps = {}
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
        self._lane_views = {}
        for start in range(0, len(relays), INDEX_SLICE):
            self._count_lanes(relays[start:start + INDEX_SLICE])
            yield 0.99
        self.lanes = self._finish_lanes()
        self._lane_ids = {lane.id for lane in self.lanes}

    @property
    def _step_index(self) -> dict[tuple[str | None, int], int]:
        """(file, line) -> the first step of that line; made when first needed from marks."""
        if self._step_index_ is None:
            keys = list(zip(self._st_file, self._st_line, strict=True))
            self._step_index_ = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1), strict=True))  # first wins
        return self._step_index_

    def _step_at(self, seq: int) -> int:
        """The step that emitted relay ``seq``."""
        if self._marks is None:
            return self._step_of_seq[seq]
        ends = self._st_end
        i = bisect.bisect_right(ends, seq)  # the first step ending after seq
        return i if i < len(ends) else 0

    def _add_step(self, s: T.TraceStep) -> None:
        self._st_line.append(s.line)
        self._st_file.append(s.file)
        self._st_lane.append(s.lane)
        self._st_fp.append(s.fp)
        self._st_reset.append(s.reset)

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

    def _grow_lanes(self, relays: list[R.Relay]) -> list[LaneView]:
        """The lane cards, with ``relays`` (new since the last call) counted in."""
        self._count_lanes(relays)
        return self._finish_lanes()

    def _count_lanes(self, relays: list[R.Relay]) -> None:
        lanes = self._lane_views
        for r in relays:
            lane = lanes.get(r.lane)
            if lane is None:
                lane = lanes[r.lane] = self._new_lane(r.lane)
                lane.first_seq = r.seq
            lane.relay_count += 1
            lane.last_seq = r.seq
            if type(r) not in _LANE_CARD_TYPES:  # most relays; isinstance on each is slow in Pyodide
                continue
            if isinstance(r, R.LaneStart):
                lane.label = r.label or lane.label
                lane.agent_type = r.agent_type or lane.agent_type
                lane.description = r.description or lane.description
                lane.depth, lane.parent, lane.inferred = r.depth, r.parent_lane, r.inferred
            elif isinstance(r, R.LaneEnd):
                lane.end_seq = r.seq
            elif isinstance(r, R.Usage):
                lane.input_tokens += r.input_tokens
                lane.output_tokens += r.output_tokens
                lane.cache_read_tokens += r.cache_read_input_tokens
                lane.cache_creation_tokens += r.cache_creation_input_tokens
                lane.model = lane.model or r.model
                cost = prices.estimate(r.model, r.input_tokens, r.output_tokens,
                                       r.cache_read_input_tokens, r.cache_creation_input_tokens)
                if cost is not None:
                    lane.est_cost_usd = (lane.est_cost_usd or 0.0) + cost
            elif isinstance(r, R.TurnComplete):
                if r.cost_usd is not None:
                    lane.cost_usd = (lane.cost_usd or 0.0) + float(r.cost_usd)
                lane.duration_ms += float(r.duration_ms or 0)

    def _finish_lanes(self) -> list[LaneView]:
        """What is known of each lane only once all its relays are counted in; main first."""
        lanes = self._lane_views
        for lane in lanes.values():
            lane.spawn_seq = self._by_tool_use.get(lane.id)
            lane.result_seq = self._by_tool_result.get(lane.id)
            self._wall_time(lane)
        ordered = sorted(lanes.values(), key=lambda v: (v.id != MAIN,))  # main first, else by appearance
        return ordered

    def _new_lane(self, lane_id: str) -> LaneView:
        meta = self._lane_meta.get(lane_id)
        view = LaneView(lane_id, lane_label(MAIN, None, None) if lane_id == MAIN else lane_id)
        if meta is not None:
            view.label = meta.label
            view.agent_type, view.description = meta.agent_type, meta.description
            view.depth, view.parent, view.inferred = meta.depth, meta.parent, meta.inferred
            view.file = meta.file
        if lane_id != MAIN and view.parent is None and meta is None:
            view.parent, view.depth = MAIN, 1
        return view

    def lane_spans(self) -> dict[str, tuple[int, int]]:
        """Each lane's first and last seq, in the order lanes first appear."""
        return {v.id: (v.first_seq, v.last_seq) for v in sorted(self.lanes, key=lambda v: v.first_seq)}

    def type_counts(self) -> dict[str, int]:
        """How many relays of each type, in the order types first appear."""
        counts = collections.Counter(map(type, self.relays))  # counted in C
        return {cls.__struct_config__.tag: n for cls, n in counts.items()}  # type: ignore[attr-defined]

    # -- rows --------------------------------------------------------------------------------

    def row(self, seq: int) -> RowView:
        r = self.relays[seq]
        k = self._step_at(seq) if self._st_line else None
        pair = None
        if isinstance(r, R.ToolUse):
            pair = self._by_tool_result.get(r.id)
        elif isinstance(r, R.ToolResult):
            pair = self._by_tool_use.get(r.tool_use_id)
        back_to = self._by_tool_result.get(r.tool_use_id) if isinstance(r, R.LaneEnd) and r.tool_use_id else None
        opens = r.id if isinstance(r, R.ToolUse) and r.id in self._lane_ids and r.id != r.lane else None
        fp = self._st_fp[k] if k is not None else None
        mark = self.fp_mark(fp)
        text, fragments, joined = summary(r), 0, None
        end = self._group_end.get(seq)
        if end is not None:
            fragments = end - seq + 1
            joined = "".join(getattr(x, "text", "") for x in self.relays[seq:end + 1])
            text = clip(joined) or (NO_THINKING_TEXT if isinstance(r, R.ThinkingDelta) else "(empty)")
        elif isinstance(r, R.SessionMeta):
            text = self._session_summary(r)
        elif isinstance(r, R.ThinkingDelta) and not r.text.strip():
            text = NO_THINKING_TEXT
        return RowView(
            seq=r.seq, type=r.type, lane=r.lane, file=r.file, line=r.line, summary=text,
            pair=pair, opens_lane=opens,
            back_to=back_to, fp=fp, fp_color=mark[0] if mark else None, mark=RESET_MARKS.get(self._st_reset[k] or "") if k is not None else None,
            partial=bool(getattr(r, "partial", False)), relay=r, workspace=self,
            fp_label=mark[1] if mark else "●", fragments=fragments, joined=joined,
        )

    # -- issue 9: rows, time, fingerprints, lost blocks --------------------------------------

    def _group_and_bookkeeping(self, first: int = 0, stop: int | None = None) -> None:
        """One pass over the relays from ``first`` (to ``stop``): bookkeeping records, tool calls and results
        by id, and runs of consecutive partial deltas of one block (the timeline shows each run as
        one row). A run
        may go on across live appends, so the open run is kept between calls; ``first=0`` starts
        afresh."""
        if first == 0:
            self._bookkeeping, self._group_end, self._member_head = set(), {}, {}
            self._group_open = (None, -1)
            self._by_tool_use, self._by_tool_result = {}, {}
        book, ends, members = self._bookkeeping, self._group_end, self._member_head
        uses, results = self._by_tool_use, self._by_tool_result
        slot, head = self._group_open
        text_types = (R.TextDelta, R.ThinkingDelta)
        for r in itertools.islice(self.relays, first, stop):
            t = type(r)
            if t in text_types:
                here = (t, r.lane, r.message_id, r.block_index)  # type: ignore[attr-defined]
                if r.partial and here == slot:  # type: ignore[attr-defined]
                    members[r.seq] = head
                    ends[head] = r.seq
                else:
                    slot, head = here, r.seq
                continue
            slot = None
            if t is R.ToolUse:
                uses[r.id] = r.seq  # type: ignore[attr-defined]
            elif t is R.ToolResult:
                results[r.tool_use_id] = r.seq  # type: ignore[attr-defined]
            elif t is R.Passthrough:
                if r.event_type in BOOKKEEPING:  # type: ignore[attr-defined]
                    book.add(r.seq)
            elif t is R.System and r.subtype in BOOKKEEPING:  # type: ignore[attr-defined]
                book.add(r.seq)
        self._group_open = (slot, head)

    @property
    def bookkeeping_count(self) -> int:
        return len(self._bookkeeping)

    def is_bookkeeping(self, seq: int) -> bool:
        return seq in self._bookkeeping

    def select(self, text: str = "", include: Iterable[str] = (), exclude: Iterable[str] = (),
               lane: str = "", bookkeeping: bool = False) -> list[int]:
        """Seqs of the relays that match (as ``filter``), minus excluded types and, unless asked
        for, bookkeeping records."""
        ex = set(exclude)
        if text.strip() or include or lane:
            seqs = self.filter(text, include, [lane] if lane else [])
        else:
            seqs = list(range(len(self.relays)))
        if ex:
            relays = self.relays
            seqs = [q for q in seqs if relays[q].type not in ex]
        if not bookkeeping and self._bookkeeping:
            book = self._bookkeeping
            seqs = [q for q in seqs if q not in book]
        return seqs

    def rows(self, seqs: list[int], open_groups: set[int] = frozenset(),  # type: ignore[assignment]
             lost: bool = True, lane: str = "") -> list[int]:
        """The timeline's rows for these seqs: a group of partial deltas as its first seq only
        (unless open), and a negative row for each lost block where it would have been."""
        members = self._member_head
        if members:
            shown = set(seqs) if len(seqs) != len(self.relays) else None
            seqs = [q for q in seqs if (h := members.get(q)) is None or h in open_groups
                    or (shown is not None and h not in shown)]
        if not lost or self.fates is None or not self.fates.lost:
            return seqs
        blocks = [b for b in self.fates.lost if not lane or b.lane == lane]
        if not blocks:
            return seqs
        out: list[int] = []
        k = 0
        for b in blocks:  # seqs are sorted; so are the blocks, by where they go
            while k < len(seqs) and seqs[k] < b.before_seq:
                k += 1
            out.append(k)
        merged: list[int] = []
        start = 0
        for b, k in zip(blocks, out, strict=True):
            merged.extend(seqs[start:k])
            merged.append(b.row)
            start = k
        merged.extend(seqs[start:])
        return merged

    def lost_block(self, row: int) -> F.LostBlock | None:
        return self.fates.by_row.get(row) if self.fates is not None else None

    def lost_rows_of_step(self, i: int) -> set[int]:
        if self.fates is None or not self.fates.lost:
            return set()
        return {b.row for b in self.fates.lost_on(self._st_file[i], self._st_line[i])}

    def group_of(self, seq: int) -> int | None:
        """The first seq of the group of partial deltas ``seq`` belongs to, if any."""
        return seq if seq in self._group_end else self._member_head.get(seq)

    def fp_mark(self, fp: str | None) -> tuple[int, str] | None:
        """Colour index and label of a fingerprint: colours in first-seen order, and once the
        palette is used up a number too (1-based first-seen ordinal)."""
        if fp is None:
            return None
        k = self._fp_order.get(fp)
        if k is None:
            return None
        return k % FP_COLORS, "●" if k < FP_COLORS else str(k + 1)

    def fp_legend(self) -> list[tuple[str, int, str]]:
        """(fingerprint, colour, label) in first-seen order."""
        return [(fp, k % FP_COLORS, "●" if k < FP_COLORS else str(k + 1)) for fp, k in self._fp_order.items()]

    def _line_bytes(self, file: str | None, line: int) -> bytes:
        if self._input is None:
            return b""
        lines = self._input.files.get(file) if not self._input.single else self._input.files[None]
        if lines is None and file is not None:  # a file given by another path form
            lines = next((v for k, v in self._input.files.items() if k and k.endswith(file)), None)
        if not lines or not 1 <= line <= len(lines):
            return b""
        return lines[line - 1]

    def line_time(self, file: str | None, line: int) -> str | None:
        key = (file, line)
        if key not in self._stamps:
            self._stamps[key] = rowinfo.timestamp(self._line_bytes(file, line))
        return self._stamps[key]

    def row_time(self, seq: int) -> str | None:
        r = self.relays[seq]
        return self.line_time(r.file, r.line)

    def row_gap(self, seq: int) -> float | None:
        here = self.row_time(seq)
        t1 = rowinfo.parse(here) if here else None
        if t1 is None:
            return None
        relays, lane = self.relays, self.relays[seq].lane
        book = self._bookkeeping  # hidden by default: a gap counts from a row one can see
        looked = 0
        for q in range(seq - 1, max(-1, seq - 1 - GAP_LOOKBACK), -1):
            if relays[q].lane != lane or q in book:
                continue
            looked += 1
            if looked > WALL_LOOK:  # an input timed here and there: no gap rather than a slow row
                return None
            before = self.row_time(q)
            t0 = rowinfo.parse(before) if before else None
            if t0 is not None:
                return t1 - t0 if t1 >= t0 else None
        return None

    def _wall_time(self, lane: LaneView) -> None:
        """First to last timestamp of the lane's rows; else the turns' own duration."""
        first = last = None
        relays = self.relays
        for q in range(lane.first_seq, min(lane.last_seq + 1, lane.first_seq + WALL_LOOK)):
            if relays[q].lane == lane.id and (first := self.row_time(q)):
                break
        for q in range(lane.last_seq, max(lane.first_seq - 1, lane.last_seq - WALL_LOOK), -1):
            if relays[q].lane == lane.id and (last := self.row_time(q)):
                break
        t0 = rowinfo.parse(first) if first else None
        t1 = rowinfo.parse(last) if last else None
        if t0 is not None and t1 is not None and t1 >= t0:
            lane.wall_s = t1 - t0
        elif lane.duration_ms:
            lane.wall_s = lane.duration_ms / 1000

    def _session_summary(self, r: R.SessionMeta) -> str:
        """A session row with what the transcript's rows say: the model, version, cwd, branch."""
        model = r.model or next((lane.model for lane in self.lanes if lane.id == r.lane and lane.model), None)
        cwd, version, branch = r.cwd, r.version, None
        for line in range(r.line, r.line + 50):
            raw = self._line_bytes(r.file, line)
            if not raw:
                break
            c, v, b = rowinfo.session_head(raw)
            cwd, version, branch = cwd or c, version or v, branch or b
            if cwd and version and branch:
                break
        parts = [f"session {r.session_id or '?'}", model or "model ?"]
        if version:
            parts.append(f"v{version}")
        if cwd:
            parts.append(cwd)
        if branch:
            parts.append(f"branch {branch}")
        if r.tools:
            parts.append(f"{len(r.tools)} tools")
        return " · ".join(parts)

    def raw_line(self, file: str | None, line: int) -> str:
        return self._line_bytes(file, line).decode("utf-8", "replace").rstrip("\r")

    def lane_seqs(self, lane_id: str) -> list[int]:
        return [r.seq for r in self.relays if r.lane == lane_id]

    def filter(self, text: str = "", types: Iterable[str] = (), lanes: Iterable[str] = ()) -> list[int]:
        """Seqs of the relays that match: every word of ``text`` (case-insensitive, in the row's
        summary or full content), one of ``types`` and one of ``lanes`` (empty: any)."""
        wanted_types, wanted_lanes = set(types), set(lanes)
        words = text.lower().split()
        haystack = self._search_index() if words else None
        out = []
        for r in self.relays:
            if wanted_types and r.type not in wanted_types:
                continue
            if wanted_lanes and r.lane not in wanted_lanes:
                continue
            if haystack is not None and not all(w in haystack[r.seq] for w in words):
                continue
            out.append(r.seq)
        return out

    @property
    def search_ready(self) -> bool:
        return self._haystack is not None

    def prepare_search(self) -> Iterator[float]:
        """Build the text-search index in slices (the first text filter needs it)."""
        if self._haystack is not None:
            return
        relays, hay = self.relays, list[str]()
        for start in range(0, len(relays), SEARCH_SLICE):
            hay.extend(_searchable(r) for r in relays[start:start + SEARCH_SLICE])
            yield start / max(len(relays), 1)
        self._haystack = hay

    def _search_index(self) -> list[str]:
        if self._haystack is None:
            for _ in self.prepare_search():
                pass
        assert self._haystack is not None
        return self._haystack

    # -- errors ------------------------------------------------------------------------------

    def error_summary(self) -> str | None:
        if not self.errors:
            return None
        first = min(self.errors, key=lambda e: (e.file or "", e.line))
        where = f"{first.file}:{first.line}" if first.file else f"line {first.line}"
        n = len(self.errors)
        return f"Could not parse {n} line{'s' if n != 1 else ''}. First error at {where}: {first.message}"

    def not_a_transcript(self) -> str | None:
        """A message when nothing in the input looks like a transcript at all."""
        if self._input is None:
            return None
        if any(not isinstance(r, R.Error | R.LaneStart | R.Passthrough) for r in self.relays):
            return None
        nonblank = sum(1 for lines in self._input.files.values() for x in lines if x.strip())
        if nonblank == 0:
            return "The input is empty."
        return (f"This does not look like a transcript: none of its {nonblank} non-blank line(s) is a "
                "Claude Code stream-json event, a session transcript record or an Arbiter SSE event.")

    # -- step-through --------------------------------------------------------------------------

    def step_count(self) -> int:
        return len(self._st_line)

    def step_of_seq(self, seq: int) -> int:
        return self._step_at(seq)

    def step_of_line(self, file: str | None, line: int) -> int:
        found = self._step_index.get((file, line))
        if found is not None:
            return found
        return next((i for i, (n, f) in enumerate(zip(self._st_line, self._st_file, strict=True))
                     if n >= line and (file is None or f == file)), 0)

    def step(self, i: int) -> StepView:
        s = self._step(i)
        raw = self.raw_line(s.file, s.line)
        ints = isinstance(s.before, int) or isinstance(s.after, int)
        return StepView(
            index=i, file=s.file, line=s.line, kind=s.kind, lane=s.lane, decision=s.decision,
            reason=s.reason, reset=s.reset, fp=s.fp, prev_fp=s.prev_fp,
            fp_changed=s.prev_fp is not None and s.fp is not None and s.fp != s.prev_fp,
            before=s.before, after=s.after, seqs=list(s.seqs), raw=raw, content=content_keys(raw),
            pointer_before=s.before if ints else None, pointer_after=s.after if ints else None,
            blocks=[(b.index, b.key, b.action, b.reason) for b in s.blocks], note=s.note,
            fates=F.of_step(self.fates, s, raw) if self.fates is not None else [],
            fp_mark=self.fp_mark(s.fp), prev_fp_mark=self.fp_mark(s.prev_fp),
        )

    # -- audit -----------------------------------------------------------------------------

    def run_audit(self) -> Iterator[float]:
        """Every strategy against one inventory of the input's content blocks: the one audit
        entry point (``multifile.audit_steps``), on the input exactly as it was translated."""
        if self._input is None:
            raise ValueError("nothing loaded")
        source: list[bytes] | dict[str, bytes]
        if self._input.single:
            source = self._input.files[None]
        else:
            source = {k: b"\n".join(v) for k, v in self._input.files.items() if k is not None}
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

    # -- export ----------------------------------------------------------------------------

    def ndjson(self) -> bytes:
        return R.encode_ndjson(self.relays)

    def trace_json(self) -> bytes:
        return T.steps_to_json(self.trace)

    def source_bytes(self) -> bytes | None:
        """The single input, byte for byte (None for several files)."""
        if self._input is None or not self._input.single:
            return None
        data = b"\n".join(self._input.files[None])
        return data + b"\n" if self._input.trailing_newline else data

    def source_parts(self) -> list[tuple[str | None, bytes]]:
        """The input as ``(file name, bytes)`` pairs (one ``(None, bytes)`` for a single text),
        the same bytes whichever way the same files were given: what a link's fingerprint hashes."""
        if self._input is None:
            return []
        if self._input.single:
            return [(None, self.source_bytes() or b"")]
        return [(k, b"\n".join(v)) for k, v in self._input.files.items()]

    def source_text(self) -> str | None:
        data = self.source_bytes()
        return None if data is None else data.decode("utf-8", "replace")


def _split_into(data: bytes, out: list[bytes]) -> Iterator[float]:
    """Split ``data`` into lines on ``\\n`` only, as ``Analyzer`` does, appending them to
    ``out`` a slice at a time. A final newline ends the last line rather than starting one."""
    if not data:
        return
    stop = len(data) - 1 if data.endswith(b"\n") else len(data)
    pos = 0
    while True:
        end = data.find(b"\n", min(pos + SLICE_BYTES, stop), stop)
        end = stop if end == -1 else end
        out.extend(data[pos:end].split(b"\n"))
        pos = end + 1
        yield min(pos / max(stop, 1), 1.0)
        if pos > stop:
            return


def binary_reason(name: str | None, data: object, size: int | None = None) -> str | None:
    """Why ``data`` cannot be a transcript at all (NUL bytes, or not UTF-8 text), or None.
    Only the start is looked at: a transcript is text from its first byte. ``data`` may be the
    first slice of a file of ``size`` bytes."""
    if not isinstance(data, bytes | bytearray | memoryview):
        return None
    head = bytes(data[:8192])
    if not head:
        return None
    size = len(data) if size is None else size
    bad = head.count(b"\x00")
    if not bad:
        text = head.decode("utf-8", "replace")
        bad = text.count("\ufffd") - (1 if size > len(head) else 0)  # a character cut at 8 KiB
        if bad <= max(2, len(text) // 100):
            return None
    what = f"{name}" if name else "The input"
    return (f"{what} is binary, not text ({fmt_size(size)}): it cannot be a Claude Code transcript, "
            "a session file or an SSE stream, so nothing was analyzed.")


def pretty_json(raw: str) -> str | None:
    try:
        return json.dumps(_any.decode(raw), indent=2, ensure_ascii=False) if raw.strip() else None
    except (msgspec.DecodeError, RecursionError):  # RecursionError: nested too deep to indent
        return None


def fmt_size(n: int) -> str:
    return f"{n} bytes" if n < 10_000 else f"{n / 1024:.0f} KiB" if n < 10_000_000 else f"{n / 1048576:.0f} MiB"


def _as_bytes(value: Text) -> bytes:
    # surrogatepass: text from JavaScript may hold lone surrogates (an emoji cut in half); their
    # bytes reach the translator, which reads them as U+FFFD with a warning, not as a crash
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else bytes(value)


def detail(r: R.Relay) -> str:
    """The full content of a relay, as plain text."""
    if isinstance(r, R.TextDelta | R.ThinkingDelta | R.UserMessage):
        return r.text
    if isinstance(r, R.ToolUse):
        try:
            pretty = json.dumps(_any.decode(r.input), indent=2, ensure_ascii=False)
        except (msgspec.DecodeError, RecursionError, ValueError):
            pretty = bytes(r.input).decode("utf-8", "replace")
        return f"{r.name} ({r.id})\n{pretty}"
    if isinstance(r, R.ToolResult):
        head = "error result" if r.is_error else "result"
        extra = f"; attachments: {', '.join(r.attachments)}" if r.attachments else ""
        return f"{head} for {r.tool_use_id}{extra}\n{r.text}"
    if isinstance(r, R.TurnComplete) and r.result:
        fields = {k: v for k, v in R.to_dict(r).items() if k not in ("result", "type", "seq", "line", "lane")}
        return f"{r.result}\n\n{json.dumps(fields, indent=2, ensure_ascii=False)}"
    return json.dumps(R.to_dict(r), indent=2, ensure_ascii=False)


def _searchable(r: R.Relay) -> str:
    if isinstance(r, R.TextDelta | R.ThinkingDelta | R.UserMessage):
        body = r.text
    elif isinstance(r, R.ToolUse):
        body = f"{r.name} {r.id} {bytes(r.input).decode('utf-8', 'replace')}"
    elif isinstance(r, R.ToolResult):
        body = f"{r.tool_use_id} {bytes(r.content).decode('utf-8', 'replace')}"
    else:
        body = summary(r)
    return f"{r.type} {r.lane} {body}".lower()


def content_keys(raw: str) -> list[str]:
    """The content array of a raw input line, as short block keys (``text:Hello…``)."""
    try:
        obj = _any.decode(raw) if raw.strip() else None
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return []
    if not isinstance(obj, dict):
        return []
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    keys = []
    for b in content:
        if not isinstance(b, dict):
            keys.append(str(b)[:40])
            continue
        kind = b.get("type")
        if kind == "tool_use":
            keys.append(f"tool_use:{b.get('id')}")
        elif kind == "tool_result":
            keys.append(f"tool_result:{b.get('tool_use_id')}")
        else:
            text = b.get("thinking") if kind == "thinking" and b.get("thinking") is not None else b.get("text")
            text = " ".join(str(text or "").split())
            keys.append(f"{kind}:{text[:40]}{'…' if len(text) > 40 else ''}")
    return keys


def _audit_view(a: StrategyAudit) -> AuditView:
    lost = a.first_lost or {}
    dup = a.first_duplicated or {}
    return AuditView(
        strategy=a.strategy, blocks=a.blocks, emitted=a.emitted, lost=a.lost, duplicated=a.duplicated,
        first_lost_line=lost.get("line"), first_lost_file=lost.get("file"), first_lost_block=lost.get("block"),
        first_dup_seqs=list(dup.get("seqs", [])), first_dup_block=dup.get("block"),
    )


# -- share links ---------------------------------------------------------------------------

_SHARE_PREFIX: Final = "v1."


def encode_share(text: str, state: Mapping[str, object]) -> str | None:
    """A URL fragment (without ``#``) carrying the transcript, compressed, and the view state;
    None when it would be longer than SHARE_LIMIT. The fragment never reaches a server."""
    payload = json.dumps({"state": dict(state), "text": text}, ensure_ascii=False,
                         separators=(",", ":")).encode("utf-8")
    compressor = zlib.compressobj(9)
    budget = SHARE_LIMIT * 3 // 4  # base64 makes 4 characters of 3 bytes
    parts, size = [], 0
    for start in range(0, len(payload), 1 << 16):  # give up as soon as it cannot fit
        parts.append(compressor.compress(payload[start:start + (1 << 16)]))
        size += len(parts[-1])
        if size > budget:
            return None
    parts.append(compressor.flush())
    packed = base64.urlsafe_b64encode(b"".join(parts)).rstrip(b"=").decode()
    fragment = _SHARE_PREFIX + packed
    return fragment if len(fragment) <= SHARE_LIMIT else None


SHARE_MAX_BYTES: Final = 32 * 1024 * 1024  # unpacked; links we make hold far less (SHARE_PRECHECK)


def decode_share(fragment: str) -> tuple[str, dict[str, object]]:
    """The transcript and view state of a fragment made by ``encode_share``. ValueError with a
    message for the reader when the link is damaged, or would unpack to more than
    SHARE_MAX_BYTES (a few hundred kilobytes of fragment can unpack to gigabytes)."""
    fragment = fragment.removeprefix("#")
    if not fragment.startswith(_SHARE_PREFIX):
        raise ValueError("This is not a link made by Relayscope.")
    body = fragment[len(_SHARE_PREFIX):]
    damaged = ("This link is damaged: the transcript it carries cannot be unpacked. "
               "Was it cut short or changed when it was copied? Ask for the link again.")
    unpack = zlib.decompressobj()
    try:
        raw = unpack.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)), SHARE_MAX_BYTES)
    except (ValueError, zlib.error) as exc:
        raise ValueError(damaged) from exc
    if unpack.unconsumed_tail:
        raise ValueError(f"This link would unpack to more than {SHARE_MAX_BYTES // (1024 * 1024)} MB, "
                         "more than any link Relayscope makes, so it was not opened.")
    if not unpack.eof:
        raise ValueError(damaged)
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise ValueError(damaged) from exc
    if not isinstance(payload, dict) or not isinstance(payload.get("text"), str):
        raise ValueError("This link carries no transcript.")
    state = payload.get("state")
    return payload["text"], state if isinstance(state, dict) else {}
