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
from relayscope.fates import LOST, Tracker, decision_words
from relayscope.present import summary
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
    # each block's fate as the relays up to its line say (relayscope trace's, the page's words):
    # a block the strategy skipped and no relay carries is lost, not a duplicate
    lines = str(text).splitlines()
    tracker, fed, steps = Tracker(), 0, []
    for s in result.trace:
        top = max(s.seqs, default=-1)
        while fed < len(result.relays) and result.relays[fed].seq <= top:
            tracker.feed([result.relays[fed]])
            fed += 1
        raw = lines[s.line - 1] if s.kind == "assistant" and 0 < s.line <= len(lines) else ""
        fates = tracker.blocks(s, raw) if raw else []
        steps.append({
            "line": s.line,
            "kind": s.kind,
            "decision": s.decision,
            "lost": sum(1 for f in fates if f.fate == LOST),
            "label": decision_words(s.decision, fates),
            "reason": s.reason,
            "seqs": list(s.seqs),
        })
    errors = [{"line": line, "message": message} for line, message in result.errors]
    return json.dumps({"strategy": strategy, "relays": relays, "steps": steps, "errors": errors,
                       "msgspec": msgspec.__version__})


__export__ = ["strategies", "translate"]
