"""library.facts: what a session's files say of it, read from their ends by pattern.

:class:`_Facts` gathers a session's start and last activity, CLI versions, models, folder, branch,
id and title (custom title, AI title, summary or first real prompt) from the first and last bytes
of each of its files: timestamps, versions and models found by one pattern scan of each end's
16 KB, a record decoded only when it titles the session or may be its first prompt. What listing
thousands of files can afford; the summary (``library.summary``) is made from these facts.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Final

import msgspec


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
