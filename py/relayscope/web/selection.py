"""selection: the row the reader selected, open or not: one place any view sets it (the rows,
the keys, a link, a lane card, the swimlanes) and ``changed`` tells who follows it (the
step-through goes to the row's step, the address keeps it).

A row the filters hide is shown rather than selected invisibly: a folded group of streamed
fragments opens, or the filter is cleared (and can be put back, filters.py).

Must not: draw rows (timeline.py), or step (the stepper follows ``changed``).
"""

from __future__ import annotations

from typing import Final, Protocol

from .dom import Element
from .remote import DOCUMENT as document
from .remote import WINDOW as window
from .timeline import Timeline
from .view import Address, Shown, Signal, ViewState

FLASH_MS: Final = 1200


class Unhiding(Protocol):
    """What the selection needs of the filters: to show a row they hide."""

    def unfold(self, seq: int) -> bool: ...

    def clear_for(self, seq: int) -> None: ...


class Selection:
    def __init__(self, view: ViewState, shown: Shown, timeline: Timeline, filters: Unhiding, address: Address) -> None:
        self.view, self.shown, self.timeline, self.filters, self.address = view, shown, timeline, filters, address
        self.lanes: Element = document.element("lanes")
        self.changed: Signal[[int | None, bool]] = Signal()  # the row, and whether its step follows

    def select(self, seq: int | None, expanded: bool | None = None, follow_step: bool = True) -> None:
        """Select row ``seq`` (None: none), open or closed (None: as it was)."""
        st, ws = self.view, self.shown.ws
        if seq is not None and seq >= 0 and ws is not None and st.reading == "run" and seq not in self.timeline.index:
            call = ws.folded_into(seq)  # a result, shown in its call's row in this reading
            seq = call if call is not None else seq
        st.row = seq
        if expanded is not None:
            st.expanded = expanded
        hidden = seq is not None and seq not in self.timeline.index and self.shown.ws is not None
        if seq is not None and hidden and not self.filters.unfold(seq):  # not in a folded group, opened
            self.filters.clear_for(seq)
        self.timeline.select(seq, st.expanded)
        self.changed.emit(seq, follow_step)
        self.address.sync()

    def toggle(self, seq: int) -> None:
        """A click on a row: select it, or open or close it if it is selected."""
        same = seq == self.view.row
        self.select(seq, expanded=not (same and self.view.expanded))
        self.timeline.container.focus()

    def goto(self, seq: int) -> None:
        """A link to a row (a pair, a spawn, an emitted relay): select it, open, and take the
        focus to the rows (the link itself may be drawn anew, and focus must not fall to the page)."""
        self.select(seq, expanded=True)
        self.timeline.container.focus()

    def move(self, delta: int) -> None:
        """The row ``delta`` rows from the selected one (the keys), open if the selected one was."""
        self.select(self.timeline.neighbour(delta), expanded=self.view.expanded)

    def goto_lane(self, lane: str) -> None:
        """A lane's card flashes in view, and its first row is selected."""
        ws = self.shown.ws
        if ws is None:
            return
        card = self.lanes.querySelector(f'[data-lane="{window.CSS.escape(lane)}"]')
        if card is not None:
            card.scrollIntoView({"block": "nearest"})
            card.classList.add("flash")
            window.setTimeout(lambda: card.classList.remove("flash"), FLASH_MS)
        seqs = ws.lane_seqs(lane)
        if seqs:
            self.select(seqs[0], expanded=False)
