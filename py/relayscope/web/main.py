"""The page's entry point: PyScript fetches this file (index.html) and runs it as __main__.

Job: hand the page over to Python. It imports the core and msgspec from the wheels our
pyodide-lock.json loaded, shows their versions, starts the app (``app.py``) and flips
<html data-app-state> from "loading" to "ready" (or "error"), the hook users' scripts and the
tests wait on.
Must not: build DOM from strings (textContent and createElement only, never innerHTML with
data), fetch anything, or be imported by the core.
"""

from __future__ import annotations

from typing import Any

from pyscript import document


def element(testid: str) -> Any:
    return document.querySelector(f'[data-testid="{testid}"]')


def start() -> Any:
    # Imported here, not at the top, so that a broken wheel still ends in data-app-state="error".
    import msgspec

    import relayscope
    from relayscope.web.app import App

    element("version").textContent = relayscope.__version__
    element("msgspec-version").textContent = msgspec.__version__
    app = App()
    app.start()
    return app


def main() -> Any:
    try:
        return start()
    except Exception as exc:
        document.documentElement.dataset.appState = "error"
        element("status").textContent = f"Python failed to start: {exc!r}"
        raise  # PyScript prints the traceback to the console


if __name__ == "__main__":
    app = main()  # kept: its handlers live as long as the page
