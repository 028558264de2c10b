"""libsearch: the library's second pass over whole files: each session's figures, and search.

Theory of operation
-------------------
The listing (``library``) reads the ends of files; what needs every line comes here, one session
at a time, so memory holds one session (its files and relays) at most, whatever the library's size.

* :func:`listing` is the library's list (the CLI's ``sessions`` and the page's alike): the rule's
  sessions, each summarized from its files' ends, a copy named as skipped.
* :func:`fill` translates one session as ``relayscope translate`` of that session alone would
  (``multifile.translate_session``: its main file and sub-agent files in one seq space; any other
  format through an ``Analyzer``) and adds the figures: relays, tool calls (``tool_use`` relays),
  errors (the rows ``is:error`` finds), tokens (``usage.Tally``: once per API message) and every
  model the usage names.
* :func:`search` runs a query of the search language (``query.parse`` with ``LIBRARY_TERMS``) over
  sessions, a generator the caller steps through (the page between frames, the CLI in a loop),
  and stops when the caller stops (``close()``): it yields :class:`Progress` as it reads and one
  :class:`Hit` per matching session, with the count of its matching rows (records, ``FILE:LINE``)
  and the first ``MAX_MATCHES`` of them.

  - Session terms (``model:``, ``cli:``, ``project:``) are held against the summary (and, for
    ``model:`` / ``cli:``, the session's bytes, when its ends did not say).
  - Free words alone are looked for in the bytes: each file is read in chunks, lower-cased, and
    only a chunk holding the words is split into lines; a line holding them all is decoded, and it
    matches when its content (the message's text, a call's input, a result's output, a title)
    holds every word, in any case. A plain-text search reads every byte once and translates nothing.
  - Row terms (``tool:``, ``lane:``, ``is:error``, ``file:``) need the rows: the session is
    translated (a session whose bytes cannot hold a ``tool:`` name, ``is_error`` or ``file:`` path
    is passed over unread further) and each relay matched as the workspace matches it, words in
    its detail included; a relay matches on the line it came from.

State: none between calls. No I/O: the caller's :class:`Source` reads. Must not import the CLI or
the web package.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Final, Protocol

import msgspec

from . import relay as R
from .analysis import Analyzer
from .lanes import Lane
from .library import ATTACHMENT, META, Group, Peeker, Skipped, Summary, chunk_lines
from .library import listing as library_listing
from .multifile import translate_session
from .query import LIBRARY_TERMS, Query, is_error, parse, searchable_detail
from .usage import Tally

__all__ = ["MAX_MATCHES", "BytesSource", "Hit", "Match", "Progress", "Source", "Unsupported", "fill", "listing",
           "search", "session_lines", "translate_group"]

MAX_MATCHES: Final = 1000  # matching rows listed per session (the count is exact beyond)
_SNIPPET: Final = 160
_FILE_KEYS: Final = ("file_path", "path", "notebook_path")


class Source(Protocol):
    """How the second pass reads a file: whole (to translate it) or in chunks (to search it).
    Either raises ``OSError`` when the file cannot be read."""

    def read(self, path: str) -> bytes: ...

    def chunks(self, path: str) -> Iterable[bytes]: ...


class BytesSource:
    """A :class:`Source` over files in hand (a drop, a zip's members, a test)."""

    def __init__(self, files: Mapping[str, bytes], chunk: int = 1 << 20) -> None:
        self.files, self.chunk = files, chunk

    def read(self, path: str) -> bytes:
        try:
            return self.files[path]
        except KeyError:
            raise FileNotFoundError(path) from None

    def chunks(self, path: str) -> Iterator[bytes]:
        data = self.read(path)
        for at in range(0, len(data), self.chunk):
            yield data[at:at + self.chunk]


# --- one session translated, and its figures ----------------------------------------------------


class _SessionId(msgspec.Struct):
    session_id: Any = None
    sessionId: Any = None


_sid: Final = msgspec.json.Decoder(_SessionId)


def session_lines(lines: Iterable[bytes], session: str) -> Iterator[bytes]:
    """The lines of one session of a stream-json file that holds several: each line whose
    ``session_id`` is ``session``, and the lines without one that follow them."""
    inside = False
    for line in lines:
        if b"ession_id" in line or b"essionId" in line:
            try:
                rec = _sid.decode(line)
            except (msgspec.DecodeError, RecursionError, UnicodeError):
                rec = _SessionId()
            sid = rec.session_id if isinstance(rec.session_id, str) else rec.sessionId
            if isinstance(sid, str):
                inside = sid == session
        if inside:
            yield line


class Translated(msgspec.Struct):
    relays: list[R.Relay]
    lanes: dict[str, Lane]
    errors: list[tuple[str | None, int, str]]


def translate_group(g: Group, source: Source, strategy: str = "lineage", session: str | None = None) -> Translated:
    """One group translated as ``relayscope translate`` of its files alone translates them."""
    if g.format == "session":
        files = {p: source.read(p) for p, role in g.files.items() if role != ATTACHMENT}
        result = translate_session(files, strategy)
        return Translated(result.relays, result.lanes, result.errors)
    path = g.main or next(iter(g.files))
    a = Analyzer(strategy, g.format)
    lines: Iterable[bytes] = source.read(path).splitlines(keepends=True)
    if session is not None:
        lines = session_lines(lines, session)
    for line in lines:
        a.feed_line(line)
    a.finish()
    return Translated(a.relays, dict(a.lanes), [(path, line, message) for line, message in a.errors])


def fill(s: Summary, g: Group, source: Source, strategy: str = "lineage") -> Summary:
    """``s`` with the figures of a whole read (``complete``): relays, tool calls, errors, tokens,
    models. A file that cannot be read leaves the figures as they were (``complete`` False)."""
    try:
        t = translate_group(g, source, strategy, s.session if g.format != "session" else None)
    except OSError:
        return s
    tally = Tally()
    tally.feed(t.relays)
    run = tally.run
    models = list(dict.fromkeys([*s.models, *run.models]))
    return msgspec.structs.replace(
        s, relays=len(t.relays), tool_calls=sum(1 for r in t.relays if type(r) is R.ToolUse),
        errors=sum(1 for r in t.relays if is_error(r)), input_tokens=run.input_tokens,
        output_tokens=run.output_tokens, cache_read_tokens=run.cache_read_input_tokens,
        cache_creation_tokens=run.cache_creation_input_tokens, tokens=run.total, models=sorted(models),
        complete=True)


# --- the listing ----------------------------------------------------------------------------------


def listing(paths: Sequence[str], peek: Peeker, source: Source, *, full: bool = False,
            named: AbstractSet[str] = frozenset()) -> tuple[list[tuple[Summary, Group]], list[Skipped]]:
    """``library.listing`` with ``source`` to read a stream-json file's ids, and, ``full``, each
    summary :func:`fill` ed (every file read whole, a session at a time)."""
    return library_listing(paths, peek, lambda path: chunk_lines(source.chunks(path)), named=named,
                           fill=(lambda s, g: fill(s, g, source)) if full else None)


# --- search ---------------------------------------------------------------------------------------


class Match(msgspec.Struct, frozen=True):
    file: str
    line: int
    text: str  # what matched, shortened (transcript text: data, never markup)


class Hit(msgspec.Struct):
    """A matching session: ``count`` matching rows (None: the query names no row term, the whole
    session matches), the first ``MAX_MATCHES`` of them in ``matches``."""

    session: str
    summary: Summary
    count: int | None
    matches: list[Match]


class Progress(msgspec.Struct):
    done: int  # bytes read so far (of the sessions' transcripts)
    total: int
    sessions: int  # sessions looked at
    hits: int


class Unsupported(ValueError):
    """A query the library cannot run (``is:lost``: a strategy's lost blocks, the workspace's)."""


def _contains(values: Iterable[str], wanted: tuple[str, ...]) -> bool:
    low = [v.lower() for v in values]
    return all(any(w in v for v in low) for w in wanted)


def _session_terms(q: Query, s: Summary) -> bool | None:
    """Whether the summary meets the session terms: True, False, or None (its ends did not say:
    ``model:`` / ``cli:`` need a look at the bytes)."""
    if q.projects and not _contains([s.project or "", s.cwd or "", s.project_dir or ""], q.projects):
        return False
    unsure = False
    if q.models and not _contains(s.models, q.models):
        if s.complete:
            return False
        unsure = True
    if q.clis and not all(any(v.lower().startswith(c) for v in s.cli_versions) for c in q.clis):
        unsure = True
    return None if unsure else True


def _bytes_hold(g: Group, source: Source, needles: Sequence[bytes]) -> bool:
    """Whether every needle (lower-case bytes) is somewhere in the session's transcripts."""
    left = set(needles)
    carry = b""
    for path in _transcripts(g):
        try:
            for chunk in source.chunks(path):
                low = carry + chunk.lower()
                left = {n for n in left if n not in low}
                if not left:
                    return True
                carry = low[-256:]
        except OSError:
            continue
    return not left


def _transcripts(g: Group) -> list[str]:
    return [p for p, role in g.files.items() if role not in (ATTACHMENT, META)]


def _needle(word: str) -> bytes:
    """A word as its bytes in a JSON line (escaped as JSON escapes it), lower-cased."""
    return msgspec.json.encode(word)[1:-1].lower()


_CONTENT_KEYS: Final = ("message", "summary", "customTitle", "aiTitle", "content", "result", "event", "delta",
                        "lastPrompt", "toolUseResult")


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in ("id", "uuid", "parentUuid", "tool_use_id", "signature", "type", "role", "model",
                         "stop_reason", "usage"):
                _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)


def _line_text(line: bytes) -> str | None:
    """A record's content as one text (None: not a JSON object)."""
    try:
        obj = msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return None
    if not isinstance(obj, dict):
        return None
    out: list[str] = []
    for k in _CONTENT_KEYS:
        if k in obj:
            _strings(obj[k], out)
    return "\n".join(out)


def _snippet(text: str, word: str) -> str:
    """Where ``word`` (lower-case) is in ``text``, a line's worth around it, as it was written."""
    at = max(0, text.lower().find(word) - _SNIPPET // 3) if word else 0
    cut = " ".join(text[at:at + _SNIPPET].split())
    return ("…" if at else "") + cut


class _Rare:
    """A few bytes one of which is rare in text (``at``): found by that byte alone (``memchr``,
    many times faster than ``bytes.find`` of the whole), each place it is checked for the rest."""

    def __init__(self, what: bytes, at: int) -> None:
        self.what, self.at, self.byte = what, at, what[at:at + 1]

    def find(self, data: bytes, start: int, end: int) -> int:
        what, at, n = self.what, self.at, len(self.what)
        here = start + at
        while True:
            here = data.find(self.byte, here, end - n + at + 1)
            if here < 0:
                return -1
            if data.startswith(what, here - at):
                return here - at
            here += 1

    def held(self, data: bytes) -> bool:
        return self.find(data, 0, len(data)) >= 0


Mark = bytes | re.Pattern[bytes] | _Rare


@functools.lru_cache(maxsize=16)  # one query's, for each of its sessions
def _marks(words: tuple[str, ...]) -> tuple[Mark, ...]:
    """What a chunk is searched for (in lower case): the first word's bytes, and what may stand
    for a word's character without its bytes: a ``\\uXXXX`` escape of one (of either case), ``\\/``
    (a ``/``), and the two characters whose lower case is ASCII (U+0130 "İ" -> "i̇", U+212A
    KELVIN SIGN -> "k"), raw or escaped. A line that holds one of these is decoded and matched."""
    chars = set("".join(words))
    codes = {f"{ord(v):04x}" for ch in chars if ch.isascii() for v in (ch.lower(), ch.upper())}
    extra: list[Mark] = []
    if "i" in chars:
        codes.add("0130")
        extra.append(_Rare("\u0130".encode(), 0))  # C4 B0: C4 leads Latin Extended-A only
    if "k" in chars:
        codes.add("212a")
        extra.append(_Rare("\u212a".encode(), 2))  # E2 84 AA: E2 is common (punctuation), AA less
    if "/" in chars:
        extra.append(b"\\/")
    escape = re.compile(rb"\\u(?:" + b"|".join(c.encode() for c in sorted(codes)) + rb")")
    return (_needle(words[0]), escape, *extra)


def _text_matches(g: Group, source: Source, words: tuple[str, ...], progress: list[int]) -> Iterator[Match]:
    """The lines of the session whose content holds every word (see the module doc)."""
    needles = [_needle(w) for w in words]
    # a word not ASCII (its bytes may be in another case), or one that holds a newline (it may span
    # two of a record's strings): every line is decoded
    every = not all(n.isascii() for n in needles) or any("\n" in w for w in words)
    marks = _marks(words)
    for path in _transcripts(g):
        try:
            yield from _file_matches(source, path, words, needles, marks, every, progress)
        except OSError:
            continue


def _newlines(source: Source, path: str, stop: int) -> int:
    """The newlines of the first ``stop`` bytes of a file (read again: a match's line number)."""
    count = at = 0
    for chunk in source.chunks(path):
        if at + len(chunk) >= stop:
            return count + chunk.count(b"\n", 0, stop - at)
        count += chunk.count(b"\n")
        at += len(chunk)
    return count


class _Scan:
    """One file's scan: its lines' numbers counted only once a line matches (a file read again
    for the lines before; from then on each chunk counted as it comes)."""

    def __init__(self, source: Source, path: str, words: tuple[str, ...], needles: list[bytes],
                 marks: tuple[Mark, ...], every: bool) -> None:
        self.source, self.path, self.words, self.needles, self.marks, self.every = (
            source, path, words, needles, marks, every)
        self.base = 0  # the file offset of the current chunk
        self.counted = -1  # newlines are counted up to this offset (-1: not yet)
        self.count = 0

    def line_no(self, chunk: bytes, at: int) -> int:
        """The number of the line at file offset ``at`` (in ``chunk``, or just before it: no
        newline between)."""
        if self.counted < self.base:
            self.count = _newlines(self.source, self.path, self.base) if self.base else 0
            self.counted = self.base
        if at > self.counted:
            self.count += chunk.count(b"\n", self.counted - self.base, at - self.base)
            self.counted = at
        return self.count + 1

    def end_chunk(self, chunk: bytes) -> None:
        if self.counted >= self.base:  # counting: the rest of this chunk too
            self.count += chunk.count(b"\n", self.counted - self.base)
            self.counted = self.base + len(chunk)
        self.base += len(chunk)

    def check(self, raw: bytes, low: bytes, chunk: bytes, at: int) -> Match | None:
        """A line (its bytes and their lower case) at file offset ``at``: a Match when it holds every word."""
        if not self.every and not all(n in low for n in self.needles) and not any(
                m in low if isinstance(m, bytes) else m.held(low) if isinstance(m, _Rare) else m.search(low)
                for m in self.marks[1:]):
            return None
        text = _line_text(raw)
        if text is None or not (low_text := text.lower()) or not all(w in low_text for w in self.words):
            return None
        return Match(self.path, self.line_no(chunk, at), _snippet(text, self.words[0]))

    def body(self, chunk: bytes, low: bytes, start: int, end: int) -> Iterator[Match]:
        """The whole lines of ``chunk[start:end]`` that match: only those where a mark is."""
        marks = self.marks
        nxt = [-2] * len(marks)
        at = start
        while at < end:
            if self.every:
                hit = at
            else:
                hit = end
                for k, m in enumerate(marks):
                    if nxt[k] != -1 and nxt[k] < at:
                        if isinstance(m, bytes):
                            nxt[k] = low.find(m, at, end)
                        elif isinstance(m, _Rare):
                            nxt[k] = m.find(low, at, end)
                        else:
                            seen = m.search(low, at, end)
                            nxt[k] = -1 if seen is None else seen.start()
                    if 0 <= nxt[k] < hit:
                        hit = nxt[k]
                if hit >= end:
                    return
            first = low.rfind(b"\n", start, hit) + 1 or start
            stop = low.find(b"\n", hit, end)
            stop = end if stop < 0 else stop
            found = self.check(chunk[first:stop], low[first:stop], chunk, self.base + first)
            if found is not None:
                yield found
            at = stop + 1


def _file_matches(source: Source, path: str, words: tuple[str, ...], needles: list[bytes],
                  marks: tuple[Mark, ...], every: bool, progress: list[int]) -> Iterator[Match]:
    """One file's matching lines: each chunk lower-cased and searched for the first word and the
    marks (``_marks``); only a line where one is found is decoded and matched."""
    scan = _Scan(source, path, words, needles, marks, every)
    rest = b""  # the start of a line the chunks before began
    for chunk in source.chunks(path):
        progress[0] += len(chunk)
        first = chunk.find(b"\n")
        if first < 0:
            rest += chunk
            scan.end_chunk(chunk)
            continue
        low = chunk.lower()
        if rest:
            line = rest + chunk[:first]
            found = scan.check(line, line.lower(), chunk, scan.base)
            if found is not None:
                yield found
            start = first + 1
        else:
            start = 0
        last = chunk.rfind(b"\n")
        yield from scan.body(chunk, low, start, last)
        rest = chunk[last + 1:]
        scan.end_chunk(chunk)
    if rest:
        found = scan.check(rest, rest.lower(), b"", scan.base)
        if found is not None:
            yield found


def _tool_of(r: R.Relay, calls: dict[str, str]) -> str | None:
    if type(r) is R.ToolUse:
        return r.name.lower()
    if type(r) is R.ToolResult:
        return calls.get(r.tool_use_id)
    return None


def _call_paths(r: R.ToolUse) -> list[str]:
    try:
        data = msgspec.json.decode(bytes(r.input))
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return []
    if not isinstance(data, dict):
        return []
    out = [v for k in _FILE_KEYS if isinstance(v := data.get(k), str)]
    edits = data.get("edits")
    if isinstance(edits, list):
        out += [v for e in edits if isinstance(e, dict) and isinstance(v := e.get("file_path"), str)]
    return out


def _row_matches(t: Translated, q: Query) -> Iterator[Match]:
    """The relays the row terms (and words) select, one match per line they came from."""
    calls: dict[str, str] = {}
    call_files: dict[str, list[str]] = {}
    lanes = t.lanes
    wanted_lanes = {k for k, v in lanes.items() for name in q.lanes
                    if k.lower().startswith(name) or name in v.label.lower()} if q.lanes else None
    seen: set[tuple[str | None, int]] = set()
    error = "error" in q.flags
    for r in t.relays:
        if type(r) is R.ToolUse:
            calls[r.id] = r.name.lower()
            if q.files:
                call_files[r.id] = [p.lower() for p in _call_paths(r)]
        if wanted_lanes is not None and r.lane not in wanted_lanes:
            continue
        if q.tools and _tool_of(r, calls) not in q.tools:
            continue
        if error and not is_error(r):
            continue
        if q.files:
            call = r.id if type(r) is R.ToolUse else r.tool_use_id if type(r) is R.ToolResult else None
            paths = call_files.get(call or "", [])
            if not all(any(f in p for p in paths) for f in q.files):
                continue
        detail = searchable_detail(r)
        if q.words:
            low = f"{r.type} {detail}".lower()
            if not all(w in low for w in q.words):
                continue
        where = (r.file, r.line)
        if where in seen:
            continue
        seen.add(where)
        if type(r) is R.ToolUse:
            detail = f"{r.name} {bytes(r.input).decode('utf-8', 'replace')}"
        yield Match(r.file or "", r.line, _snippet(f"{r.type}: {detail}", q.words[0] if q.words else ""))


def search(text: str, entries: Sequence[tuple[Summary, Group]], source: Source, *, strategy: str = "lineage",
           limit: int = MAX_MATCHES, complete: Callable[[Summary, Group], Summary] | None = None,
           ) -> Iterator[Hit | Progress]:
    """The sessions of ``entries`` that ``text`` matches (see the module doc), as a generator:
    :class:`Progress` as it reads, a :class:`Hit` per matching session, in the entries' order.
    ``complete``: what makes the summaries of a lazy listing (``library.listing(lazy=True)``)
    whole, done for the sessions found only (and for each when the query has session terms).
    Raises :class:`Unsupported` for ``is:lost`` (before anything is read)."""
    q = parse(text, LIBRARY_TERMS)
    if q.lost:
        raise Unsupported("is:lost finds the blocks a strategy never emits: open the session and search it there")
    total = sum(s.size for s, _ in entries)
    read = [0]
    hits = 0
    for k, (s, g) in enumerate(entries):
        before = read[0]
        yield Progress(read[0], total, k, hits)
        if complete is not None and (q.projects or q.models or q.clis):
            s = complete(s, g)
        ok = _session_terms(q, s)
        if ok is False:
            read[0] = before + s.size
            continue
        if ok is None:
            needles = [f'"model":"{m}'.encode() for m in q.models if not _contains(s.models, (m,))]
            needles += [f'"version":"{c}'.encode() for c in q.clis
                        if not any(v.lower().startswith(c) for v in s.cli_versions)]
            if not _bytes_hold(g, source, [n.lower() for n in needles]):
                read[0] = before + s.size
                continue
        matches: list[Match] = []
        count: int | None = 0
        if q.scoped:
            needles = [_needle(x) for x in (*q.tools, *q.files)] + ([b"error"] if "error" in q.flags else [])
            if needles and not _bytes_hold(g, source, needles):
                read[0] = before + s.size
                continue
            try:
                t = translate_group(g, source, strategy, s.session if g.format != "session" else None)
            except OSError:
                read[0] = before + s.size
                continue
            count = 0
            for m in _row_matches(t, q):
                count += 1
                if len(matches) < limit:
                    matches.append(m)
            del t
        elif q.words:
            for m in _text_matches(g, source, q.words, read):
                count = (count or 0) + 1
                if len(matches) < limit:
                    matches.append(m)
        else:
            count = None
        read[0] = before + s.size
        if count is None or count:
            hits += 1
            if complete is not None:
                s = complete(s, g)
            yield Hit(s.session, s, count, matches)
    yield Progress(total, total, len(entries), hits)
