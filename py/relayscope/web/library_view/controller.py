"""library_view.controller: the library view's controller, :class:`Library`.

It offers an input of several files to the core's rule, lists the sessions it makes in the
page's table (``library_view.table`` gives each cell's text and the order), fills in the figures
that need every line a session at a time, runs a search across the sessions, sorts, filters
and groups the rows the page already holds, opens a row's session through the one load path,
and brings the list back as it was ("Back to the library"). The package's docstring says how.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Final, Protocol

from ... import libsearch
from ...libsearch import BytesSource
from ...query import LIBRARY_TERMS, parse
from ..dom import Element, On, fmt_int, h, option, show
from ..jobs import SLICE_BUDGET, Jobs, hand_back
from ..notices import Notices
from ..protocol import Picked
from ..remote import DOCUMENT as document
from ..shelf import Entry, Shelf, list_sessions, read_session
from ..view import Address, Asked, Shown, Source, ViewState
from .table import (
    BY_KEY,
    COLUMNS,
    DRAW_ROWS,
    FILTER_S,
    PENDING,
    PROGRESS_S,
    State,
    _project,
    _session_dirs,
    cell_text,
    keeps,
    ordered,
    workspace_query,
)

IDS: Final = ("library", "library-count", "library-count-unit", "library-source", "library-project",
              "library-filter", "library-search", "library-search-cancel", "library-group", "library-sort",
              "library-status", "library-progress", "library-list", "library-table", "library-head",
              "library-back", "workspace", "examples-box", "library-wanted")


class Opener(Protocol):
    """The load path (loads.py): a session's files, loaded as if opened by themselves, at a view."""

    async def open_session(self, files: list[Picked], name: str, source: Source, view: Asked) -> None: ...


def _drop(ahead: asyncio.Future[BytesSource] | None) -> None:
    """A read ahead no longer wanted (the search was cancelled): its bytes are let go."""
    if ahead is not None:
        ahead.cancel()


def _set_text(el: Element, text: str) -> None:
    """An element's text, sent to the page only when it changes: the search sets the filter's
    every group head again after each slice, and each text set is an op the page lays the list
    out again for."""
    if el.textContent != text:
        el.textContent = text


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
        self.rows: dict[str, Element] = {}  # session id -> its row
        self.cells: dict[str, dict[str, Element]] = {}
        self.bodies: dict[str, Element] = {}  # project -> its group's tbody ("" flat)
        self.heads: dict[str, Element] = {}  # project -> its group's heading cell
        self.by_id: dict[str, Entry] = {}
        self.opened = ""  # the session shown from the list ("" none)
        self.own = False  # the load under way is a session of the list's (its ``replaced`` keeps the list)
        self.wanted = ""  # a session the address names, to open once its files come
        self.generation = 0  # a new list: the old one's filler stops
        self.sort_buttons: dict[str, Element] = {}
        self.search_generation = 0  # the search running (0: none)
        self._search_runs = 0
        self._said = 0.0  # when the listing's progress was last said
        self.marks: list[Element] = []  # the search's counts shown on the rows

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
        on(e["library-search"], "keydown", self._on_search_key)
        on(e["library-search-cancel"], "click", lambda _: self.cancel_search())
        self._draw_head()

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
        self.rows, self.cells = {}, {}
        for body in self.bodies.values():
            body.remove()
        self.bodies, self.heads = {}, {}
        e["library-count"].textContent = "…"
        stage = h("tbody", attrs={"hidden": True})
        e["library-table"].append(stage)
        for k in range(0, len(shelf.entries), DRAW_ROWS):
            for entry in shelf.entries[k:k + DRAW_ROWS]:
                self._make_row(entry)
                stage.append(self.rows[entry.id])
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
            while self.generation == generation and (self.opened or self.searching):
                await asyncio.sleep(0.2)
            if self.generation != generation:
                return
            source = await read_session(entry)
            if self.generation != generation:
                return
            entry.summary = libsearch.fill(entry.summary, entry.group, source)
            del source
            self._draw_figures(entry)
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

    def _draw_figures(self, entry: Entry) -> None:
        cells = self.cells.get(entry.id)
        if cells is None:
            return
        for key in ("tools", "errors", "tokens", "model"):
            cells[key].textContent = cell_text(entry, key)
            cells[key].classList.toggle("pending", False)
        for key, n in (("tools", entry.summary.tool_calls), ("errors", entry.summary.errors)):
            if n == 1:
                cells[key].setAttribute("data-one", "")
        cells["model"].setAttribute("title", ", ".join(entry.summary.models) or "–")
        cells["errors"].classList.toggle("has-errors", bool(entry.summary.errors))
        s = entry.summary
        if s.tokens is not None:
            cells["tokens"].setAttribute("title", f"input {fmt_int(s.input_tokens or 0)} · output "
                                         f"{fmt_int(s.output_tokens or 0)} · cache read {fmt_int(s.cache_read_tokens or 0)}"
                                         f" · cache write {fmt_int(s.cache_creation_tokens or 0)}")

    # -- search across the sessions --------------------------------------------------------------

    @property
    def searching(self) -> bool:
        return self.search_generation > 0

    def _on_search_key(self, event: Any) -> None:
        if event.key == "Enter":
            self.run_search(str(self.el["library-search"].value))
        elif event.key == "Escape":
            self.el["library-search"].value = ""
            self.run_search("")

    def run_search(self, text: str) -> None:
        """Search every session listed (the filters' sessions first come in the list's order);
        "" clears the search."""
        self.cancel_search(say=False)
        st = self.state
        st.query, st.hits, st.searched = text.strip(), {}, set()
        self._clear_hit_marks()
        if not st.query or self.shelf is None:
            self.el["library-status"].textContent = ""
            self._apply_filter()
            return
        try:
            parse(st.query, LIBRARY_TERMS)
        except ValueError as exc:
            self.el["library-status"].textContent = str(exc)
            return
        self._search_runs += 1
        self.search_generation = self._search_runs
        self.el["library"].dataset.searching = "true"
        show(self.el["library-search-cancel"])
        self.jobs.spawn(self._search(self.search_generation, st.query))

    def cancel_search(self, say: bool = True) -> None:
        if not self.searching:
            return
        self.search_generation = 0
        self._end_search()
        if say:
            st = self.state
            n = len(self.shelf.entries) if self.shelf else 0
            self.el["library-status"].textContent = (f"Search cancelled after {fmt_int(len(st.searched))} of {fmt_int(n)} "
                                                     f"sessions: {fmt_int(len(st.hits))} match so far; the sessions not "
                                                     "searched stay listed.")

    def _end_search(self) -> None:
        self.el["library"].removeAttribute("data-searching")
        show(self.el["library-search-cancel"], False)
        show(self.el["library-progress"], bool(self.el["library"].dataset.filling))

    async def _search(self, generation: int, text: str) -> None:
        shelf = self.shelf
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
            if self.search_generation != generation:
                _drop(ahead)
                return
            if time.perf_counter() - said > PROGRESS_S:  # each text set is an op for the page
                said = time.perf_counter()
                status.textContent = (f"Searching “{text}”: {k} of {fmt_int(len(entries))} sessions, "
                                      f"{fmt_int(len(st.hits))} match ({done / total:.0%})")
            assert ahead is not None
            source = await ahead
            ahead = asyncio.ensure_future(read_session(entries[k + 1])) if k + 1 < len(entries) else None
            if self.search_generation != generation:
                _drop(ahead)
                return
            try:
                for found in libsearch.search(text, [(entry.summary, entry.group)], source):
                    if isinstance(found, libsearch.Hit):
                        st.hits[entry.id] = found
            except libsearch.Unsupported as exc:
                _drop(ahead)
                self.search_generation = 0
                self._end_search()
                status.textContent = str(exc)
                st.query = ""
                self._apply_filter()
                return
            del source
            st.searched.add(entry.id)
            done += entry.summary.size
            self._mark_hit(entry)
            if time.perf_counter() - began > SLICE_BUDGET:
                bar.value = done / total
                if time.perf_counter() - filtered > FILTER_S:  # a look at every row: not each slice
                    self._apply_filter()
                    filtered = time.perf_counter()
                await hand_back()
                began = time.perf_counter()
        bar.value = 1
        self.search_generation = 0
        self._end_search()
        self._apply_filter()
        self.el["library"].dataset.searchMs = f"{(time.perf_counter() - start) * 1000:.0f}"
        rows = sum(h.count or 0 for h in st.hits.values())
        status.textContent = (f"“{text}”: {fmt_int(len(st.hits))} of {fmt_int(len(entries))} sessions match"
                              + (f", {fmt_int(rows)} matching rows" if rows else ""))

    def _mark_hit(self, entry: Entry) -> None:
        hit = self.state.hits.get(entry.id)
        cells = self.cells.get(entry.id)
        if hit is None or cells is None:
            return
        words = "matches" if hit.count is None else f"{fmt_int(hit.count)} row{'' if hit.count == 1 else 's'}"
        mark = h("span", words, cls="lib-hits", attrs={"data-testid": "library-hits",
                                                       "data-count": "" if hit.count is None else str(hit.count)})
        cells["title"].children[0].children[0].before(mark)  # before the title, which an ellipsis may cut
        self.marks.append(mark)

    def _clear_hit_marks(self) -> None:
        for mark in self.marks:
            mark.remove()
        self.marks = []

    def _make_row(self, entry: Entry) -> None:
        cells: dict[str, Element] = {}
        tds = []
        for col in COLUMNS:
            text = cell_text(entry, col.key)
            if col.key == "title":
                td = h("td", cls="lib-title", attrs={"data-col": col.key}, children=[h("div", cls="lib-title-in", children=[
                    h("button", text, cls="link lib-open", attrs={"type": "button", "data-action": "library-open",
                                                                  "data-session": entry.id,
                                                                  "title": entry.summary.title or entry.id})])])
            else:
                cls = " ".join(c for c in ("num" if col.numeric and col.key not in ("start", "last") else "",
                                           "pending" if text == PENDING else "") if c)
                td = h("td", text, cls=cls or None, attrs={"data-col": col.key,
                                                          "title": self._cell_title(entry, col.key)})
            cells[col.key] = td
            tds.append(td)
        tr = h("tr", cls="lib-row", attrs={"data-testid": "library-session", "data-session": entry.id,
                                           "data-project": _project(entry)}, children=tds)
        self.rows[entry.id], self.cells[entry.id] = tr, cells

    def _cell_title(self, entry: Entry, key: str) -> str | None:
        s = entry.summary
        if key == "project":
            return " · ".join(x for x in (s.cwd or s.project, s.project_dir and f"folder {s.project_dir}",
                                          s.git_branch and f"branch {s.git_branch}", f"session {s.session}") if x)
        if key == "cli" and s.cli_versions:
            return ", ".join(s.cli_versions)
        if key == "model" and s.models:
            return ", ".join(s.models)
        if key in ("start", "last"):
            return (s.start if key == "start" else s.last_activity) or None
        if key == "size":
            return f"{fmt_int(s.size)} bytes in {len(s.files)} file(s)"
        return None

    # -- sort, filter, group -----------------------------------------------------------------

    def _draw_head(self) -> None:
        ths = []
        for col in COLUMNS:
            button = h("button", col.label, cls="lib-sort", attrs={"type": "button", "data-sort": col.key,
                                                                   "title": col.title or None})
            self.sort_buttons[col.key] = button
            ths.append(h("th", cls="num" if col.numeric and col.key not in ("start", "last") else None,
                         attrs={"scope": "col", "data-col": col.key}, children=[button]))
        self.el["library-head"].replaceChildren(h("tr", children=ths))
        self.el["library-sort"].replaceChildren(*[option(c.key, f"Sort: {c.label}") for c in COLUMNS])
        self._mark_sort()

    def _mark_sort(self) -> None:
        for key, button in self.sort_buttons.items():
            th = button.parentElement
            if th is None:
                continue
            if key == self.state.sort:
                th.setAttribute("aria-sort", "descending" if self.state.descending else "ascending")
            else:
                th.removeAttribute("aria-sort")

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
        self._apply_filter()

    def _arrange(self) -> None:
        """The rows in the order and groups chosen, then the filters. Rows the page holds are
        moved into the new groups' bodies (a move, not a drawing), before the old bodies go."""
        if self.shelf is None:
            return
        self._mark_sort()
        self.el["library"].dataset.grouped = "true" if self.state.grouped else "false"
        self.el["library-group"].setAttribute("aria-pressed", "true" if self.state.grouped else "false")
        groups: dict[str, list[Entry]] = {}
        for entry in ordered(self.shelf.entries, self.state):
            groups.setdefault(_project(entry) if self.state.grouped else "", []).append(entry)
        old, self.bodies, self.heads = list(self.bodies.values()), {}, {}
        span = str(len(COLUMNS))
        table = self.el["library-table"]
        for project, members in groups.items():
            children = []
            if self.state.grouped:
                head = self.heads[project] = h("th", project, attrs={"colspan": span, "scope": "rowgroup"})
                children.append(h("tr", cls="lib-group", children=[head]))
            body = self.bodies[project] = h("tbody", attrs={"data-project": project or None}, children=children)
            table.append(body)
            body.append(*[self.rows[m.id] for m in members])
        for body in old:
            body.remove()
        self._apply_filter()

    def _apply_filter(self) -> None:
        if self.shelf is None:
            return
        shown = 0
        per: dict[str, int] = {}
        for entry in self.shelf.entries:
            keep = keeps(entry, self.state)
            self.rows[entry.id].hidden = not keep
            if keep:
                shown += 1
                per[_project(entry)] = per.get(_project(entry), 0) + 1
        for project, head in self.heads.items():
            n = per.get(project, 0)
            _set_text(head, f"{project} · {fmt_int(n)} session{'' if n == 1 else 's'}")
            body = self.bodies.get(project)
            if body is not None:
                body.hidden = n == 0
        total = len(self.shelf.entries)
        _set_text(self.el["library-count"], fmt_int(shown))
        self.el["library-count"].dataset.total = str(total)
        _set_text(self.el["library-count-unit"], f"session{'' if shown == 1 else 's'}" if shown == total
                  else f"of {fmt_int(total)} sessions")

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
        for body in self.bodies.values():
            body.remove()
        self.rows, self.cells, self.bodies, self.heads = {}, {}, {}, {}
