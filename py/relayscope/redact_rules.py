"""redact_rules: where the secrets are in a piece of raw text, as candidate spans.

The text is raw bytes as they stand in the input: a JSON line, the JSON-escaped text of a streamed
field (its pieces joined), a file name, a line that is no JSON at all (a run killed mid-line, an
SSE ``event:`` line). ``scan`` returns every place a rule matches, ``(start, end, kind)``, the
secret being ``text[start:end]``; ``choose`` makes of overlapping ones the spans replaced;
numbering and replacing them is ``redact``'s job. No state, no I/O, nothing of the package
imported.

How it reads the text (the theory of operation):

- **One pass.** A gate regex finds *anchors*: the fixed start of a key format (``AKIA``, ``eyJ``,
  ``sk-``, ``ghp_``, ``-----BEGIN`` ...), an ``@`` after what ends an e-mail address or a password,
  an ``=`` after a word that names a secret (or three capitals: a ``.env`` name), a ``:`` after a
  name ending as one does (``"password":``, ``password:``), ``Users`` or ``home`` after a path
  separator. Every alternative of the gate
  starts with a literal byte, so Python's ``re`` skips to the next possible anchor by a character
  set; the text is read once by the gate and then only around the anchors (``ANCHORS``: anchor,
  rows it runs).
- **Anchored rows.** A row's matcher runs at its anchor (a regex ``match`` at a fixed offset, or a
  few lines of Python for the rows that read backwards: an e-mail's local part before ``@``, the
  word before ``=`` or ``:``, the scheme before ``user:password@``). Nothing rescans from every start, and
  each matcher reads a bounded distance around its anchor (``BACK`` before it, ``AHEAD`` past its
  match) except for a run of one character class, which ends its match: so scanning is linear in
  the text, and a window ``AHEAD`` short of a streamed field's end already has its final
  candidates (``redact_stream`` relies on it).
- **Escapes.** The text may be JSON-escaped, once or more (JSON in a JSON string): ``\\n`` or
  ``\\t`` before a token separates it as a newline would, a slash may be written ``\\/``, a
  Windows path separator is a run of backslashes, a quote in a value may be ``\\"``. A candidate
  never starts or ends inside an escape and never holds an unescaped quote, so replacing it keeps
  a JSON line JSON with the same structure. A ``\\u`` escape of printable ASCII (``\\u0041KIA``)
  is read as its character: a text that has one is scanned with them decoded, and a candidate
  takes its escapes whole (``_scan_decoded``).
- **Nothing of a placeholder** (``[redacted:KIND:N]``) can be taken for a secret: no row's
  characters include ``[`` and the value rows refuse a value starting with one; redacting twice is
  redacting once.

Why hand-written rules and not a rule set: detect-secrets' plugins (Apache-2.0) need PyYAML and
requests, scan files rather than strings, have no Anthropic, Google, e-mail or home-path rules, and
its keyword and entropy detectors flag ids and hashes; gitleaks' rules (MIT) are Go RE2 patterns
in TOML with entropy thresholds and allowlists, several with ``(?i)`` mid-pattern, which Python's
``re`` refuses; neither reads JSON-escaped text. Neither runs as it is in the browser worker; the
tests use detect-secrets as an independent check on our output instead (tests/unit/test_redact.py).

Must not: decide what replaces a span, keep anything between calls (``IdValues`` holds one
text's reading while its candidates are asked about), or import the package.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection, Iterable
from typing import Final

Candidate = tuple[int, int, str]  # start, end, kind

BACK: Final = 640  # the farthest a matcher reads before its anchor (a URL's scheme and user:password)
AHEAD: Final = 640  # ... and past the end of a match that is not a run ending the text (a look-ahead)
RESCAN: Final = 64  # the farthest a candidate starts after its anchor ("Users/" ... the name)

# Kinds left in the value of an id-like key (a hash or signature can hold "eyJ..." or a "token="
# look-alike, and every de-dup decision is keyed on ids): the caller lists them as left rather
# than replacing them. A key with a provider's fixed prefix (``sk-ant-``, ``AKIA``, ``ghp_`` ...)
# is taken there too: no id, uuid or signature starts with one at a token boundary, so one there
# was planted. E-mail addresses and home-folder names are taken wherever they are.
LEFT_IN_IDS: Final = frozenset({"jwt", "secret", "url-credentials"})

# After a placeholder (":N]") a token is no more a token than after the text it replaced, and
# before one ("[redacted:") no more ended: so a redacted text has no new candidate next to one.
_NOT_AFTER_PLACEHOLDER: Final = b"".join(rb"(?<!:[0-9]{%d}\])" % n for n in range(1, 8))
# A token starts here (or after an escaped newline); a "/" before it is no token's character: a
# key stands after one in a URL's or a path's segment (https://.../ghp_..., s3://bucket/AKIA...).
_LEFT: Final = (rb"(?:(?<![A-Za-z0-9+_-])|(?<=\\[nrtbf]))"
                + _NOT_AFTER_PLACEHOLDER)
_END: Final = rb"(?![A-Za-z0-9_-]|\[redacted:)"  # and ends here
_NOT_A_VALUE: Final = rb"(?!\[redacted:|(?i:your[_-]|xxx|example|placeholder|changeme|dummy|<|\$))"
_SPACE: Final = rb"(?:[ \t]|\\t)"  # a blank, or an escaped tab
_NOT_PLACEHOLDER: Final = rb"\[(?!redacted:)"  # a "[" in a value, unless it opens a placeholder


class _Lazy:
    """A regex compiled when first used. The providers' key formats, the values after a secret's
    name and the id-like keys are read only where such a prefix or name stands, which most runs
    never meet; compiled at import they cost every process with ``--redact`` 4 ms of the 7 ms
    its regexes take."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: bytes) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[bytes] | None = None

    def get(self) -> re.Pattern[bytes]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern)
        return self._compiled


def _token(pattern: bytes) -> _Lazy:
    return _Lazy(_LEFT + pattern + _END)


# --- the rows that are one regex each, matched at their anchor ------------------------------------
# (kind, regex, offset: where the match starts before the anchor)

_ANTHROPIC: Final = _token(rb"sk-ant-[A-Za-z0-9]{2,8}-[A-Za-z0-9_-]{20,}")
_OPENAI: Final = _token(rb"sk-(?:(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}T3BlbkFJ"
                        rb"[A-Za-z0-9_-]{20,}|(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{48})")
_STRIPE: Final = _token(rb"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}")
_WHSEC: Final = _token(rb"whsec_[A-Za-z0-9]{24,}")
_AWS: Final = _Lazy(rb"(?:(?<![A-Za-z0-9+])|(?<=\\[nrtbf]))" + _NOT_AFTER_PLACEHOLDER
                         + rb"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9+]|\[redacted:)")
_AIZA: Final = _token(rb"AIza[0-9A-Za-z_-]{35}")
_GOCSPX: Final = _token(rb"GOCSPX-[A-Za-z0-9_-]{28}")
_YA29: Final = _token(rb"ya29\.[0-9A-Za-z_-]{20,}")
_GITHUB: Final = _token(rb"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})")
_GITLAB: Final = _token(rb"gl(?:pat|ptt|dt|rt|soat|cbt|imt|oas)-[A-Za-z0-9_-]{20,}")
_SLACK: Final = _token(rb"xox[abposre]-[A-Za-z0-9-]{10,}")
_SLACK_HOOK: Final = _Lazy(rb"(?<=/)hooks\.slack\.com\\*/(?:services|workflows)\\*/(?:[A-Za-z0-9_-]|\\*/){20,}")
_JWT: Final = _token(rb"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
_BEARER: Final = _Lazy(rb"(?:(?<![A-Za-z0-9_])|(?<=\\[nrtbf]))" + _NOT_AFTER_PLACEHOLDER + rb"(?i:bearer)" + _SPACE + rb"{1,8}"
                            rb"(?P<s>(?!\[)(?:[A-Za-z0-9._~+-]|\\*/){16,}=*)")

# (text, anchor, end of text, user names known) -> candidates; a row that knows no names takes them all the same,
# so that an anchor with one row calls it with no wrapper between
Row = Callable[[bytes, int, int, tuple[bytes, ...]], Iterable[Candidate]]


def _regex_row(kind: str, regex: _Lazy, offset: int) -> Row:
    group = "s" if b"(?P<s>" in regex.pattern else 0

    def row(text: bytes, at: int, end: int, known: tuple[bytes, ...] = ()) -> Iterable[Candidate]:
        if at - offset < 0:
            return ()
        m = regex.get().match(text, at - offset, end)
        return ((m.start(group), m.end(group), kind),) if m else ()
    return row


# --- the rows that read around their anchor -------------------------------------------------------

_KEY_HEAD: Final = _Lazy(rb"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----")
_KEY_TAIL: Final = _Lazy(rb"-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----")
_LITERAL_REST: Final = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*')  # up to the unescaped quote ending a JSON string


def _private_key(text: bytes, at: int, end: int, known: tuple[bytes, ...] = ()) -> Iterable[Candidate]:
    """A PEM private key: from its BEGIN line to its END line, or (cut, or never ended) to the
    end of the string it is in."""
    m = _KEY_HEAD.get().match(text, at - 5, end) if at >= 5 else None
    if m is None:
        return ()
    stop = _LITERAL_REST.match(text, m.end(), end)
    last = stop.end() if stop else m.end()
    found = text.find(b"-----END", m.end(), last)
    while found >= 0:
        tail = _KEY_TAIL.get().match(text, found, last)
        if tail:
            return ((m.start(), tail.end(), "private-key"),)
        found = text.find(b"-----END", found + 1, last)
    return ((m.start(), last, "private-key"),)


_LOCAL_BACK: Final = re.compile(rb"[A-Za-z0-9._%+-]{1,66}")  # an e-mail's local part, read backwards from the @
_DOMAIN: Final = re.compile(rb"@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}(?![A-Za-z0-9_]|\[redacted:)")
_EXAMPLE_MAIL: Final = re.compile(rb"(?:noreply@anthropic\.com|git@.*|[^@]*@(?:[A-Za-z0-9-]+\.)*example\.(?:com|org|net))\Z",
                                  re.IGNORECASE)
_CREDENTIALS: Final = re.compile(rb"[^\s:/?#@\"'<>\[\]\\]{1,256}:[^\s/?#@\"'<>\[\]\\]{1,256}")
_SCHEME: Final = re.compile(rb"(?:(?<![A-Za-z0-9_])|(?<=\\[nrtbf]))" + _NOT_AFTER_PLACEHOLDER + rb"[a-zA-Z][a-zA-Z0-9+.-]{1,20}:(?:\\*/){2}\Z")


def _escaped(text: bytes, i: int) -> bool:
    """Whether ``text[i]`` is the letter of an escape (an odd run of backslashes before it)."""
    n = 0
    while i - n - 1 >= 0 and text[i - n - 1] == 0x5C:
        n += 1
    return n % 2 == 1


def _email(text: bytes, at: int, end: int) -> tuple[Candidate, ...]:
    domain = _DOMAIN.match(text, at, end)
    if domain is None:
        return ()
    run = _LOCAL_BACK.match(text[max(at - 66, 0):at][::-1])  # the local-part characters before the @
    if run is None or run.end() == 66:
        return ()
    start = _past_escape(text, at - run.end())  # "\\njane@...": the n is the escape's
    if at - start > 64 or start >= at or not text[start:start + 1].isalnum():
        return ()
    if _EXAMPLE_MAIL.match(text, start, domain.end()):
        return ()
    return ((start, domain.end(), "email"),)


def _past_escape(text: bytes, i: int) -> int:
    """``i``, or past the escape ``text[i]`` is inside of (``\\n``, ``\\u00e9``)."""
    for j in range(i - 1, max(i - 6, -1), -1):
        if text[j] == 0x5C:
            width = _escape_at(text, j)
            return j + width if j + width > i else i
    return i


def _name_start(text: bytes, i: int) -> int:
    """Where a name read back to ``i`` starts: past an escape's letter (``\\ntoken=``), also of an
    escape escaped again (``\\\\ntoken=``: a newline in JSON inside a JSON string)."""
    start = _past_escape(text, i)
    if start == i and i > 0 and text[i - 1] == 0x5C and text[i] in b"nrt":
        return i + 1
    return start


def _at(text: bytes, at: int, end: int, known: tuple[bytes, ...]) -> Iterable[Candidate]:
    """An @ ends URL credentials (``scheme://user:password@host``), else it may be an e-mail's."""
    return _url_credentials(text, at, end) or _email(text, at, end)


def _url_credentials(text: bytes, at: int, end: int) -> tuple[Candidate, ...]:
    """``scheme://user:password@`` ending at this @ (the credentials are the secret)."""
    slash = text.rfind(b"/", max(at - 520, 0), at)
    if slash < 0:
        return ()
    creds = _CREDENTIALS.fullmatch(text, slash + 1, at)
    if creds is None:
        return ()
    if _SCHEME.search(text, max(slash - 40, 0), slash + 1) is None:
        return ()
    return ((slash + 1, at, "url-credentials"),)


_WORD_BACK: Final = re.compile(rb"[A-Za-z0-9_-]{1,129}")  # the word before an =, read backwards
_PASSWORD_WORD: Final = re.compile(rb"(?:^|[_-])(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key"
                                   rb"|client[_-]?secret)\Z")
_PASSWORD_ENDS: Final = (b"password", b"passwd", b"secret", b"token", b"key")  # how every _PASSWORD_WORD ends
_ENV_WORD: Final = re.compile(rb"(?=[A-Z])[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY"
                              rb"|CREDENTIALS?)[A-Z0-9_]*\Z")
_ENV_LEAD: Final = re.compile(rb"(?:^|(?<=\\[nr])|(?<=[\"\n\r]))" + _SPACE + rb"*(?:export" + _SPACE + rb"+)?\Z")
# password=..., token=... in a command, a URL's query, a config line: a value with a digit in it
_PASSWORD_VALUE: Final = _Lazy(_SPACE + rb"*(?P<q>(?:\\*[\"'])?)" + _NOT_A_VALUE
                                    + rb"(?P<s>(?=[^\s'\"&;,)<>\\\[0-9]{0,255}[0-9])(?:[^\s'\"&;,()<>$`{}\\\[]|\\+/|" + _NOT_PLACEHOLDER
                                    + rb"){6,})(?P=q)")
# NAME=value at a line's start (a .env file), NAME in capitals naming a secret: any value
_ENV_VALUE: Final = _Lazy(_SPACE + rb"*(?P<q>(?:\\*[\"'])?)" + _NOT_A_VALUE
                               + rb"(?P<s>(?:[^\s'\"\\\[]|\\+/|" + _NOT_PLACEHOLDER + rb"){4,})(?P=q)")


def _assignment(text: bytes, at: int, end: int, known: tuple[bytes, ...] = ()) -> Iterable[Candidate]:
    """``password=...`` (any case, the name ending in the word) or ``.env``'s ``NAME=...`` (a
    line's start, the name in capitals holding the word): the value is the secret."""
    j = at
    while j > 0 and at - j < 8 and text[j - 1] in b" \t":
        j -= 1
    head = text[max(j - 129, 0):j]
    # What either rule needs of the word, tested before it is read (most "=" of code and base64 are
    # no assignment of a secret): a password word ends it; a .env name holds KEY, TOKEN, SECRET,
    # PASSW(OR)D or CREDENTIAL(S), the words of _ENV_WORD.
    if not (head[-8:].lower().endswith(_PASSWORD_ENDS) or b"KEY" in head or b"TOKEN" in head or b"SECRET" in head
            or b"PASSW" in head or b"CREDENTIAL" in head):
        return ()
    word = _WORD_BACK.match(head[::-1])
    if word is None or word.end() > 128:
        return ()
    start = _name_start(text, j - word.end())
    name = text[start:j]
    lower = name.lower()
    # the word's ending first: a search of _PASSWORD_WORD tries a match at every byte of the word
    if lower.endswith(_PASSWORD_ENDS) and _PASSWORD_WORD.search(lower):
        m = _PASSWORD_VALUE.get().match(text, at + 1, end)
        if m:
            return ((m.start("s"), m.end("s"), "secret"),)
    if _ENV_WORD.match(name) and _ENV_LEAD.search(text, max(start - 40, 0), start):
        m = _ENV_VALUE.get().match(text, at + 1, end)
        if m:
            return ((m.start("s"), m.end("s"), "secret"),)
    return ()


# "password": "x" in JSON (in a line, or escaped in a JSON string), 'password': 'x' (a Python
# dict's repr), and a YAML or config line's "password: x". Prose has such a colon too ("the
# password: is required"): a YAML key is one at a line's start (blanks, a list's "- " before it),
# its value unquoted one word that ends the line and holds a digit (as password= wants), or quoted,
# or any value if the name is in capitals (DB_PASSWORD: x, as a .env line).
_YAML_LEAD: Final = re.compile(rb"(?:^|(?<=\\[nr])|(?<=[\"\n\r]))" + _SPACE + rb"*(?:-" + _SPACE + rb"+)?\Z")
_LINE_END: Final = rb"(?=\\+[nr]|[\r\n]|\\*\"|\Z)"
_YAML_VALUE: Final = _Lazy(_SPACE + rb"+" + _NOT_A_VALUE + rb"(?P<s>(?=[^\s'\"\\\[]{0,255}[0-9])[^\s'\"\\\[]{6,256})"
                                + _LINE_END)
_YAML_ENV_VALUE: Final = _Lazy(_SPACE + rb"+" + _NOT_A_VALUE + rb"(?P<s>[^\s'\"\\\[]{4,256})" + _LINE_END)
# (a bare " would be a JSON string's end)
_YAML_QUOTED: Final = _Lazy(_SPACE + rb"+(?P<q>\\+\"|')" + _NOT_A_VALUE + rb"(?P<s>[^\"'\\\[\r\n]{1,256})(?P=q)")
_BLANKS: Final = re.compile(_SPACE + rb"*")
_A_VALUE: Final = re.compile(_NOT_A_VALUE)


def _key_value(text: bytes, at: int, end: int, known: tuple[bytes, ...] = ()) -> Iterable[Candidate]:
    """At a ``:`` after a word naming a secret: a quoted key's string value, or a YAML line's."""
    if at == 0:
        return ()
    quote = text[at - 1]
    if quote in b"\"'":
        return _quoted_key_value(text, at, end, quote)
    word = _WORD_BACK.match(text[max(at - 129, 0):at][::-1])
    if word is None or word.end() > 128:
        return ()
    start = _name_start(text, at - word.end())
    name = text[start:at]
    lower = name.lower()
    if _ENV_WORD.match(name):
        value = _YAML_ENV_VALUE
    elif lower.endswith(_PASSWORD_ENDS) and _PASSWORD_WORD.search(lower):
        value = _YAML_VALUE
    else:  # most colons of code and prose: the name first, the line's start read only for a secret's name
        return ()
    if not _YAML_LEAD.search(text, max(start - 40, 0), start):
        return ()
    m = _YAML_QUOTED.get().match(text, at + 1, end) or value.get().match(text, at + 1, end)
    return ((m.start("s"), m.end("s"), "secret"),) if m else ()


def _quoted_key_value(text: bytes, at: int, end: int, quote: int) -> Iterable[Candidate]:
    """``"NAME": "value"``, its quotes bare (a JSON line) or escaped (JSON in a JSON string, once
    or twice: a tool's input streamed as JSON text), or ``'NAME': 'value'``: the value up to its
    closing quote, escaped as the key's are."""
    k = 0
    while at - 2 - k >= 0 and text[at - 2 - k] == 0x5C:
        k += 1
    if k not in (0, 1, 3) or (quote == 0x27 and k):
        return ()
    stop = at - 1 - k
    word = _WORD_BACK.match(text[max(stop - 129, 0):stop][::-1])
    if word is None or word.end() > 128:
        return ()
    start = stop - word.end()
    lead = b"\\" * k + bytes((quote,))
    if not text.startswith(lead, start - len(lead)) or (start - len(lead) > 0 and text[start - len(lead) - 1] == 0x5C):
        return ()
    lower = text[start:stop].lower()
    if not (lower.endswith(_PASSWORD_ENDS) and _PASSWORD_WORD.search(lower)):
        return ()
    i = _BLANKS.match(text, at + 1, end).end()  # type: ignore[union-attr]  # matches the empty string
    if not text.startswith(lead, i):
        return ()
    value = i + len(lead)
    j = value
    limit = min(end, value + 257 + k)
    while True:
        j = text.find(quote, j, limit)
        if j < 0:
            return ()
        n = 0
        while j - n - 1 >= value and text[j - n - 1] == 0x5C:
            n += 1
        # the quote as the key's closes the value; one escaped once more is a quote in the value;
        # one escaped less ends the string the JSON is in before the value ends
        level = n % (2 * k + 2)
        if (quote == 0x27 and n == 0) or (quote == 0x22 and level == k):
            break
        if quote == 0x22 and level != 2 * k + 1:
            return ()
        j += 1
    stop = j - k
    secret = text[value:stop]
    if not secret or b"[redacted:" in secret or _A_VALUE.match(secret) is None or (quote == 0x27 and b'"' in secret):
        return ()  # (a quote in a '...' value may end the string it is in)
    return ((value, stop, "secret"),)


# A home folder's user name: /Users/NAME/, /home/NAME/, C:\Users\NAME\ (any escaping), and the
# same in Claude Code's project folder names, -Users-NAME-... (a path with its separators made
# dashes, so a name holding a dash or dot is cut at it there unless the name was seen whole).
_NAME_CHAR: Final = rb"(?:[A-Za-z0-9._\x80-\xff-]|\\u[0-9a-fA-F]{4})"
_NAME_FIRST: Final = rb"(?:[A-Za-z0-9._\x80-\xff]|\\u[0-9a-fA-F]{4})"
_NAME_END: Final = rb"(?=\\(?!u)|[/\"'`\s),;:]|\Z)"
_SEP: Final = rb"(?:\\*/|\\+)"
_NOT_SHARED: Final = rb"(?!(?:Shared|Public|Default)" + _SEP + rb")"
# a name with single spaces in it, followed by a path separator ("John Smith/"), else the name up
# to the first separator or blank
_HOME_NAME: Final = re.compile(_SEP + _NOT_SHARED + rb"(?P<s>" + _NAME_FIRST + _NAME_CHAR + rb"{0,63}(?: "
                               + _NAME_CHAR + rb"{1,63})*(?=\\*/|\\\\|\\(?![nrtbfu]))|" + _NAME_FIRST + _NAME_CHAR + rb"{0,63}?"
                               + _NAME_END + rb")")
_FOLDER_NAME: Final = re.compile(rb"-(?P<s>(?:[A-Za-z0-9_\x80-\xff]|\\u[0-9a-fA-F]{4}){1,64}?)(?=-|[/\\\"'`\s),;:]|\Z)")
_PLACEHOLDER_END: Final = re.compile(rb":[0-9]{1,7}\]\Z")
_DRIVE: Final = _Lazy(rb"(?<![A-Za-z0-9])" + _NOT_AFTER_PLACEHOLDER + rb"[A-Za-z]:\\+\Z")


def _home(text: bytes, at: int, end: int, known: tuple[bytes, ...]) -> Iterable[Candidate]:
    """At ``Users``/``home`` after a separator: the user name after it."""
    word = 5 if text.startswith(b"Users", at) else 4
    after = at + word
    before = text[at - 1]
    out: list[Candidate] = []
    if before == 0x2D:  # "-Users-NAME-": a project folder's name, after a non-alphanumeric
        if at >= 2 and (text[at - 2:at - 1].isalnum() or _PLACEHOLDER_END.search(text, max(at - 10, 0), at - 1)):
            return ()
        m = _FOLDER_NAME.match(text, after, end)
        if m:
            out.append((*m.span("s"), "user"))
        sep = after + 1 if text.startswith(b"-", after) else -1
    else:
        if before == 0x5C and (word == 4 or _DRIVE.get().search(text, max(at - 12, 0), at) is None):
            return ()  # a backslash path is a Windows one: C:\Users\ only
        m = _HOME_NAME.match(text, after, end)
        if m:
            out.append((*m.span("s"), "user"))
        sep = out[0][0] if m else -1
    if sep >= 0:  # a user name seen before, with its dashes, dots or blanks: whole
        found = out[0][1] - sep if out else 0  # a name no longer than the one found there changes nothing (within it)
        for name in known:  # (longest first)
            if len(name) <= found:
                break
            stop = sep + len(name)
            if text.startswith(name, sep) and (stop >= end or text[stop] in _AFTER_NAME):
                out.append((sep, stop, "user"))
                break
    return out


_AFTER_NAME: Final = frozenset(b"-/\\\"'` \t\r\n),;:")


Matcher = Row  # what an anchor runs: its one row, or its rows in turn


def _rows(*rows: Row) -> Matcher:
    if len(rows) == 1:
        return rows[0]

    def run(text: bytes, at: int, end: int, known: tuple[bytes, ...]) -> Iterable[Candidate]:
        return [c for row in rows for c in row(text, at, end, known)]
    return run


def _home_or_hook(text: bytes, at: int, end: int, known: tuple[bytes, ...]) -> Iterable[Candidate]:
    """At an ``h``: a home folder (``/home/NAME``) or a Slack webhook's path."""
    if text.startswith(b"hooks", at):
        m = _SLACK_HOOK.get().match(text, at, end)
        return ((m.start(), m.end(), "slack-token"),) if m else ()
    return _home(text, at, end, known)


def _left(n: int, chars: bytes = rb"A-Za-z0-9+_-") -> bytes:
    """The token boundary, checked after an anchor's first ``n`` bytes (a look-behind is of fixed
    width): no token character before the anchor, unless it is an escape's letter."""
    dots = b"." * n
    return rb"(?:(?<![" + chars + rb"]" + dots + rb")|(?<=\\[nrtbf]" + dots + rb"))"


# the words an assignment's name ends in (``_PASSWORD_WORD``'s, ``api[_-]?key`` spelt out: a
# look-behind is of fixed width; a bare ``key=``, as JSX's ``key={i}``, names no secret)
_KEYWORDS: Final = (b"password", b"passwd", b"secret", b"token", b"api_key", b"api-key", b"apikey", b"access_key",
                    b"access-key", b"accesskey")
# A colon after a name ending as a secret's word does (password, passwd, secret, token, key: their
# last two letters), bare or after its quote. A colon is in every JSON key, so the gate turns most
# colons away at the fewest look-behinds (each is a cost per colon) and the row reads the name:
# first one look-behind of byte classes (the two letters, or a letter or backslash and a
# backslash, and the quote), which every key ending otherwise fails, only then the letters
# case-blind. (The four forms tried whole cost a third more; a first test of the byte before the
# colon alone let every JSON key through to three more.)
_COLON_END: Final = rb"(?i:[rw]d|e[tny])"


def _colon_form(quote: bytes) -> bytes:
    return rb"(?<=%s%s:)" % (_COLON_END, quote)


_COLON_GATE: Final = (rb"(?<=[rwRWeE][dDtTnNyY]:)" + _colon_form(b"")
                      + rb"|(?<=[rwRWeEdDtTnNyY\\][dDtTnNyY\\][\"']:)(?:" + _colon_form(b"[\"']")
                      + rb"|(?<=\\\":)(?:" + _colon_form(rb'\\"') + b"|" + _colon_form(rb'\\\\\\"') + b"))")


def _eq_gate(blank: bytes) -> bytes:
    """An ``=`` (``blank`` before it) after a secret's word, any case, or after three capitals,
    digits or ``_`` (a ``.env`` name's end: TOKEN is its shortest word). Most ``=`` of code are turned
    away by one look-behind of the byte before (a word's last letter, or a capital's); only then
    the words that end in that letter."""
    by_end: dict[bytes, list[bytes]] = {}
    for word in _KEYWORDS:
        by_end.setdefault(word[-1:], []).append(word)
    words = b"|".join(rb"(?<=[%s%s]%s=)(?:%s)" % (end, end.upper(), blank,
                                                    b"|".join(rb"(?<=(?i:%s)%s=)" % (w, blank) for w in ws))
                      for end, ws in by_end.items())
    return rb"(?<=[A-Z0-9_%s]%s=)(?:(?<=[A-Z0-9_]{3}%s=)|%s)" % (b"".join(by_end), blank, blank, words)


_EQ_GATE: Final = _eq_gate(b"") + b"|" + _eq_gate(rb"[ \t]")
_GITLAB_HEADS: Final = (b"pat", b"ptt", b"dt", b"rt", b"soat", b"cbt", b"imt", b"oas")

# The gate's alternatives (anchor) and the rows each runs. Every alternative starts with a literal
# byte of its own, so the gate scans by a byte set and a hit is dispatched by its first byte; the
# look-arounds keep dense look-alikes ("AKIAAKIA...", "/homebrew") from being anchors at all.
# Cost (callgrind, real captures): the byte-set scan is most of the gate, and each start at a byte
# of the set (one in 18 bytes of the captures) runs that byte's alternative. So an alternative tests its
# literal bytes before any look-around (a look-around is a jump of Python's matcher, a literal
# one compare). It consumes what the plain form (look-arounds first) consumed, but for "home" and
# "Users", whose letters past the first are no byte of the set: the anchors found are the plain
# form's (tests/unit/test_redaction_properties.py holds the gate to it).
ANCHORS: Final[list[tuple[bytes, Matcher]]] = [
    (rb"B(?:EGIN(?<=-----BEGIN)|(?i:earer)" + _SPACE + rb")",
     _rows(_private_key, _regex_row("secret", _BEARER, 0))),
    (rb"b(?i:earer)" + _SPACE, _rows(_regex_row("secret", _BEARER, 0))),
    (rb"k[-_](?<=[sr]k[-_])" + _left(3),
     _rows(_regex_row("anthropic-key", _ANTHROPIC, 1), _regex_row("openai-key", _OPENAI, 1),
           _regex_row("stripe-key", _STRIPE, 1))),
    (rb"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9]|Iza)" + _left(4, rb"A-Za-z0-9+"),
     _rows(_regex_row("aws-key", _AWS, 0), _regex_row("google-key", _AIZA, 0))),
    (rb"g(?:h[pousr]_" + _left(4) + rb"|ithub_pat_" + _left(11)
     + b"".join(rb"|l" + head + b"-" + _left(len(head) + 3) for head in _GITLAB_HEADS) + rb")",
     _rows(_regex_row("github-token", _GITHUB, 0), _regex_row("gitlab-token", _GITLAB, 0))),
    (rb"xox[abposre]-" + _left(5), _rows(_regex_row("slack-token", _SLACK, 0))),
    (rb"GOCSPX-" + _left(7), _rows(_regex_row("google-key", _GOCSPX, 0))),
    (rb"9\.(?<=ya29\.)", _rows(_regex_row("google-key", _YA29, 3))),
    (rb"whsec_" + _left(6), _rows(_regex_row("stripe-key", _WHSEC, 0))),
    (rb"J(?<=eyJ)" + _left(3), _rows(_regex_row("jwt", _JWT, 2))),
    (rb"@(?<![\s/?#@\"'<>\[\]\\]@)(?=[A-Za-z0-9-])", _at),  # after what an e-mail's or a password's last byte can be
    (rb"=(?:" + _EQ_GATE + rb")", _rows(_assignment)),
    (rb":(?:" + _COLON_GATE + rb")", _rows(_key_value)),
    (rb"Users(?<=[/\\-]Users)", _home),
    (rb"h(?:ome(?<=[/\\-]home)|ooks\.slack\.com)", _home_or_hook),
]
_GATE: Final = re.compile(b"|".join(a for a, _ in ANCHORS))
_BY_BYTE: Final[dict[int, Matcher]] = {anchor[0]: matcher for anchor, matcher in ANCHORS}
assert len(_BY_BYTE) == len(ANCHORS), "every anchor starts with a byte of its own"


def anchored(text: bytes, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` holds an anchor: the start of a possible secret."""
    return _GATE.search(text, start, end) is not None


def scan(text: bytes, start: int = 0, end: int | None = None, known: tuple[bytes, ...] = ()) -> list[Candidate]:
    """Every candidate whose anchor is in ``text[start:end]`` (the text before ``start`` is read as
    context), in anchor order. ``known``: user names seen before, longest first, in the forms
    they take in paths (``john.doe``) and project folder names (``john-doe``)."""
    stop = len(text) if end is None else end
    lo = max(start - 2 * BACK, 0)  # the context any matcher reads
    if _ASCII_ESCAPE_END.search(text, lo, stop):
        return _scan_decoded(text, lo, start, stop, known)
    return _scan(text, start, stop, known)


# A \u escape of a printable ASCII character, at any depth of escaping (a run of backslashes).
# JSON may write any character so, and "\u0041KIA..." is an AWS key: the rules read such text with
# these escapes decoded. A quote or backslash is read as a blank: decoded it would change what is a
# string or an escape, and as a blank it still ends a token ("\u0022AKIA...\u0022").
_ASCII_ESCAPE: Final = re.compile(rb"\\+u00(?:[2-6][0-9a-fA-F]|7[0-9a-eA-E])")
_ASCII_ESCAPE_END: Final = re.compile(_ASCII_ESCAPE.pattern[:2] + _ASCII_ESCAPE.pattern[3:])  # its last backslash on: a faster search
_DECODED: Final = {b"%02x" % c: bytes((c,)) for c in range(0x20, 0x7F)} | {b"22": b" ", b"5c": b" "}


def _decoded(escape: bytes) -> bytes:
    return _DECODED[escape[-2:].lower()]


def _escaped_backslashes(escape: bytes) -> int:
    """How many of the backslashes before a ``u00XX`` are escaped backslashes, not the escape's
    own: the escape has as many as the depth it is at needs (1, 2, 4 ...), the largest power of
    two that divides the run (``\\\\\\u006e``: an escaped backslash, then ``\\u006e``)."""
    n = len(escape) - 5
    return n - (n & -n)


def _scan_decoded(text: bytes, lo: int, start: int, stop: int, known: tuple[bytes, ...]) -> list[Candidate]:
    """``scan`` of ``text[lo:stop]`` with its ASCII escapes decoded, the candidates' places mapped
    back: a candidate that takes a decoded character takes its whole escape."""
    parts: list[bytes] = []
    view_at: list[int] = []  # where each decoded character is in the decoded text
    shift: list[int] = [0]  # the bytes the first i escapes lost in decoding
    raw_end: list[int] = []  # where each escape ends in the text
    at = lo
    for m in _ASCII_ESCAPE.finditer(text, lo, stop):
        begin = m.start() + _escaped_backslashes(m[0])
        parts.append(text[at:begin])
        parts.append(_decoded(m[0]))
        view_at.append(begin - lo - shift[-1])
        shift.append(shift[-1] + m.end() - begin - 1)
        raw_end.append(m.end())
        at = m.end()
    parts.append(text[at:stop])
    view = b"".join(parts)
    i = bisect.bisect_right(raw_end, start)  # the escapes wholly before start
    first = start - lo - shift[i]
    if i < len(view_at) and first > view_at[i]:  # start is inside an escape: from its character
        first = view_at[i]

    def raw(p: int) -> int:
        return lo + p + shift[bisect.bisect_left(view_at, p)]
    return [(raw(s), raw(e), kind) for s, e, kind in _scan(view, first, len(view), known)]


def plain_ascii(secret: bytes) -> bytes:
    """``secret`` with its ASCII escapes (but a quote's or backslash's) decoded."""
    def one(m: re.Match[bytes]) -> bytes:
        keep = _escaped_backslashes(m[0])
        return m[0] if m[0][-2:].lower() in (b"22", b"5c") else m[0][:keep] + _decoded(m[0])
    return _ASCII_ESCAPE.sub(one, secret) if b"\\u00" in secret else secret


def anchors(text: bytes) -> list[int]:
    """Where the gate finds an anchor in ``text``. In a block of lines, each of them opening a
    JSON object (``{``), a line's anchors are those the gate finds in the line alone: no anchor
    holds a newline, and no look-around of one tells a newline before it from the line's start
    (but the ``@``'s, which no ``{`` comes into)."""
    return list(map(_START, _GATE.finditer(text)))


def escapes(text: bytes) -> list[int]:
    """Where ``text`` has a ``\\u`` escape of printable ASCII (a line with one is scanned with
    them decoded: ``scan``)."""
    return list(map(_START, _ASCII_ESCAPE_END.finditer(text)))


def scan_anchored(text: bytes, at: Iterable[int], known: tuple[bytes, ...] = ()) -> list[Candidate]:
    """``scan(text)`` given where its anchors are (``anchors``, found in a block of lines), for a
    text with no ``\\u`` escape of printable ASCII (``escapes``)."""
    return _rows_at(text, at, len(text), known)


_START: Final = re.Match.start


def _scan(text: bytes, start: int, stop: int, known: tuple[bytes, ...]) -> list[Candidate]:
    return _rows_at(text, map(_START, _GATE.finditer(text, start, stop)), stop, known)


def _rows_at(text: bytes, anchored_at: Iterable[int], stop: int, known: tuple[bytes, ...]) -> list[Candidate]:
    """The rows of each anchor, in order."""
    out: list[Candidate] = []
    covered: dict[Matcher, int] = {}  # a row's candidate ends here: its anchors before are its own (a key's body, a value's "=")
    for at in anchored_at:
        matcher = _BY_BYTE[text[at]]
        if covered and at < covered.get(matcher, -1):
            continue
        for s, e, kind in matcher(text, at, stop, known):
            if text.find(b"\\", s - 6 if s > 6 else 0, e) >= 0:  # an escape near: whole escapes only
                s, e = _whole_escapes(text, s, e)
            if s < e:
                out.append((s, e, kind))
                if e > covered.get(matcher, -1):
                    covered[matcher] = e
    return out


def _whole_escapes(text: bytes, start: int, end: int) -> tuple[int, int]:
    """A span that starts or ends inside an escape shrinks to whole escapes (``\\n``, ``\\"``,
    ``\\u00e9``): the text around a placeholder stays well-formed JSON string content."""
    start = _past_escape(text, start)
    for j in range(end - 1, max(start, end - 6) - 1, -1):
        width = _escape_at(text, j)
        if width:
            if j + width > end:
                end = j
            break
    return start, end


def _escape_at(text: bytes, i: int) -> int:
    """The width of the JSON escape starting at ``text[i]`` (2, or 6 for ``\\uXXXX``), else 0."""
    if text[i] != 0x5C or i + 1 >= len(text) or _escaped(text, i):
        return 0
    letter = text[i + 1]
    return 6 if letter == 0x75 else 2 if letter in _ESCAPE_LETTERS else 0


_ESCAPE_LETTERS: Final = frozenset(b'"\\/bfnrt')


_ID_KEY: Final = _Lazy(rb"(?:id|Id|ID|uuid|UUID|.*[_-]id|.*[a-z]Id|.*[a-z]ID|.*[Uu]uid|.*UUID|signature"
                            rb"|.*[Hh]ash|sha\d*|etag|checksum|digest|fingerprint|nonce)\Z")


def in_id_value(text: bytes, at: int) -> bool:
    """Whether ``at`` is inside the string value of an id-like key (``"id": "..."``, ``uuid``,
    ``*_id``, ``signature``, ``hash`` ...): ``IdValues`` asked once."""
    return IdValues(text)(at)


class IdValues:
    """Whether places of one text are inside the string value of an id-like key, read back from
    each: the last unescaped quote opens the string (true of any place inside a string of a JSON
    line), and a key and a colon come before it. Asked in increasing order (as candidates come),
    the places cost one reading of the text in all, however many escaped quotes it holds."""

    __slots__ = ("quote", "text", "upto")

    def __init__(self, text: bytes) -> None:
        self.text, self.upto, self.quote = text, 0, -1  # the last unescaped quote before upto

    def __call__(self, at: int) -> bool:
        text = self.text
        q = self._last_quote(at)
        if q < 0:
            return False
        j = q - 1
        while j >= 0 and text[j] in b" \t":
            j -= 1
        if j < 0 or text[j] != 0x3A:  # ':'
            return False
        j -= 1
        while j >= 0 and text[j] in b" \t":
            j -= 1
        if j < 0 or text[j] != 0x22 or _escaped(text, j):
            return False
        k = _last_quote(text, j)
        return k >= 0 and _ID_KEY.get().match(text, k + 1, j) is not None

    def _last_quote(self, at: int) -> int:
        if at < self.upto:  # behind the last place asked: from the last quote known, if it is before
            return self.quote if self.quote < at else _last_quote(self.text, at)
        q = self.text.rfind(b'"', self.upto, at)
        while q >= self.upto and _escaped(self.text, q):
            q = self.text.rfind(b'"', self.upto, q)
        if q >= self.upto:
            self.quote = q
        self.upto = at
        return self.quote


def _last_quote(text: bytes, before: int) -> int:
    q = text.rfind(b'"', 0, before)
    while q > 0 and _escaped(text, q):
        q = text.rfind(b'"', 0, q)
    return q


# Which of two overlapping candidates of the same length wins: the kind listed first.
KIND_ORDER: Final = {kind: i for i, kind in enumerate(
    ("private-key", "anthropic-key", "openai-key", "aws-key", "github-token", "gitlab-token", "slack-token",
     "google-key", "stripe-key", "jwt", "secret", "url-credentials", "email", "user", "host", "word"))}


def choose(candidates: Collection[Candidate]) -> list[Candidate]:
    """The spans replaced, in text order: candidates that overlap are replaced as one (so no part
    of one is left to be found in the redacted text), of the kind of the longest (then the kind
    listed first: a token inside URL credentials goes with them)."""
    if len(candidates) < 2:
        return list(candidates)
    out: list[Candidate] = []
    group: list[Candidate] = []
    end = -1
    for c in sorted(set(candidates)):
        if group and c[0] >= end:
            out.append(_one(group, end))
            group = []
        group.append(c)
        end = max(end, c[1]) if len(group) > 1 else c[1]
    out.append(_one(group, end))
    return out


def _one(group: list[Candidate], end: int) -> Candidate:
    if len(group) == 1:
        return group[0]
    best = min(group, key=lambda c: (c[0] - c[1], KIND_ORDER[c[2]]))
    return group[0][0], end, best[2]
