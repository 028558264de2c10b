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
audit also carries the translation's token totals (``usage.usage_report``: the one rule the CLI
and the page share) and, where the CLI counted its sub-agents or a session's sub-agent
transcripts are missing, that count held against the lanes found (``subagents.check``).

This module compares; it does not translate. Which translation is audited (the one shown) is
decided by the one audit entry point, ``multifile.audit_steps``, which the CLI and the web model
both call. State: an :class:`Inventory` holds the blocks of one input (and the streamed blocks
still open) until ``finish``; nothing else is kept. Must not import the translator, the formats
or anything above this layer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from . import relay as R
from .lanes import Lane
from .subagents import check
from .usage import usage_report
from .wire import repair_escapes

Key = tuple[Any, ...]


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
    text = str(key[3]).replace("\n", " ")
    return f"{key[2]} {text[:60]!r}" + (f" in {key[1]}" if key[1] else "")


def inventory(lines: Iterable[str | bytes], file: str | None = None) -> dict[Key, Item]:
    """Every content block of a stream-json transcript or session file, keyed as the module
    doc says (repeated rows of one message are one block: same message id, same content)."""
    inv = Inventory(file)
    for number, raw in enumerate(lines, 1):
        inv.add_line(number, raw)
    return inv.finish()


class Inventory:
    """``inventory`` a line at a time, for callers that must pause between slices."""

    def __init__(self, file: str | None = None) -> None:
        self.file = file
        self.where: tuple[str, ...] = () if file is None else (file,)
        self.items: dict[Key, Item] = {}
        self.streams: dict[tuple[str, int], list[Any]] = {}  # (message id, index) -> [type, parts, line]
        self.current: dict[Any, str] = {}  # parent_tool_use_id -> message id being streamed
        self.by_message: dict[str, list[Key]] = {}  # message id (or line uuid) -> its blocks' keys
        self.uuid_message: dict[str, str] = {}  # assistant line uuid -> its message id
        self.retracted: set[str] = set()  # uuids (or message ids) a model_refusal_fallback withdraws

    def add(self, key: Key, line: int) -> None:
        if key not in self.items:
            self.items[key] = Item(key, line, self.file)

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
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict):
                    key = _block_key(mid, block)
                    add(key, number)
                    if mid or uuid:
                        self.belongs(mid or uuid or "", key)
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
            self.retract([u for u in (uuids if isinstance(uuids, list) else []) if isinstance(u, str)])

    def belongs(self, message: str, key: Key) -> None:
        """Block ``key`` is of ``message`` (its id, else its line's uuid): a fallback may withdraw it."""
        self.by_message.setdefault(message, []).append(key)

    def retract(self, uuids: list[str]) -> None:
        """A ``model_refusal_fallback`` withdraws these messages (their lines' uuids, or their ids)."""
        self.retracted.update(uuids)

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
            current[lane] = mid or f"stream@{number}"
        elif etype == "content_block_start" and lane in current:
            block = event.get("content_block")
            block = block if isinstance(block, dict) else {}
            btype = block.get("type")
            if btype in ("text", "thinking"):
                text = _str(block.get("text")) or _str(block.get("thinking")) or ""
                self.streams[(current[lane], index)] = [btype, [text], number]
            else:
                self.add(_block_key(current[lane], block), number)
        elif etype == "content_block_delta" and lane in current:
            delta = event.get("delta")
            delta = delta if isinstance(delta, dict) else {}
            entry = self.streams.get((current[lane], index))
            if entry is not None and delta.get("type") in ("text_delta", "thinking_delta"):
                entry[1].append(_str(delta.get("text")) or _str(delta.get("thinking")) or "")
        elif etype == "content_block_stop" and lane in current:
            self._streamed(current[lane], index)  # whole now: its text need not be held to the end

    def _streamed(self, mid: str, index: int) -> None:
        entry = self.streams.pop((mid, index), None)
        if entry is not None:
            btype, parts, number = entry
            key = ("block", mid, btype, "".join(parts))
            self.add(key, number)
            self.belongs(mid, key)

    def finish(self) -> dict[Key, Item]:
        for mid, index in list(self.streams):
            self._streamed(mid, index)
        for uuid in self.retracted:
            for key in self.by_message.get(self.uuid_message.get(uuid, uuid), []) + self.by_message.get(uuid, []):
                if key in self.items:
                    self.items[key].retracted = True
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
    key grows with each fragment (its text so far); the trace names fates as its lines come."""

    def __init__(self) -> None:
        self.open_blocks: dict[tuple[str, str | None, int | None, str], tuple[int, str]] = {}  # -> (first seq, text)
        self.user_at: tuple[int, str | None, int] = (0, None, 0)  # (line, file, user texts seen on it)

    def feed(self, relay: R.Relay) -> tuple[Key, int] | None:
        if isinstance(relay, R.TurnComplete | R.SessionMeta):
            # a run's end or a new run's start (the translator's reset table): a block streamed
            # after it is a new emission, never the continuation of one streamed before it
            # (a capture repeated back to back streams the same message again)
            self.open_blocks.clear()
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


def audit_relays(strategy: str, relays: list[R.Relay], items: dict[Key, Item],
                 lanes: Mapping[str, Lane] | None = None) -> StrategyAudit:
    """One strategy's relays against the inventory; ``lanes`` (a session's) name the sub-agent
    transcripts the input lacks."""
    counts: dict[Key, list[R.Relay]] = {}
    unmatched = 0
    for key, relay in relay_keys(relays):
        if key in items:
            counts.setdefault(key, []).append(relay)
        else:
            unmatched += 1
    withdrawn = {k for k, item in items.items() if item.retracted}
    for k in withdrawn:
        counts.pop(k, None)
    lost = [k for k in items if k not in counts and k not in withdrawn]
    dup = [k for k, rs in counts.items() if len(rs) > 1]
    first_lost = min(lost, key=lambda k: items[k].line, default=None)
    first_dup = min(dup, key=lambda k: counts[k][1].seq, default=None)
    return StrategyAudit(
        strategy=strategy,
        relays=len(relays),
        blocks=len(items),
        emitted=len(counts),
        lost=len(lost),
        duplicated=len(dup),
        extra_emissions=sum(len(rs) - 1 for rs in counts.values()),
        unmatched=unmatched,
        first_lost=None if first_lost is None else {
            "block": describe(first_lost), "line": items[first_lost].line, "file": items[first_lost].file},
        first_duplicated=None if first_dup is None else {
            "block": describe(first_dup), "line": items[first_dup].line,
            "seqs": [r.seq for r in counts[first_dup]]},
        lost_keys=[describe(k) for k in sorted(lost, key=lambda k: items[k].line)],
        duplicated_keys=[describe(k) for k in dup],
        retracted=len(withdrawn),
        tokens=msgspec.to_builtins(usage_report(relays)),
        subagents=msgspec.to_builtins(found) if (found := check(relays, lanes)) is not None else {},
    )


def render(results: list[StrategyAudit]) -> str:
    head = f"{'strategy':<12} {'relays':>7} {'blocks':>7} {'emitted':>8} {'lost':>6} {'duplicated':>11} {'extra':>6}"
    rows = [head, "-" * len(head)]
    for a in results:
        rows.append(f"{a.strategy:<12} {a.relays:>7} {a.blocks:>7} {a.emitted:>8} {a.lost:>6} "
                    f"{a.duplicated:>11} {a.extra_emissions:>6}")
    for a in results:
        if a.first_lost:
            rows.append(f"{a.strategy}: first lost block at line {a.first_lost['line']}: {a.first_lost['block']}")
        if a.first_duplicated:
            d = a.first_duplicated
            rows.append(f"{a.strategy}: first duplicated block at line {d['line']}: {d['block']} (seqs {d['seqs']})")
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
        line += f" · no known price for {', '.join(run['unpriced'])}: not in the cost"
    rep = tokens.get("reported")
    if rep:
        line += (f"\ntokens the results report (modelUsage): {rep['input_tokens']} in · {rep['output_tokens']} out · "
                 f"{rep['cache_read_input_tokens']} cache read · {rep['cache_creation_input_tokens']} cache write"
                 + (f" · ${rep['est_cost_usd']:.4f}" if rep.get("est_cost_usd") is not None else ""))
    if tokens.get("note"):
        line += f"\nnote: {tokens['note']}"
    return line
