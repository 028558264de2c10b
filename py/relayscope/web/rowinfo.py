"""rowinfo: facts about an input line that the relays do not carry, read from the raw line when a
row is drawn: its timestamp, and the session fields (cwd, version, git branch) of a transcript.

Reads only the few fields it names (msgspec skips the rest), and only for rows on screen.
Must not: be called for every relay on a hot path.
"""

from __future__ import annotations

from ..meaning import elapsed_words, years_words
from ..spans import parse, timestamp  # the core reads the timestamps for the swimlanes: one rule
from ..words import session_head  # a session row's words: one rule (words.session_of)

__all__ = ["clock", "duration", "gap", "parse", "session_head", "timestamp"]


def clock(stamp: str) -> str:
    """The time of day of a stamp, as written (UTC when it says Z): ``10:00:09``."""
    _, _, rest = stamp.partition("T")
    return rest[:8] if len(rest) >= 8 else stamp


def gap(seconds: float) -> str:
    """A short gap: ``+0.3s``, ``+4s``, ``+2m05s``, ``+1h02m``."""
    if seconds < 10:
        return "+" + f"{seconds:.1f}".rstrip("0").rstrip(".") + "s"
    return "+" + _span(seconds)


def duration(seconds: float) -> str:
    """A lane's wall time: ``0.4 s``, ``10 s``, ``4m 35s``, ``1h 02m``."""
    return f"{seconds:.1f} s" if seconds < 1 else elapsed_words(seconds)


def _span(seconds: float) -> str:
    if (long := years_words(seconds)) is not None:
        return long
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
