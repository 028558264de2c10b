r"""remote: the page's DOM as the web worker sees it: a mirror that turns every change into an op
for the main thread, and the page's messages back into handler calls.

Theory of operation
-------------------
Python runs in a web worker (static/js/worker.mjs), so that loading Pyodide and translating a
large transcript never hold the page; the page's own thread runs a small JS module
(static/js/ui.mjs) that owns the real DOM. A worker cannot touch the DOM, and without
cross-origin isolation (which static hosts rarely allow) it cannot wait for the main thread
either, so nothing here ever asks the page a question and waits: every change is one-way.
The messages both ways are declared in protocol.py (ops and kinds); main.py carries them.

* **Elements.** ``document.getElementById(id)`` gives the element of that id in index.html (the
  page sent their state with its first message); ``createElement`` a new one. Each is a
  :class:`Node` that keeps what Python set on it (attributes, properties, children), so Python
  reads its own writes back at once. A change to a node that is on the page becomes an op; a
  node built off the page is sent whole, with its subtree, when it is attached.
* **Ops** of one turn of the worker's event loop go as one JSON message, at the next microtask:
  the page applies them in order, before it paints.
* **What only the page knows** comes with its messages (``receive``, one switch): values typed,
  files picked, scroll positions (``Sync``), heights asked for (``Measured``), events
  (``EventMsg``), the clipboard's answer (``Reply``). Drops, watch requests and the swimlanes'
  picks go to whoever ``subscribe``\ d to their kind; one that comes before (a drop while the
  app boots) waits for it.
* **Timers** run on the worker's own event loop.

Must not: block on the page, send markup (only tags, attributes, properties and text, which the
page sets as such: transcript text stays text), or import JavaScript (main.py does).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

import msgspec

from .host import PageFile
from .protocol import (
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

Handler = Callable[["Event"], object]
Callback = Callable[[object], object]
Passed = Drop | Watch | Pick | Range | Size  # messages handed to whoever subscribed to their kind
P = TypeVar("P", Drop, Watch, Pick, Range, Size)

# The page's elements whose every scroll the page sends (static/js/ui.mjs: sync, geometry): the
# mirror's scrollTop of these is the page's, less a scroll still on its way.
SCROLL_SYNCED = frozenset({"timeline"})
# Properties that are also attributes (the mirror keeps one copy: the attribute).
BOOLEAN_ATTRS = frozenset({"hidden", "disabled", "open", "readonly", "multiple", "checked"})
STRING_ATTRS = {"className": "class", "id": "id", "title": "title", "href": "href", "type": "type",
                "max": "max", "min": "min", "role": "role"}


def camel_to_kebab(name: str) -> str:
    return re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), name)


def kebab_to_camel(name: str) -> str:
    return re.sub(r"-([a-z])", lambda m: m.group(1).upper(), name)


class Page:
    """The worker's side of the channel: the op queue, listeners, pending replies."""

    def __init__(self) -> None:
        self.ops: list[list[Any]] = []
        self.post: Callable[[object], None] | None = None  # set by main.bind: postMessage
        self.schedule: Callable[[], None] | None = None  # flush at the next microtask
        self.scheduled = False
        self.nodes: dict[int | str, Node] = {}  # rid -> node, for the nodes the page holds
        self.static: dict[str, Any] = {}  # id -> its state when the page started (protocol.ElementState)
        self.listeners: dict[int, Handler] = {}
        self.replies: dict[int, tuple[Callback | None, Callback | None]] = {}
        self.measured: dict[int | str, Callable[[int], object]] = {}
        self.handlers: dict[type, Callable[[Any], object]] = {}
        self.waiting: list[Passed] = []  # passed on once their kind has a handler
        self.next_id = 0
        self.state_writes = 0  # writes of <html data-app-state>: see receive()

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def listen(self, rid: int | str, kind: str, handler: Handler, options: dict[str, object] | None) -> None:
        """``handler`` for ``kind`` events of the page's element ``rid`` (or "document", "window")."""
        lid = self.new_id()
        self.listeners[lid] = handler
        self.op(Op.LISTEN, rid, kind, lid, options or {})

    def unlisten(self, handler: Handler) -> None:
        for lid, fn in list(self.listeners.items()):
            if fn is handler:
                del self.listeners[lid]
                self.op(Op.UNLISTEN, lid)

    def subscribe(self, kind: type[P], handler: Callable[[P], object]) -> None:
        """``handler`` for every message of ``kind`` (those that came before it first)."""
        self.handlers[kind] = handler
        waiting, self.waiting = self.waiting, []
        for message in waiting:
            self.pass_on(message)

    def pass_on(self, message: Passed) -> None:
        handler = self.handlers.get(type(message))
        if handler is None:
            self.waiting.append(message)
        else:
            handler(message)

    def op(self, *args: Any) -> None:
        self.ops.append(list(args))
        if not self.scheduled and self.schedule is not None:
            self.scheduled = True
            self.schedule()

    def flush(self) -> None:
        self.scheduled = False
        if not self.ops or self.post is None:
            return
        ops, self.ops = self.ops, []
        self.post(msgspec.json.encode(ops).decode())

    def post_object(self, message: dict[str, object]) -> None:
        """A message that is no op list (a download, with its bytes), after the ops queued before it."""
        self.flush()
        if self.post is not None:
            self.post(message)


PAGE = Page()


# -- selectors: the compound ones our code uses (tag, #id, .class, [attr], [attr="v"]) ----------

_SEL = re.compile(r'([a-zA-Z][a-zA-Z0-9-]*)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:([~]?=)"((?:[^"\\]|\\.)*)")?\]')


def _compile(selector: str) -> list[list[tuple[str, str, str]]]:
    out = []
    for part in selector.split(","):
        part = part.strip()
        tests: list[tuple[str, str, str]] = []
        pos = 0
        while pos < len(part):
            m = _SEL.match(part, pos)
            if m is None:
                raise ValueError(f"selector not supported in the worker: {selector!r}")
            tag, ident, cls, attr, oper, value = m.groups()
            if tag:
                tests.append(("tag", tag.upper(), ""))
            elif ident:
                tests.append(("attr=", "id", ident))
            elif cls:
                tests.append(("class", cls, ""))
            elif oper:
                tests.append(("attr" + oper, attr, re.sub(r"\\(.)", r"\1", value)))
            else:
                tests.append(("attr", attr, ""))
            pos = m.end()
        out.append(tests)
    return out


def _matches(node: Node, compiled: list[list[tuple[str, str, str]]]) -> bool:
    for tests in compiled:
        ok = True
        for kind, a, b in tests:
            if kind == "tag":
                ok = node.tagName == a
            elif kind == "class":
                ok = a in node.attrs.get("class", "").split()
            elif kind == "attr":
                ok = a in node.attrs
            elif kind == "attr=":
                ok = node.attrs.get(a) == b
            else:  # ~=
                ok = b in node.attrs.get(a, "").split()
            if not ok:
                break
        if ok:
            return True
    return False


# -- nodes --------------------------------------------------------------------------------------


class Style:
    _node: Node
    _values: dict[str, str]

    def __init__(self, node: Node) -> None:
        object.__setattr__(self, "_node", node)
        object.__setattr__(self, "_values", {})

    def setProperty(self, name: str, value: str) -> None:
        if self._values.get(name) == value:
            return
        self._values[name] = value
        node = self._node
        if node.live:
            PAGE.op(Op.STYLE, node.rid, name, value)

    def __setattr__(self, name: str, value: str) -> None:
        self.setProperty(camel_to_kebab(name), value)

    def __getattr__(self, name: str) -> str:
        return str(self._values.get(camel_to_kebab(name), ""))


class Dataset:
    _node: Node

    def __init__(self, node: Node) -> None:
        object.__setattr__(self, "_node", node)

    def __setattr__(self, name: str, value: Any) -> None:
        self._node.setAttribute("data-" + camel_to_kebab(name), str(value))

    def __getattr__(self, name: str) -> str | None:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._node.attrs.get("data-" + camel_to_kebab(name))


class ClassList:
    def __init__(self, node: Node) -> None:
        self._node = node

    def _set(self, name: str, on: bool) -> None:
        node = self._node
        classes = node.attrs.get("class", "").split()
        if (name in classes) == on:
            return
        classes = [*classes, name] if on else [c for c in classes if c != name]
        node.attrs["class"] = " ".join(classes)
        if node.live:
            PAGE.op(Op.CLASS, node.rid, name, on)

    def add(self, *names: str) -> None:
        for name in names:
            self._set(name, True)

    def remove(self, *names: str) -> None:
        for name in names:
            self._set(name, False)

    def toggle(self, name: str, force: bool | None = None) -> bool:
        on = (name not in self._node.attrs.get("class", "").split()) if force is None else bool(force)
        self._set(name, on)
        return on

    def contains(self, name: str) -> bool:
        return name in self._node.attrs.get("class", "").split()


class Node:
    """One element of the page, as Python last left it (and as the page last told it)."""

    _OWN = frozenset({"rid", "tagName", "attrs", "props", "children", "parentElement", "live",
                      "style", "dataset", "classList"})
    rid: int | str
    tagName: str
    attrs: dict[str, str]
    props: dict[str, Any]
    children: list[Node]
    parentElement: Node | None
    live: bool
    style: Style
    dataset: Dataset
    classList: ClassList

    def __init__(self, rid: int | str, tag: str, live: bool = False,
                 attrs: dict[str, str] | None = None, props: dict[str, Any] | None = None) -> None:
        d = self.__dict__
        d["rid"] = rid
        d["tagName"] = tag.upper()
        d["attrs"] = attrs or {}
        d["props"] = props or {}
        d["children"] = []
        d["parentElement"] = None
        d["live"] = live
        d["style"] = Style(self)
        d["dataset"] = Dataset(self)
        d["classList"] = ClassList(self)
        if live:
            PAGE.nodes[rid] = self

    def __repr__(self) -> str:
        return f"<{self.tagName.lower()} rid={self.rid!r}>"

    def __bool__(self) -> bool:
        return True

    # properties --------------------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in BOOLEAN_ATTRS:
            return name in self.attrs
        if name in STRING_ATTRS:
            return self.attrs.get(STRING_ATTRS[name], "")
        if name == "textContent":  # a text set first, then children appended: both are there
            return str(self.props.get("textContent", "")) + "".join(str(c.textContent) for c in self.children)
        if name == "firstChild":
            return self.children[0] if self.children else None
        if name == "offsetHeight":
            if self.live:
                PAGE.op(Op.MEASURE, self.rid)
            return self.props.get("offsetHeight", 0)
        if name == "files":
            return self.props.get("files") or FileList()
        if name in ("value", "scrollTop", "clientHeight", "scrollHeight", "isContentEditable"):
            return self.props.get(name, "" if name == "value" else 0)
        return self.props.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._OWN:
            self.__dict__[name] = value
            return
        if name in BOOLEAN_ATTRS:
            if bool(value) == (name in self.attrs):
                return
            if value:
                self.attrs[name] = ""
            else:
                self.attrs.pop(name, None)
            if self.live:
                PAGE.op(Op.SET, self.rid, name, bool(value))
            return
        if name in STRING_ATTRS:
            self.setAttribute(STRING_ATTRS[name], str(value))
            return
        if name == "textContent":
            self._detach_children()
            self.props["textContent"] = str(value)
        elif name == "scrollTop" and value == 0 and self.rid in SCROLL_SYNCED and self.props.get("scrollTop") == 0:
            # Already at the top, as the page last said: nothing to send. Setting scrollTop makes
            # the page lay out everything changed before it in the batch, at once (16-17 ms of
            # the last batch of a 50 MB load, for no move). Only 0: a position past the end is
            # clamped on the page, so another value may not be what the page shows.
            return
        else:
            self.props[name] = value
        if self.live:
            PAGE.op(Op.SET, self.rid, name, value)

    # attributes ----------------------------------------------------------------------------

    def setAttribute(self, name: str, value: Any) -> None:
        value = str(value)
        if name == "data-app-state" and self.rid == "root":
            PAGE.state_writes += 1
        if self.attrs.get(name) == value:
            return
        self.attrs[name] = value
        if self.live:
            PAGE.op(Op.ATTR, self.rid, name, value)

    def removeAttribute(self, name: str) -> None:
        if self.attrs.pop(name, None) is not None and self.live:
            PAGE.op(Op.ATTR, self.rid, name, None)

    def getAttribute(self, name: str) -> str | None:
        value: str | None = self.attrs.get(name)
        return value

    def hasAttribute(self, name: str) -> bool:
        return name in self.attrs

    # tree ----------------------------------------------------------------------------------

    def _adopt(self, nodes: Iterable[Node]) -> list[Any]:
        specs = []
        for node in nodes:
            if node.parentElement is not None:
                node.parentElement.children.remove(node)
            node.parentElement = self
            if self.live:
                specs.append(node._spec())
        return specs

    def _spec(self) -> Any:
        """The node for the page: its rid if the page holds it, else all of it (now live)."""
        if self.live:
            return self.rid
        self.__dict__["live"] = True
        PAGE.nodes[self.rid] = self
        return [self.rid, self.tagName.lower(), self.attrs, self.props,
                [c._spec() for c in self.children], self.style._values]

    def _unlive(self) -> None:
        if isinstance(self.rid, int):  # the page's own elements keep their rid
            self.__dict__["live"] = False
            PAGE.nodes.pop(self.rid, None)
        PAGE.measured.pop(self.rid, None)
        for child in self.children:
            child._unlive()

    def _detach_children(self) -> None:
        for child in self.children:
            child.parentElement = None
            child._unlive()
        self.children = []

    def append(self, *nodes: Node) -> None:
        specs = self._adopt(nodes)  # a node moved from elsewhere (or from here) leaves there first
        self.children.extend(nodes)
        if self.live and specs:
            PAGE.op(Op.APPEND, self.rid, specs)

    def replaceChildren(self, *nodes: Node) -> None:
        self._detach_children()
        self.props.pop("textContent", None)
        specs = self._adopt(nodes)
        self.children = list(nodes)
        if self.live:
            PAGE.op(Op.REPLACE, self.rid, specs)

    def _insert(self, nodes: tuple[Node, ...], after: bool) -> None:
        parent = self.parentElement
        if parent is None:
            return
        specs = parent._adopt(nodes)
        k = parent.children.index(self) + (1 if after else 0)
        parent.children[k:k] = list(nodes)
        if parent.live and specs:
            PAGE.op(Op.AFTER if after else Op.BEFORE, self.rid, specs)

    def before(self, *nodes: Node) -> None:
        self._insert(nodes, after=False)

    def after(self, *nodes: Node) -> None:
        self._insert(nodes, after=True)

    def remove(self) -> None:
        was_live = self.live
        if self.parentElement is not None:
            self.parentElement.children.remove(self)
            self.parentElement = None
        if was_live:
            PAGE.op(Op.REMOVE, self.rid)
        self._unlive()

    def querySelector(self, selector: str) -> Node | None:
        compiled = _compile(selector)
        stack = list(reversed(self.children))
        while stack:
            node = stack.pop()
            if _matches(node, compiled):
                return node
            stack.extend(reversed(node.children))
        return None

    def querySelectorAll(self, selector: str) -> list[Node]:
        """Every descendant that matches, in document order (a list, not a NodeList)."""
        compiled = _compile(selector)
        out, stack = [], list(reversed(self.children))
        while stack:
            node = stack.pop()
            if _matches(node, compiled):
                out.append(node)
            stack.extend(reversed(node.children))
        return out

    def matches(self, selector: str) -> bool:
        return _matches(self, _compile(selector))

    def closest(self, selector: str) -> Node | None:
        compiled = _compile(selector)
        node: Node | None = self
        while node is not None:
            if _matches(node, compiled):
                return node
            node = node.parentElement
        return None

    # calls the page makes ------------------------------------------------------------------

    def _call(self, method: str, *args: Any) -> None:
        if self.live:
            PAGE.op(Op.CALL, self.rid, method, list(args))

    def focus(self, *args: Any) -> None:
        self._call("focus", *args)

    def blur(self) -> None:
        self._call("blur")

    def select(self) -> None:
        self._call("select")

    def scrollIntoView(self, options: Any = None) -> None:
        self._call("scrollIntoView", *([] if options is None else [options]))

    def addEventListener(self, kind: str, handler: Handler, options: dict[str, object] | None = None) -> None:
        PAGE.listen(self.rid, kind, handler, options)

    def removeEventListener(self, kind: str, handler: Handler) -> None:
        PAGE.unlisten(handler)


class Document:
    def __init__(self) -> None:
        self.documentElement = Node("root", "html", live=True)
        self.body = Node("body", "body", live=True)

    def getElementById(self, ident: str) -> Node | None:
        node = PAGE.nodes.get(ident)
        if node is not None:
            return node
        state = PAGE.static.get(ident)
        if state is None:
            return None
        return Node(ident, state.tag, live=True, attrs=dict(state.attrs), props=dict(state.props))

    def element(self, ident: str) -> Node:
        """The element of index.html with this id (a missing one is a bug of ours: KeyError)."""
        node = self.getElementById(ident)
        if node is None:
            raise KeyError(f"index.html has no element #{ident}")
        return node

    def createElement(self, tag: str) -> Node:
        return Node(PAGE.new_id(), tag)

    def querySelector(self, selector: str) -> Node | None:
        m = re.fullmatch(r'#([\w-]+)', selector)
        if m is None:
            raise ValueError(f"the worker finds the page's elements by id only: {selector!r}")
        return self.getElementById(m.group(1))

    def addEventListener(self, kind: str, handler: Handler, options: dict[str, object] | None = None) -> None:
        PAGE.listen("document", kind, handler, options)

    def removeEventListener(self, kind: str, handler: Handler) -> None:
        PAGE.unlisten(handler)


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


class FileItem:
    """A file of a file input: its path (relative in a folder pick) and the file itself."""

    def __init__(self, path: str, file: PageFile) -> None:
        self.webkitRelativePath = path
        self.name = path.rsplit("/", 1)[-1]
        self.file = file


class FileList(list[FileItem]):
    @property
    def length(self) -> int:
        return len(self)

    def item(self, i: int) -> FileItem:
        return self[i]


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
