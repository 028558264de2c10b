"""Timestamps: how a record's time is read (the page's rows read them the same way)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Final

import msgspec

from .records import MAX_SECONDS

# -- timestamps (the page's rows read them the same way: web/rowinfo re-exports these) ----------

class _Stamp(msgspec.Struct):
    timestamp: str | None = None


_stamp: Final = msgspec.json.Decoder(_Stamp)


def read_stamp(stamp: str) -> tuple[float, str | None] | None:
    """Seconds since the epoch of an ISO 8601 stamp and what was assumed of it: ``"utc"`` (no
    offset: taken as UTC), ``"clamped"`` (outside 1970 .. 2262-04-11), else None; None when it
    does not parse."""
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    note = None
    if when.tzinfo is None:  # the machine's zone would make the output depend on TZ
        when, note = when.replace(tzinfo=UTC), "utc"
    try:
        seconds = when.timestamp()
    except (OverflowError, ValueError):
        return None
    if not 0.0 <= seconds <= MAX_SECONDS:
        return min(max(seconds, 0.0), MAX_SECONDS), "clamped"
    return seconds, note


def parse(stamp: str) -> float | None:
    """Seconds since the epoch of an ISO 8601 stamp (``Z`` allowed; no offset: UTC), or None."""
    got = read_stamp(stamp)
    return got[0] if got else None


def timestamp(raw: bytes) -> str | None:
    """The line's top-level ``timestamp`` (ISO 8601), if it has one that parses."""
    try:
        value = _stamp.decode(raw).timestamp
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):  # RecursionError: nested too deep
        return None
    return value if value and parse(value) is not None else None


def line_seconds(raw: bytes) -> float | None:
    """The line's ``timestamp`` as seconds since the epoch, or None."""
    stamp = timestamp(raw)
    return parse(stamp) if stamp else None


Stamps = Callable[[str | None, int], float | None]  # (file, line) -> seconds, or None


class StampNotes(msgspec.Struct):
    """What reading the stamps assumed: stamps without an offset, stamps clamped."""

    utc: int = 0
    clamped: int = 0

    def read(self, raw: bytes) -> float | None:
        stamp = timestamp(raw)
        got = read_stamp(stamp) if stamp else None
        if got is None:
            return None
        if got[1] == "utc":
            self.utc += 1
        elif got[1] == "clamped":
            self.clamped += 1
        return got[0]

    def words(self) -> list[str]:
        out = []
        if self.utc:
            out.append(f"{self.utc} timestamp(s) without a time-zone offset read as UTC")
        if self.clamped:
            out.append(f"{self.clamped} timestamp(s) before 1970 or after 2262-04-11 clamped into that range")
        return out


def stamps_of(files: Mapping[str | None, Sequence[bytes]], notes: StampNotes | None = None) -> Stamps:
    """A ``Stamps`` over input lines held in memory (``{file: lines}``, ``None`` for one text);
    each line is read once, when first asked for."""
    seen: dict[tuple[str | None, int], float | None] = {}
    read = (notes or StampNotes()).read

    def at(file: str | None, line: int) -> float | None:
        key = (file, line)
        if key not in seen:
            lines = files.get(file if file in files else None)
            seen[key] = read(lines[line - 1]) if lines and 1 <= line <= len(lines) else None
        return seen[key]
    return at


