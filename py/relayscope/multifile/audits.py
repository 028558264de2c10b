"""The audit of an input (a file, lines, or a set of files), each strategy's, one entry point."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from typing import Final

import msgspec

from ..analysis import AUTO, SLICE_BYTES, Analyzer
from ..audit import Audit, Inventory, Item, Key, StrategyAudit
from ..drift import Drift
from ..formats import Sniffer, detect
from ..formats.session import (
    AGENT_META,
)
from ..lanes import Lane
from ..translator import STRATEGIES, Translator
from ..wire import Frame, decode_line, split_lines
from .groups import FileGroup, group_files
from .scan import Errors, Text, _basename, _Prepared
from .session import _translate_session

# --- the audit: one entry point -----------------------------------------------------------------

INVENTORY_SHARE: Final = 0.1  # of a group's progress: building its inventory


class InputAudit(msgspec.Struct):
    """The audit of one group of an input: every strategy against one inventory of its blocks."""

    name: str | None
    format: str
    files: list[str]
    audits: list[StrategyAudit]  # one per strategy; empty for an SSE stream (nothing to compare)
    errors: Errors  # what the input could not be read as (the same for every strategy)
    relays: dict[str, int] = msgspec.field(default_factory=dict)  # strategy -> relays of its translation
    items: dict[Key, Item] = msgspec.field(default_factory=dict)  # the inventory (the web view's lost blocks)

    @property
    def comparable(self) -> bool:
        """False for an Arbiter SSE stream: it has no duplicates to compare."""
        return self.format != "sse"


def audit_input(source: Text | Iterable[bytes] | Mapping[str, Text], strategies: Iterable[str] | None = None,
                fmt: str = AUTO, *, name: str | None = None, items: bool = True,
                again: Callable[[], Iterable[bytes]] | None = None, keys: bool = True) -> list[InputAudit]:
    """:func:`audit_steps` run to the end (the CLI's way in)."""
    steps = audit_steps(source, strategies, fmt, name=name, items=items, again=again, keys=keys)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: list[InputAudit] = done.value
            return result


def audit_steps(source: Text | Iterable[bytes] | Mapping[str, Text], strategies: Iterable[str] | None = None,
                fmt: str = AUTO, *, name: str | None = None, items: bool = True,
                again: Callable[[], Iterable[bytes]] | None = None,
                keys: bool = True) -> Generator[float, None, list[InputAudit]]:
    """Audit an input exactly as it is translated for display; yields progress in [0, 1] and
    returns one :class:`InputAudit` per group (``results = yield from audit_steps(...)``).

    ``source`` is one text, or its lines (a sequence, or an iterable read once: progress is then
    not known), read as one stream through an ``Analyzer``, as the CLI reads a file and the page a
    paste; or ``{name: content}`` (grouped as :func:`translate_files` groups them: a session's
    files together, any other file on its own). ``name`` names the one text in errors. Without
    ``items`` the inventory is not kept (``InputAudit.items`` is empty): what the CLI needs. ``again``
    (with lines read once): the same lines read again from the first (a file), so that the strategies
    are translated one at a time over the whole input, the same audit in less memory. Without
    ``keys`` (one text), each audit's ``lost_keys`` and ``duplicated_keys`` are left empty: what a
    table, which prints only the first of each, needs."""
    names = list(strategies if strategies is not None else STRATEGIES)
    if not isinstance(source, Mapping):
        lines: Iterable[bytes] = split_lines(source) if isinstance(source, str | bytes) else source
        found, lines = _format_of(lines, fmt)
        result = yield from _audit_stream(name, found, lines, names, 0.0, 1.0, grouped=False, items=items,
                                          again=again, keys=keys)
        yield 1.0
        return [result]
    cache: _Prepared = {}
    groups = group_files(source, fmt, cache)
    sizes = [sum(len(c) for c in g.files.values()) for g in groups]
    total = sum(sizes) or 1
    done = 0
    results: list[InputAudit] = []
    for g, size in zip(groups, sizes, strict=True):
        start, share = done / total, size / total
        if g.format == "session":
            result = yield from _audit_session(g, names, cache, start, share)
        else:
            result = yield from _audit_stream(g.name, g.format, split_lines(g.files[g.name]), names, start, share,
                                              grouped=True, items=items)
        results.append(result)
        done += size
    yield 1.0
    return results


def _format_of(lines: Iterable[bytes], fmt: str) -> tuple[str, Iterable[bytes]]:
    """The input's format (``fmt``, else detected from the first lines) and its lines, all of them:
    lines read once are held only until the format is known."""
    if fmt != AUTO:
        return fmt, lines
    if isinstance(lines, Sequence):
        return detect(lines), lines
    head: list[bytes] = []
    rest: Iterator[bytes] = iter(lines)
    sniffer = Sniffer()
    found = None
    for line in rest:
        head.append(line)
        found = sniffer.feed(line)
        if found is not None:
            break
    return found or "stream-json", itertools.chain(head, rest)


def _audit_stream(name: str | None, fmt: str, lines: Iterable[bytes], names: list[str], start: float, share: float,
                  *, grouped: bool, items: bool = True, again: Callable[[], Iterable[bytes]] | None = None,
                  keys: bool = True) -> Generator[float, None, InputAudit]:
    """One stream: each line to the inventory, then to each strategy's translator; all of them in
    one pass, or (``again``: the lines read again from the first) one a pass, the inventory along
    the first. Relays and inventory carry no file name (a stream is one file), so
    user text matches."""
    files = [name] if name is not None and grouped else []
    total = sum(map(len, lines)) if isinstance(lines, Sequence) else 0
    if fmt == "sse":  # translated once all the same: its relays count in the seq space shown
        a = Analyzer("lineage", fmt, keep=False)
        count = 0
        for line in lines:
            count += len(a.feed_line(line))
        count += len(a.finish())
        return InputAudit(name, fmt, files, [], [(name, line, message) for line, message in a.errors],
                          dict.fromkeys(names, count))
    inv = Inventory(keep=items)
    audit = Audit(names)
    drift = Drift()  # counted once, as the first pass decodes each line
    # A file read again is read once per strategy, the inventory built along the first pass: a
    # translator holds its bounded windows (~15 MB at 400 MB), so one a pass holds least, at a read
    # and decode of every line a pass. (Two in a pass, even with the index strategy, whose windows
    # are a third of the others', peaked at 63-67 MB at 406 MB against 58-60.)
    passes = [[k] for k in range(len(names))] if again is not None and names else [list(range(len(names)))]
    shown = names.index("lineage") if "lineage" in names else 0  # the translation whose errors are said
    progress = _Progress(start, share, total * (len(names) + 1))  # a line's work: the inventory's and each translator's
    errors: Errors = []
    read = 0
    for group in passes:
        # a later pass reads the lines the first read, however the file has grown since
        source = lines if group is passes[0] or again is None else itertools.islice(again(), read)
        strategies = {k: names[k] for k in group}
        ran = yield from _audit_pass(audit, strategies, fmt, source, progress, inv if group is passes[0] else None,
                                     drift.decode if group is passes[0] else decode_line, shown)
        read = read or ran.lines
        if ran.errors is not None:
            errors = [(name, line, message) for line, message in ran.errors]
    audits = audit.finish(keys=keys)
    _with_drift(audits, drift)
    return InputAudit(name, fmt, files, audits, errors, {a.strategy: a.relays for a in audits}, inv.items)


class _Progress(msgspec.Struct):
    """Where a stream's audit is: ``done`` of ``work`` (bytes times the passes over them: the
    inventory's and each translator's), as a share of the whole input's progress from ``start``."""

    start: float
    share: float
    work: int  # 0: not known (lines read once)
    done: int = 0

    def add(self, work: int) -> float | None:
        self.done += work
        return self.start + self.share * self.done / self.work if self.work else None


class _Pass(msgspec.Struct):
    lines: int  # lines read
    errors: list[tuple[int, str]] | None  # the lines the translation shown could not read, if it ran


def _audit_pass(audit: Audit, strategies: dict[int, str], fmt: str, lines: Iterable[bytes], progress: _Progress,
                inv: Inventory | None, decode: Callable[[bytes, int], Frame],
                shown: int) -> Generator[float, None, _Pass]:
    """One pass over a stream's lines: each to the inventory (the first pass), then to the translator
    of each of ``strategies`` (numbered as ``audit``'s), which are ended and let go at the end (with
    their windows: a pass holds only its own); the errors of strategy ``shown``, if it ran."""
    analyzers = {k: Analyzer(strategy, fmt, keep=False) for k, strategy in strategies.items()}
    # Each line decoded once a pass, its frame fed to each of the pass's translators (they only
    # read it): the ids the translators remember are then one string each, not one per strategy.
    feeds = [(k, a.translator.feed) for k, a in analyzers.items() if isinstance(a.translator, Translator)]
    share_of_line = len(feeds) + (inv is not None)
    budget = number = 0
    for number, line in enumerate(lines, 1):
        if inv is not None:
            inv.add_line(number, line)
            audit.take(inv)
        frame = decode(line, number)
        for k, feed in feeds:
            relays = feed(frame)
            if relays:
                audit.feed(k, relays)
        budget += len(line) * share_of_line
        if budget >= SLICE_BYTES:  # a slice of work as long as one translator's over SLICE_BYTES
            at, budget = progress.add(budget), 0
            if at is not None:
                yield at
    for k, a in analyzers.items():
        audit.feed(k, a.finish())
    if inv is not None:
        inv.finish()
        audit.take(inv)
    errors = None
    for k, a in analyzers.items():
        audit.end(k, a.lanes)
        if k == shown:
            errors = a.errors
    return _Pass(number, errors)


def _with_drift(audits: list[StrategyAudit], d: Drift) -> None:
    """Each audit carries the input's drift report (the same for every strategy): its counts."""
    report = d.report()
    counts = {"records": report.records, "types": report.types, "fields": report.fields, "version": report.version}
    for a in audits:
        a.drift = counts


def _audit_session(g: FileGroup, names: list[str], cache: _Prepared, start: float,
                   share: float) -> Generator[float, None, InputAudit]:
    """One session's files: one inventory of every file's blocks (user text told apart by file
    and line), each strategy through :func:`translate_session`."""
    items: dict[Key, Item] = {}
    audit = Audit(names)
    for file, content in g.files.items():
        if AGENT_META.match(_basename(file)):
            continue
        inv = Inventory(file)
        for number, line in enumerate(cache[file][0] if file in cache else split_lines(content), 1):
            inv.add_line(number, line)
        for key, item in inv.finish().items():
            items.setdefault(key, item)
        audit.take(inv)
    yield start + share * INVENTORY_SHARE
    errors: Errors = []
    counts: dict[str, int] = {}
    lanes: list[Mapping[str, Lane]] = []
    drift = Drift()  # counted once, as the first strategy's translator decodes the files
    for k, strategy in enumerate(names):
        result = _translate_session(g.files, strategy, False, cache, drift if k == 0 else None)
        audit.feed(k, result.relays)
        lanes.append(result.lanes)
        counts[strategy] = len(result.relays)
        if k == 0 or strategy == "lineage":
            errors = result.errors
        yield start + share * (INVENTORY_SHARE + (1 - INVENTORY_SHARE) * (k + 1) / len(names))
    audits = audit.finish(lanes)
    _with_drift(audits, drift)
    return InputAudit(g.name, "session", list(g.files), audits, errors, counts, items)


def merge_audits(groups: list[InputAudit]) -> list[StrategyAudit]:
    """One audit per strategy for a whole input shown as one list: counts summed over its groups,
    the first lost / duplicated block that of the first group that has one (duplicate seqs in the
    one seq space the groups' relays share, in group order). A single group is returned as is."""
    comparable = [g for g in groups if g.comparable]
    if len(groups) == 1:
        return list(comparable[0].audits) if comparable else []
    if not comparable:
        return []
    out: list[StrategyAudit] = []
    for i, first in enumerate(comparable[0].audits):
        strategy = first.strategy
        merged = StrategyAudit(strategy, 0, 0, 0, 0, 0, 0, 0)
        offset = 0
        for g in groups:
            if g.comparable:
                a = g.audits[i]
                merged.relays += a.relays
                merged.blocks += a.blocks
                merged.emitted += a.emitted
                merged.lost += a.lost
                merged.duplicated += a.duplicated
                merged.retracted += a.retracted
                merged.extra_emissions += a.extra_emissions
                merged.unmatched += a.unmatched
                merged.lost_keys += a.lost_keys
                merged.duplicated_keys += a.duplicated_keys
                if merged.first_lost is None and a.first_lost is not None:
                    merged.first_lost = a.first_lost
                if merged.first_duplicated is None and a.first_duplicated is not None:
                    dup = dict(a.first_duplicated)
                    dup["seqs"] = [q + offset for q in dup.get("seqs", [])]
                    merged.first_duplicated = dup
            offset += g.relays.get(strategy, 0)
        out.append(merged)
    return out


def audit_lines(lines: Sequence[str | bytes], strategies: Iterable[str] | None = None,
                fmt: str = AUTO) -> list[StrategyAudit]:
    """The audits of one stream's lines (:func:`audit_input` of one text, its only group)."""
    return audit_input([line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass") for line in lines],
                       strategies, fmt)[0].audits


