"""matches: a search's matches among the rows it leaves: "n of m", and the next and previous one.

``count`` says which match is selected (or was last moved to) among the rows shown, and shows the
count and its ↓ ↑ buttons only while there is a search; ``move`` goes to the next or previous
match, round at the ends, and asks for it to be selected (``moved``; app.py connects the
selection), except a lost block's row, which is only brought into view.

Must not: filter rows or run the search (filters.py does, then calls ``count``), or select a row.
"""

from __future__ import annotations

from .dom import Element, fmt_int, show
from .search import parse
from .timeline import Timeline
from .view import Shown, Signal, ViewState


class Matches:
    def __init__(self, view: ViewState, shown: Shown, timeline: Timeline, count: Element, prev: Element,
                 next_: Element) -> None:
        self.view, self.shown, self.timeline = view, shown, timeline
        self.counter, self.buttons = count, (prev, next_)
        self.moved: Signal[[int]] = Signal()  # a search's next or previous match: select it
        self.current: int | None = None  # the match last moved to (a lost block's row is never selected)

    def count(self, *_: object) -> None:
        """"n of m": the match selected (or last moved to) among the rows a search leaves; the
        count and the next and previous buttons show only while there is a search."""
        rows = self.timeline
        searching = self.shown.ws is not None and not parse(self.view.text).empty
        for el in (self.counter, *self.buttons):
            show(el, searching)
        if not searching:
            self.counter.textContent = ""
            return
        k = rows.index.get(here) if (here := self._here()) is not None else None
        m = len(rows.seqs)  # "64 matches" until one is selected: "0 of 64" read as none found
        self.counter.textContent = (f"{fmt_int(m)} match{'' if m == 1 else 'es'}" if k is None
                                    else f"{k + 1} of {fmt_int(m)}")
        for button in self.buttons:
            button.disabled = not rows.seqs

    def move(self, delta: int) -> None:
        """The next (1) or previous (-1) match, after the one selected, round at the ends."""
        seqs, index = self.timeline.seqs, self.timeline.index
        if not seqs or parse(self.view.text).empty:
            return
        k = index.get(here) if (here := self._here()) is not None else None
        k = (0 if delta > 0 else len(seqs) - 1) if k is None else (k + delta) % len(seqs)
        self.current = seqs[k]
        if self.current >= 0:
            self.moved.emit(self.current)
        else:  # a lost block's row: shown, not selected
            self.timeline.scroll_to(self.current, into_view=True)
        self.count()

    def _here(self) -> int | None:
        """The row the next and previous are counted from: the one selected if shown, else the last moved to."""
        return self.view.row if self.view.row in self.timeline.index else self.current
