"""verdict: the lines and files of an input that every command calls unreadable, found without
translating it.

``redact`` reads an input as text and writes it back; it never translates it. To say of the same
input what ``translate`` says (each unreadable line as ``FILE:LINE: message``, a broken sub-agent
meta file, and exit 1: the README's exit-code table holds for every command), it asks here. The
verdict is the translators' own: a line of a JSON-lines format (stream-json, session transcripts)
is unreadable exactly when ``wire.decode_line`` makes it an error frame, with that message; an
Arbiter SSE stream's errors are those its translator reports; a meta file is reported exactly when
``multifile`` reads it and cannot (``meta_errors``; a folder's or session's files are checked by
``multifile.files_problems``). Most lines are settled by msgspec's validating skip of a
JSON object (a few ms per 10 MB; ``types``: a batch in one call, each line's ``type`` read with it);
only the rest are decoded as the translator would, with the translators' own readers
(``Readers``: an SSE translator, ``wire.decode_line``), which the caller gives: ``redact`` of one
stream-json input loads neither (the dispatcher imports them when a line asks for them).

Must not: print, decide exit codes (``cli`` does), or keep more than an SSE event's lines.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import msgspec

from .formats import Sniffer

if TYPE_CHECKING:
    from .formats.sse import FleetTranslator
    from .wire import Frame

_skip: Final = msgspec.json.Decoder(msgspec.Raw)
Problems = list[tuple[int, str]]  # (line, message)
_NONE: Final[Problems] = []  # returned, never changed


class _Typed(msgspec.Struct):
    type: Any = None


_typed: Final = msgspec.json.Decoder(_Typed)  # an object's type (the rest checked as _skip checks it)
_TYPE: Final = operator.attrgetter("type")


class Readers(NamedTuple):
    """The translators' own readers, for the lines msgspec's skip does not settle: an Arbiter SSE
    stream's translator (its errors are the verdict), and ``wire.decode_line`` (a line that is no
    JSON object: its error frame's message)."""

    sse: Callable[[], FleetTranslator]
    decode_line: Callable[[bytes, int], Frame]


class LineCheck:
    """The unreadable lines of one input, fed a line at a time (its format sniffed from its first
    lines as the translators sniff it, unless given), the rare line the quick look cannot settle
    read by ``readers``."""

    def __init__(self, fmt: str | None = None, *, readers: Readers) -> None:
        self.format = fmt
        self._readers = readers
        self._sniffer = Sniffer()
        self._held: list[tuple[bytes, int]] = []  # lines before the format is known
        self._sse: FleetTranslator | None = None
        self._lines = fmt is not None and fmt != "sse"  # a JSON-lines format: each line on its own
        self.count = 0  # unreadable lines found

    def feed(self, line: bytes, number: int) -> Problems:
        if self._lines and line[:1] == b"{":  # the common case, first: a JSON object that is one
            try:
                _skip.decode(line)
                return _NONE
            except (msgspec.DecodeError, RecursionError):
                pass
        if self.format is None:
            self._held.append((line, number))
            found = self._sniffer.feed(line)
            if found is None:
                return []
            return self._start(found)
        return self._check(line, number)

    def types(self, lines: list[bytes]) -> list[Any] | None:
        """Each line's top-level ``type``, when ``feed`` would find nothing in any of ``lines`` and
        keep none (each a JSON object of the JSON-lines format known: a batch checked in one call,
        the common case); else None."""
        if not self._lines:
            return None
        try:
            return list(map(_TYPE, map(_typed.decode, lines)))
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeError):  # said by feed
            return None

    def finish(self) -> Problems:
        out = self._start("stream-json") if self.format is None else []
        if self._sse is not None:
            before = len(self._sse.errors)
            self._sse.finish()
            ended = self._sse.errors[before:]
            self.count += len(ended)
            out += ended
        return out

    def _start(self, fmt: str) -> Problems:
        self.format = fmt
        self._lines = fmt != "sse"
        held, self._held = self._held, []
        return [p for line, number in held for p in self._check(line, number)]

    def _check(self, line: bytes, number: int) -> Problems:
        if self.format == "sse":
            if self._sse is None:
                self._sse = self._readers.sse()
            before = len(self._sse.errors)
            self._sse.feed_line(line)
            found = self._sse.errors[before:]
        elif _fits(line):
            return []
        else:
            frame = self._readers.decode_line(line, number)  # a line that is no JSON object: rare
            found = [(number, frame.error or "unreadable line")] if frame.kind == "error" else []
        self.count += len(found)
        return found


def _fits(line: bytes) -> bool:
    """A JSON object, checked by msgspec's validating skip (the common case, and the cheap one)."""
    start = line.lstrip()[:1]
    if start != b"{":
        return not start  # a blank line is no error
    try:
        _skip.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return False
    return True
