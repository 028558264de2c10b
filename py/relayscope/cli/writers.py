"""Output: relays as NDJSON, a JSON array or text lines (``Writer``), held in large pieces and
flushed at once for a pipe; whole outputs and files. A write that fails is an ``OutputError``."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, BinaryIO, Final

import msgspec

from ..inputs import STDIN, display_name, walk
from ..termsafe import safe
from .errors import OutputError, UsageError
from .state import current as _run
from .terminal import stdout, terminal_safe, to_terminal

if TYPE_CHECKING:
    from .. import relay as R
    from ..redact import Redactor
    from ..textout import RelayText


def _encode_safe(relays: list[R.Relay]) -> bytes:
    """NDJSON of relays msgspec cannot encode (a lone surrogate, ``"\\ud83d"`` in the input, is
    valid JSON but no UTF-8): each string escaped as JSON allows, nothing dropped."""
    encoder = msgspec.json.Encoder()
    out = []
    for r in relays:
        try:
            out.append(encoder.encode(r))
        except UnicodeEncodeError:
            plain = msgspec.to_builtins(r, builtin_types=(msgspec.Raw,))
            out.append(json.dumps(plain, separators=(",", ":"),
                                  default=lambda raw: json.loads(bytes(raw))).encode())
    return b"\n".join(out) + b"\n"


class Held:
    """Output to stdout as it comes, held in pieces of ``HOLD`` bytes: a write per input line cost
    about a tenth of ``translate``. Live input (a pipe) is written and flushed line by line.
    ``drain`` (and ``close``) write what is held; every exit of ``main`` goes through one. ``close``
    writes what the output ends with (``end``), and may be called again."""

    HOLD: Final = 1 << 18

    def __init__(self, out: BinaryIO, live: bool, end: Callable[[], bytes] | None = None) -> None:
        self.out, self.live, self.count, self.end = out, live, 0, end
        self.closed = False
        self._held: list[bytes] = []
        self._held_bytes = 0
        _run.writer = self

    def put(self, data: bytes) -> None:
        if data:
            self.count += 1
            self._put(data)

    def _put(self, data: bytes) -> None:
        self._held.append(data)
        self._held_bytes += len(data)
        if self.live or self._held_bytes >= self.HOLD:
            self.drain()

    def drain(self) -> None:
        """Write what is held (flushed at once for live input)."""
        held = self._held
        if not held:
            return
        data = held[0] if len(held) == 1 else b"".join(held)
        held.clear()
        self._held_bytes = 0
        try:
            self.out.write(data)
            if self.live:
                self.out.flush()
        except OSError as exc:
            self.closed = True  # nothing more can reach the reader, not even the array's end
            raise OutputError(exc) from exc

    def close(self) -> None:
        if self.closed:
            return
        if self.end is not None:
            self._put(self.end())
        self.drain()
        self.closed = True
        try:
            self.out.flush()
        except OSError as exc:
            raise OutputError(exc) from exc


class Writer(Held):
    """Relays to stdout as NDJSON, a JSON array, or text lines. ``close`` ends a JSON array
    (``[]`` when nothing came)."""

    RELAYS_HELD: Final = 64  # NDJSON relays encoded together (live input: each line's at once)
    TEXT_WAIT: Final = 256  # -f text: relays a session row waits through for its model

    def __init__(self, out: BinaryIO, fmt: str, live: bool, text: RelayText | None = None) -> None:
        self._relays: list[R.Relay] = []  # NDJSON not encoded yet (write_lines): drain writes them
        self._waiting: list[R.Relay] = []  # -f text: relays after a session row that waits for its model
        super().__init__(out, live, self._array_end if fmt == "json" else None)
        self.fmt = fmt
        self.text = text  # -f text: the columns (plain ones when not given)
        self.encoder = msgspec.json.Encoder()
        self.terminal = to_terminal()  # asked once: json_out's question, which a write per line made a cost

    def _array_end(self) -> bytes:
        return b"[]\n" if self.count == 0 else b"\n]\n"

    def write(self, relays: list[R.Relay]) -> None:
        if not relays:
            return
        if self.fmt == "ndjson":
            self.write_lines(relays)
            return
        if self.fmt == "json":
            parts = []
            for r in relays:
                parts.append(b"[\n" if self.count == 0 else b",\n")
                try:
                    parts.append(self.encoder.encode(r))
                except UnicodeEncodeError:
                    parts.append(_encode_safe([r])[:-1])
                self.count += 1
            data = b"".join(parts)
            if self.terminal:
                data = terminal_safe(data)
            self._put(data)
        else:
            assert self.text is not None, "-f text: give the Writer its columns (text.relay_text)"
            if self._waiting or any(r.type == "session_meta" and not getattr(r, "model", None) for r in relays):
                # a transcript's session row waits for the model its first message names (the
                # page's and the snapshot's row say it): up to TEXT_WAIT relays, or the end
                self._waiting += relays
                if len(self._waiting) < self.TEXT_WAIT and not any(
                        r.type == "usage" and getattr(r, "model", None) for r in relays):
                    return
                relays, self._waiting = self._waiting, []
            self._text_rows(relays)

    def _text_rows(self, relays: list[R.Relay]) -> None:
        assert self.text is not None
        rows = self.text.rows(relays)
        if self.count == 0:
            rows = self.text.header() + "\n" + rows
        self.count += len(relays)
        self._put(rows.encode("utf-8", "backslashreplace"))

    def close(self) -> None:
        if self._waiting and not self.closed:
            relays, self._waiting = self._waiting, []
            self._text_rows(relays)
        super().close()

    def write_lines(self, relays: list[R.Relay]) -> None:
        """``write`` of NDJSON, ``relays`` not empty. ``translate``'s loop calls it for every line
        that gives relays: they are held and encoded ``RELAYS_HELD`` at a time (an encode call a
        line, with its bytes object and ``_put``, made the writing a sixth slower). The bytes are
        the same: NDJSON is each relay's line, in order."""
        held = self._relays
        held.extend(relays)
        if self.live or len(held) >= self.RELAYS_HELD:
            self._encode_held()

    def _encode_held(self) -> None:
        held = self._relays
        try:
            data = self.encoder.encode_lines(held)
        except UnicodeEncodeError:
            data = _encode_safe(held)
        held.clear()
        if self.terminal:
            data = terminal_safe(data)
        self._put(data)

    def drain(self) -> None:
        if self._relays:  # first: they came before anything written after them
            self._encode_held()
        super().drain()


def write_out(data: bytes) -> None:
    write_pieces((data,))


def write_pieces(pieces: Iterable[bytes]) -> None:
    """Output made as it is written, each piece let go once written."""
    out = stdout()
    try:
        for piece in pieces:
            out.write(piece)
        out.flush()
    except OSError as exc:
        raise OutputError(exc) from exc


def make_folders(path: str) -> None:
    """``os.makedirs`` without its recursion: a tree thousands of folders deep is just long."""
    missing: list[str] = []
    while path and not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile
            os.mkdir(folder)


def write_some(out: BinaryIO, data: bytes) -> None:
    try:
        out.write(data)
        if not data:
            out.flush()
    except OSError as exc:
        raise OutputError(exc) from exc


def refuse_over_inputs(path: str, inputs: list[str]) -> None:
    """A usage error naming ``path`` when it is one of the files read: one named, or one found
    in a named folder (``-o DIR/session.jsonl`` while reading ``DIR``), compared as files
    (``os.path.samefile``: links and other spellings of the same path too)."""
    try:
        target = os.stat(path)
    except OSError:
        return  # not there yet: no input
    for name in inputs:
        if name == STDIN:
            continue
        found = walk(name)[0] if os.path.isdir(name) else [name]
        for read in found:
            try:
                same = os.path.samestat(target, os.stat(read))
            except OSError:
                continue
            if same:
                what = "the input" if read == name else f"an input it reads ({display_name(read)})"
                raise UsageError(f"{display_name(path)}: -o would write over {what}; name another file")


def write_file(path: str, data: bytes, inputs: list[str]) -> None:
    """``data`` into ``path`` (``-``: stdout), never over one of the inputs."""
    if path == STDIN:
        write_out(data)
        return
    refuse_over_inputs(path, inputs)
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise UsageError(f"{display_name(path)}: {exc.strerror or exc}") from exc


def list_findings(out: BinaryIO, r: Redactor) -> None:
    rows = [f"{'line':>6}  {'kind':<16} {'placeholder':<30} masked"]
    rows += [f"{f.line:>6}  {f.kind:<16} {f.placeholder:<30} {safe(f.masked)}" for f in r.findings]
    if tally := r.tally():  # each secret once, with the places it took (a name found once, replaced everywhere)
        rows += ["", f"{'places':>6}  {'kind':<16} {'placeholder':<30} masked"]
        rows += [f"{t.places:>6}  {t.kind:<16} {t.placeholder:<30} {safe(t.masked)}" for t in tally]
    write_some(out, ("\n".join(rows) + "\n").encode())
