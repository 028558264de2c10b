"""relayscope_pyscript: the translator for a PyScript page (static/pyscript.html), run in
PyScript's worker, where micropip installed relayscope (static/py/pyscript.json).

Exports ``translate(text, strategy)``: the relays of a transcript and each input line's de-dup
decision, as one JSON string (one message across the worker boundary, no proxies to release).
The page draws it with text nodes.

Must not: touch the DOM (it runs in a worker, with no SharedArrayBuffer on a plain static host),
fetch anything, or raise on bad input (the translator never does).
"""

import json

import msgspec

from relayscope.analysis import analyze
from relayscope.present import summary
from relayscope.trace import DECISION_LABELS
from relayscope.translator import STRATEGIES


def translate(text, strategy="lineage"):
    """The relays of ``text`` under ``strategy`` and one row per input line, as JSON."""
    if strategy not in STRATEGIES:
        strategy = "lineage"
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


__export__ = ["translate"]
