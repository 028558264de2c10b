"""The sources (one text, a folder's files, a session) read into runs, and the writer they are handed to."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Final

import msgspec

from .. import relay as R
from .. import spans as S
from ..analysis import AUTO, Analyzer
from ..folds import of_run
from ..lanes import Lane
from ..multifile import audit_input, group_names, translate_files
from ..wire import split_lines
from .live import LINE_US, LOST_AFTER, Live, LostWatch, StampRing, retracted_words

# -- sources ---------------------------------------------------------------------------------

Source = bytes | Mapping[str, bytes] | Iterable[bytes]

YIELD_AFTER: Final = 256  # finished items handed on together


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
    lanes: dict[str, Lane] = msgspec.field(default_factory=dict)  # the translator's: type, task, label

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
            out.append(_run(live, items, res.relays, S.stamps_of({k: split[k] for k in res.files if k in split}),
                            res.lanes))
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
    return [_run(last, closed, list(a.relays), S.stamps_of({None: lines}), dict(a.lanes))]


def _run(live: Live, closed: list[S.Closed], relays: list[R.Relay], stamps: S.Stamps,
         lanes: dict[str, Lane]) -> Run:
    return Run(live.name, _timeline(live, closed), relays, stamps, live, closed, lanes)


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


