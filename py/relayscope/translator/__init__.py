"""translator: the sans-IO state machine. Feed input frames, get relay events back.

Theory of operation
-------------------
``Translator.feed(frame)`` takes one decoded input line (see ``wire``) and returns the
relays it produces; ``feed_line(text)`` decodes and numbers lines for you; ``finish()``
flushes what only the end of input can settle (the usage of messages still open). There is
no I/O here, and bad input never raises: it becomes an ``error`` relay and the stream goes
on. Misuse of the API (an unknown strategy name) does raise ``ValueError``.

Everything that is the same for every strategy lives in :class:`Translator`: session
metadata, results, user events, system and unknown events, lanes, usage. What differs is
*which content blocks of an assistant event are new*; that is the strategy, one small
class each (``strategies``, ``lineage`` with its rule table; ``registry`` names them):

``none``         every block of every event (why de-dup exists).
``index``        seeds/002: one ``lastContentIndex``; emit ``content[index:]``; reset to 0 on
                 ``result`` / ``system/result`` and when the array shrinks. Reproduces the
                 bug of seeds/000 ("The Problem": sub-agent B's text is skipped), and on real
                 one-block-per-event output it loses almost everything.
``fingerprint``  seeds/000: as ``index``, plus the first-block fingerprint (``tool_use:{id}``,
                 ``thinking:{64}``, ``text:{64}``, ``{type}:{tool_use_id or 'unknown'}``); when
                 it changes, reset to 0 and re-emit (duplicates over losses, by design).
``lineage``      the default, right on real output and on cumulative fixtures alike; its rules
                 are the table below. Lanes come from ``parent_tool_use_id``; only when that
                 key is absent are they inferred (see ``lanes``).

The lineage table
-----------------
A block belongs to a *message*: ``message.id``, or without one the first-block fingerprint (as
seeds/000 tells contexts apart), per lane. Within a message a block is *known* when it is the
same tool_use id, or the same type and the same text as a block seen before. An event is in the
**cumulative** shape (``CUMULATIVE``, seeds/002: "each event repeats all previous content blocks
plus any new ones") when its first block is the message's first known block; its blocks are then
paired with the known ones by position, as long as they are the same block. Otherwise, and past
the known blocks, it is the **per-block** shape (``PER_BLOCK``: real output, one block per
event, and on-disk rows repeated with new uuids, PROTOCOL.md 2): each block is looked up on its
own, an identical block first. Then, per block, the first row that holds decides:

===============================================  ================  ============================================
condition                                        decision          trace (BlockStep action: reason)
===============================================  ================  ============================================
unknown tool_use whose id another message        TOOL_ELSEWHERE    dup: tool_use id already emitted in another
emitted (ids are global)                                           message
unknown block                                    NEW_BLOCK         emit (whole)
known tool_use, already emitted                  TOOL_SEEN         dup: tool_use id already emitted
known tool_use announced by ``stream_event``,    TOOL_COMPLETED    emit: snapshot completes the streamed
input not complete yet                                             tool_use
known text/thinking still streaming, this        STREAM_GREW       grow: block grew by N chars: emitted the
block's text extends the deltas so far                             suffix
streamed thinking with no text, none emitted     STREAM_OMITTED    emit: thinking streamed with no text (omitted):
yet (``thinking.display`` omitted)                                 emitted as omitted
known block that came as ``stream_event``        STREAMED          streamed: already streamed as deltas
any other known block                            SAME_BLOCK        dup: same block already emitted
===============================================  ================  ============================================

**Growth** (a block whose text extends a known one is the same block, grown) is recognised only
while that block streams, between its ``content_block_start`` and ``content_block_stop``. Across
assistant events a block never grows: in real output each event carries one finished block (all
2,811 assistant events of ``../shared/corpus/real`` have one block, and no text or thinking block
extends an earlier block of its message), and the seeds' cumulative arrays repeat every earlier
block unchanged (seeds/002, seeds/003). So a finished block that merely begins with the text of an earlier block
of its message is a new block and is emitted whole, never as a suffix
(tests/unit/test_lineage.py proves both ways).

``stream_event`` (``stream``): ``message_start`` opens a message for its lane; a text or thinking
``content_block_start`` with text and each ``text_delta`` / ``thinking_delta`` is emitted at once
as a ``partial`` relay; a tool_use is held until ``content_block_stop`` and emitted with its
buffered ``input_json_delta`` (``TOOL_COMPLETED`` when a snapshot comes first); other block
types are emitted at their start; everything else (signatures, message deltas, events outside a
streamed message) is ``ignore`` with its reason.

Tool results are de-duplicated globally by ``tool_use_id``. Lineage state (messages, tool and
result ids, the message streaming per lane) is dropped at the end of a turn (``result``,
``system/result``) and bounded by ``WINDOW`` / ``_bounded`` in between.

Every line yields one :class:`~relayscope.trace.TraceStep` when tracing is on; with ``marks`` set
(a :class:`~relayscope.trace.Marks`), the few fields of it that are kept for every line instead.

State
-----
A :class:`Translator` holds, for one input stream: the strategy's de-dup state (``index``:
the index; ``fingerprint``: the index and the last fingerprint; ``lineage``: the table's
messages and ids), the lanes (``lanes.LaneTracker``, never reset), the usage of messages not yet
flushed (per lane, the message being written), and what ``emitter.Emitter`` holds (seqs, the
trace, the errors, the lanes started). Which of it resets on which event is the reset table.
``Translator.checkpoint`` gives all of it but the trace and marks as values no translator changes,
and ``restore`` puts it into another translator, which then goes on exactly as this one would (the
web page's step-through makes steps again from checkpoints). Lineage's messages are not copied for
it: a checkpoint starts a new generation, and a message of an older one is copied before it changes.

The reset table
---------------
A run ends with ``result`` (or the documented ``system/result``); a new run starts with
``system/init`` - also after a run killed without its ``result`` (``tee -a`` logs hold several
runs back to back, PROTOCOL.md 1). Each row is applied by ``Translator._reset`` from ``RESETS``
(stream-json) and by ``FleetTranslator`` from ``sse.RESETS`` (Arbiter); tests/unit/test_hostile.py
tests every row.

=======================  ==========  =============  ==========  ==========  ====================
event                    strategy    lane           usage       SSE replay  SSE open lanes
                         state       inference                  ids
=======================  ==========  =============  ==========  ==========  ====================
``system/init``          reset       reset          flushed     -           -
``result``               reset       reset          flushed     -           -
``system/result``        reset       reset          flushed     -           -
SSE ``request_received`` -           -              -           reset       reset (lane_start
                                                                            again)
SSE ``done``             -           -              -           reset       reset
=======================  ==========  =============  ==========  ==========  ====================

*strategy state*: ``index``'s index, ``fingerprint``'s index and fingerprint, ``lineage``'s
messages, tool ids and result ids. *lane inference*: the calls a context without
``parent_tool_use_id`` may bind to and the bindings made (``LaneTracker.end_run``); the lanes
themselves and their spawn calls stay (a background sub-agent's result may follow its run's
``result`` and still ends its lane). *usage flushed*: the usage of every open message is written
then, and the message being written per lane forgotten. Never reset: seqs, the trace, the errors,
the lanes started, the ids whose usage was written.

Layer: imports ``wire``, ``relay``, ``trace``, ``lanes``, ``emitter`` and ``_bounded`` only;
must not import the formats or anything above them. The package: ``blocks`` (a block's identity),
``strategies``, ``lineage``, ``registry``, ``translate`` (the :class:`Translator`), ``fields`` (what
it reads of a line beside its blocks); this module re-exports their names.
"""

from __future__ import annotations

from ..emitter import Emitter
from .blocks import EMPTY_OBJECT, block_key, block_text, fingerprint
from .lineage import (
    CUMULATIVE,
    NEW_BLOCK,
    PER_BLOCK,
    SAME_BLOCK,
    STREAM_GREW,
    STREAM_OMITTED,
    STREAMED,
    TOOL_COMPLETED,
    TOOL_ELSEWHERE,
    TOOL_SEEN,
    LineageDedup,
    Rule,
)
from .registry import DEFAULT_STRATEGY, STRATEGIES, STRATEGY_NAMES, StrategyName, strategy_named
from .strategies import FingerprintDedup, IndexDedup, NoDedup, Strategy
from .translate import MAX_BLOCK_INDEX, RESETS, Reset, Translator

__all__ = [
    "CUMULATIVE",
    "DEFAULT_STRATEGY",
    "EMPTY_OBJECT",
    "MAX_BLOCK_INDEX",
    "NEW_BLOCK",
    "PER_BLOCK",
    "RESETS",
    "SAME_BLOCK",
    "STRATEGIES",
    "STRATEGY_NAMES",
    "STREAMED",
    "STREAM_GREW",
    "STREAM_OMITTED",
    "TOOL_COMPLETED",
    "TOOL_ELSEWHERE",
    "TOOL_SEEN",
    "Emitter",
    "FingerprintDedup",
    "IndexDedup",
    "LineageDedup",
    "NoDedup",
    "Reset",
    "Rule",
    "Strategy",
    "StrategyName",
    "Translator",
    "block_key",
    "block_text",
    "fingerprint",
    "strategy_named",
]
