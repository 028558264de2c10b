"""timeline: the relay rows, virtualized: only the rows on screen (plus a margin) exist in the DOM.

Every row is ROW_H pixels high except the selected row when it is expanded (its full content
and raw input line), whose height is measured once it is in the DOM. Rows are absolutely
placed inside a sizer as high as all rows together, so the scrollbar is true for 100 000 rows
while the DOM holds a few dozen. A row is made when it scrolls into view and dropped when it
leaves; clicks are handled once on the container (event delegation, see selection.py).

What one row shows is rowdraw.py's. The timeline draws rows in whatever order it is given
(filters.py decides which and in what order).

Must not: put transcript text anywhere but textContent and title attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .dom import Element, clear, measure
from .gutter import Gutter
from .jobs import Jobs
from .model import Workspace
from .rowdraw import NARROW_W, ROW_H, ROW_H_NARROW, Content, RowDraw
from .view import LaneLayout, Shown, ViewState

OVERSCAN = 12  # rows made above and below the visible ones


class Timeline:
    """The rows of ``seqs``, in the order given (the filters decide which and in what order;
    the timeline only draws them), the selected one open or not."""

    def __init__(self, shown: Shown, view: ViewState, jobs: Jobs, container: Element, sizer: Element,
                 content: Content) -> None:
        self.shown, self.view, self.jobs = shown, view, jobs
        self.container = container
        self.sizer = sizer
        self.seqs: list[int] = []  # the rows shown (after filtering), in the order shown
        self.index: dict[int, int] = {}  # seq -> position in seqs
        self.gutter = Gutter()  # the lanes' tracks over the rows as drawn
        self.nodes: dict[int, Element] = {}  # seq -> row element in the DOM
        self.selected: int | None = None
        self.expanded = False
        self.expanded_h = ROW_H
        self.unmeasured = False  # the open row is drawn, and the page has not measured it yet
        self.highlight: set[int] = set()
        self.preview_ws: Workspace | None = None  # an input still being translated: its first rows
        self.page_scroll = True  # a row selected is brought into the page's view too (not in an embed)
        self.draw = RowDraw(self, shown, view, content)  # content: detail_view.content, loaded late
        self.wrap = True  # a narrow timeline wraps its rows over three lines (not in an embed: one line each)

    # -- geometry ---------------------------------------------------------------------------

    @property
    def row_h(self) -> int:
        """A row's height: three lines in a narrow timeline, where the summary wraps."""
        width = int(self.container.clientWidth or 0)
        return ROW_H_NARROW if self.wrap and 0 < width < NARROW_W else ROW_H

    def _open_pos(self) -> int | None:
        if self.expanded and self.selected is not None:
            return self.index.get(self.selected)
        return None

    def top(self, i: int) -> int:
        e = self._open_pos()
        extra = self.expanded_h - self.row_h if e is not None and i > e else 0
        return i * self.row_h + extra

    def pos_at(self, y: float) -> int:
        e = self._open_pos()
        if e is None or y < e * self.row_h:
            return int(y // self.row_h)
        if y < e * self.row_h + self.expanded_h:
            return e
        return int((y - (self.expanded_h - self.row_h)) // self.row_h)

    def content_height(self) -> int:
        """The container's scrollHeight: all rows, or its own height if they are fewer."""
        return max(self._height(), int(self.container.clientHeight or 0))

    def _height(self) -> int:
        e = self._open_pos()
        return len(self.seqs) * self.row_h + (self.expanded_h - self.row_h if e is not None else 0)

    # -- content ----------------------------------------------------------------------------

    @property
    def layout(self) -> LaneLayout:
        return LaneLayout([]) if self.preview_ws is not None else self.shown.layout

    @property
    def labels(self) -> dict[str, str]:
        return {} if self.preview_ws is not None else self.shown.labels

    def set_rows(self, seqs: list[int]) -> None:
        self.seqs = seqs
        self.index = {seq: i for i, seq in enumerate(seqs)}
        self.gutter = Gutter(self._ws().lanes_of(seqs))
        self.reset()

    def add_rows(self, seqs: Iterable[int]) -> None:
        """Rows after the last (a watched input's new rows, all shown): the lanes' tracks run on."""
        base = len(self.seqs)
        self.seqs.extend(seqs)
        self.index.update({seq: i for i, seq in enumerate(self.seqs[base:], base)})
        self.gutter = Gutter(self._ws().lanes_of(self.seqs))
        self.reset()

    def reset(self) -> None:
        """Drop every row element (content changed); render() makes the visible ones again."""
        for node in self.nodes.values():
            node.remove()
        self.nodes.clear()
        self.render()

    def clear(self) -> None:
        self.seqs, self.index, self.gutter = [], {}, Gutter()
        self.selected, self.expanded = None, False
        clear(self.container)
        self.container.append(self.sizer)
        self.nodes.clear()
        self.sizer.style.height = "0px"

    def preview(self, ws: Workspace, seqs: list[int]) -> None:
        """The first rows of ``ws`` while it is still translated: drawn now, though a job runs
        (the rest of the view comes with the end of the job, which draws every row again)."""
        self.preview_ws = ws
        self.selected, self.expanded = None, False
        self.seqs, self.index, self.gutter = seqs, {seq: i for i, seq in enumerate(seqs)}, Gutter()
        for node in self.nodes.values():
            node.remove()
        self.nodes.clear()
        self.container.scrollTop = 0
        self.container.classList.remove("busy")
        self.render(force=True)

    def render(self, force: bool = False) -> None:
        if self.jobs.busy and not force:
            return
        c = self.container
        n = len(self.seqs)
        if n == 0:
            self.sizer.style.height = "0px"
            for node in self.nodes.values():
                node.remove()
            self.nodes.clear()
            return
        scroll, height = c.scrollTop, c.clientHeight or 600
        first = max(0, self.pos_at(scroll) - OVERSCAN)
        last = min(n - 1, self.pos_at(scroll + height) + OVERSCAN)
        wanted = {self.seqs[i] for i in range(first, last + 1)}
        for seq in [s for s in self.nodes if s not in wanted]:
            self.nodes.pop(seq).remove()
        for i in range(first, last + 1):
            seq = self.seqs[i]
            if seq not in self.nodes:
                node = self.nodes[seq] = self.draw.row(self._ws(), seq)
                c.append(node)
                if seq == self.selected and self.expanded:
                    height = measure(node, self._measured(seq, node))
                    self.expanded_h = max(self.row_h, height)
                    self.unmeasured = not height
        # Until the page has measured a newly opened row, the rows below it would sit over it
        # (placed as if it were one row high): they are hidden for that round trip.
        open_at = self._open_pos()
        hidden_after = open_at if self.unmeasured and self.selected in self.nodes and open_at is not None else n
        self.sizer.style.height = f"{self._height()}px"
        for i in range(first, last + 1):
            node = self.nodes[self.seqs[i]]
            node.style.top = f"{self.top(i)}px"
            node.classList.toggle("unplaced", i > hidden_after)

    def _measured(self, seq: int, node: Element) -> Callable[[int], None]:
        """Once the page has measured the open row: the rows below it move down by its height."""

        def then(height: int) -> None:
            if self.nodes.get(seq) is node and seq == self.selected and self.expanded:
                self.expanded_h = max(self.row_h, int(height))
                self.unmeasured = False
                self.render()

        return then

    # -- selection and highlight -------------------------------------------------------------

    def select(self, seq: int | None, expanded: bool | None = None, scroll: bool = True) -> None:
        changed = seq != self.selected or (expanded is not None and expanded != self.expanded)
        old = self.selected
        self.selected = seq
        if expanded is not None:
            self.expanded = expanded
        if not changed:
            return
        for s in (old, seq):  # these two rows change shape: make them again
            if s is not None and s in self.nodes:
                self.nodes.pop(s).remove()
        self.expanded_h = self.row_h
        self.render()
        if scroll and seq is not None:
            self.scroll_to(seq, into_view=True)

    def set_highlight(self, seqs: set[int]) -> None:
        old, self.highlight = self.highlight, seqs
        for seq in old ^ seqs:
            node = self.nodes.get(seq)
            if node is not None:
                node.classList.toggle("emitted", seq in seqs)

    def scroll_to(self, seq: int, into_view: bool = False) -> None:
        """Row ``seq`` scrolled into the rows' box; ``into_view``: into the page's view too (the
        rows' box may be out of it: a row selected from the swimlanes, a link, the audit)."""
        i = self.index.get(seq)
        if i is None:
            return
        c = self.container
        top, height = self.top(i), c.clientHeight or 600
        bottom = top + (self.expanded_h if seq == self.selected and self.expanded else self.row_h)
        if top < c.scrollTop or bottom > c.scrollTop + height:
            c.scrollTop = max(0, top - height // 3)
            self.render()
        node = self.nodes.get(seq)
        if into_view and self.page_scroll and node is not None:
            node.scrollIntoView({"block": "nearest"})

    def neighbour(self, delta: int) -> int | None:
        """The seq ``delta`` rows away from the selected one (the first or last row if none)."""
        if not self.seqs:
            return None
        if self.selected is None or self.selected not in self.index:
            start = 0 if delta > 0 else len(self.seqs) - 1
            i = start + (delta - 1 if delta > 0 else delta + 1)
        else:
            i = self.index[self.selected] + delta
        i = min(max(i, 0), len(self.seqs) - 1)
        step = 1 if delta > 0 else -1
        while 0 <= i < len(self.seqs) and self.seqs[i] < 0:  # a lost block's placeholder: not a relay
            i += step
        if not 0 <= i < len(self.seqs):
            i -= step
            while 0 <= i < len(self.seqs) and self.seqs[i] < 0:
                i -= step
        return self.seqs[i] if 0 <= i < len(self.seqs) else None

    def page_rows(self) -> int:
        """How many rows one screen of the timeline holds (PageUp/PageDown)."""
        return max(1, int((self.container.clientHeight or 600) // self.row_h) - 1)

    # -- one row ----------------------------------------------------------------------------

    def _ws(self) -> Workspace:
        ws = self.preview_ws or self.shown.ws
        assert ws is not None, "rows are drawn of a workspace"
        return ws
