"""help: the short help panel: what the strategies do, what the step-through's decisions mean, and
what the chips and marks in the timeline are. Static text of ours, drawn once at start.

Must not: grow into a manual (docs/ is that); every entry is one or two lines.
"""

from __future__ import annotations

from typing import Final

from ..translator import STRATEGIES
from .dom import Element, clear, h

SECTIONS: Final[list[tuple[str, list[tuple[str, str]]]]] = [
    ("Strategies (how repeated content is de-duplicated)",
     [(name, cls.summary) for name, cls in STRATEGIES.items()]),
    ("Decisions in the step-through", [
        ("emitted", "the line's new blocks became relay events (highlighted in the timeline)."),
        ("lost", "a block no relay event carries under this strategy: the audit counts it as lost. "
                 "A faint 'lost' row in the timeline marks where it would have been."),
        ("duplicate of #N", "a correct skip: relay #N already carried this block (the link goes there)."),
        ("already streamed", "the block arrived earlier as streamed deltas; the full snapshot is not repeated."),
        ("ignored / unreadable", "nothing to emit by design (blank line, signature delta), or a line that "
                                 "is not JSON (listed under the input)."),
    ]),
    ("Chips and marks", [
        ("type chips", "a chip shows only the types chosen; its ⊘ hides that type instead (click again to undo)."),
        ("N hidden", "bookkeeping records (progress, file-history-snapshot, queue-operation, hook progress…) "
                     "are hidden; the chip shows them again."),
        ("● / numbers", "each first-block fingerprint has its own colour, in first-seen order (the legend "
                        "lists them); past the palette they are numbered too."),
        ("N fragments", "consecutive streamed deltas of one block shown as one row; click to see each one."),
        ("⟲", "the de-dup state was reset here (context switch, shrink, turn end)."),
        ("keys", "↑↓ j/k select, Home/End first/last, PageUp/PageDown a screen, Enter opens, ← → step, "
                 "/ filter, Esc clears the filter."),
    ]),
    ("Panels", [
        ("▾ / ▸", "the step-through, the lanes and the audit each fold away with the arrow in their heading; "
                  "the address remembers which (closed=…)."),
        ("Step through", "every input line, or only the lines of the rows shown (the filter, the lane chosen); "
                         "a step whose relays the filter leaves out says so and offers to show them."),
        ("Tab", "the chips and the examples are one stop each: the arrow keys move within."),
    ]),
]


def draw(container: Element) -> None:
    clear(container)
    for title, entries in SECTIONS:
        container.append(h("h2", title))  # the Help section sits right under the h1
        dl = h("dl", cls="help-list")
        for term, text in entries:
            dl.append(h("dt", term))
            dl.append(h("dd", text))
        container.append(dl)
