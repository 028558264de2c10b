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

The parts: ``channel`` (the op queue and the listeners: ``PAGE``), ``nodes`` (the elements and
the document), ``window`` (the window, ``WINDOW`` and ``DOCUMENT``, and the messages in).
"""

from __future__ import annotations

from .channel import PAGE, Callback, Handler, P, Page, Passed
from .nodes import (
    BOOLEAN_ATTRS,
    SCROLL_SYNCED,
    STRING_ATTRS,
    ClassList,
    Dataset,
    Document,
    FileItem,
    FileList,
    Node,
    Style,
    camel_to_kebab,
    kebab_to_camel,
)
from .window import (
    CSS,
    DOCUMENT,
    WINDOW,
    Clipboard,
    Event,
    History,
    Location,
    Navigator,
    Storage,
    Target,
    Thenable,
    Window,
    receive,
    start,
)

__all__ = [
    "BOOLEAN_ATTRS",
    "CSS",
    "DOCUMENT",
    "PAGE",
    "SCROLL_SYNCED",
    "STRING_ATTRS",
    "WINDOW",
    "Callback",
    "ClassList",
    "Clipboard",
    "Dataset",
    "Document",
    "Event",
    "FileItem",
    "FileList",
    "Handler",
    "History",
    "Location",
    "Navigator",
    "Node",
    "P",
    "Page",
    "Passed",
    "Storage",
    "Style",
    "Target",
    "Thenable",
    "Window",
    "camel_to_kebab",
    "kebab_to_camel",
    "receive",
    "start",
]
