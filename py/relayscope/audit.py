"""audit: compare strategies against an inventory of the transcript's content blocks.

The inventory is built from the raw lines with the standard library's ``json`` and rules
of its own, sharing no code with the translator's de-dup: a content block is identified by

* ``tool_use``     its id;
* ``tool_result``  the ``tool_use_id`` it answers;
* text, thinking and other assistant blocks: the message id (``None`` when absent) plus
  the block's type and full text (streamed blocks: their deltas joined by index);
* user text        its line and position (and its file, when several files are audited
                   together: ``inventory(lines, file=name)`` against relays carrying ``file``).

Each strategy's relays are mapped back onto those keys (partial relays - streamed deltas,
growth suffixes - are joined to the block they continue), and every block is counted as
emitted once, lost (never emitted) or duplicated (emitted more than once). A block of a message
a ``system/model_refusal_fallback`` withdraws (``retracted_message_uuids``: the lines' uuids, or
message ids) is counted as **retracted**, neither lost nor emitted: withdrawn on purpose. Each
audit also carries the translation's token totals (``usage.Tally``: the one rule the CLI
and the page share) and, where the CLI counted its sub-agents or a session's sub-agent
transcripts are missing, that count held against the lanes found (``subagents.check``).

An :class:`Audit` counts every strategy's relays against one inventory as the lines and the
relays come (all strategies in one pass, or a few a pass over a file read again: ``end`` closes a
strategy): of each block it keeps, in flat arrays (``_compact``), a 16-byte digest of its key, its
line, the first seq of each strategy counting it (a byte once the strategy has ended) and its
words deflated (a lost block's words are its report): about 60 bytes a block, never its text or
the input's size; ``Inventory(keep=True)`` also keeps each block by its whole key (the page and
the exports show lost blocks from it). ``json_pieces`` writes the audits' JSON a few thousand
lost blocks at a time.

This module compares; it does not translate. Which translation is audited (the one shown) is
decided by the one audit entry point, ``multifile.audit_steps``, which the CLI and the web model
both call. State: an :class:`Inventory` holds the blocks of one input (with ``keep``), the
streamed blocks still open, and which recent messages' blocks are which (a bounded window, as the
translator's, let go at ``finish``); an :class:`Audit` what the paragraph above says. Must not
import the translator, the formats or anything above this layer.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from hashlib import blake2b
from typing import Any, Final

import msgspec

from . import relay as R
from ._bounded import WITHDRAW_WINDOW, RecentMap
from ._compact import DigestIndex, Texts
from .lanes import Lane
from .subagents import LaneStates, check_states
from .termsafe import safe
from .usage import Tally
from .wire import repair_escapes

Key = tuple[Any, ...]
Digest = bytes  # digest(key)


class Item(msgspec.Struct):
    key: Key
    line: int
    file: str | None = None
    retracted: bool = False  # its message was withdrawn (model_refusal_fallback)


class StrategyAudit(msgspec.Struct):
    strategy: str
    relays: int
    blocks: int
    emitted: int
    lost: int
    duplicated: int
    extra_emissions: int
    unmatched: int  # relays that map to no inventory block (should be 0)
    first_lost: dict[str, Any] | None = None
    first_duplicated: dict[str, Any] | None = None
    lost_keys: list[str] = []
    duplicated_keys: list[str] = []
    retracted: int = 0  # blocks of withdrawn messages: neither lost nor emitted
    tokens: dict[str, Any] = {}  # usage.UsageReport of this translation: per lane and for the run
    drift: dict[str, Any] = {}  # drift.DriftReport of the input: what this version does not know
    subagents: dict[str, Any] = {}  # subagents.SubagentCheck of this translation, when there is one


def describe(key: Key) -> str:
    kind = key[0]
    if kind in ("tool_use", "tool_result"):
        return f"{kind} {key[1]}"
    if kind == "user_text":
        return f"user text at line {key[1]}" + (f" of {key[3]}" if len(key) > 3 else "")
    text = str(key[3])[:60].replace("\n", " ")  # cut first: a block's text may be megabytes long
    return f"{key[2]} {text!r}" + (f" in {key[1]}" if key[1] else "")


def digest(key: Key) -> Digest:
    """What is remembered of a block's key for the whole run: 16 bytes, whatever its text. A streamed
    block's digest is taken as its fragments come (``_Growing``): the key's other parts, then the text."""
    if key[0] == "block":
        h = blake2b(repr(key[:3]).encode("utf-8", "surrogatepass"), digest_size=16)
        h.update(str(key[3]).encode("utf-8", "surrogatepass"))
        return h.digest()
    return blake2b(repr(key).encode("utf-8", "surrogatepass"), digest_size=16).digest()


def inventory(lines: Iterable[str | bytes], file: str | None = None) -> dict[Key, Item]:
    """Every content block of a stream-json transcript or session file, keyed as the module
    doc says (repeated rows of one message are one block: same message id, same content)."""
    inv = Inventory(file)
    for number, raw in enumerate(lines, 1):
        inv.add_line(number, raw)
    return inv.finish()


class Inventory:
    """``inventory`` a line at a time, for callers that must pause between slices or cannot hold the
    input. ``fresh`` lists the blocks found (key, line, digest) since its taker last emptied it; ``items``
    (with ``keep``) every block by its key. A streamed block is found when it ends: its message's
    lane starts another message, the run ends (``result``, ``system/init``), or at ``finish``."""

    def __init__(self, file: str | None = None, keep: bool = True) -> None:
        self.file = file
        self.keep = keep
        self.where: tuple[str, ...] = () if file is None else (file,)
        self.items: dict[Key, Item] = {}
        self.fresh: list[tuple[Key, int, Digest]] = []
        self.streams: dict[tuple[str, int], list[Any]] = {}  # open: (message id, index) -> [type, parts, line]
        self.current: dict[Any, str] = {}  # parent_tool_use_id -> message id being streamed
        # what a model_refusal_fallback may withdraw: recent messages' blocks (a window, as the
        # translator's: a fallback names the message just refused, never one from long ago)
        self.by_message: RecentMap[str, list[Digest]] = RecentMap(WITHDRAW_WINDOW)  # message id (or uuid) -> blocks
        self.uuid_message: RecentMap[str, str] = RecentMap(WITHDRAW_WINDOW)  # assistant line uuid -> its message id
        self.retracted: set[str] = set()  # uuids (or message ids) a model_refusal_fallback withdraws
        self.withdrawn: set[Digest] = set()  # the blocks of those messages

    def add(self, key: Key, line: int, message: str | None = None) -> None:
        if self.keep and key not in self.items:
            self.items[key] = Item(key, line, self.file)
        d = digest(key)
        self.fresh.append((key, line, d))
        if message:
            found = self.by_message.get(message)
            if found is None:
                self.by_message[message] = found = []  # through [] =: RecentMap's bound
            found.append(d)
            if message in self.retracted:
                self.withdrawn.add(d)

    def add_line(self, number: int, raw: str | bytes) -> None:
        obj = _load(raw)
        if not isinstance(obj, dict):
            return
        add = self.add
        kind = obj.get("type")
        message: dict[str, Any] = obj["message"] if isinstance(obj.get("message"), dict) else {}
        content = message.get("content")
        if kind == "assistant":
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            mid, uuid = _str(message.get("id")), _str(obj.get("uuid"))
            if uuid is not None and mid is not None:
                self.uuid_message[uuid] = mid
                if uuid in self.retracted and mid not in self.retracted:  # withdrawn before it came
                    self._withdraw(uuid)
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict):
                    add(_block_key(mid, block), number, mid or uuid)
        elif kind == "user":
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            position = 0
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_result":
                    add(("tool_result", _str(block.get("tool_use_id")) or ""), number)
                else:
                    add(("user_text", number, position, *self.where), number)
                    position += 1
        elif kind == "stream_event" and isinstance(obj.get("event"), dict):
            self._stream(number, obj)
        elif kind == "system" and obj.get("subtype") == "model_refusal_fallback":
            uuids = obj.get("retracted_message_uuids")
            for u in uuids if isinstance(uuids, list) else []:
                if isinstance(u, str):
                    self._withdraw(u)
        if kind == "result" or (kind == "system" and obj.get("subtype") == "init"):
            self._end_streams()  # the run ended: no delta continues a block streamed before

    def _withdraw(self, uuid: str) -> None:
        self.retracted.add(uuid)
        for message in {self.uuid_message.get(uuid, uuid), uuid}:
            self.retracted.add(message)
            self.withdrawn.update(self.by_message.get(message, ()))

    def _stream(self, number: int, obj: dict[str, Any]) -> None:
        event = obj["event"]
        lane = _str(obj.get("parent_tool_use_id"))
        etype = event.get("type")
        current = self.current
        index = event.get("index", 0)
        if not isinstance(index, int):
            index = 0
        if etype == "message_start":
            message = event.get("message")
            mid = _str(message.get("id")) if isinstance(message, dict) else None
            if lane in current:
                self._end_streams(current[lane])
            current[lane] = mid or f"stream@{number}"
        elif etype == "content_block_start" and lane in current:
            block = event.get("content_block")
            block = block if isinstance(block, dict) else {}
            btype = block.get("type")
            if btype in ("text", "thinking"):
                slot = (current[lane], index)
                if slot in self.streams:  # the same block streamed again: the first one ends
                    self._end_stream(slot, self.streams.pop(slot))
                text = _str(block.get("text")) or _str(block.get("thinking")) or ""
                self.streams[slot] = [btype, [text], number]
            else:
                self.add(_block_key(current[lane], block), number)
        elif etype == "content_block_delta" and lane in current:
            delta = event.get("delta")
            delta = delta if isinstance(delta, dict) else {}
            entry = self.streams.get((current[lane], index))
            if entry is not None and delta.get("type") in ("text_delta", "thinking_delta"):
                entry[1].append(_str(delta.get("text")) or _str(delta.get("thinking")) or "")

    def _end_streams(self, mid: str | None = None) -> None:
        """The open streamed blocks (of message ``mid`` only, when given) are whole: found."""
        for slot in [s for s in self.streams if mid is None or s[0] == mid]:
            self._end_stream(slot, self.streams.pop(slot))

    def _end_stream(self, slot: tuple[str, int], entry: list[Any]) -> None:
        btype, parts, number = entry
        self.add(("block", slot[0], btype, "".join(parts)), number, slot[0])

    def finish(self) -> dict[Key, Item]:
        self._end_streams()
        self.by_message.clear()  # the input ended: no fallback can withdraw them now
        self.uuid_message.clear()
        for key, item in self.items.items():
            if self.withdrawn and digest(key) in self.withdrawn:
                item.retracted = True
        return self.items


def _load(raw: str | bytes) -> Any:
    """One line as JSON, or None. Text is repaired as the translator repairs it (bytes that
    are not UTF-8 and lone surrogates become U+FFFD), so that both see the same blocks."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if "\\u" in text:
        text = repair_escapes(text) or text  # type: ignore[assignment]
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _str(value: Any) -> str | None:
    """A field as the translator reads it: a value of the wrong type is no value."""
    return value if isinstance(value, str) else None


def _block_key(mid: str | None, block: dict[str, Any]) -> Key:
    btype = _str(block.get("type"))
    if btype == "tool_use":
        return ("tool_use", _str(block.get("id")) or "")
    if btype == "thinking":
        thinking = _str(block.get("thinking"))
        return ("block", mid, btype, thinking or _str(block.get("text")) or "")
    if btype == "text":
        return ("block", mid, btype, _str(block.get("text")) or "")
    if btype == "redacted_thinking":
        return ("block", mid, btype, "")
    try:
        return ("block", mid, btype, json.dumps(block, sort_keys=True))
    except (ValueError, RecursionError):  # cannot happen for a block json.loads made; be safe
        return ("block", mid, btype, repr(sorted(block)))


class RelayKeys:
    """``relay_keys`` a relay at a time: for each content relay, the inventory key of the block it
    carries as known so far and the seq of the relay that began that block. A streamed block's
    key grows with each fragment (its text so far); the trace names fates as its lines come.
    With ``ends``, ``ended`` lists each text or thinking block (its whole key, its first seq) once
    no fragment can follow: another block took its place, or the run ended (``end`` at the input's)."""

    def __init__(self, ends: bool = False) -> None:
        self.open_blocks: dict[tuple[str, str | None, int | None, str], tuple[int, str]] = {}  # -> (first seq, text)
        self.user_at: tuple[int, str | None, int] = (0, None, 0)  # (line, file, user texts seen on it)
        self.ends = ends
        self.ended: list[tuple[Key, int]] = []

    def end(self) -> None:
        """No fragment follows: every open block is whole (listed in ``ended`` with ``ends``)."""
        if self.ends:
            self.ended.extend((("block", slot[1], slot[3], text), first)
                              for slot, (first, text) in self.open_blocks.items())
        self.open_blocks.clear()

    def feed(self, relay: R.Relay) -> tuple[Key, int] | None:
        if isinstance(relay, R.TurnComplete | R.SessionMeta):
            # a run's end or a new run's start (the translator's reset table): a block streamed
            # after it is a new emission, never the continuation of one streamed before it
            # (a capture repeated back to back streams the same message again)
            self.end()
        elif isinstance(relay, R.ToolUse):
            return ("tool_use", relay.id), relay.seq
        elif isinstance(relay, R.ToolResult):
            return ("tool_result", relay.tool_use_id), relay.seq
        elif isinstance(relay, R.UserMessage):
            line, file, n = self.user_at
            position = n if (line, file) == (relay.line, relay.file) else 0
            self.user_at = (relay.line, relay.file, position + 1)
            where = () if relay.file is None else (relay.file,)
            return ("user_text", relay.line, position, *where), relay.seq
        elif isinstance(relay, R.TextDelta | R.ThinkingDelta):
            btype = "redacted_thinking" if getattr(relay, "redacted", False) else (
                "text" if isinstance(relay, R.TextDelta) else "thinking")
            slot = (relay.lane, relay.message_id, relay.block_index, btype)
            text = "" if btype == "redacted_thinking" else relay.text
            if relay.partial and slot in self.open_blocks:
                first, before = self.open_blocks[slot]
                text = before + text
            else:
                if self.ends and slot in self.open_blocks:
                    was, whole = self.open_blocks[slot]
                    self.ended.append((("block", slot[1], btype, whole), was))
                first = relay.seq
            self.open_blocks[slot] = (first, text)
            return ("block", relay.message_id, btype, text), first
        elif isinstance(relay, R.ContentBlock):
            block = _load(bytes(relay.data))
            return _block_key(relay.message_id, block if isinstance(block, dict) else {}), relay.seq
        return None


def relay_keys(relays: Iterable[R.Relay]) -> list[tuple[Key, R.Relay]]:
    """Map content relays onto inventory keys, joining partial relays to their block (named by
    its first relay, with the whole block's key)."""
    out: list[tuple[Key, R.Relay]] = []
    at: dict[int, int] = {}  # first seq of a block -> its place in out
    keys = RelayKeys()
    for relay in relays:
        found = keys.feed(relay)
        if found is None:
            continue
        key, first = found
        if first != relay.seq and first in at:
            out[at[first]] = (key, out[at[first]][1])
            continue
        at[relay.seq] = len(out)
        out.append((key, relay))
    return out


_STREAMED: Final = (R.TextDelta, R.ThinkingDelta)


class Audit:
    """Each strategy's relays (``feed(k, relays)``, strategy ``k`` of ``strategies``) counted against
    the blocks the inventories found (``take``), as both come: the module doc says what is kept.
    A relay's block is looked up when it is whole; one no inventory has found yet waits for ``finish``.
    The strategies may be fed one after another (each over the whole input, the inventory taken
    along the first) or side by side. ``finish`` gives a :class:`StrategyAudit` per strategy."""

    def __init__(self, strategies: Sequence[str]) -> None:
        self.strategies = list(strategies)
        n = len(self.strategies)
        # of block b (numbered as found): its digest's number is b; the line it was found on; the
        # first seq + 1 each strategy emitted it with (0: not yet), from its first relay to its end,
        # then only whether it did (a byte); its words (deflated)
        self.blocks = DigestIndex()
        self.lines = array("I")
        self.firsts = [array("I") for _ in range(n)]
        self.emitted: list[bytes | None] = [None] * n
        self._growing: dict[int, array[int]] = {}  # the firsts of the strategies fed and not ended
        self.words = Texts()
        self.files: dict[int, str] = {}  # the file of a block found in one of several
        self.withdrawn: set[Digest] = set()
        self._keys = [RelayKeys(ends=True) for _ in range(n)]
        self._dups: list[dict[int, list[Any]]] = [{} for _ in range(n)]  # block -> [words, line, seqs]
        self._waiting: list[list[tuple[Key, int]]] = [[] for _ in range(n)]
        self._relays = [0] * n
        self._tokens = [Tally() for _ in range(n)]
        self._states = [LaneStates() for _ in range(n)]  # sub-agent lanes as the relays tell (subagents)
        self._results: list[list[R.TurnComplete]] = [[] for _ in range(n)]  # with the CLI's sub-agent count
        self._ended: list[tuple[dict[str, Any], dict[str, Any]] | None] = [None] * n  # (tokens, subagents)
        self._unmatched = [0] * n

    def take(self, inventory: Inventory) -> None:
        """The blocks ``inventory`` found since the last take (and those its lines withdrew)."""
        for key, line, d in inventory.fresh:
            self._found(key, line, inventory.file, d)
        inventory.fresh.clear()
        self.withdrawn |= inventory.withdrawn

    def add_items(self, items: dict[Key, Item]) -> None:
        """Blocks found beforehand (an inventory kept whole)."""
        for key, item in items.items():
            d = digest(key)
            self._found(key, item.line, item.file, d)
            if item.retracted:
                self.withdrawn.add(d)

    def _found(self, key: Key, line: int, file: str | None, d: Digest) -> None:
        blocks = self.blocks
        n = len(blocks)
        if blocks.add(d) == n:
            self.lines.append(line)
            for firsts in self._growing.values():
                firsts.append(0)
            self.words.append(describe(key))
            if file is not None:
                self.files[n] = file

    def _start(self, k: int) -> None:
        """Strategy ``k``'s first relays: its firsts kept from now (a strategy translated in a later
        pass holds none while the first pass runs)."""
        firsts = self.firsts[k]
        if k not in self._growing:
            firsts.frombytes(bytes(firsts.itemsize * (len(self.blocks) - len(firsts))))
            self._growing[k] = firsts

    def feed(self, k: int, relays: Sequence[R.Relay]) -> None:
        if k not in self._growing:
            self._start(k)
        keys, count = self._keys[k], self._count
        self._relays[k] += len(relays)
        self._tokens[k].feed(relays)
        states, results = self._states[k], self._results[k]
        for relay in relays:
            states.add(relay)
            if type(relay) is R.TurnComplete and "subagent_stats" in relay.extra:
                results.append(relay)
            found = keys.feed(relay)
            if keys.ended:
                for key, first in keys.ended:
                    count(k, key, first)
                keys.ended.clear()
            if found is not None and not isinstance(relay, _STREAMED):
                count(k, found[0], found[1])

    def _count(self, k: int, key: Key, seq: int) -> None:
        b = self.blocks.find(digest(key))
        if b < 0:
            self._waiting[k].append((key, seq))
            return
        firsts = self.firsts[k]
        first = firsts[b]
        if first == 0:
            firsts[b] = seq + 1
            return
        dup = self._dups[k].get(b)
        if dup is None:
            self._dups[k][b] = [describe(key), self.lines[b], [first - 1, seq]]
        else:
            dup[2].append(seq)

    def end(self, k: int, lanes: Mapping[str, Lane] | None = None) -> None:
        """No relay of strategy ``k`` follows and no block is found after (the inventories taken and
        finished): its last streamed blocks are whole, its relays whose blocks were found late counted,
        its tokens and sub-agents (``lanes``: as in ``finish``) too, and what counted them let go."""
        if self._ended[k] is not None:
            return
        self._start(k)
        keys = self._keys[k]
        keys.end()
        for key, first in keys.ended:
            self._count(k, key, first)
        keys.ended.clear()
        waiting, self._waiting[k] = self._waiting[k], []
        for key, seq in waiting:  # found after its relays came, or never
            if self.blocks.find(digest(key)) >= 0:
                self._count(k, key, seq)
            else:
                self._unmatched[k] += 1
        firsts = self._growing.pop(k)
        self.emitted[k], self.firsts[k] = bytes(map(bool, firsts)), array("I")
        found = check_states(self._states[k], self._results[k], lanes)
        self._ended[k] = (msgspec.to_builtins(self._tokens[k].report()),
                          msgspec.to_builtins(found) if found is not None else {})
        self._tokens[k], self._states[k], self._results[k] = Tally(), LaneStates(), []

    def finish(self, lanes: Sequence[Mapping[str, Lane] | None] = (), keys: bool = True) -> list[StrategyAudit]:
        """End of the input (the inventories taken and finished before); ``lanes``: each strategy's
        translator's, whose sub-agent transcripts the input lacks (a session's) are named (of a
        strategy not ended yet: see ``end``). Without ``keys``, ``lost_keys`` and ``duplicated_keys``
        are left empty (a table prints only the first of each)."""
        for k in range(len(self.strategies)):
            self.end(k, lanes[k] if k < len(lanes) else None)
        withdrawn = {b for b in map(self.blocks.find, self.withdrawn) if b >= 0}
        return [self._audit(k, strategy, withdrawn, keys) for k, strategy in enumerate(self.strategies)]

    def _audit(self, k: int, strategy: str, withdrawn: set[int], keys: bool) -> StrategyAudit:
        lines, words, emitted = self.lines, self.words, self.emitted[k] or b""
        # by line, else in the order found (near that order: each deflated chunk of words read once)
        lost = sorted((b for b in range(len(self.blocks)) if (b >= len(emitted) or not emitted[b])
                       and b not in withdrawn), key=lines.__getitem__)
        dups = [dup for b, dup in self._dups[k].items() if b not in withdrawn]
        for dup in dups:
            dup[2].sort()
        dups.sort(key=lambda dup: dup[2][0])  # in the order the blocks were first emitted
        first_dup = min(dups, key=lambda dup: dup[2][1], default=None)
        tokens, subagents = self._ended[k] or ({}, {})
        return StrategyAudit(
            strategy=strategy,
            relays=self._relays[k],
            blocks=len(self.blocks),
            emitted=len(self.blocks) - len(withdrawn) - len(lost),
            lost=len(lost),
            duplicated=len(dups),
            extra_emissions=sum(len(dup[2]) - 1 for dup in dups),
            unmatched=self._unmatched[k],
            first_lost=None if not lost else {"block": words[lost[0]], "line": lines[lost[0]],
                                               "file": self.files.get(lost[0])},
            first_duplicated=None if first_dup is None else {
                "block": first_dup[0], "line": first_dup[1], "seqs": first_dup[2]},
            lost_keys=[words[b] for b in lost] if keys else [],
            duplicated_keys=[dup[0] for dup in dups] if keys else [],
            retracted=len(withdrawn),
            tokens=tokens,
            subagents=subagents,
        )


def audit_relays(strategy: str, relays: list[R.Relay], items: dict[Key, Item],
                 lanes: Mapping[str, Lane] | None = None) -> StrategyAudit:
    """One strategy's relays against an inventory kept whole; ``lanes`` (a session's) name the
    sub-agent transcripts the input lacks."""
    audit = Audit([strategy])
    audit.add_items(items)
    audit.feed(0, relays)
    (result,) = audit.finish([lanes])
    return result


_LOST_KEYS: Final = b'"lost_keys":[]'
KEYS_A_PIECE: Final = 4096


def json_pieces(results: Sequence[StrategyAudit], end: bytes = b"") -> Iterator[bytes]:
    """``msgspec.json.encode(results) + end`` in pieces, the same bytes: a lost block's words are the report
    (every one is listed), and the JSON of tens of thousands at once was the largest thing an audit
    held, twice over while it was copied."""
    yield b"["
    for n, a in enumerate(results):
        if n:
            yield b","
        # the first '"lost_keys":[]' is the field: before it come only keys of our own and strings,
        # where a quote is escaped
        head, _, tail = msgspec.json.encode(msgspec.structs.replace(a, lost_keys=[])).partition(_LOST_KEYS)
        yield head + b'"lost_keys":['
        for at in range(0, len(a.lost_keys), KEYS_A_PIECE):
            piece = msgspec.json.encode(a.lost_keys[at:at + KEYS_A_PIECE])
            yield (b"," if at else b"") + piece[1:-1]
        yield b"]" + tail
    yield b"]" + end


def render(results: list[StrategyAudit]) -> str:
    head = f"{'strategy':<12} {'relays':>7} {'blocks':>7} {'emitted':>8} {'lost':>6} {'duplicated':>11} {'extra':>6}"
    rows = [head, "-" * len(head)]
    for a in results:
        rows.append(f"{a.strategy:<12} {a.relays:>7} {a.blocks:>7} {a.emitted:>8} {a.lost:>6} "
                    f"{a.duplicated:>11} {a.extra_emissions:>6}")
    for a in results:  # a block's text, a model's name: the input's, made safe for a terminal
        if a.first_lost:
            rows.append(f"{a.strategy}: first lost block at line {a.first_lost['line']}: {safe(a.first_lost['block'])}")
        if a.first_duplicated:
            d = a.first_duplicated
            rows.append(f"{a.strategy}: first duplicated block at line {d['line']}: {safe(d['block'])} (seqs {d['seqs']})")
        if a.unmatched:
            rows.append(f"{a.strategy}: {a.unmatched} relay(s) matched no inventory block")
        if a.retracted:
            rows.append(f"{a.strategy}: {a.retracted} block(s) retracted by a model_refusal_fallback (withdrawn on "
                        "purpose: neither lost nor emitted)")
    rows.extend(_tokens_line(a.tokens) for a in results[-1:] if a.tokens.get("run", {}).get("messages"))
    rows.extend(f"sub-agents: {w}" for a in results[-1:] for w in a.subagents.get("words", ()))
    return "\n".join(rows) + "\n"


def _tokens_line(tokens: dict[str, Any]) -> str:
    """The run's tokens (usage.Tokens as JSON), once per API message, and the estimated cost."""
    run = tokens["run"]
    cost = run.get("est_cost_usd")
    line = (f"tokens: {run['messages']} API message(s) · {run['input_tokens']} in · {run['output_tokens']} out · "
            f"{run['cache_read_input_tokens']} cache read · {run['cache_creation_input_tokens']} cache write"
            + (f" · ≈ ${cost:.4f} at list prices of {tokens.get('prices_date')}" if cost is not None else ""))
    if run.get("unpriced"):
        line += f" · no known price for {safe(', '.join(run['unpriced']))}: not in the cost"
    rep = tokens.get("reported")
    if rep:
        line += (f"\ntokens the results report (modelUsage): {rep['input_tokens']} in · {rep['output_tokens']} out · "
                 f"{rep['cache_read_input_tokens']} cache read · {rep['cache_creation_input_tokens']} cache write"
                 + (f" · ${rep['est_cost_usd']:.4f}" if rep.get("est_cost_usd") is not None else ""))
    if tokens.get("note"):
        line += f"\nnote: {tokens['note']}"
    return line
