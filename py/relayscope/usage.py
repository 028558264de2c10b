"""usage: tokens and cost, counted once per API message, per lane and per run.

The rule (one place; the CLI's ``audit``, the page's lanes panel and the audit view all sum
through :class:`Tally`): an API message is one ``usage`` relay. The translator writes that relay
once per message (``message.id``; the session record's ``requestId`` rides along as
``request_id``: rows of one response share both, and a repeated row may lack the request id, so
the id alone decides), with the values of the message's *last* record: Claude Code writes a
message as several records, one per content block, each with the response's usage and a rising
``output_tokens`` (PROTOCOL.md 6; ccusage #901 counted the first record's and undercounted, #994
counted every record and doubled). So summing ``usage`` relays is the rule; a relay whose message
id was summed already is not summed again (two inputs holding the same message).

What the per-message sums cannot know: plain stream-json (without ``--include-partial-messages``)
writes each assistant frame with the usage of its message's *start*, so its ``output_tokens`` is
the first count (3, 4 ...) and never the final one; only the run's ``result`` knows the totals, per
model, in ``modelUsage``. The report keeps both: ``run`` (the per-message sum, a lower bound for
output there) and ``reported`` (the sum of the results' ``modelUsage``, with their ``costUSD``),
and says which to trust (``note``). Session transcripts and partial messages carry final counts.

Cost is estimated from a pinned price table (``PRICES``), never fetched. A model it does not list
(``claude-opus-5`` in a 2.1.224 capture, ``glm-4.6``, ``<synthetic>`` ...) has no price: its tokens
are counted, the estimate leaves them out and says so (``unpriced``), never borrowing another
model's price. The input's own ``total_cost_usd`` (a ``turn_complete``) wins wherever it exists.

No state beyond a :class:`Tally`; imports only ``relay``. Must not read input lines (the
translator decides what a message is) or fetch anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import msgspec

from . import relay as R
from ._bounded import Recent

__all__ = ["PRICES", "PRICES_DATE", "PRICES_SOURCE", "Tally", "Tokens", "UsageReport", "estimate", "price_of",
           "usage_report"]

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
    """The table's prices for a model id, or None when it lists none for it."""
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


class Tokens(msgspec.Struct):
    """Token totals of some API messages, and their estimated cost."""

    messages: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    est_cost_usd: float | None = None  # of the priced messages only (see ``unpriced``); ``reported``: the results' costUSD
    unpriced: list[str] = []  # models with no known price: their tokens are in, their cost is not
    models: list[str] = []  # every model named, in order of appearance

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens

    def add(self, r: R.Usage) -> None:
        self.messages += 1
        self.input_tokens += r.input_tokens
        self.output_tokens += r.output_tokens
        self.cache_read_input_tokens += r.cache_read_input_tokens
        self.cache_creation_input_tokens += r.cache_creation_input_tokens
        model = r.model
        if model and model not in self.models:
            self.models.append(model)
        cost = estimate(model, r.input_tokens, r.output_tokens, r.cache_read_input_tokens,
                        r.cache_creation_input_tokens)
        if cost is not None:
            self.est_cost_usd = (self.est_cost_usd or 0.0) + cost
        elif r.input_tokens or r.output_tokens or r.cache_read_input_tokens or r.cache_creation_input_tokens:
            name = model or "(no model named)"
            if name not in self.unpriced:
                self.unpriced.append(name)

    def cost_note(self) -> str | None:
        """What the estimate leaves out, in words (None when it leaves nothing out)."""
        if not self.unpriced:
            return None
        return f"no known price for {', '.join(self.unpriced)}: its tokens are not in the estimate"


class UsageReport(msgspec.Struct):
    """Per lane and for the whole run. ``lanes`` in order of first usage, ``main`` first.
    ``reported``: what the input's ``result`` lines say the runs used (``modelUsage``), when they say."""

    run: Tokens
    lanes: dict[str, Tokens]
    prices_date: str = PRICES_DATE
    reported: Tokens | None = None
    note: str | None = None


class Tally:
    """Sums ``usage`` relays as they come (any number of calls to ``add``), once per API message."""

    def __init__(self) -> None:
        self.run = Tokens()
        self.lanes: dict[str, Tokens] = {}
        self.reported: Tokens | None = None
        self._seen: Recent[str] = Recent()  # a window, as the translator's: a message's rows come together

    def add_result(self, r: R.TurnComplete) -> Tokens | None:
        """A run's ``result``: its ``modelUsage`` (per model: tokens and ``costUSD``) added to
        ``reported``; None when it has none (or not of that shape)."""
        by_model = r.extra.get("modelUsage")
        if not isinstance(by_model, dict) or not by_model:
            return None
        rep = self.reported = self.reported or Tokens(est_cost_usd=None)
        for model, u in by_model.items():
            if not isinstance(u, dict):
                continue
            rep.input_tokens += _int(u.get("inputTokens"))
            rep.output_tokens += _int(u.get("outputTokens"))
            rep.cache_read_input_tokens += _int(u.get("cacheReadInputTokens"))
            rep.cache_creation_input_tokens += _int(u.get("cacheCreationInputTokens"))
            if isinstance(model, str) and model not in rep.models:
                rep.models.append(model)
            cost = u.get("costUSD")
            if isinstance(cost, int | float) and not isinstance(cost, bool):
                rep.est_cost_usd = (rep.est_cost_usd or 0.0) + float(cost)
        return rep

    def add(self, r: R.Usage) -> Tokens | None:
        """Count one relay; returns its lane's totals, or None when this message was counted."""
        if r.message_id is not None:
            if r.message_id in self._seen:
                return None
            self._seen.add(r.message_id)
        lane = self.lanes.get(r.lane)
        if lane is None:
            lane = self.lanes[r.lane] = Tokens()
        lane.add(r)
        self.run.add(r)
        return lane

    def feed(self, relays: Iterable[R.Relay]) -> None:
        for r in relays:
            if type(r) is R.Usage:
                self.add(r)
            elif type(r) is R.TurnComplete:
                self.add_result(r)

    def report(self) -> UsageReport:
        order = sorted(self.lanes, key=lambda k: k != "main")
        return UsageReport(self.run, {k: self.lanes[k] for k in order}, reported=self.reported,
                           note=self.note())

    def note(self) -> str | None:
        """Which totals to trust, when the results report more than the messages carried."""
        rep, run = self.reported, self.run
        if rep is None or (rep.output_tokens <= run.output_tokens and rep.total <= run.total):
            return None
        return (f"the results report {rep.output_tokens:,} output tokens ({rep.total:,} in all), the messages in the "
                f"input carry {run.output_tokens:,} ({run.total:,}): a stream writes each message with its first "
                "output count and may not carry every sub-agent's messages, so the results' totals are right and "
                "the per-message and per-lane counts are lower bounds")


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def usage_report(relays: list[R.Relay]) -> UsageReport:
    """The usage of one translation, by the rule above."""
    t = Tally()
    t.feed(relays)
    return t.report()
