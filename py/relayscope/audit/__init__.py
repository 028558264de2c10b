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

from .counting import Audit, audit_relays
from .items import (
    Digest,
    Inventory,
    Item,
    Key,
    StrategyAudit,
    _block_key,
    describe,
    digest,
    inventory,
)
from .keys import RelayKeys, relay_keys
from .report import KEYS_A_PIECE, json_pieces, render

__all__ = [
    "KEYS_A_PIECE",
    "Audit",
    "Digest",
    "Inventory",
    "Item",
    "Key",
    "RelayKeys",
    "StrategyAudit",
    "_block_key",
    "audit_relays",
    "describe",
    "digest",
    "inventory",
    "json_pieces",
    "relay_keys",
    "render",
]
