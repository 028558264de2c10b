"""view: what the reader looks at (``ViewState``, mirrored in the address), what is shown
(``Shown``: the workspace and its lanes' colours), and the address itself (``Address``).

The view (strategy, step, selected row, filters, panels folded, where the input came from) is
one object; ``view_from`` reads a query string into the values of a view and ``query_of``
writes one, the one mapping between the two (reading a query back gives the view it was
written from). ``Address`` writes it to the address bar (``history.replaceState``) and tells
whoever follows it (the share link, the embed snippet). Share links (links.py) carry the same
query, with the transcript or its fingerprint in the fragment.

``Signal`` is how a controller lets others follow what it does without knowing them (the
selection, the rows shown, the address): the app connects them (app.py).

Must not: draw, or know the controllers (they get these objects in their constructors).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Final, Generic, ParamSpec
from urllib.parse import parse_qs, urlencode

import msgspec

from ..translator import DEFAULT_STRATEGY, StrategyName, strategy_named
from .model import Workspace
from .remote import WINDOW as window
from .share import EMBED_PARAMS

TABS: Final = ("row", "outline", "stepper", "lanes", "audit", "share")  # the detail panel's tabs, beside (or under) the rows
SIZES: Final = (10, 80)  # the detail panel's size, in % of the workspace's width (beside) or height (under)
READINGS: Final = ("run", "protocol")  # what happened (messages, tools, agents) / the relay events and de-dup
ORDERS: Final = ("time", "lane")  # rows across lanes by their time, or grouped by lane
SCOPES: Final = ("all", "shown")  # the stepper goes through every input line, or those of the rows shown
LANE_COLORS: Final = 8

P = ParamSpec("P")


class Signal(Generic[P]):
    """Callbacks run in the order they were connected, each time the owner emits."""

    def __init__(self) -> None:
        self._fns: list[Callable[P, object]] = []

    def connect(self, fn: Callable[P, object]) -> None:
        self._fns.append(fn)

    def emit(self, *args: P.args, **kwargs: P.kwargs) -> None:
        for fn in self._fns:
            fn(*args, **kwargs)


class Source(msgspec.Struct, frozen=True):
    """Where the input shown came from: paste | files | example | src | share | watch."""

    kind: str = ""
    example: str = ""  # kind "example": its id
    src: str = ""  # kind "src": the URL


class ViewState(msgspec.Struct):
    """What the reader is looking at; mirrored into the address."""

    strategy: StrategyName = DEFAULT_STRATEGY
    step: int = 0  # 0-based (1-based in the URL and on screen)
    row: int | None = None  # selected relay seq
    expanded: bool = False
    text: str = ""
    types: set[str] = msgspec.field(default_factory=set)
    lane: str = ""
    source: Source = msgspec.field(default_factory=Source)
    xtypes: set[str] = msgspec.field(default_factory=set)  # types excluded (chips clicked twice)
    bookkeeping: bool = False  # bookkeeping records shown
    tab: str = ""  # TABS; "" until chosen: the reading's own (run: the row, protocol: the step-through)
    size: int = 0  # the detail panel's size in % (SIZES); 0: the layout's default
    detail_open: bool = True  # the detail panel shown (else its tab bar only)
    step_scope: str = "all"  # SCOPES
    reading: str = ""  # READINGS; "" until chosen: each input opens in the reading that fits it
    order: str = "time"  # ORDERS
    fold: bool = True  # the swimlanes' axis folds long idle gaps
    session: str = ""  # the session opened from a library (library_view/), its full id; "" none


class Shown(msgspec.Struct):
    """The input on screen: its workspace (None before one), and what the rows draw it with."""

    ws: Workspace | None = None
    size: int = 0  # of the input, in bytes
    layout: LaneLayout = msgspec.field(default_factory=lambda: LaneLayout([]))
    labels: dict[str, str] = msgspec.field(default_factory=dict)  # lane id -> label
    type_counts: dict[str, int] = msgspec.field(default_factory=dict)
    open_groups: set[int] = msgspec.field(default_factory=set)  # groups of partial deltas shown fragment by fragment
    groups: list[str] = msgspec.field(default_factory=list)  # each relay's chip in the run reading (reading.group_of)


class LaneLayout:
    """The colour of each lane, in the order the lanes are listed: the same in every view (the
    gutter's columns follow the rows' order: gutter.Gutter)."""

    def __init__(self, order: list[str]) -> None:
        self.color = {lane: k % LANE_COLORS for k, lane in enumerate(order)}


# -- the view and its query string ---------------------------------------------------------------


class Asked(msgspec.Struct):
    """The view a query asks for: each value it gives validly, None where it gives none."""

    strategy: StrategyName | None = None
    step: int | None = None  # 1-based
    row: int | None = None
    text: str | None = None
    types: list[str] | None = None  # "-type" excludes
    lane: str | None = None
    bookkeeping: bool | None = None
    tab: str | None = None
    size: int | None = None
    detail_open: bool | None = None
    scope: str | None = None
    reading: str | None = None
    order: str | None = None
    fold: bool | None = None
    session: str | None = None

    def over(self, other: Asked) -> Asked:
        """This view, with ``other``'s values where it gives none."""
        return Asked(**{k: getattr(self, k) if getattr(self, k) is not None else getattr(other, k)
                        for k in self.__struct_fields__})


def query_dict(search: str) -> dict[str, str]:
    """A query string (``?a=1&b=2``, with or without ``?``) as a dict; the last value of a key wins."""
    return {k: v[-1] for k, v in parse_qs(search.removeprefix("?")).items()}


def view_from(params: dict[str, str]) -> Asked:
    """The view a query asks for (what is not valid is left out): strategy, step and row
    (1-based step), q, types (``-type`` excludes), lane, bookkeeping, tab (the detail panel's),
    size (its size in %), detail (``closed``: the panel folded to its tabs), scope (``shown``:
    step through the lines of the rows shown), reading (``run`` or ``protocol``), order (``lane``: rows grouped by lane), fold (``off``: the axis unfolded), session (the
    session of a library opened, by its id)."""
    asked = Asked()
    with contextlib.suppress(ValueError):
        asked.strategy = strategy_named(params.get("strategy"))
    for key in ("step", "row"):
        value = params.get(key, "")
        if value.isdigit():
            setattr(asked, key, int(value))
    if "q" in params:
        asked.text = params["q"]
    if params.get("types"):
        asked.types = [t for t in params["types"].split(",") if t]
    if params.get("lane"):
        asked.lane = params["lane"]
    if params.get("bookkeeping") == "shown":
        asked.bookkeeping = True
    if params.get("tab") in TABS:
        asked.tab = params["tab"]
    size = params.get("size", "")
    if size.isdigit() and SIZES[0] <= int(size) <= SIZES[1]:
        asked.size = int(size)
    if params.get("detail") == "closed":
        asked.detail_open = False
    if params.get("scope") == "shown":
        asked.scope = "shown"
    if params.get("reading") in READINGS:
        asked.reading = params["reading"]
    if params.get("order") == "lane":
        asked.order = "lane"
    if params.get("fold") == "off":
        asked.fold = False
    if params.get("session"):
        asked.session = params["session"]
    return asked


def query_of(st: ViewState, here: dict[str, str]) -> dict[str, str]:
    """The query string of the view ``st`` (defaults left out; the example or URL it came from
    first), keeping how the page at ``here`` (its current query) is shown: embed, theme, panels."""
    params: dict[str, str] = {}
    if st.source.kind == "example":
        params["example"] = st.source.example
    elif st.source.kind == "src":
        params["src"] = st.source.src
    if st.session:
        params["session"] = st.session
    if st.strategy != DEFAULT_STRATEGY:
        params["strategy"] = st.strategy
    if st.step:
        params["step"] = str(st.step + 1)
    if st.row is not None:
        params["row"] = str(st.row)
    if st.text:
        params["q"] = st.text
    if st.types or st.xtypes:
        params["types"] = ",".join([*sorted(st.types), *(f"-{t}" for t in sorted(st.xtypes))])
    if st.lane:
        params["lane"] = st.lane
    if st.bookkeeping:
        params["bookkeeping"] = "shown"
    if st.tab:
        params["tab"] = st.tab
    if st.size:
        params["size"] = str(st.size)
    if not st.detail_open:
        params["detail"] = "closed"
    if st.step_scope == "shown":
        params["scope"] = "shown"
    if st.reading:
        params["reading"] = st.reading
    if st.order == "lane":
        params["order"] = "lane"
    if not st.fold:
        params["fold"] = "off"
    params.update({k: here[k] for k in EMBED_PARAMS if k in here})
    return params


class Address:
    """The address bar: the view's query, written as the view changes (``sync``), and cleared
    of a fragment or of everything when what it named is gone."""

    def __init__(self, view: ViewState, shown: Shown) -> None:
        self.view, self.shown = view, shown
        self.synced: Signal[[]] = Signal()  # the address now shows the view: links follow it

    def here(self) -> dict[str, str]:
        return query_dict(str(window.location.search))

    def params(self) -> dict[str, str]:
        """The query string of the current view (and of how it is shown: embed, theme, panels)."""
        return query_of(self.view, self.here())

    def sync(self) -> None:
        if self.shown.ws is None:
            return
        query = urlencode(self.params())
        loc = window.location
        window.history.replaceState(None, "", str(loc.pathname) + (f"?{query}" if query else "") + str(loc.hash))
        self.synced.emit()

    def drop_fragment(self) -> None:
        window.history.replaceState(None, "", str(window.location.pathname) + str(window.location.search))

    def clear(self) -> None:
        """Nothing shown to come back to."""
        window.history.replaceState(None, "", str(window.location.pathname))
