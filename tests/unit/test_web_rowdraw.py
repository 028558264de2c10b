"""One timeline row as rowdraw.py draws it, on the worker's mirror of the DOM (plain Python): what
its summary says beside the links it carries."""

from __future__ import annotations

from _run_lines import a_run_with_two_agents, text

from relayscope import relay as R
from relayscope.web import detail_view, remote
from relayscope.web.gutter import Gutter
from relayscope.web.model import Workspace
from relayscope.web.rowdraw import RowDraw
from relayscope.web.view import LaneLayout, Shown, ViewState

URL = "https://github.com/acme/app/pull/42"


class Drawn:
    """The timeline as a row sees it: nothing selected, no lanes drawn."""

    def __init__(self) -> None:
        self.selected: int | None = None
        self.expanded = False
        self.highlight: set[int] = set()
        self.index: dict[int, int] = {}
        self.gutter = Gutter()
        self.layout = LaneLayout([])
        self.labels: dict[str, str] = {}


def loaded(data: bytes) -> Workspace:
    ws = Workspace()
    for _ in ws.load(data, strategy="lineage"):
        pass
    return ws


def drawn(ws: Workspace, seq: int, reading: str = "protocol") -> remote.Node:
    remote.DOCUMENT.__init__()
    return RowDraw(Drawn(), Shown(ws=ws), ViewState(reading=reading), detail_view.content).row(ws, seq)


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


def tracks(ws: Workspace, rows: list[int]) -> list[dict[str, set[str]]]:
    """The gutter of each row, drawn by the timeline in the order given: per lane drawn, its
    track's classes (on, dot, start, end)."""
    from relayscope.web.timeline import Timeline

    remote.DOCUMENT.__init__()
    shown = Shown(ws=ws, layout=LaneLayout([lane.id for lane in ws.lanes]))

    class Idle:
        busy = False

    tl = Timeline(shown, ViewState(), Idle(), remote.DOCUMENT.createElement("div"),  # type: ignore[arg-type]
                  remote.DOCUMENT.createElement("div"), detail_view.content)
    colour = {f"lane-c{c}": lane for lane, c in shown.layout.color.items()}
    tl.set_rows(rows)
    out = []
    for seq in rows:
        gutter = tl.draw.row(ws, seq).querySelector(".gutter")
        assert gutter is not None
        drawn: dict[str, set[str]] = {}
        for track in gutter.children:
            names = set(str(track.className).split())
            lanes = [colour[n] for n in names if n in colour]
            if lanes:
                drawn[lanes[0]] = names
        out.append(drawn)
    return out


def test_in_time_order_a_lane_s_track_runs_from_its_first_row_to_its_last_as_drawn() -> None:
    """A session whose sub-agents ran while main went on: in time order their rows interleave with
    main's, and each lane's track spans its rows as drawn, beside main's where they ran together."""
    from _corpus import FIXTURE_SESSIONS

    folder = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees"
    ws = loaded({str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.jsonl"))})  # type: ignore[arg-type]
    rows = ws.in_order(ws.rows(ws.select()), "time")
    assert rows != sorted(rows)  # interleaved: the test is about time order
    gutters = tracks(ws, rows)
    lanes = {ws.relays[q].lane for q in rows}
    assert len(lanes) == 3
    for lane in lanes:
        at = [i for i, q in enumerate(rows) if ws.relays[q].lane == lane]
        first, last = at[0], at[-1]
        on = [i for i, g in enumerate(gutters) if lane in g]
        assert on == list(range(first, last + 1)), lane  # one unbroken track, its rows' span as drawn
        assert "start" in gutters[first][lane] and "end" in gutters[last][lane]
        assert all("dot" in gutters[i][lane] for i in at)
    subs = lanes - {"main"}
    for lane in subs:  # a sub-agent ran while main went on: the two tracks side by side
        assert any(lane in g and "main" in g for g in gutters)


def test_the_gutter_of_two_lanes_interleaved_in_time_order() -> None:
    """Main, a sub-agent that ran while main went on, then main alone: in the order drawn the
    sub-agent's track lies beside main's from its first row to its last, and a lane that starts
    after another has ended takes its column again."""
    g = Gutter(["main", "a", "main", "a", "main", "main", "b", "main"])
    assert g.spans == {"main": (0, 7), "a": (1, 3), "b": (6, 6)}
    assert g.columns == 2
    assert [g.at(0, i) for i in range(8)] == ["main"] * 8
    assert [g.at(1, i) for i in range(8)] == [None, "a", "a", "a", None, None, "b", None]
    assert Gutter().columns == 0 and Gutter(["main"] * 3).spans == {"main": (0, 2)}
