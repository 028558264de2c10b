"""library.rule: the one rule that says which files make which session.

:func:`group` takes the relative paths of a set of files and a way to peek at each, and returns
the sessions they make (main file, sub-agent files and their meta files, attachments), the files
of other formats as groups of their own, copies marked as such, and every other file skipped with
its reason; :func:`place` is the folder part of the rule for one path, :func:`split_ids` the ids
of a stream-json file's sessions. The package's docstring states the rule in full.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Final

import msgspec

from ..formats import detect
from ..intake import AGENT_META, binary_reason, read_in_folder
from .peek import PEEK_BYTES, Peek, Peeker

AGENT_FILE: Final = re.compile(r"^agent-(.+)\.jsonl$")
_UUID: Final = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

# roles of a session's files
MAIN: Final = "main"
SUBAGENT: Final = "subagent"
META: Final = "meta"
ATTACHMENT: Final = "attachment"


def named_by_id(path: str) -> bool:
    """Whether a main file's name is its session's id (a UUID, as Claude Code names them): then
    the rule needs nothing of its last bytes to name the session."""
    return _UUID.match(posixpath.basename(_norm(path)).rsplit(".", 1)[0]) is not None



class Skipped(msgspec.Struct, frozen=True):
    """A file the rule did not take, and why (``PATH: reason``)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class Group(msgspec.Struct):
    """One session's files (``format == "session"``), or one file of another format.

    ``key``: the session id (a transcript), else the file's path; ``main``: the main file (None
    for an orphan session: sub-agent files without their main file); ``files``: path -> role
    (``main``, ``subagent``, ``meta``, ``attachment``), main first, then in path order;
    ``copy_of``: the path of the main file of the session this one is a copy of."""

    key: str
    format: str
    main: str | None
    files: dict[str, str]
    orphan: bool = False
    copy_of: str | None = None

    @property
    def transcripts(self) -> list[str]:
        """The files a translation reads: the main file, sub-agent files and their meta files."""
        return [p for p, role in self.files.items() if role != ATTACHMENT]


class Grouping(msgspec.Struct):
    groups: list[Group]
    skipped: list[Skipped]


class _Head(msgspec.Struct):
    sessionId: Any = None
    session_id: Any = None


_head: Final = msgspec.json.Decoder(_Head)


def _norm(path: str) -> str:
    return path.replace("\\", "/")


def _lines(p: Peek) -> tuple[list[bytes], list[bytes]]:
    """The complete lines of a file's head and of its tail (a line cut at either edge is left out)."""
    head = p.head.split(b"\n")
    if not p.whole and len(head) > 1:
        head.pop()
    tail = p.tail.split(b"\n")[1:] if p.tail else []
    return [x for x in head if x.strip()], [x for x in tail if x.strip()]


def _first_lines(p: Peek, count: int) -> Iterator[bytes]:
    """The first ``count`` complete, non-blank lines of a file's head (blank lines before them
    passed over, however many), as they are asked for: who needs the first line splits no more."""
    data, at, given = p.head, 0, 0
    while given < count and at < len(data):
        end = data.find(b"\n", at)
        if end < 0:
            if p.whole and data[at:].strip():
                yield data[at:]  # the last line of a whole file, with no newline
            return
        if data[at:end].strip():
            given += 1
            yield data[at:end]
        at = end + 1


def _first_id(lines: Iterable[bytes]) -> str | None:
    for line in lines:
        if b"essionId" not in line and b"ession_id" not in line:
            continue
        try:
            rec = _head.decode(line)
        except (msgspec.DecodeError, RecursionError, UnicodeError):
            continue
        for sid in (rec.sessionId, rec.session_id):
            if isinstance(sid, str) and sid:
                return sid
    return None


def _records(lines: Iterable[bytes]) -> bool:
    """Whether any line is a JSON object (or an SSE field)."""
    for line in lines:
        s = line.lstrip(b"\xef\xbb\xbf \t\r")
        if s.startswith((b"{", b"data:", b"event:", b"id:", b":")):
            return True
    return False


def _session_dir(path: str) -> tuple[str, str] | None:
    """``(P/S, role)`` for a file inside a session folder ``P/S/subagents/`` or ``P/S/tool-results/``."""
    parts = path.split("/")
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "tool-results":
            return "/".join(parts[:i]), ATTACHMENT
        if parts[i] == "subagents":
            name = parts[-1]
            if AGENT_META.match(name):
                return "/".join(parts[:i]), META
            if AGENT_FILE.match(name):
                return "/".join(parts[:i]), SUBAGENT
            return "/".join(parts[:i]), ATTACHMENT  # a workflow's journal.jsonl, scripts ...
    return None


def place(path: str) -> tuple[str, str] | None:
    """Where a path sits in a session folder by its name alone: ``(P/S, role)`` for a file under
    ``P/S/subagents/`` (``subagent``, ``meta`` or ``attachment``) or ``P/S/tool-results/``
    (``attachment``), whose main file is ``P/S.jsonl``; None for any other path. For a reader that
    meets files one at a time (``live``) and places them as :func:`group` does."""
    return _session_dir(_norm(path))


def group(paths: Sequence[str], peek: Peeker, *, named: AbstractSet[str] = frozenset(),
          fmt: str | None = None) -> Grouping:
    """The rule (see the module doc): ``paths`` into sessions and files of other formats, every
    other path skipped with its reason. Groups come in the order of their first file in ``paths``
    (sessions of sub-agent files without their main file last). ``peek`` is asked only of files
    whose name can be a transcript, once each; a path in ``named`` (a file the user named on its
    own) is looked at whatever its name. ``fmt``: every file read as that format (the user said
    so), none detected."""
    skipped: list[Skipped] = []
    in_folder: dict[str, list[tuple[str, str]]] = {}  # P/S -> (path, role)
    loose_agents: list[tuple[str, str | None]] = []  # agent-*.jsonl outside subagents/: (path, sessionId)
    loose_metas: list[str] = []
    mains: list[tuple[str, str, Peek]] = []  # (path, session id, its peek)
    others: list[Group] = []
    seen: set[str] = set()
    at = {p: k for k, p in enumerate(paths)}
    for raw in paths:
        path = _norm(raw)
        if path in seen:
            continue
        seen.add(path)
        name = posixpath.basename(path)
        where = _session_dir(path)
        if where is not None and where[1] in (ATTACHMENT, META):
            in_folder.setdefault(where[0], []).append((path, where[1]))
            continue
        if AGENT_META.match(name):
            loose_metas.append(path)
            continue
        if raw not in named and not read_in_folder(name):
            skipped.append(Skipped(raw, "not a transcript by its name (.jsonl, .ndjson, .sse, .log are read)"))
            continue
        p = peek(raw)
        if isinstance(p, str):
            skipped.append(Skipped(raw, p))
            continue
        if p.size == 0:
            skipped.append(Skipped(raw, "empty file: no records"))
            continue
        binary = binary_reason(None, p.head, p.size)
        if binary is not None:
            skipped.append(Skipped(raw, "binary, not text: it cannot be a transcript"))
            continue
        if not _records(_first_lines(p, 64)):
            skipped.append(Skipped(raw, f"no JSON record in its first {min(p.size, PEEK_BYTES)} bytes"))
            continue
        found = fmt or detect(_first_lines(p, 64))
        if where is not None and found == "session":  # an agent-*.jsonl in P/S/subagents/
            in_folder.setdefault(where[0], []).append((raw, SUBAGENT))
            continue
        if found != "session":
            others.append(Group(raw, found, raw, {raw: MAIN}))
            continue
        if AGENT_FILE.match(name):
            loose_agents.append((raw, _first_id(_first_lines(p, 64))))
            continue
        stem = name.rsplit(".", 1)[0]
        sid = stem if _UUID.match(stem) else (_first_id(_lines(p)[0]) or _first_id(_lines(p)[1]) or stem)
        mains.append((raw, sid, Peek(p.size, p.head[:_SAME_START])))  # not the whole head: thousands are held

    groups: dict[str, Group] = {}  # session id -> its group
    copies: list[Group] = []
    by_dir: dict[str, Group] = {}  # P/S -> the group whose main file is P/S.jsonl
    ranked = sorted(mains, key=lambda m: (m[1], -m[2].size, _norm(m[0])))
    heads: dict[str, Peek] = {}
    for raw, sid, p in ranked:
        g = Group(sid, "session", raw, {raw: MAIN})
        first = groups.get(sid)
        if first is None:
            groups[sid], heads[sid] = g, p
        elif _same_start(heads[sid], p):
            g.copy_of = first.main
            copies.append(g)
        else:  # another file whose records carry the same id (a sidechain saved on its own): a session of its own
            g.key = f"{sid}#{posixpath.basename(_norm(raw)).rsplit('.', 1)[0]}"
            groups[g.key] = g
        by_dir[_norm(raw)[: -len(".jsonl")] if _norm(raw).endswith(".jsonl") else _norm(raw)] = g
    orphans: dict[str, Group] = {}
    metas_at = {_norm(m): m for m in loose_metas}  # a meta file beside its agent-*.jsonl (2.0.x layout)
    for folder, members in sorted(in_folder.items()):
        g_or = by_dir.get(folder)
        if g_or is None:
            if not any(role == SUBAGENT for _, role in members):
                for path, _role in members:  # meta files or attachments of a session not in the input
                    skipped.append(Skipped(path, f"belongs to session {posixpath.basename(folder)}, whose main "
                                                 "transcript and sub-agent files are not in the input"))
                continue
            g_or = orphans[folder] = Group(posixpath.basename(folder), "session", None, {}, orphan=True)
        for path, role in sorted(members):
            g_or.files[path] = role
    for path, its_id in sorted(loose_agents):
        target = groups.get(its_id) if its_id else None
        if target is None:
            key = its_id or path
            target = orphans.get(key)
            if target is None:
                target = orphans[key] = Group(key, "session", None, {}, orphan=True)
        target.files[path] = SUBAGENT
        agent = AGENT_FILE.match(posixpath.basename(_norm(path)))
        meta = f"{posixpath.dirname(_norm(path))}/agent-{agent.group(1) if agent else ''}.meta.json".lstrip("/")
        beside = metas_at.pop(meta) if meta in metas_at else None
        if beside is not None:
            target.files[beside] = META
    for m in metas_at.values():
        skipped.append(Skipped(m, "a sub-agent meta file whose transcript is not in the input"))
    ordered = sorted([*groups.values(), *copies, *others], key=lambda g: at.get(g.main or "", 0))
    return Grouping([*ordered, *orphans.values()], skipped)


_SAME_START: Final = 4096  # bytes of a main file's start that tell a copy from another session of the same id


def _same_start(a: Peek, b: Peek) -> bool:
    """Two files that begin alike (one may have grown on after the other was copied)."""
    n = min(len(a.head), len(b.head))
    return n > 0 and a.head[:n] == b.head[:n]


def split_ids(lines: Iterable[bytes]) -> list[str]:
    """The ``session_id`` s of a stream-json file's lines, in the order they first appear."""
    out: dict[str, None] = {}
    last = None
    for line in lines:
        if b"ession_id" not in line and b"essionId" not in line:
            continue
        sid = _first_id([line])
        if sid is not None and sid != last:
            out.setdefault(sid)
            last = sid
    return list(out)
