"""filters: which rows the timeline shows, and in what order: the search (words and scoped terms,
search.py's grammar) with its count ("n of m") and its next and previous match, the type chips
(include, exclude), the lane, bookkeeping records, the drift notice's rows, a range dragged on
the swimlanes; the filter a link had to clear, and the way back to it.

``rows`` is the one place that decides the rows shown and their order (the timeline draws any
order it is given); ``rows_changed`` tells who follows it (the stepper's "lines of the rows
shown"). ``restrict`` lets another view narrow the rows (the swimlanes' range). ``match_moved`` asks
for a match to be selected (the selection is made after the filters: app.py connects them).

Must not: select a row or step (selection.py, stepper.py), or decide what a row shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from . import newest, panels, reading
from .dom import Element, On, fmt_int, option, show
from .jobs import Jobs
from .remote import DOCUMENT as document
from .remote import Event, Node
from .search import parse
from .timeline import Timeline
from .view import Address, Shown, Signal, ViewState

FILTER_DELAY_MS: Final = 150
IDS: Final = ("filter", "lane-filter", "order", "search-count", "search-prev", "search-next", "type-filter", "relay-count", "relay-count-of", "timeline", "lanes",
              "filter-cleared", "filter-cleared-text", "filter-restore", "drift-notice")


@dataclass
class Saved:
    """A filter a link cleared to show its row, to put back."""

    text: str
    types: set[str] = field(default_factory=set)
    xtypes: set[str] = field(default_factory=set)
    lane: str = ""
    bookkeeping: bool = False


class Filters:
    def __init__(self, view: ViewState, shown: Shown, timeline: Timeline, jobs: Jobs, address: Address) -> None:
        self.view, self.shown, self.timeline, self.jobs, self.address = view, shown, timeline, jobs, address
        self.els = {name: document.element(name) for name in IDS}
        self.rows_changed: Signal[[]] = Signal()
        self.saved: Saved | None = None
        self.drift: newest.DriftView | None = None  # the drift notice and its one-click filter
        self.drift_only = False
        self.chip_focus = ""  # the chip that holds the chips' one Tab stop (Keyboard.rove)
        self._within: Callable[[list[int]], list[int]] | None = None
        self.matching = False  # the status line says what a search matches
        self.groups: Callable[[], list[str]] = list  # each relay's chip in the run reading (Reading.groups)
        self.match_moved: Signal[[int]] = Signal()  # a search's next or previous match: select it
        self.current: int | None = None  # the match last moved to (a lost block's row is never selected)

    def wire(self, on: On) -> None:
        e = self.els
        on(e["filter"], "input", lambda _: self.jobs.later("filter", FILTER_DELAY_MS, self.apply_text))
        on(e["lane-filter"], "change", self.on_lane_filter)
        on(e["order"], "change", self.on_order)
        on(e["search-prev"], "click", lambda _: self.move_match(-1))
        on(e["search-next"], "click", lambda _: self.move_match(1))
        on(e["type-filter"], "click", self.on_type_chip)
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
        known = set(self.chip_counts())
        st.types &= known
        st.xtypes &= known
        self.els["filter"].value = st.text
        self.els["order"].value = st.order
        self.draw_lane_filter()
        self.draw_type_chips()
        self.draw_lanes()
        self.drift, self.drift_only = newest.drift_view(ws), False
        newest.draw_notice(self.els["drift-notice"], self.drift, False)

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
            groups = self.groups()
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
        self.count_matches()
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

    # -- the search's matches -------------------------------------------------------------------

    def count_matches(self, *_: object) -> None:
        """"n of m": the match selected (or last moved to) among the rows a search leaves; the
        count and the next and previous buttons show only while there is a search."""
        e, rows = self.els, self.timeline
        searching = self.shown.ws is not None and not parse(self.view.text).empty
        for name in ("search-count", "search-prev", "search-next"):
            show(e[name], searching)
        if not searching:
            e["search-count"].textContent = ""
            return
        here = self.view.row if self.view.row in rows.index else self.current
        k = rows.index.get(here) if here is not None else None
        e["search-count"].textContent = f"{0 if k is None else k + 1} of {fmt_int(len(rows.seqs))}"
        for name in ("search-prev", "search-next"):
            e[name].disabled = not rows.seqs

    def move_match(self, delta: int) -> None:
        """The next (1) or previous (-1) match, after the one selected, round at the ends."""
        if str(self.els["filter"].value) != self.view.text:  # typed, and the search not yet run
            self.jobs.cancel("filter")
            self.apply_text()
            if self.jobs.busy:  # its index is being built: the rows come when it is
                return
        seqs, index = self.timeline.seqs, self.timeline.index
        if not seqs or parse(self.view.text).empty:
            return
        here = self.view.row if self.view.row in index else self.current
        k = index.get(here) if here is not None else None
        k = (0 if delta > 0 else len(seqs) - 1) if k is None else (k + delta) % len(seqs)
        self.current = seqs[k]
        if self.current >= 0:
            self.match_moved.emit(self.current)
        else:  # a lost block's row: shown, not selected
            self.timeline.scroll_to(self.current, into_view=True)
        self.count_matches()

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
        self.draw_type_chips()
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
        self.draw_type_chips()
        self.set_lane(saved.lane)

    # -- text ---------------------------------------------------------------------------------------

    def apply_text(self) -> None:
        self.forget_saved()
        self.view.text = str(self.els["filter"].value)
        self.current = None
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
            self.current = None
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

    # -- types --------------------------------------------------------------------------------------

    def chip_counts(self) -> dict[str, int]:
        """The chips of the reading shown and how many relays each holds: relay types (protocol),
        what an event means (run; bookkeeping has its own chip, below the others)."""
        if self.view.reading != "run":
            return self.shown.type_counts
        counts = dict.fromkeys(reading.GROUPS, 0)
        for g in self.groups():
            counts[g] += 1
        return {g: n for g, n in counts.items() if n and g != "bookkeeping"}

    def draw_type_chips(self) -> None:
        box = self.els["type-filter"]
        box.replaceChildren()
        box.setAttribute("aria-label", ("What the events are" if self.view.reading == "run" else "Relay types")
                         + " (one Tab stop: arrow keys move between the chips)")
        for kind, count in self.chip_counts().items():
            chip = self._chip(f"chip t-{kind}", f"{kind} {fmt_int(count)}")
            chip.dataset.type = kind
            not_chip = self._chip("chip chip-not", "⊘")
            not_chip.dataset.exclude = kind
            self._chip_mode(chip, not_chip, kind)
            pair = document.createElement("span")
            pair.className = "chip-pair"
            pair.append(chip, not_chip)
            box.append(pair)
        ws = self.shown.ws
        hidden = ws.bookkeeping_count if ws else 0
        if hidden:
            shown = self.view.bookkeeping
            chip = self._chip("chip hidden-chip", f"{fmt_int(hidden)} bookkeeping shown · hide" if shown
                              else f"{fmt_int(hidden)} hidden · show")
            chip.dataset.bookkeeping = "1"
            chip.dataset.testid = "hidden-chip"
            chip.setAttribute("aria-pressed", "true" if shown else "false")
            chip.title = "progress, file-history-snapshot, queue-operation, hook progress … records"
            box.append(chip)
        # one Tab stop: the chip last moved to (arrows move, Keyboard.rove), else the first
        buttons = box.querySelectorAll("button")
        keys = [chip_key(b) for b in buttons]
        current = keys.index(self.chip_focus) if self.chip_focus in keys else 0
        for k, b in enumerate(buttons):
            b.setAttribute("tabindex", "0" if k == current else "-1")

    @staticmethod
    def _chip(cls: str, text: str) -> Element:
        chip = document.createElement("button")
        chip.type = "button"
        chip.className = cls
        chip.textContent = text
        return chip

    def _chip_mode(self, chip: Node, not_chip: Node, kind: str) -> None:
        """A type is neutral, included (its chip: only the types chosen) or excluded (its ⊘ button:
        every type but these)."""
        st = self.view
        mode = "include" if kind in st.types else "exclude" if kind in st.xtypes else None
        chip.setAttribute("aria-pressed", "true" if mode == "include" else "false")
        not_chip.setAttribute("aria-pressed", "true" if mode == "exclude" else "false")
        if mode:
            chip.dataset.mode = mode
        else:
            chip.removeAttribute("data-mode")
        chip.title = f"show only {kind} (with any other type chosen)"
        not_chip.title = f"hide {kind}"
        not_chip.setAttribute("aria-label", f"hide {kind}")

    def on_type_chip(self, event: Event) -> None:
        if self.shown.ws is None:
            return
        if event.closest("button[data-bookkeeping]") is not None:
            self.view.bookkeeping = not self.view.bookkeeping
            self.forget_saved()
            self.draw_type_chips()
            self.apply()
            return
        chip = event.closest("button[data-type], button[data-exclude]")
        if chip is None:
            return
        st = self.view
        excluding = chip.hasAttribute("data-exclude")
        kind = str(chip.dataset.exclude if excluding else chip.dataset.type)
        chosen, other = (st.xtypes, st.types) if excluding else (st.types, st.xtypes)
        chosen ^= {kind}
        other.discard(kind)
        pair = chip.parentElement
        if pair is not None:
            on, off = pair.querySelector("[data-type]"), pair.querySelector("[data-exclude]")
            if on is not None and off is not None:
                self._chip_mode(on, off, kind)
        self.forget_saved()
        self.apply()

    # -- drift --------------------------------------------------------------------------------------

    def on_drift_filter(self, event: Event) -> None:
        """The drift notice's button: only the rows of records new to this version, or all again."""
        if event.closest(f'button[data-action="{newest.FILTER_ACTION}"]') is None or self.shown.ws is None:
            return
        self.drift_only = not self.drift_only
        newest.draw_notice(self.els["drift-notice"], self.drift, self.drift_only)
        self.apply(scroll_top=True)


def chip_key(button: Node) -> str:
    """What a chip filters by, to find it again once the chips are drawn anew."""
    d = button.dataset
    return str(d.type or (f"-{d.exclude}" if d.exclude else "") or ("hidden" if d.bookkeeping else ""))
