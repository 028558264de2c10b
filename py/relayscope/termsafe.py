"""termsafe: untrusted text made safe to print on a terminal, every control shown, none obeyed.

Transcript text is data on a terminal too. A string that holds ESC can set the window title or
a hyperlink (OSC), clear the screen or hide text (CSI); a backspace or carriage return writes
over what was printed; a newline in a file name forges a row; C1 codes (U+0080-U+009F) are
controls to some terminals; bidi overrides make a line read in another order than it runs.
``safe`` shows each of them as a visible escape, as Python's repr would (``\\x1b``, ``\\n``,
``\\u202e``), and leaves every other character as it is (a Windows path's backslashes too).

``json_safe`` does the same to JSON text for programs that a person may still print: the
characters JSON allows raw in a string (DEL, C1, bidi controls, U+2028/U+2029) become ``\\uXXXX``
escapes, which a JSON reader decodes to the same string, and a carriage return between values (a
passed-on value's white space) a blank.

Must not: change any other character, or import anything of the package.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# C0, DEL, C1; bidi marks, embeddings, overrides and isolates; line and paragraph separators;
# lone surrogates (undecodable bytes carried in a str)
_UNSAFE: Final = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


def _shown(m: re.Match[str]) -> str:
    c = m.group()
    if c in _NAMED:
        return _NAMED[c]
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def safe(text: str) -> str:
    """``text`` with every control character shown as a visible escape (one line, nothing obeyed)."""
    return text if _UNSAFE.search(text) is None else _UNSAFE.sub(_shown, text)


def safe_data(value: Any) -> Any:
    """A structure (dicts, lists, tuples) with every string in it ``safe``, to be rendered as text."""
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, Mapping):
        return {safe_data(k): safe_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(safe_data(v) for v in value)
    return value


# In UTF-8: DEL; C1 (C2 80-9F); U+061C; U+200E/F; U+2028-202E; U+2066-2069; and a carriage
# return, which only JSON's white space between values can be (a value passed on as it came)
_UNSAFE_JSON: Final = re.compile(rb"\r|\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]")


def _escaped(m: re.Match[bytes]) -> bytes:
    if m.group() == b"\r":
        return b" "
    return b"\\u%04x" % ord(m.group().decode("utf-8"))


def json_safe(data: bytes) -> bytes:
    """JSON text with the characters JSON allows raw but terminals obey written as ``\\uXXXX``
    (only inside strings can they be: the same JSON to any reader)."""
    return data if _UNSAFE_JSON.search(data) is None else _UNSAFE_JSON.sub(_escaped, data)
