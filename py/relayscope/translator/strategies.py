"""The simple de-dup strategies: none, by index, by the first block's fingerprint."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

from .. import trace as T
from ..wire import (
    Block,
    Frame,
    Message,
    StreamInner,
)
from .blocks import block_key, fingerprint

if TYPE_CHECKING:
    from .translate import Translator


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
            step.reason = f"emitted all {T.plural(len(blocks), 'block')} as they came: 'none' does no de-duplication"


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
            step.reason = (f"the content array shrank below the index ({len(blocks)} blocks, index {self.index}): "
                           "taken for a new message, the index goes back to 0; ")
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
            step.reason += (f"nothing emitted: {'its block is' if len(blocks) == 1 else f'all {len(blocks)} blocks are'} "
                            f"below the index ({start}), so taken as already emitted")
        else:
            which = f"block {start}" if emitted == 1 else f"blocks {start} to {len(blocks) - 1}"
            below = f"; blocks below {start} taken as already emitted" if start else ""
            step.reason += f"emitted {which} (at or past the index, {start}){below}; the index is now {self.index}"

    def turn_end(self, step: T.TraceStep) -> None:
        step.before, self.index, step.after = self.index, 0, 0
        step.reset = T.TURN_END

    def checkpoint(self) -> tuple[Any, ...]:
        return (self.index,)

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        (self.index,) = checkpoint


_NEW_CONTEXT: Final = "the first block's fingerprint changed: taken for a new context, the index goes back to 0; "


class FingerprintDedup(IndexDedup):
    """seeds/000: the index, reset when the first block's fingerprint changes."""

    name = "fingerprint"
    summary = ("'index', plus a reset when the first block changes (a new context): fixes most "
               "interleaving, but can re-emit.")

    def __init__(self) -> None:
        super().__init__()
        self.fp: str | None = None
        self.msg_id: str | None = None  # the message of the last event: only for the trace's words

    def assistant(
        self, t: Translator, step: T.TraceStep, f: Frame, lane: str, msg: Message, blocks: list[Block]
    ) -> None:
        prev, self.msg_id = self.msg_id, msg.id
        super().assistant(t, step, f, lane, msg, blocks)
        if t.tracing and step.reset == T.CONTEXT_SWITCH and msg.id is not None and msg.id == prev:
            step.reason = (f"{T.FP_SAME_MESSAGE} (same message.id {msg.id}; real output sends one block per "
                           "event): 'fingerprint' takes it for a new context and puts the index back to 0, "
                           "where 'lineage' looks the block up in its message; " + step.reason[len(_NEW_CONTEXT):])

    def _shrink_or_switch(self, step: T.TraceStep, blocks: list[Block]) -> None:
        fp = fingerprint(blocks[0]) if blocks else None
        prev, self.fp = self.fp, fp
        step.fp, step.prev_fp = fp, prev
        if prev is not None and fp != prev:
            step.reset = T.CONTEXT_SWITCH
            step.reason = _NEW_CONTEXT
            self.index = 0
        else:
            super()._shrink_or_switch(step, blocks)

    def turn_end(self, step: T.TraceStep) -> None:
        super().turn_end(step)
        self.fp = self.msg_id = None

    def checkpoint(self) -> tuple[Any, ...]:
        return self.index, self.fp, self.msg_id

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        self.index, self.fp, self.msg_id = checkpoint


# The per-block and per-message records below are created for most input lines, so they are
# msgspec Structs: construction runs in C, about a quarter of a Python ``__init__``. They
# hold no reference cycles, hence ``gc=False``; ``eq=False`` keeps identity comparison (two
# records with equal fields are still two blocks).


