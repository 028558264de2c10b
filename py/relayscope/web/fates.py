"""fates: what became of each content block under the strategy shown, for the step-through and the
timeline: emitted as #N, lost (never emitted), a duplicate of the relay that carried it, or already
streamed as deltas.

Built on the audit's own inventory (``audit.Inventory``) and its mapping of relays onto block keys
(``audit.relay_keys``), so the step-through and the audit table cannot disagree.
Must not: key blocks by rules of its own, touch the DOM, or change the relays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from .. import relay as R
from .. import trace as T
from ..audit import Item, Key, _block_key, describe, relay_keys

LOST: Final = "lost"
DUPLICATE: Final = "duplicate"
STREAMED: Final = "streamed"

_line: Final = msgspec.json.Decoder()


@dataclass(frozen=True, slots=True)
class LostBlock:
    """A block no relay carries, with where its placeholder row goes in the timeline."""

    row: int  # its id among the timeline's rows: negative, so never a relay seq
    line: int
    file: str | None
    lane: str | None
    words: str  # the audit's description of the block
    before_seq: int  # the placeholder sits just before this seq (len(relays): at the end)


@dataclass(frozen=True, slots=True)
class BlockFate:
    index: int  # in the line's content array
    fate: str  # LOST | DUPLICATE | STREAMED
    seq: int | None  # the relay that carried the block (None when lost)
    words: str


@dataclass(slots=True)
class Fates:
    first_seq: dict[Key, int] = field(default_factory=dict)
    lost_keys: set[Key] = field(default_factory=set)
    lost: list[LostBlock] = field(default_factory=list)
    by_row: dict[int, LostBlock] = field(default_factory=dict)

    def lost_on(self, file: str | None, line: int) -> list[LostBlock]:
        return [b for b in self.lost if b.line == line and b.file == file]


def compute(relays: list[R.Relay], step_lanes: Sequence[str | None], upto: Sequence[int],
            items: Mapping[Key, Item], step_of_line: Mapping[tuple[str | None, int], int]) -> Fates:
    """One pass over the relays (their block keys). Of each step: its lane, and the highest seq
    emitted up to it (-1: none yet), after which a lost block's placeholder goes."""
    out = Fates()
    for key, relay in relay_keys(relays):
        out.first_seq.setdefault(key, relay.seq)
    lost = sorted((k for k in items if k not in out.first_seq), key=lambda k: (items[k].file or "", items[k].line))
    out.lost_keys = set(lost)
    for n, key in enumerate(lost):
        item = items[key]
        i = step_of_line.get((item.file, item.line))
        lane = step_lanes[i] if i is not None else None
        before = upto[i] + 1 if i is not None else len(relays)
        block = LostBlock(-(n + 1), item.line, item.file, lane, describe(key), before)
        out.lost.append(block)
        out.by_row[block.row] = block
    out.lost.sort(key=lambda b: b.before_seq)
    return out


def of_step(fates: Fates, step: T.TraceStep, raw: str) -> list[BlockFate]:
    """The fate of each block the step did not emit (actions ``dup`` and ``streamed``)."""
    skipped = [b for b in step.blocks if b.action in ("dup", "streamed")]
    if not skipped:
        return []
    try:
        obj: Any = _line.decode(raw)
    except (msgspec.DecodeError, RecursionError):  # RecursionError: nested too deep to read
        return []
    message = obj.get("message") if isinstance(obj, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    mid = message.get("id") if isinstance(message, dict) else None
    out = []
    for b in skipped:
        block = content[b.index] if 0 <= b.index < len(content) else None
        if not isinstance(block, dict):
            continue
        key = _block_key(mid, block)
        seq = fates.first_seq.get(key)
        if key in fates.lost_keys or seq is None:
            out.append(BlockFate(b.index, LOST, None,
                                 f"{describe(key)}: never emitted; the audit counts it as lost"))
        elif b.action == "streamed":
            out.append(BlockFate(b.index, STREAMED, seq, f"{describe(key)}: already streamed as #{seq}"))
        else:
            out.append(BlockFate(b.index, DUPLICATE, seq, f"{describe(key)}: a duplicate of #{seq}"))
    return out
