"""A content block's identity: its fingerprint, its text, its key (what every strategy compares)."""

from __future__ import annotations

from typing import Final

import msgspec
from msgspec import Raw

from .. import relay as R
from ..wire import (
    Block,
)

_any: Final = msgspec.json.Decoder()
# The rows a line's field words go on (the first of them the line gives).
_NOTED_ROWS: Final = frozenset({R.TextDelta, R.ThinkingDelta, R.ToolUse, R.ToolResult, R.UserMessage,
                                R.ContentBlock, R.TurnComplete, R.Error})
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


