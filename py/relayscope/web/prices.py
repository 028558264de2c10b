"""prices: a pinned table of Claude API prices, to estimate a lane's cost when the input gives none.

Only an estimate, and always shown as one: the input's own ``total_cost_usd`` wins wherever it
exists. The table is dated and never fetched; update it by hand from the source below.
Must not: fetch anything, or guess a price for a model it does not list.
"""

from __future__ import annotations

from typing import Final

PRICES_DATE: Final = "2025-11-24"
PRICES_SOURCE: Final = "Anthropic's published API pricing (docs.claude.com, About Claude: Pricing)"

# USD per million tokens: input, output, cache read, cache write (5-minute).
# Keys are model id prefixes; the longest matching prefix wins.
PRICES: Final[dict[str, tuple[float, float, float, float]]] = {
    "claude-opus-4-5": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-1": (15.0, 75.0, 1.50, 18.75),
    "claude-opus-4": (15.0, 75.0, 1.50, 18.75),
    "claude-3-opus": (15.0, 75.0, 1.50, 18.75),
    "claude-sonnet-4": (3.0, 15.0, 0.30, 3.75),
    "claude-3-7-sonnet": (3.0, 15.0, 0.30, 3.75),
    "claude-3-5-sonnet": (3.0, 15.0, 0.30, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.10, 1.25),
    "claude-3-5-haiku": (0.80, 4.0, 0.08, 1.0),
    "claude-3-haiku": (0.25, 1.25, 0.03, 0.30),
}

_by_model: dict[str, tuple[float, float, float, float] | None] = {}


def price_of(model: str | None) -> tuple[float, float, float, float] | None:
    if not model:
        return None
    if model not in _by_model:
        best = max((p for p in PRICES if model.startswith(p)), key=len, default=None)
        _by_model[model] = PRICES[best] if best else None
    return _by_model[model]


def estimate(model: str | None, input_tokens: int, output_tokens: int,
             cache_read: int = 0, cache_write: int = 0) -> float | None:
    """USD for one message's usage, or None for a model the table does not list."""
    p = price_of(model)
    if p is None:
        return None
    return (input_tokens * p[0] + output_tokens * p[1] + cache_read * p[2] + cache_write * p[3]) / 1e6
