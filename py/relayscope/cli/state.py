"""What the run is doing, for whatever ends it: the input being read (an internal error names
its line), the output to close, the redactor that words every message. One per process, reset by
``cli.main`` as a run starts: no state between commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..redact import Redactor


class Output(Protocol):
    """The output any exit closes (``writers.Held``)."""

    count: int
    closed: bool

    def drain(self) -> None: ...

    def close(self) -> None: ...


class Run:
    """What the run is doing: where an internal error happened, and the output any exit closes."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.name: str | None = None  # the input being read
        self.line = 0  # its last line handed to the translator (0: read whole)
        self.writer: Output | None = None
        self.redactor: Redactor | None = None  # --redact: names and messages are redacted too


current = Run()
