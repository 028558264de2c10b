"""search: which relays a filter or a search selects, and where a search's words are found.

Job: the search's grammar (``parse``: free words and the scoped terms of ``TERMS``), its index
(built in slices, on first need: per relay what its row shows and what its detail shows, never
its file name, seq or raw line, so that a word in a path no row shows matches nothing), and the
selections the timeline shows: by words, scoped terms, types, lanes, with bookkeeping records
hidden unless asked for.
Must not: change the translation, draw, or decide the rows' layout or order (``rows`` does).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Final

import msgspec

from .. import relay as R
from ..query import IS, TERMS, Query, is_error, parse, searchable_detail
from .rows import Rows

__all__ = ["IS", "SEARCH_SLICE", "TERMS", "Hay", "Query", "Search", "is_error", "parse", "searchable_detail"]

SEARCH_SLICE: Final = 2000  # relays per slice of the search index

# The grammar (free words, ``tool:``, ``lane:``, ``is:``) is the core's (``query``), shared with the library.


class Hay(msgspec.Struct, frozen=True):
    """Where a search looks, for one relay: what its row shows and what its detail shows."""

    shown: str
    detail: str


class Search(Rows):
    """Selections of relays: filters and the search."""


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
        """Seqs of the relays that match: the search ``text`` (every word in the row or its
        detail, any case; every scoped term), one of ``types`` and one of ``lanes`` (empty: any)."""
        q = parse(text)
        if q.lost:
            return []  # lost blocks are no relays: their rows are placed by ``lost_matching``
        wanted_types, wanted_lanes = set(types), set(lanes)
        if q.lanes:
            named = self.lanes_named(q.lanes)
            wanted_lanes = named if not wanted_lanes else wanted_lanes & named
        words = q.words
        hay = self._search_index() if words else None
        tools = set(q.tools)
        error = "error" in q.flags
        relays = self.relays
        out = []
        for r in relays:
            if wanted_types and r.type not in wanted_types:
                continue
            if (wanted_lanes or q.lanes) and r.lane not in wanted_lanes:
                continue
            if tools and self._tool_name(r) not in tools:
                continue
            if error and not is_error(r):
                continue
            if hay is not None:
                h = hay[r.seq]
                if not all(w in h.shown or w in h.detail for w in words):
                    continue
            out.append(r.seq)
        return out

    def lost_matching(self, q: Query, lane: str = "") -> set[int] | None:
        """The lost blocks' rows a search keeps (None: the search says nothing of them, they are
        placed as ever): ``is:lost`` keeps those whose words and lane match, any other search none."""
        if q.empty:
            return None
        if not q.lost or q.tools or "error" in q.flags or self.fates is None:
            return set()
        lanes = self.lanes_named(q.lanes) if q.lanes else None
        return {b.row for b in self.fates.lost if (not lane or b.lane == lane) and (lanes is None or b.lane in lanes)
                and all(w in b.words.lower() for w in q.words)}

    def match_in(self, seq: int, q: Query) -> str:
        """Where the search's words are found for row ``seq``: "row" (in what the row shows),
        "detail" (one or more only in its detail), or "" (no words)."""
        if not q.words or seq < 0:
            return ""
        h = self._search_index()[seq]
        return "row" if all(w in h.shown for w in q.words) else "detail"

    def lanes_named(self, names: Iterable[str]) -> set[str]:
        """The lanes a ``lane:`` term names: by the start of their id, or a part of their label."""
        out = set()
        for name in names:
            out |= {v.id for v in self.lanes if v.id.lower().startswith(name) or name in v.label.lower()}
        return out

    def _tool_name(self, r: R.Relay) -> str | None:
        if isinstance(r, R.ToolUse):
            return r.name.lower()
        if isinstance(r, R.ToolResult):
            use = self._by_tool_use.get(r.tool_use_id)
            call = self.relays[use] if use is not None and use < len(self.relays) else None
            return call.name.lower() if isinstance(call, R.ToolUse) else None
        return None

    def lane_seqs(self, lane_id: str) -> list[int]:
        return [r.seq for r in self.relays if r.lane == lane_id]

    @property
    def search_ready(self) -> bool:
        return self._haystack is not None

    def prepare_search(self) -> Iterator[float]:
        """Build the search index in slices (the first search with words needs it)."""
        if self._haystack is not None:
            return
        relays, hay = self.relays, list[Hay]()
        for start in range(0, len(relays), SEARCH_SLICE):
            hay.extend(self.searchable(q) for q in range(start, min(start + SEARCH_SLICE, len(relays))))
            yield start / max(len(relays), 1)
        self._haystack = hay

    def grow_search(self, first: int) -> None:
        """Relays from ``first`` on, added to the index if it is made (an input that grows), and
        the rows before them whose line they change indexed again (``_changed_before``)."""
        hay = self._haystack
        if hay is None:
            return
        hay.extend(self.searchable(q) for q in range(len(hay), len(self.relays)))
        for q in self._changed_before(first):
            hay[q] = self.searchable(q)

    def _changed_before(self, first: int) -> set[int]:
        """The rows before ``first`` whose line the relays from ``first`` on change: a call whose
        result came (its line says how it ended), a result whose call came, a group of streamed
        fragments that grew, and the session rows (their model and the fields they read on)."""
        out = {q for q in self._sessions if q < first}
        uses, results, heads = self._by_tool_use, self._by_tool_result, self._member_head
        for r in itertools.islice(self.relays, first, None):
            if isinstance(r, R.ToolResult):
                q = uses.get(r.tool_use_id)
            elif isinstance(r, R.ToolUse):
                q = results.get(r.id)
            else:
                q = heads.get(r.seq)
            if q is not None and q < first:
                out.add(q)
        return out

    def searchable(self, seq: int) -> Hay:
        """Where the search looks for relay ``seq``, lower-cased: its row's type and line, and
        its detail (the content; a record's fields but its file, line and seq)."""
        r = self.relays[seq]
        return Hay(f"{r.type} {self.shown_text(seq)}".lower(), searchable_detail(r).lower())

    def _search_index(self) -> list[Hay]:
        if self._haystack is None:
            for _ in self.prepare_search():
                pass
        assert self._haystack is not None
        if len(self._haystack) < len(self.relays):  # rows came while it was built in slices
            self.grow_search(len(self._haystack))
        return self._haystack
