"""relayscope_pyscript: the translator for a PyScript page (static/pyscript.html), run in
PyScript's worker, where micropip installed relayscope (static/py/pyscript.json).

Exports ``translate(text, strategy)``: the relays of a transcript and each input line's de-dup
decision, as one JSON string (one message across the worker boundary, no proxies to release);
and ``strategies()``: the core's catalogue, which the page's select is filled from. The page
draws both with text nodes.

Must not: touch the DOM (it runs in a worker, with no SharedArrayBuffer on a plain static host),
fetch anything, or raise on bad input (the translator never does).
"""

import json

import msgspec

from relayscope.analysis import analyze
from relayscope.present import summary
from relayscope.trace import DECISION_LABELS
from relayscope.translator import DEFAULT_STRATEGY, STRATEGY_NAMES, strategy_named

# The page's transcript is the index bug (sub-agent B's text lost): it opens on the strategy that shows it.
SHOWN_FIRST = strategy_named("index")


def strategies():
    """The strategies, for the page's select, and the one it opens on, as JSON."""
    return json.dumps({"names": list(STRATEGY_NAMES), "shown": SHOWN_FIRST})


def translate(text, strategy=DEFAULT_STRATEGY):
    """The relays of ``text`` under ``strategy`` and one row per input line, as JSON."""
    try:
        strategy = strategy_named(strategy)
    except ValueError:
        strategy = DEFAULT_STRATEGY
    result = analyze(str(text), strategy)
    relays = [
        {"seq": r.seq, "line": r.line, "type": r.type, "lane": r.lane, "summary": summary(r)}
        for r in result.relays
    ]
    steps = [
        {
            "line": s.line,
            "kind": s.kind,
            "decision": s.decision,
            "label": DECISION_LABELS.get(s.decision, s.decision),
            "reason": s.reason,
            "seqs": list(s.seqs),
        }
        for s in result.trace
    ]
    errors = [{"line": line, "message": message} for line, message in result.errors]
    return json.dumps({"strategy": strategy, "relays": relays, "steps": steps, "errors": errors,
                       "msgspec": msgspec.__version__})


__export__ = ["strategies", "translate"]
