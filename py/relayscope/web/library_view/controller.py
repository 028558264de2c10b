"""library_view.controller: the library view's controller, :class:`Library`.

It offers an input of several files to the core's rule, lists the sessions it makes in the
page's table (``library_view.rows`` holds the rows, ``library_view.table`` gives each cell's text
and the order), fills in the figures that need every line a session at a time, has a search run
across the sessions (``library_view.search``), sorts, filters and groups the rows the page already
holds, opens a row's session through the one load path, and brings the list back as it was ("Back
to the library"). The package's docstring says how.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Final, Protocol

from ... import libsearch
from ..dom import On, fmt_int, h, option, show
from ..jobs import Jobs, hand_back
from ..notices import Notices
from ..protocol import Picked
from ..remote import DOCUMENT as document
from ..shelf import Entry, Shelf, list_sessions, read_session
from ..view import Address, Asked, Shown, Source, ViewState
from .rows import Rows
from .search import Search
from .table import (
    BY_KEY,
    DRAW_ROWS,
    PROGRESS_S,
    State,
    _project,
    _session_dirs,
    workspace_query,
)

IDS: Final = ("library", "library-count", "library-count-unit", "library-source", "library-project",
              "library-filter", "library-search", "library-search-cancel", "library-group", "library-sort",
              "library-status", "library-progress", "library-list", "library-table", "library-head",
              "library-back", "workspace", "examples-box", "library-wanted")


class Opener(Protocol):
    """The load path (loads.py): a session's files, loaded as if opened by themselves, at a view."""

    async def open_session(self, files: list[Picked], name: str, source: Source, view: Asked) -> None: ...


class Library:
    def __init__(self, view: ViewState, shown: Shown, jobs: Jobs, notices: Notices, address: Address,
                 opener: Opener, clear: Callable[[], None], first_match: Callable[[], None]) -> None:
        self.view, self.shown, self.jobs, self.notices, self.address = view, shown, jobs, notices, address
        self.opener, self.clear = opener, clear  # clear: the workspace's input let go (Screen.clear)
        self.first_match = first_match  # the workspace's search: select its first match
        # a watched folder's library: a session opened is followed as it grows (watch.Watcher)
        self.watch_session: Callable[[set[str], tuple[str, ...]], None] | None = None
        self.el = {name: document.element(name) for name in IDS}
        self.state = State()
        self.shelf: Shelf | None = None
        self.source = Source()
        self.name = ""
        self.files: dict[str, Picked] = {}
        self.list = Rows(self.el, self.state)  # the table's rows, groups and sort buttons
        self.search = Search(self.el, self.state, jobs, self.list, self)
        self.by_id: dict[str, Entry] = {}
        self.opened = ""  # the session shown from the list ("" none)
        self.own = False  # the load under way is a session of the list's (its ``replaced`` keeps the list)
        self.wanted = ""  # a session the address names, to open once its files come
        self.generation = 0  # a new list: the old one's filler stops
        self._said = 0.0  # when the listing's progress was last said

    # -- wiring ------------------------------------------------------------------------------

    def wire(self, on: On) -> None:
        e = self.el
        on(e["library-head"], "click", self._on_sort_click)
        on(e["library-sort"], "change", lambda _: self.sort_by(str(e["library-sort"].value)))
        on(e["library-project"], "change", lambda _: self._filter(project=str(e["library-project"].value)))
        on(e["library-filter"], "input", lambda _: self._filter(words=str(e["library-filter"].value)))
        on(e["library-group"], "click", lambda _: self.set_grouped(not self.state.grouped))
        on(e["library-table"], "click", self._on_open_click, work=("library-open",))
        on(e["library-back"], "click", lambda _: self.back())
        on(e["library-search"], "keydown", self.search.on_key)
        on(e["library-search-cancel"], "click", lambda _: self.search.cancel())
        self.list.draw_head()

    def asked(self, session: str) -> None:
        """The address names a session: once a folder that holds it is opened, it opens."""
        self.wanted = session
        note = self.el["library-wanted"]
        note.textContent = (f"This address names session {session}. Open (or drop) the folder, or the shareable "
                            "file, that holds it again, and it opens directly: the page keeps no copy of your files.")
        show(note)

    # -- an input of several files -------------------------------------------------------------

    async def offer(self, items: list[Picked], source: Source, name: str) -> bool:
        """List ``items`` if they make more than one session (True: the library took them);
        else leave them to the load (False)."""
        files = {it.path: it for it in items}
        run = self.jobs.begin(f"Listing the sessions of {name}…")
        timed: dict[str, float] = {}
        shelf = await list_sessions({p: it.file for p, it in files.items()},
                                    lambda p: self._progress(run, p), timed)
        for part, seconds in timed.items():
            self.jobs.count(part, seconds)
        mark = self.jobs.mark()
        if run != self.jobs.run:
            return True  # another input took over meanwhile
        if len(shelf.entries) <= 1:
            wanted = self.wanted
            if wanted and shelf.entries and shelf.entries[0].id == wanted:
                self._asked_done()
            return False
        self.shelf, self.source, self.name, self.files = shelf, source, name, files
        self.by_id = {e.id: e for e in shelf.entries}
        self.generation += 1
        self.opened = ""
        if self.shown.ws is not None:
            self.clear()  # the run shown goes (and the address that named it)
        await self._draw(shelf, run)
        if run != self.jobs.run:
            return True
        self.jobs.timed("draw", mark)
        self.jobs.spawn(self._fill(self.generation))
        if self.wanted and self.wanted in self.by_id:  # the session the address named: its load ends the job
            wanted = self.wanted
            self._asked_done()
            await self.open(wanted)
            return True
        self.jobs.end(run, f"{fmt_int(len(shelf.entries))} sessions in {name}")
        return True

    def _show_list(self, visible: bool) -> None:
        """The list shown or hidden, and ``<html data-library>`` with it: the page's layout for
        the list (static/css/library.css) hangs on that attribute, not on a ``:has(#library:not([hidden]))``
        of the whole page, which Chromium checks again, restyling every element, whenever any
        element's ``hidden`` changes (a row filtered out: 0.4-1 s a time for 2,000 rows)."""
        show(self.el["library"], visible)
        root = document.documentElement
        if visible:
            root.setAttribute("data-library", "")
        else:
            root.removeAttribute("data-library")

    def _asked_done(self) -> None:
        self.wanted = ""
        show(self.el["library-wanted"], False)

    def _progress(self, run: int, p: float) -> None:
        """The listing's progress, said at most every ``PROGRESS_S`` (each is an op for the page)."""
        now = time.perf_counter()
        if run == self.jobs.run and now - self._said >= PROGRESS_S:
            self._said = now
            self.el["library-progress"].value = p
            self.jobs.status(f"Listing the sessions… {p:.0%}")

    async def _draw(self, shelf: Shelf, run: int) -> None:
        """The list of a new shelf. Its rows reach the page ``DRAW_ROWS`` a message (each the
        page's task of its own, kept short), into a hidden body they are then moved out of."""
        e = self.el
        self.shown.ws = None
        show(e["workspace"], False)
        show(e["library-back"], False)
        e["examples-box"].open = False
        self.list.let_go()
        e["library-count"].textContent = "…"
        stage = h("tbody", attrs={"hidden": True})
        e["library-table"].append(stage)
        for k in range(0, len(shelf.entries), DRAW_ROWS):
            for entry in shelf.entries[k:k + DRAW_ROWS]:
                stage.append(self.list.make(entry))
            await asyncio.sleep(0)  # this message goes to the page; the next is another task of its
            if run != self.jobs.run:
                stage.remove()
                return
        projects: dict[str, int] = {}
        for entry in shelf.entries:
            projects[_project(entry)] = projects.get(_project(entry), 0) + 1
        if self.state.project not in projects:
            self.state.project = ""
        e["library-project"].replaceChildren(option("", f"all projects ({len(projects)})"),
                                             *[option(p, f"{p} ({n})") for p, n in sorted(projects.items())])
        e["library-project"].value = self.state.project
        e["library-filter"].value = self.state.words
        e["library-sort"].value = self.state.sort
        e["library-source"].textContent = f"{self.name} · {fmt_int(shelf.files)} files"
        self._arrange()
        stage.remove()
        self.notices.say(self._notes(shelf))
        self._show_list(True)
        if e["library-list"].scrollTop:
            e["library-list"].scrollTop = 0

    def _notes(self, shelf: Shelf) -> list[str]:
        notes = []
        if shelf.copies:
            notes.append(f"{len(shelf.copies)} copy of a session left out (the larger file is listed): "
                         + "; ".join(f"{g.main} (a copy of {g.copy_of})" for g in shelf.copies[:5]))
        if shelf.skipped:
            shown = "; ".join(str(s) for s in shelf.skipped[:10]) + (" …" if len(shelf.skipped) > 10 else "")
            notes.append(f"Skipped {len(shelf.skipped)} file(s): {shown}")
        return notes

    # -- the figures of a whole read, filled in ---------------------------------------------------

    async def _fill(self, generation: int) -> None:
        """Each session's tool calls, errors and tokens (``libsearch.fill``: it is translated),
        one session a turn of the worker's loop; paused while a session is open or a search
        runs, given up when another list (or input) replaces this one."""
        shelf = self.shelf
        if shelf is None:
            return
        root, bar = self.el["library"], self.el["library-progress"]
        todo = [e for e in shelf.entries if not e.summary.complete]
        total = sum(e.summary.size for e in todo) or 1
        done = 0
        began = time.perf_counter()
        root.dataset.filling = "true"
        show(bar)
        changed = False
        for k, entry in enumerate(todo):
            while self.generation == generation and (self.opened or self.search.running):
                await asyncio.sleep(0.2)
            if self.generation != generation:
                return
            source = await read_session(entry)
            if self.generation != generation:
                return
            entry.summary = libsearch.fill(entry.summary, entry.group, source)
            del source
            self.list.draw_figures(entry)
            changed = True
            done += entry.summary.size
            bar.value = done / total
            self.el["library-status"].textContent = (f"Counting tool calls, errors and tokens: {k + 1} of "
                                                     f"{fmt_int(len(todo))} sessions ({done / total:.0%})")
            await hand_back()
        if self.generation != generation:
            return
        root.dataset.fillMs = f"{(time.perf_counter() - began) * 1000:.0f}"
        root.removeAttribute("data-filling")
        show(bar, False)
        self.el["library-status"].textContent = ""
        if changed and self.state.sort in ("tools", "errors", "tokens", "model"):
            self._arrange()  # the order those figures give, now that they are all in

    # -- sort, filter, group -----------------------------------------------------------------

    def _on_sort_click(self, event: Any) -> None:
        button = event.closest("button[data-sort]")
        if button is not None:
            self.sort_by(str(button.dataset.sort))

    def sort_by(self, key: str) -> None:
        """Sort by a column; the same column again turns the order round."""
        if key not in BY_KEY:
            return
        st = self.state
        if key == st.sort:
            st.descending = not st.descending
        else:
            st.sort, st.descending = key, BY_KEY[key].numeric
        self.el["library-sort"].value = key
        self._arrange()

    def set_grouped(self, grouped: bool) -> None:
        self.state.grouped = grouped
        self._arrange()

    def _filter(self, *, project: str | None = None, words: str | None = None) -> None:
        if project is not None:
            self.state.project = project
        if words is not None:
            self.state.words = words
        self.apply_filter()

    def _arrange(self) -> None:
        if self.shelf is not None:
            self.list.arrange(self.shelf.entries)

    def apply_filter(self) -> None:
        if self.shelf is not None:
            self.list.apply_filter(self.shelf.entries)

    # -- a session from the list, and back ---------------------------------------------------

    def _on_open_click(self, event: Any) -> None:
        button = event.closest('button[data-action="library-open"]')
        if button is not None:
            self.jobs.start_work(self.open(str(button.dataset.session)))

    async def open(self, session: str) -> None:
        entry = self.by_id.get(session)
        if entry is None:
            self.jobs.set_state("done")
            return
        self.state.scroll = int(self.el["library-list"].scrollTop or 0)
        self.opened = session
        self.view.session = session
        self._show_list(False)
        picked = [self.files[p] for p in entry.files if p in self.files]
        name = entry.summary.main or next(iter(entry.files), session)
        if self.source.kind == "watch" and self.watch_session is not None:
            self.clear()
            self.watch_session(set(entry.group.files), _session_dirs(entry))
            show(self.el["library-back"])
            return
        hit = self.state.hits.get(session) if self.state.query else None
        text = workspace_query(self.state.query) if hit is not None else ""
        self.own = True
        try:
            await self.opener.open_session(picked, name, self.source, Asked(text=text or None))
        finally:
            self.own = False
        if self.shown.ws is not None and self.opened == session:
            show(self.el["library-back"])
            if text:
                self.first_match()  # a search's result: at its first match
            self.address.sync()

    def back(self) -> None:
        """The list as it was left: its sort, filter, grouping and scroll."""
        if self.shelf is None:
            return
        self.opened = ""
        self.view.session = ""
        self.clear()
        show(self.el["library-back"], False)
        self._show_list(True)
        self.notices.say(self._notes(self.shelf))
        self.el["library-list"].scrollTop = self.state.scroll
        self.jobs.status(f"{fmt_int(len(self.shelf.entries))} sessions in {self.name}")
        self.el["library-source"].textContent = f"{self.name} · {fmt_int(self.shelf.files)} files"
        self.jobs.set_state("done")

    def dropped(self) -> None:
        """Another input (not one of the list's sessions) is shown: the list is let go."""
        if self.own:
            return
        self.shelf, self.files, self.by_id, self.opened = None, {}, {}, ""
        self.view.session = ""
        self.generation += 1
        self._show_list(False)
        show(self.el["library-back"], False)
        self.list.let_go()
