"""remote.channel: the worker's side of the channel to the page, :class:`Page` and its one ``PAGE``.

It queues the ops of one turn of the worker's loop and posts them as one message at the next
microtask (``flush``), keeps the listeners of the page's events, the callbacks waiting for a
reply or a height, and hands drops, watch requests and picks to whoever subscribed to their kind
(one that comes first waits for it). The nodes, the window and the messages in are built on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from ..protocol import Drop, Op, Pick, Range, Size, Watch

if TYPE_CHECKING:
    from .nodes import Node
    from .window import Event

Handler = Callable[["Event"], object]
Callback = Callable[[object], object]
Passed = Drop | Watch | Pick | Range | Size  # messages handed to whoever subscribed to their kind
P = TypeVar("P", Drop, Watch, Pick, Range, Size)


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
