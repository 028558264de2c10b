"""snapshot.escape: transcript text as HTML text, the one way any string enters the page.

:func:`esc` escapes it (``html.escape``, quotes too) and shows control characters as their
visible pictures (␛ for ESC; C1 controls and lone surrogates as U+FFFD), so nothing from a
transcript becomes markup or puts a raw control character on the reader's screen; ``_clip``
bounds a row's content to ``DETAIL_CHARS`` and says how much more there is.
"""

from __future__ import annotations

import html
import re
from typing import Final

DETAIL_CHARS: Final = 20_000  # of one row's content, by default; past it, a note saying how much more
# C0 controls (but tab and newline) and DEL as their visible pictures (␛ for ESC), C1 controls and
# lone surrogates (valid JSON, no UTF-8) as U+FFFD: a transcript never puts a raw control
# character on the reader's screen. Looked for first: most strings have none.
_CONTROL: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _picture(m: re.Match[str]) -> str:
    c = ord(m.group())
    return chr(0x2400 + c) if c < 32 else "\u2421" if c == 0x7F else "\ufffd"


def esc(text: str) -> str:
    """Transcript text as HTML text: escaped, control characters made visible."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if _CONTROL.search(text):
        text = _CONTROL.sub(_picture, text)
    return html.escape(text, quote=True)


def _clip(text: str, limit: int = DETAIL_CHARS) -> str:
    if len(text) <= limit:
        return esc(text)
    return (esc(text[:limit]) + f"\n… {len(text) - limit:,} more characters not shown here "
            "(the transcript, or its shareable file, has them all)")
