"""workstate: the state a ``Workspace`` holds, and the records the page is given of it.

Job: the fields of a loaded input (its lines, relays, steps' columns, lookups) in one Struct
that the parts of the workspace (``loading``, ``stepping``, ``rows``, ``search``) extend, and the
plain views of errors, lanes and the audit. Reads the input's own lines (a raw line, its time).
Must not: translate, index or compute views (the parts do), import the parts, build markup.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from .. import fates as F
from .. import relay as R
from .. import spill
from .. import trace as T
from ..analysis import Analyzer
from ..drift import Drift
from ..lanes import Lane
from ..live import LiveFiles
from ..subagents import LaneStates
from ..translator import DEFAULT_STRATEGY, StrategyName
from ..usage import Tally
from ..wire import split_lines
from . import rowinfo
from .checkpoints import CHECKPOINT_BYTES, Checkpoints, Replay

Text = str | bytes


class ErrorView(msgspec.Struct, frozen=True):
    file: str | None
    line: int
    message: str


class LaneView(msgspec.Struct):
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
    est_cost_usd: float | None = None  # from usage.PRICES, when the input gives no cost
    unpriced: list[str] = msgspec.field(default_factory=list)  # models with no known price (not in est_cost_usd)
    state: str | None = None  # running, completed, failed (subagents.LaneState.state)
    status: str | None = None  # the state in words: "running, 30 s" while a heartbeat said so
    reported: Any = None  # main only: usage.Tally.reported, what the results' modelUsage says the run used
    usage_note: str | None = None  # main only: usage.Tally.note(), which totals to trust
    first_seq: int = -1
    last_seq: int = -1
    duration_ms: float = 0.0


class AuditView(msgspec.Struct, frozen=True):
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
    retracted: int = 0  # blocks a model_refusal_fallback withdrew: neither lost nor emitted


class Input(msgspec.Struct):
    """What was loaded, kept so that the same input can be re-run with another strategy: one text
    as its lines (split once, as it was read), or several files each as its bytes (split by the
    translation that reads them; here only once a line of one is looked at)."""

    lines: list[bytes]  # a single text's lines
    files: dict[str, bytes | bytearray]  # several files (a watched folder's grow in place)
    fmt: str
    name: str | None
    single: bool
    trailing_newline: bool = False  # of the single text, so that its bytes can be given back exactly
    _split: dict[str, list[bytes]] = msgspec.field(default_factory=dict)  # several files: lines looked at

    def file_lines(self, name: str) -> list[bytes]:
        """The lines of one of several files (split when first asked for, again once it grew)."""
        found = self._split.get(name)
        if found is None:
            found = self._split[name] = split_lines(bytes(self.files[name]))
        return found

    def grew(self, name: str) -> None:
        self._split.pop(name, None)

    def line_count(self) -> int:
        if self.single:
            return len(self.lines)
        return sum(data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0) for data in self.files.values())

    def all_lines(self) -> Iterator[bytes]:
        yield from self.lines
        for name in self.files:
            yield from self.file_lines(name)


class Loading(msgspec.Struct):
    """A single text being loaded a slice at a time (``Workspace.start_load``)."""

    analyzer: Analyzer
    checkpoints: Checkpoints | None  # being taken (``Workspace._single_analyzer``)
    size: int  # bytes expected, for progress (0: unknown)
    done: int = 0  # bytes taken so far
    rest: list[bytes] = msgspec.field(default_factory=list)  # a line whose newline has not come yet, in pieces
    ends_line: bool = False  # the last byte taken is a newline


class Loaded(msgspec.Struct):
    """What a loaded input is and what was made of it: the fields every part of ``Workspace`` reads.
    Its methods only read the input as it was given (a line, its time, its bytes)."""

    strategy: StrategyName = DEFAULT_STRATEGY
    format: str | None = None
    name: str | None = None
    relays: list[R.Relay] = msgspec.field(default_factory=list)
    _trace: list[T.TraceStep] | None = msgspec.field(default_factory=list)  # None: not made yet (see ``trace``)
    errors: list[ErrorView] = msgspec.field(default_factory=list)
    lanes: list[LaneView] = msgspec.field(default_factory=list)
    audit: list[AuditView] | None = None
    audit_error: str | None = None  # the audit failed (a bug): the translation stands, this says so
    lines_total: int = 0
    _input: Input | None = None
    _drift: Drift | None = None  # counted as the input was translated (``Workspace.drift_report``)
    _lane_meta: dict[str, Lane] = msgspec.field(default_factory=dict)  # lane id -> what the lanes layer knows
    _step_of_seq: list[int] = msgspec.field(default_factory=list)
    _step_index_: dict[tuple[str | None, int], int] | None = None  # (file, line) -> first step; see _step_index
    _by_tool_use: dict[str, int] = msgspec.field(default_factory=dict)
    _by_tool_result: dict[str, int] = msgspec.field(default_factory=dict)
    _lane_ids: set[str] = msgspec.field(default_factory=set)
    _haystack: list[Any] | None = None  # search.Hay of each relay, once a search needs them
    fates: F.Fates | None = None  # what became of each block, once the audit's inventory exists
    _items: dict[Any, Any] | None = None  # the audit's inventory of a single input
    _fp_order: dict[str, int] = msgspec.field(default_factory=dict)  # fingerprint -> first-seen ordinal
    _bookkeeping: set[int] = msgspec.field(default_factory=set)
    retracted: set[int] = msgspec.field(default_factory=set)  # rows a model_refusal_fallback withdraws
    _tally: Tally = msgspec.field(default_factory=Tally)  # the lanes' tokens: usage.Tally, the one rule
    _group_end: dict[int, int] = msgspec.field(default_factory=dict)  # head seq -> last seq of its group
    _member_head: dict[int, int] = msgspec.field(default_factory=dict)  # other seqs of a group -> head
    _group_open: tuple[tuple[Any, ...] | None, int] = (None, -1)  # the run the last relay is in
    _stamps: dict[tuple[str | None, int], str | None] = msgspec.field(default_factory=dict)
    _time_keys: list[float] = msgspec.field(default_factory=list)  # each relay's place in time (rows.Rows.time_keys)
    _time_last: dict[str | None, float] = msgspec.field(default_factory=dict)  # per file: the last key given
    _timed: bool = False  # some relay's line has a timestamp
    _axis: tuple[int, bool] | None = None  # (relays looked at, on wall-clock time): rowtext.RowText.on_clock
    _lane_views: dict[str, LaneView] = msgspec.field(default_factory=dict)
    _states: LaneStates = msgspec.field(default_factory=LaneStates)  # sub-agent lanes as the relays tell (subagents)
    _results: list[R.TurnComplete] = msgspec.field(default_factory=list)  # in order: the CLI's count, the timing
    _refusals: dict[str, int] = msgspec.field(default_factory=dict)  # a refused call's id -> the row that refused it
    _sessions: list[int] = msgspec.field(default_factory=list)  # session_meta rows: their line reads on (rows.Rows)
    _message_row: dict[tuple[str, str], int] = msgspec.field(default_factory=dict)  # (lane, message id) -> its last row
    _usage_row: dict[int, int] = msgspec.field(default_factory=dict)  # a usage relay -> the message row it counts
    _row_usage: dict[int, int] = msgspec.field(default_factory=dict)  # a message row -> the usage relay counting it
    _live: Analyzer | LiveFiles | None = None  # the translator a watched input is fed to
    _loading: Loading | None = None  # a single text coming a slice at a time (start_load)
    _live_rest: dict[str | None, bytes] = msgspec.field(default_factory=dict)  # per file: a partial last line
    # A single stream-json input is translated with marks, not the trace (trace.Marks: its
    # fields cost a third of the translation); a step is made again when it is looked at.
    lazy_trace: bool = True
    _marks: T.Marks | None = None
    _replay: Replay | None = None
    _step_cache: dict[int, T.TraceStep] = msgspec.field(default_factory=dict)
    checkpoint_bytes: int = CHECKPOINT_BYTES  # 0: no checkpoints (every far jump from the first line)
    _checkpoints: Checkpoints | None = None
    # of each step, what rows and lookups need of every step (the marks' lists, or the trace's)
    _st_line: list[int] = msgspec.field(default_factory=list)
    _st_file: list[str | None] = msgspec.field(default_factory=list)
    _st_lane: list[str | None] = msgspec.field(default_factory=list)
    _st_fp: list[str | None] = msgspec.field(default_factory=list)
    _st_reset: list[str | None] = msgspec.field(default_factory=list)
    _st_end: list[int] = msgspec.field(default_factory=list)  # with marks: where each step's seqs end

    def spilled(self, r: R.ToolResult) -> tuple[spill.Spill, str | None, bytes | None] | None:
        """A result whose output was spilled to disk: the spill, the input file that holds it and
        that file's bytes (None, None: the input does not hold it); None for any other result."""
        found = spill.of(r.text)
        if found is None:
            return None
        files = self._input.files if self._input is not None and not self._input.single else {}
        name = spill.find(found, files)
        return found, name, bytes(files[name]) if name is not None else None

    def _line_bytes(self, file: str | None, line: int) -> bytes:
        if self._input is None:
            return b""
        inp = self._input
        if inp.single:
            lines: list[bytes] | None = inp.lines
        else:  # a file given by another path form: by the end of its path
            name = file if file in inp.files else next((k for k in inp.files if file and k.endswith(file)), None)
            lines = inp.file_lines(name) if name is not None else None
        if not lines or not 1 <= line <= len(lines):
            return b""
        return lines[line - 1]

    def line_time(self, file: str | None, line: int) -> str | None:
        key = (file, line)
        if key not in self._stamps:
            self._stamps[key] = rowinfo.timestamp(self._line_bytes(file, line))
        return self._stamps[key]

    def raw_line(self, file: str | None, line: int) -> str:
        return self._line_bytes(file, line).decode("utf-8", "replace").rstrip("\r")

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
        nonblank = sum(1 for x in self._input.all_lines() if x.strip())
        if nonblank == 0:
            return "The input is empty."
        return (f"This does not look like a transcript: none of its {nonblank} non-blank line(s) is a "
                "Claude Code stream-json event, a session transcript record or an Arbiter SSE event.")

    def ndjson(self) -> bytes:
        return R.encode_ndjson(self.relays)

    def source_bytes(self) -> bytes | None:
        """The single input, byte for byte (None for several files)."""
        if self._input is None or not self._input.single:
            return None
        data = b"\n".join(self._input.lines)
        return data + b"\n" if self._input.trailing_newline else data

    def source_parts(self) -> list[tuple[str | None, bytes]]:
        """The input as ``(file name, bytes)`` pairs (one ``(None, bytes)`` for a single text),
        the same bytes whichever way the same files were given: what a link's fingerprint hashes."""
        if self._input is None:
            return []
        if self._input.single:
            return [(None, self.source_bytes() or b"")]
        return [(k, bytes(v)) for k, v in self._input.files.items()]

    def source_text(self) -> str | None:
        data = self.source_bytes()
        return None if data is None else data.decode("utf-8", "replace")
