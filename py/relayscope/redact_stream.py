"""redact_stream: a streamed field redacted whole, its placeholders cut back into its pieces.

A model streams its text a few characters a delta, a tool's input as fragments of JSON; Arbiter
streams an agent's text as ``text`` events. A key it writes arrives in pieces no rule matches
alone, and other lines (a sub-agent's records, another stream's events) may come between two
pieces. :class:`Streams` joins each field's pieces (their raw, JSON-escaped text) and redacts the
joined text as one; it holds the lines from a field's first unsettled piece on, and writes every
line in the order it came. The first piece a secret touches carries its placeholder, the others
lose their part of it: joined, the pieces are the redacted whole, which is what the final message
carries (its text redacted as one string), so de-dup decisions stay the same.

The fields (``_classify``), each identified by the block it streams into:

==========================  ==================================  =====================================
field                       block                               ended by
==========================  ==================================  =====================================
stream-json ``text_delta``  (lane, index)                       its ``content_block_stop``; every
``.text``, ``thinking_                                          block of the lane at ``message_start``,
delta.thinking``, ``input_                                      ``message_delta``, ``message_stop``
json_delta.partial_json``
Arbiter SSE ``text`` event  its ``stream_id``                   ``stream_end`` of that stream;
``delta``                                                       ``done`` / ``request_received`` (all)
a relay export's partial    (lane, message, index, type)        any other relay of its lane
``text_delta`` /
``thinking_delta``
==========================  ==================================  =====================================

and every field at the end of the input.

When a piece can be written (the text around it is *settled*): once its field has ``WINDOW``
bytes more, or has ended. ``redact_rules`` bounds how far a matcher reads around its anchor
(``BACK``, ``AHEAD`` < ``WINDOW``), so a candidate that ends ``WINDOW`` bytes before the end of
the text so far is the one the whole text has; a candidate still open there (a key whose run
goes on to the end) holds back the settle point to its start. A field is scanned again when its
unsettled text has doubled, so a field is read a bounded number of times per byte: linear time.

Memory: per open field its unsettled tail (about ``2 * WINDOW``, more while one candidate keeps
growing) and the lines held behind its oldest piece. Bounded: past ``hold_bytes`` held (a field
left open while other lines pile up: an agent silent mid-sentence while its sub-agents work) or
``MAX_OPEN`` bytes of one open candidate, the oldest field is *cut*: settled as it stands, a
possible secret at its end redacted from its anchor on, and a candidate that later turns out to
run across the cut is removed from the text after it (replaced again if nothing at the cut was).
Real streams close their blocks long before either bound.

Must not: reorder, drop or add a line, change anything of a line but secrets, or import the
package (beyond ``redact_rules``); numbering and findings are the caller's (``Sink``).
"""

from __future__ import annotations

import bisect
import itertools
import json
import operator
import re
from collections import deque
from typing import Any, Final, Protocol

import msgspec

from .redact_rules import AHEAD, BACK, RESCAN, Candidate, anchored, choose, scan

WINDOW: Final = 2048  # settled: this far before the end of a field's text so far (> BACK, AHEAD)
CONTEXT: Final = 2048  # kept before the settle point: what matchers read back (> BACK)
HOLD_BYTES: Final = 8 << 20  # lines held behind one open field, at most
MAX_OPEN: Final = 1 << 20  # one field's unsettled text, at most
assert max(BACK, AHEAD) < WINDOW and BACK + RESCAN < CONTEXT


class Sink(Protocol):
    """What streaming needs of the redactor: placeholders, known user names, a line redacted."""

    known: tuple[bytes, ...]
    words: Any  # redact_words.Words: the values redacted wherever they are a word

    def place(self, kind: str, secret: bytes, line: int) -> bytes: ...

    def redact_line(self, raw: bytes, number: int, hole: tuple[int, int] | None = None,
                    fill: bytes = b"", found: bool = True, anchored_at: list[int] | None = None) -> bytes: ...


class _Field:
    """One streamed field. Positions are in its text with a quote before it (``"`` + the pieces):
    the opening quote of the string the final message has, which rules read as the text's start."""

    __slots__ = ("base", "buf", "carry", "cut", "ended", "key", "next_scan", "settled", "size", "spans", "waiting")

    def __init__(self, key: tuple[Any, ...]) -> None:
        self.key = key
        self.buf = bytearray(b'"')  # the text from ``base`` on
        self.base = 0
        self.size = 1  # the text so far (with the quote)
        self.settled = 1  # the text before this is final
        self.spans: deque[tuple[int, int, str, bool]] = deque()  # final: start, end, kind, placed
        self.next_scan = 1 + 2 * WINDOW
        self.cut = 0  # the last forced cut
        self.carry = False  # a secret ran to that cut: what follows of it is removed, not replaced again
        self.ended = False
        self.waiting = 1  # the first piece not yet written starts here: the buffer keeps it

    def add(self, text: bytes) -> tuple[int, int]:
        self.buf += text
        start = self.size
        self.size += len(text)
        return start, self.size

    def take(self, lo: int, hi: int, sink: Sink, line: int) -> bytes:
        """A settled piece's text, redacted: the placeholder of a secret that starts in it, none
        of a secret's text."""
        buf, base, at = self.buf, self.base, lo
        out: list[bytes | bytearray] = []
        spans = self.spans
        while spans and spans[0][1] <= lo:
            spans.popleft()
        for s, e, kind, placed in spans:
            if s >= hi:
                break
            out.append(buf[at - base:max(s, lo) - base])
            if s >= lo and placed:
                out.append(sink.place(kind, bytes(buf[s - base:e - base]), line))
            at = max(at, min(e, hi))
        out.append(buf[at - base:hi - base])
        while spans and spans[0][1] <= hi:
            spans.popleft()
        self.waiting = hi
        self._trim()
        return b"".join(out)

    def _trim(self) -> None:
        keep = min(self.waiting, self.settled - CONTEXT, self.spans[0][0] if self.spans else self.waiting)
        if keep - self.base > 1 << 16:
            del self.buf[:keep - self.base]
            self.base = keep

    def settle(self, known: tuple[bytes, ...], final: bool = False, forced: bool = False, words: Any = None) -> None:
        """Scan the unsettled text: the candidates now final become spans, the settle point moves
        (to the end when the field ended, or is cut)."""
        text = bytes(self.buf) + (b'"' if final else b"")  # the closing quote, as the message has it
        base, size, settled = self.base, self.size, self.settled
        back = CONTEXT if self.cut == settled and not self.carry else RESCAN  # just cut: look across it
        found = [(s + base, min(e + base, size), k) for s, e, k in
                 scan(text, max(settled - back - base, 0), len(text), known)
                 + (words.hits(text, max(settled - back - base, 0), len(text)) if words else [])]
        carried = None
        if self.carry and self.cut == settled:  # the rest of a secret cut at the last forced cut
            end = settled
            while end < size and text[end - base] not in _WORD_END:
                end += 1
            carried = (settled, end)
        if final or forced:
            point = size
        else:
            point = size - WINDOW
            moved = True
            while moved:
                moved = False
                for s, e in [(s, e) for s, e, _ in found] + ([carried] if carried else []):
                    if s < point < e or (carried == (s, e) and e == size and point > s):
                        point, moved = s, True
        point = max(point, settled)
        spans: list[tuple[int, int, str, bool]] = []
        if carried is not None and carried[1] <= point:
            spans.append((carried[0], carried[1], "secret", False))
            found = [c for c in found if c[0] >= carried[1]]
        if forced:
            found += self._open_end(text, base)
        for s, e, k in choose([c for c in found if c[1] <= point and (c[0] >= settled or c[0] < self.cut < c[1])]):
            if s < settled:  # ran across a forced cut: what is after it goes, replaced once
                spans.append((self.cut, e, k, True))
            else:
                spans.append((s, e, k, True))
        spans.sort()
        self.spans.extend(spans)
        if forced:
            self.cut = point
            self.carry = any(e == point for _, e, _, _ in spans)
        self.settled = point
        self.next_scan = size + max(WINDOW, size - point)

    def _open_end(self, text: bytes, base: int) -> list[Candidate]:
        """At a forced cut: a possible secret at the end of the text (an anchor in its last
        word with no candidate reaching the end), redacted from its word's start."""
        tail = len(text)
        start = tail
        while start > max(self.settled - base, 0) and tail - start < BACK and text[start - 1] not in _WORD_END:
            start -= 1
        if start < tail and anchored(text, start, tail):
            return [(start + base, tail + base, "secret")]
        return []

    def unsettled(self) -> int:
        return self.size - self.settled


_WORD_END: Final = frozenset(b" \t\r\n\"'<>")


class _Held:
    """A line held behind an open field, and where its piece (if it is one) is."""

    __slots__ = ("field", "hi", "hole", "lo", "number", "raw")

    def __init__(self, number: int, raw: bytes, field: _Field | None = None, lo: int = 0, hi: int = 0,
                 hole: tuple[int, int] = (0, 0)) -> None:
        self.number, self.raw, self.field = number, raw, field
        self.lo, self.hi = lo, hi  # the piece's place in its field's text
        self.hole = hole  # and in the line


# -- what a line is: a piece of a field, the end of fields, or neither --------------------------------

class _Delta(msgspec.Struct):
    type: str | None = None
    text: str | None = None
    thinking: str | None = None
    partial_json: str | None = None


class _Event(msgspec.Struct):
    type: str | None = None
    index: Any = None
    delta: _Delta | None = None


class _StreamLine(msgspec.Struct):
    type: str | None = None
    event: _Event | None = None
    parent_tool_use_id: Any = None


class _Relay(msgspec.Struct):
    type: Any = None
    lane: Any = None
    message_id: Any = None
    block_index: Any = None
    partial: Any = None
    text: Any = None


class _SseData(msgspec.Struct):
    stream_id: Any = None
    delta: Any = None


_stream_line: Final = msgspec.json.Decoder(_StreamLine)
_relay: Final = msgspec.json.Decoder(_Relay)
_sse_data: Final = msgspec.json.Decoder(_SseData)
_FIELD_OF_DELTA: Final = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}
_ENDS_LANE: Final = frozenset({"message_start", "message_delta", "message_stop"})
# a relay export's deltas, as relays are written (type first), by us or by json.dumps
_DELTA_RELAYS: Final = (b'{"type":"text_delta"', b'{"type":"thinking_delta"', b'{"type": "text_delta"',
                        b'{"type": "thinking_delta"')
_STREAM_EVENT: Final = itertools.repeat("stream_event")
_OPENS: Final = itertools.repeat(b"{")  # (the arguments of a map over lines)
_ENDS: Final = itertools.repeat(b"\n")
_DELTAS: Final = itertools.repeat(_DELTA_RELAYS)
_SSE_ENDS_ALL: Final = frozenset({b"done", b"request_received"})
_literals: dict[bytes, re.Pattern[bytes]] = {}


def _literal(raw: bytes, name: str, value: str, start: int = 0) -> tuple[int, int] | None:
    """Where the string value ``value`` of key ``name`` is written in ``raw`` (its text between
    the quotes), or None."""
    key = name.encode()
    pattern = _literals.get(key)
    if pattern is None:
        pattern = _literals[key] = re.compile(rb'"' + key + rb'"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"')
    want = value.encode("utf-8", "surrogatepass")
    for m in pattern.finditer(raw, start):
        content = m.group(1)
        if content == want:
            return m.span(1)
        if b"\\" in content:
            try:
                if json.loads(b'"' + content + b'"') == value:
                    return m.span(1)
            except ValueError:
                continue
    return None


Piece = tuple[tuple[Any, ...], tuple[int, int]]  # the field's key, where its text is in the line


def _key(value: Any) -> Any:
    """A JSON value as part of a field's key (any type: it is only compared)."""
    return value if isinstance(value, str | int | float | bool | type(None)) else msgspec.json.encode(value)


class Streams:
    """The held lines and open fields of one input (``Redactor.feed``/``flush``)."""

    def __init__(self, sink: Sink, hold_bytes: int = HOLD_BYTES) -> None:
        self.sink, self.hold_bytes = sink, hold_bytes
        self.open: dict[tuple[Any, ...], _Field] = {}
        self.held: deque[_Held] = deque()
        self.held_bytes = 0
        self.sse_event: bytes | None = None  # the event an SSE data line belongs to
        self.relays = 0  # open fields of relays

    def feed(self, raw: bytes, number: int, anchored_at: list[int] | None = None) -> list[bytes]:
        """One line: the lines now ready. ``anchored_at``: the line's anchors, if known (used when
        it is redacted at once)."""
        piece, ends = self._classify(raw)
        if piece is None and not self.held:
            out = [self.sink.redact_line(raw, number, anchored_at=anchored_at)]
            for key in ends:
                self._end(key)
            return out
        if piece is None:
            self.held.append(_Held(number, raw))
        else:
            key, (a, b) = piece
            f = self.open.get(key)
            if f is None:
                f = self.open[key] = _Field(key)
                self.relays += key[0] == "r"
            lo, hi = f.add(raw[a:b])
            self.held.append(_Held(number, raw, f, lo, hi, (a, b)))
            if f.size >= f.next_scan:
                f.settle(self.sink.known, words=self.sink.words)
        self.held_bytes += len(raw)
        for key in ends:
            self._end(key)
        out = self._release()
        while self.held and (self.held_bytes > self.hold_bytes or self._too_open()):
            front = self.held[0].field
            if front is None:  # cannot be: the front is written once it is no piece
                break
            front.settle(self.sink.known, words=self.sink.words, forced=True)
            out += self._release()
        return out

    def flush(self) -> list[Any]:
        for key in list(self.open):
            self._end(key)
        out = self._release()
        assert not self.held
        return out

    def _too_open(self) -> bool:
        front = self.held[0].field
        return front is not None and front.unsettled() > MAX_OPEN

    def _end(self, key: tuple[Any, ...]) -> None:
        """A field (or, for a prefix, every field of a lane or stream) ends."""
        for k in [k for k in self.open if k[:len(key)] == key]:
            f = self.open.pop(k)
            self.relays -= k[0] == "r"
            f.settle(self.sink.known, words=self.sink.words, final=True)
            f.ended = True

    def _release(self) -> list[bytes]:
        out: list[bytes] = []
        held = self.held
        while held:
            h = held[0]
            f = h.field
            if f is not None and h.hi > f.settled:
                break
            held.popleft()
            self.held_bytes -= len(h.raw)
            if f is None:
                out.append(self.sink.redact_line(h.raw, h.number))
            else:
                text = f.take(h.lo, h.hi, self.sink, h.number)
                out.append(self.sink.redact_line(h.raw, h.number, h.hole, text))
        return out

    # -- what a line is ---------------------------------------------------------------------------

    def pieces_in(self, lines: list[bytes], block: bytes, starts: list[int],
                  types: list[Any] | None = None, ended: bool = True) -> set[int] | None:
        """Which of ``lines`` (``block`` joined, each with its newline but the last, starting at
        ``starts``; not ``ended``: joined by newlines) may be a piece or an end of a field, by
        index, when no other line can be, none is held, and every line opens a JSON object; None
        when it is not so (an SSE stream, a blank line, a relay export's deltas, a field open):
        such a block goes a line at a time. ``types``: each line's top-level ``type``, if the
        caller decoded them (no search then)."""
        if (self.held or self.relays or not all(map(bytes.startswith, lines, _OPENS))
                or (ended and not all(map(bytes.endswith, lines[:-1], _ENDS)))
                or any(map(bytes.startswith, lines, _DELTAS))):
            return None
        if types is not None:  # _stream_json takes a line whose decoded type is that, and no other
            return set(itertools.compress(itertools.count(), map(operator.eq, types, _STREAM_EVENT)))
        found: set[int] = set()
        at = block.find(b'"stream_event"')
        while at >= 0:
            k = bisect.bisect_right(starts, at) - 1
            found.add(k)
            at = block.find(b'"stream_event"', starts[k + 1])
        return found

    def _classify(self, raw: bytes) -> tuple[Piece | None, list[tuple[Any, ...]]]:
        """A piece of a field (its key and place in the line) and the fields the line ends."""
        if raw[:1] != b"{":  # an SSE line (or a blank one), or any line that is no JSON object
            if raw.startswith((b"event:", b"data:")) or (len(raw) <= 2 and not raw.strip()):
                return self._sse(raw)
            return None, []
        if b'"stream_event"' in raw:
            return self._stream_json(raw)
        if (raw.startswith(_DELTA_RELAYS) and b'"partial"' in raw) or (self.relays and b'"lane"' in raw):
            return self._relay(raw)
        return None, []

    def _stream_json(self, raw: bytes) -> tuple[Piece | None, list[tuple[Any, ...]]]:
        try:
            line = _stream_line.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeError):
            return None, []  # a line of another shape: redacted as a line
        event = line.event
        if line.type != "stream_event" or event is None:
            return None, []
        lane = _key(line.parent_tool_use_id)
        if event.type == "content_block_delta" and event.delta is not None:
            name = _FIELD_OF_DELTA.get(event.delta.type or "")
            value = getattr(event.delta, name) if name else None
            if name and isinstance(value, str):
                where = _literal(raw, name, value, max(raw.find(b'"delta"'), 0))
                if where is not None:
                    return (("s", lane, _key(event.index)), where), []
            return None, []
        if event.type == "content_block_stop":
            return None, [("s", lane, _key(event.index))]
        if event.type in _ENDS_LANE:
            return None, [("s", lane)]
        return None, []

    def _relay(self, raw: bytes) -> tuple[Piece | None, list[tuple[Any, ...]]]:
        try:
            r = _relay.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeError):
            return None, []
        lane = _key(r.lane)
        if r.partial is True and r.type in ("text_delta", "thinking_delta") and isinstance(r.text, str):
            key = ("r", lane, _key(r.message_id), _key(r.block_index), r.type)
            where = _literal(raw, "text", r.text)
            if where is not None:
                return (key, where), [k for k in self.open if k[:2] == ("r", lane) and k != key]
        return None, [k for k in self.open if k[:2] == ("r", lane)]

    def _sse(self, raw: bytes) -> tuple[Piece | None, list[tuple[Any, ...]]]:
        line = raw.rstrip(b"\r\n")
        if not line:
            self.sse_event = None
            return None, []
        if line.startswith(b"event:"):
            self.sse_event = line[6:].strip()
            if self.sse_event in _SSE_ENDS_ALL:
                return None, [("e",)]
            return None, []
        if self.sse_event not in (b"text", b"stream_end"):
            return None, []
        start = 6 if line.startswith(b"data: ") else 5
        try:
            data = _sse_data.decode(line[start:])
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeError):
            return None, []
        key = ("e", _key(data.stream_id))
        if self.sse_event == b"stream_end":
            return None, [key]
        if isinstance(data.delta, str):
            where = _literal(raw, "delta", data.delta, start)
            if where is not None:
                return (key, where), []
        return None, []
