"""remote.window: the window the app asks of (address, history, storage, clipboard, timers), the
``WINDOW`` and ``DOCUMENT`` every module uses, and the page's messages turned into handler calls.

:func:`receive` is the one switch for what the page sends: its first message (:func:`start`: its
elements, address, storage and what it can do), values and scroll positions (``Sync``), heights,
events (as an :class:`Event` with its target), replies, and what subscribers take; a numbered one
is acknowledged once handled.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..protocol import (
    Drop,
    EventData,
    EventMsg,
    Measured,
    Message,
    Op,
    Pick,
    Range,
    Reply,
    Size,
    Start,
    Sync,
    Watch,
)
from .channel import PAGE, Callback, Handler
from .nodes import BOOLEAN_ATTRS, Document, FileItem, FileList, Node

# -- window: what the app asks of it ------------------------------------------------------------


class Location:
    def __init__(self) -> None:
        self.set("http://localhost/")

    def set(self, href: str) -> None:
        parts = urlsplit(href)
        self.href = href
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.pathname = parts.path or "/"
        self.search = f"?{parts.query}" if parts.query else ""
        self.hash = f"#{parts.fragment}" if parts.fragment else ""


class History:
    def replaceState(self, _state: Any, _title: str, url: str) -> None:
        href = urljoin(WINDOW.location.href, str(url))
        WINDOW.location.set(href)
        PAGE.op(Op.HISTORY, href)


class Storage:
    """localStorage, kept by the page: read from what it sent at start, written through."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.denied = False

    def getItem(self, key: str) -> str | None:
        if self.denied:
            raise PermissionError("storage is denied here")
        return self.values.get(key)

    def setItem(self, key: str, value: str) -> None:
        if self.denied:
            raise PermissionError("storage is denied here")
        self.values[key] = str(value)
        PAGE.op(Op.STORE, key, str(value))


class Thenable:
    """What a call that needs the page returns: ``.then(done, failed)`` when it answers."""

    def __init__(self, rid: int) -> None:
        self.rid = rid

    def then(self, done: Callback | None = None, failed: Callback | None = None) -> None:
        PAGE.replies[self.rid] = (done, failed)


class Clipboard:
    def writeText(self, text: str) -> Thenable:
        rid = PAGE.new_id()
        PAGE.op(Op.COPY, str(text), rid)
        return Thenable(rid)


class Navigator:
    def __init__(self) -> None:
        self.clipboard: Clipboard | None = Clipboard()


class CSS:
    @staticmethod
    def escape(text: str) -> str:
        return re.sub(r'(["\\])', r"\\\1", str(text))


class Window:
    def __init__(self) -> None:
        self.location = Location()
        self.history = History()
        self.localStorage = Storage()
        self.navigator = Navigator()
        self.CSS = CSS()
        self.watch_support = ""  # why watching cannot work here ("" when it can)

    def setTimeout(self, fn: Callable[[], Any], ms: float) -> asyncio.TimerHandle:
        return asyncio.get_event_loop().call_later(max(0.0, float(ms)) / 1000, fn)

    def clearTimeout(self, handle: asyncio.TimerHandle | None) -> None:
        if handle is not None:
            handle.cancel()

    def addEventListener(self, kind: str, handler: Handler, options: dict[str, object] | None = None) -> None:
        PAGE.listen("window", kind, handler, options)

    def removeEventListener(self, kind: str, handler: Handler) -> None:
        PAGE.unlisten(handler)


WINDOW = Window()
DOCUMENT = Document()


# -- events from the page -----------------------------------------------------------------------


class Target:
    """An event's target that the worker never made (text inside a static element): its tag and
    id, and the nearest element the worker knows for ``closest``."""

    def __init__(self, near: Node | None, tag: str, ident: str, editable: bool) -> None:
        self.near, self.tagName, self.id, self.isContentEditable = near, tag, ident, editable

    def closest(self, selector: str) -> Node | None:
        return self.near.closest(selector) if self.near is not None else None

    def blur(self) -> None:
        pass


class Event:
    """An event as a handler sees it: its target (a node, or what the page said of it) and keys."""

    def __init__(self, data: EventData) -> None:
        rid = data.rid
        near = PAGE.nodes.get(rid) if rid is not None else None
        if near is None and isinstance(rid, str):
            near = DOCUMENT.getElementById(rid)
        self.target: Node | Target = (near if data.on_target and near is not None
                                      else Target(near, data.tag, data.id, data.editable))
        self.type, self.key = data.type, data.key
        self.ctrlKey, self.metaKey, self.altKey, self.shiftKey = data.ctrl, data.meta, data.alt, data.shift

    def closest(self, selector: str) -> Node | None:
        """The element matching ``selector`` at or above the target, or None."""
        return self.target.closest(selector)

    @property
    def tag(self) -> str:
        return str(self.target.tagName or "").upper()


def start(message: Start) -> None:
    """The page's first message: its elements, address, storage, what it can do."""
    PAGE.static = dict(message.elements)
    WINDOW.location.set(message.href)
    WINDOW.localStorage.denied = message.storage is None  # None: storage denied
    WINDOW.localStorage.values = dict(message.storage or {})
    WINDOW.navigator.clipboard = Clipboard() if message.clipboard else None
    WINDOW.watch_support = message.watch_support
    DOCUMENT.documentElement.attrs.update(message.root_attrs)


def receive(message: Message, seq: int | None) -> None:
    """One message from the page, the one switch. A numbered one (what the reader did) is
    acknowledged once handled, after the ops it made: the page counts what is still in flight."""
    try:
        _receive(message)
    finally:
        if seq is not None:
            PAGE.op(Op.ACK, seq)


def _receive(message: Message) -> None:
    match message:
        case Start():
            start(message)
        case Sync():
            _sync(message)
        case EventMsg():
            _event(message)
        case Measured():
            for rid, height in message.sizes:
                node = PAGE.nodes.get(rid)
                if node is not None:
                    node.props["offsetHeight"] = height
                    hook = PAGE.measured.get(rid)
                    if hook is not None:
                        hook(height)
        case Reply():
            done, failed = PAGE.replies.pop(message.id, (None, None))
            fn = done if message.ok else failed
            if fn is not None:
                fn(None)
        case Drop() | Watch() | Pick() | Range() | Size():
            PAGE.pass_on(message)


def _sync(message: Sync) -> None:
    rid = message.rid
    node = PAGE.nodes.get(rid) or (DOCUMENT.getElementById(rid) if isinstance(rid, str) else None)
    if node is None:
        return
    for name, value in message.props.items():
        if name in BOOLEAN_ATTRS:
            if value:
                node.attrs[name] = ""
            else:
                node.attrs.pop(name, None)
        else:
            node.props[name] = value
    if message.files is not None:
        node.props["files"] = FileList(FileItem(p.path, p.file) for p in message.files)


def _event(message: EventMsg) -> None:
    handler = PAGE.listeners.get(message.lid)
    if handler is None:
        return
    writes = PAGE.state_writes
    handler(Event(message.event))
    if message.flipped and PAGE.state_writes == writes:
        # the page showed "analyzing" at once; this event started nothing: put it back
        state = DOCUMENT.documentElement.attrs.get("data-app-state", "ready")
        PAGE.op(Op.ATTR, "root", "data-app-state", state)
