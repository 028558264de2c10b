"""protocol: the messages between the page and this worker, declared once on the worker's side.

The page's side declares the same names in static/js/protocol.mjs (``MSG``, ``OP``, ``WORK``,
``KEY_WHEN``); a unit test holds the two declarations together and every kind either side uses
to them. As in Pyodide's console web-worker example: a few named messages each way, one switch
on each side that handles them (``remote.receive`` here, ``apply`` in static/js/ui.mjs).

Page -> worker: one message per thing that happened, ``{kind, ...}`` (``KINDS`` says each);
``decode`` makes it a typed record here. Those the reader caused carry ``seq``, acknowledged by
the op ``ack`` once handled (``<html data-inflight>``). Worker -> page: the ops of one turn of
the worker's event loop as one JSON list (``OPS`` says each), a download as an object.

Must not: touch the DOM mirror or the page (``remote`` and ``main`` do), or know the app.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Final

import msgspec

from .host import PageFile, WatchHandle


class Kind(StrEnum):
    """Messages the page sends."""

    START = "start"
    SYNC = "sync"
    EVENT = "event"
    MEASURED = "measured"
    REPLY = "reply"
    DROP = "drop"
    WATCH = "watch"
    PICK = "pick"
    RANGE = "range"
    SIZE = "size"


KINDS: Final[dict[Kind, str]] = {
    Kind.START: "snapshot {elements {id: {tag, attrs, props}}, rootAttrs, href, storage (null: denied), "
                "clipboard, watchSupport}: first, the page as it is",
    Kind.SYNC: "rid, props, files? [{path, file}]: a value typed, a <details> toggled, the timeline "
               "scrolled or resized, files picked; sent before the event that may read it",
    Kind.EVENT: "lid, e {type, key, ctrlKey, metaKey, altKey, shiftKey, rid, self, tag, id, editable}, "
                "flipped, seq: an event on a target the worker listens to (op listen)",
    Kind.MEASURED: "sizes [[rid, height]], seq: the heights the worker asked for (op measure)",
    Kind.REPLY: "id, ok, seq: the clipboard's answer to op copy",
    Kind.DROP: "files [{path, file}], error, seq: files or a folder dropped on the page",
    Kind.WATCH: "handle, options {intervalMs} | error, seq: a file or folder to watch (a picker's "
                "handle, or watch.mjs's watch()), or the picker the browser refused",
    Kind.PICK: "relay, line, lane, seq: a span or mark picked on the swimlanes: its relay, or else "
               "its input line",
    Kind.RANGE: "from, to (null: cleared), seq: a range dragged on the swimlanes, in the axis's unit "
                "from the run's start",
    Kind.SIZE: "size, seq: the detail panel's size in % (dragged, or moved by keys, on its separator)",
}


class Op(StrEnum):
    """What the worker asks the page to do."""

    SET = "set"
    ATTR = "attr"
    STYLE = "style"
    CLASS = "class"
    APPEND = "append"
    BEFORE = "before"
    AFTER = "after"
    REPLACE = "replace"
    REMOVE = "remove"
    CALL = "call"
    LISTEN = "listen"
    UNLISTEN = "unlisten"
    MEASURE = "measure"
    HISTORY = "history"
    STORE = "store"
    COPY = "copy"
    ACK = "ack"
    LANES = "lanes"
    LANE_META = "lane-meta"
    LANE_PART = "lane-part"
    LANES_READY = "lanes-ready"
    LANE_SELECT = "lane-select"


OPS: Final[dict[Op, str]] = {
    Op.SET: "rid, name, value: a property (a boolean one is also the attribute)",
    Op.ATTR: "rid, name, value: an attribute (null removes it); never on*, style, or a script URL",
    Op.STYLE: "rid, name, value: one CSS property (the page's CSP bars style attributes)",
    Op.CLASS: "rid, name, on: a class toggled",
    Op.APPEND: "rid, [node]: children appended; a node is a rid the page holds, or "
               "[rid, tag, attrs, props, children, style] built with createElement",
    Op.BEFORE: "rid, [node]: siblings inserted before",
    Op.AFTER: "rid, [node]: siblings inserted after",
    Op.REPLACE: "rid, [node]: all children replaced (those dropped are forgotten)",
    Op.REMOVE: "rid: the element removed and forgotten",
    Op.CALL: "rid, method, args: focus, blur, select or scrollIntoView",
    Op.LISTEN: "rid, type, lid, options: forward these events (options: work, prevent, keys)",
    Op.UNLISTEN: "lid: stop forwarding",
    Op.MEASURE: "rid: send the element's height once laid out (message measured)",
    Op.HISTORY: "url: history.replaceState",
    Op.STORE: "key, value: localStorage (denied storage: the choice lasts the visit)",
    Op.COPY: "text, id: the clipboard; its answer comes as message reply",
    Op.ACK: "seq: every message up to seq is handled (<html data-inflight>)",
    Op.LANES: "header: a new swimlanes timeline begins (axis, unit, span, origin, version)",
    Op.LANE_META: "lane, spans, marks: a track's names and sizes",
    Op.LANE_PART: "lane, 'spans'|'marks', k, text: part k of a track's numbers, as JSON text",
    Op.LANES_READY: "every track of the timeline announced by op lanes has its data: draw it",
    Op.LANE_SELECT: "lane, seq: the span (by the relay that opens it) of the row selected, outlined and "
                    "brought into the tracks' view; null, null: none",
}


class Post(StrEnum):
    """Messages to the page that are no op list (objects; the ops go as a JSON string)."""

    DOWNLOAD = "download"  # name, mime, data (a Uint8Array): offered as a file
    FATAL = "fatal"  # message: the worker could not start Python (worker.mjs sends it)


class Work(StrEnum):
    """When an event may start a job (op listen's ``work``): the page then shows "analyzing" in
    the event's own task, before the worker has seen it (a script that waits for "done" after
    acting must never see the previous run's)."""

    ALWAYS = "always"
    VALUE = "value"  # the target's value, trimmed, is not empty (a paste)
    FILES = "files"  # the target (a file input) holds files


# The conditions a key rule (keyboard.KEYS) may hold to; each side tests them on what it knows.
KEY_WHEN: Final[dict[str, str]] = {
    "field": "the focus is in a text field, select or editable element",
    "typing-ok": "the focus is not in a text field (arrows move the caret there, not the view)",
    "plain": "no Ctrl, Meta or Alt",
    "group": "the focus is on a button of the chips or of the examples gallery",
    "view": "a transcript is shown and no job runs",
    "not-body": "the focus is on something (not the page's body)",
    "not-button": "the focus is not on a button, link or summary",
    "row-selected": "a row is selected",
    "row-open": "the selected row is open",
    "search": "the focus is in the search box",
    "searching": "the search box holds a search",
    "shift": "Shift is held",
    "menu-open": "the narrow window's menu is open",
}


# -- page -> worker, as records --------------------------------------------------------------------


class ElementState(msgspec.Struct, frozen=True):
    tag: str
    attrs: dict[str, str]
    props: dict[str, object]


class Start(msgspec.Struct, frozen=True):
    elements: dict[str, ElementState]
    root_attrs: dict[str, str]
    href: str
    storage: dict[str, str] | None  # None: denied (a frame on another site)
    clipboard: bool
    watch_support: str  # why watching cannot work here; "" when it can


class Picked(msgspec.Struct, frozen=True):
    path: str  # relative to what was picked or dropped
    file: PageFile


class Sync(msgspec.Struct, frozen=True):
    rid: int | str
    props: dict[str, object]
    files: list[Picked] | None = None


class EventData(msgspec.Struct, frozen=True):
    """An event, as the page describes it: the target, or the nearest element the worker knows."""

    type: str
    key: str = ""
    ctrl: bool = False
    meta: bool = False
    alt: bool = False
    shift: bool = False
    rid: int | str | None = None  # the nearest element the worker knows
    on_target: bool = False  # ... is the target itself
    tag: str = ""
    id: str = ""
    editable: bool = False


class EventMsg(msgspec.Struct, frozen=True):
    lid: int
    event: EventData
    flipped: bool  # the page showed "analyzing" for it (Work)


class Measured(msgspec.Struct, frozen=True):
    sizes: list[tuple[int | str, int]]


class Reply(msgspec.Struct, frozen=True):
    id: int
    ok: bool


class Drop(msgspec.Struct, frozen=True):
    files: list[Picked]
    error: str | None = None


class Watch(msgspec.Struct, frozen=True):
    handle: WatchHandle | None
    interval_ms: float | None = None
    error: str | None = None  # the browser refused a picker


class Pick(msgspec.Struct, frozen=True):
    seq: int | None  # the relay picked, if it is one
    line: int | None  # else the input line (a lost block's mark)
    lane: str


class Range(msgspec.Struct, frozen=True):
    bounds: tuple[float, float] | None  # None: cleared


class Size(msgspec.Struct, frozen=True):
    percent: int | None  # None: not a number


Message = Start | Sync | EventMsg | Measured | Reply | Drop | Watch | Pick | Range | Size


class Wrap:
    """How the host's objects inside a message become typed ones (main.py passes its own;
    tests pass plain Python)."""

    def __init__(self, file: Callable[[object], PageFile], handle: Callable[[object], WatchHandle]) -> None:
        self.file, self.handle = file, handle

    def picked(self, items: object) -> list[Picked]:
        return [Picked(str(it["path"]), self.file(it["file"])) for it in _list(items) if isinstance(it, Mapping)]


def decode(data: Mapping[str, object], wrap: Wrap) -> tuple[Message, int | None]:
    """The page's message as a record, and its ``seq`` (None when it needs no acknowledgement).
    ValueError for a kind nobody declared."""
    kind = Kind(str(data.get("kind")))
    seq = data.get("seq")
    return _DECODE[kind](data, wrap), seq if isinstance(seq, int) else None


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []


def _dict(value: object) -> dict[str, object]:
    return {str(k): v for k, v in value.items()} if isinstance(value, Mapping) else {}


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _start(d: Mapping[str, object], _: Wrap) -> Start:
    snap = _dict(d.get("snapshot"))
    elements = {}
    for ident, state in _dict(snap.get("elements")).items():
        s = _dict(state)
        elements[ident] = ElementState(str(s.get("tag", "div")), {k: str(v) for k, v in _dict(s.get("attrs")).items()},
                                       _dict(s.get("props")))
    storage = snap.get("storage")
    return Start(elements, {k: str(v) for k, v in _dict(snap.get("rootAttrs")).items()},
                 str(snap.get("href") or "http://localhost/"),
                 {k: str(v) for k, v in _dict(storage).items()} if isinstance(storage, Mapping) else None,
                 bool(snap.get("clipboard")), str(snap.get("watchSupport") or ""))


def _sync(d: Mapping[str, object], wrap: Wrap) -> Sync:
    rid = d.get("rid")
    files = d.get("files")
    return Sync(rid if isinstance(rid, int | str) else "", _dict(d.get("props")),
                wrap.picked(files) if files is not None else None)


def _event(d: Mapping[str, object], _: Wrap) -> EventMsg:
    e = _dict(d.get("e"))
    rid = e.get("rid")
    return EventMsg(_int(d.get("lid")) or 0, EventData(
        str(e.get("type") or ""), str(e.get("key") or ""), bool(e.get("ctrlKey")), bool(e.get("metaKey")),
        bool(e.get("altKey")), bool(e.get("shiftKey")), rid if isinstance(rid, int | str) else None,
        bool(e.get("self")), str(e.get("tag") or ""), str(e.get("id") or ""), bool(e.get("editable"))),
        bool(d.get("flipped")))


def _measured(d: Mapping[str, object], _: Wrap) -> Measured:
    sizes = []
    for pair in _list(d.get("sizes")):
        rid, height = ([*_list(pair), None, None])[:2]
        if isinstance(rid, int | str) and (h := _int(height)) is not None:
            sizes.append((rid, h))
    return Measured(sizes)


def _reply(d: Mapping[str, object], _: Wrap) -> Reply:
    return Reply(_int(d.get("id")) or 0, bool(d.get("ok")))


def _drop(d: Mapping[str, object], wrap: Wrap) -> Drop:
    error = d.get("error")
    return Drop(wrap.picked(d.get("files")), str(error) if error else None)


def _watch(d: Mapping[str, object], wrap: Wrap) -> Watch:
    error = d.get("error")
    if error:
        return Watch(None, None, str(error))
    ms = _dict(d.get("options")).get("intervalMs")
    return Watch(wrap.handle(d.get("handle")), float(ms) if isinstance(ms, int | float) and ms > 0 else None)


def _pick(d: Mapping[str, object], _: Wrap) -> Pick:
    return Pick(_int(d.get("relay")), _int(d.get("line")), str(d.get("lane") or ""))


def _range(d: Mapping[str, object], _: Wrap) -> Range:
    a, b = d.get("from"), d.get("to")
    if isinstance(a, int | float) and isinstance(b, int | float):
        return Range((min(float(a), float(b)), max(float(a), float(b))))
    return Range(None)


def _size(d: Mapping[str, object], _: Wrap) -> Size:
    value = d.get("size")
    return Size(round(value) if isinstance(value, int | float) and not isinstance(value, bool) else None)


_DECODE: Final[dict[Kind, Callable[[Mapping[str, object], Wrap], Message]]] = {
    Kind.START: _start, Kind.SYNC: _sync, Kind.EVENT: _event, Kind.MEASURED: _measured, Kind.REPLY: _reply,
    Kind.DROP: _drop, Kind.WATCH: _watch, Kind.PICK: _pick, Kind.RANGE: _range,
    Kind.SIZE: _size,
}
