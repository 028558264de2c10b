"""export: the run as a trace other tools open, and its figures, written as the input is read.

* ``chrome_trace``: Trace Event Format JSON (Perfetto UI, chrome://tracing, speedscope, the DevTools
  Performance panel). One process per session, named threads per lane: the lane's own (its agent
  span, and its tool calls nested in it), ``<lane> · parallel N`` for a call that starts while
  another of the lane runs (so no viewer draws siblings as parent and child), ``<lane> · model``
  for its model calls (``chat`` events with their usage). ``X`` complete events for spans, ``i``
  instant events for lost blocks and errors, ``M`` metadata. ``ts`` is absolute microseconds since
  the epoch (never 0, which the DevTools engine leaves out of the trace's bounds); off the time
  axis one input line (or relay) is one millisecond from ``untimed_start``, and ``otherData`` says so.
  A lane's span reaches 1 us past its last event (viewers end a span before its end time: a call
  that starts at the lane's last event would be a second root). Events come in the order their
  spans end (viewers sort them).
* ``otlp``: OTLP/JSON ``ExportTraceServiceRequest`` (Jaeger, Tempo, Phoenix, Langfuse, MLflow). One
  trace per session; a span per agent (``invoke_agent``), per tool call (``execute_tool``) and per
  model call (``chat``, with its usage): the OpenTelemetry GenAI attributes and OpenInference's
  (Phoenix reads those). Ids are hashes of the session id (else the input's first line), the lane,
  the tool call or message and where it began (file, line): the same run gives the same ids however
  it is read, so a collector that is sent it again does not count it twice, and an id the input
  repeats makes another span. A mark found after its lane's span was written (a block found lost
  later) is an event of the root, naming its lane. :class:`Spans` gives the spans as data for the
  protobuf encoder (``otlp.py``).
* ``figures``: where the time went (``spans.Builder.figures``), one entry per session.

Memory: one text (or stdin) is read a line at a time, and only what is still open is held (spans,
calls and lanes not finished, the timestamps of the last ``STAMPS_KEPT`` lines, the streamed audit's
digests: :class:`LostWatch`): constant in the input's length. Several files (a folder) are read a
session at a time: a session's files (main and sub-agents) are translated together, as
``multifile`` links them, and held whole while they are.

The CLI (``relayscope export``, ``stats``) and the web page's downloads both call :func:`write`
(or the same writers through :func:`stream`), so their bytes are the same.
Pure: no I/O. Must not: name machine paths in its output (files are named by their base name).
"""

from __future__ import annotations

import hashlib
import math
import sys
import time
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

import msgspec

from . import relay as R
from . import spans as S
from ._bounded import WITHDRAW_WINDOW, RecentMap
from .analysis import AUTO, Analyzer
from .audit import Inventory, Key, RelayKeys, describe
from .audit import digest as audit_digest
from .folds import THRESHOLD_S, fold, of_run
from .lanes import MAIN
from .multifile import audit_input, group_names, translate_files
from .wire import split_lines

FORMATS: Final = ("chrome-trace", "otlp")
LINE_US: Final = 1000  # off the time axis: one line (or relay) is drawn as one millisecond
SCOPE: Final = "relayscope"
STAMPS_KEPT: Final = 1 << 14  # lines whose timestamps a late relay (a message's usage) may still ask for
LOST_AFTER: Final = 4096  # lines a block may wait for the relay that carries it before it counts as lost
SEEN_KEPT: Final = 1 << 13  # digests of emitted blocks per generation (two are kept: 8,192 to 16,384 blocks back)
YIELD_AFTER: Final = 256  # finished items handed on together
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


# -- sources ---------------------------------------------------------------------------------

Source = bytes | Mapping[str, bytes] | Iterable[bytes]


def stream(source: Source, strategy: str = "lineage", fmt: str = AUTO,
           read: Callable[[str], bytes] | None = None) -> Iterator[tuple[Live, list[S.Closed], bool]]:
    """The runs of ``source`` (one text; ``{file name: content}``; or an iterable of chunks of one
    text, read as it comes) as ``(run, what finished, whether the run is done)``, in order. Files
    are grouped into sessions by what ``source`` gives, then read a session at a time through
    ``read`` (default: ``source`` again; the CLI's redacts)."""
    if isinstance(source, Mapping):
        yield from _files(source, strategy, fmt, read or source.__getitem__)
    else:
        yield from _text([source] if isinstance(source, bytes | bytearray) else source, strategy, fmt)


def _text(chunks: Iterable[bytes], strategy: str, fmt: str) -> Iterator[tuple[Live, list[S.Closed], bool]]:
    notes = S.StampNotes()
    stamps = StampRing()
    analyzer = Analyzer(strategy, fmt, keep=False)
    watch = LostWatch()
    live: Live | None = None
    number = 0
    rest = b""
    get = stamps.get

    def at(_file: str | None, line: int) -> float | None:
        return get(line)

    def x_of(r: R.Relay) -> float | None:
        return get(r.line)

    def one(line: bytes) -> list[S.Closed]:
        nonlocal number, live
        number += 1
        if live is None:
            if not line.strip():
                stamps.put(number, None)
                analyzer.feed_line(line)
                watch.line(number, line)
                return []
            live = Live(None, at, line, notes=notes)
            live.watch = watch
        stamps.put(number, notes.read(line) if b'"timestamp"' in line else None)
        relays = analyzer.feed_line(line)
        watch.relays(relays, x_of)
        watch.line(number, line)
        if number > LOST_AFTER:
            live.lost(watch.due(number))
        return live.feed(relays)

    out: list[S.Closed] = []
    for chunk in chunks:
        if not chunk:
            continue
        if not rest and chunk[-1:] == b"\n" and chunk.find(b"\n") == len(chunk) - 1:
            parts = [chunk[:-1]]  # a line as a reader gives it: no copies
        else:
            parts = (rest + bytes(chunk)).split(b"\n")
            rest = parts.pop()
        for line in parts:
            out.extend(one(line))
        if len(out) >= YIELD_AFTER and live is not None:  # in batches: each costs its caller a round
            yield live, out, False
            out = []
    out.extend(one(rest) if rest else ())
    tail = analyzer.finish()
    if live is None:
        if not tail:
            return
        live = Live(None, at, b"", notes=notes)
    watch.relays(tail, x_of)
    out += live.feed(tail)

    def late(b: S.Builder) -> None:
        live.lost(watch.finish())
        b.notes.extend(watch.notes())
    done = live.finish(late)
    live.errors = [(None, line, message) for line, message in analyzer.errors]
    t = analyzer.translator
    live.error_count = getattr(t, "error_count", len(live.errors)) if t is not None else len(live.errors)
    yield live, out + done, True


def _files(source: Mapping[str, bytes], strategy: str, fmt: str,
           read: Callable[[str], bytes]) -> Iterator[tuple[Live, list[S.Closed], bool]]:
    """A session's files (main and sub-agents) are translated together, as ``multifile`` links
    them: one session is held at a time, never the whole folder."""
    for _name, _found, names in group_names(source, fmt):
        yield from _session({n: read(n) for n in names}, strategy, fmt)


def _session(source: Mapping[str, bytes], strategy: str, fmt: str) -> Iterator[tuple[Live, list[S.Closed], bool]]:
    split = {k: split_lines(v) for k, v in source.items()}
    audits = {a.name: a for a in audit_input(source, [strategy], fmt)}
    for res in translate_files(source, strategy, fmt=fmt):
        notes = S.StampNotes()
        stamps = S.stamps_of({k: split[k] for k in res.files if k in split}, notes)
        audit = audits.get(res.name)
        lost = S.lost_blocks(res.relays, audit.items, res.format == "session") if audit and audit.comparable else ()
        first = next((ln for k in res.files for ln in split.get(k, []) if ln.strip()), b"")
        live = Live(res.name, stamps, first, several=len(res.files) > 1, lost=lost, notes=notes)
        live.errors, live.error_count = list(res.errors), len(res.errors)
        out = live.feed(res.relays)
        withdrawn = retracted_words(sum(1 for it in audit.items.values() if it.retracted) if audit else 0)
        out += live.finish(lambda b: b.notes.extend(withdrawn))  # noqa: B023 - called at once
        # a session's files are held whole, and their relays come a file at a time, not in time
        # order: the run's parts and its folds from its timeline (as the page folds it)
        tl = _timeline(live, out)
        if len(res.files) > 1:
            live.builder_now().whole = S.run_parts(tl)
        live.folds = of_run(tl, res.relays, stamps).to_json()
        yield live, out, True


# -- whole runs (the page's swimlanes, the tests) --------------------------------------------

class Run(msgspec.Struct):
    """One session (or stream) of the input: its timeline, what made it, and what a stream gave."""

    name: str | None
    timeline: S.Timeline
    relays: list[R.Relay]
    stamps: S.Stamps
    live: Live
    closed: list[S.Closed] = msgspec.field(default_factory=list)

    @property
    def errors(self) -> list[tuple[str | None, int, str]]:
        """What could not be read: (file, line, message)."""
        return self.live.errors


def runs(source: bytes | Mapping[str, bytes], strategy: str = "lineage", fmt: str = AUTO) -> list[Run]:
    """:func:`stream` held whole: each run with its relays and timeline (memory in the input)."""
    out: list[Run] = []
    if isinstance(source, Mapping):
        results = {r.name: r for r in translate_files(source, strategy, fmt=fmt)}
        split = {k: split_lines(v) for k, v in source.items()}
        for live, items, _ in stream(source, strategy, fmt):
            res = results[live.name or ""]
            out.append(_run(live, items, res.relays, S.stamps_of({k: split[k] for k in res.files if k in split})))
        return out
    lines = split_lines(bytes(source))
    a = Analyzer(strategy, fmt)
    for line in lines:
        a.feed_line(line)
    a.finish()
    closed: list[S.Closed] = []
    last: Live | None = None
    for live, got, _ in stream(bytes(source), strategy, fmt):
        closed += got
        last = live
    if last is None:
        return []
    return [_run(last, closed, list(a.relays), S.stamps_of({None: lines}))]


def _run(live: Live, closed: list[S.Closed], relays: list[R.Relay], stamps: S.Stamps) -> Run:
    return Run(live.name, _timeline(live, closed), relays, stamps, live, closed)


def _timeline(live: Live, closed: list[S.Closed]) -> S.Timeline:
    b = live.builder_now()
    b.closed = list(closed)
    tl = S.collect(b)
    b.closed = []
    return tl


def _replay(all_runs: Sequence[Run]) -> Iterator[tuple[Live, list[S.Closed], bool]]:
    for run in all_runs:
        yield run.live, run.closed, True


# -- the writers -----------------------------------------------------------------------------

class Writer:
    """A format's bytes, written as the runs' spans finish (``put``), ended by ``close``."""

    def __init__(self, out: Callable[[bytes], None], untimed_start: float) -> None:
        self.out = out
        self.untimed_start = untimed_start

    def put(self, run: Live, items: list[S.Closed], done: bool) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def ns(self, x: float, axis: str) -> int:
        """Nanoseconds since the epoch of x on ``axis``: never 0, never past an int64."""
        if axis == S.TIME:
            v = round(x * 1_000_000) * 1000
        else:
            v = round(self.untimed_start * 1_000_000 + x * LINE_US) * 1000
        return min(max(v, 1000), (2**63 - 1) // 1000 * 1000)

    def axis_words(self, axis: str) -> str:
        if axis == S.TIME:
            return S.AXIS_WORDS[axis]
        start = datetime.fromtimestamp(self.untimed_start, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        unit = "input line" if axis == S.LINE else "relay"
        return f"{S.AXIS_WORDS[axis]} (no timestamps: 1 ms = 1 {unit}, placed from {start})"


_dumps: Final = msgspec.json.encode  # compact, UTF-8 as is: what json.dumps(ensure_ascii=False) writes


# -- Trace Event Format ---------------------------------------------------------------------

class ChromeTrace(Writer):
    def __init__(self, out: Callable[[bytes], None], untimed_start: float) -> None:
        super().__init__(out, untimed_start)
        self.pid = 0
        self.cur: Live | None = None
        self.tids: dict[tuple[str, str, int], int] = {}
        self.first = True
        self.axes: set[str] = set()
        self.notes: list[str] = []
        self.parts: list[bytes] = []  # a batch's events, written together (``put``)
        out(b'{"traceEvents":[')

    def _event(self, e: dict[str, Any]) -> None:
        self.parts.append((b"" if self.first else b",\n") + _dumps(e))
        self.first = False

    def _start(self, run: Live) -> None:
        self.pid += 1
        self.cur, self.tids = run, {}
        b = run.builder_now()
        title = f"session {b.session_id}" if b.session_id else (_base(run.name) or "run")
        self._event({"name": "process_name", "ph": "M", "pid": self.pid, "tid": 0, "args": {"name": title}})

    def _tid(self, b: S.Builder, lane: str, family: str, row: int) -> int:
        key = (lane, family, row)
        tid = self.tids.get(key)
        if tid is None:
            tid = self.tids[key] = len(self.tids) + 1
            tr = b.tracks.get(lane)
            label = tr.label if tr is not None else lane
            name = (label if row == 0 else f"{label} · parallel {row + 1}") if family == "tools" else (
                f"{label} · model" + ("" if row == 0 else f" {row + 1}"))
            self._event({"name": "thread_name", "ph": "M", "pid": self.pid, "tid": tid, "args": {"name": name}})
        return tid

    def put(self, run: Live, items: list[S.Closed], done: bool) -> None:
        self._put(run, items, done)
        if self.parts:  # one write per batch: a call per event would cost as much as its encoding
            parts, self.parts = self.parts, []
            self.out(b"".join(parts))

    def _put(self, run: Live, items: list[S.Closed], done: bool) -> None:
        if run is not self.cur:
            self._start(run)
        b = run.builder_now()
        axis = b.axis
        for it in items:
            if isinstance(it, S.Span):
                ts = self.ns(it.start, axis) // 1000
                args: dict[str, Any] = {"lane": it.lane, "seq": it.seq, "line": it.line}
                if it.file:
                    args["file"] = _base(it.file)
                if it.kind == "tool":
                    args["input"] = it.label
                    args["tool_use_id"] = it.tool_id
                if it.end_seq is None:
                    args["open"] = True  # no result: ends at the lane's last event
                if it.error:
                    args["is_error"] = True
                # a lane's span reaches 1 us past its last event: viewers end a span before its end
                # time, so a call (or mark) that starts at the lane's last event is still inside it
                dur = max(0, self.ns(it.end, axis) // 1000 - ts) + (it.kind == "agent")
                self._event({"name": it.name, "cat": it.kind, "ph": "X", "ts": ts, "dur": dur, "pid": self.pid,
                             "tid": self._tid(b, it.lane, "tools", it.row if it.kind == "tool" else 0), "args": args})
            elif isinstance(it, S.Call):
                ts = self.ns(it.start, axis) // 1000
                cargs: dict[str, Any] = {"lane": it.lane, "seq": it.seq, "line": it.line, "model": it.model,
                                         "message_id": it.message_id, **_tokens(it)}
                if it.file:
                    cargs["file"] = _base(it.file)
                self._event({"name": f"chat {it.model or 'model'}", "cat": "model", "ph": "X", "ts": ts,
                             "dur": max(0, self.ns(it.end, axis) // 1000 - ts), "pid": self.pid,
                             "tid": self._tid(b, it.lane, "model", it.row), "args": cargs})
            elif it.kind != "model":
                margs: dict[str, Any] = {"lane": it.lane, "line": it.line, "text": it.text}
                if it.file:
                    margs["file"] = _base(it.file)
                if it.seq is not None:
                    margs["seq"] = it.seq
                self._event({"name": "lost block" if it.kind == "lost" else "error", "cat": it.kind, "ph": "i",
                             "s": "t", "ts": self.ns(it.at, axis) // 1000, "pid": self.pid,
                             "tid": self._tid(b, it.lane, "tools", 0), "args": margs})
        if done:
            self.axes.add(axis)
            self.notes.extend(b.notes)
            order = {tr.id: n for n, tr in enumerate(S._ordered(b.tracks))}
            ranked = sorted(self.tids.items(), key=lambda kv: (
                order.get(kv[0][0], len(order)), kv[0][1] != "tools", kv[0][2], kv[1]))
            for n, (_, tid) in enumerate(ranked, 1):  # main first, each lane under its parent
                self._event({"name": "thread_sort_index", "ph": "M", "pid": self.pid, "tid": tid,
                             "args": {"sort_index": n}})
            self.cur = None

    def close(self) -> None:
        other: dict[str, Any] = {"generator": SCOPE,
                                 "axis": ", ".join(self.axis_words(a) for a in sorted(self.axes))}
        if self.axes - {S.TIME}:
            other["untimed_unit"] = "1 ms = 1 input line (or relay): the input carries no timestamps"
        if self.notes:
            other["notes"] = self.notes
        self.out(b'],"displayTimeUnit":"ms","otherData":' + _dumps(other) + b"}\n")


def _tokens(c: S.Call) -> dict[str, int]:
    return {"input_tokens": c.input_tokens + c.cache_read_tokens + c.cache_creation_tokens,
            "output_tokens": c.output_tokens, "cache_read_input_tokens": c.cache_read_tokens,
            "cache_creation_input_tokens": c.cache_creation_tokens}


# -- OTLP spans ------------------------------------------------------------------------------

Value = str | int | bool


class OSpan(msgspec.Struct, frozen=True):
    """One OTLP span as data: what the JSON writer and the protobuf encoder both write."""

    trace_id: bytes
    span_id: bytes
    parent_id: bytes | None
    name: str
    start_ns: int
    end_ns: int
    attributes: list[tuple[str, Value]]
    events: list[tuple[int, str, list[tuple[str, Value]]]] = msgspec.field(default_factory=list)
    error: str | None = None


def _id(seed: bytes, *parts: str, size: int) -> bytes:
    h = hashlib.sha256(seed)
    for p in parts:
        h.update(b"\0" + p.encode("utf-8", "replace"))
    return h.digest()[:size]


def _at(it: S.Span | S.Call) -> tuple[str, str]:
    """Where a call began (file base name, line): an id repeated later (a capture read twice, an
    id reused after its result) makes another span, and a file read whole or followed says the same."""
    return _base(it.file) or "", str(it.line)


def _tool_id(trace: bytes, tool_id: str | None, it: S.Span) -> bytes:
    return _id(trace, "tool", tool_id or "", *_at(it), size=8)


def _attrs(*pairs: tuple[str, Value | None]) -> list[tuple[str, Value]]:
    return [(k, v) for k, v in pairs if v is not None]


class Spans:
    """A run's finished spans, calls and marks as OTLP spans (what ``otlp`` and the sender send).
    A lane's marks wait on its agent span (they are its events)."""

    def __init__(self, clock: Writer) -> None:
        self.clock = clock
        self.trace: dict[int, bytes] = {}  # id(run) -> trace id (fixed when its first span is made)
        self.events: dict[str, list[tuple[int, str, list[tuple[str, Value]]]]] = {}
        self.dropped: dict[str, int] = {}
        self.ended: dict[int, set[str]] = {}  # id(run) -> lanes whose agent span is written

    def trace_id(self, run: Live) -> bytes:
        got = self.trace.get(id(run))
        if got is None:
            b = run.builder_now()
            sid = (b.session_id or "").encode("utf-8", "replace")
            got = self.trace[id(run)] = _id(b"relayscope trace\0" + sid + b"\0" + run.seed, size=16)
        return got

    def resource(self, run: Live) -> list[tuple[str, Value]]:
        b = run.builder_now()
        return _attrs(("service.name", "claude-code"), ("session.id", b.session_id),
                      ("relayscope.axis", self.clock.axis_words(b.axis)), ("relayscope.source", _base(run.name)))

    def of(self, run: Live, items: list[S.Closed]) -> list[OSpan]:
        b = run.builder_now()
        axis = b.axis
        trace = self.trace_id(run)
        ns = self.clock.ns
        out: list[OSpan] = []
        for it in items:
            if isinstance(it, S.Mark):
                if it.kind == "model":
                    continue
                # a mark found after its lane's span was written (a block found lost later) goes on the root
                late = it.lane in self.ended.get(id(run), ())
                on = MAIN if late else it.lane
                kept = self.events.setdefault(on, [])
                if len(kept) >= EVENTS_KEPT:
                    self.dropped[on] = self.dropped.get(on, 0) + 1
                    continue
                kept.append((ns(it.at, axis), "lost block" if it.kind == "lost" else "error", _attrs(
                    ("relayscope.text", it.text), ("relayscope.line", it.line), ("relayscope.file", _base(it.file)),
                    ("relayscope.lane", it.lane if late else None))))
            elif isinstance(it, S.Call):
                mid = it.message_id or f"@{it.seq}"
                total_in = it.input_tokens + it.cache_read_tokens + it.cache_creation_tokens
                out.append(OSpan(
                    trace, _id(trace, "chat", it.lane, mid, *_at(it), size=8), _id(trace, "agent", it.lane, size=8),
                    f"chat {it.model}" if it.model else "chat", ns(it.start, axis), ns(it.end, axis), _attrs(
                        ("gen_ai.operation.name", "chat"), ("gen_ai.provider.name", "anthropic"),
                        ("gen_ai.request.model", it.model), ("gen_ai.response.model", it.model),
                        ("gen_ai.response.id", it.message_id), ("gen_ai.conversation.id", b.session_id),
                        ("gen_ai.usage.input_tokens", total_in if it.usage else None),
                        ("gen_ai.usage.output_tokens", it.output_tokens if it.usage else None),
                        ("gen_ai.usage.cache_read.input_tokens", it.cache_read_tokens if it.usage else None),
                        ("gen_ai.usage.cache_creation.input_tokens", it.cache_creation_tokens if it.usage else None),
                        ("openinference.span.kind", "LLM"), ("llm.provider", "anthropic"), ("llm.system", "anthropic"),
                        ("llm.model_name", it.model),
                        ("llm.token_count.prompt", total_in if it.usage else None),
                        ("llm.token_count.completion", it.output_tokens if it.usage else None),
                        ("llm.token_count.total", total_in + it.output_tokens if it.usage else None),
                        ("llm.token_count.prompt_details.cache_read", it.cache_read_tokens if it.usage else None),
                        ("llm.token_count.prompt_details.cache_write", it.cache_creation_tokens if it.usage else None),
                        ("relayscope.seq", it.seq), ("relayscope.line", it.line), ("relayscope.file", _base(it.file)))))
            elif it.kind == "tool":
                out.append(OSpan(
                    trace, _tool_id(trace, it.tool_id, it), _id(trace, "agent", it.lane, size=8),
                    f"execute_tool {it.name}", ns(it.start, axis), ns(it.end, axis), _attrs(
                        ("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", it.name),
                        ("gen_ai.tool.call.id", it.tool_id), ("gen_ai.tool.type", "function"),
                        ("openinference.span.kind", "TOOL"), ("tool.name", it.name),
                        ("relayscope.input", it.label), ("relayscope.seq", it.seq), ("relayscope.line", it.line),
                        ("relayscope.file", _base(it.file)), ("relayscope.open", True if it.open else None)),
                    error="tool_result is_error" if it.error else None))
            else:
                self.ended.setdefault(id(run), set()).add(it.lane)
                out.append(self._agent(run, b, trace, it))
        return out

    def _agent(self, run: Live, b: S.Builder, trace: bytes, s: S.Span) -> OSpan:
        tr = b.tracks.get(s.lane)
        if s.lane == MAIN:
            parent = None
        elif s.tool_id:
            parent = _tool_id(trace, s.tool_id, s)  # the spawning call: the agent span carries its line
        else:
            parent = _id(trace, "agent", s.parent_lane or MAIN, size=8)
        events = self.events.pop(s.lane, [])
        notes = b.notes if s.lane == MAIN else []
        dropped = self.dropped.pop(s.lane, None)
        return OSpan(
            trace, _id(trace, "agent", s.lane, size=8), parent, f"invoke_agent {s.name}",
            self.clock.ns(s.start, b.axis), self.clock.ns(s.end, b.axis), _attrs(
                ("gen_ai.operation.name", "invoke_agent"), ("gen_ai.provider.name", "anthropic"),
                ("gen_ai.agent.name", s.name), ("gen_ai.agent.id", s.lane),
                ("gen_ai.conversation.id", b.session_id), ("gen_ai.request.model", tr.model if tr else None),
                ("openinference.span.kind", "AGENT"), ("session.id", b.session_id),
                ("relayscope.usage.input_tokens", tr.input_tokens if tr else None),
                ("relayscope.usage.output_tokens", tr.output_tokens if tr else None),
                ("relayscope.usage.cache_read_input_tokens", tr.cache_read_tokens if tr else None),
                ("relayscope.usage.cache_creation_input_tokens", tr.cache_creation_tokens if tr else None),
                ("relayscope.axis", self.clock.axis_words(b.axis) if s.lane == MAIN else None),
                ("relayscope.notes", "; ".join(notes) if notes else None),
                ("relayscope.events_dropped", dropped),
                ("relayscope.seq", s.seq), ("relayscope.line", s.line), ("relayscope.file", _base(s.file)),
                ("relayscope.open", True if s.open else None)),
            events, "tool_result is_error" if s.error else None)


def _json_attrs(attrs: list[tuple[str, Value]]) -> list[dict[str, Any]]:
    """OTLP/JSON ``KeyValue``s: 64-bit integers as strings (one comprehension: a call per value
    would cost as much as the rest of the span)."""
    return [{"key": k, "value": {"boolValue": v} if v is True or v is False else
             {"intValue": str(v)} if type(v) is int else {"stringValue": v}} for k, v in attrs]


def otlp_json_span(s: OSpan) -> dict[str, Any]:
    """One span as OTLP/JSON writes it (ids as hex, 64-bit integers as strings)."""
    out: dict[str, Any] = {"traceId": s.trace_id.hex(), "spanId": s.span_id.hex()}
    if s.parent_id:
        out["parentSpanId"] = s.parent_id.hex()
    out.update({"name": s.name, "kind": 1, "startTimeUnixNano": str(s.start_ns), "endTimeUnixNano": str(s.end_ns),
                "attributes": _json_attrs(s.attributes)})
    if s.events:
        out["events"] = [{"timeUnixNano": str(t), "name": n, "attributes": _json_attrs(a)} for t, n, a in s.events]
    if s.error:
        out["status"] = {"code": 2, "message": s.error}
    return out


class OtlpJson(Writer):
    def __init__(self, out: Callable[[bytes], None], untimed_start: float) -> None:
        super().__init__(out, untimed_start)
        self.spans = Spans(self)
        self.cur: Live | None = None
        self.runs = 0
        self.first = True
        out(b'{"resourceSpans":[')

    def put(self, run: Live, items: list[S.Closed], done: bool) -> None:
        got = self.spans.of(run, items)
        if got and run is not self.cur:
            self.out((b"," if self.runs else b"") + b'{"resource":{"attributes":'
                     + _dumps(_json_attrs(self.spans.resource(run)))
                     + b'},"scopeSpans":[{"scope":{"name":"' + SCOPE.encode() + b'"},"spans":[')
            self.cur, self.first = run, True
            self.runs += 1
        if got:  # one write per batch: a call per span would cost as much as its encoding
            self.out((b"" if self.first else b",\n") + b",\n".join([_dumps(otlp_json_span(s)) for s in got]))
            self.first = False
        if done and self.cur is run:
            self.out(b"]}]}")
            self.cur = None

    def close(self) -> None:
        self.out(b"]}\n")


def writer(fmt: str, out: Callable[[bytes], None], untimed_start: float) -> Writer:
    if fmt == "chrome-trace":
        return ChromeTrace(out, untimed_start)
    if fmt == "otlp":
        return OtlpJson(out, untimed_start)
    raise ValueError(f"unknown export format {fmt!r}")


def write(source: Source, fmt: str, out: Callable[[bytes], None], strategy: str = "lineage", in_fmt: str = AUTO,
          untimed_start: float | None = None, now: float | None = None) -> list[Live]:
    """Export ``source`` in ``fmt`` to ``out`` as it is read (the CLI and the page). Untimed runs
    start at ``untimed_start`` (default: the start of the UTC day of ``now``). Returns the runs."""
    start = untimed_start if untimed_start is not None else day_start(time.time() if now is None else now)
    w = writer(fmt, out, start)
    seen: list[Live] = []
    for run, items, done in stream(source, strategy, in_fmt):
        if not seen or seen[-1] is not run:
            seen.append(run)
        w.put(run, items, done)
    w.close()
    return seen


def export(all_runs: Sequence[Run], fmt: str, untimed_start: float = 0.0) -> bytes:
    """The runs held whole (:func:`runs`) in ``fmt``: the bytes :func:`write` gives for their input."""
    parts: list[bytes] = []
    w = writer(fmt, parts.append, untimed_start or day_start(time.time()))
    for run, items, done in _replay(all_runs):
        w.put(run, items, done)
    w.close()
    return b"".join(parts)


def chrome_trace(all_runs: Sequence[Run], untimed_start: float = 0.0) -> bytes:
    return export(all_runs, "chrome-trace", untimed_start)


def otlp(all_runs: Sequence[Run], untimed_start: float = 0.0) -> bytes:
    return export(all_runs, "otlp", untimed_start)


def figures(all_runs: Sequence[Run]) -> list[dict[str, Any]]:
    """Where the time went, per session: ``{"name": ..., **spans.figures, "folds": ...}`` (the idle
    gaps the swimlanes fold, ``folds.Fold.to_json``)."""
    return [{"name": _base(r.name), **r.timeline.figures,
             "folds": of_run(r.timeline, r.relays, r.stamps).to_json()} for r in all_runs]


def run_figures(run: Live) -> dict[str, Any]:
    """A streamed run's figures (after its last item), with its folded gaps as :func:`figures`
    gives them (the builder kept the idle stretches as it went)."""
    b = run.builder_now()
    folds = run.folds
    if folds is None:
        start, end = b.bounds()
        folds = fold(b.gaps if b.axis == S.TIME else [], start, end, THRESHOLD_S).to_json()
    return {"name": _base(run.name), **b.figures([t.id for t in S._ordered(b.tracks)]), "folds": folds}
