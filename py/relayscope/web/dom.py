"""dom: the few DOM helpers the page's Python uses.

Job: make elements from plain text (``createElement`` + ``textContent``: transcript text is data
and may hold ``<script>``; nothing here ever parses markup), keep the JS proxies of event
handlers alive in one place, and hand bytes to the browser as a download.
Must not: set ``innerHTML``, or an ``href``/``src`` from transcript data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pyodide.ffi import create_once_callable, create_proxy, to_js
from pyscript import document, window

Element = Any  # a JsProxy of a DOM element


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
    """Every handler the page registers, as one proxy each, kept for the page's lifetime
    (handlers are bound once, at start; rows use event delegation, so none is made per row)."""

    def __init__(self) -> None:
        self._proxies: list[tuple[Element, str, Any]] = []

    def on(self, target: Element, event: str, handler: Callable[[Any], Any]) -> None:
        proxy = create_proxy(handler)
        target.addEventListener(event, proxy)
        self._proxies.append((target, event, proxy))

    def proxy(self, handler: Callable[..., Any]) -> Any:
        """A proxy handed to JS that keeps being called (the drop handler)."""
        proxy = create_proxy(handler)
        self._proxies.append((None, "", proxy))
        return proxy

    def destroy(self) -> None:
        for target, event, proxy in self._proxies:
            if target is not None:
                target.removeEventListener(event, proxy)
            proxy.destroy()
        self._proxies.clear()


def js_object(values: dict[str, object]) -> Any:
    return to_js(values, dict_converter=window.Object.fromEntries)


def download(name: str, data: bytes, mime: str) -> None:
    """Offer ``data`` as a file named ``name`` (a blob: URL; nothing leaves the page)."""
    array = window.Uint8Array.new(len(data))
    array.assign(data)
    blob = window.Blob.new(to_js([array]), js_object({"type": mime}))
    url = window.URL.createObjectURL(blob)
    link = h("a", attrs={"href": url, "download": name})
    link.hidden = True
    document.body.append(link)
    link.click()
    link.remove()
    window.setTimeout(create_once_callable(lambda: window.URL.revokeObjectURL(url)), 60_000)


def fmt_int(n: int) -> str:
    return f"{n:,}".replace(",", "\u202f")  # a thin space: 12 345
