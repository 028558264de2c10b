"""analysis: text in, relays + trace out, incrementally. What the CLI and the web app share.

:class:`Analyzer` is a ``feeder.Feeder`` (text in arbitrary chunks, split into lines, the format
sniffed, each line translated; chunk boundaries never change the result) whose translator is
:func:`make_translator`'s: whichever format the input turns out to be. ``AUTO`` and
``SLICE_BYTES`` are the feeder's.
Must not import ``audit``, ``multifile`` or anything above them.
"""

from __future__ import annotations

from .drift import Drift
from .emitter import Emitter
from .feeder import AUTO, SLICE_BYTES, Feeder
from .formats import FORMATS
from .formats.session import SessionTranslator
from .formats.sse import FleetTranslator
from .translator import Translator

__all__ = ["AUTO", "SLICE_BYTES", "Analyzer", "analyze", "make_translator"]


def make_translator(fmt: str, strategy: str = "lineage", *, trace: bool = False,
                    file: str | None = None) -> Emitter:
    """The translator for input format ``fmt`` (one of ``formats.FORMATS``). Here, not in
    ``formats``: sniffing alone (``verdict``, ``redact``) loads none of the translators."""
    if fmt == "sse":
        return FleetTranslator(strategy, trace=trace, file=file)
    if fmt == "session":
        return SessionTranslator(strategy, trace=trace, file=file)
    if fmt != "stream-json":
        raise ValueError(f"unknown input format {fmt!r}; choose from {', '.join(FORMATS)}")
    return Translator(strategy, trace=trace, file=file)


class Analyzer(Feeder):
    """A ``Feeder`` whose translator is ``make_translator``'s: any format's."""

    def __init__(self, strategy: str = "lineage", fmt: str = AUTO, *, trace: bool = False,
                 keep: bool = True, file: str | None = None, marks: bool = False,
                 drift: bool | Drift = False) -> None:
        super().__init__(make_translator, strategy, fmt, trace=trace, keep=keep, file=file, marks=marks, drift=drift)


def analyze(text: str | bytes, strategy: str = "lineage", fmt: str = AUTO, *, trace: bool = True) -> Analyzer:
    """Translate a whole text at once; the Analyzer holds relays, trace and errors."""
    a = Analyzer(strategy, fmt, trace=trace)
    a.feed_text(text)
    a.finish()
    return a
