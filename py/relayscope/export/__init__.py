"""export: the run as a trace other tools open, and its figures, written as the input is read.

* ``chrome_trace``: Trace Event Format JSON (Perfetto UI, chrome://tracing, speedscope, the DevTools
  Performance panel). One process per session, named threads per lane: the lane's own (its agent
  span, and its tool calls nested in it), ``<lane> · parallel N`` for a call that starts while
  another of the lane runs (so no viewer draws siblings as parent and child), ``<lane> · model``
  for its model calls (``chat`` events with their usage). ``X`` complete events for spans, ``i``
  instant events for lost blocks and errors, ``M`` metadata. ``ts`` is absolute microseconds since
  the epoch (never 0, which the DevTools engine leaves out of the trace's bounds); off the time
  axis one input line (or relay) is one millisecond from ``untimed_start``, and ``otherData`` says so.
  A lane's span reaches 1 us past its last event (viewers end a span before its end time: a call
  that starts at the lane's last event would be a second root). Events come in the order their
  spans end (viewers sort them).
* ``otlp``: OTLP/JSON ``ExportTraceServiceRequest`` (Jaeger, Tempo, Phoenix, Langfuse, MLflow). One
  trace per session; a span per agent (``invoke_agent``), per tool call (``execute_tool``) and per
  model call (``chat``, with its usage): the OpenTelemetry GenAI attributes and OpenInference's
  (Phoenix reads those). Ids are hashes of the session id (else the input's first line), the lane,
  the tool call or message and where it began (file, line): the same run gives the same ids however
  it is read, so a collector that is sent it again does not count it twice, and an id the input
  repeats makes another span. A mark found after its lane's span was written (a block found lost
  later) is an event of the root, naming its lane. :class:`Spans` gives the spans as data for the
  protobuf encoder (``otlp.py``).
* ``figures``: where the time went (``spans.Builder.figures``), one entry per session.

Memory: one text (or stdin) is read a line at a time, and only what is still open is held (spans,
calls and lanes not finished, the timestamps of the last ``STAMPS_KEPT`` lines, the streamed audit's
digests: :class:`LostWatch`): constant in the input's length. Several files (a folder) are read a
session at a time: a session's files (main and sub-agents) are translated together, as
``multifile`` links them, and held whole while they are.

The CLI (``relayscope export``, ``stats``) and the web page's downloads both call :func:`write`
(or the same writers through :func:`stream`), so their bytes are the same.
Pure: no I/O. Must not: name machine paths in its output (files are named by their base name).
"""

from __future__ import annotations

from .chrome import ChromeTrace
from .live import (
    ERRORS_KEPT,
    EVENTS_KEPT,
    FORMATS,
    LINE_US,
    LOST_AFTER,
    OPEN_KEPT,
    SCOPE,
    SEEN_KEPT,
    STAMPS_KEPT,
    Found,
    Live,
    LostWatch,
    StampRing,
    day_start,
    retracted_words,
)
from .otlp_spans import INT64, OSpan, OtlpJson, Spans, Value, _json_attrs, otlp_json_span
from .outputs import chrome_trace, export, figures, otlp, run_figures, write, writer
from .reading import YIELD_AFTER, Run, Source, Writer, _dumps, _replay, runs, stream

__all__ = [
    "ERRORS_KEPT",
    "EVENTS_KEPT",
    "FORMATS",
    "INT64",
    "LINE_US",
    "LOST_AFTER",
    "OPEN_KEPT",
    "SCOPE",
    "SEEN_KEPT",
    "STAMPS_KEPT",
    "YIELD_AFTER",
    "ChromeTrace",
    "Found",
    "Live",
    "LostWatch",
    "OSpan",
    "OtlpJson",
    "Run",
    "Source",
    "Spans",
    "StampRing",
    "Value",
    "Writer",
    "_dumps",
    "_json_attrs",
    "_replay",
    "chrome_trace",
    "day_start",
    "export",
    "figures",
    "otlp",
    "otlp_json_span",
    "retracted_words",
    "run_figures",
    "runs",
    "stream",
    "write",
    "writer",
]
