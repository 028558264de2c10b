"""app: the page's controllers, made and wired together, run in the web worker (main.py) on
remote/'s mirror of the page's DOM.

Theory of operation
-------------------
Each controller has one job and gets what it needs of the others in its constructor, typed
(the object itself, or a ``Protocol`` of the few methods it calls); where one must follow
another that is made after it, the earlier one offers a ``Signal`` and the app connects them
here. State lives in two objects every controller shares: ``ViewState`` (what the reader looks
at, mirrored in the address) and ``Shown`` (the workspace on screen).

    sources     where input comes from (paste, files, drop, URL, example, link)
    loads       the one load path: classify once, read, translate, show; the audit
    screen      a translation drawn: panels, rows, swimlanes; first rows of a big input
    strategy    the strategy select, "Compare with lineage", the audit's links (re-runs)
    filters     which rows are shown, in which order
    selection   the selected row, that any view sets and others follow
    stepper     the step-through
    timeline    the rows, virtualized
    swimlanes   the agents in time (the page draws; this sends the data)
    keyboard    the key table, for the page and for us
    actions     delegated clicks on data-action buttons and rows
    links, embed, redact_switch, exports   sharing and downloads
    watch       following a file or folder as it grows
    chrome      the detail panel's tabs, fold and size; theme, help, skip links, legend
    reading     the two readings of one run (run, protocol), and the switch

Every handler goes through one error path (``Jobs.safe``): a bug of ours is said on the page.

Must not: draw, read input or hold state of its own beyond the controllers it made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from . import help_panel, keyboard, panels
from .actions import Actions
from .chips import Chips
from .chrome import Chrome, page_panels, stored_theme, url_theme
from .dom import Element, Listeners
from .embed import Embed
from .exports import Exports
from .filters import Filters
from .host import Host
from .jobs import Jobs
from .keyboard import Keyboard
from .library_view import Library
from .links import Links
from .loads import Loads
from .matches import Matches
from .model import EXAMPLES, RowView, Workspace
from .notices import Notices
from .outline import Outline
from .protocol import Work
from .reading import Reading
from .redact_switch import RedactSwitch
from .remote import DOCUMENT as document
from .remote import WINDOW as window
from .screen import Screen
from .selection import Selection
from .sources import Sources
from .stepper import Stepper
from .strategy import StrategySwitch
from .swimlanes import Swimlanes
from .timeline import Timeline
from .view import Address, Shown, ViewState, query_dict, view_from
from .watch import Watcher


class Parts(Protocol):
    """The page's parts imported when first used, not at its boot (web.main imports them then):
    an opened row's content drawn (``detail_view.content``: the structured detail with difflib,
    a message's Markdown with markdown-it-py) and the snapshot's renderer (``snapshot.render``)."""

    def content(self, box: Element, ws: Workspace, r: RowView, labels: dict[str, str]) -> None: ...

    def snapshot(self, source: bytes | Mapping[str, bytes], *, strategy: str | None = None, name: str | None = None,
                 view: Mapping[str, str] | None = None, redacted: str | None = None) -> str: ...


class App:
    def __init__(self, host: Host, parts: Parts) -> None:
        el = document.element
        self.host = host
        self.root = document.documentElement
        embed_mode = str(self.root.getAttribute("data-embed") or "") == "1"
        view, shown = self.view, self.shown = ViewState(), Shown()
        jobs = self.jobs = Jobs(self.root, el("status"), el("progress"), el("timeline"))
        self.listeners = Listeners(jobs.safe)
        notices = self.notices = Notices(el("message"))
        address = self.address = Address(view, shown)
        timeline = self.timeline = Timeline(shown, view, jobs, el("timeline"), el("timeline-sizer"), parts.content)
        timeline.wrap = not embed_mode
        timeline.page_scroll = not embed_mode  # an embed's one scroll area stays where it opened
        chips = self.chips = Chips(view, shown, el("type-filter"))
        matches = self.matches = Matches(view, shown, timeline, el("search-count"), el("search-prev"), el("search-next"))
        filters = self.filters = Filters(view, shown, timeline, jobs, address, chips, matches)
        selection = self.selection = Selection(view, shown, timeline, filters, address)
        stepper = self.stepper = Stepper(view, shown, timeline, jobs, selection, address, embed=embed_mode)
        swimlanes = self.swimlanes = Swimlanes(view, shown, selection, stepper, filters, address)
        self.panels = page_panels(view, address, embed=embed_mode)
        reading = self.reading = Reading(view, shown, address)
        chips.groups = reading.groups
        chrome = self.chrome = Chrome(shown, self.panels)
        screen = self.screen = Screen(view, shown, jobs, timeline, filters, selection, stepper, swimlanes,
                                      self.panels, chrome, notices, address, embed=embed_mode)
        self.strategy = StrategySwitch(view, shown, jobs, screen, selection, stepper, timeline)
        redaction = self.redaction = RedactSwitch(shown)
        links = self.links = Links(view, shown, jobs, notices, address, redaction, self.strategy)
        self.embed = Embed(view, shown, links)
        self.exports = Exports(shown, redaction, host, links.params, parts.snapshot)
        loads = self.loads = Loads(view, shown, jobs, screen, links, notices, address, host)
        self.sources = Sources(shown, jobs, loads, links, notices)
        library = self.library = Library(view, shown, jobs, notices, address, loads, screen.clear,
                                         lambda: matches.move(1))
        loads.offer = library.offer
        self.sources.session_asked = library.asked
        self.watcher = Watcher(view, shown, jobs, screen, filters, stepper, timeline, notices)
        self.outline = Outline(shown, timeline)
        self.watcher.offer = library.offer
        library.watch_session = self.watcher.watch_session
        self.keyboard = Keyboard(view, shown, jobs, timeline, stepper, selection, filters, self.panels, chrome)
        self.actions = Actions(shown, jobs, {
            "example": self.sources.example,
            "goto": lambda seq: selection.goto(int(seq)),
            "chapter": lambda seq: self.go_chapter(int(seq)),
            "lane": selection.goto_lane,
            "fragments": lambda seq: filters.toggle_group(int(seq)),
            "lane-only": filters.only_lane,
            "step-of": lambda seq: self.step_of(int(seq)),
            "error": self.show_error,
            "audit-lost": self.follow_lost,
            "audit-dup": lambda name: self.strategy.follow_audit("audit-dup", name),
        }, selection, stepper)
        self._connect()

    def _connect(self) -> None:
        """Who follows whom."""
        self.jobs.failed.connect(self.notices.fail)
        self.jobs.failed.connect(lambda _: self.timeline.render())
        self.selection.changed.connect(self.stepper.follow)
        self.selection.changed.connect(self.swimlanes.follow)
        self.selection.changed.connect(self.matches.count)
        self.matches.moved.connect(lambda seq: self.selection.select(seq, expanded=False))
        self.filters.rows_changed.connect(self.stepper.rows_changed)
        self.address.synced.connect(self.links.follow)
        self.address.synced.connect(self.embed.follow)
        self.redaction.changed.connect(self.links.remake)
        self.redaction.changed.connect(self.embed.remake)
        self.screen.presented.connect(self.strategy.update_compare)
        self.screen.presented.connect(self.reading.draw)
        self.screen.presented.connect(self.outline.draw)
        self.filters.rows_changed.connect(self.outline.follow)
        self.reading.followers.append(self)
        self.selection.changed.connect(lambda seq, _: self.draw_row_panel())
        self.panels.chosen.connect(lambda _: self.draw_row_panel())
        for replaced in (self.links.reset, self.embed.reset, self.redaction.reset, self.strategy.forget_compare,
                         self.watcher.drop, self.filters.forget_saved, self.library.dropped):
            self.loads.replaced.connect(replaced)

    def scrolled(self) -> None:
        self.timeline.render()
        self.outline.follow()

    def reading_changed(self) -> None:
        """The other reading: its chips, its rows, its tab (unless one was chosen)."""
        if self.shown.ws is None:
            return
        self.chips.draw()
        self.panels.draw()
        self.filters.apply()
        self.draw_row_panel()

    def draw_row_panel(self) -> None:
        """The row tab: the selected row's facts (drawn while the tab is shown only)."""
        ws, el = self.shown.ws, document.element
        if ws is None or self.panels.current() != "row":
            return
        seq = self.view.row
        row = ws.row(seq) if seq is not None and 0 <= seq < len(ws.relays) else None
        panels.row_facts(el("row-panel-body"), el("row-panel-empty"), ws, row, self.shown.labels)

    def go_chapter(self, seq: int) -> None:
        """An outline entry: its prompt's row selected (closed) at the top of the rows; the focus
        stays in the outline, to go on to another chapter."""
        self.selection.select(seq, expanded=False)
        i = self.timeline.index.get(seq)
        if i is not None:
            self.timeline.container.scrollTop = self.timeline.top(i)
            self.timeline.render()
        k = next((c.index for c in self.outline.found if c.seq == seq), None)
        if k is not None:
            self.outline.went_to(k)

    def follow_lost(self, strategy: str) -> None:
        """The audit's "first lost block" link: its step, in the step-through's tab."""
        self.panels.choose("stepper")
        self.strategy.follow_audit("audit-lost", strategy)

    def step_of(self, seq: int) -> None:
        """A row's "its step" link: the step-through shows the line that emitted it."""
        self.panels.choose("stepper")
        self.stepper.go_seq(seq)

    def show_error(self, index: str) -> None:
        """An unreadable line's link: its step, and the first row it emitted."""
        ws = self.shown.ws
        if ws is None:
            return
        err = ws.errors[int(index)]
        i = ws.step_of_line(err.file, err.line)
        self.stepper.go(i)
        seqs = ws.step(i).seqs
        if seqs:
            self.selection.select(seqs[0], expanded=True, follow_step=False)

    # -- start --------------------------------------------------------------------------------

    def start(self) -> None:
        el, on = document.element, self.listeners.on
        for controller in (self.sources, self.library, self.filters, self.stepper, self.strategy, self.links, self.embed,
                           self.redaction, self.exports, self.panels, self.chrome, self.reading):
            controller.wire(on)
        self.swimlanes.wire(on)
        self.actions.wire(on, [el(name) for name in ("examples", "lanes", "stepper", "audit", "errors", "panel-row",
                                                     "swimlanes-tracks", "outline")],
                          el("timeline"))
        on(el("run-audit"), "click", lambda _: self.jobs.start_work(self.loads.audit()), work=Work.ALWAYS)
        on(el("timeline"), "scroll", lambda _: self.scrolled())
        on(window, "resize", lambda _: self.timeline.render())
        on(document, "keydown", self.keyboard.on_key, keys=keyboard.for_page())
        panels.examples(el("examples"), EXAMPLES)
        help_panel.draw(el("help"))
        self.chrome.apply_theme(url_theme() or stored_theme(), save=False)
        first = view_from(query_dict(str(window.location.search)))
        self.view.tab, self.view.size = first.tab or "", first.size or 0
        # a phone's window (ui.mjs: narrow when the page opened): the rows get the screen, the detail
        # panel starts at its tab bar unless the address asks for a tab, the swimlanes at their head
        narrow = self.root.getAttribute("data-narrow") == "start" and self.root.getAttribute("data-embed") != "1"
        self.view.detail_open = first.detail_open is not False and not (narrow and first.tab is None)
        if narrow:
            self.chrome.fold_swimlanes()
        self.view.step_scope = first.scope or "all"
        self.view.fold = first.fold is not False
        self.panels.draw()
        load_ms = self.host.now()
        self.root.dataset.loadMs = f"{load_ms:.0f}"
        el("load-time").textContent = f"Python ready in {load_ms / 1000:.1f} s"
        self.jobs.status("Ready. Paste, drop or open a transcript, or pick an example.")
        self.jobs.set_state("ready")
        self.sources.initial()
        self.loads.take_drops()  # those made while Python booted, then each new one
        self.watcher.wire(on)
