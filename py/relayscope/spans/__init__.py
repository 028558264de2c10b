"""spans: the run in time, built as the relays pass, holding only what is still open.

Per lane: the agent span (its spawning call to that call's result), the tool spans (``tool_use``
to its ``tool_result``), the model calls (``Call``: from what the model was last given to the last
block of its answer, with the message's usage), the lost blocks and errors as marks; and the
figures of "where the time went" per lane and for the run, as running sums.

Theory of operation
-------------------
:class:`Timing` turns relays into ``(relay, x)``: it holds the first relays until the axis is
known, then gives each its x. :class:`Builder` takes them one at a time and puts every span,
call and mark on ``closed`` the moment it is finished; what it holds is what is still open (calls
without a result, lanes without an end, a message's call until its usage comes) and a few
numbers per lane. ``relayscope export`` and ``stats`` stream through the two in constant memory;
:func:`build` collects everything into a :class:`Timeline` for the page's swimlanes and the tests.

The axis (``Timing``):

* ``time``: the first line that opens or closes a span (else, with none among the first 64
  relays, every one of them) carries a ``timestamp``. x is seconds since the epoch; a line without
  one takes the time of the line before it in its file. A stamp without an offset is UTC; one
  before 1970 or past 2262-04-11 (where nanoseconds leave a signed 64-bit integer) is clamped
  into that range; both are counted in ``notes``.
* ``line``: otherwise, for one input: x is the input line number. What the stream says of time
  itself (a result's ``duration_ms`` and ``ttft_ms``, a task's ``duration_ms``) is kept as
  ``reported_ms`` beside the figures, never mixed into x.
* ``order``: as ``line``, for several files without timestamps: x is the relay's seq.

Rules that keep every viewer right (a table: what, the rule, why):

============================  ===============================================  =====================================
what                          rule                                             why
============================  ===============================================  =====================================
a child outliving its parent  a span ends at the latest of its own end and     a flame chart or waterfall draws a
(lines missing: no result)    its children's; closing a lane closes what is    child outside its parent as a root
                              still open in it and under it, at that time
a call without a result       runs to its lane's last event, marked open       nothing says when it ended
two calls at once in a lane   the second takes the lowest free row (rows are   siblings drawn on one track nest,
                              given at the call's start: streaming)            which reads as parent and child
a lane whose parent chain     attached to main, said in ``notes``              a parent cycle has no root
loops (or names itself)
a call in the lane it spawns  not that lane's parent, said in ``notes``        the same cycle, one step long
============================  ===============================================  =====================================

Figures: the lane's wall time is cut into stretches between its relays, each counted once:
*tools* while a call of the lane runs, else *model* while the lane waits on the model (from its
last input, or its start, to the last block of the answer: a stretch ended by more input, or by
the lane's end, was no model's), else *idle*; so tools + model + idle = wall. What ran at
the same time is said beside as overlaps: the model answering while a call ran, calls in
parallel. The run's figures cut the run's wall time the same way over all lanes.

A sub-agent's track carries its state as the lanes panel shows it (``subagents.LaneStates``:
running, with the last heartbeat's time; completed; failed); the main track carries what the
results report of the run's timing (``first_content_frame_ms``, ``time_to_request_ms``,
``ttft_ms``, ``ttft_stream_ms``), each result's value kept. The run's idle stretches longer than
``gaps_over`` (no call, no model at work, no record) are kept for ``folds``.

Reuses the layers below: lane labels from ``lanes``, a call's key input from ``present``, lost
blocks from the audit's inventory (``audit.relay_keys``: the audit's own mapping).
Pure: no I/O, no DOM. Must not: parse input lines beyond their ``timestamp``, or change relays.
"""

from __future__ import annotations

from .axis import Timing, positions
from .builder import Builder
from .records import (
    AWAITING_USAGE,
    AXIS_WORDS,
    DECIDE_WITHIN,
    HELD_KEPT,
    LINE,
    MAX_SECONDS,
    ORDER,
    TIME,
    TIMING,
    TOP_TOOLS,
    Call,
    Lost,
    Mark,
    Span,
    Timeline,
    Track,
    lost_blocks,
)
from .stamps import StampNotes, Stamps, line_seconds, parse, read_stamp, stamps_of, timestamp
from .sweep import Closed
from .timeline import SLICE_RELAYS, _ordered, build, build_steps, collect
from .where import (
    busy,
    counted,
    duration_words,
    figures,
    folded_lines,
    median,
    render_figures,
    run_parts,
    timing_words,
)

__all__ = [
    "AWAITING_USAGE",
    "AXIS_WORDS",
    "DECIDE_WITHIN",
    "HELD_KEPT",
    "LINE",
    "MAX_SECONDS",
    "ORDER",
    "SLICE_RELAYS",
    "TIME",
    "TIMING",
    "TOP_TOOLS",
    "Builder",
    "Call",
    "Closed",
    "Lost",
    "Mark",
    "Span",
    "StampNotes",
    "Stamps",
    "Timeline",
    "Timing",
    "Track",
    "_ordered",
    "build",
    "build_steps",
    "busy",
    "collect",
    "counted",
    "duration_words",
    "figures",
    "folded_lines",
    "line_seconds",
    "lost_blocks",
    "median",
    "parse",
    "positions",
    "read_stamp",
    "render_figures",
    "run_parts",
    "stamps_of",
    "timestamp",
    "timing_words",
]
