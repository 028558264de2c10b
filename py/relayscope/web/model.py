"""model: what the web page shows, computed in plain Python (no DOM, no js imports).

The page (the controllers, ``app.py``) owns the DOM; the ``Workspace`` owns the numbers and the
text. It is put together from parts, one module each, so that a reader finds each job alone:

    workstate    the fields every part reads, and the views of errors, lanes and the audit
    loading      reading an input, re-running it, the audit, the lookups
    growing      an input that grows while it is shown (a watched file or folder)
    checkpoints  a translation's state kept as a load goes (a far step is made again from one)
    stepping     the steps of a translation and the view of one
    rowtext      what one row says: its summary, its line as drawn, its time, its detail
    rows         which rows a view shows and in which order, and the lane cards
    search       which relays a filter or a text search selects

This module: the workspace itself, the examples and the share links. It is unit-tested under CPython (``tests/unit/test_web_*.py``) and runs
unchanged in Pyodide. Everything returned is plain data for ``textContent``: no part builds markup.
Must not: hold logic of the parts (they hold it), or import anything of the page (``app``, DOM).
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Mapping
from typing import Final

import msgspec

from ..sharefile import damaged_link, inflate_link
from ..translator import DEFAULT_STRATEGY, StrategyName, strategy_named
from .checkpoints import CHECKPOINT_BYTES, Checkpoints
from .growing import Growing
from .rows import BOOKKEEPING, NO_THINKING_TEXT, RowView, detail, pretty_json
from .stepping import FP_COLORS, StepView, content_keys
from .workstate import AuditView, ErrorView, LaneView

__all__ = [
    "BOOKKEEPING", "CHECKPOINT_BYTES", "EXAMPLES", "FP_COLORS", "NO_THINKING_TEXT", "SHARE_LIMIT", "SHARE_MAX_BYTES",
    "AuditView", "Checkpoints", "ErrorView", "Example", "LaneView", "RowView", "StepView", "Workspace",
    "content_keys", "decode_share", "detail", "encode_share", "pretty_json",
]

SHARE_LIMIT: Final = 100_000  # characters of URL fragment; longer links break in chat apps and proxies


class Example(msgspec.Struct, frozen=True):
    id: str
    title: str
    blurb: str  # two lines, in the reader's words
    path: str  # relative to the site root
    strategy: StrategyName = DEFAULT_STRATEGY  # the strategy that shows the example's point
    focus: str = ""  # where it opens: "lost" (first lost block), "dup" (first duplicate), "" (start)


EXAMPLES: Final = [
    Example("cumulative-dedup", "Cumulative de-dup",
            "Each assistant event repeats every block before it, so a naive reader prints them again.\n"
            "Opens with no de-dup ('none') on the first repeat; compare with lineage: each block once.",
            "static/examples/cumulative-dedup.ndjson", strategy_named("none"), "dup"),
    Example("index-bug", "The index bug",
            "Two sub-agents share one stream; when B's content is as long as the index, 'index' skips it.\n"
            "Opens on 'index' at the block it loses, with the audit's line about it.",
            "static/examples/index-bug.ndjson", strategy_named("index"), "lost"),
    Example("interleaved-subagents", "Interleaved sub-agents",
            "Parallel sub-agents on one stream, told apart by the fingerprint of their first block.\n"
            "Opens on 'fingerprint'; compare with lineage, which also gives each agent its own lane.",
            "static/examples/interleaved-subagents.ndjson", strategy_named("fingerprint")),
    Example("gotchas", "Protocol gotchas",
            "Thinking sent as text, tool results as a string, an array or null, a result encoded twice.\n"
            "Opens on 'index' where it loses a one-block event; every strategy cleans up the rest.",
            "static/examples/gotchas.ndjson", strategy_named("index"), "lost"),
    Example("fleet-parallel", "Arbiter fleet streaming",
            "An Arbiter master fans out to three researchers over one server-sent-events connection.\n"
            "One lane per stream, with its depth, its token usage and the final done event.",
            "static/examples/fleet-parallel.sse"),
    Example("real-subagents", "Real capture: parallel sub-agents",
            "Claude Code 2.1 with Agent calls: one block per event, each tagged with the call it serves.\n"
            "Opens on 'index' at the first block it loses; lineage emits every block once in its lane.",
            "static/examples/real-subagents.jsonl", strategy_named("index"), "lost"),
    Example("real-streaming", "Real capture: partial messages",
            "With --include-partial-messages, text arrives in pieces, then again as a whole message.\n"
            "'lineage' streams the pieces and does not repeat the text when the whole message follows.",
            "static/examples/real-streaming.jsonl"),
    Example("real-session", "Real capture: a session transcript",
            "A session file from ~/.claude/projects: sub-agents run inline, marked as side chains.\n"
            "Each gets its own lane, linked to the call that started it; compare 'index' in the audit.",
            "static/examples/real-session.jsonl"),
]


class Workspace(Growing):
    """One loaded input and everything the page shows of it (the parts are its bases)."""



# -- share links ---------------------------------------------------------------------------

_SHARE_PREFIX: Final = "v1."


def encode_share(text: str, state: Mapping[str, object]) -> str | None:
    """A URL fragment (without ``#``) carrying the transcript, compressed, and the view state;
    None when it would be longer than SHARE_LIMIT. The fragment never reaches a server."""
    payload = json.dumps({"state": dict(state), "text": text}, ensure_ascii=False,
                         separators=(",", ":")).encode("utf-8")
    compressor = zlib.compressobj(9)
    budget = SHARE_LIMIT * 3 // 4  # base64 makes 4 characters of 3 bytes
    parts, size = [], 0
    for start in range(0, len(payload), 1 << 16):  # give up as soon as it cannot fit
        parts.append(compressor.compress(payload[start:start + (1 << 16)]))
        size += len(parts[-1])
        if size > budget:
            return None
    parts.append(compressor.flush())
    packed = base64.urlsafe_b64encode(b"".join(parts)).rstrip(b"=").decode()
    fragment = _SHARE_PREFIX + packed
    return fragment if len(fragment) <= SHARE_LIMIT else None


SHARE_MAX_BYTES: Final = 32 * 1024 * 1024  # unpacked; links we make hold far less (SHARE_PRECHECK)


def decode_share(fragment: str) -> tuple[str, dict[str, object]]:
    """The transcript and view state of a fragment made by ``encode_share``. ValueError with a
    message for the reader when the link is damaged, or would unpack to more than
    SHARE_MAX_BYTES (a few hundred kilobytes of fragment can unpack to gigabytes)."""
    fragment = fragment.removeprefix("#")
    if not fragment.startswith(_SHARE_PREFIX):
        raise ValueError("This is not a link made by Relayscope.")
    damaged = damaged_link("the transcript it carries")
    raw = inflate_link(fragment[len(_SHARE_PREFIX):], SHARE_MAX_BYTES, damaged)
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise ValueError(damaged) from exc
    if not isinstance(payload, dict) or not isinstance(payload.get("text"), str):
        raise ValueError("This link carries no transcript.")
    state = payload.get("state")
    return payload["text"], state if isinstance(state, dict) else {}
