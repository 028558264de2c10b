"""formats: the input formats, telling them apart, and the translator for each.

``stream-json`` is read by :class:`~relayscope.translator.Translator`, ``sse`` (Arbiter fleet
streams) by :class:`~relayscope.formats.sse.FleetTranslator`, ``session`` (on-disk transcripts)
by :class:`~relayscope.formats.session.SessionTranslator` (``analysis.make_translator`` makes the one
an input needs: sniffing alone loads none of them).

Sniffing is done here and only here: :func:`sniff_line` says what one line proves,
:class:`Sniffer` decides from the first lines as they come (the first line that proves a format
wins; after ``SNIFF_LINES`` non-blank lines that prove nothing, ``stream-json``, whose
translator reports what it cannot read line by line), :func:`detect` runs it over lines at hand.
Everyone who needs a format (the analyzer, file grouping, the CLI, the web model) asks these, so
a file is never read as one format in one place and another elsewhere.

Pure functions of their arguments; must not import anything above the format layer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import msgspec

__all__ = ["FORMATS", "SNIFF_LINES", "Sniffer", "detect", "sniff_line"]

FORMATS: Final = ("stream-json", "sse", "session")
SNIFF_LINES: Final = 8  # non-blank lines that prove nothing before we settle on stream-json
_SSE_FIELDS: Final = ("event:", "data:", "id:", "retry:", ":")
# record types only on-disk session transcripts have
_SESSION_TYPES: Final = frozenset({
    "summary", "file-history-snapshot", "queue-operation", "progress", "attachment", "mode",
    "last-prompt", "ai-title", "custom-title", "tag",
})
_any: Final = msgspec.json.Decoder()


def sniff_line(raw: str | bytes) -> str | None:
    """The format one line proves, or None when it proves nothing (blank, garbage)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    text = text.lstrip("\ufeff").strip()
    if not text:
        return None
    if text.startswith(_SSE_FIELDS):
        return "sse"
    try:
        obj = _any.decode(text)
    except (msgspec.DecodeError, UnicodeError, RecursionError):  # a bad line proves nothing
        return None
    if not isinstance(obj, dict):
        return None
    kind = obj.get("type")
    kind = kind if isinstance(kind, str) else None  # {"type": {}} is not hashable
    if "parentUuid" in obj or "isSidechain" in obj or kind in _SESSION_TYPES:
        return "session"
    if "session_id" in obj or kind in ("system", "assistant", "user", "result", "stream_event"):
        return "stream-json"
    return None


class Sniffer:
    """The format of an input, decided from its first lines as they arrive."""

    def __init__(self) -> None:
        self.nonblank = 0

    def feed(self, line: str | bytes) -> str | None:
        """The format once this line settles it, else None (feed the next line)."""
        found = sniff_line(line)
        if found is not None:
            return found
        if line.strip():
            self.nonblank += 1
        return "stream-json" if self.nonblank >= SNIFF_LINES else None


def detect(lines: Iterable[str | bytes]) -> str:
    """``stream-json``, ``sse`` or ``session``, as :class:`Sniffer` decides it; reads no further
    than it must (pass a lazy iterable for a large input)."""
    sniffer = Sniffer()
    for raw in lines:
        found = sniffer.feed(raw)
        if found is not None:
            return found
    return "stream-json"
