"""redact_words: a name once found is redacted wherever it stands as a word.

The rules (``redact_rules``) find a user name where its context says it is one: after ``/home/``
or ``/Users/``, in a project folder's name, a ``cwd``. The same name then stands elsewhere too:
``.../users/NAME/...``, an ``ls -l`` listing's owner columns, a repository's name, a prompt's
``NAME@HOST``. :class:`Words` holds the values found (user names, host names, e-mail addresses)
and the words the user adds (a company, a project, a client: kind ``word``), and finds them as
words in any text, so that the redactor replaces them there with the same placeholder.

What a word is, so that short or common names never shred the text:

- a found name counts only with at least ``MIN_FOUND`` characters, a letter among them, and not
  one of ``COMMON`` (system and CI accounts, generic host names, everyday words a user name can
  be: ``dev``, ``test``, ``user``, ``admin``, ``ubuntu`` ...); such a name is still replaced where
  the rules find it (``/home/dev/``), only not everywhere;
- a word of the user's own counts with at least ``MIN_OWN`` characters, whatever it is (they
  asked for it);
- it is no JSON structure: not a whole object key, nor the whole value of a key that says what a
  record is (``"type": "user"`` stays, whatever word the user gave);
- it matches whole, any case (``Jane`` is ``jane``'s): no letter or digit just before or after it
  (``janet`` holds no ``jane``; ``jane-doe``, ``jane_notes`` and ``\\njane`` do), and never inside
  a placeholder (``[redacted:user:1]`` holds no ``user``).

Must not: import the package beyond ``redact_rules``; keep anything but the values and their
compiled search.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Final

from .redact_rules import Candidate

MIN_FOUND: Final = 3
MIN_OWN: Final = 2
MAX_WORD: Final = 128
COMMON: Final = frozenset(["root", "admin", "administrator", "user", "users", "usr", "home", "guest", "test", "tests", "tester", "testing", "dev", "devel", "develop", "developer", "demo", "default", "public", "shared", "nobody", "daemon", "system", "sys", "ubuntu", "debian", "fedora", "centos", "alpine", "arch", "kali", "pi", "ec2-user", "runner", "runneradmin", "vagrant", "node", "app", "apps", "www", "www-data", "web", "git", "svc", "service", "build", "builder", "ci", "jenkins", "gitlab-runner", "circleci", "travis", "docker", "postgres", "mysql", "redis", "vscode", "codespace", "codespaces", "coder", "workspace", "workspaces", "work", "project", "projects", "code", "src", "source", "data", "tmp", "temp", "me", "you", "someone", "name", "username", "localhost", "local", "host", "hostname", "machine", "laptop", "desktop", "computer", "server", "claude", "agent", "anthropic", "example", "sample", "foo", "bar", "baz", "main", "master", "repo", "null", "none", "true", "false", "undefined", "bin", "lib", "var", "etc", "opt", "mnt", "media", "documents", "downloads", "library", "applications", "staff", "wheel", "sudo", "max", "min", "new", "old", "run", "out", "log", "cli", "api", "linux", "mac", "macbook", "imac", "pc", "win", "windows", "redacted", "secret", "token", "key", "email", "word", "the", "and", "for"])
_WORD_CHAR: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_PLACEHOLDER: Final = re.compile(rb"\[redacted:[a-z-]{1,20}:[0-9]{1,7}\]")


def eligible(value: str, own: bool = False) -> bool:
    """Whether ``value`` is redacted wherever it is a word (``own``: a word the user gave)."""
    v = value.strip()
    if len(v) > MAX_WORD or "\n" in v:
        return False
    if own:
        return len(v) >= MIN_OWN
    return len(v) >= MIN_FOUND and any(c.isalpha() for c in v) and v.casefold() not in COMMON


class Words:
    """The values redacted as words: their forms (as written, JSON-escaped) -> (kind, value)."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values: dict[bytes, tuple[str, str]] = {}  # a form, lower case -> (kind, the value)

    def __bool__(self) -> bool:
        return bool(self.values)

    def add(self, kind: str, value: str, own: bool = False) -> bool:
        """``value`` of ``kind`` redacted as a word from now on; False if it is no word (too
        short, common) or known already."""
        value = value.strip()
        if not eligible(value, own):
            return False
        forms = {value.encode("utf-8", "surrogateescape"), json.dumps(value)[1:-1].encode()}
        new = False
        for form in forms:
            key = form.lower()
            if key not in self.values:
                self.values[key] = (kind, value)
                new = True
        return new

    def value_of(self, written: bytes) -> tuple[str, str] | None:
        """The (kind, value) a word as written in a text stands for."""
        return self.values.get(written.lower())

    def hits(self, text: bytes, start: int = 0, end: int | None = None, since: int = 0) -> list[Candidate]:
        """Every place in ``text[start:end]`` a value stands as a word, in order, none
        overlapping (the longer first where two start at one place). The text is folded once
        (``bytes.lower``: ASCII letters, as a bytes pattern's IGNORECASE folds them) and each
        value's forms found with ``bytes.find``: a few passes at memory speed, where one
        case-blind alternation tried every position of the text. ``since``: only the forms
        added after the first ``since`` (where a word just learnt stands, without looking again
        for every one known before it)."""
        if len(self.values) <= since:
            return []
        stop = len(text) if end is None else end
        low = text[start:stop].lower()
        found: list[Candidate] = []
        forms = self.values.items() if not since else itertools.islice(self.values.items(), since, None)
        for form, (kind, _) in forms:
            at = low.find(form)
            while at >= 0:
                s, e = start + at, start + at + len(form)
                if not ((s > 0 and text[s - 1] in _WORD_CHAR and not _after_escape(text, s))
                        or (e < len(text) and text[e] in _WORD_CHAR)
                        or _in_placeholder(text, s, e) or _structural(text, s, e)):
                    found.append((s, e, kind))
                at = low.find(form, at + 1)
        if len(found) < 2:
            return found
        found.sort(key=_longest_first)
        out: list[Candidate] = []
        reached = -1
        for c in found:
            if c[0] >= reached:
                out.append(c)
                reached = c[1]
        return out


def _longest_first(c: Candidate) -> tuple[int, int]:
    return (c[0], -c[1])


def _after_escape(text: bytes, at: int) -> bool:
    """``text[at - 1]`` is an escape's letter (``\\njane``): no word character before the word."""
    if at < 2 or text[at - 2] != 0x5C or text[at - 1] not in b"nrtbf":
        return False
    n = 0
    while at - 2 - n >= 0 and text[at - 2 - n] == 0x5C:
        n += 1
    return n % 2 == 1


def _in_placeholder(text: bytes, start: int, end: int) -> bool:
    at = text.rfind(b"[redacted:", max(start - 40, 0), start + 1)
    if at < 0:
        return False
    m = _PLACEHOLDER.match(text, at)
    return m is not None and m.end() >= end


_STRUCTURAL: Final = re.compile(rb'"(?:type|subtype|role|kind|event|stop_reason|level|status)" ?: ?"\Z')


def _structural(text: bytes, start: int, end: int) -> bool:
    """A whole JSON object key, or the whole value of a key naming what a record is."""
    if start == 0 or text[start - 1] != 0x22 or text[end:end + 1] != b'"':
        return False
    if text.startswith(b":", end + 1) or text.startswith(b" :", end + 1):
        return True
    return _STRUCTURAL.search(text, max(start - 24, 0), start) is not None
