"""What the relays carry: each relay's blocks under the inventory's keys."""

from __future__ import annotations

from collections.abc import Iterable

from .. import relay as R
from .items import Key, _block_key, _load


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


