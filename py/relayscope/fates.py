"""fates: what became of each content block under the strategy shown: emitted as #N, lost (never
emitted), a duplicate of the relay that carried it, or already streamed as deltas. The page's
step-through and timeline and ``relayscope trace`` both say a block's fate with this module's words.

Built on the audit's own inventory (``audit.Inventory``) and its mapping of relays onto block keys
(``audit.relay_keys``), so the step-through, the trace and the audit table cannot disagree.
Must not: key blocks by rules of its own, touch the DOM, do I/O, or change the relays. Imports
``relay``, ``trace`` and ``audit`` only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import msgspec

from . import relay as R
from . import trace as T
from .audit import Digest, Item, Key, RelayKeys, _block_key, describe, digest, relay_keys

EMITTED: Final = "emitted"
LOST: Final = "lost"
DUPLICATE: Final = "duplicate"
STREAMED: Final = "streamed"

_line: Final = msgspec.json.Decoder()


class LostBlock(msgspec.Struct, frozen=True):
    """A block no relay carries, with where its placeholder row goes in the timeline."""

    row: int  # its id among the timeline's rows: negative, so never a relay seq
    line: int
    file: str | None
    lane: str | None
    words: str  # the audit's description of the block
    before_seq: int  # the placeholder sits just before this seq (len(relays): at the end)


class BlockFate(msgspec.Struct, frozen=True):
    index: int  # in the line's content array
    fate: str  # EMITTED | LOST | DUPLICATE | STREAMED
    seq: int | None  # the relay that carried the block (None when lost)
    words: str
    block: str = ""  # the audit's description of the block alone

    @property
    def short(self) -> str:
        """The fate in the page's words, without the block: "emitted as #4", "lost: never emitted"."""
        if self.fate == LOST:
            return "lost: never emitted"
        if self.fate == STREAMED:
            return f"already streamed as #{self.seq}"
        if self.fate == DUPLICATE:
            return f"duplicate of #{self.seq}"
        return f"emitted as #{self.seq}"


class Fates(msgspec.Struct):
    # with ``digests`` (the trace's, for a whole run) blocks are known by ``audit.digest`` of their key
    first_seq: dict[Key | Digest, int] = msgspec.field(default_factory=dict)
    anchor: dict[int, int] = msgspec.field(default_factory=dict)  # a content relay's seq -> its block's first relay
    key_at: dict[int, Key | Digest] = msgspec.field(default_factory=dict)  # a block's first relay -> the block's key
    lost_keys: set[Key] = msgspec.field(default_factory=set)
    lost: list[LostBlock] = msgspec.field(default_factory=list)
    by_row: dict[int, LostBlock] = msgspec.field(default_factory=dict)
    digests: bool = False

    def lost_on(self, file: str | None, line: int) -> list[LostBlock]:
        return [b for b in self.lost if b.line == line and b.file == file]


def compute(relays: list[R.Relay], step_lanes: Sequence[str | None], upto: Sequence[int],
            items: Mapping[Key, Item], step_of_line: Mapping[tuple[str | None, int], int]) -> Fates:
    """One pass over the relays (their block keys). Of each step: its lane, and the highest seq
    emitted up to it (-1: none yet), after which a lost block's placeholder goes."""
    out = Fates()
    for key, relay in relay_keys(relays):
        out.first_seq.setdefault(key, relay.seq)
        out.key_at[relay.seq] = key
    keys = RelayKeys()
    for relay in relays:  # the fragments of a streamed block belong to its first relay
        found = keys.feed(relay)
        if found is not None and found[1] != relay.seq:
            out.anchor[relay.seq] = found[1]
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


class Tracker:
    """Fates as the relays come, for ``relayscope trace`` (also under ``--follow``, whose table
    must be byte for byte the finished file's): what is known at a line is what the relays up to
    it carried. A block skipped with no relay before it is lost there; :func:`compute` (the
    page) knows the whole input, so the two differ only for a block emitted after a line that
    skipped it.

    Of the whole run it keeps each block's digest and first seq (a block seen again any time later
    is a duplicate of it); of the relays, only those of the steps not yet written (``done``)."""

    def __init__(self) -> None:
        self.fates = Fates(digests=True)
        self._keys = RelayKeys()

    def feed(self, relays: Iterable[R.Relay]) -> None:
        fates = self.fates
        for relay in relays:
            found = self._keys.feed(relay)
            if found is None:
                continue
            key, first = found
            d = digest(key)
            fates.first_seq.setdefault(d, first)
            fates.key_at[first] = d
            if first != relay.seq:
                fates.anchor[relay.seq] = first

    def done(self) -> None:
        """The steps fed for are written: a later step looks up only relays fed after now."""
        self.fates.key_at.clear()
        self.fates.anchor.clear()

    def blocks(self, step: T.TraceStep, raw: str | bytes) -> list[BlockFate]:
        return every_block(self.fates, step, raw)


def _line_blocks(raw: str | bytes, line: int, file: str | None) -> list[Key | None]:
    """The inventory key of each block of one input line's content array, keyed as
    ``audit.Inventory`` keys them (None for what is no block); [] for a line without content."""
    try:
        obj: Any = _line.decode(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
    except (msgspec.DecodeError, RecursionError, UnicodeError):  # RecursionError: nested too deep to read
        return []
    message = obj.get("message") if isinstance(obj, dict) else None
    if not isinstance(message, dict) or obj.get("type") not in ("assistant", "user"):
        return []
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    mid = message.get("id")
    mid = mid if isinstance(mid, str) else None
    keys: list[Key | None] = []
    position = 0
    where = () if file is None else (file,)
    for block in content:
        if not isinstance(block, dict):
            keys.append(None)
        elif obj["type"] == "assistant":
            keys.append(_block_key(mid, block))
        elif block.get("type") == "tool_result":
            tid = block.get("tool_use_id")
            keys.append(("tool_result", tid if isinstance(tid, str) else ""))
        else:
            keys.append(("user_text", line, position, *where))
            position += 1
    return keys


def _fate(fates: Fates, index: int, full: Key, action: str | None, seqs: Sequence[int]) -> BlockFate:
    key: Key | Digest = digest(full) if fates.digests else full
    seq = fates.first_seq.get(key)
    block = describe(full)
    if key in fates.lost_keys or seq is None:
        return BlockFate(index, LOST, None, f"{block}: never emitted; the audit counts it as lost", block)
    if action == T.BLOCK_STREAMED:
        return BlockFate(index, STREAMED, seq, f"{block}: already streamed as #{seq}", block)
    mine = [q for q in seqs if fates.key_at.get(fates.anchor.get(q, q)) == key]
    if action != T.BLOCK_DUP and (mine or seq >= min(seqs, default=seq)):
        at = mine[0] if mine else seq
        return BlockFate(index, EMITTED, at, f"{block}: emitted as #{at}", block)
    return BlockFate(index, DUPLICATE, seq, f"{block}: a duplicate of #{seq}", block)


def of_step(fates: Fates, step: T.TraceStep, raw: str) -> list[BlockFate]:
    """The fate of each block the step did not emit (actions ``dup`` and ``streamed``)."""
    skipped = [b for b in step.blocks if b.action in (T.BLOCK_DUP, T.BLOCK_STREAMED)]
    if not skipped:
        return []
    keys = _line_blocks(raw, step.line, step.file)
    out = []
    for b in skipped:
        key = keys[b.index] if 0 <= b.index < len(keys) else None
        if key is not None:
            out.append(_fate(fates, b.index, key, b.action, step.seqs))
    return out


def every_block(fates: Fates, step: T.TraceStep, raw: str | bytes) -> list[BlockFate]:
    """The fate of every block of the step's line, in content order: emitted as #N by this step,
    a duplicate of #N, already streamed as #N, or lost. ``relayscope trace`` lists them all."""
    actions = {b.index: b.action for b in step.blocks}
    return [_fate(fates, i, key, actions.get(i), step.seqs)
            for i, key in enumerate(_line_blocks(raw, step.line, step.file)) if key is not None]


def decision_words(decision: str, fates: Sequence[BlockFate] = ()) -> str:
    """A step's decision in words, telling a lost block (never emitted, the strategy's mistake)
    from a duplicate and from a block already streamed: ``fates`` are the step's blocks' fates
    (emitted ones are passed over)."""
    plain = T.DECISION_LABELS.get(decision, decision)
    if not fates:
        return plain
    skipped = [f for f in fates if f.fate != EMITTED]
    if not skipped:
        return plain
    lost = [f for f in skipped if f.fate == LOST]
    if lost:
        return (f"lost: {T.plural(len(lost), 'block')} never emitted"
                + (" (others skipped)" if decision == T.PARTIAL else ""))
    head = "partly emitted; skipped: " if decision == T.PARTIAL else "skipped: "
    said = [f"already streamed as #{f.seq}" if f.fate == STREAMED else f"duplicate of #{f.seq}" for f in skipped]
    return head + ", ".join(dict.fromkeys(said))
