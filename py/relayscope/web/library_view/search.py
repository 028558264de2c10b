"""library_view.search: a search across the sessions listed, :class:`Search`: the core's
``libsearch.search`` over each session's files in turn (the filters' sessions first, in the
list's order), the next session's files read while one is searched, the matching rows marked
and the others hidden as it goes; cancelled, the sessions not searched stay listed.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from ... import libsearch
from ...libsearch import BytesSource
from ...query import LIBRARY_TERMS, parse
from ..dom import Element, fmt_int, show
from ..jobs import SLICE_BUDGET, Jobs, hand_back
from ..shelf import Shelf, read_session
from .rows import Rows
from .table import FILTER_S, PROGRESS_S, State, ordered


class Listed(Protocol):
    """The library as the search sees it: the sessions listed, and its filters applied again."""

    shelf: Shelf | None

    def apply_filter(self) -> None: ...


def _drop(ahead: asyncio.Future[BytesSource] | None) -> None:
    """A read ahead no longer wanted (the search was cancelled): its bytes are let go."""
    if ahead is not None:
        ahead.cancel()


class Search:
    def __init__(self, el: dict[str, Element], state: State, jobs: Jobs, rows: Rows, listed: Listed) -> None:
        self.el, self.state, self.jobs, self.rows, self.listed = el, state, jobs, rows, listed
        self.generation = 0  # the search running (0: none)
        self._runs = 0

    @property
    def running(self) -> bool:
        return self.generation > 0

    def on_key(self, event: Any) -> None:
        if event.key == "Enter":
            self.run(str(self.el["library-search"].value))
        elif event.key == "Escape":
            self.el["library-search"].value = ""
            self.run("")

    def run(self, text: str) -> None:
        """Search every session listed (the filters' sessions first come in the list's order);
        "" clears the search."""
        self.cancel(say=False)
        st = self.state
        st.query, st.hits, st.searched = text.strip(), {}, set()
        self.rows.clear_hit_marks()
        if not st.query or self.listed.shelf is None:
            self.el["library-status"].textContent = ""
            self.listed.apply_filter()
            return
        try:
            parse(st.query, LIBRARY_TERMS)
        except ValueError as exc:
            self.el["library-status"].textContent = str(exc)
            return
        self._runs += 1
        self.generation = self._runs
        self.el["library"].dataset.searching = "true"
        show(self.el["library-search-cancel"])
        self.jobs.spawn(self._search(self.generation, st.query))

    def cancel(self, say: bool = True) -> None:
        if not self.running:
            return
        self.generation = 0
        self._end()
        if say:
            st, shelf = self.state, self.listed.shelf
            n = len(shelf.entries) if shelf else 0
            self.el["library-status"].textContent = (f"Search cancelled after {fmt_int(len(st.searched))} of {fmt_int(n)} "
                                                     f"sessions: {fmt_int(len(st.hits))} match so far; the sessions not "
                                                     "searched stay listed.")

    def _end(self) -> None:
        self.el["library"].removeAttribute("data-searching")
        show(self.el["library-search-cancel"], False)
        show(self.el["library-progress"], bool(self.el["library"].dataset.filling))

    async def _search(self, generation: int, text: str) -> None:
        shelf = self.listed.shelf
        assert shelf is not None
        st, bar, status = self.state, self.el["library-progress"], self.el["library-status"]
        entries = ordered(shelf.entries, st)
        total = sum(e.summary.size for e in entries) or 1
        done = 0
        began = start = time.perf_counter()
        self.el["library"].removeAttribute("data-search-ms")
        show(bar)
        bar.value = 0
        # the next session's files are read (by the browser, off this thread) while this one is searched
        ahead: asyncio.Future[BytesSource] | None = asyncio.ensure_future(read_session(entries[0])) if entries else None
        said = filtered = 0.0
        for k, entry in enumerate(entries):
            if self.generation != generation:
                _drop(ahead)
                return
            if time.perf_counter() - said > PROGRESS_S:  # each text set is an op for the page
                said = time.perf_counter()
                status.textContent = (f"Searching “{text}”: {k} of {fmt_int(len(entries))} sessions, "
                                      f"{fmt_int(len(st.hits))} match ({done / total:.0%})")
            assert ahead is not None
            source = await ahead
            ahead = asyncio.ensure_future(read_session(entries[k + 1])) if k + 1 < len(entries) else None
            if self.generation != generation:
                _drop(ahead)
                return
            try:
                for found in libsearch.search(text, [(entry.summary, entry.group)], source):
                    if isinstance(found, libsearch.Hit):
                        st.hits[entry.id] = found
            except libsearch.Unsupported as exc:
                _drop(ahead)
                self.generation = 0
                self._end()
                status.textContent = str(exc)
                st.query = ""
                self.listed.apply_filter()
                return
            del source
            st.searched.add(entry.id)
            done += entry.summary.size
            self.rows.mark_hit(entry)
            if time.perf_counter() - began > SLICE_BUDGET:
                bar.value = done / total
                if time.perf_counter() - filtered > FILTER_S:  # a look at every row: not each slice
                    self.listed.apply_filter()
                    filtered = time.perf_counter()
                await hand_back()
                began = time.perf_counter()
        bar.value = 1
        self.generation = 0
        self._end()
        self.listed.apply_filter()
        self.el["library"].dataset.searchMs = f"{(time.perf_counter() - start) * 1000:.0f}"
        rows = sum(h.count or 0 for h in st.hits.values())
        status.textContent = (f"“{text}”: {fmt_int(len(st.hits))} of {fmt_int(len(entries))} sessions match"
                              + (f", {fmt_int(rows)} matching rows" if rows else ""))
