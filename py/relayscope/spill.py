"""spill: tool output that Claude Code spilled to disk, and the file that holds it.

Newer CLIs replace a tool result too large for the transcript with a preview::

    <persisted-output>
    Output too large (53KB). Full output saved to: /Users/NAME/.claude/projects/P/SESSION/tool-results/ID.txt

    Preview (first 2KB):
    ...

and keep the whole output in ``SESSION/tool-results/ID.txt`` beside the session's transcript
(``../shared/PROTOCOL.md`` section 8). Job: tell such a result (``of``), name its file by the part
of its path that a copied session folder keeps (``SESSION/tool-results/ID.txt``), and find that
file among the input's files (``find``). Which input files are such outputs, kept with their
session and never translated, is ``intake.is_spilled``'s rule.
Must not: read files (the caller gives the input's names and bytes), or import the web layer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final, NamedTuple

_PERSISTED: Final = re.compile(
    r"^\s*<persisted-output>\s*Output too large \(([^)]*)\)\. Full output saved to: ([^\n]+?)\s*(?:\n|$)")
_TAIL: Final = re.compile(r"(?:^|/)([^/]+/tool-results/[^/]+)$")
SHOWN_BYTES: Final = 64 * 1024  # of a spilled file, shown in a row's detail (the rest is said, not shown)


class Spill(NamedTuple):
    """A tool result spilled to disk: its file as the result names it, its size as the CLI said."""

    path: str  # as the result gives it (the machine it ran on)
    size: str  # "53KB"

    @property
    def words(self) -> str:
        """The result in a row's words: "output too large (53KB), whole in tool-results/ID.txt"."""
        return f"output too large ({self.size}), whole in {'/'.join(self.short.split('/')[-2:])}"

    @property
    def short(self) -> str:
        """``SESSION/tool-results/ID.txt``: what a copied session folder keeps of the path."""
        p = self.path.replace("\\", "/")
        m = _TAIL.search(p)
        return m.group(1) if m else p.rsplit("/", 1)[-1]


def of(text: str) -> Spill | None:
    """The spill a tool result's text announces, or None (an ordinary result)."""
    if "<persisted-output>" not in text[:64]:
        return None
    m = _PERSISTED.match(text)
    return Spill(m.group(2), m.group(1)) if m else None


def find(spill: Spill, names: Mapping[str, object]) -> str | None:
    """The input file holding ``spill``'s output: the one whose path ends as the spill's
    ``SESSION/tool-results/ID.txt`` does (else ``tool-results/ID.txt``); None when it is not given."""
    short = spill.short
    tail = "/".join(short.split("/")[-2:])
    found = None
    for name in names:
        n = name.replace("\\", "/")
        if n == short or n.endswith("/" + short):
            return name
        if found is None and (n == tail or n.endswith("/" + tail)):
            found = name
    return found


def shown(data: bytes, limit: int = SHOWN_BYTES) -> tuple[str, int]:
    """A spilled file's text as a detail shows it (at most ``limit`` bytes, cut at a line's end
    where there is one), and how many bytes of it are left out."""
    if len(data) <= limit:
        return data.decode("utf-8", "replace"), 0
    cut = data.rfind(b"\n", 0, limit)
    cut = cut + 1 if cut > 0 else limit
    return data[:cut].decode("utf-8", "replace"), len(data) - cut
