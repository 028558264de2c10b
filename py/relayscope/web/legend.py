"""legend: the fingerprint legend under the timeline's chips, one entry per first-block fingerprint
in first-seen order, drawn the way the rows draw it (colour, and a number beyond the palette).

Must not: put a fingerprint anywhere but textContent and data attributes (it is transcript text).
"""

from __future__ import annotations

from .dom import Element, clear, h

MAX_ENTRIES = 200  # a longer legend helps nobody; the rows still carry their own label


def draw(box: Element, summary: Element, container: Element, entries: list[tuple[str, int, str]]) -> None:
    """The legend's heading now; its entries when it is opened (``fill``): a long capture has
    thousands of fingerprints, and drawing them with the first screen would hold the page."""
    clear(container)
    box.hidden = not entries
    summary.textContent = f"Fingerprints ({len(entries)}): one colour each, in first-seen order"
    if box.open:
        fill(container, entries)


def fill(container: Element, entries: list[tuple[str, int, str]]) -> None:
    if container.firstChild:  # already drawn for this input
        return
    for fp, color, label in entries[:MAX_ENTRIES]:
        key = f"fp-{color}" if label == "●" else f"fp-{color}#{label}"
        li = h("li", attrs={"data-fingerprint": fp, "data-color": key})
        li.append(h("span", label, cls=f"fp fp-{color}" + (" numbered" if label != "●" else "")))
        li.append(h("code", f" {fp}", attrs={"title": fp}))
        container.append(li)
    if len(entries) > MAX_ENTRIES:
        container.append(h("li", f"… and {len(entries) - MAX_ENTRIES} more (each row names its own)", cls="muted"))
