"""main: the web worker's entry point, and the one module that touches JavaScript.

static/js/worker.mjs imports this module once Pyodide has loaded the wheels of our
pyodide-lock.json, binds it (``bind``: how to post to the page, and the worker's own helpers for
reading files and listing folders), hands it every message the page sent meanwhile
(``receive``: the page's state first) and then starts the app (``run``). Everything the page
sends arrives here as a JavaScript object and leaves as a typed record (``protocol.decode``);
every browser object the app uses (a File, a folder handle, a slice read, fetch, a download,
the clock) is wrapped here in the interfaces of host.py; the page's parts loaded late (an
opened row's content, the snapshot) are imported here when first used (``LateParts``). The rest of
web/ is typed and checked (mypy --strict); this module alone is not.

Job: hand the page over to Python; flip <html data-app-state> from "loading" to "ready" (or
"error"), the hook users' scripts and the tests wait on.
Must not: build DOM from strings (remote/ sends only text and attributes), fetch anything of
its own accord, or be imported by anything but worker.mjs.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

from . import protocol, remote

_app: Any = None  # kept: its handlers live as long as the page
_helpers: Any = None  # worker.mjs's {list, readAhead, readRange}


def bind(helpers: Any) -> None:
    """Ops go to the page as one JSON message per turn of the event loop (a microtask after the
    Python that made them returns); a message with bytes goes as a JS object."""
    import js  # type: ignore[import-not-found]
    from pyodide.ffi import create_proxy, to_js  # type: ignore[import-not-found]

    global _helpers
    _helpers = helpers

    def post(message: Any) -> None:
        if isinstance(message, str):
            js.postMessage(message)
        else:
            js.postMessage(to_js(message, dict_converter=js.Object.fromEntries))

    flush = create_proxy(remote.PAGE.flush)
    remote.PAGE.post = post
    remote.PAGE.schedule = lambda: js.queueMicrotask(flush)


WRAP = protocol.Wrap(lambda f: JsFile(f), lambda h: JsHandle(h))


def receive(message: Any) -> None:
    record, seq = protocol.decode(message.to_py(), WRAP)  # a File or handle stays a JsProxy
    remote.receive(record, seq)


def run() -> None:
    global _app
    document = remote.DOCUMENT
    try:
        # Imported here, not at the top, so that a broken wheel still ends in data-app-state="error".
        import msgspec

        import relayscope

        from .app import App

        document.element("version").textContent = relayscope.__version__
        document.element("msgspec-version").textContent = msgspec.__version__
        _app = App(JsHost(), LateParts())
        _app.start()
    except Exception as exc:
        document.documentElement.dataset.appState = "error"
        document.element("status").textContent = f"Python failed to start: {exc!r}"
        raise  # the worker prints the traceback to the console
    finally:
        remote.PAGE.flush()


class LateParts:
    """The page's parts imported when first used, not at its boot (app.Parts): each import here
    runs once, on the first call."""

    def content(self, box: Any, ws: Any, r: Any, labels: Any) -> None:
        from . import detail_view  # with markdown-it-py and difflib: when a row is first opened

        detail_view.content(box, ws, r, labels)

    def snapshot(self, source: Any, **options: Any) -> str:
        from .. import snapshot  # its renderer: when a snapshot is first asked for

        return snapshot.render(source, **options)


# -- the browser's objects, as host.py's interfaces ---------------------------------------------


class JsSlice:
    def __init__(self, buffer: Any) -> None:
        self._buffer = buffer

    def __len__(self) -> int:
        return int(self._buffer.byteLength)

    def copy_into(self, out: bytearray) -> None:
        self._buffer.assign_to(out)  # into Python's memory, straight from the ArrayBuffer


class JsSlices:
    """static/js/read-ahead.mjs's reader: the next slices are read by a worker of their own."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader

    async def next(self) -> JsSlice:
        return JsSlice(await self._reader.next())

    def close(self) -> None:
        self._reader.close()


class JsFile:
    def __init__(self, file: Any) -> None:
        self._file = file

    @property
    def size(self) -> int:
        return int(self._file.size)

    async def read(self, start: int = 0, end: int | None = None) -> bytes:
        # by a pool of reader workers (static/js/read-pool.mjs): thousands of reads overlap there
        stop = self.size if end is None else min(end, self.size)
        return (await _helpers.readRange(self._file, start, stop)).to_bytes()  # type: ignore[no-any-return]

    def slices(self, size: int) -> JsSlices:
        return JsSlices(_helpers.readAhead(self._file, size))


class JsHandle:
    def __init__(self, handle: Any) -> None:
        self._handle = handle

    @property
    def kind(self) -> str:
        return str(self._handle.kind)

    @property
    def name(self) -> str:
        return str(self._handle.name)

    async def file(self) -> JsFile:
        return JsFile(await self._handle.getFile())

    async def listing(self) -> list[tuple[str, JsHandle]]:
        return [(str(item.path), JsHandle(item.handle)) for item in await _helpers.list(self._handle)]


class JsHost:
    async def fetch(self, url: str) -> bytes:
        import js

        response = await js.fetch(urljoin(remote.WINDOW.location.href, url))
        if not response.ok:
            raise OSError(f"{url}: HTTP {response.status}")
        return (await response.arrayBuffer()).to_bytes()  # type: ignore[no-any-return]

    def download(self, name: str, data: bytes, mime: str) -> None:
        import js

        array = js.Uint8Array.new(len(data))  # a copy: a view into Python's memory would clone all of it
        array.assign(data)
        remote.PAGE.post_object({"kind": str(protocol.Post.DOWNLOAD), "name": name, "mime": mime, "data": array})

    def now(self) -> float:
        import js

        return float(js.performance.now())
