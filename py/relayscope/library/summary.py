"""library.summary: each session's summary, the listing (rule and summaries at once), the index.

:func:`summarize` makes a session's :class:`Summary` from its files' facts (``library.facts``);
:func:`listing` runs the rule (``library.rule``) and summarizes each session it finds, each file
read once (a stream-json file of several sessions read whole, one summary per id), or lazily,
:func:`complete` finishing a summary later; :func:`to_json` is one line of the index (NDJSON).
"""

from __future__ import annotations

import datetime as _dt
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Final

import msgspec

from .facts import _Facts, _iso
from .peek import Peek, Peeker
from .rule import (
    AGENT_FILE,
    ATTACHMENT,
    MAIN,
    META,
    SUBAGENT,
    Group,
    Skipped,
    _first_id,
    _lines,
    _norm,
    _session_dir,
    group,
)

SCHEMA: Final = 1  # the version of the index's objects (``schema`` in each)



class Summary(msgspec.Struct, omit_defaults=False):
    """One session as the index lists it (``docs/library.md``: the schema). Figures marked
    "full pass" are None until ``libsearch.fill`` has read every line."""

    schema: int
    session: str
    format: str
    project: str | None  # the project folder's name decoded (a path), or the records' cwd
    project_dir: str | None  # the folder the session's files are in (its name, as on disk)
    cwd: str | None
    git_branch: str | None
    title: str | None
    title_from: str | None  # custom-title, ai-title, summary, prompt
    start: str | None  # ISO 8601, UTC
    last_activity: str | None
    duration_s: float | None
    day: str | None  # the start's date (YYYY-MM-DD, UTC)
    cli_versions: list[str]
    models: list[str]
    subagents: int
    files: list[str]
    main: str | None
    size: int
    orphan: bool = False
    tool_calls: int | None = None  # full pass
    errors: int | None = None  # full pass
    input_tokens: int | None = None  # full pass
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_creation_tokens: int | None = None
    tokens: int | None = None  # the four summed
    relays: int | None = None  # full pass: relays of its translation
    complete: bool = False  # the full pass has run


def decode_project(folder: str) -> str:
    """A ``~/.claude/projects`` folder name as the path it stands for: ``-home-me-proj`` ->
    ``/home/me/proj``, ``C--Users-me-x`` -> ``C:\\Users\\me\\x``. Ambiguous (``-`` stands for
    ``/``, ``.``, ``_`` and ``-`` alike): the records' ``cwd``, where there is one, wins."""
    m = re.match(r"^([A-Za-z])--(.*)$", folder)
    if m:
        return f"{m.group(1).upper()}:\\" + m.group(2).replace("-", "\\")
    if folder.startswith("-"):
        return folder.replace("-", "/")
    return folder


def _project_dir(g: Group) -> str | None:
    """The folder a session's files are in: the main file's, or an orphan's session folder's parent."""
    if g.main is not None:
        d = posixpath.dirname(_norm(g.main))
    else:
        first = next(iter(g.files), "")
        where = _session_dir(_norm(first))
        d = posixpath.dirname(where[0]) if where is not None else posixpath.dirname(_norm(first))
    return d or None


def summarize(g: Group, peek: Peeker, session: str | None = None, *,
              known: Mapping[str, tuple[int, _Facts]] | None = None) -> Summary:
    """A session's :class:`Summary` from the first and last bytes of each of its files (``peek``
    again: a caller may cache). ``session``: for a stream-json file of several sessions, the one
    summed (only its lines count). ``known``: what :func:`listing` learnt of files as the rule
    looked at them (their size and facts), so that no file is read twice."""
    facts = _Facts()
    size = 0
    subagents = 0
    for path, role in g.files.items():
        main = role == MAIN or g.main is None
        seen = known.get(path) if known is not None and session is None else None
        if seen is not None:
            size += seen[0]
            if role == SUBAGENT:
                subagents += 1
            facts.merge(seen[1], main)
            continue
        p = peek(path)
        if isinstance(p, str):
            continue
        size += p.size
        if role in (ATTACHMENT, META):
            continue
        if role == SUBAGENT:
            subagents += 1
        if session is None:
            facts.ends(p.head, p.tail, main)
            continue
        head, tail = _lines(p)  # a stream-json file of several sessions: only this one's lines
        wanted = session.encode()
        mine = [x for x in (*head, *tail) if wanted in x or b"ession_id" not in x]
        facts.ends(b"\n".join(mine), b"", main)
    folder = _project_dir(g)
    base = posixpath.basename(folder) if folder else None
    project = facts.cwd or (decode_project(base) if base else None)
    title, title_from = facts.title()
    sid = session or (g.key if g.format == "session" else facts.session_id or g.key)
    duration = (facts.last - facts.start).total_seconds() if facts.start and facts.last else None
    return Summary(
        schema=SCHEMA, session=sid, format=g.format, project=project, project_dir=base, cwd=facts.cwd,
        git_branch=facts.branch, title=title, title_from=title_from, start=_iso(facts.start),
        last_activity=_iso(facts.last), duration_s=duration,
        day=facts.start.astimezone(_dt.UTC).date().isoformat() if facts.start else None,
        cli_versions=sorted(facts.versions), models=sorted(facts.models), subagents=subagents,
        files=list(g.files), main=g.main, size=size, orphan=g.orphan,
    )


def _look(path: str, p: Peek) -> _Facts:
    """What a file's ends say, as the listing learns it when the rule looks at the file."""
    f = _Facts()
    f.ends(p.head, p.tail, AGENT_FILE.match(posixpath.basename(_norm(path))) is None)
    return f


def complete(s: Summary, g: Group, peek: Peeker) -> Summary:
    """A summary of :func:`listing` ``(lazy=True)`` as the listing makes it (its files' ends
    read again); any other summary as it is."""
    if s.title_from != _BARE:
        return s
    known: dict[str, tuple[int, _Facts]] = {}
    for path in g.files:
        p = peek(path)
        if not isinstance(p, str):
            known[path] = (p.size, _look(path, p))
    return summarize(g, peek, known=known)


_BARE: Final = "\0bare"  # the mark of a lazy listing's summary, not yet made (never in the index)


def _bare(g: Group, known: Mapping[str, tuple[int, _Facts | None]]) -> Summary:
    """A session's summary before its files' ends are read: its id, files and size only."""
    size = sum(known[p][0] for p in g.files if p in known)
    return Summary(schema=SCHEMA, session=g.key, format=g.format, project=None, project_dir=None, cwd=None,
                   git_branch=None, title=None, title_from=_BARE, start=None, last_activity=None, duration_s=None,
                   day=None, cli_versions=[], models=[], subagents=sum(1 for r in g.files.values() if r == SUBAGENT),
                   files=list(g.files), main=g.main, size=size, orphan=g.orphan)


def listing(paths: Sequence[str], peek: Peeker, lines: Callable[[str], Iterable[bytes]], *,
            named: AbstractSet[str] = frozenset(), fill: Callable[[Summary, Group], Summary] | None = None,
            lazy: bool = False) -> tuple[list[tuple[Summary, Group]], list[Skipped]]:
    """The library of ``paths``: one summary per session (:func:`group`'s sessions; a stream-json
    file of several ``session_id`` s one per id, its ``lines`` read for its ids) with its group,
    and every file not listed with its reason (a copy names the session it copies). ``fill``:
    what makes each summary whole (``libsearch.fill``), a session at a time; ``lines`` raises
    ``OSError`` for a file that cannot be read. ``lazy`` (a search of words, which needs the
    summaries of the sessions it finds only): a transcript session's summary holds its id, files
    and size, :func:`complete` makes the rest (the same sessions, in the same order)."""
    known: dict[str, tuple[int, _Facts | None]] = {}

    def looked(path: str) -> Peek | str:  # each file read once: its facts kept, not its bytes
        p = peek(path)
        if not isinstance(p, str):
            known[path] = (p.size, None if lazy else _look(path, p))
        return p

    grouping = group(paths, looked, named=named)
    skipped = list(grouping.skipped)
    out: list[tuple[Summary, Group]] = []
    for g in grouping.groups:
        if g.copy_of is not None:
            skipped.append(Skipped(g.main or g.key, f"a copy of session {g.key} ({g.copy_of} is listed); skipped"))
            continue
        if lazy and g.format == "session":
            out.append((_bare(g, known), g))
            continue
        parts: dict[str, _Part] = {}
        if g.format == "stream-json":
            try:
                parts = _split_sessions(lines(g.main or g.key))
            except OSError as exc:
                skipped.append(Skipped(g.main or g.key, f"{exc}; skipped"))
                continue
        if len(parts) <= 1:
            if lazy:
                s = complete(_bare(g, known), g, peek)
            else:
                s = summarize(g, peek, known=known)  # type: ignore[arg-type]
            if parts:
                s = msgspec.structs.replace(s, session=next(iter(parts)))
            out.append((fill(s, g) if fill is not None else s, g))
            continue
        for sid, part in parts.items():  # each session of the file from its own lines' ends
            s = summarize(g, _always(part.peek()), sid)
            out.append((fill(s, g) if fill is not None else s, g))
    return out, skipped


def _always(p: Peek) -> Peeker:
    def peek(_path: str) -> Peek | str:
        return p
    return peek


class _Part:
    """One session's lines of a stream-json file of several: their bytes, first and last lines."""

    def __init__(self) -> None:
        self.size = 0
        self.head: list[bytes] = []
        self.head_bytes = 0
        self.tail: list[bytes] = []
        self.tail_bytes = 0

    def add(self, line: bytes) -> None:
        self.size += len(line) + 1
        if self.head_bytes < _PART_BYTES:
            self.head.append(line)
            self.head_bytes += len(line) + 1
            return
        self.tail.append(line)
        self.tail_bytes += len(line) + 1
        while self.tail_bytes > _PART_BYTES and len(self.tail) > 1:
            self.tail_bytes -= len(self.tail.pop(0)) + 1

    def peek(self) -> Peek:
        head = b"\n".join(self.head) + b"\n"
        tail = b"\n".join(self.tail) + b"\n" if self.tail else b""
        return Peek(self.size, head + tail) if not tail or self.size <= len(head) + len(tail) else \
            Peek(self.size, head, b"\n" + tail)


_PART_BYTES: Final = 16384  # of each end of each session of a stream-json file of several, kept while it is read


def _split_sessions(lines: Iterable[bytes]) -> dict[str, _Part]:
    """The sessions of a stream-json file, by ``session_id`` in the order they first appear, each
    with its size and the ends of its lines (a line without an id goes with the session before it)."""
    out: dict[str, _Part] = {}
    current: _Part | None = None
    for line in lines:
        if b"ession_id" in line or b"essionId" in line:
            sid = _first_id([line])
            if sid is not None:
                current = out.get(sid)
                if current is None:
                    current = out[sid] = _Part()
        if current is not None and line.strip():
            current.add(line)
    return out


_encoder: Final = msgspec.json.Encoder()


def to_json(s: Summary) -> bytes:
    """One line of the index (NDJSON), without its newline."""
    return _encoder.encode(s)
