"""The web worker's entry point: static/js/worker.mjs imports this module once Pyodide has loaded
the wheels of our pyodide-lock.json, binds it to the page (``bind``), hands it the messages the
page sent meanwhile (``receive``: first the page's state, then what the reader typed or picked)
and then starts the app (``run``).

Job: hand the page over to Python. It imports the core and msgspec, shows their versions,
starts the app (``app.py``) and flips <html data-app-state> from "loading" to "ready" (or
"error"), the hook users' scripts and the tests wait on.
Must not: build DOM from strings (remote.py sends only text and attributes), fetch anything, or
be imported by the core.
"""

from __future__ import annotations

from typing import Any

from . import remote

_app: Any = None  # kept: its handlers live as long as the page


def bind() -> None:
    """Ops go to the page as one JSON message per turn of the event loop (a microtask after the
    Python that made them returns); a message with bytes goes as a JS object."""
    import js  # type: ignore[import-not-found]
    from pyodide.ffi import create_proxy, to_js  # type: ignore[import-not-found]

    def post(message: Any) -> None:
        if isinstance(message, str):
            js.postMessage(message)
        else:
            js.postMessage(to_js(message, dict_converter=js.Object.fromEntries))

    flush = create_proxy(remote.PAGE.flush)
    remote.PAGE.post = post
    remote.PAGE.schedule = lambda: js.queueMicrotask(flush)


def receive(message: Any) -> None:
    if str(message.kind) == "start":
        remote.start(message.snapshot)
    else:
        remote.receive(message)


def run() -> None:
    global _app
    document = remote.DOCUMENT
    try:
        # Imported here, not at the top, so that a broken wheel still ends in data-app-state="error".
        import msgspec

        import relayscope

        from .app import App

        document.getElementById("version").textContent = relayscope.__version__
        document.getElementById("msgspec-version").textContent = msgspec.__version__
        _app = App()
        _app.start()
    except Exception as exc:
        document.documentElement.dataset.appState = "error"
        document.getElementById("status").textContent = f"Python failed to start: {exc!r}"
        raise  # the worker prints the traceback to the console
    finally:
        remote.PAGE.flush()
