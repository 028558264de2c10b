"""Any set of files grouped into sessions, and each group translated."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import msgspec

from ..analysis import Analyzer
from ..drift import Drift, DriftByFile
from ..formats import detect
from ..formats.session import (
    AGENT_META,
)
from ..library import ATTACHMENT, META, Peek, peek_bytes, place
from ..library import group as library_group
from ..wire import iter_lines
from .growing import read_meta
from .scan import BAD_META, Text, _basename, _prepare, _Prepared, _Scan, is_companion
from .session import SessionResult, _translate_session

# --- any set of files: group into sessions ----------------------------------------------------


class FileGroup(msgspec.Struct):
    """One session's files (``format == "session"``), or one file of another format."""

    name: str
    format: str
    files: dict[str, Text]


def group_files(files: Mapping[str, Text], fmt: str = "auto", _cache: _Prepared | None = None) -> list[FileGroup]:
    """Sort a set of files (a folder, a drop) into sessions: each main ``<session>.jsonl`` with
    the sub-agent files of ``<session>/subagents/`` beside it, the sub-agent files one of its tool
    results names (``toolUseResult.agentId``), and the ``agent-*.jsonl`` whose records carry its
    ``sessionId``; each with its ``agent-<id>.meta.json`` (one whose transcript is not given still
joins the session of its ``subagents/`` folder). Sub-agent files with no main file form
    one group per sessionId. A file that is no session transcript (detected; every file when
    ``fmt`` names another format) is a group of its own. Groups come in input order."""
    cache: _Prepared = {} if _cache is None else _cache
    return [FileGroup(name, found, {n: files[n] for n in names}) for name, found, names in _groups(files, fmt, cache)]


class _KeepNothing(dict[str, tuple[list[bytes], _Scan]]):
    """A cache that keeps nothing: each file is read again when its group is."""

    def __setitem__(self, name: str, found: tuple[list[bytes], _Scan]) -> None:
        pass


def group_names(files: Mapping[str, Text], fmt: str = "auto") -> list[tuple[str, str, list[str]]]:
    """:func:`group_files` as ``(name, format, file names)``, each file looked at once and let go:
    for a reader that then reads one group at a time (``files`` may read a file when asked)."""
    return _groups(files, fmt, _KeepNothing())


def _groups(files: Mapping[str, Text], fmt: str, cache: _Prepared) -> list[tuple[str, str, list[str]]]:
    """The groups, by the library's one rule (``library.group``: which files make which session),
    each file looked at by its first and last bytes; a file the rule does not take as a session's
    or another format's (empty, binary, no record) is still a group of its own, as it always was,
    so that its translation says what is wrong with it. Session files are split into lines once
    (``cache``), for translating."""
    def peek(name: str) -> Peek:
        content = files[name]
        return peek_bytes(content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content)

    order = {name: k for k, name in enumerate(files)}
    grouping = library_group(list(files), peek, named=set(order), fmt=None if fmt == "auto" else fmt)
    out: list[tuple[bool, int, tuple[str, str, list[str]]]] = []  # (orphans last, input order, the group)
    taken: set[str] = set()
    for g in grouping.groups:
        # attachments (tool-results/, a workflow's journal) go with their session untranslated:
        # its translation reads spilled output and return values from them
        names = [n for n, role in g.files.items() if role != ATTACHMENT or is_companion(n)]
        if not any(g.files[n] != ATTACHMENT for n in names):
            continue
        if g.format == "session":
            for n in names:
                if not AGENT_META.match(_basename(n)) and not is_companion(n):
                    _prepare(n, files[n], cache)
        taken.update(names)
        head = next(n for n in names if not is_companion(n))
        out.append((g.orphan, min(order[n] for n in names), (head, g.format, names)))
    for s in grouping.skipped:
        where = place(s.path)
        if s.path in files and s.path not in taken and not AGENT_META.match(_basename(s.path)) \
                and (where is None or where[1] not in (ATTACHMENT, META)):
            found = fmt if fmt != "auto" else detect(iter_lines(files[s.path]))  # as it was always read
            out.append((False, order[s.path], (s.path, found, [s.path])))
    return [group for _, _, group in sorted(out, key=lambda x: (x[0], x[1]))]


def meta_errors(files: Mapping[str, Text]) -> list[tuple[str | None, int, str]]:
    """The sub-agent meta files a translation of ``files`` reads (those of a session's agent
    files) that are not the JSON object expected: what ``translate_files`` reports of them."""
    return [(name, 1, BAD_META) for g in group_files(files) if g.format == "session" for name in g.files
            if AGENT_META.match(_basename(name)) and read_meta(g.files[name]) is None]


def translate_files(files: Mapping[str, Text], strategy: str = "lineage", *, trace: bool = False,
                    fmt: str = "auto") -> list[SessionResult]:
    """Translate a set of files (``{relative path or name: content}``), one result per session
    (see :func:`group_files`); a file that is no session transcript gets a result of its own."""
    return list(translate_groups(files, strategy, trace=trace, fmt=fmt))


def translate_groups(files: Mapping[str, Text], strategy: str = "lineage", *, trace: bool = False,
                     fmt: str = "auto", drift: Drift | None = None) -> Iterator[SessionResult]:
    """:func:`translate_files`'s results one group at a time, for a caller that pauses between
    them (the page); each file is split into lines once, for grouping and translating alike.
    ``drift``: one counter for every file (then no result carries a report of its own)."""
    cache: _Prepared = {}
    for g in group_files(files, fmt, cache):
        if g.format == "session":
            by_file = DriftByFile() if drift is None else None
            result = _translate_session(g.files, strategy, trace, cache, by_file if drift is None else drift)
            if by_file is not None:
                result.drift = {f: d.report() for f, d in by_file.by_file.items() if f is not None}
            yield result
            continue
        a = Analyzer(strategy, g.format, trace=trace, file=g.name, drift=True if drift is None else drift)
        a.feed_text(g.files[g.name])
        a.finish()
        yield SessionResult(
            name=g.name, format=g.format, files=[g.name], relays=a.relays, trace=a.trace,
            errors=[(g.name, line, message) for line, message in a.errors], lanes=dict(a.lanes),
            drift={g.name: a.drift.report()} if drift is None and a.drift is not None else {},
        )


