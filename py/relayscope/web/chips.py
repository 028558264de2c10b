"""chips: the chips under the toolbar, which say what kinds of rows there are and choose among them.

One chip per relay type (the protocol reading) or per meaning (the run reading: messages, tools,
thinking, errors, lifecycle), with how many relays it holds; each a pair of buttons: the chip
(only the kinds chosen) and its ⊘ (all but these); then the bookkeeping chip ("N hidden · show").
They are one Tab stop: the chip last moved to (Keyboard.rove sets ``focus_key``), else the first.
A chip pressed changes the view (``types``, ``xtypes``, ``bookkeeping``) and emits ``changed``.

Must not: filter or draw rows (filters.py applies what the chips choose).
"""

from __future__ import annotations

from collections.abc import Callable

from . import reading
from .dom import Element, On, fmt_int
from .remote import DOCUMENT as document
from .remote import Event, Node
from .view import Shown, Signal, ViewState


class Chips:
    def __init__(self, view: ViewState, shown: Shown, box: Element) -> None:
        self.view, self.shown, self.box = view, shown, box
        self.changed: Signal[[]] = Signal()
        self.focus_key = ""  # the chip that holds the chips' one Tab stop
        self.groups: Callable[[], list[str]] = list  # each relay's chip in the run reading (Reading.groups)

    def wire(self, on: On) -> None:
        on(self.box, "click", self.on_click)

    def counts(self) -> dict[str, int]:
        """The chips of the reading shown and how many relays each holds: relay types (protocol),
        what an event means (run; bookkeeping has its own chip, below the others)."""
        if self.view.reading != "run":
            return self.shown.type_counts
        counts = dict.fromkeys(reading.GROUPS, 0)
        for g in self.groups():
            counts[g] += 1
        return {g: n for g, n in counts.items() if n and g != "bookkeeping"}

    def draw(self) -> None:
        box = self.box
        box.replaceChildren()
        box.setAttribute("aria-label", ("What the events are" if self.view.reading == "run" else "Relay types")
                         + " (one Tab stop: arrow keys move between the chips)")
        for kind, count in self.counts().items():
            chip = self._chip(f"chip t-{kind}", f"{kind} {fmt_int(count)}")
            chip.dataset.type = kind
            not_chip = self._chip("chip chip-not", "⊘")
            not_chip.dataset.exclude = kind
            self._mode(chip, not_chip, kind)
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
        current = keys.index(self.focus_key) if self.focus_key in keys else 0
        for k, b in enumerate(buttons):
            b.setAttribute("tabindex", "0" if k == current else "-1")

    @staticmethod
    def _chip(cls: str, text: str) -> Element:
        chip = document.createElement("button")
        chip.type = "button"
        chip.className = cls
        chip.textContent = text
        return chip

    def _mode(self, chip: Node, not_chip: Node, kind: str) -> None:
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

    def on_click(self, event: Event) -> None:
        if self.shown.ws is None:
            return
        if event.closest("button[data-bookkeeping]") is not None:
            self.view.bookkeeping = not self.view.bookkeeping
            self.draw()
            self.changed.emit()
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
                self._mode(on, off, kind)
        self.changed.emit()


def chip_key(button: Node) -> str:
    """What a chip filters by, to find it again once the chips are drawn anew."""
    d = button.dataset
    return str(d.type or (f"-{d.exclude}" if d.exclude else "") or ("hidden" if d.bookkeeping else ""))
