"""The audit's results as JSON pieces and as text."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

import msgspec

from ..termsafe import safe
from .items import StrategyAudit

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
