"""filters: which rows the timeline shows, and in what order: the search (search.py's grammar),
what the chips chose (chips.py), the lane, bookkeeping records, the drift notice's rows, a range
dragged on the swimlanes; the filter a link had to clear, and the way back to it.

``rows`` is the one place that decides the rows shown and their order (the timeline draws any
order it is given); ``rows_changed`` tells who follows it (the stepper's "lines of the rows
shown"). ``restrict`` lets another view narrow the rows (the swimlanes' range). The search's
matches ("n of m", next and previous) are matches.py's, counted again whenever the rows change.

Must not: select a row or step (selection.py, stepper.py), or decide what a row shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import msgspec

from . import newest, panels
from .chips import Chips
from .dom import On, fmt_int, option, show
from .jobs import Jobs
from .matches import Matches
from .remote import DOCUMENT as document
from .remote import Event
from .search import parse
from .timeline import Timeline
from .view import Address, Shown, Signal, ViewState

FILTER_DELAY_MS: Final = 150
IDS: Final = ("filter", "lane-filter", "order", "search-prev", "search-next", "relay-count", "relay-count-of", "timeline", "lanes",
              "filter-cleared", "filter-cleared-text", "filter-restore", "drift-notice")


class Saved(msgspec.Struct):
    """A filter a link cleared to show its row, to put back."""

    text: str
    types: set[str] = msgspec.field(default_factory=set)
    xtypes: set[str] = msgspec.field(default_factory=set)
    lane: str = ""
    bookkeeping: bool = False


class Filters:
    def __init__(self, view: ViewState, shown: Shown, timeline: Timeline, jobs: Jobs, address: Address,
                 chips: Chips, matches: Matches) -> None:
        self.view, self.shown, self.timeline, self.jobs, self.address = view, shown, timeline, jobs, address
        self.chips, self.matches = chips, matches
        chips.changed.connect(self._chosen)
        self.els = {name: document.element(name) for name in IDS}
        self.rows_changed: Signal[[]] = Signal()
        self.saved: Saved | None = None
        self.drift: newest.DriftView | None = None  # the drift notice and its one-click filter
        self.drift_only = False
        self._within: Callable[[list[int]], list[int]] | None = None
        self.matching = False  # the status line says what a search matches

    def wire(self, on: On) -> None:
        e = self.els
        on(e["filter"], "input", lambda _: self.jobs.later("filter", FILTER_DELAY_MS, self.apply_text))
        on(e["lane-filter"], "change", self.on_lane_filter)
        on(e["order"], "change", self.on_order)
        on(e["search-prev"], "click", lambda _: self.move_match(-1))
        on(e["search-next"], "click", lambda _: self.move_match(1))
        self.chips.wire(on)
        on(e["filter-restore"], "click", lambda _: self.restore())
        on(e["drift-notice"], "click", self.on_drift_filter)

    # -- a new input ---------------------------------------------------------------------------------

    def start(self) -> None:
        """The filters of the input just shown: its lanes and types, its drift."""
        ws = self.shown.ws
        assert ws is not None
        st = self.view
        if st.lane and st.lane not in self.shown.labels:
            st.lane = ""
        known = set(self.chips.counts())
        st.types &= known
        st.xtypes &= known
        self.els["filter"].value = st.text
        self.els["order"].value = st.order
        self.draw_lane_filter()
        self.chips.draw()
        self.draw_lanes()
        self.drift, self.drift_only = newest.drift_view(ws), False
        newest.draw_notice(self.els["drift-notice"], self.drift, False)

    def _chosen(self) -> None:
        """A chip pressed: its rows."""
        self.forget_saved()
        self.apply()

    def forget_saved(self) -> None:
        self.saved = None
        show(self.els["filter-cleared"], False)

    # -- the rows shown ------------------------------------------------------------------------------

    def rows(self) -> list[int]:
        """The rows shown, in the order shown: in time across lanes where the input has times
        (``order`` "lane": each sub-agent's rows after the call that started it, seq order); lost
        blocks' placeholders after the row emitted before them."""
        ws = self.shown.ws
        assert ws is not None
        st = self.view
        if st.reading == "run":  # chips by meaning; a call's result is folded into the call's row
            seqs = ws.select(st.text, (), (), st.lane, st.bookkeeping or self.drift_only)
            groups = self.chips.groups()
            if st.types or st.xtypes:
                seqs = [q for q in seqs if (not st.types or groups[q] in st.types) and groups[q] not in st.xtypes]
            # a result that matches shows as its call's row, which holds it (a failed call is found
            # by is:error, a call by words of its output)
            seqs = sorted({q if (call := ws.folded_into(q)) is None else call for q in seqs})
        else:
            seqs = ws.select(st.text, st.types, st.xtypes, st.lane, st.bookkeeping or self.drift_only)
        if self._within is not None:
            seqs = self._within(seqs)
        if self.drift_only and self.drift is not None:
            seqs = [q for q in seqs if q in self.drift.seqs]
        self._count(len(seqs))
        keep = ws.lost_matching(parse(st.text), st.lane)  # a search keeps only is:lost's
        lost: bool | set[int] = False if st.types or st.xtypes else True if keep is None else keep
        return ws.in_order(ws.rows(seqs, self.shown.open_groups, lost=lost, lane=st.lane), st.order)

    def _count(self, n: int) -> None:
        ws = self.shown.ws
        assert ws is not None
        count = self.els["relay-count"]
        count.textContent = str(n)
        count.dataset.total = str(len(ws.relays))
        count.dataset.hidden = "0" if self.view.bookkeeping else str(ws.bookkeeping_count)
        self.els["relay-count-of"].textContent = f"of {fmt_int(len(ws.relays))}" if n != len(ws.relays) else ""

    def apply(self, scroll_top: bool = False) -> None:
        """The timeline shows the rows the filters leave (the selected one in view)."""
        if self.shown.ws is None:
            return
        rows = self.rows()
        self._say_match()
        if scroll_top:
            self.els["timeline"].scrollTop = 0
        self.timeline.set_rows(rows)
        self.rows_changed.emit()
        if self.view.row is not None and self.view.row in self.timeline.index:
            self.timeline.scroll_to(self.view.row)
        self.matches.count()
        self.address.sync()

    def _say_match(self) -> None:
        """The status line says what a search matches, and stops saying it once the search is gone."""
        text, count = self.view.text.strip(), str(self.els["relay-count"].textContent)
        if text:
            self.jobs.status(f"{count} relay events match “{text}”")
            self.matching = True
        elif self.matching:
            self.matching = False
            total = self.shown.ws.relays if self.shown.ws is not None else []
            self.jobs.status(f"{count} of {fmt_int(len(total))} relay events shown")

    def move_match(self, delta: int) -> None:
        """The next (1) or previous (-1) match (matches.py), the search typed run first."""
        if str(self.els["filter"].value) != self.view.text:  # typed, and the search not yet run
            self.jobs.cancel("filter")
            self.apply_text()
            if self.jobs.busy:  # its index is being built: the rows come when it is
                return
        self.matches.move(delta)

    def restrict(self, within: Callable[[list[int]], list[int]] | None) -> None:
        """Narrow the rows to those ``within`` keeps (None: no more), and show them."""
        self._within = within
        self.apply()

    def toggle_group(self, head: int) -> None:
        """Show a group of streamed fragments one by one, or joined again."""
        self.shown.open_groups ^= {head}
        self.apply()

    def unfold(self, seq: int) -> bool:
        """``seq`` is inside a folded group: open the group. Whether it is now a row."""
        ws = self.shown.ws
        head = ws.group_of(seq) if ws is not None else None
        if head is None or head not in self.timeline.index:
            return False
        self.shown.open_groups.add(head)
        self.apply()
        return seq in self.timeline.index

    def clear_for(self, seq: int) -> None:
        """``seq`` is filtered out: show everything again rather than select an invisible row,
        and say so (the filter can be put back)."""
        st, ws = self.view, self.shown.ws
        self.saved = Saved(st.text, set(st.types), set(st.xtypes), st.lane, st.bookkeeping)
        st.text, st.types, st.xtypes = "", set(), set()
        st.bookkeeping = st.bookkeeping or bool(ws and ws.is_bookkeeping(seq))
        self.els["filter"].value = ""
        self.chips.draw()
        self.set_lane("")
        self.els["filter-cleared-text"].textContent = f"The filter was cleared to show #{seq}."
        show(self.els["filter-cleared"])
        head = ws.group_of(seq) if ws is not None else None
        if head is not None and seq not in self.timeline.index:  # in a group of fragments: opened
            self.shown.open_groups.add(head)
            self.apply()

    def restore(self) -> None:
        """Put back the filter a link had to clear; the selected row stays if it still matches."""
        saved, self.saved = self.saved, None
        show(self.els["filter-cleared"], False)
        if saved is None or self.shown.ws is None:
            return
        st = self.view
        st.text, st.types, st.xtypes, st.bookkeeping = saved.text, saved.types, saved.xtypes, saved.bookkeeping
        self.els["filter"].value = st.text
        self.chips.draw()
        self.set_lane(saved.lane)

    # -- text ---------------------------------------------------------------------------------------

    def apply_text(self) -> None:
        self.forget_saved()
        self.view.text = str(self.els["filter"].value)
        self.matches.current = None
        ws = self.shown.ws
        if ws is not None and not self.jobs.busy and self.view.text.strip() and not ws.search_ready:
            self.jobs.spawn(self._index_then_filter())  # the first text search builds its index in slices
            return
        self.apply()

    async def _index_then_filter(self) -> None:
        ws = self.shown.ws
        assert ws is not None
        run = self.jobs.begin("Indexing the text for search…")
        if not await self.jobs.drive(ws.prepare_search(), run, "Indexing the text for search…"):
            return
        self.jobs.busy = False  # rows are drawn only when not busy: draw them now, not at the next scroll
        self.view.text = str(self.els["filter"].value)  # what was typed while the index was built
        self.apply()
        self.jobs.end(run, f"{self.els['relay-count'].textContent} relay events match “{self.view.text.strip()}”")

    def clear_text(self) -> None:
        """Esc in the filter: the text goes, and so does everything it did (count, rows, URL)."""
        self.jobs.cancel("filter")
        self.els["filter"].value = ""
        if self.view.text:
            self.view.text = ""
            self.matches.current = None
            self.apply()

    def focus(self) -> None:
        self.els["filter"].focus()

    # -- lanes --------------------------------------------------------------------------------------

    def draw_lane_filter(self) -> None:
        select = self.els["lane-filter"]
        ws = self.shown.ws
        select.replaceChildren(option("", "all lanes"), *[
            option(lane.id, ("  " * min(lane.depth, 4)) + lane.label) for lane in (ws.lanes if ws else [])])
        select.value = self.view.lane

    def draw_lanes(self) -> None:
        """The lane cards, the lane chosen marked."""
        ws = self.shown.ws
        if ws is not None:
            panels.lanes(self.els["lanes"], ws.lanes, self.shown.layout.color, self.view.lane, newest.lanes_facts(ws))

    def on_lane_filter(self, _event: Event) -> None:
        self.forget_saved()
        self.set_lane(str(self.els["lane-filter"].value))

    def set_lane(self, lane: str) -> None:
        if self.shown.ws is None:
            return
        self.view.lane = lane
        self.els["lane-filter"].value = lane
        self.draw_lanes()
        self.apply()

    def only_lane(self, lane: str) -> None:
        """A lane card's "only this lane", or "show all lanes" on the one chosen."""
        self.set_lane("" if self.view.lane == lane else lane)

    def on_order(self, _event: Event) -> None:
        """Rows in time across lanes, or by lane (each sub-agent's after the call that started it)."""
        self.view.order = "lane" if self.els["order"].value == "lane" else "time"
        self.apply()

    # -- drift --------------------------------------------------------------------------------------

    def on_drift_filter(self, event: Event) -> None:
        """The drift notice's button: only the rows of records new to this version, or all again."""
        if event.closest(f'button[data-action="{newest.FILTER_ACTION}"]') is None or self.shown.ws is None:
            return
        self.drift_only = not self.drift_only
        newest.draw_notice(self.els["drift-notice"], self.drift, self.drift_only)
        self.apply(scroll_top=True)

