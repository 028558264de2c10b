"""formats: the input formats besides stream-json, and telling them apart.

``detect`` looks at the first non-blank lines only; ``make_translator`` returns the
translator for a format. Both are pure functions of their arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from ..translator import Emitter, Translator

FORMATS: Final = ("stream-json", "sse", "session")
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


def detect(lines: Sequence[str | bytes]) -> str:
    """``stream-json``, ``sse`` or ``session`` from the first lines that tell (default
    ``stream-json``: its translator reports what it cannot read, line by line)."""
    for raw in lines:
        found = sniff_line(raw)
        if found is not None:
            return found
    return "stream-json"


def make_translator(fmt: str, strategy: str = "lineage", *, trace: bool = False,
                    file: str | None = None) -> Emitter:
    if fmt == "sse":
        from .sse import FleetTranslator

        return FleetTranslator(strategy, trace=trace, file=file)
    if fmt == "session":
        try:
            from .session import SessionTranslator
        except ImportError:  # pragma: no cover - until session support lands
            return Translator(strategy, trace=trace, file=file)
        return SessionTranslator(strategy, trace=trace, file=file)
    if fmt != "stream-json":
        raise ValueError(f"unknown input format {fmt!r}; choose from {', '.join(FORMATS)}")
    return Translator(strategy, trace=trace, file=file)
