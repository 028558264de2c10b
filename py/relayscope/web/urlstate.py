"""urlstate: the view the reader is looking at, and its query string (app.py's URL state).

The view (strategy, step, selected row, filters, which example or URL the transcript came from)
is mirrored into the query string (app.py writes it with ``history.replaceState``), so a copied
address opens the same view; share links (share.py, embed.py) carry the same query, with the
transcript or its fingerprint in the fragment. Plain Python: ``view_from`` reads a query into a
view, ``query_of`` writes one, and reading a query back gives the view it was written from.

Must not: touch the DOM or the address bar (app.py does), or know the workspace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from ..translator import STRATEGIES
from .share import EMBED_PARAMS


@dataclass
class State:
    """What the user is looking at; mirrored into the URL."""

    strategy: str = "lineage"
    step: int = 0  # 0-based (1-based in the URL and on screen)
    row: int | None = None  # selected relay seq
    expanded: bool = False
    text: str = ""
    types: set[str] = field(default_factory=set)
    lane: str = ""
    source: dict[str, str] = field(default_factory=dict)  # kind: paste|files|example|src|share
    xtypes: set[str] = field(default_factory=set)  # types excluded (chips clicked twice)
    bookkeeping: bool = False  # bookkeeping records shown
    closed: set[str] = field(default_factory=set)  # panels collapsed (PANELS)
    step_scope: str = "all"  # "shown": the stepper goes through the lines of the rows shown only


PANELS = ("stepper", "lanes", "audit")  # the panels beside (or under) the timeline, each collapsible


def query_dict(search: str) -> dict[str, str]:
    """A query string (``?a=1&b=2``, with or without ``?``) as a dict; the last value of a key wins."""
    return {k: v[-1] for k, v in parse_qs(search.removeprefix("?")).items()}


def view_from(params: dict[str, str]) -> dict[str, Any]:
    """The view a query asks for (what is not valid is left out): strategy, step and row
    (1-based step), q, types (``-type`` excludes), lane, bookkeeping, closed (panels collapsed),
    scope (``shown``: step through the lines of the rows shown)."""
    view: dict[str, Any] = {}
    if params.get("strategy") in STRATEGIES:
        view["strategy"] = params["strategy"]
    for key in ("step", "row"):
        value = params.get(key, "")
        if value.isdigit():
            view[key] = int(value)
    if "q" in params:
        view["q"] = params["q"]
    if params.get("types"):
        view["types"] = [t for t in params["types"].split(",") if t]
    if params.get("lane"):
        view["lane"] = params["lane"]
    if params.get("bookkeeping") == "shown":
        view["bookkeeping"] = True
    if "closed" in params:
        view["closed"] = [p for p in params["closed"].split(",") if p in PANELS]
    if params.get("scope") == "shown":
        view["scope"] = "shown"
    return view


def view_of(st: State) -> dict[str, Any]:
    """The view ``st`` shows, as the values of its query (every key, defaults included)."""
    view: dict[str, Any] = {"strategy": st.strategy, "step": st.step + 1}
    if st.row is not None:
        view["row"] = st.row
    if st.text:
        view["q"] = st.text
    if st.types or st.xtypes:
        view["types"] = ",".join([*sorted(st.types), *(f"-{t}" for t in sorted(st.xtypes))])
    if st.lane:
        view["lane"] = st.lane
    if st.bookkeeping:
        view["bookkeeping"] = "shown"
    if st.closed:
        view["closed"] = ",".join(p for p in PANELS if p in st.closed)
    if st.step_scope == "shown":
        view["scope"] = "shown"
    return view


def query_of(st: State, here: dict[str, str]) -> dict[str, str]:
    """The query string of the view ``st`` (defaults left out; the example or URL it came from
    first), keeping how the page at ``here`` (its current query) is shown: embed, theme, panels."""
    params = {k: str(v) for k, v in view_of(st).items()}
    if params.get("strategy") == "lineage":
        params.pop("strategy")
    if params.get("step") == "1":
        params.pop("step")
    src = st.source
    if src.get("kind") == "example":
        params = {"example": src["example"], **params}
    elif src.get("kind") == "src":
        params = {"src": src["src"], **params}
    params.update({k: here[k] for k in EMBED_PARAMS if k in here})
    return params
