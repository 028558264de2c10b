"""redact: secrets and personal data out of transcripts before they are shared.

A :class:`Redactor` takes input lines (any of our input formats: JSON lines, SSE, session files,
relays; a line that is no JSON, or was cut mid-way, too) and gives the same lines with each secret
replaced by a stable placeholder, ``[redacted:KIND:N]``: the same secret always gets the same N
(per redactor: one run, one share), so a reader can still tell that two places held the same key.
Kinds: ``anthropic-key``, ``openai-key``, ``aws-key``, ``github-token``, ``gitlab-token``,
``slack-token``, ``google-key``, ``stripe-key``, ``jwt``, ``private-key``, ``secret``
(``password=``/``token=``, ``.env``-style assignments, ``"password": "..."`` and YAML's
``password: ...``, bearer tokens), ``url-credentials``, ``email``, ``user`` (the user name in
``/Users/NAME/``, ``/home/NAME/``, ``C:\\Users\\NAME\\``, and in Claude Code's project folder
names, ``-Users-NAME-``, whole where the session's ``cwd`` or a home path has shown it).

How, so that the translation of the redacted input is the original's but for the secrets:

- Where the secrets are: ``redact_rules`` finds candidates in the raw line, JSON escapes and all:
  string values, object keys, text that is no JSON. Where two overlap the longer wins (a token in
  URL credentials goes with them, a key inside a private-key block with the block), then the rule
  listed first. A JWT, an assignment's value or URL credentials in the value of an id-like key
  (``id``, ``uuid``, ``*_id``, ``signature``, ``hash`` ...) is left, and listed as left: ids,
  hashes and signatures can look like them, and every de-dup decision is keyed on them. A key
  with a provider's prefix is taken there too (no id starts with ``sk-ant-`` or ``AKIA``).
- Only the secret's bytes change; a placeholder holds no character JSON escapes and a candidate
  never cuts an escape or holds an unescaped quote, so a line that was JSON stays JSON of the same
  structure, and every other byte is kept.
- Streamed fields (a text, thinking or tool input streamed in deltas, Arbiter's ``text`` events):
  redacted whole, across the lines between their pieces, placeholders cut back into the pieces
  (``redact_stream``).
- Nothing is redacted twice: no rule takes any part of a placeholder, so redacting the output again
  changes nothing (``tests/unit/test_redaction_properties.py``).
- Linear in the input, line length included; memory bounded (``redact_stream``).
- A file's batch of lines (``feed_lines``, ``redact_bytes``) that all open a JSON object is read
  as one block: one gate pass, one search for escapes, and only the lines with an anchor, an
  escape or a streamed piece handled one by one; byte for byte what a line at a time gives
  (``tests/unit/test_redact_blocks.py``).

Pure Python, no I/O; runs in the browser worker as in the CLI. Must not: change anything but the
secrets, keep more than the findings (bounded) and what streaming holds, or import anything of the
package but its two helpers.
"""

from __future__ import annotations

import bisect
import itertools
import json
import operator
import re
from collections.abc import Iterable
from typing import Any, Final, NamedTuple, TypeVar

from .redact_rules import (
    LEFT_IN_IDS,
    Candidate,
    IdValues,
    anchors,
    choose,
    escapes,
    plain_ascii,
    scan,
    scan_anchored,
)
from .redact_stream import HOLD_BYTES, Streams
from .redact_words import Words

PLACEHOLDER: Final = "[redacted:{kind}:{n}]"
LEFT: Final = "left: id-like field"  # a finding not replaced (listed in place of its placeholder)
MAX_FINDINGS: Final = 2000  # listed for the preview; all are counted

Line = TypeVar("Line", str, bytes)
_SPAN: Final = operator.itemgetter(0, 1)  # a cut's place: the hole (maybe empty) before a span that starts where it does
_CWD: Final = re.compile(rb'"cwd" ?: ?"((?:[^"\\]|\\.){1,4096})"')  # a session's working folder, as its lines have it
# where a name shows beyond the rules' places, read by the first pass (``discover``): an ``ls -l``
# listing's owner (its line's start in a tool's output: a newline, escaped or not, or a quote),
# and a shell prompt's ``NAME@HOST:~`` / ``NAME@HOST ~ %`` / ``[NAME@HOST dir]$``
_LS_OWNER: Final = re.compile(rb"(?:\\n|\n|\")[-dlcbps](?:[-r][-w][-xsStT]){3}[@+.]? +[0-9]+ +"
                              rb"([A-Za-z_][A-Za-z0-9._-]{0,31}) +([A-Za-z_][A-Za-z0-9._-]{0,31}) +[0-9]")
# a prompt found from its ``@`` (a literal first byte: scanned fast), its NAME then read backwards
_PROMPT_HOST: Final = re.compile(rb"@([A-Za-z0-9][A-Za-z0-9.-]{0,62})"
                                 rb"(?::(?:~|/(?!/))| [~/][^\s\"]{0,200}[%$#]| [^\s\]\"]{1,64}\][$#])")
_PROMPT_NAME: Final = re.compile(rb"(?<![A-Za-z0-9._%+-])([A-Za-z_][A-Za-z0-9._-]{0,31})\Z")
_HOME_PATH: Final = re.compile(rb"(?:/|\\\\|\\)(?:Users|home)(?:/|\\\\|\\)([A-Za-z0-9][A-Za-z0-9._-]{0,63})(?=/|\\|\"|\s|$)")


class Tally(NamedTuple):
    kind: str
    placeholder: str
    masked: str  # as in a Finding: never the secret
    places: int  # the places it took in the input


class Finding(NamedTuple):  # no dataclass: importing dataclasses (and inspect) cost every --redact run
    line: int
    kind: str
    placeholder: str
    masked: str  # a few leading characters of the secret and its length ("AKIA… (20 chars)"), never the secret


def _plain(secret: bytes) -> str:
    """A secret as text, its JSON escapes read (the same secret, escaped or not, is one secret)."""
    if b"\\" in secret:
        secret = plain_ascii(secret)
        try:
            value = json.loads(b'"' + secret + b'"')
            if isinstance(value, str):
                return value
        except ValueError:
            pass
    return secret.decode("utf-8", "surrogateescape")


def _folder_form(name: bytes) -> bytes:
    """A user name as Claude Code writes it in a project folder's name (``john.doe`` -> ``john-doe``)."""
    return re.sub(rb"[^A-Za-z0-9\x80-\xff]", b"-", name)


class Redactor:
    """One run or one share: the same secret gets the same placeholder in every line fed."""

    __slots__ = ("_aliases", "_line", "_placed", "_streams", "_text", "count", "findings", "hold_bytes", "known",
                 "left", "masks", "numbers", "places", "users", "words")

    def __init__(self, hold_bytes: int = HOLD_BYTES) -> None:
        self.findings: list[Finding] = []  # the first MAX_FINDINGS
        self.count = 0  # every replacement made
        self.left = 0  # every candidate left as it is (in an id-like value), listed with the findings
        self.numbers: dict[tuple[str, str], int] = {}  # (kind, secret) -> N
        self.users: dict[str, int] = {}  # user names seen in home paths -> N
        self.words = Words()  # values redacted wherever they are a word (names found, the user's own)
        self.places: dict[tuple[str, str], int] = {}  # (kind, secret) -> the places it took in the input
        self.masks: dict[tuple[str, str], str] = {}  # (kind, secret) -> what the preview shows of it
        self.hold_bytes = hold_bytes  # streaming's memory bound (redact_stream)
        self.known: tuple[bytes, ...] = ()  # user names seen, in the forms paths and folder names give them, longest first
        self._aliases: dict[bytes, str] = {}  # such a form -> the name it stands for
        self._placed: dict[tuple[str, bytes], tuple[str, bytes, str, str]] = {}  # as written -> placeholder, masked, value
        self._line = 0
        self._streams: Streams | None = None
        self._text = False  # the lines fed are str (else bytes)

    # -- numbering ------------------------------------------------------------------------------

    def placeholder(self, kind: str, secret: str) -> str:
        n = self.numbers.get((kind, secret)) or self._new(kind, secret)
        self.count += 1
        return PLACEHOLDER.format(kind=kind, n=n)

    def placeholder_of(self, kind: str, secret: str) -> str:
        """The placeholder a secret numbered already has (nothing counted)."""
        return PLACEHOLDER.format(kind=kind, n=self.numbers[(kind, secret)])

    def _new(self, kind: str, secret: str) -> int:
        n = self.numbers[(kind, secret)] = sum(1 for k, _ in self.numbers if k == kind) + 1
        return n

    def place(self, kind: str, secret: bytes, line: int, found: bool = True) -> bytes:
        """The placeholder of one secret found on ``line`` (a user name is learnt); ``found``:
        a place in the input (counted, listed), not in a name or message shown about it."""
        seen = self._placed.get((kind, secret))
        if seen is None:
            plain = self._aliases.get(secret) if kind == "user" else None
            if plain is None and (word := self.words.value_of(secret)) is not None and word[0] == kind:
                plain = word[1]  # a word as written (any case, escaped): the value it stands for
            if plain is None:
                plain = _plain(secret)
            if kind == "user" and plain not in self.users:
                self._learn(plain, secret)
            n = self.numbers.get((kind, plain)) or self._new(kind, plain)
            if kind == "user":
                self.users[plain] = n
            placeholder = PLACEHOLDER.format(kind=kind, n=n)
            seen = self._placed[(kind, secret)] = (placeholder, placeholder.encode(), mask(kind, plain), plain)
            if kind == "email":
                self.words.add(kind, plain)
        if found:
            self.count += 1
            value = (kind, seen[3])
            self.places[value] = self.places.get(value, 0) + 1
            self.masks.setdefault(value, seen[2])
            if len(self.findings) < MAX_FINDINGS:
                self.findings.append(Finding(line, kind, seen[0], seen[2]))
        return seen[1]

    def _leave(self, c: Candidate, raw: bytes, line: int, found: bool) -> None:
        """A candidate left as it is (in an id-like value): listed, so the sharer sees it."""
        if found:
            self.left += 1
            if len(self.findings) < MAX_FINDINGS:
                kind = c[2]
                self.findings.append(Finding(line, kind, LEFT, f"{mask(kind, _plain(raw[c[0]:c[1]]))}, {LEFT}"))

    def _learnt(self, raw: bytes, candidates: list[Candidate]) -> bool:
        """Whether ``candidates`` hold user names not known before (now known)."""
        new = False
        for s, e, kind in candidates:
            if kind == "user" and raw[s:e] not in self._aliases:
                self._learn(_plain(raw[s:e]), raw[s:e])
                new = True
        return new

    def prime(self, data: bytes) -> None:
        """Learn the user names of a whole input's ``cwd`` fields (the session's working folder,
        ``/Users/jane-doe/app``) before its lines are redacted: a project folder's name
        (``-Users-jane-doe-app``) on a line before them then gives the name whole."""
        for value in {m[1] for m in _CWD.finditer(data)}:
            self._learnt(value, scan(value, 0, len(value), self.known))

    def discover(self, data: bytes) -> None:
        """The first pass over (a part of) an input, before any of it is redacted: the names it
        shows anywhere (``cwd``, home paths, ``ls -l`` owners, prompts' ``NAME@HOST``) are then
        redacted wherever they stand as words, on every line of every file (``redact_words``)."""
        self.prime(data)
        for name in {m[1] for m in _HOME_PATH.finditer(data)}:
            self._learnt(name, [(0, len(name), "user")])
        for m in itertools.chain(_LS_OWNER.finditer(data), _LS_OWNER.finditer(b"\n" + data[:200])):
            for name in {m[1], m[2]}:
                if name.lower() != b"root":
                    self._learnt(name, [(0, len(name), "user")])
        for m in _PROMPT_HOST.finditer(data):
            at = m.start()
            name = _PROMPT_NAME.search(data, max(at - 33, 0), at)
            if name is None:
                continue
            self._learnt(name[1], [(0, len(name[1]), "user")])
            self.words.add("host", m[1].decode("utf-8", "replace"))

    def add_word(self, word: str) -> bool:
        """A word of the user's own (a company, a project, a client), redacted wherever it is one
        (kind ``word``); False if it is too short or given already."""
        return self.words.add("word", word, own=True)

    def _learn(self, plain: str, raw: bytes) -> None:
        """A user name, once found, is also known whole where a path or folder name has it with a
        dash, dot or blank in it (``-Users-john-doe-app``: the folder rule alone takes ``john``)."""
        forms = {raw, plain.encode("utf-8", "surrogateescape"), _folder_form(raw)}
        for form in forms:
            self._aliases.setdefault(form, plain)
        self.words.add("user", plain)
        self.known = tuple(sorted(set(self.known) | forms, key=len, reverse=True))

    # -- one line, one text ---------------------------------------------------------------------

    def redact_line(self, raw: bytes, number: int, hole: tuple[int, int] | None = None, fill: bytes = b"",
                    found: bool = True, anchored_at: list[int] | None = None) -> bytes:
        """One raw line with its secrets replaced; ``hole``: a part of it replaced by ``fill``
        instead (a streamed piece, redacted with its field); ``found``: as ``place``;
        ``anchored_at``: where its anchors are, if known (``scan_anchored``)."""
        candidates = self._scan(raw, anchored_at)
        hits = self.words.hits(raw) if self.words else []
        if not candidates and not hits and hole is None:
            return raw
        if self._learnt(raw, candidates):  # a home path after the project folder's name: the name is whole there
            candidates = self._scan(raw, anchored_at)
            hits = self.words.hits(raw)
        taken: list[Candidate] = []
        ids: IdValues | None = None
        for c in hits:  # a word in an id-like value stays: ids are what every de-dup decision is keyed on
            if not (hole and c[0] < hole[1] and c[1] > hole[0]) and not (ids := ids or IdValues(raw))(c[0]):
                taken.append(c)
        for c in candidates:
            if hole and c[0] < hole[1] and c[1] > hole[0]:
                continue  # the streamed piece's, redacted with its field
            if c[2] in LEFT_IN_IDS and (ids := ids or IdValues(raw))(c[0]):
                self._leave(c, raw, number, found)
            else:
                taken.append(c)
        cuts: list[tuple[int, int, str | None]] = list(choose(taken))  # with the kind, or None: the hole, its fill given
        if hole is not None:
            cuts.append((hole[0], hole[1], None))
            cuts.sort(key=_SPAN)
        elif not cuts:
            return raw
        parts: list[bytes] = []
        at = 0
        for start, end, kind in cuts:
            parts.append(raw[at:start])
            parts.append(fill if kind is None else self.place(kind, raw[start:end], number, found))
            at = end
        parts.append(raw[at:])
        return b"".join(parts)

    def _scan(self, raw: bytes, anchored_at: list[int] | None) -> list[Candidate]:
        if anchored_at is None:
            return scan(raw, 0, len(raw), self.known)
        return scan_anchored(raw, anchored_at, self.known)

    def line(self, raw: Line, number: int | None = None) -> Line:
        """One input line with its secrets replaced, alone (no streamed field is held)."""
        self._line = number if number is not None else self._line + 1
        if isinstance(raw, str):
            return self.redact_line(raw.encode("utf-8", "surrogatepass"), self._line).decode("utf-8", "surrogatepass")
        return self.redact_line(raw, self._line)

    def text(self, value: str) -> str:
        """A string that is no input line (a file name, a message) with its secrets replaced:
        the same placeholders as the input's, not counted as places of the input."""
        data = value.encode("utf-8", "surrogatepass")
        out = self.redact_line(data, self._line, found=False)
        return value if out is data else out.decode("utf-8", "surrogatepass")

    # -- a whole input, streamed fields held ------------------------------------------------------

    def feed(self, raw: Line, number: int | None = None) -> list[Line]:
        """One input line: the lines now ready, in order (none while a streamed field is held)."""
        self._line = number if number is not None else self._line + 1
        if self._streams is None:
            self._streams = Streams(self, self.hold_bytes)
        if isinstance(raw, str):
            self._text = True
            out = self._streams.feed(raw.encode("utf-8", "surrogatepass"), self._line)
            return [line.decode("utf-8", "surrogatepass") for line in out]
        return self._streams.feed(raw, self._line)

    def feed_lines(self, lines: list[bytes], first: int, types: list[Any] | None = None) -> list[bytes]:
        """Lines ``first``, ``first + 1`` ... of a file, each with its newline but the input's last:
        the lines now ready, as ``feed`` gives them line by line. Where every line of the batch
        opens a JSON object and no streamed field is open, the batch is read as one block: one
        gate pass and one search for escapes, and only the lines with an anchor, an escape or a
        streamed piece are handled one by one (a line with none is its own redaction). ``types``:
        each line's top-level ``type``, if the caller has decoded them (``verdict.LineCheck``)."""
        block = b"".join(lines)
        return self._feed_block(lines, first, block, list(itertools.accumulate(map(len, lines), initial=0)), types)

    def _feed_block(self, lines: list[bytes], first: int, block: bytes, starts: list[int],
                    types: list[Any] | None = None, ended: bool = True) -> list[bytes]:
        """``feed_lines`` of ``lines`` as they stand in ``block`` (line k at ``starts[k]``); not
        ``ended``: the lines have no newline of their own, one stands between two in the block."""
        if self._streams is None:
            self._streams = Streams(self, self.hold_bytes)
        streams = self._streams
        special = streams.pieces_in(lines, block, starts, types, ended)
        if special is None:
            return [line for n, raw in enumerate(lines, first) for line in self.feed(raw, n)]
        self._line = first + len(lines) - 1
        at: dict[int, list[int]] = {}  # a line's anchors, in the line
        for a in anchors(block):
            k = bisect.bisect_right(starts, a) - 1
            at.setdefault(k, []).append(a - starts[k])
        escaped = {bisect.bisect_right(starts, e) - 1 for e in escapes(block)}  # scanned whole, as feed does
        for s, _, _ in self.words.hits(block) if self.words else ():  # a line with a word: redacted, anchors or not
            at.setdefault(bisect.bisect_right(starts, s) - 1, [])
        whole = special | escaped
        out: list[bytes] = []
        done = 0  # the lines before this one are out or held
        todo = sorted(whole | at.keys())
        i, words = 0, len(self.words.values)
        while i < len(todo):
            k = todo[i]
            i += 1
            if streams.held:  # a streamed field is open: the lines up to this one are held behind it
                for n in range(done, k):
                    out += streams.feed(lines[n], first + n)
            else:
                out += lines[done:k]
            if k in escaped or streams.held:
                out += streams.feed(lines[k], first + k)
            elif k in special:
                out += streams.feed(lines[k], first + k, at.get(k, []))
            else:
                out.append(self.redact_line(lines[k], first + k, anchored_at=at[k]))  # (its anchors, maybe none)
            done = k + 1
            if len(self.words.values) != words:  # a name learnt on this line: the lines after that hold it too
                known, words = words, len(self.words.values)  # (a line with one known before is in todo already)
                later = {bisect.bisect_right(starts, s) - 1 for s, _, _ in self.words.hits(block, starts[done], since=known)}
                for n in later - set(todo[i:]):
                    at.setdefault(n, [])
                todo = todo[:i] + sorted(set(todo[i:]) | later)
        if streams.held:
            for n in range(done, len(lines)):
                out += streams.feed(lines[n], first + n)
        else:
            out += lines[done:]
        return out

    def flush(self) -> list[Any]:
        """Every line held, redacted (the end of the input): str or bytes, as they came."""
        if self._streams is None:
            return []
        out = self._streams.flush()
        return [line.decode("utf-8", "surrogatepass") for line in out] if self._text else out

    def lines(self, lines: Iterable[Line]) -> list[Line]:
        out = [line for n, raw in enumerate(lines, 1) for line in self.feed(raw, n)]
        return out + self.flush()

    def tally(self) -> list[Tally]:
        """Each secret replaced once, with the places it took in the input, most first (then by
        kind and number): a name found once and replaced everywhere says how far it went."""
        order = sorted(self.places.items(), key=lambda kv: (-kv[1], kv[0][0], self.numbers[kv[0]]))
        return [Tally(kind, self.placeholder_of(kind, value), self.masks[(kind, value)], n)
                for (kind, value), n in order]

    def places_of(self, value: str) -> int:
        """The places a value took, whatever kind it was replaced as, any case (a word the user
        gave that is also a name found)."""
        want = value.strip().casefold()
        return sum(n for (_, v), n in self.places.items() if v.casefold() == want)

    def summary(self) -> str:
        """"3 secrets in 5 places: 2 email, 1 aws-key" (kinds by how many, then name)."""
        kinds: dict[str, int] = {}
        for kind, _ in self.numbers:
            kinds[kind] = kinds.get(kind, 0) + 1
        shown = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
        distinct = len(self.numbers)
        return (f"{distinct} secret{'s' if distinct != 1 else ''} in {self.count} place{'s' if self.count != 1 else ''}"
                + (f": {shown}" if shown else "") + (f"; {self.left} left in id-like fields" if self.left else ""))


def mask(kind: str, secret: str) -> str:
    """What the preview shows of a secret: its first characters (a public prefix for a key, one
    character of a name or password) and its length."""
    keep = {"anthropic-key": 7, "openai-key": 3, "aws-key": 4, "github-token": 4, "gitlab-token": 6,
            "slack-token": 4, "google-key": 4, "stripe-key": 8, "jwt": 3, "private-key": 10}.get(kind, 1)
    keep = min(keep, max(len(secret) // 4, 1))
    return f"{secret[:keep]}… ({len(secret)} chars)"


def redact_text(text: str, redactor: Redactor | None = None) -> str:
    """A whole input (lines split on ``\\n`` only, as the translators split them) redacted."""
    r = redactor if redactor is not None else Redactor()
    r.discover(text.encode("utf-8", "surrogatepass"))
    return "\n".join(r.lines(text.split("\n")))


def redact_bytes(data: bytes, redactor: Redactor | None = None) -> bytes:
    """A whole input (lines split on ``\\n`` only) redacted, ``BLOCK`` bytes of lines at a time
    read as one block (``feed_lines``)."""
    r = redactor if redactor is not None else Redactor()
    r.discover(data)
    lines = data.split(b"\n")
    last = lines.pop() if len(lines) > 1 and not lines[-1] else None  # after the final newline: no line of a block
    starts = list(itertools.accumulate(map(len, lines), _past_newline, initial=0))
    out: list[bytes] = []
    i = 0
    while i < len(lines):
        j = max(bisect.bisect_left(starts, starts[i] + BLOCK), i + 1)
        j = min(j, len(lines))
        group = lines[i:j]
        out += r._feed_block(group, i + 1, data[starts[i]:starts[j]],
                             list(itertools.accumulate(map(len, group), _past_newline, initial=0)), ended=False)
        i = j
    if last is not None:
        out += r.feed(last, len(lines) + 1)
    return b"\n".join(out + r.flush())


BLOCK: Final = 256 << 10  # what redact_bytes reads as one block


def _past_newline(at: int, length: int) -> int:
    return at + length + 1
