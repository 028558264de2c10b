"""feeder: an input's text in arbitrary chunks (a file read in slices, a paste, stdin), split
into lines on ``\\n`` only (JSON strings may hold U+2028 and friends, which ``str.splitlines``
would split on), its format detected from the first non-blank lines unless told
(``formats.Sniffer``), and fed to the translator that format asks for. Chunk boundaries never
change the result.

The translator is made by the function given (``MakeTranslator``): ``analysis.Analyzer`` gives
``analysis.make_translator``, which knows every format's; the command line's one-input
``translate`` gives the dispatcher's, which imports only the translator the input's format asks
for (a stream-json translate loads no other format's module).

State: the lines held until the format is known, the unfinished last line of the chunks so
far, the translator, and (with ``keep``) every relay; one Feeder per input, never reset. With
``drift``, the input's drift report is counted as its lines are decoded (``drift.Drift.decode``:
no second pass over the lines; an Arbiter stream has none).
Must not import a translator (the function given makes it), ``audit``, ``multifile`` or anything
above them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Final, Protocol

from . import relay as R
from . import trace as T
from .drift import Drift
from .emitter import Emitter
from .formats import FORMATS, Sniffer
from .lanes import Lane

AUTO: Final = "auto"
SLICE_BYTES: Final = 512 * 1024  # input per progress step: a few ms in CPython, well under 100 ms in Pyodide


class MakeTranslator(Protocol):
    """The translator for input format ``fmt`` (one of ``formats.FORMATS``)."""

    def __call__(self, fmt: str, strategy: str = "lineage", *, trace: bool = False,
                 file: str | None = None) -> Emitter: ...


class Feeder:
    """An input's text fed in any chunks, its lines to the translator its format asks for, which
    ``make`` makes (``analysis.Analyzer``: ``analysis.make_translator``)."""

    def __init__(self, make: MakeTranslator, strategy: str = "lineage", fmt: str = AUTO, *, trace: bool = False,
                 keep: bool = True, file: str | None = None, marks: bool = False,
                 drift: bool | Drift = False) -> None:
        if fmt != AUTO and fmt not in FORMATS:
            raise ValueError(f"unknown input format {fmt!r}; choose from auto, {', '.join(FORMATS)}")
        self._make = make
        self.strategy = strategy
        self.format: str | None = None if fmt == AUTO else fmt
        self.tracing = trace
        # marks: ``trace.Marks`` instead of the trace where the translator keeps them (stream-json;
        # they number relays in step order), else the whole trace
        self.marking = marks and not trace
        self.keep = keep
        self.file = file
        # what the input has that is new (a Drift given is shared: several files counted as one input)
        self.drift: Drift | None = drift if isinstance(drift, Drift) else Drift() if drift else None
        self.relays: list[R.Relay] = []
        self.translator: Emitter | None = None
        self._held: list[str | bytes] = []  # lines seen before the format is known
        self._sniffer = Sniffer()
        self._rest: str | bytes = ""
        if self.format is not None:
            self._start(self.format)

    def _start(self, fmt: str) -> None:
        self.format = fmt
        light = self.marking and fmt == "stream-json"
        self.translator = self._make(fmt, self.strategy, trace=self.tracing or (self.marking and not light),
                                     file=self.file)
        if light:
            self.translator.marks = T.Marks(self.file)
        self.translator.drift = self.drift

    @property
    def trace(self) -> list[T.TraceStep]:
        return self.translator.trace if self.translator else []

    @property
    def marks(self) -> T.Marks | None:
        """The translator's marks, when it keeps marks instead of a trace (see ``marks=``)."""
        return self.translator.marks if self.translator else None

    @property
    def errors(self) -> list[tuple[int, str]]:
        """(line, message) of the first ``emitter.ERRORS_KEPT`` unreadable lines."""
        return self.translator.errors if self.translator else []

    @property
    def warnings(self) -> list[tuple[int, str]]:
        """(line, message) of the first lines read with a repair (see the ``warning`` relay)."""
        return self.translator.warnings if self.translator else []

    @property
    def lanes(self) -> Mapping[str, Lane]:
        """The translator's lanes with their metadata (see ``Emitter.lane_map``)."""
        return self.translator.lane_map() if self.translator else {}

    @property
    def lines(self) -> int:
        return (self.translator.lines if self.translator else 0) + len(self._held)

    def feed_text(self, chunk: str | bytes) -> list[R.Relay]:
        """Feed any slice of the input; complete lines are translated at once."""
        if not chunk:
            return []
        rest = self._rest
        if isinstance(chunk, bytes) and isinstance(rest, str):
            rest = rest.encode()
        elif isinstance(chunk, str) and isinstance(rest, bytes):
            rest = rest.decode("utf-8", "replace")
        data = rest + chunk  # type: ignore[operator]
        sep: str | bytes = b"\n" if isinstance(data, bytes) else "\n"
        parts = data.split(sep)  # type: ignore[arg-type]
        self._rest = parts.pop()
        out: list[R.Relay] = []
        for line in parts:
            out.extend(self.feed_line(line))
        return out

    def feed_steps(self, lines: Sequence[str | bytes], slice_bytes: int = SLICE_BYTES, *,
                   finish: bool = True) -> Iterator[float]:
        """Feed whole lines and finish (unless told: more will come), yielding progress in
        [0, 1) after each slice of about ``slice_bytes`` (callers that must stay responsive
        pause there)."""
        total = len(lines) or 1
        budget = 0
        kept = self.relays.extend if self.keep else None
        for i, line in enumerate(lines):
            t = self.translator
            if t is None:
                self.feed_line(line)
            elif kept is not None:  # feed_line's work without its call: this runs for every line
                kept(t.feed_line(line))
            else:
                t.feed_line(line)
            budget += len(line)
            if budget >= slice_bytes:
                budget = 0
                yield i / total
        if finish:
            self.finish()

    def feed_line(self, line: str | bytes) -> list[R.Relay]:
        t = self.translator
        if t is None:
            self._held.append(line)
            found = self._sniffer.feed(line)
            return [] if found is None else self._release(found)
        out = t.feed_line(line)
        if self.keep:
            self.relays.extend(out)
        return out

    def _release(self, fmt: str) -> list[R.Relay]:
        held, self._held = self._held, []
        self._start(fmt)
        out: list[R.Relay] = []
        for line in held:
            out.extend(self.feed_line(line))
        return out

    def finish(self) -> list[R.Relay]:
        """End of input: the last line (even without a newline), then the translator's flush."""
        out: list[R.Relay] = []
        if self._rest:
            rest, self._rest = self._rest, ""
            out.extend(self.feed_line(rest))
        if self.translator is None:
            out.extend(self._release("stream-json"))  # nothing proved a format
        assert self.translator is not None
        tail = self.translator.finish()
        if self.keep:
            self.relays.extend(tail)
        return out + tail
