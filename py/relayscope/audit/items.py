"""What the input holds: every content block, keyed and digested, with its line and file."""

from __future__ import annotations

import json
from collections.abc import Iterable
from hashlib import blake2b
from typing import Any

import msgspec

from .._bounded import WITHDRAW_WINDOW, RecentMap
from ..wire import repair_escapes

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


