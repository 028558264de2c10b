"""remote: the page's DOM as the web worker sees it: a mirror that turns every change into an op
for the main thread, and the main thread's events back into handler calls.

Theory of operation
-------------------
Python runs in a web worker (static/js/worker.mjs), so that loading Pyodide and translating a
large transcript never hold the page; the page's own thread runs a small JS module
(static/js/ui.mjs) that owns the real DOM. A worker cannot touch the DOM, and without
cross-origin isolation (which static hosts rarely allow) it cannot wait for the main thread
either, so nothing here ever asks the page a question and waits: every change is one-way.

* **Elements.** ``document.getElementById(id)`` gives the element of that id in index.html (the
  page sent their state with its first message); ``createElement`` a new one. Each is a
  :class:`Node` that keeps what Python set on it (attributes, properties, children), so Python
  reads its own writes back at once. A change to a node that is on the page becomes an op; a
  node built off the page is sent whole, with its subtree, when it is attached.
* **Ops** of one turn of the worker's event loop go as one JSON message, at the next microtask:
  the page applies them in order, before it paints.
* **What only the page knows** comes with its messages: the value a reader typed, a
  ``<details>`` opened, the timeline's scroll position and size, the files picked (``sync``),
  the height of an element Python asked to measure (``measured``), each event a handler was
  registered for (``event``), drops and watch handles (``drop``, ``watch``), and answers to
  the few calls that need the page (``reply``: the clipboard).
* **Timers** run on the worker's own event loop.

Must not: block on the page, send markup (only tags, attributes, properties and text, which the
page sets as such: transcript text stays text), or import the core's I/O.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urljoin, urlsplit

import msgspec

Handler = Callable[[Any], Any]

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
        self.post: Callable[[Any], None] | None = None  # set by bind(): js.postMessage
        self.schedule: Callable[[], None] | None = None  # flush at the next microtask
        self.scheduled = False
        self.nodes: dict[int | str, Node] = {}  # rid -> node, for the nodes the page holds
        self.static: dict[str, dict[str, Any]] = {}  # id -> its state when the page started
        self.listeners: dict[int, Handler] = {}
        self.replies: dict[int, tuple[Handler | None, Handler | None]] = {}
        self.measured: dict[int | str, Handler] = {}
        self.drop_handler: Handler | None = None
        self.watch_handler: Handler | None = None
        self.next_id = 0
        self.state_writes = 0  # writes of <html data-app-state>: see dispatch()

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def listen(self, rid: int | str, kind: str, handler: Handler) -> None:
        """``handler`` for ``kind`` events of the page's element ``rid`` (or "document", "window")."""
        lid = self.new_id()
        self.listeners[lid] = handler
        self.op("listen", rid, kind, lid)

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

    def post_binary(self, message: dict[str, Any]) -> None:
        """A message with bytes in it (a download), after the ops queued before it."""
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
            PAGE.op("style", node.rid, name, value)

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
            PAGE.op("class", node.rid, name, on)

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
                PAGE.op("measure", self.rid)
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
                PAGE.op("set", self.rid, name, bool(value))
            return
        if name in STRING_ATTRS:
            self.setAttribute(STRING_ATTRS[name], str(value))
            return
        if name == "textContent":
            self._detach_children()
            self.props["textContent"] = str(value)
        else:
            self.props[name] = value
        if self.live:
            PAGE.op("set", self.rid, name, value)

    # attributes ----------------------------------------------------------------------------

    def setAttribute(self, name: str, value: Any) -> None:
        value = str(value)
        if name == "data-app-state" and self.rid == "root":
            PAGE.state_writes += 1
        if self.attrs.get(name) == value:
            return
        self.attrs[name] = value
        if self.live:
            PAGE.op("attr", self.rid, name, value)

    def removeAttribute(self, name: str) -> None:
        if self.attrs.pop(name, None) is not None and self.live:
            PAGE.op("attr", self.rid, name, None)

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
            PAGE.op("append", self.rid, specs)

    def replaceChildren(self, *nodes: Node) -> None:
        self._detach_children()
        self.props.pop("textContent", None)
        specs = self._adopt(nodes)
        self.children = list(nodes)
        if self.live:
            PAGE.op("replace", self.rid, specs)

    def _insert(self, nodes: tuple[Node, ...], after: bool) -> None:
        parent = self.parentElement
        if parent is None:
            return
        specs = parent._adopt(nodes)
        k = parent.children.index(self) + (1 if after else 0)
        parent.children[k:k] = list(nodes)
        if parent.live and specs:
            PAGE.op("after" if after else "before", self.rid, specs)

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
            PAGE.op("remove", self.rid)
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
            PAGE.op("call", self.rid, method, list(args))

    def focus(self, *args: Any) -> None:
        self._call("focus", *args)

    def blur(self) -> None:
        self._call("blur")

    def select(self) -> None:
        self._call("select")

    def scrollIntoView(self, options: Any = None) -> None:
        self._call("scrollIntoView", *([] if options is None else [options]))

    def addEventListener(self, kind: str, handler: Handler) -> None:
        PAGE.listen(self.rid, kind, handler)

    def removeEventListener(self, kind: str, handler: Handler) -> None:
        for lid, fn in list(PAGE.listeners.items()):
            if fn is handler:
                del PAGE.listeners[lid]
                PAGE.op("unlisten", lid)


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
        attrs = dict(state.get("attrs") or {})
        props = {k: v for k, v in (state.get("props") or {}).items()}
        return Node(ident, str(state.get("tag", "div")), live=True, attrs=attrs, props=props)

    def createElement(self, tag: str) -> Node:
        return Node(PAGE.new_id(), tag)

    def querySelector(self, selector: str) -> Node | None:
        m = re.fullmatch(r'#([\w-]+)', selector)
        if m is None:
            raise ValueError(f"the worker finds the page's elements by id only: {selector!r}")
        return self.getElementById(m.group(1))

    def addEventListener(self, kind: str, handler: Handler) -> None:
        PAGE.listen("document", kind, handler)


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
        PAGE.op("history", href)


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
        PAGE.op("store", key, str(value))


class Thenable:
    """What a call that needs the page returns: ``.then(done, failed)`` when it answers."""

    def __init__(self, rid: int) -> None:
        self.rid = rid

    def then(self, done: Handler | None = None, failed: Handler | None = None) -> None:
        PAGE.replies[self.rid] = (done, failed)


class Clipboard:
    def writeText(self, text: str) -> Thenable:
        rid = PAGE.new_id()
        PAGE.op("copy", str(text), rid)
        return Thenable(rid)


class Navigator:
    def __init__(self) -> None:
        self.clipboard: Clipboard | None = Clipboard()


class CSS:
    @staticmethod
    def escape(text: str) -> str:
        return re.sub(r'(["\\])', r"\\\1", str(text))


class Performance:
    def __init__(self) -> None:
        self.offset = 0.0  # worker's timeOrigin - page's timeOrigin (ms)

    def now(self) -> float:
        import js  # type: ignore[import-not-found]

        return float(js.performance.now()) + self.offset


class FilesHook:
    """``window.relayscopeFiles`` (static/js/files.mjs): the page hands drops over."""

    @staticmethod
    def setDropHandler(handler: Handler) -> None:
        PAGE.drop_handler = handler
        PAGE.op("drops")  # the page sends the drops it kept while Python booted, then each new one


class WatchHook:
    """``window.relayscopeWatchFiles`` (static/js/watch.mjs): the pickers are the page's (they
    need its click); listing a folder handle works here as well as there."""

    def __init__(self) -> None:
        self.reason = ""

    def support(self) -> str:
        return self.reason

    @staticmethod
    def setWatchHandler(handler: Handler) -> None:
        PAGE.watch_handler = handler
        PAGE.op("watches")

    @staticmethod
    def list(handle: Any) -> Any:
        import js

        return js.relayscopeListHandle(handle)


def read_ahead(file: Any, slice_bytes: int) -> Any:
    """``file`` (a File, or a picked ``FileItem``) read ``slice_bytes`` at a time by
    static/js/read-ahead.mjs: ``await reader.next()`` is the next slice (an ArrayBuffer), the
    ones after it being read meanwhile; ``reader.close()`` when done or abandoned."""
    import js

    return js.relayscopeReadAhead(getattr(file, "file", file), slice_bytes)


class Window:
    def __init__(self) -> None:
        self.location = Location()
        self.history = History()
        self.localStorage = Storage()
        self.navigator = Navigator()
        self.performance = Performance()
        self.CSS = CSS()
        self.relayscopeFiles = FilesHook()
        self.relayscopeWatchFiles = WatchHook()

    def setTimeout(self, fn: Callable[[], Any], ms: float) -> asyncio.TimerHandle:
        return asyncio.get_event_loop().call_later(max(0.0, float(ms)) / 1000, fn)

    def clearTimeout(self, handle: asyncio.TimerHandle | None) -> None:
        if handle is not None:
            handle.cancel()

    def fetch(self, url: str) -> Any:
        import js

        return js.fetch(urljoin(self.location.href, str(url)))

    def addEventListener(self, kind: str, handler: Handler) -> None:
        PAGE.listen("window", kind, handler)


WINDOW = Window()
DOCUMENT = Document()
WINDOW.document = DOCUMENT  # type: ignore[attr-defined]


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
    def __init__(self, data: dict[str, Any]) -> None:
        rid = data.get("rid")
        near = PAGE.nodes.get(rid) if isinstance(rid, int | str) else None
        if near is None and isinstance(rid, str):
            near = DOCUMENT.getElementById(rid)
        if data.get("self") and near is not None:
            self.target: Any = near
        else:
            self.target = Target(near, str(data.get("tag") or ""), str(data.get("id") or ""),
                                 bool(data.get("editable")))
        self.type = data.get("type", "")
        self.key = data.get("key", "")
        self.ctrlKey = bool(data.get("ctrlKey"))
        self.metaKey = bool(data.get("metaKey"))
        self.altKey = bool(data.get("altKey"))
        self.shiftKey = bool(data.get("shiftKey"))

    def preventDefault(self) -> None:
        pass


class FileItem:
    """A file of a file input: its path (relative in a folder pick) and the File itself."""

    def __init__(self, path: str, file: Any) -> None:
        self.webkitRelativePath = path
        self.name = path.rsplit("/", 1)[-1]
        self.file = file

    @property
    def size(self) -> int:
        return int(self.file.size)

    def arrayBuffer(self) -> Any:
        return self.file.arrayBuffer()

    def slice(self, start: int, end: int) -> Any:
        return self.file.slice(start, end)


class FileList(list[FileItem]):
    @property
    def length(self) -> int:
        return len(self)

    def item(self, i: int) -> FileItem:
        return self[i]


def _sync(rid: str | int, props: dict[str, Any], files: Any = None) -> None:
    node = PAGE.nodes.get(rid) or (DOCUMENT.getElementById(rid) if isinstance(rid, str) else None)
    if node is None:
        return
    for name, value in props.items():
        if name in BOOLEAN_ATTRS:
            if value:
                node.attrs[name] = ""
            else:
                node.attrs.pop(name, None)
        else:
            node.props[name] = value
    if files is not None:
        node.props["files"] = FileList(FileItem(str(f.path), f.file) for f in files)


def start(snapshot: Any) -> None:
    """The page's first message: its elements, address, storage, what it can do."""
    data = snapshot.to_py()
    PAGE.static = data.get("elements", {})
    WINDOW.location.set(str(data.get("href", "http://localhost/")))
    store = data.get("storage")
    if not isinstance(store, dict):  # null (JS null arrives as jsnull): storage denied
        WINDOW.localStorage.denied = True
    else:
        WINDOW.localStorage.values = {k: str(v) for k, v in store.items()}
    if not data.get("clipboard"):
        WINDOW.navigator.clipboard = None
    WINDOW.relayscopeWatchFiles.reason = str(data.get("watchSupport", ""))
    WINDOW.performance.offset = float(data.get("timeOffset", 0.0))
    root = DOCUMENT.documentElement
    root.attrs.update({k: str(v) for k, v in (data.get("rootAttrs") or {}).items()})


def receive(message: Any) -> None:
    """One message from the page. A numbered one (what the reader did) is acknowledged once
    handled, after the ops it made: the page counts what is still in flight (ui.mjs)."""
    try:
        _receive(message)
    finally:
        seq = getattr(message, "seq", None)
        if seq is not None:
            PAGE.op("ack", int(seq))


def _receive(message: Any) -> None:
    kind = str(message.kind)
    if kind == "sync":
        _sync(message.rid, message.props.to_py(), getattr(message, "files", None))
    elif kind == "event":
        handler = PAGE.listeners.get(int(message.lid))
        if handler is None:
            return
        writes = PAGE.state_writes
        handler(Event(message.e.to_py()))
        if getattr(message, "flipped", False) and PAGE.state_writes == writes:
            # the page showed "analyzing" at once; this event started nothing: put it back
            state = DOCUMENT.documentElement.attrs.get("data-app-state", "ready")
            PAGE.op("attr", "root", "data-app-state", state)
    elif kind == "measured":
        for rid, height in message.sizes.to_py():
            node = PAGE.nodes.get(rid)
            if node is not None:
                node.props["offsetHeight"] = height
                hook = PAGE.measured.get(rid)
                if hook is not None:
                    hook(height)
    elif kind == "reply":
        done, failed = PAGE.replies.pop(int(message.id), (None, None))
        fn = done if message.ok else failed
        if fn is not None:
            fn(None)
    elif kind == "drop" and PAGE.drop_handler is not None:
        PAGE.drop_handler(message.result)
    elif kind == "watch" and PAGE.watch_handler is not None:
        PAGE.watch_handler(message.request)
