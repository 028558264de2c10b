"""One timeline row as rowdraw.py draws it, on the worker's mirror of the DOM (plain Python): what
its summary says beside the links it carries."""

from __future__ import annotations

from _run_lines import a_run_with_two_agents, text

from relayscope import relay as R
from relayscope.web import remote
from relayscope.web.model import Workspace
from relayscope.web.rowdraw import RowDraw
from relayscope.web.view import LaneLayout, Shown, ViewState

URL = "https://github.com/acme/app/pull/42"


class Drawn:
    """The timeline as a row sees it: nothing selected, no lanes drawn."""

    def __init__(self, layout: LaneLayout | None = None) -> None:
        self.selected: int | None = None
        self.expanded = False
        self.highlight: set[int] = set()
        self.layout = layout or LaneLayout({}, [])
        self.labels: dict[str, str] = {}


def loaded(data: bytes) -> Workspace:
    ws = Workspace()
    for _ in ws.load(data, strategy="lineage"):
        pass
    return ws


def drawn(ws: Workspace, seq: int, reading: str = "protocol") -> remote.Node:
    remote.DOCUMENT.__init__()
    return RowDraw(Drawn(), Shown(ws=ws), ViewState(reading=reading)).row(ws, seq)


def find(el: remote.Node, testid: str) -> list[remote.Node]:
    return el.querySelectorAll(f'[data-testid="{testid}"]')


def test_a_published_change_shows_its_address_once_as_the_link() -> None:
    ws = loaded(text(a_run_with_two_agents()))
    (seq,) = [r.seq for r in ws.relays if isinstance(r, R.System) and r.subtype == "code_change_published"]
    for reading in ("protocol", "run"):
        row = drawn(ws, seq, reading)
        (link,) = find(row, "published-link")
        (summary,) = find(row, "row-summary")
        assert (link.getAttribute("href"), link.textContent) == (URL, URL)
        assert URL not in str(summary.textContent) and str(summary.textContent).startswith("change published")
        assert str(row.textContent).count(URL) == 1
