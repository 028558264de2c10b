"""The lineage strategy: each message's blocks followed as they grow, its rule table beside it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple

import msgspec
from msgspec import Raw

from .. import trace as T
from .._bounded import Recent, RecentMap
from ..wire import (
    Block,
    Frame,
    Message,
    StreamInner,
)
from .blocks import EMPTY_OBJECT, _any, block_key, block_text, fingerprint
from .strategies import Strategy

if TYPE_CHECKING:
    from .translate import Translator


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
        where = f"message {msg.id}" if msg.id else f"the message that starts {key[3:][:40]!r} (no id)"
        how = (f"; the event repeats the message's earlier blocks, in order ({CUMULATIVE})" if cumulative
               else "" if not known else f"; each block looked up in the message ({PER_BLOCK})")
        if skipped == 0:
            new = "its first block" if emitted == 1 and step.before == [] else f"{T.plural(emitted, 'new block')}"
            step.decision, step.reason = T.EMIT, f"emitted {new} of {where}{how}"
        elif emitted == 0:
            step.decision = T.SKIP
            step.reason = f"nothing new: {T.plural(skipped, 'block')} of {where} already emitted{how}"
        else:
            step.decision = T.PARTIAL
            step.reason = (f"emitted {T.plural(emitted, 'new block')} of {where}, skipped "
                           f"{T.plural(skipped, 'block')} already emitted{how}")

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


