"""search: which relays a filter, a text search or a lane selects.

Job: the text-search index (built in slices, on first need) and the selections the timeline
shows: by words, types, lanes, with bookkeeping records hidden unless asked for.
Must not: change the translation, draw, or decide the rows' layout (``rows`` does).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from .. import relay as R
from ..present import summary
from .workstate import Loaded

SEARCH_SLICE: Final = 2000  # relays per slice of the search index


class Search(Loaded):
    """Selections of relays: filters and the text search."""

    __slots__ = ()

    def select(self, text: str = "", include: Iterable[str] = (), exclude: Iterable[str] = (),
               lane: str = "", bookkeeping: bool = False) -> list[int]:
        """Seqs of the relays that match (as ``filter``), minus excluded types and, unless asked
        for, bookkeeping records."""
        ex = set(exclude)
        if text.strip() or include or lane:
            seqs = self.filter(text, include, [lane] if lane else [])
        else:
            seqs = list(range(len(self.relays)))
        if ex:
            relays = self.relays
            seqs = [q for q in seqs if relays[q].type not in ex]
        if not bookkeeping and self._bookkeeping:
            book = self._bookkeeping
            seqs = [q for q in seqs if q not in book]
        return seqs

    def filter(self, text: str = "", types: Iterable[str] = (), lanes: Iterable[str] = ()) -> list[int]:
        """Seqs of the relays that match: every word of ``text`` (case-insensitive, in the row's
        summary or full content), one of ``types`` and one of ``lanes`` (empty: any)."""
        wanted_types, wanted_lanes = set(types), set(lanes)
        words = text.lower().split()
        haystack = self._search_index() if words else None
        out = []
        for r in self.relays:
            if wanted_types and r.type not in wanted_types:
                continue
            if wanted_lanes and r.lane not in wanted_lanes:
                continue
            if haystack is not None and not all(w in haystack[r.seq] for w in words):
                continue
            out.append(r.seq)
        return out

    def lane_seqs(self, lane_id: str) -> list[int]:
        return [r.seq for r in self.relays if r.lane == lane_id]

    @property
    def search_ready(self) -> bool:
        return self._haystack is not None

    def prepare_search(self) -> Iterator[float]:
        """Build the text-search index in slices (the first text filter needs it)."""
        if self._haystack is not None:
            return
        relays, hay = self.relays, list[str]()
        for start in range(0, len(relays), SEARCH_SLICE):
            hay.extend(searchable(r) for r in relays[start:start + SEARCH_SLICE])
            yield start / max(len(relays), 1)
        self._haystack = hay

    def _search_index(self) -> list[str]:
        if self._haystack is None:
            for _ in self.prepare_search():
                pass
        assert self._haystack is not None
        return self._haystack


def searchable(r: R.Relay) -> str:
    """What the text search looks in, lower-cased: type, lane and the whole content."""
    if isinstance(r, R.TextDelta | R.ThinkingDelta | R.UserMessage):
        body = r.text
    elif isinstance(r, R.ToolUse):
        body = f"{r.name} {r.id} {bytes(r.input).decode('utf-8', 'replace')}"
    elif isinstance(r, R.ToolResult):
        body = f"{r.tool_use_id} {bytes(r.content).decode('utf-8', 'replace')}"
    else:
        body = summary(r)
    return f"{r.type} {r.lane} {body}".lower()
