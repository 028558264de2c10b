"""library: which files make which session, and what each session is, from its files' ends.

Theory of operation
-------------------
**The rule** (:func:`group`, one for the CLI, ``live``, the shareable file and the page): given the
relative paths of a set of files (``/``-separated; ``\\`` is read as ``/``) and a way to look at
a file's first and last bytes (``peek``), it returns the sessions they make and every file it
did not take, each with its reason. It does no I/O itself: the caller's ``peek`` reads (a file on
disk, a dropped file's bytes, a zip's member).

* ``P/S.jsonl`` whose records are a session transcript is session ``S``'s **main** file. Its id
  is ``S`` when ``S`` is a UUID (Claude Code names files by session id), else the ``sessionId``
  its records carry, else ``S``.
* ``P/S/subagents/**/agent-*.jsonl`` (``workflows/wf_*/`` included) are sub-agent files of ``S``,
  with their ``agent-*.meta.json``; ``P/S/subagents/workflows/**/journal.jsonl`` and every file of
  ``P/S/tool-results/`` are **attachments** of ``S`` (counted in its size, never translated).
* An ``agent-*.jsonl`` elsewhere (the 2.0.x layout: beside the main files) joins the session whose
  id its records' ``sessionId`` is.
* Sub-agent files whose session has no main file in the input make a session of their own (its id
  is the folder name ``S``, or their ``sessionId``), marked ``orphan``: listed, never merged into
  another session.
* A file of another format (stream-json, an Arbiter SSE stream) is a group of its own; a
  stream-json file holding several ``session_id`` s lists one session per id (:func:`listing`
  reads it whole for them: each session summed from its own lines).
* A main file whose session id another main file has too, and that begins as that one does, is a
  **copy**: the larger one (else the first by path) is the session, each other one is kept as a
  group with ``copy_of`` set (the commands translate each group alone, so nothing is merged; the
  library lists it as skipped). One that begins otherwise (a sidechain saved as a file of its own)
  is a session of its own, keyed ``ID#NAME`` (its file's name).
* Skipped, with a reason each (:class:`Skipped`): a file that cannot be read, that is empty, that
  is binary, whose name is no transcript's (``intake.read_in_folder``; unless the user named it on
  its own), or that holds no JSON record in its first bytes; a meta file or an attachment whose
  session is not in the input.
* :func:`place` is the folder part of the rule for one path, for a reader that meets files one
  at a time (``live``: the page's watch and ``--follow``).

The groups come in the order of their first file in the input (orphan sessions last): what
``multifile.group_files`` (the commands' and the page's translation) has always given.

**The summary** (:func:`summarize`; :func:`listing` is the rule and the summaries at once, each
file read once): a session's figures from the ends of its files only (the first and last
``PEEK_BYTES`` of each, found by pattern in the bytes): project (its folder name decoded, and ``cwd`` where the
records carry it), title (the last ``custom-title``, else the last ``ai-title``, else a
``summary``, else the first real prompt), start, last activity, duration, CLI versions, models,
sub-agents, size. The figures that need every line (tool calls, errors, tokens; every model and
version) come from a second pass, ``libsearch.fill``, done later.

**The index** (:func:`to_json`): one JSON object per session (NDJSON), schema ``SCHEMA``
(``docs/library.md`` documents every field).

State: none. Must not do I/O, translate, or import the CLI or the web package.
"""

from __future__ import annotations

import datetime as _dt
import posixpath
import re
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Final

import msgspec

from .formats import detect
from .intake import AGENT_META, binary_reason, read_in_folder

__all__ = [
    "ATTACHMENT",
    "MAIN",
    "META",
    "PEEK_BYTES",
    "SCHEMA",
    "SUBAGENT",
    "Group",
    "Grouping",
    "Peek",
    "Peeker",
    "ReadAt",
    "Skipped",
    "Summary",
    "complete",
    "decode_project",
    "group",
    "listing",
    "peek_bytes",
    "peek_with",
    "place",
    "split_ids",
    "summarize",
    "to_json",
]

SCHEMA: Final = 1  # the version of the index's objects (``schema`` in each)
PEEK_BYTES: Final = 65536  # how much of each end of a file the listing reads

AGENT_FILE: Final = re.compile(r"^agent-(.+)\.jsonl$")
_UUID: Final = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

# roles of a session's files
MAIN: Final = "main"
SUBAGENT: Final = "subagent"
META: Final = "meta"
ATTACHMENT: Final = "attachment"


class Peek(msgspec.Struct, frozen=True):
    """A file's first and last bytes: ``head`` (up to ``PEEK_BYTES``), ``tail`` (the last
    ``PEEK_BYTES``, empty when ``head`` is the whole file) and its ``size``."""

    size: int
    head: bytes
    tail: bytes = b""

    @property
    def whole(self) -> bool:
        return len(self.head) >= self.size


Peeker = Callable[[str], "Peek | str"]  # a path -> its ends, or why it cannot be read


ReadAt = Callable[[int, int], bytes]  # (offset, count) -> up to count bytes from offset


def peek_with(read_at: ReadAt, size: int, limit: int = PEEK_BYTES, most: int = 64 * PEEK_BYTES) -> Peek:
    """A file's :class:`Peek` through ``read_at``: the whole file when it is at most ``2 * limit``
    bytes; else its first ``limit`` bytes, read on to the end of the first line (a record can be
    longer than ``limit``), and its last ``limit`` bytes, read back to hold the last whole line;
    neither end grows past ``most`` bytes. (:func:`peek_reads` says which reads, for a caller
    whose reads are asynchronous: the page.)"""
    plan = peek_reads(size, limit, most)
    try:
        want = next(plan)
        while True:
            want = plan.send(read_at(*want))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def named_by_id(path: str) -> bool:
    """Whether a main file's name is its session's id (a UUID, as Claude Code names them): then
    the rule needs nothing of its last bytes to name the session."""
    return _UUID.match(posixpath.basename(_norm(path)).rsplit(".", 1)[0]) is not None


def peek_reads(size: int, limit: int = PEEK_BYTES, most: int = 64 * PEEK_BYTES) -> Generator[tuple[int, int], bytes, Peek]:
    """:func:`peek_with` as the reads it needs: yields ``(offset, count)``, is sent those bytes,
    and returns the :class:`Peek`."""
    if size <= 2 * limit:
        return Peek(size, (yield (0, size)) if size else b"")
    head = yield (0, limit)
    while b"\n" not in head and len(head) < min(most, size):
        more = yield (len(head), limit)
        if not more:
            break
        head += more
    start = size - limit
    tail = yield (start, limit)
    while tail.find(b"\n", 0, len(tail) - 1) < 0 and start > len(head) and len(tail) < most:
        step = min(limit, start - len(head))
        start -= step
        tail = (yield (start, step)) + tail
    if start <= len(head):  # the two ends met: the whole file
        return Peek(size, head + tail[len(head) - start:])
    return Peek(size, head, tail)


def peek_bytes(data: bytes, limit: int = PEEK_BYTES) -> Peek:
    """The :class:`Peek` of bytes in hand (a dropped file, a zip member, a test), as
    :func:`peek_with` reads one on disk."""
    return peek_with(lambda at, n: data[at:at + n], len(data), limit)


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


# --- the summary from the files' ends --------------------------------------------------------


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


class _Fields(msgspec.Struct):
    """A record's fields the summary reads, but its message."""

    type: Any = None
    subtype: Any = None
    timestamp: Any = None
    version: Any = None
    claude_code_version: Any = None
    model: Any = None
    cwd: Any = None
    gitBranch: Any = None
    customTitle: Any = None
    aiTitle: Any = None
    summary: Any = None
    isMeta: Any = None
    isSidechain: Any = None
    isCompactSummary: Any = None
    sessionId: Any = None
    session_id: Any = None


class _Rec(_Fields):
    message: Any = None


_rec: Final = msgspec.json.Decoder(_Rec)


class _FastBlock(msgspec.Struct):
    type: Any = None
    text: Any = None


class _FastMsg(msgspec.Struct):
    model: Any = None
    content: str | list[_FastBlock] | None = None


class _FastRec(_Fields):
    """``_Rec`` as most records are (a message that is an object, its content text or blocks):
    what is not asked for is passed over, not built (a tool result's output)."""

    message: _FastMsg | None = None


_fast_rec: Final = msgspec.json.Decoder(_FastRec)
_NOT_MODELS: Final = frozenset({"<synthetic>", "haiku", "sonnet", "opus", "inherit", "default"})  # a Task's choice
_CWD: Final = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.){1,4000}")')
_BRANCH: Final = re.compile(rb'"gitBranch"\s*:\s*("(?:[^"\\]|\\.){1,1000}")')
_SID: Final = re.compile(rb'"session(?:Id|_id)"\s*:\s*("(?:[^"\\]|\\.){1,200}")')
# the records that title a session (as Claude Code writes them; and with JSON's blanks)
_TITLES: Final = (b'"custom-title"', b'"ai-title"', b'"type":"summary"', b'"type": "summary"')
_USER: Final = re.compile(rb'"type"\s*:\s*"user"')
# the keys of the ends' first and last 16 KB (a timestamp, a CLI version, a stream-json file's CLI version, a
# model), one pattern: each 16 KB scanned once, not once a key (no value holds a quote, so no match can hold
# another: each is found where it would be found alone)
_KEYS: Final = re.compile(
    rb'"(?:timestamp"\s*:\s*"(\d{4}-\d\d-\d\dT[^"\\]{1,40})"'
    rb'|version"\s*:\s*"(\d+\.\d+\.\d+[^"\\]{0,30})"'
    rb'|claude_code_version"\s*:\s*"(\d+\.\d+\.\d+[^"\\]{0,30})"'
    rb'|model"\s*:\s*"([^"\\\s]{1,100})")')
_text: Final = msgspec.json.Decoder(str)
_CWD_KEYS: Final = (b'"cwd"',)
_BRANCH_KEYS: Final = (b'"gitBranch"',)
_SID_KEYS: Final = (b'"sessionId"', b'"session_id"')


def _title_lines(part: bytes) -> list[bytes]:
    """The whole lines of ``part`` that hold one of ``_TITLES``, in its order (a word's every
    line before the next word's): ``"custom-title"`` and ``"ai-title"`` found by what they end
    with, the two summaries by ``"summary"``, two scans of ``part`` rather than four."""
    words: list[list[int]] = [[], [], [], []]
    at = part.find(b'-title"')
    while at >= 0:
        if part.startswith(b'"custom', at - 7):
            words[0].append(at - 7)
        elif part.startswith(b'"ai', at - 3):
            words[1].append(at - 3)
        at = part.find(b'-title"', at + 7)
    at = part.find(b'"summary"')
    while at >= 0:
        if part.startswith(b'"type":', at - 7):
            words[2].append(at - 7)
        elif part.startswith(b'"type": ', at - 8):
            words[3].append(at - 8)
        at = part.find(b'"summary"', at + 9)
    out = []
    for places in words:
        for place in places:
            line = _line_at(part, place)
            if line is not None:
                out.append(line)
    return out


_STAMPS: Final = 16384  # of each end, where the first and the last timestamps are looked for


def _stamps(raw: list[bytes], latest: bool) -> _dt.datetime | None:
    """The earliest or the ``latest`` of ``timestamp`` values (``_KEYS``' first group)."""
    if raw and all(x.endswith(b"Z") and len(x) == len(raw[0]) for x in raw):  # one format: as text
        return _when((max(raw) if latest else min(raw)).decode())
    times = [t for x in raw if (t := _when(x.decode("utf-8", "replace"))) is not None]
    return (max(times) if latest else min(times)) if times else None


def _string(pattern: re.Pattern[bytes], data: bytes, keys: tuple[bytes, ...]) -> str | None:
    """The JSON string value the first match of ``pattern`` holds (its group 1, a JSON string
    literal); ``keys``: the literals a match begins with (found by ``bytes.find``, many times
    faster than the pattern's own search, the pattern tried where one is)."""
    m = None
    for key in keys:
        stop = len(data) if m is None else m.start()  # a later key's match counts only before the first's
        at = data.find(key, 0, stop)
        while at >= 0:
            found = pattern.match(data, at)
            if found is not None:
                m = found
                break
            at = data.find(key, at + 1, stop)
    if m is None:
        return None
    try:
        value = _text.decode(m.group(1))
    except (msgspec.DecodeError, UnicodeError):
        return None
    return value or None


def _line_at(data: bytes, at: int) -> bytes | None:
    """The whole line of ``data`` around offset ``at`` (None: it is cut at either edge)."""
    start = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    line = data[start:] if end < 0 else data[start:end]
    return line if line.lstrip().startswith(b"{") and line.rstrip().endswith(b"}") else None
_IDE_CONTEXT: Final = re.compile(r"<ide_\w+>.*?</ide_\w+>", re.S)
_NOT_PROMPTS: Final = ("<command-", "<local-command", "<system-reminder", "Caveat:", "[Request interrupted",
                       "<bash-", "<user-prompt-submit-hook", "<task-notification")


def _prompt_of(rec: _Rec | _FastRec, content: Any) -> str | None:
    """A user record's text when it is a real prompt (not a command echo, meta record, tool
    result); ``content``: its message's (a text, or blocks: objects or ``_FastBlock`` s)."""
    if rec.type != "user" or rec.isMeta is True or rec.isSidechain is True or rec.isCompactSummary is True:
        return None
    text = None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        for b in content:
            if isinstance(b, _FastBlock):
                kind, said = b.type, b.text
            elif isinstance(b, dict):
                kind, said = b.get("type"), b.get("text")
            else:
                continue
            if kind == "tool_result":
                return None
            if kind == "text" and isinstance(said, str):
                text = said
                break
    text = _IDE_CONTEXT.sub("", text or "")  # what the IDE said it had open, before the prompt
    if not text.strip() or text.lstrip().startswith(_NOT_PROMPTS):
        return None
    return " ".join(text.split())


def _when(value: Any) -> _dt.datetime | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        t = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=_dt.UTC)


def _iso(t: _dt.datetime | None) -> str | None:
    if t is None:
        return None
    return t.astimezone(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Facts:
    """What the records of a session's files say, gathered as they are read (any order)."""

    def __init__(self) -> None:
        self.start: _dt.datetime | None = None
        self.last: _dt.datetime | None = None
        self.versions: dict[str, None] = {}
        self.models: dict[str, None] = {}
        self.cwd: str | None = None
        self.branch: str | None = None
        self.custom: str | None = None
        self.ai: str | None = None
        self.summary: str | None = None
        self.prompt: str | None = None
        self.session_id: str | None = None

    def add(self, line: bytes, main: bool) -> None:
        rec: _Rec | _FastRec
        try:
            rec = _fast_rec.decode(line)
            fast = rec.message
            model = fast.model if fast is not None else rec.model if rec.type == "system" else None
            content = fast.content if fast is not None else None
        except (msgspec.DecodeError, RecursionError, UnicodeError):  # a record of another shape: as it is
            try:
                rec = _rec.decode(line)
            except (msgspec.DecodeError, RecursionError, UnicodeError):
                return
            msg = rec.message if isinstance(rec.message, dict) else None
            model = msg.get("model") if msg is not None else rec.model if rec.type == "system" else None
            content = msg.get("content") if msg is not None else None
        t = _when(rec.timestamp)
        if t is not None:
            self.start = t if self.start is None or t < self.start else self.start
            self.last = t if self.last is None or t > self.last else self.last
        for v in (rec.version, rec.claude_code_version):
            if isinstance(v, str) and v:
                self.versions.setdefault(v)
        if isinstance(model, str) and model and model != "<synthetic>":
            self.models.setdefault(model)
        if not main:
            return
        if isinstance(rec.cwd, str) and rec.cwd and self.cwd is None:
            self.cwd = rec.cwd
        if isinstance(rec.gitBranch, str) and rec.gitBranch and self.branch is None:
            self.branch = rec.gitBranch
        sid = rec.sessionId if isinstance(rec.sessionId, str) else rec.session_id
        if isinstance(sid, str) and sid and self.session_id is None:
            self.session_id = sid
        if rec.type == "custom-title" and isinstance(rec.customTitle, str) and rec.customTitle.strip():
            self.custom = rec.customTitle.strip()  # the last one holds
        elif rec.type == "ai-title" and isinstance(rec.aiTitle, str) and rec.aiTitle.strip():
            self.ai = rec.aiTitle.strip()
        elif rec.type == "summary" and isinstance(rec.summary, str) and rec.summary.strip() and self.summary is None:
            self.summary = rec.summary.strip()
        elif self.prompt is None and rec.type == "user":
            self.prompt = _prompt_of(rec, content)

    def ends(self, head: bytes, tail: bytes, main: bool) -> None:
        """What a file's ends say, found by pattern in the bytes (a record is decoded only when
        it is a title or may be the first prompt): what listing thousands of files can afford.
        Start and last activity: the earliest timestamp of the head's first 16 KB and the latest
        of the tail's last 16 KB; versions and models: every one in those 16 KB (each scanned
        once, for all four keys: ``_KEYS``)."""
        end = tail or head
        firsts: list[bytes] = []
        lasts: list[bytes] = []
        found: list[tuple[bytes | None, ...]] = []
        if len(head) + len(tail) <= 2 * _STAMPS:  # small ends: scanned whole, once (as one, if two)
            cut = min(len(head), _STAMPS)  # a start's timestamp: in the head's first 16 KB
            tail_from = (len(head) if tail else 0) + max(0, len(end) - _STAMPS)  # a last one: in the end's last
            for m in _KEYS.finditer(head + tail if tail else head):
                if m.lastindex == 1:
                    if m.end() <= cut:
                        firsts.append(m.group(1))
                    if m.start() >= tail_from:
                        lasts.append(m.group(1))
                else:
                    found.append(m.groups())
        else:
            for m in _KEYS.finditer(head, 0, _STAMPS):
                if m.lastindex == 1:
                    firsts.append(m.group(1))
                else:
                    found.append(m.groups())
            for m in _KEYS.finditer(end, max(0, len(end) - _STAMPS)):
                if m.lastindex == 1:
                    lasts.append(m.group(1))
                else:
                    found.append(m.groups())
        for t in (_stamps(firsts, False), _stamps(lasts, True)):
            if t is not None:
                self.start = t if self.start is None or t < self.start else self.start
                self.last = t if self.last is None or t > self.last else self.last
        for _ts, v, sv, named in found:
            if v or sv:
                self.versions.setdefault((v or sv or b"").decode("utf-8", "replace"))
            elif named:
                model = named.decode("utf-8", "replace")
                if model not in _NOT_MODELS:
                    self.models.setdefault(model)
        self.cwd = self.cwd or _string(_CWD, head, _CWD_KEYS) or _string(_CWD, tail, _CWD_KEYS)
        self.branch = self.branch or _string(_BRANCH, head, _BRANCH_KEYS) or _string(_BRANCH, tail, _BRANCH_KEYS)
        self.session_id = self.session_id or _string(_SID, head, _SID_KEYS) or _string(_SID, tail, _SID_KEYS)
        if not main:  # a sub-agent's file: no title, no prompt of the session's
            return
        for part in (head, tail):
            for titled in _title_lines(part):
                self.add(titled, True)
        for part in (head, tail):
            for um in _USER.finditer(part):
                if self.prompt is not None:
                    return
                line = _line_at(part, um.start())
                if line is not None:
                    self.add(line, True)

    def merge(self, o: _Facts, main: bool) -> None:
        """Another file's facts into these: times and names always, the rest from a main file."""
        for t in (o.start, o.last):
            if t is not None:
                self.start = t if self.start is None or t < self.start else self.start
                self.last = t if self.last is None or t > self.last else self.last
        self.versions.update(o.versions)
        self.models.update(o.models)
        if main:
            self.cwd, self.branch = self.cwd or o.cwd, self.branch or o.branch
            self.session_id, self.prompt = self.session_id or o.session_id, self.prompt or o.prompt
            self.custom, self.ai = o.custom or self.custom, o.ai or self.ai
            self.summary = self.summary or o.summary

    def title(self) -> tuple[str | None, str | None]:
        for text, where in ((self.custom, "custom-title"), (self.ai, "ai-title"), (self.summary, "summary"),
                            (self.prompt, "prompt")):
            if text:
                return (text if len(text) <= 200 else text[:199] + "…"), where
        return None, None


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
