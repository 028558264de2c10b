"""The listing's look at a file's ends (``library._Facts.ends``: one scan of each 16 KB end for
all four keys, the titles found by what their words end with, the keys' first values by
``bytes.find``, records decoded by a struct that passes over what it does not need) held to the
one it replaced (kept here, word for word: four pattern searches of each end, four searches for
the titles, every record decoded whole): the same facts for every file of the fixtures, cut at
several sizes, and for files made to be hard (a key with blanks, a title word inside a text, a
message that is no object, blocks that are no objects, timestamps out of order and in other
formats, keys across the 16 KB edges, small files of every size around the edges)."""

from __future__ import annotations

import datetime as _dt
import random
import re
from pathlib import Path
from typing import Any, Final

import msgspec
import pytest
from _corpus import ROOT

from relayscope import library as L
from relayscope.library import _IDE_CONTEXT, _NOT_MODELS, _NOT_PROMPTS, _iso, _line_at, _Rec, _when

# --- the reference: the code before, word for word (its facts class named _RFacts) ---------------

_rec: Final = msgspec.json.Decoder(_Rec)
_TS: Final = re.compile(rb'"timestamp"\s*:\s*"(\d{4}-\d\d-\d\dT[^"\\]{1,40})"')
_VERSION: Final = re.compile(rb'"version"\s*:\s*"(\d+\.\d+\.\d+[^"\\]{0,30})"')
_STREAM_VERSION: Final = re.compile(rb'"claude_code_version"\s*:\s*"(\d+\.\d+\.\d+[^"\\]{0,30})"')
_MODEL: Final = re.compile(rb'"model"\s*:\s*"([^"\\\s]{1,100})"')
_CWD: Final = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.){1,4000}")')
_BRANCH: Final = re.compile(rb'"gitBranch"\s*:\s*("(?:[^"\\]|\\.){1,1000}")')
_SID: Final = re.compile(rb'"session(?:Id|_id)"\s*:\s*("(?:[^"\\]|\\.){1,200}")')
_TITLES: Final = (b'"custom-title"', b'"ai-title"', b'"type":"summary"', b'"type": "summary"')
_USER: Final = re.compile(rb'"type"\s*:\s*"user"')
_text: Final = msgspec.json.Decoder(str)
_STAMPS: Final = 16384


def _stamps(data: bytes, latest: bool) -> _dt.datetime | None:
    """The earliest or the ``latest`` ``timestamp`` in ``data``."""
    raw: list[bytes] = _TS.findall(data)
    if raw and all(x.endswith(b"Z") and len(x) == len(raw[0]) for x in raw):  # one format: as text
        return _when((max(raw) if latest else min(raw)).decode())
    times = [t for x in raw if (t := _when(x.decode("utf-8", "replace"))) is not None]
    return (max(times) if latest else min(times)) if times else None


def _string(pattern: re.Pattern[bytes], data: bytes) -> str | None:
    """The JSON string value the first match of ``pattern`` holds (its group 1, a JSON string literal)."""
    m = pattern.search(data)
    if m is None:
        return None
    try:
        value = _text.decode(m.group(1))
    except (msgspec.DecodeError, UnicodeError):
        return None
    return value or None



def _prompt_of(rec: _Rec) -> str | None:
    """A user record's text when it is a real prompt (not a command echo, meta record, tool result)."""
    if rec.type != "user" or rec.isMeta is True or rec.isSidechain is True or rec.isCompactSummary is True:
        return None
    msg = rec.message if isinstance(rec.message, dict) else {}
    content = msg.get("content")
    text = None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                return None
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                text = b["text"]
                break
    text = _IDE_CONTEXT.sub("", text or "")  # what the IDE said it had open, before the prompt
    if not text.strip() or text.lstrip().startswith(_NOT_PROMPTS):
        return None
    return " ".join(text.split())


class _RFacts:
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
        try:
            rec = _rec.decode(line)
        except (msgspec.DecodeError, RecursionError, UnicodeError):
            return
        if not isinstance(rec, _Rec):
            return
        t = _when(rec.timestamp)
        if t is not None:
            self.start = t if self.start is None or t < self.start else self.start
            self.last = t if self.last is None or t > self.last else self.last
        for v in (rec.version, rec.claude_code_version):
            if isinstance(v, str) and v:
                self.versions.setdefault(v)
        msg = rec.message if isinstance(rec.message, dict) else None
        model = msg.get("model") if msg is not None else rec.model if rec.type == "system" else None
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
            self.prompt = _prompt_of(rec)

    def ends(self, head: bytes, tail: bytes, main: bool) -> None:
        """What a file's ends say, found by pattern in the bytes (a record is decoded only when
        it is a title or may be the first prompt): what listing thousands of files can afford.
        Start and last activity: the earliest timestamp of the head's first 16 KB and the latest
        of the tail's last 16 KB."""
        end = tail or head
        first, last = head[:_STAMPS], end[-_STAMPS:]
        for t in (_stamps(first, False), _stamps(last, True)):
            if t is not None:
                self.start = t if self.start is None or t < self.start else self.start
                self.last = t if self.last is None or t > self.last else self.last
        for part in (first, last) if len(head) + len(tail) > 2 * _STAMPS else (head + tail,):
            for v in {*_VERSION.findall(part), *_STREAM_VERSION.findall(part)}:
                self.versions.setdefault(v.decode("utf-8", "replace"))
            for m in set(_MODEL.findall(part)):
                model = m.decode("utf-8", "replace")
                if model not in _NOT_MODELS:
                    self.models.setdefault(model)
        self.cwd = self.cwd or _string(_CWD, head) or _string(_CWD, tail)
        self.branch = self.branch or _string(_BRANCH, head) or _string(_BRANCH, tail)
        self.session_id = self.session_id or _string(_SID, head) or _string(_SID, tail)
        if not main:  # a sub-agent's file: no title, no prompt of the session's
            return
        for part in (head, tail):
            if b'title"' not in part and b"ummar" not in part:  # held by every word of _TITLES: one look, not four
                continue
            for word in _TITLES:
                at = part.find(word)
                while at >= 0:
                    line = _line_at(part, at)
                    if line is not None:
                        self.add(line, True)
                    at = part.find(word, at + len(word))
        for part in (head, tail):
            for m in _USER.finditer(part):
                if self.prompt is not None:
                    return
                line = _line_at(part, m.start())
                if line is not None:
                    self.add(line, True)

    def merge(self, o: _RFacts, main: bool) -> None:
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


# --- the cases ---------------------------------------------------------------------------------


def _facts(f: L._Facts | _RFacts) -> dict[str, Any]:
    return {k: (sorted(v) if isinstance(v, dict) else _iso(v) if isinstance(v, _dt.datetime) else v)
            for k, v in vars(f).items()}


def _both(p: L.Peek, main: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    new, old = L._Facts(), _RFacts()
    new.ends(p.head, p.tail, main)
    old.ends(p.head, p.tail, main)
    return _facts(new), _facts(old)


FIXTURES = sorted(p for p in (ROOT / "tests" / "fixtures").rglob("*") if p.suffix in (".jsonl", ".ndjson"))


@pytest.mark.parametrize("limit", [L.PEEK_BYTES, 4096, 300])
def test_the_ends_of_every_fixture_say_what_they_said(limit: int) -> None:
    said = 0
    for path in FIXTURES:
        p = L.peek_bytes(path.read_bytes(), limit)
        for main in (True, False):
            new, old = _both(p, main)
            assert new == old, (str(path.relative_to(ROOT)), main)
            said += old["prompt"] is not None or old["ai"] is not None
    assert len(FIXTURES) > 50 and said > 5  # real files, and ones whose titles and prompts are found


def _line(**fields: Any) -> bytes:
    return msgspec.json.encode(fields)


def _spaced(**fields: Any) -> bytes:
    return msgspec.json.format(msgspec.json.encode(fields), indent=0).replace(b"\n", b" ")


SID = "6c3e1f0a-0000-4000-8000-00000000abcd"
PARTS: list[bytes] = [
    _line(type="user", timestamp="2026-01-02T03:04:05.000Z", version="2.1.3", cwd="/home/a b/\u00e9",
          sessionId=SID, gitBranch="main", message={"role": "user", "content": "first real prompt"}),
    _line(type="user", timestamp="2026-01-02T03:04:06.000Z", message={"role": "user", "content": [
        {"type": "tool_result", "content": "x" * 300}]}),
    _line(type="user", timestamp="2026-01-02T03:04:07Z", message={"role": "user", "content": [
        {"type": "text", "text": "text before a result"}, {"type": "tool_result", "content": "y"}]}),
    _line(type="user", message="a message that is a string"),
    _line(type="user", message={"role": "user", "content": ["a block that is a string", 7]}),
    _line(type="user", message={"role": "user", "content": {"type": "text", "text": "content that is an object"}}),
    _line(type="user", message=[1, 2], timestamp="2025-12-31T23:59:59+00:00"),
    _line(type="user", isMeta=True, message={"role": "user", "content": "a meta prompt"}),
    _line(type="user", message={"role": "user", "content": "<command-name>/clear</command-name>"}),
    _line(type="user", message={"role": "user", "content": "<ide_opened_file>a.py</ide_opened_file>  after ide"}),
    _spaced(type="user", timestamp="2026-01-02T01:00:00.000Z", version="2.0.9",
            message={"role": "user", "content": "a prompt with blanks in its JSON"}),
    _line(type="assistant", timestamp="2026-01-03T00:00:00.123Z",
          message={"model": "claude-opus-4-1", "role": "assistant", "content": [
              {"type": "tool_use", "name": "Task", "input": {"model": "sonnet", "prompt": "go"}}]}),
    _line(type="system", subtype="init", model="claude-sonnet-4-5", claude_code_version="2.1.200",
          session_id="stream-1", timestamp="2026-01-01T00:00:00.000000+02:00"),
    _line(type="summary", summary="a summary", leafUuid="u1"),
    _spaced(type="summary", summary="a summary with blanks"),
    _line(type="custom-title", customTitle="first custom title", sessionId=SID),
    _line(type="custom-title", customTitle="  last custom title  ", sessionId=SID),
    _line(type="ai-title", aiTitle="an ai title", sessionId=SID),
    _line(customTitle="the key first", type="custom-title"),
    _line(type="user", message={"role": "user", "content": 'a text that ends "custom-title'}),
    b'{"type":"user","message":{"role":"user","content":"said \\"ai-title\\" and \\"type\\":\\"summary\\""}}',
    _line(type="file-history-snapshot", snapshot={"timestamp": "2020-05-05T05:05:05.000Z", "messageId": "m"}),
    _line(type="assistant", timestamp="not a time", version="v2", cwd="", gitBranch=""),
    _line(type="assistant", timestamp="2026-13-45T99:99:99Z", message={"model": "<synthetic>"}),
    _line(type="assistant", message={"model": "a model with blanks"}, version="10.20.30-beta.1+build"),
    b'{"type":"user","cwd":"\\ud800 broken","sessionId":"\\u0041bc","message":{"content":"escaped \\u00e9"}}',
    b'{"type": "user", "timestamp": "2026-02-02T02:02:02.000Z", "message": {"content": "spaced prompt"}}',
    b'{"type":"user","message":{"content":"cut',
    b'not json at all "type":"user" "timestamp":"2026-01-01T00:00:00Z"',
    b'{"type":"ai-title","aiTitle":7}',
    b"",
    b"   ",
]


def _file(rng: random.Random, size: int) -> bytes:
    out: list[bytes] = []
    n = 0
    while n < size:
        part = rng.choice(PARTS)
        if rng.random() < 0.2:
            pad = rng.randint(0, 3000)
            part = _line(type="assistant", timestamp=f"2026-01-0{rng.randint(1, 9)}T00:00:{rng.randint(10, 59)}Z",
                         message={"model": f"claude-{rng.randint(1, 3)}", "content": [{"type": "text",
                                                                                       "text": "p" * pad}]})
        out.append(part)
        n += len(part) + 1
    return b"\n".join(out) + (b"\n" if rng.random() < 0.7 else b"")


@pytest.mark.parametrize("seed", range(16))
def test_the_ends_of_hard_files_say_what_they_said(seed: int) -> None:
    rng = random.Random(seed)
    sizes = [rng.randint(1, 2_000), rng.randint(15_000, 34_000), rng.randint(60_000, 140_000),
             rng.randint(140_000, 220_000)]
    for size in sizes:
        data = _file(rng, size)
        for limit in (L.PEEK_BYTES, rng.randint(200, 20_000)):
            p = L.peek_bytes(data, limit)
            for main in (True, False):
                new, old = _both(p, main)
                assert new == old, (seed, size, limit, main)


@pytest.mark.parametrize("size", [16_383, 16_384, 16_385, 32_767, 32_768, 32_769, 65_536, 131_072, 131_073])
@pytest.mark.parametrize("shift", range(0, 40, 3))
def test_keys_across_the_edges_say_what_they_said(size: int, shift: int) -> None:
    """A timestamp, a version and a model at each byte around the 16 KB and the whole-file edges."""
    key = (b'{"type":"assistant","timestamp":"2026-03-03T03:03:03.000Z","version":"3.2.1",'
           b'"message":{"model":"claude-edge"}}')
    filler = b'{"type":"assistant","timestamp":"2026-03-01T00:00:00.000Z","pad":"'
    for at in (16_384 - shift, size - 16_384 - shift, size - len(key) - shift):
        if at < 0 or at + len(key) > size:
            continue
        body = bytearray(filler + b"q" * (size - len(filler)))
        body[at - 1:at] = b"\n"
        body[at:at + len(key)] = key
        if at + len(key) < size:
            body[at + len(key):at + len(key) + 1] = b"\n"
        p = L.peek_bytes(bytes(body))
        new, old = _both(p, True)
        assert new == old, (size, shift, at)


def test_a_record_of_another_shape_is_decoded_as_it_is() -> None:
    """The struct that passes over what it does not need falls back to the whole decode: a
    message that is no object, blocks that are no objects still count (their timestamp, the
    prompt a text block before a result is)."""
    data = b"\n".join([
        _line(type="user", message={"role": "user", "content": ["a string block", {"type": "text", "text": "said"}]},
              timestamp="2026-05-05T05:05:05.000Z"),
        _line(type="user", message="no object", timestamp="2026-05-06T05:05:05.000Z"),
    ])
    new, old = _both(L.peek_bytes(data), True)
    assert new == old
    assert new["prompt"] == "said"
    # the second record's timestamp is past the first 16 KB's rule only by being decoded: both see it
    assert new["last"] == "2026-05-06T05:05:05.000Z"


def test_the_fixture_library_lists_as_before() -> None:
    """The whole listing of the fixture library, as the index gives it, held to the reference."""
    from relayscope.cli.library import Library, list_sessions

    items, _ = list_sessions(Library([str(ROOT / "tests" / "fixtures" / "library" / "projects")]))
    assert len(items) >= 9
    for _s, g in items:
        for path in g.files:
            if not path.endswith(".jsonl"):
                continue
            p = L.peek_bytes(Path(path).read_bytes())
            new, old = _both(p, g.files[path] == L.MAIN)
            assert new == old, path
