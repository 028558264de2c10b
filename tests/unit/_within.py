"""A call bounded in time, for tests of code that must not hang (a collector that trickles, an
encoder that could loop): the call runs in a daemon thread and the test fails if it is still
running after the bound."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def within(seconds: float, fn: Callable[[], Any], still: str = "") -> Any:
    """``fn()``'s value or exception; a failure saying ``still`` when it has not returned after ``seconds``."""
    got: list[Any] = []

    def call() -> None:
        try:
            got.append(fn())
        except BaseException as exc:  # handed to the test
            got.append(exc)
    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), still or f"still running after {seconds} s"
    return got[0]
