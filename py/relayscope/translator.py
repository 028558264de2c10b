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
class each, all the de-dup rules in this file:

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
must not import the formats or anything above them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, ClassVar, Final, NamedTuple, NewType

import msgspec
from msgspec import UNSET, Raw

from . import relay as R
from . import trace as T
from ._bounded import WITHDRAW_WINDOW, Recent, RecentMap
from .emitter import Emitter
from .lanes import MAIN, Lane, LaneTracker
from .meaning import RECORDS, task_state
from .wire import (
    Block,
    Event,
    Frame,
    Message,
    StreamInner,
    decode_line,
    strip_line,
    tool_result_content,
    unwrap_result,
)
from .wire import Usage as WireUsage

__all__ = [
    "CUMULATIVE",
    "DEFAULT_STRATEGY",
    "NEW_BLOCK",
    "PER_BLOCK",
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
    "Rule",
    "StrategyName",
    "Translator",
    "fingerprint",
    "strategy_named",
]

_any: Final = msgspec.json.Decoder()
_enc: Final = msgspec.json.Encoder()
EMPTY_OBJECT: Final = Raw(b"{}")


def fingerprint(block: Block) -> str:
    """seeds/000's first-block fingerprint, to the letter (``thinking ?? text``)."""
    kind = block.type
    if kind == "tool_use":
        return f"tool_use:{block.id}"
    if kind == "thinking":
        text = block.thinking if block.thinking is not None else block.text
        return f"thinking:{(text or '')[:64]}"
    if kind == "text":
        return f"text:{(block.text or '')[:64]}"
    return f"{kind}:{block.tool_use_id or 'unknown'}"


def block_text(block: Block) -> str:
    if block.type == "thinking":
        return block.thinking or block.text or ""
    return block.text or ""


def block_key(block: Block) -> str:
    """A short, human-readable identity for traces."""
    if block.type == "tool_use":
        return f"tool_use:{block.id}"
    if block.type == "tool_result":
        return f"tool_result:{block.tool_use_id}"
    return f"{block.type}:{block_text(block)[:40]}"


# --- strategies -------------------------------------------------------------------------


class Strategy:
    name: ClassVar[str]
    summary: ClassVar[str]  # what it does, in a line for people (the page's help lists these)
    infers_lanes: ClassVar[bool] = False
    lane_events: ClassVar[bool] = False  # lane_start / lane_end relays (not in the documented set)

    def assistant(
        self, t: Translator, step: T.TraceStep, f: Frame, lane: str, msg: Message, blocks: list[Block]
    ) -> None:
        raise NotImplementedError

    def accept_result(self, tool_use_id: str) -> bool:
        return True

    def stream(self, t: Translator, step: T.TraceStep, f: Frame, lane: str, inner: StreamInner) -> None:
        step.decision, step.reason = T.IGNORE, "stream_event is not read by the documented translator"

    def turn_end(self, step: T.TraceStep) -> None:
        pass

    def checkpoint(self) -> tuple[Any, ...]:
        """The de-dup state as immutable values (or values no live strategy holds), for
        ``restore``: see ``Translator.checkpoint``."""
        return ()

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        """Hold what ``checkpoint`` held, in objects of its own (it may be restored again)."""


class NoDedup(Strategy):
    name = "none"
    summary = "every content block of every event, repeats and all: the raw view."

    def assistant(
        self, t: Translator, step: T.TraceStep, f: Frame, lane: str, msg: Message, blocks: list[Block]
    ) -> None:
        for i, b in enumerate(blocks):
            t.emit_block(step, f, lane, b, msg.id, i)
        if t.tracing:
            step.reason = f"emitted all {len(blocks)} block(s): no de-duplication"


class IndexDedup(Strategy):
    """seeds/002: a single lastContentIndex."""

    name = "index"
    summary = ("the documented rule: remember how many blocks were seen and emit only those past that "
               "index. Interleaved sub-agents break it: blocks below the index are lost.")

    def __init__(self) -> None:
        self.index = 0

    def _shrink_or_switch(self, step: T.TraceStep, blocks: list[Block]) -> None:
        if len(blocks) < self.index:
            step.reset = T.SHRINK
            step.reason = f"content shrank ({len(blocks)} < {self.index}): reset to 0; "
            self.index = 0

    def assistant(
        self, t: Translator, step: T.TraceStep, f: Frame, lane: str, msg: Message, blocks: list[Block]
    ) -> None:
        step.before = self.index
        self._shrink_or_switch(step, blocks)
        start = self.index
        if t.tracing:
            for i in range(min(start, len(blocks))):
                step.blocks.append(T.BlockStep(i, block_key(blocks[i]), T.BLOCK_DUP, f"below index {start}"))
        for i in range(start, len(blocks)):
            t.emit_block(step, f, lane, blocks[i], msg.id, i)
        self.index = max(self.index, len(blocks))
        step.after = self.index
        emitted = len(blocks) - start
        step.decision = T.SKIP if emitted <= 0 else T.EMIT if start == 0 else T.PARTIAL
        if not t.tracing:  # untraced, ``step`` is the scratch one: += would grow it line after line
            return
        if emitted <= 0:
            step.reason += f"{len(blocks)} block(s), index {start}: nothing at or after the index"
        else:
            step.reason += f"emitted blocks {start}..{len(blocks) - 1}"

    def turn_end(self, step: T.TraceStep) -> None:
        step.before, self.index, step.after = self.index, 0, 0
        step.reset = T.TURN_END

    def checkpoint(self) -> tuple[Any, ...]:
        return (self.index,)

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        (self.index,) = checkpoint


class FingerprintDedup(IndexDedup):
    """seeds/000: the index, reset when the first block's fingerprint changes."""

    name = "fingerprint"
    summary = ("'index', plus a reset when the first block changes (a new context): fixes most "
               "interleaving, but can re-emit.")

    def __init__(self) -> None:
        super().__init__()
        self.fp: str | None = None

    def _shrink_or_switch(self, step: T.TraceStep, blocks: list[Block]) -> None:
        fp = fingerprint(blocks[0]) if blocks else None
        prev, self.fp = self.fp, fp
        step.fp, step.prev_fp = fp, prev
        if prev is not None and fp != prev:
            step.reset = T.CONTEXT_SWITCH
            step.reason = "fingerprint changed: reset to 0; "
            self.index = 0
        else:
            super()._shrink_or_switch(step, blocks)

    def turn_end(self, step: T.TraceStep) -> None:
        super().turn_end(step)
        self.fp = None

    def checkpoint(self) -> tuple[Any, ...]:
        return self.index, self.fp

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        self.index, self.fp = checkpoint


# The per-block and per-message records below are created for most input lines, so they are
# msgspec Structs: construction runs in C, about a quarter of a Python ``__init__``. They
# hold no reference cycles, hence ``gc=False``; ``eq=False`` keeps identity comparison (two
# records with equal fields are still two blocks).


class _Rec(msgspec.Struct, gc=False, eq=False):
    """One block of one message, as lineage knows it."""

    type: str
    parts: list[str]  # streamed text arrives in parts; joined on demand. Start: [text]
    tool_id: str | None = None
    emitted: bool = True
    open: bool = False  # still streaming
    streamed: bool = False  # came as stream_event (content_block_start and deltas)
    shown: bool = False  # streamed text or thinking: a relay of it was emitted (its start or a delta)

    @property
    def text(self) -> str:
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0]

    def key(self) -> str:
        return f"tool_use:{self.tool_id}" if self.tool_id is not None else f"{self.type}:{self.text[:40]}"


class _Streamed(msgspec.Struct, gc=False, eq=False):
    """A streamed message's tool_use blocks, buffered until their ``content_block_stop``."""

    json: dict[int, list[str]] = msgspec.field(default_factory=dict)  # input fragments, by index
    names: dict[int, str] = msgspec.field(default_factory=dict)  # tool name, by index


class _Msg(msgspec.Struct, gc=False, eq=False):
    blocks: list[_Rec] = msgspec.field(default_factory=list)
    tools: dict[str, _Rec] = msgspec.field(default_factory=dict)
    streamed: _Streamed | None = None  # only for a message that came as stream_event: most never do
    gen: int = 0  # LineageDedup's generation it belongs to: an older one is a checkpoint's too

    def stream(self) -> _Streamed:
        if self.streamed is None:
            self.streamed = _Streamed()
        return self.streamed


def _copy_msg(ms: _Msg, gen: int) -> _Msg:
    """A message with records of its own, sharing only strings with ``ms``, of generation ``gen``:
    a record in both its blocks and its tools stays one record (every tool is one of its blocks:
    a block a stream starts again at its index leaves the tools with it, ``stream``)."""
    copies = {id(r): _Rec(r.type, list(r.parts), r.tool_id, r.emitted, r.open, r.streamed, r.shown) for r in ms.blocks}
    st = ms.streamed
    return _Msg([copies[id(r)] for r in ms.blocks], {k: copies[id(r)] for k, r in ms.tools.items()},
                None if st is None else _Streamed({k: list(v) for k, v in st.json.items()}, dict(st.names)), gen)


class Rule(NamedTuple):
    """One decision of the lineage table: what the trace calls it, why, and whether it emits."""

    action: str  # T.BlockStep.action
    reason: str  # the trace reason; ``{n}``: characters the block grew by
    emits: bool


NEW_BLOCK: Final = Rule(T.BLOCK_EMIT, "", True)
TOOL_ELSEWHERE: Final = Rule(T.BLOCK_DUP, "tool_use id already emitted in another message", False)
TOOL_SEEN: Final = Rule(T.BLOCK_DUP, "tool_use id already emitted", False)
TOOL_COMPLETED: Final = Rule(T.BLOCK_EMIT, "snapshot completes the streamed tool_use", True)
STREAM_GREW: Final = Rule(T.BLOCK_GROW, "block grew by {n} chars: emitted the suffix", True)
STREAMED: Final = Rule(T.BLOCK_STREAMED, "already streamed as deltas", False)
STREAM_OMITTED: Final = Rule(T.BLOCK_EMIT, "thinking streamed with no text (omitted): emitted as omitted", True)
SAME_BLOCK: Final = Rule(T.BLOCK_DUP, "same block already emitted", False)
CUMULATIVE: Final = "cumulative"  # the event repeats its message's known blocks, in order
PER_BLOCK: Final = "per-block"  # each block looked up on its own


class LineageDedup(Strategy):
    name = "lineage"
    summary = "tracks each message and lane by id: every block once, in its lane. The recommended one."
    infers_lanes = True
    lane_events = True
    WINDOW: ClassVar[int] = 4096  # messages remembered; bounds memory on endless streams

    def __init__(self) -> None:
        self.msgs: RecentMap[tuple[str, str], _Msg] = RecentMap(self.WINDOW)  # (lane, message key)
        self.tool_ids: Recent[str] = Recent()
        self.result_ids: Recent[str] = Recent()
        self.streaming: dict[str, str] = {}  # lane -> message id being streamed
        # Messages are shared with checkpoints, not copied for them (4,096 messages cost 30 ms to
        # copy): a checkpoint starts a new generation, and a message of an older one is copied
        # before it is changed (``_own``). Everything that changes a message gets it from ``_msg``,
        # or as ``assistant`` does.
        self._gen = 0

    def _msg(self, lane: str, key: str) -> _Msg:
        found = self.msgs.get((lane, key))
        if found is None:
            return self._new_msg(lane, key)
        return found if found.gen == self._gen else self._own(lane, key, found)

    def _new_msg(self, lane: str, key: str) -> _Msg:
        self.msgs[lane, key] = found = _Msg(gen=self._gen)  # past WINDOW, the oldest message is forgotten
        return found

    def _own(self, lane: str, key: str, shared: _Msg) -> _Msg:
        """A copy of a message a checkpoint holds, in its place: the checkpoint's stays as it was."""
        self.msgs[lane, key] = found = _copy_msg(shared, self._gen)  # a key already there keeps its place
        return found

    def assistant(
        self, t: Translator, step: T.TraceStep, f: Frame, lane: str, msg: Message, blocks: list[Block]
    ) -> None:
        if not blocks:
            step.decision, step.reason = T.IGNORE, "no content blocks"
            return
        key = msg.id or "fp:" + fingerprint(blocks[0])
        ms = self.msgs.get((lane, key))
        if ms is None:
            ms = self._new_msg(lane, key)
        elif ms.gen != self._gen:  # _msg without its call: this runs for every assistant line
            ms = self._own(lane, key, ms)
        known = ms.blocks
        tracing = t.tracing
        if len(blocks) == 1 and not tracing:
            # Real output's usual lines: a row of one block, a message's first, or a tool call the
            # message does not have yet (a third of assistant lines: text, then its calls). The
            # table's first rows decide alone, as the loop below would: nothing to look up.
            b = blocks[0]
            if not known:
                if b.type != "tool_use" or (b.id or "") not in self.tool_ids:
                    self._new_block(t, step, f, lane, msg.id, ms, b, 0)
                    return
            elif b.type == "tool_use" and (tid := b.id) is not None and tid not in ms.tools and tid not in self.tool_ids:
                first = known[0]  # not the block (the loop's "cumulative" shape): _is_block, for a tool_use
                if first.type != "tool_use" or (first.tool_id is not None and first.tool_id != tid):
                    self._new_block(t, step, f, lane, msg.id, ms, b, len(known))
                    return
        if tracing:
            step.before = [r.key() for r in known]
        emitted = skipped = 0
        cumulative = bool(known) and _is_block(known[0], blocks[0])
        for i, b in enumerate(blocks):
            rec: _Rec | None
            if cumulative and i < len(known) and _is_block(known[i], b):
                rec, index = known[i], i
            elif known:
                rec = _find(ms, b)
                index = known.index(rec) if rec is not None else len(known)
            else:  # a message's first row: nothing to look up (the usual case)
                rec, index = None, 0
            rule = _decide(rec, b, self.tool_ids)
            reason = self._apply(rule, t, step, f, lane, msg.id, ms, rec, b, index)
            if rule.emits:
                emitted += 1
            else:
                skipped += 1
            if tracing:
                step.blocks.append(T.BlockStep(index, block_key(b), rule.action, reason))
        if skipped:
            step.decision = T.SKIP if emitted == 0 else T.PARTIAL
        if not tracing:
            return
        step.after = [r.key() for r in ms.blocks]
        shape = CUMULATIVE if cumulative else PER_BLOCK
        where = f"message {msg.id}" if msg.id else f"context {key[3:][:40]!r}"
        if skipped == 0:
            step.decision, step.reason = T.EMIT, f"{emitted} new block(s) of {where} ({shape})"
        elif emitted == 0:
            step.decision, step.reason = T.SKIP, f"already seen: {skipped} block(s) of {where} ({shape})"
        else:
            step.decision = T.PARTIAL
            step.reason = f"{emitted} new, {skipped} already seen, of {where} ({shape})"

    def _apply(
        self, rule: Rule, t: Translator, step: T.TraceStep, f: Frame, lane: str, msg_id: str | None,
        ms: _Msg, rec: _Rec | None, b: Block, index: int,
    ) -> str:
        """Carry out a decision of the table; returns its trace reason."""
        if rule is NEW_BLOCK:
            self._new_block(t, step, f, lane, msg_id, ms, b, index)
        elif rule is TOOL_COMPLETED:
            assert rec is not None and rec.tool_id is not None
            rec.emitted = True  # the snapshot carries the complete input
            self.tool_ids.add(rec.tool_id)
            t.emit_block(step, f, lane, b, msg_id, index)
        elif rule is STREAM_GREW:
            assert rec is not None
            new_text, old_len = block_text(b), len(rec.text)
            rec.parts = [new_text]
            t.emit_block(step, f, lane, b, msg_id, index, text=new_text[old_len:], partial=True)
            return rule.reason.format(n=len(new_text) - old_len)
        elif rule is STREAM_OMITTED:
            assert rec is not None
            rec.shown = True
            t.emit_block(step, f, lane, b, msg_id, index)
        return rule.reason

    def _new_block(
        self, t: Translator, step: T.TraceStep, f: Frame, lane: str, msg_id: str | None, ms: _Msg, b: Block,
        index: int,
    ) -> None:
        """``NEW_BLOCK``: remember the block in its message, emit it whole."""
        kind = b.type
        if kind == "tool_use":
            tool_id = b.id
            rec = _Rec("tool_use", [b.text or ""], tool_id)
            if tool_id is not None:
                ms.tools[tool_id] = rec
                self.tool_ids.add(tool_id)
        else:
            rec = _Rec(kind or "", [(b.thinking or b.text or "") if kind == "thinking" else (b.text or "")])
        ms.blocks.append(rec)
        t.emit_block(step, f, lane, b, msg_id, index)

    def turn_end(self, step: T.TraceStep) -> None:
        # A run is over: its messages and ids cannot come back (the next run has new ones).
        step.before = len(self.msgs)
        self.msgs.clear()
        self.tool_ids.clear()
        self.result_ids.clear()
        self.streaming.clear()
        step.after, step.reset = 0, T.TURN_END

    def checkpoint(self) -> tuple[Any, ...]:
        gen = self._gen
        self._gen = gen + 1  # from now on, every message there is is the checkpoint's too
        return (self.msgs.checkpoint(), gen, self.tool_ids.checkpoint(), self.result_ids.checkpoint(),
                tuple(self.streaming.items()))

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        msgs, gen, tool_ids, result_ids, streaming = checkpoint
        self.msgs.restore(msgs)
        self._gen = gen + 1  # the checkpoint's messages are of ``gen`` or older: copied before a change
        self.tool_ids.restore(tool_ids)
        self.result_ids.restore(result_ids)
        self.streaming = dict(streaming)

    def accept_result(self, tool_use_id: str) -> bool:
        ids = self.result_ids
        if tool_use_id in ids:
            return False
        ids.add(tool_use_id)
        return True

    def stream(self, t: Translator, step: T.TraceStep, f: Frame, lane: str, inner: StreamInner) -> None:
        kind = inner.type
        if kind == "message_start":
            mid = inner.message.id if inner.message and inner.message.id else f"stream@{f.line}"
            self.streaming[lane] = mid
            self._msg(lane, mid)
            step.decision, step.reason = T.IGNORE, f"message {mid} starts streaming"
            return
        current = self.streaming.get(lane)
        if current is None:
            step.decision, step.reason = T.IGNORE, f"{kind} outside a streamed message"
            return
        mid = current
        if kind not in ("content_block_start", "content_block_delta", "content_block_stop"):
            step.decision, step.reason = T.IGNORE, f"{kind} of message {mid}"
            return
        ms = self._msg(lane, mid)
        index = inner.index if inner.index is not None else len(ms.blocks)
        if kind == "content_block_start":
            cb = inner.content_block or Block(type="unknown")
            is_tool = cb.type == "tool_use"
            rec = _Rec(cb.type or "", [block_text(cb)], cb.id if is_tool else None, emitted=not is_tool, open=True,
                       streamed=True)
            while len(ms.blocks) < index:  # keep positions aligned with the stream's indexes
                ms.blocks.append(_Rec("missing", [""]))
            if index < len(ms.blocks):  # a block started again at its index: the new one takes its place
                old = ms.blocks[index]
                if old.tool_id is not None and ms.tools.get(old.tool_id) is old:
                    del ms.tools[old.tool_id]  # no longer anywhere in the message: a snapshot of it is new
                ms.blocks[index] = rec
            else:
                ms.blocks.append(rec)
            if is_tool and rec.tool_id is not None:
                ms.tools[rec.tool_id] = rec
                streamed = ms.stream()
                streamed.json[index] = []
                streamed.names[index] = cb.name or ""
                step.decision, step.reason = T.IGNORE, "tool_use starts: emitted once its input is complete"
            elif cb.type in ("text", "thinking") and rec.text:
                rec.shown = True
                t.emit_block(step, f, lane, cb, mid, index, text=rec.text, partial=True)
            elif cb.type not in ("text", "thinking"):
                rec.open = False
                t.emit_block(step, f, lane, cb, mid, index)
            else:
                step.decision, step.reason = T.IGNORE, f"{cb.type} block {index} starts"
            return
        if index >= len(ms.blocks):
            step.decision, step.reason = T.IGNORE, f"{kind} for unknown block {index}"
            return
        rec = ms.blocks[index]
        if kind == "content_block_delta":
            d = inner.delta
            dtype = d.type if d else None
            if d is not None and dtype in ("text_delta", "thinking_delta"):
                piece = (d.text if dtype == "text_delta" else d.thinking) or ""
                rec.parts.append(piece)
                rec.shown = True
                fake = Block(type="text" if dtype == "text_delta" else "thinking", text=piece, thinking=piece)
                t.emit_block(step, f, lane, fake, mid, index, text=piece, partial=True)
                if t.tracing:
                    step.reason = f"{dtype} of block {index}: emitted as it came"
            elif d is not None and dtype == "input_json_delta":
                ms.stream().json.setdefault(index, []).append(d.partial_json or "")
                step.decision, step.reason = T.IGNORE, "tool input fragment (buffered)"
            else:
                step.decision, step.reason = T.IGNORE, f"{dtype} carries nothing to show"
        elif kind == "content_block_stop":
            rec.open = False
            if rec.tool_id is not None and not rec.emitted:
                rec.emitted = True
                self.tool_ids.add(rec.tool_id)
                streamed = ms.stream()
                raw = "".join(streamed.json.get(index, [])) or "{}"
                try:
                    _any.decode(raw)
                    data = Raw(raw.encode())
                except (msgspec.DecodeError, RecursionError):
                    data = EMPTY_OBJECT
                    step.note = "streamed tool input was not complete JSON"
                tool = Block(type="tool_use", id=rec.tool_id, name=streamed.names.get(index, ""), input=data)
                t.emit_block(step, f, lane, tool, mid, index)
                step.reason = "tool_use complete: emitted with its streamed input"
            elif rec.type == "thinking" and not rec.shown and not rec.text:
                rec.shown = True  # no delta carried text, and no snapshot came yet: thinking omitted
                t.emit_block(step, f, lane, Block(type="thinking", thinking="", signature="streamed"), mid, index)
                step.reason = "thinking block complete with no text (omitted): emitted as omitted"
            else:
                step.decision, step.reason = T.IGNORE, f"block {index} complete"


def _extends(rec: _Rec, b: Block) -> bool:
    """Is ``b`` the block ``rec`` is streaming, with more text than the deltas so far?"""
    if not rec.open or rec.type != b.type or rec.tool_id is not None:
        return False
    text, old = block_text(b), rec.text
    return len(text) > len(old) and text.startswith(old)


def _is_block(rec: _Rec, b: Block) -> bool:
    """Is ``b`` the block ``rec``: the same tool_use id, the same text, or the block ``rec`` is
    still streaming, grown (never a finished block: see "growth" in the module header)."""
    if rec.type != b.type:
        return False
    if rec.tool_id is not None:
        return rec.tool_id == b.id
    return block_text(b) == rec.text or _extends(rec, b)


def _find(ms: _Msg, b: Block) -> _Rec | None:
    """The known block of message ``ms`` that ``b`` is (per-block shape): by tool_use id; by
    identical text, before any streaming block ``b`` would extend."""
    if b.type == "tool_use":
        return ms.tools.get(b.id or "")
    text = block_text(b)
    for rec in ms.blocks:
        if rec.type == b.type and rec.tool_id is None and rec.text == text:
            return rec
    for rec in ms.blocks:
        if _extends(rec, b):
            return rec
    return None


def _decide(rec: _Rec | None, b: Block, tool_ids: Recent[str]) -> Rule:
    """The lineage table, per block (module header): the first row whose condition holds."""
    if rec is None:
        return TOOL_ELSEWHERE if b.type == "tool_use" and (b.id or "") in tool_ids else NEW_BLOCK
    if rec.tool_id is not None:
        return TOOL_SEEN if rec.emitted else TOOL_COMPLETED
    if _extends(rec, b):
        return STREAM_GREW
    if rec.streamed and not rec.shown and rec.type == "thinking" and not block_text(b):
        return STREAM_OMITTED
    if rec.streamed:
        return STREAMED
    return SAME_BLOCK


STRATEGIES: Final[dict[str, type[Strategy]]] = {
    cls.name: cls for cls in (NoDedup, IndexDedup, FingerprintDedup, LineageDedup)
}
# The catalogue, for whoever lists or holds a strategy (the CLI's choices, the page's selects and
# help): a name is checked once where it comes in (``strategy_named``), then held as the type.
StrategyName = NewType("StrategyName", str)
STRATEGY_NAMES: Final[tuple[StrategyName, ...]] = tuple(StrategyName(name) for name in STRATEGIES)
DEFAULT_STRATEGY: Final = StrategyName(LineageDedup.name)


def strategy_named(name: object) -> StrategyName:
    """``name`` as a strategy; ValueError, naming the choices, if it is none."""
    if not isinstance(name, str) or name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    return StrategyName(name)


# --- the translator -----------------------------------------------------------------------


class _Pending(msgspec.Struct, gc=False):  # one per assistant line: a Struct, as _Rec
    lane: str
    line: int
    model: str | None
    usage: WireUsage
    request_id: str | None = None  # a session record's requestId (the first of the message's rows that has one)


# Content relays a model_refusal_fallback may withdraw (by the message they came from).
_CONTENT: Final = frozenset({R.TextDelta, R.ThinkingDelta, R.ToolUse, R.ContentBlock})
_Noted = tuple[str | None, str | None, tuple[tuple[str | None, int], ...]]  # Translator._recent's items


MAX_BLOCK_INDEX: Final = 1 << 12  # content blocks of one streamed message; real ones have dozens
_BLOCK_EVENTS: Final = frozenset({"content_block_start", "content_block_delta", "content_block_stop"})


class Reset(NamedTuple):
    """One row of the reset table: what an event resets."""

    strategy: bool  # the strategy's de-dup state (index, fingerprint, lineage's messages and ids)
    lanes: bool  # lane inference: open calls a new context may bind to, the bindings made
    usage: bool  # usage of open messages flushed (written now), the message per lane forgotten


RESETS: Final[dict[str, Reset]] = {
    "system/init": Reset(strategy=True, lanes=True, usage=True),
    "result": Reset(strategy=True, lanes=True, usage=True),
    "system/result": Reset(strategy=True, lanes=True, usage=True),
}


class Translator(Emitter):
    """Claude Code stream-json in, relay events out. One instance per input stream."""

    def __init__(self, strategy: str = "lineage", *, trace: bool = False, file: str | None = None) -> None:
        strategy_named(strategy)  # misuse of the API: ValueError, naming the choices
        super().__init__(trace=trace, file=file)
        self.strategy_name = strategy
        self.strategy = STRATEGIES[strategy]()
        self.lane_events = self.strategy.lane_events
        self.lanes = LaneTracker(infer=self.strategy.infers_lanes)
        self._prev_fp: str | None = None
        self._pending: dict[str, _Pending] = {}  # message id -> last usage row seen
        self._lane_msg: dict[str, str] = {}
        self._flushed: Recent[str] = Recent()
        # For model_refusal_fallback: of each recent line with content, its uuid, its message id and
        # its content relays (their message id, or the line's uuid without one; their seq). One
        # append a line; read back only when a fallback comes (two maps kept up to date for every
        # line were a tenth of the translator's time).
        self._recent: deque[_Noted] = deque(maxlen=WITHDRAW_WINDOW)
        self._thinking_est: dict[str, int] = {}  # lane -> the last system/thinking_tokens estimate

    def lane_map(self) -> Mapping[str, Lane]:
        return self.lanes.snapshot()

    def checkpoint(self) -> tuple[Any, ...]:
        """Everything that decides what this translator does with the lines after the last one
        fed, as values no translator holds (immutable, or copies): ``Translator.restore`` of it
        into a new translator gives one that goes on exactly as this one would, however often
        it is restored. Not the trace or the marks so far (``Emitter.checkpoint``). The web
        page's step-through keeps checkpoints along the input, to make a step again from the
        nearest one instead of from the first line (``Workspace._replay_around``)."""
        if type(self) is not Translator:  # a subclass's own state would be missing (SessionTranslator's)
            raise TypeError(f"{type(self).__name__} keeps state a Translator checkpoint does not hold")
        # _pending's records are replaced, never changed in place: shared with the checkpoint
        return (Emitter.checkpoint(self), self.strategy_name, self.strategy.checkpoint(), self.lanes.checkpoint(),
                self._prev_fp, tuple(self._pending.items()), tuple(self._lane_msg.items()), self._flushed.checkpoint(),
                tuple(self._recent), tuple(self._thinking_est.items()))

    def checkpoint_size(self) -> int:
        """How many entries (ids, lanes, a message's records) a checkpoint now holds: what its
        memory and the time to take it grow with."""
        lanes, strategy = self.lanes, self.strategy
        size = (len(self._flushed) + len(self._pending) + len(lanes.lanes) + len(lanes.spawns)
                + len(lanes.tool_lane) + len(lanes.contexts) + len(self._recent))
        if isinstance(strategy, LineageDedup):
            size += len(strategy.msgs) + len(strategy.tool_ids) + len(strategy.result_ids)
        return size

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        """Hold what ``checkpoint`` held (any translator's, of any strategy) and nothing else."""
        emitter, name, strategy, lanes, self._prev_fp, pending, lane_msg, flushed, recent, est = checkpoint
        Emitter.restore(self, emitter)
        self.strategy_name, self.strategy = name, STRATEGIES[name]()
        self.strategy.restore(strategy)
        self.lanes.restore(lanes)
        self._pending, self._lane_msg = dict(pending), dict(lane_msg)
        self._flushed.restore(flushed)
        self._recent = deque(recent, maxlen=WITHDRAW_WINDOW)
        self._thinking_est = dict(est)

    # -- entry points -------------------------------------------------------------------

    def feed_line(self, text: str | bytes) -> list[R.Relay]:
        self.lines = line = self.lines + 1
        d = self.drift
        return self.feed(decode_line(text, line) if d is None else d.decode(text, line, self.file))

    def feed(self, frame: Frame) -> list[R.Relay]:
        line, kind, ev = frame.line, frame.kind, frame.event
        if line > self.lines:
            self.lines = line
        self._out = []
        tracing = self.tracing
        marks = self.marks
        # Without tracing one scratch step is reused: nothing reads it back but the marks, whose
        # fields are cleared for each line.
        if tracing:
            step = T.TraceStep(line, kind, file=self.file, note=frame.note)
        else:
            step = self._scratch
            if marks is not None:
                step.lane, step.fp, step.reset = None, None, None
        if kind == "event" and ev is not None:
            try:
                if frame.warning is not None:
                    self.warn(step, line, frame.text, frame.warning)
                self._event(step, frame, ev)
            except Exception as exc:  # a bug: report it on its line, keep the stream going
                self._internal_error(step, line, frame.text, exc)
            if tracing and step.seqs and step.decision in (T.IGNORE, T.SKIP):
                step.decision = T.EMIT if step.decision == T.IGNORE else T.PARTIAL
        elif kind == "blank":
            step.decision, step.reason = T.IGNORE, "blank line"
        else:
            self._error(step, line, frame.text, frame.error or "unreadable line")
        if tracing:
            self.trace.append(step)
        elif marks is not None:  # as Marks.add, without a call: this runs for every line
            marks.line.append(line)
            marks.lane.append(step.lane)
            marks.fp.append(step.fp)
            marks.reset.append(step.reset)
            marks.end.append(self._seq)
        return self._out

    def finish(self) -> list[R.Relay]:
        """End of input: emit the usage of messages still open."""
        self._out = []
        if self._pending:
            step = T.TraceStep(self.lines, "end of input", decision=T.EMIT, file=self.file)
            self._flush_all(step)
            step.reason = "usage of messages still open"
            self._record(step)
        return self._out

    # -- emission -----------------------------------------------------------------------

    def _start_lane(self, step: T.TraceStep, line: int, lane_id: str) -> None:
        self._started.add(lane_id)
        lane = self.lanes.lane(lane_id)
        self.emit(
            step, R.LaneStart, line, lane_id, parent_lane=lane.parent, depth=lane.depth,
            agent_type=lane.agent_type, description=lane.description, inferred=lane.inferred,
            label=lane.label,
        )

    def emit_block(
        self, step: T.TraceStep, f: Frame, lane: str, b: Block, msg_id: str | None, index: int,
        *, text: str | None = None, partial: bool = False,
    ) -> None:
        kind = b.type
        line = f.line
        push = self._out.append
        if kind == "text":
            push(R.TextDelta(seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
                             text=(b.text or "") if text is None else text, message_id=msg_id,
                             block_index=index, partial=partial))
        elif kind == "thinking":
            body = block_text(b) if text is None else text
            ev = f.event
            if body or not (partial or b.signature or (ev is not None and ev.thinking_display == "omitted")):
                push(R.ThinkingDelta(seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
                                     text=body, message_id=msg_id, block_index=index, partial=partial))
            else:  # the CLI left the text out (PROTOCOL.md 6): say what is known of it instead
                est, took = self._omitted_thinking(ev, lane, partial)
                push(R.ThinkingDelta(seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
                                     text="", message_id=msg_id, block_index=index, partial=partial, omitted=True,
                                     estimated_tokens=est, duration_ms=took))
        elif kind == "tool_use":
            tool_id, name = b.id or "", b.name or ""
            self.lanes.note_tool_use(tool_id, name, b.input, lane)
            push(R.ToolUse(seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
                           id=tool_id, name=name, input=b.input if b.input else EMPTY_OBJECT,
                           message_id=msg_id, block_index=index))
        elif kind == "redacted_thinking":
            self.emit(step, R.ThinkingDelta, line, lane, text="[redacted thinking]", message_id=msg_id,
                      block_index=index, redacted=True)
        else:
            self.emit(step, R.ContentBlock, line, lane, block_type=kind or "", data=_raw_block(f, b),
                      message_id=msg_id, block_index=index)

    # -- per event type -----------------------------------------------------------------

    def _event(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        kind = ev.type
        if kind == "assistant":
            self._assistant(step, f, ev)
        elif kind == "user":
            self._user(step, f, ev)
        elif kind == "result":
            step.kind = "result"
            self._result(step, f, ev)
        elif kind == "system":
            step.kind = f"system/{ev.subtype}"
            if ev.subtype == "init":
                self._reset(step, "system/init")
                # tools that are no list (one string, in captures their authors redacted) stay in extra
                self.emit(step, R.SessionMeta, f.line, MAIN, session_id=ev.session_id, model=ev.model,
                          tools=ev.tools or [], cwd=ev.cwd, version=ev.claude_code_version, source="init",
                          extra=_extra(f, _INIT_FIELDS if ev.tools is not None else _INIT_NO_TOOLS))
                step.reason = "session starts"
            elif ev.subtype == "result":  # the documented end-of-turn marker
                self._reset(step, "system/result")
                step.decision, step.reason = T.IGNORE, "system/result: end of turn"
            else:
                sub = ev.subtype
                tid = ev.tool_use_id
                if sub == "permission_denied" and tid is not None:  # a row on the refused call, where it ran
                    lane = self.lanes.tool_lane.get(tid) or _explicit_lane(ev) or MAIN
                else:
                    lane = tid if tid in self.lanes.spawns else _explicit_lane(ev) or MAIN
                step.lane = lane
                state: str | None = None
                retracts: tuple[int, ...] = ()
                if sub == "thinking_tokens" and isinstance(ev.estimated_tokens, int | float):
                    self._thinking_est[lane] = int(ev.estimated_tokens)
                elif sub == "model_refusal_fallback":
                    retracts = self._retracted(_fields(f))
                    step.note = f"withdraws {len(retracts)} content relay(s)"
                elif sub is not None and sub.startswith("task_") and lane == ev.tool_use_id:  # a sub-agent's task
                    state = task_state(sub, _fields(f))
                self.emit(step, R.System, f.line, lane, subtype=sub, data=_raw_line(f), state=state,
                          retracts=retracts)
                step.reason = "system event passed through"
        elif kind == "stream_event":
            self._stream_event(step, f, ev)
        else:
            step.kind = f"passthrough:{kind}"
            lane = _explicit_lane(ev) or MAIN
            if lane not in self.lanes.spawns and lane in self.lanes.tool_lane:  # about an ordinary call (its
                lane = self.lanes.tool_lane[lane]  # progress): where the call ran, not a lane of its own
            step.lane = lane
            self.emit(step, R.Passthrough, f.line, lane, event_type=kind, data=_raw_line(f))
            step.decision, step.reason = T.EMIT, (f"{kind} record passed through" if kind in RECORDS
                                                  else f"unknown event type {kind!r} passed through")

    def _assistant(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        step.kind = "assistant"
        msg = ev.message
        if msg is None:
            step.decision, step.reason = T.IGNORE, "assistant event without a message"
            return
        content = msg.content
        blocks = content if isinstance(content, list) else [Block(type="text", text=content)] if content else []
        if self.tracing or self.marks is not None:
            fp = fingerprint(blocks[0]) if blocks else None
            step.fp, step.prev_fp = fp, self._prev_fp
            self._prev_fp = fp
        parent = ev.parent_tool_use_id
        if parent is not UNSET:
            lane = parent or MAIN
            if ev.subagent_type is not None or ev.task_description is not None:
                self._describe(ev)
        elif self.lanes.infer and blocks:
            lane, how = self.lanes.infer_context(msg.id or f"fp:{fingerprint(blocks[0])}")
            step.note = f"lane inferred ({how})"
        else:
            lane = MAIN
        step.lane = lane
        start = len(self._out)
        self.strategy.assistant(self, step, f, lane, msg, blocks)
        if ev.uuid is not None or msg.id is not None:
            self._note_content(start, ev.uuid, msg.id)
        if msg.id is not None and msg.usage is not None:
            self._note_usage(step, f.line, lane, msg.id, msg.model, msg.usage, ev.requestId)

    def _user(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        step.kind = "user"
        msg = ev.message
        content = msg.content if msg is not None else None
        parent = ev.parent_tool_use_id
        if parent is not UNSET:
            explicit: str | None = parent or MAIN
            if ev.subagent_type is not None or ev.task_description is not None:
                self._describe(ev)
        else:  # no parent_tool_use_id key: inferred per item when the strategy infers lanes
            explicit = None if self.lanes.infer else MAIN
        emitted = skipped = 0
        if isinstance(content, str):
            content = [Block(type="text", text=content)]
        line, lanes, accept = f.line, self.lanes, self.strategy.accept_result
        for i, b in enumerate(content or []):
            if b.type == "tool_result":
                tid = b.tool_use_id or ""
                lane = explicit or lanes.infer_tool_result(tid)
                if not accept(tid):
                    skipped += 1
                    if self.tracing:
                        step.blocks.append(T.BlockStep(i, f"tool_result:{tid}", T.BLOCK_DUP, "result already emitted"))
                    continue
                body, others = tool_result_content(b.content)
                self._out.append(R.ToolResult(
                    seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
                    tool_use_id=tid, content=body, is_error=bool(b.is_error),
                    attachments=tuple(others) if others else ()))
                emitted += 1
                # Most results answer an ordinary tool: test before the call to close_spawn.
                if tid in lanes.spawns:
                    ended = lanes.close_spawn(tid)
                    if ended is not None and ended.id in self._started:
                        self._flush_lane(step, ended.id)
                        agent_id, tokens = _agent_result(ev)
                        self.emit(step, R.LaneEnd, line, ended.id, tool_use_id=tid, is_error=bool(b.is_error),
                                  agent_id=agent_id, total_tokens=tokens)
            else:
                lane = explicit or self.lanes.infer_other()
                text: str | None = b.text if b.type == "text" else f"[{b.type}]"
                self.emit(step, R.UserMessage, f.line, lane, text=text or "", replay=bool(ev.isReplay))
                emitted += 1
            step.lane = lane
        if emitted == 0 and skipped == 0:
            step.decision, step.reason = T.IGNORE, "user event without content"
        elif skipped:
            step.decision = T.SKIP if emitted == 0 else T.PARTIAL
            step.reason = "tool result(s) already emitted"
        elif self.tracing:
            step.reason = f"{emitted} item(s)"

    def _describe(self, ev: Event) -> None:
        """A forwarded sub-agent frame's type and task, for its lane (``parent_tool_use_id``) when
        no spawn call named them (a capture that starts after the call); once its lane_start is
        out, it stays as it is."""
        lane = ev.parent_tool_use_id
        if isinstance(lane, str) and lane and lane != MAIN and lane not in self._started:
            self.lanes.describe(lane, ev.subagent_type, ev.task_description)

    def _result(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        self._reset(step, "result")
        try:
            usage = _any.decode(ev.usage) if ev.usage else None
        except (msgspec.DecodeError, RecursionError):
            usage = None
        known = _RESULT_FIELDS
        if usage is not None and not isinstance(usage, dict):  # not an object: kept in extra as it came
            usage, known = None, known - {"usage"}
        cost: float | None = ev.total_cost_usd  # cost_usd carries one of the two
        if cost is not None:
            known -= {"cost_usd"}
        else:
            cost, known = ev.cost_usd, known - {"total_cost_usd"}
        self.emit(step, R.TurnComplete, f.line, MAIN, subtype=ev.subtype, is_error=bool(ev.is_error),
                  result=unwrap_result(ev.result), cost_usd=cost, usage=usage, duration_ms=ev.duration_ms,
                  num_turns=ev.num_turns, session_id=ev.session_id, extra=_extra(f, known))
        step.reason = "turn complete: de-dup state reset"

    def _stream_event(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        inner = ev.event
        kind = inner.type if inner is not None else None
        step.kind = f"stream_event/{kind}"
        lane = _explicit_lane(ev) or MAIN
        step.lane = lane
        if inner is None:
            step.decision, step.reason = T.IGNORE, "stream_event without an event"
            return
        index = inner.index
        if index is not None and not 0 <= index < MAX_BLOCK_INDEX and kind in _BLOCK_EVENTS:
            # lineage keeps a message's blocks by position: -1 would name the last block, and
            # 50,000,000 would pad the message with that many placeholders
            message = f"{kind}: content block index {index} is out of range (0 to {MAX_BLOCK_INDEX - 1}); ignored"
            self.warn(step, f.line, f.text, message, lane)
            step.reason = message
            return
        if kind == "message_start" and inner.message is not None and inner.message.id:
            m = inner.message
            self._lane_msg_switch(step, lane, m.id or "")
            if m.usage is not None:
                self._note_usage(step, f.line, lane, m.id or "", m.model, m.usage)
        elif kind == "message_delta" and inner.usage is not None:
            current = self._lane_msg.get(lane)
            if current is not None and current in self._pending:
                old = self._pending[current]
                merged = msgspec.structs.replace(
                    old.usage, **{k: v for k, v in msgspec.structs.asdict(inner.usage).items() if v is not None}
                )
                self._pending[current] = _Pending(lane, f.line, old.model, merged, old.request_id)
        start = len(self._out)
        self.strategy.stream(self, step, f, lane, inner)
        if len(self._out) > start:
            self._note_content(start, ev.uuid, None)
        if kind == "message_stop":
            current = self._lane_msg.get(lane)
            if current is not None:
                self._flush_usage(step, current)

    # -- usage: the last row of a message carries its final usage -----------------------

    def _lane_msg_switch(self, step: T.TraceStep, lane: str, msg_id: str) -> None:
        current = self._lane_msg.get(lane)
        if current != msg_id:
            if current is not None:
                self._flush_usage(step, current)
            self._lane_msg[lane] = msg_id

    def _note_usage(self, step: T.TraceStep, line: int, lane: str, msg_id: str, model: str | None,
                    usage: WireUsage, request_id: str | None = None) -> None:
        """A row of message ``msg_id`` with its usage so far: the last row's values are the
        message's (``usage`` module doc), written once, when the message ends. A message is its
        id: rows of one response share it (and its ``requestId``, which a repeated row may lack)."""
        lane_msg = self._lane_msg
        current = lane_msg.get(lane)
        if current != msg_id:  # as _lane_msg_switch
            if current is not None:
                self._flush_usage(step, current)
            lane_msg[lane] = msg_id
        if msg_id not in self._flushed:
            if request_id is None:
                old = self._pending.get(msg_id)
                request_id = old.request_id if old is not None else None
            self._pending[msg_id] = _Pending(lane, line, model, usage, request_id)

    def _flush_usage(self, step: T.TraceStep, msg_id: str) -> None:
        p = self._pending.pop(msg_id, None)
        if p is None:
            return
        self._flushed.add(msg_id)
        u, line, lane = p.usage, p.line, p.lane
        self._out.append(R.Usage(
            seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
            message_id=msg_id, model=p.model, input_tokens=int(u.input_tokens or 0),
            output_tokens=int(u.output_tokens or 0), cache_read_input_tokens=int(u.cache_read_input_tokens or 0),
            cache_creation_input_tokens=int(u.cache_creation_input_tokens or 0), request_id=p.request_id))

    # -- newer shapes (PROTOCOL.md 6): omitted thinking, retracted messages ---------------------

    def _omitted_thinking(self, ev: Event | None, lane: str, partial: bool) -> tuple[int | None, float | None]:
        """What is known of a thinking block the CLI left out: the token estimate (the streamed
        delta's own, else the lane's last ``system/thinking_tokens``) and the frame's thinking time."""
        est: int | float | None = None
        inner = ev.event if ev is not None else None
        if inner is not None and inner.delta is not None:
            est = inner.delta.estimated_tokens
        if not isinstance(est, int | float):
            est = self._thinking_est.get(lane) if partial else self._thinking_est.pop(lane, None)
        took = ev.thinking_duration_ms if ev is not None else None
        return (int(est) if isinstance(est, int | float) else None), took

    def _note_content(self, start: int, uuid: str | None, msg_id: str | None) -> None:
        """Remember the content relays emitted since ``start`` with their message (what a later
        ``model_refusal_fallback`` may withdraw), and the line's ``uuid`` and message."""
        out = self._out
        if len(out) == start + 1:  # one relay: the usual line, without a loop
            r: Any = out[start]
            relays: tuple[tuple[str | None, int], ...] = ((r.message_id or uuid, r.seq),) if type(r) in _CONTENT else ()
        else:
            relays = tuple((r.message_id or uuid, r.seq) for r in out[start:] if type(r) in _CONTENT)  # type: ignore[attr-defined]
        if relays or (uuid is not None and msg_id is not None):
            self._recent.append((uuid, msg_id, relays))

    def _retracted(self, fields: Any) -> tuple[int, ...]:
        """The seqs of the content relays of the messages a ``model_refusal_fallback`` names
        (``retracted_message_uuids``: the lines' uuids, or message ids); tolerant of any shape."""
        uuids = fields.get("retracted_message_uuids") if isinstance(fields, dict) else None
        named = [u for u in (uuids if isinstance(uuids, list) else []) if isinstance(u, str)]
        if not named:
            return ()
        message_of = {u: m for u, m, _ in self._recent if u is not None and m is not None}  # the latest wins
        keys = {k for u in named for k in (message_of.get(u, u), u)}
        return tuple(sorted({q for _, _, relays in self._recent for key, q in relays if key in keys}))

    def _flush_lane(self, step: T.TraceStep, lane: str) -> None:
        for msg_id in [m for m, p in self._pending.items() if p.lane == lane]:
            self._flush_usage(step, msg_id)

    def _reset(self, step: T.TraceStep, event: str) -> None:
        """Apply ``event``'s row of the reset table (``RESETS``, the module doc)."""
        row = RESETS[event]
        if row.usage:
            self._flush_all(step)
        if row.strategy:
            self.strategy.turn_end(step)
        if row.lanes:
            self.lanes.end_run()

    def _flush_all(self, step: T.TraceStep) -> None:
        for msg_id in list(self._pending):
            self._flush_usage(step, msg_id)
        self._lane_msg.clear()


def _explicit_lane(ev: Event) -> str | None:
    """The lane named by ``parent_tool_use_id``: None when the key is absent."""
    parent = ev.parent_tool_use_id
    if parent is UNSET:
        return None
    return parent or MAIN


def _raw_line(f: Frame) -> Raw:
    """The line as a JSON value: without the JSON white space around it (a leading carriage return
    would be written into the relay's one line)."""
    text = f.text
    return Raw(text.strip(b" \t\r\n") if isinstance(text, bytes) else text.strip(" \t\r\n"))


def _fields(f: Frame) -> Any:
    """The line as generic JSON (a rare system line whose fields decide something), or None."""
    try:
        return _any.decode(strip_line(f.text))
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return None


# The fields of an init and of a result line that session_meta and turn_complete carry in fields
# of their own; the rest goes to their ``extra`` (see relay.EXTRA).
_INIT_FIELDS: Final = frozenset({"type", "subtype", "session_id", "model", "tools", "cwd", "claude_code_version"})
_INIT_NO_TOOLS: Final = _INIT_FIELDS - {"tools"}
_RESULT_FIELDS: Final = frozenset({"type", "subtype", "is_error", "result", "total_cost_usd", "cost_usd", "usage",
                                   "duration_ms", "num_turns", "session_id"})


def _extra(f: Frame, known: frozenset[str]) -> dict[str, Any]:
    """The line's fields outside ``known``, as it gave them (one line a turn: decoded generically)."""
    try:
        obj = _any.decode(strip_line(f.text))
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return {}  # bytes that are not UTF-8: the line's warning relay holds it
    return {k: v for k, v in obj.items() if k not in known} if isinstance(obj, dict) else {}


def _raw_block(f: Frame, b: Block) -> Raw:
    """The untouched JSON of an unknown content block (rare: decode the line generically)."""
    try:
        obj = _any.decode(f.text)
        if obj.get("type") == "stream_event":
            return Raw(_enc.encode(obj["event"]["content_block"]))
        content = f.event.message.content  # type: ignore[union-attr]
        position = next(i for i, c in enumerate(content) if c is b)  # type: ignore[arg-type]
        return Raw(_enc.encode(obj["message"]["content"][position]))
    except (msgspec.DecodeError, KeyError, IndexError, TypeError, AttributeError, StopIteration,
            RecursionError, UnicodeError):
        return Raw(_enc.encode({k: v for k, v in msgspec.structs.asdict(b).items() if v and not isinstance(v, Raw)}))


class _AgentResult(msgspec.Struct):
    agentId: str | None = None
    totalTokens: int | None = None


def _agent_result(ev: Event) -> tuple[str | None, int | None]:
    raw = ev.tool_use_result or ev.toolUseResult
    if not raw:
        return None, None
    try:
        info = msgspec.json.decode(raw, type=_AgentResult)
    except (msgspec.DecodeError, RecursionError):
        return None, None
    return info.agentId, info.totalTokens
