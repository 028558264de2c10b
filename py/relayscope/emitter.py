"""emitter: what every input-format translator shares. Seq numbering, the trace, the error list.

:class:`Emitter` is the base of the stream-json :class:`~relayscope.translator.Translator`
(and through it the session-record translator) and of the SSE ``FleetTranslator``: one seq
space per instance, a lane's first relay preceded by its ``lane_start`` when the subclass
emits lane events, one :class:`~relayscope.trace.TraceStep` per input line when tracing.

State: the next seq, the lanes started, the trace, the errors and warnings, for one
translator's whole input; nothing resets (seqs and the trace span turns and files). Bounded:
``errors`` and ``warnings`` keep the first ``ERRORS_KEPT`` entries (a garbage file of millions
of lines must not cost a gigabyte of messages), ``error_count`` and ``warning_count`` count them
all, and every one still gets its relay. ``checkpoint`` / ``restore``: its part of a translator's
checkpoint. ``drift``: a ``drift.Drift`` a caller gives, through which a line-decoding translator
decodes (the input's drift report, counted as it goes; not part of a checkpoint). Must not know any input
format or de-dup rule; must not import the translator or anything above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from . import relay as R
from . import trace as T
from .drift import Drift
from .lanes import MAIN, Lane

__all__ = ["ERRORS_KEPT", "Emitter"]

ERRORS_KEPT: Final = 200  # errors (and warnings) listed; the rest are counted only


class Emitter:
    """What every translator shares: seq numbering, the trace, the error and warning lists."""

    lane_events = False  # start lanes implicitly on their first relay

    def __init__(self, *, trace: bool = False, file: str | None = None) -> None:
        self.tracing = trace
        self.trace: list[T.TraceStep] = []
        self.errors: list[tuple[int, str]] = []  # (line, message) of unreadable input
        self.warnings: list[tuple[int, str]] = []  # (line, message) of lines read with repairs
        self.error_count = 0
        self.warning_count = 0
        self.internal_errors = 0
        self.file = file
        self.lines = 0
        self._seq = 0
        self._out: list[R.Relay] = []
        self._started: set[str] = set()
        self._scratch = T.TraceStep(0, "")
        # Marks instead of a trace (``trace.Marks``; only where a translator says it keeps them)
        self.marks: T.Marks | None = None
        # Set by a caller that wants the input's drift report: a translator that decodes lines
        # (stream-json, session records) decodes them through it (``Drift.decode``), counting as it goes
        self.drift: Drift | None = None

    def checkpoint(self) -> tuple[Any, ...]:
        """What this holds that decides what comes next, as immutable values: for a
        subclass's ``checkpoint`` (``Translator.checkpoint``). Not the record of what came
        before: the trace and the marks (a checkpoint is taken with the trace off; a translator
        restored from it records from there on)."""
        return (self.tracing, self.file, self.lines, self._seq, tuple(self.errors), tuple(self.warnings),
                self.error_count, self.warning_count, self.internal_errors, frozenset(self._started),
                self.lane_events, self.marks is not None)

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        """Hold what ``checkpoint`` held, with an empty trace (and empty marks, when it kept marks)."""
        (self.tracing, self.file, self.lines, self._seq, errors, warnings, self.error_count, self.warning_count,
         self.internal_errors, started, self.lane_events, marking) = checkpoint
        self.errors, self.warnings, self._started = list(errors), list(warnings), set(started)
        self.trace, self._out, self._scratch = [], [], T.TraceStep(0, "")
        self.marks = T.Marks(self.file) if marking else None

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
        if lane not in self._started and self.lane_events:
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
        elif self.marks is not None:
            self.marks.add(step, self._seq)

    def _error(self, step: T.TraceStep, line: int, text: str | bytes, message: str) -> None:
        self.error_count += 1
        if len(self.errors) < ERRORS_KEPT:
            self.errors.append((line, message))
        self.emit(step, R.Error, line, MAIN, message=message, raw=_shown(text))
        step.decision, step.reason = T.ERROR, message

    def warn(self, step: T.TraceStep, line: int, text: str | bytes, message: str, lane: str = MAIN) -> None:
        """The line is translated, but not exactly as written: say so in a ``warning`` relay."""
        self.warning_count += 1
        if len(self.warnings) < ERRORS_KEPT:
            self.warnings.append((line, message))
        self.emit(step, R.Warning, line, lane, message=message, raw=_shown(text))
        if self.tracing:
            step.note = f"{step.note}; {message}" if step.note else message

    def _internal_error(self, step: T.TraceStep, line: int, text: str | bytes, exc: Exception) -> None:
        """Never raise on input: a bug becomes an ``error`` relay that says it is one (and
        ``internal_errors`` counts them, for a caller that must tell bugs from bad input)."""
        self.internal_errors += 1
        self._error(step, line, text, f"internal error (a bug in relayscope; please report it): "
                                      f"{type(exc).__name__}: {str(exc)[:200]}")


def _shown(text: str | bytes) -> str:
    """The start of a line, for ``raw`` fields: 200 characters, whatever the line's encoding."""
    head = text[:800]
    shown = head.decode("utf-8", "replace") if isinstance(head, bytes) else head
    return shown.rstrip("\r\n")[:200].encode("utf-8", "replace").decode("utf-8")
