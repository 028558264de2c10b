"""The page's entry point: PyScript fetches this file (index.html) and runs it as __main__.

Job: hand the page over to Python. It imports the core and msgspec from the wheels our
pyodide-lock.json loaded, shows their versions, and flips <html data-app-state> from "loading"
to "ready" (or "error"), the hook users' scripts and the tests wait on.
Must not: build DOM from strings (textContent and createElement only, never innerHTML with
data), fetch anything, or be imported by the core.
"""

from __future__ import annotations

from typing import Any

from pyscript import document, window


def element(testid: str) -> Any:
    return document.querySelector(f'[data-testid="{testid}"]')


def start() -> None:
    # Imported here, not at the top, so that a broken wheel still ends in data-app-state="error".
    import msgspec

    import relayscope

    element("version").textContent = relayscope.__version__
    element("msgspec-version").textContent = msgspec.__version__
    element("status").textContent = "Ready."
    root = document.documentElement
    root.dataset.loadMs = f"{window.performance.now():.0f}"
    root.dataset.appState = "ready"


def main() -> None:
    try:
        start()
    except Exception as exc:
        document.documentElement.dataset.appState = "error"
        element("status").textContent = f"Python failed to start: {exc!r}"
        raise  # PyScript prints the traceback to the console


if __name__ == "__main__":
    main()
