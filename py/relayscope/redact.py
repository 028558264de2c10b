"""redact: secrets and personal data out of transcripts before they are shared.

A :class:`Redactor` takes input lines (any of our input formats: JSON lines, SSE, session files)
and gives the same lines with each secret replaced by a stable placeholder,
``[redacted:KIND:N]``: the same secret always gets the same N (per redactor: one run, one share),
so a reader can still tell that two places held the same key. Kinds: ``anthropic-key``,
``openai-key``, ``aws-key``, ``github-token``, ``gitlab-token``, ``slack-token``,
``google-key``, ``stripe-key``, ``jwt``, ``private-key``, ``secret`` (``password=``/``token=``
and ``.env``-style assignments), ``url-credentials``, ``email``, ``user`` (the user name in
``/Users/NAME/``, ``/home/NAME/``, ``C:\\Users\\NAME\\``, and in Claude Code's project folder
names, ``-Users-NAME-``).

How, so that the translation of the redacted input is the original's but for the secrets:

- Only JSON string *values* are looked into (the text between quotes, found on the raw line), never
  object keys and never the values of id-like keys (``id``, ``uuid``, ``*_id``, ``signature``,
  ``hash`` ...): ids, uuids, message ids, hashes and signatures are never taken for secrets, so
  every de-dup decision keyed on them is unchanged. A line without a quote (an SSE ``event:``
  line, plain text) is looked at whole.
- A string without escapes is matched as it stands and only the secret's characters change; one
  with escapes (``\\n``, ``\\u00e9``, ``\\/``) is decoded, matched, and written back as JSON only
  when something was found. Placeholders hold no character JSON escapes, so every line that was
  valid JSON stays valid JSON with the same structure.
- The rules are the providers' documented token formats, each anchored on its fixed prefix and
  bounded on the left, so a secret's pattern cannot start inside a longer base64 or hex run.

Why hand-written rules and not a rule set: detect-secrets' plugins (Apache-2.0) need PyYAML and
requests, scan files rather than strings, have no Anthropic, Google, e-mail or home-path rules, and
its keyword and entropy detectors flag ids and hashes; gitleaks' rules (MIT) are Go RE2 patterns
in TOML with entropy thresholds and allowlists, several with ``(?i)`` mid-pattern, which Python's
``re`` refuses. Neither runs as it is in the browser worker; the tests use detect-secrets as an independent check on our
output instead (tests/unit/test_redact.py).

Pure Python, no I/O; runs in the browser worker as in the CLI. Must not: change anything but the
secrets, keep more than the findings (bounded), or import anything of the package.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

PLACEHOLDER: Final = "[redacted:{kind}:{n}]"
MAX_FINDINGS: Final = 2000  # listed for the preview; all are counted

_B: Final = r"(?<![A-Za-z0-9+/_-])"  # a token starts here: not inside a longer base64 / id run
_E: Final = r"(?![A-Za-z0-9_-])"  # and ends here

_NOT_A_VALUE: Final = r"(?!\[redacted:|(?i:your[_-]|xxx|example|placeholder|changeme|dummy|<|\$))"
_EXAMPLE_MAIL: Final = r"(?!noreply@anthropic\.com|git@|[^@\s]*@(?:[A-Za-z0-9-]+\.)*example\.(?:com|org|net)\b)"

# (kind, pattern, triggers): the whole match is the secret, unless the pattern has a group named
# "s"; a rule runs only on a string holding one of its triggers (a ``(?i)`` rule's: looked for in
# the lowercased string), which keeps redaction a plain substring search for most strings
RULES: Final[list[tuple[str, str, tuple[str, ...]]]] = [
    ("private-key", r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END[A-Z0-9 ]{0,40} "
                    r"PRIVATE KEY(?: BLOCK)?-----|.*\Z)", ("-----BEGIN",)),
    ("anthropic-key", _B + r"sk-ant-[A-Za-z0-9]{2,8}-[A-Za-z0-9_-]{20,}" + _E, ("sk-ant-",)),
    ("openai-key", _B + r"sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}" + _E,
     ("T3BlbkFJ",)),
    ("openai-key", _B + r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}" + _E, ("sk-proj-", "sk-svcacct-", "sk-admin-")),
    ("openai-key", _B + r"sk-[A-Za-z0-9]{48}" + _E, ("sk-",)),
    ("aws-key", r"(?<![A-Za-z0-9+/])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9+/])",
     ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")),
    ("github-token", _B + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})" + _E,
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("gitlab-token", _B + r"(?:glpat|glptt|gldt|glrt|glsoat|glcbt|glimt|gloas)-[A-Za-z0-9_-]{20,}" + _E,
     ("glpat-", "glptt-", "gldt-", "glrt-", "glsoat-", "glcbt-", "glimt-", "gloas-")),
    ("slack-token", _B + r"xox[abposre]-[A-Za-z0-9-]{10,}" + _E, ("xox",)),
    ("slack-token", r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}", ("hooks.slack.com",)),
    ("google-key", _B + r"(?:AIza[0-9A-Za-z_-]{35}|GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[0-9A-Za-z_-]{20,})" + _E,
     ("AIza", "GOCSPX-", "ya29.")),
    ("stripe-key", _B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _E, ("_live_", "_test_")),
    ("stripe-key", _B + r"whsec_[A-Za-z0-9]{24,}" + _E, ("whsec_",)),
    ("jwt", _B + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}" + _E, ("eyJ",)),
    ("secret", r"(?i)\bbearer[ \t]+(?P<s>(?!\[redacted:)[A-Za-z0-9._~+/-]{16,}=*)", ("bearer",)),
    ("url-credentials", r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://(?P<s>[^\s:/?#@\"'<>\[\]]+:[^\s/?#@\"'<>]+)@", ("://",)),
    # .env style: NAME=value at a line's start, NAME in capitals naming a secret
    ("secret", r"(?m)^[ \t]*(?:export[ \t]+)?[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|"
               r"PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]*[ \t]*=[ \t]*(?P<q>['\"]?)" + _NOT_A_VALUE
               + r"(?P<s>[^\s'\"]{4,})(?P=q)", ("PASSWORD=", "PASSWD=", "SECRET=", "TOKEN=", "KEY=", "CREDENTIAL=",
                                                  "CREDENTIALS=", "PASSWORD =", "TOKEN =", "KEY =")),
    # password=... token=... in a command, a URL's query, a config line: a value with a digit in it
    ("secret", r"(?i)(?<![A-Za-z0-9])(?:password|passwd|secret|token|api[_-]?key|apikey|"
               r"access[_-]?key|client[_-]?secret)[ \t]*=[ \t]*(?P<q>['\"]?)" + _NOT_A_VALUE
               + r"(?P<s>(?=[^\s'\"&;,)<>]*[0-9])[^\s'\"&;,()<>$`{}]{6,})(?P=q)",
     ("password", "passwd", "secret", "token", "key", "=")),
    ("email", r"(?<![A-Za-z0-9._%+-])" + _EXAMPLE_MAIL
              + r"[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}\b", ("@",)),
    ("user", r"(?:/Users/|/home/|\b[A-Za-z]:\\+Users\\+)(?P<s>(?!Shared[/\\]|Public[/\\]|Default[/\\])"
             r"[A-Za-z0-9._][A-Za-z0-9._ -]{0,63}?)(?=[/\\]|$|[\s\"'`),;:])", ("/Users/", "/home/", "Users\\")),
]
_RULES: Final = [(kind, re.compile(pattern, re.DOTALL if kind == "private-key" else 0), triggers,
                  pattern.startswith("(?i)")) for kind, pattern, triggers in RULES]
# a (?i) rule run on the lowercased text of an ASCII string instead (the same places; sre's case
# folding made the password= rule a third of all redaction time)
_LOWER: Final = {i: re.compile(pattern.removeprefix("(?i)")) for i, (_, pattern, _) in enumerate(RULES)
                 if pattern.startswith("(?i)")}
# a cheap look before the rules (substring searches, in C): a string holding none of these has
# nothing to find; the rules' own triggers then pick which rules run
_CHEAP: Final = tuple(sorted({t for _, pattern, triggers in RULES if not pattern.startswith("(?i)") for t in triggers}
                             | {"=", "earer", "EARER", "-Users-", "-home-"}))
_DOMAIN_AT: Final = re.compile(r"@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}\b")


def _maybe(text: str) -> bool:
    """Whether a rule could match: the triggers of the rules that look at the case as it is,
    and for the rest (password=, token=, bearer ...) the "=" or "bearer" they need."""
    return any(t in text for t in _CHEAP)


class _Claims:
    """Places in a string already taken by a secret (sorted, none overlapping)."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def take(self, start: int, end: int) -> bool:
        """Claim [start, end) unless it overlaps a place taken."""
        i = bisect.bisect_left(self.starts, start)
        if i > 0 and self.ends[i - 1] > start:
            return False
        if i < len(self.starts) and self.starts[i] < end:
            return False
        self.starts.insert(i, start)
        self.ends.insert(i, end)
        return True
_LITERAL: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_KEY_AFTER: Final = re.compile(r"\s*:")
_ID_KEY: Final = re.compile(r"^(?:id|Id|ID|uuid|UUID|.*[_-]id|.*[a-z]Id|.*[a-z]ID|.*[Uu]uid|.*UUID|signature"
                            r"|.*[Hh]ash|sha\d*|etag|checksum|digest|fingerprint|nonce)$")
_SURROGATE: Final = re.compile("[\ud800-\udc7f\udd00-\udfff]")  # lone surrogates other than surrogateescape's

Line = TypeVar("Line", str, bytes)


@dataclass(frozen=True, slots=True)
class Finding:
    line: int
    kind: str
    placeholder: str
    masked: str  # a few leading characters of the secret and its length ("AKIA… (20 chars)"), never the secret


HOLD_LINES: Final = 20_000  # a streamed block held longer than this is redacted piece by piece
HOLD_BYTES: Final = 8 << 20
# the lines worth decoding: a delta, the end of a block or message, a partial delta relay (other
# stream events, such as a block's start, end what is held: blocks of one message stream in turn)
_STREAM_MARKS: Final = ('"content_block_delta"', '"content_block_stop"', '"message_stop"', '"message_delta"',
                        '"partial":true')


@dataclass(slots=True)
class _Held:
    number: int
    raw: str | bytes
    text: str
    key: tuple[object, ...] | None = None  # the streamed block a piece belongs to
    field: str | None = None  # the key of its text in the line
    value: str | None = None  # its text (None: a line held only to keep the order)
    new: str | None = None  # the line with its piece redacted, when that changed it


def _stream_piece(text: str) -> tuple[tuple[object, ...] | None, str | None, str | None, list[tuple[object, ...]]] | None:
    """A line of a streamed block: (its block, the text's key, the text, the blocks it closes),
    or None for any other line (which ends what is held). Stream-json's ``stream_event`` lines
    (a delta, or the events around one) and an export's partial delta relays."""
    if not any(mark in text for mark in _STREAM_MARKS):
        return None
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    kind = obj.get("type")
    if kind == "stream_event" and isinstance(obj.get("event"), dict):
        event, lane = obj["event"], obj.get("parent_tool_use_id")
        lane = lane if isinstance(lane, str) else None
        etype = event.get("type")
        index = event.get("index")
        delta = event.get("delta")
        if etype == "content_block_delta" and isinstance(delta, dict):
            name = {"text_delta": "text", "thinking_delta": "thinking"}.get(str(delta.get("type")))
            if name is not None and isinstance(delta.get(name), str):
                return ("s", lane, index), name, delta[name], []
        if etype == "content_block_stop":
            return None, None, None, [("s", lane, index)]
        if etype in ("message_delta", "message_stop"):
            return None, None, None, [("s", lane)]
        return None, None, None, []
    if kind in ("text_delta", "thinking_delta") and obj.get("partial") is True and isinstance(obj.get("text"), str):
        return ("r", obj.get("lane"), obj.get("message_id"), obj.get("block_index"), kind), "text", obj["text"], []
    return None


def _replace_value(line: str, name: str, old: str, new: str) -> str | None:
    """``line`` with the string value ``old`` of key ``name`` written as ``new`` (JSON, every
    other byte as it was); None when it is not found."""
    key = ""
    for m in _LITERAL.finditer(line):
        if _KEY_AFTER.match(line, m.end()):
            key = m.group(0)[1:-1]
            continue
        if key == name:
            try:
                value = json.loads(m.group(0))
            except ValueError:
                value = None
            if value == old:
                encoded = _SURROGATE.sub(lambda c: f"\\u{ord(c.group(0)):04x}", json.dumps(new, ensure_ascii=False))
                return line[:m.start()] + encoded + line[m.end():]
        key = ""
    return None


@dataclass(slots=True)
class Redactor:
    """One run or one share: the same secret gets the same placeholder in every line fed."""

    findings: list[Finding] = field(default_factory=list)  # the first MAX_FINDINGS
    count: int = 0  # every replacement made
    numbers: dict[tuple[str, str], int] = field(default_factory=dict)  # (kind, secret) -> N
    users: dict[str, int] = field(default_factory=dict)  # user names seen in home paths -> N
    _line: int = 0
    _users_rule: re.Pattern[str] | None = None
    _held: list[_Held] = field(default_factory=list)  # lines held while a streamed block is open
    _open: set[tuple[object, ...]] = field(default_factory=set)  # its blocks not yet stopped
    _held_bytes: int = 0

    def placeholder(self, kind: str, secret: str) -> str:
        n = self.numbers.get((kind, secret))
        if n is None:
            n = self.numbers[(kind, secret)] = sum(1 for k, _ in self.numbers if k == kind) + 1
            if kind == "user" and secret not in self.users:
                self.users[secret] = n
                names = "|".join(re.escape(u) for u in sorted(self.users, key=len, reverse=True))
                self._users_rule = re.compile(rf"(?<=[-/\\])(?:Users|home)[-/\\](?P<s>{names})(?=[-/\\]|$|[\s\"'`])")
        self.count += 1
        return PLACEHOLDER.format(kind=kind, n=n)

    def _find(self, kind: str, secret: str) -> str:
        placeholder = self.placeholder(kind, secret)
        if len(self.findings) < MAX_FINDINGS:
            self.findings.append(Finding(self._line, kind, placeholder, mask(kind, secret)))
        return placeholder

    def spans(self, value: str) -> list[tuple[int, int, str]]:
        """Where the secrets of one string are: ``(start, end, placeholder)``, in order, none
        overlapping (a rule earlier in RULES wins a place; placeholders numbered in order)."""
        if not _maybe(value):
            return []
        found: list[tuple[int, int, str]] = []
        claims = _Claims()
        lower = value.lower()
        ascii_ = value.isascii()
        for i, (kind, rule, triggers, folded) in enumerate(_RULES):
            where = lower if folded else value
            if not any(t in where for t in triggers):
                continue
            if kind == "email" and not _DOMAIN_AT.search(value):  # the rule scans slowly: look for its domain first
                continue
            named = "s" in rule.groupindex
            matches = _LOWER[i].finditer(lower) if folded and ascii_ else rule.finditer(value)
            for m in matches:
                start, end = m.span("s") if named else m.span()
                if claims.take(start, end):
                    found.append((start, end, kind))
        found.sort()
        out = [(start, end, self._find(kind, value[start:end])) for start, end, kind in found]
        if self._users_rule is not None:  # a user name found once is redacted in project folder names too
            more = [m.span("s") for m in self._users_rule.finditer(value)]
            more = [(s, e) for s, e in more if claims.take(s, e)]
            if more:
                out = sorted(out + [(s, e, self._find("user", value[s:e])) for s, e in more])
        return out

    def text(self, value: str) -> str:
        """One string with its secrets replaced (the same string when none is found)."""
        spans = self.spans(value)
        if not spans:
            return value
        parts, at = [], 0
        for start, end, placeholder in spans:
            parts += [value[at:start], placeholder]
            at = end
        parts.append(value[at:])
        return "".join(parts)

    def line(self, raw: Line, number: int | None = None) -> Line:
        """One input line with its secrets replaced; every other byte as it was."""
        self._line = number if number is not None else self._line + 1
        if isinstance(raw, bytes):
            text = raw.decode("utf-8", "surrogateescape")
            out = self._line_text(text)
            return raw if out is text else out.encode("utf-8", "surrogateescape")
        return self._line_text(raw)

    def _line_text(self, text: str) -> str:
        if not _maybe(text):
            return text
        if '"' not in text:
            return self.text(text)
        parts: list[str] = []
        at = 0
        key = ""
        for m in _LITERAL.finditer(text):
            start, end = m.span()
            if _KEY_AFTER.match(text, end):  # an object key: never changed; names the value after it
                key = m.group(0)[1:-1]
                continue
            if key and _ID_KEY.match(key):
                key = ""
                continue
            key = ""
            literal = m.group(0)
            if not _maybe(literal):
                continue
            new = self._literal(literal)
            if new is not literal:
                parts.append(text[at:start])
                parts.append(new)
                at = end
        if not parts:
            return text
        parts.append(text[at:])
        return "".join(parts)

    def _literal(self, literal: str) -> str:
        body = literal[1:-1]
        if "\\" not in body:
            new = self.text(body)
            return literal if new is body else f'"{new}"'
        try:
            value = json.loads(literal)
        except ValueError:  # not a JSON string after all (a stray quote on a broken line)
            return literal
        new = self.text(value)
        if new is value:
            return literal
        out = json.dumps(new, ensure_ascii=False)
        return _SURROGATE.sub(lambda c: f"\\u{ord(c.group(0)):04x}", out)

    def lines(self, lines: list[Line]) -> list[Line]:
        out = [line for n, raw in enumerate(lines, 1) for line in self.feed(raw, n)]
        return out + self.flush()

    # -- streamed text: a secret cut across deltas ----------------------------------------------
    #
    # A model streams its text a few characters a delta, so a key it writes arrives in pieces no
    # rule matches alone. ``feed`` holds the lines of a streamed text block (stream-json
    # ``content_block_delta`` lines; partial ``text_delta`` relays in an NDJSON export) until the
    # block ends, finds the secrets in the block's whole text, and cuts each placeholder back
    # into the pieces: the first piece a secret touches carries its placeholder, the others lose
    # their part of it. Joined, the pieces are the redacted whole text (what the final message
    # carries), so de-dup decisions stay the same. Lines are held, never reordered.

    def feed(self, raw: Line, number: int | None = None) -> list[Line]:
        """One input line: the lines now ready (none while a streamed block is held)."""
        number = number if number is not None else self._line + 1
        text = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw
        found = _stream_piece(text)
        if found is None:
            if not self._held:
                return [self.line(raw, number)]
            self._held.append(_Held(number, raw, text))
            return self.flush()
        key, field_name, value, closes = found
        self._held.append(_Held(number, raw, text, key, field_name, value))
        self._held_bytes += len(text)
        if value is not None and key is not None:
            self._open.add(key)
        for closed in closes:
            self._open = {k for k in self._open if k[: len(closed)] != closed}
        if (not self._open and value is None) or len(self._held) > HOLD_LINES or self._held_bytes > HOLD_BYTES:
            return self.flush()
        return []

    def flush(self) -> list[Any]:
        """Every line held, redacted (the end of the input, or of a streamed block)."""
        held, self._held, self._open, self._held_bytes = self._held, [], set(), 0
        pieces: dict[tuple[object, ...], list[_Held]] = {}
        for h in held:
            if h.key is not None and h.value is not None:
                pieces.setdefault(h.key, []).append(h)
        for group in pieces.values():
            self._cut(group)
        out: list[Any] = []  # each line as it came: str or bytes
        for h in held:
            raw: Any = h.raw
            if h.new is not None:
                out.append(h.new.encode("utf-8", "surrogateescape") if isinstance(raw, bytes) else h.new)
            elif h.value is not None:
                out.append(raw)  # a piece with nothing secret in it: as it was
            else:
                out.append(self.line(raw, h.number))
        return out

    def _cut(self, group: list[_Held]) -> None:
        """Redact the whole text of one streamed block and cut it back into its pieces."""
        whole = "".join(h.value or "" for h in group)
        self._line = group[0].number
        spans = self.spans(whole)
        if not spans:
            return
        at = 0
        for h in group:
            value = h.value or ""
            lo, hi = at, at + len(value)
            at = hi
            parts, pos = [], lo
            for start, end, placeholder in spans:
                if end <= lo or start >= hi:
                    continue
                parts.append(whole[pos:max(start, lo)])
                if lo <= start < hi:
                    parts.append(placeholder)
                pos = min(end, hi)
            if not parts:
                continue
            parts.append(whole[pos:hi])
            h.new = _replace_value(h.text, h.field or "", value, "".join(parts))

    def summary(self) -> str:
        """"3 secrets in 5 places: 2 email, 1 aws-key" (kinds by how many, then name)."""
        kinds: dict[str, int] = {}
        for kind, _ in self.numbers:
            kinds[kind] = kinds.get(kind, 0) + 1
        shown = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
        distinct = len(self.numbers)
        return (f"{distinct} secret{'s' if distinct != 1 else ''} in {self.count} place{'s' if self.count != 1 else ''}"
                + (f": {shown}" if shown else ""))


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
    return "\n".join(r.lines(text.split("\n")))


def redact_bytes(data: bytes, redactor: Redactor | None = None) -> bytes:
    r = redactor if redactor is not None else Redactor()
    return b"\n".join(r.lines(data.split(b"\n")))
