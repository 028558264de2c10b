"""dom: the few DOM helpers the page's Python uses (on the page's elements as remote/ mirrors
them in the worker).

Job: make elements from plain text (``createElement`` + ``textContent``: transcript text is data
and may hold ``<script>``; nothing here ever parses markup), keep the event handlers in one
place (``Listeners``: each registered with what the page must decide in the event's own task,
see protocol.Work), and format numbers the page shows.
Must not: set ``innerHTML``, or an ``href``/``src`` from transcript data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from .protocol import Work
from .remote import DOCUMENT as document
from .remote import PAGE, Event, Node

Element = Node  # an element of the page, seen from the worker
Handler = Callable[[Event], object]


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


class Target(Protocol):
    """What events can be listened to on: an element, the document, the window."""

    def addEventListener(self, kind: str, handler: Handler, options: dict[str, object] | None = None) -> None: ...

    def removeEventListener(self, kind: str, handler: Handler) -> None: ...


class On(Protocol):
    """How a controller registers its handlers (``Listeners.on``, through the app's one error path)."""

    def __call__(self, target: Target, event: str, handler: Handler, *, work: Work | tuple[str, ...] | None = None,
                 prevent: bool = False, keys: object = None) -> None: ...


class Listeners:
    """Every handler the page registers (handlers are bound once, at start; rows use event
    delegation, so none is made per row)."""

    def __init__(self, wrap: Callable[[Handler], Handler]) -> None:
        self._wrap = wrap  # the one error path (Jobs.safe)
        self._handlers: list[tuple[Target, str, Handler]] = []

    def on(self, target: Target, event: str, handler: Handler, *, work: Work | tuple[str, ...] | None = None,
           prevent: bool = False, keys: object = None) -> None:
        """``handler`` for ``event`` on ``target``. ``work``: the event may start a job (a Work,
        or the ``data-action``\\ s of a delegated click that do); ``prevent``: the page prevents its
        default; ``keys``: the key table (keyboard.KEYS), for the keys whose default it prevents."""
        options: dict[str, object] = {}
        if work is not None:
            options["work"] = str(work) if isinstance(work, Work) else {"actions": list(work)}
        if prevent:
            options["prevent"] = True
        if keys is not None:
            options["keys"] = keys
        fn = self._wrap(handler)
        target.addEventListener(event, fn, options)
        self._handlers.append((target, event, fn))

    def destroy(self) -> None:
        for target, event, handler in self._handlers:
            target.removeEventListener(event, handler)
        self._handlers.clear()


def measure(node: Element, then: Callable[[int], object]) -> int:
    """``node``'s height as last measured by the page (0 before); ``then(height)`` once the page
    has laid it out and measured it."""
    PAGE.measured[node.rid] = then
    return int(node.offsetHeight or 0)


def option(value: str, text: str) -> Element:
    opt = document.createElement("option")
    opt.value = value
    opt.textContent = text
    return opt


def fmt_int(n: int) -> str:
    return f"{n:,}".replace(",", "\u202f")  # a thin space: 12 345
