"""outline: the detail panel's Outline tab: the run's chapters (``chapters.py``), one button each
with its title, start time, duration, tool calls and errors. A click or Enter selects the
chapter's prompt row (``data-action="chapter"``: actions.py); while the rows scroll, the chapter of
the first row in view is marked (``aria-current``).

Must not: decide what a chapter is (``relayscope.chapters``) or scroll the rows itself.
"""

from __future__ import annotations

from .chapters import Chapter, chapter_at, chapters
from .dom import Element, h, show
from .remote import DOCUMENT as document
from .timeline import Timeline
from .view import Shown


class Outline:
    def __init__(self, shown: Shown, timeline: Timeline) -> None:
        self.shown, self.timeline = shown, timeline
        self.box: Element = document.element("outline")
        self.empty: Element = document.element("outline-empty")
        self.found: list[Chapter] = []
        self._of: tuple[int, int] = (-1, -1)  # (workspace id, relays) the chapters were found for
        self.current: int | None = None
        self._pinned: tuple[int, float] | None = None  # a chapter gone to, and where the rows were left

    def chapters(self) -> list[Chapter]:
        ws = self.shown.ws
        if ws is None:
            return []
        key = (id(ws), len(ws.relays))
        if key != self._of:
            self.found, self._of = chapters(ws), key
        return self.found

    def draw(self) -> None:
        """The chapters of the input shown, the current one marked."""
        found = self.chapters()
        items = []
        for c in found:
            item = h("li", cls="outline-entry")
            button = h("button", cls="outline-item", attrs={
                "type": "button", "data-testid": "outline-item", "data-action": "chapter", "data-target": c.seq,
                "data-chapter": c.index, "title": f"go to the prompt of chapter {c.index + 1} (row #{c.seq})"})
            button.append(h("span", f"{c.index + 1}", cls="outline-n"))
            button.append(h("span", c.title, cls="outline-title"))
            facts = h("span", cls="outline-facts", attrs={"data-testid": "outline-facts"})
            said = c.facts.removesuffix(" · " + c.errors_words) if c.errors else c.facts
            facts.append(h("span", said))
            if c.errors:  # the errors in the error colour, the rest quiet
                facts.append(h("span", " · "))
                facts.append(h("span", c.errors_words, cls="outline-errors"))
            button.append(facts)
            item.append(button)
            items.append(item)
        self.box.replaceChildren(*items)
        show(self.empty, self.shown.ws is not None and not found)
        self.current, self._pinned = None, None
        self.follow()

    def went_to(self, index: int) -> None:
        """A chapter chosen in the outline: marked while the rows stay where the jump left them
        (the last chapters cannot all scroll to the top)."""
        self._pinned = (index, float(self.timeline.container.scrollTop or 0))
        self._mark(index)

    def follow(self) -> None:
        """Mark the chapter of the first row in view (the rows scrolled, or were drawn anew); at
        the end of the rows, the last chapter whose prompt is in view."""
        if not self.found:
            return
        tl = self.timeline
        if not tl.seqs:
            return
        c = tl.container
        top, height = float(c.scrollTop or 0), float(c.clientHeight or 0)
        if self._pinned is not None and self._pinned[1] == top:
            self._mark(self._pinned[0])
            return
        self._pinned = None
        pos = min(tl.pos_at(top), len(tl.seqs) - 1)
        seq = next((q for q in tl.seqs[pos:pos + 50] if q >= 0), None)
        k = chapter_at(self.found, seq) if seq is not None else None
        k = 0 if k is None else k  # the rows before the first prompt: read as the first chapter's opening
        if height and top + height >= tl.content_height() - 1:  # at the end: the last prompt in view wins
            last = tl.pos_at(top + height)
            shown = [c.index for c in self.found if (i := tl.index.get(c.seq)) is not None and pos <= i <= last]
            k = shown[-1] if shown else k
        self._mark(k)

    def _mark(self, k: int | None) -> None:
        if k == self.current:
            return
        for i, b in enumerate(self.box.querySelectorAll('[data-testid="outline-item"]')):
            if i == k:
                b.setAttribute("aria-current", "true")
                b.scrollIntoView({"block": "nearest"})  # the marked chapter stays in the outline's view
            else:
                b.removeAttribute("aria-current")
        self.current = k
