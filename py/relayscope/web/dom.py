"""dom: the few DOM helpers the page's Python uses (on the page's elements as remote.py mirrors
them in the worker).

Job: make elements from plain text (``createElement`` + ``textContent``: transcript text is data
and may hold ``<script>``; nothing here ever parses markup), keep the event handlers in one
place, and hand bytes to the page as a download.
Must not: set ``innerHTML``, or an ``href``/``src`` from transcript data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .remote import DOCUMENT as document
from .remote import PAGE

Element = Any  # a remote.Node: an element of the page, seen from the worker

def h(tag: str, text: str | None = None, *, cls: str | None = None,
      attrs: dict[str, object] | None = None, children: Iterable[Element] = ()) -> Element:
    """A new element with ``text`` as its text (never markup), attributes and children."""
    el = document.createElement(tag)
    if cls:
        el.className = cls
    if text is not None:
        el.textContent = text
    for name, value in (attrs or {}).items():
        if value is not None and value is not False:
            el.setAttribute(name, "" if value is True else str(value))
    for child in children:
        el.append(child)
    return el


def clear(el: Element) -> None:
    el.replaceChildren()


def show(el: Element, visible: bool = True) -> None:
    el.hidden = not visible


def closest(event: Any, selector: str) -> Element | None:
    """The element matching ``selector`` at or above the event's target, or None."""
    target = event.target
    if not target or not hasattr(target, "closest"):
        return None
    return target.closest(selector) or None  # JS null arrives as the falsy jsnull


class Listeners:
    """Every handler the page registers (handlers are bound once, at start; rows use event
    delegation, so none is made per row)."""

    def __init__(self) -> None:
        self._handlers: list[tuple[Element, str, Callable[[Any], Any]]] = []

    def on(self, target: Element, event: str, handler: Callable[[Any], Any]) -> None:
        target.addEventListener(event, handler)
        self._handlers.append((target, event, handler))

    def destroy(self) -> None:
        for target, event, handler in self._handlers:
            target.removeEventListener(event, handler)
        self._handlers.clear()


def js_object(values: dict[str, object]) -> dict[str, object]:
    return values  # the page makes it a JS object


def measure(node: Element, then: Callable[[int], Any]) -> int:
    """``node``'s height as last measured by the page (0 before); ``then(height)`` once the page
    has laid it out and measured it."""
    PAGE.measured[node.rid] = then
    return int(node.offsetHeight or 0)


def download(name: str, data: bytes, mime: str) -> None:
    """Offer ``data`` as a file named ``name`` (the page makes a blob: URL; nothing leaves it)."""
    import js  # type: ignore[import-not-found]

    array = js.Uint8Array.new(len(data))  # a copy: a view into Python's memory would clone all of it
    array.assign(data)
    PAGE.post_binary({"kind": "download", "name": name, "mime": mime, "data": array})


def fmt_int(n: int) -> str:
    return f"{n:,}".replace(",", "\u202f")  # a thin space: 12 345
