"""remote.nodes: the page's elements as the worker mirrors them, and the document.

A :class:`Node` keeps what Python set on it (attributes, properties, children, style, dataset,
classes), so Python reads its own writes back at once; a change to a node on the page becomes an
op on ``PAGE``, and a node built off the page is sent whole when it is attached. The compound
selectors the app uses (tag, #id, .class, [attr], [attr="v"]) are matched here; a file input's
files are a :class:`FileList`. :class:`Document` finds index.html's elements by id and makes new ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..host import PageFile
from ..protocol import Op
from .channel import PAGE, Handler

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
