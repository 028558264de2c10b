"""emitter: what every input-format translator shares. Seq numbering, the trace, the error list.

:class:`Emitter` is the base of the stream-json :class:`~relayscope.translator.Translator`
(and through it the session-record translator) and of the SSE ``FleetTranslator``: one seq
space per instance, a lane's first relay preceded by its ``lane_start`` when the subclass
emits lane events, one :class:`~relayscope.trace.TraceStep` per input line when tracing.

State: the next seq, the lanes started, the trace and the errors, for one translator's whole
input; nothing resets (seqs and the trace span turns and files). Must not know any input
format or de-dup rule; must not import the translator or anything above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import relay as R
from . import trace as T
from .lanes import MAIN, Lane

__all__ = ["Emitter"]


class Emitter:
    """What every translator shares: seq numbering, the trace, the error list."""

    lane_events = False  # start lanes implicitly on their first relay

    def __init__(self, *, trace: bool = False, file: str | None = None) -> None:
        self.tracing = trace
        self.trace: list[T.TraceStep] = []
        self.errors: list[tuple[int, str]] = []  # (line, message) of unreadable input
        self.file = file
        self.lines = 0
        self._seq = 0
        self._out: list[R.Relay] = []
        self._started: set[str] = set()
        self._scratch = T.TraceStep(0, "")

    @property
    def seq(self) -> int:
        """The seq the next relay will get."""
        return self._seq

    def feed_line(self, text: str | bytes) -> list[R.Relay]:
        raise NotImplementedError

    def finish(self) -> list[R.Relay]:
        return []

    def lane_map(self) -> Mapping[str, Lane]:
        """Every lane known so far with its metadata, by id (none for formats that carry
        their lanes only in ``lane_start`` relays)."""
        return {}

    def next_seq(self, step: T.TraceStep, line: int, lane: str) -> int:
        """The seq of the relay about to be built in ``lane`` (a lane's first relay is
        preceded by its lane_start). Hot paths build relays directly, with this as their
        first keyword argument, then ``push`` them: forwarding ``**fields`` through ``emit``
        costs four times the construction itself."""
        if self.lane_events and lane not in self._started:
            self._start_lane(step, line, lane)
        seq = self._seq
        self._seq = seq + 1
        if self.tracing:
            step.seqs.append(seq)
        return seq

    def emit(self, step: T.TraceStep, cls: type[R.Relay], line: int, lane: str, **fields: Any) -> R.Relay:
        relay = cls(seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file, **fields)
        self._out.append(relay)
        return relay

    def _start_lane(self, step: T.TraceStep, line: int, lane_id: str) -> None:
        raise NotImplementedError

    def _record(self, step: T.TraceStep) -> None:
        if self.tracing:
            self.trace.append(step)

    def _error(self, step: T.TraceStep, line: int, text: str | bytes, message: str) -> None:
        self.errors.append((line, message))
        shown = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        self.emit(step, R.Error, line, MAIN, message=message, raw=shown[:200])
        step.decision, step.reason = T.ERROR, message
