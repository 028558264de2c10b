"""prices: the pinned table of Claude API prices, to estimate a lane's cost when the input gives none.

The table and the estimate live in the core (``relayscope.usage``: the CLI's audit sums tokens and
cost by the same rule); this module keeps the page's names for them.
Must not: fetch anything, or guess a price for a model it does not list.
"""

from __future__ import annotations

from ..usage import PRICES, PRICES_DATE, PRICES_SOURCE, estimate, price_of

__all__ = ["PRICES", "PRICES_DATE", "PRICES_SOURCE", "estimate", "price_of"]
