"""Debian's Chromium, launched the one way this project launches it (tests and benchmarks).

``playwright install`` cannot download a browser here, so Playwright drives /usr/bin/chromium
(`make test` installs it). The flags keep a headless Chromium, running as root, from trying to
reach the network on its own (update checks, sync, first-run pages).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launch(playwright: Any) -> Any:
    """A headless Chromium browser from a ``sync_playwright()`` handle."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)


def wait_js(page: Any, expression: str, timeout_ms: int = 120_000) -> None:
    """Wait until `expression` is truthy in the page. Polled from here through the DevTools
    protocol, not page.wait_for_function, whose polling evals strings inside the page: the
    app's Content-Security-Policy (no 'unsafe-eval') refuses that."""
    import time

    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(20)
