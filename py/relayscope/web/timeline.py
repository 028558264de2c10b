"""timeline: the relay rows, virtualized: only the rows on screen (plus a margin) exist in the DOM.

Every row is ROW_H pixels high except the selected row when it is expanded (its full content
and raw input line), whose height is measured once it is in the DOM. Rows are absolutely
placed inside a sizer as high as all rows together, so the scrollbar is true for 100 000 rows
while the DOM holds a few dozen. A row is made when it scrolls into view and dropped when it
leaves; clicks are handled once on the container (event delegation, see app.py).

A gutter at the start of each row draws the lanes as vertical tracks, one column per lane
that is open at the same time (interval colouring: a column is reused once its lane is over),
with a dot on the row's own lane, so that parallel sub-agents read as parallel lines.

Must not: put transcript text anywhere but textContent and title attributes.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from .dom import Element, clear, h

ROW_H = 30  # px: keep in step with --row-h in static/css/app.css
OVERSCAN = 12  # rows made above and below the visible ones
MAX_COLS = 8  # lane columns drawn in the gutter; lanes beyond share the row colour only
LANE_COLORS = 8


class LaneLayout:
    """Which gutter column each lane takes, from each lane's first and last seq."""

    def __init__(self, spans: dict[str, tuple[int, int]], order: list[str]) -> None:
        self.color = {lane: k % LANE_COLORS for k, lane in enumerate(order)}
        self.column: dict[str, int] = {}
        self.spans = spans
        ends: list[int] = []  # per column: last seq of the lane that holds it
        for lane in sorted(spans, key=lambda x: (spans[x][0], order.index(x) if x in order else 0)):
            first, last = spans[lane]
            col = next((c for c, end in enumerate(ends) if end < first), None)
            if col is None:
                col = len(ends)
                ends.append(last)
            else:
                ends[col] = last
            self.column[lane] = col
        self.columns = min(len(ends), MAX_COLS)
        # per column: lanes sorted by first seq, for a bisect per row
        self._starts: list[list[int]] = [[] for _ in range(self.columns)]
        self._lanes: list[list[str]] = [[] for _ in range(self.columns)]
        for lane, col in sorted(self.column.items(), key=lambda kv: spans[kv[0]][0]):
            if col < self.columns:
                self._starts[col].append(spans[lane][0])
                self._lanes[col].append(lane)

    def at(self, col: int, seq: int) -> str | None:
        """The lane drawn in column ``col`` at ``seq``, if any."""
        k = bisect_right(self._starts[col], seq) - 1
        if k < 0:
            return None
        lane = self._lanes[col][k]
        return lane if self.spans[lane][1] >= seq else None


class Timeline:
    def __init__(self, app: Any, container: Element, sizer: Element) -> None:
        self.app = app
        self.container = container
        self.sizer = sizer
        self.seqs: list[int] = []  # the rows shown (after filtering), in seq order
        self.index: dict[int, int] = {}  # seq -> position in seqs
        self.nodes: dict[int, Element] = {}  # seq -> row element in the DOM
        self.selected: int | None = None
        self.expanded = False
        self.expanded_h = ROW_H
        self.highlight: set[int] = set()
        self.layout = LaneLayout({}, [])
        self.labels: dict[str, str] = {}

    # -- geometry ---------------------------------------------------------------------------

    def _open_pos(self) -> int | None:
        if self.expanded and self.selected is not None:
            return self.index.get(self.selected)
        return None

    def top(self, i: int) -> int:
        e = self._open_pos()
        extra = self.expanded_h - ROW_H if e is not None and i > e else 0
        return i * ROW_H + extra

    def pos_at(self, y: float) -> int:
        e = self._open_pos()
        if e is None or y < e * ROW_H:
            return int(y // ROW_H)
        if y < e * ROW_H + self.expanded_h:
            return e
        return int((y - (self.expanded_h - ROW_H)) // ROW_H)

    def _height(self) -> int:
        e = self._open_pos()
        return len(self.seqs) * ROW_H + (self.expanded_h - ROW_H if e is not None else 0)

    # -- content ----------------------------------------------------------------------------

    def set_rows(self, seqs: list[int], layout: LaneLayout | None = None,
                 labels: dict[str, str] | None = None) -> None:
        self.seqs = seqs
        self.index = {seq: i for i, seq in enumerate(seqs)}
        if layout is not None:
            self.layout = layout
        if labels is not None:
            self.labels = labels
        self.reset()

    def reset(self) -> None:
        """Drop every row element (content changed); render() makes the visible ones again."""
        for node in self.nodes.values():
            node.remove()
        self.nodes.clear()
        self.render()

    def clear(self) -> None:
        self.seqs, self.index = [], {}
        self.selected, self.expanded = None, False
        clear(self.container)
        self.container.append(self.sizer)
        self.nodes.clear()
        self.sizer.style.height = "0px"

    def render(self) -> None:
        if self.app.busy:
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
            node = self.nodes.get(seq)
            if node is None:
                node = self.nodes[seq] = self._row(seq)
                c.append(node)
                if seq == self.selected and self.expanded:
                    self.expanded_h = max(ROW_H, int(node.offsetHeight))
        self.sizer.style.height = f"{self._height()}px"
        for i in range(first, last + 1):
            self.nodes[self.seqs[i]].style.top = f"{self.top(i)}px"

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
        self.expanded_h = ROW_H
        self.render()
        if scroll and seq is not None:
            self.scroll_to(seq)

    def set_highlight(self, seqs: set[int]) -> None:
        old, self.highlight = self.highlight, seqs
        for seq in old ^ seqs:
            node = self.nodes.get(seq)
            if node is not None:
                node.classList.toggle("emitted", seq in seqs)

    def scroll_to(self, seq: int) -> None:
        i = self.index.get(seq)
        if i is None:
            return
        c = self.container
        top, height = self.top(i), c.clientHeight or 600
        bottom = top + (self.expanded_h if seq == self.selected and self.expanded else ROW_H)
        if top < c.scrollTop or bottom > c.scrollTop + height:
            c.scrollTop = max(0, top - height // 3)
            self.render()

    def neighbour(self, delta: int) -> int | None:
        """The seq ``delta`` rows away from the selected one (the first or last row if none)."""
        if not self.seqs:
            return None
        if self.selected is None or self.selected not in self.index:
            return self.seqs[0] if delta > 0 else self.seqs[-1]
        i = min(max(self.index[self.selected] + delta, 0), len(self.seqs) - 1)
        return self.seqs[i]

    # -- one row ----------------------------------------------------------------------------

    def _row(self, seq: int) -> Element:
        ws = self.app.ws
        r = ws.row(seq)
        color = self.layout.color.get(r.lane, 0)
        classes = ["row", f"lane-c{color}", f"t-{r.type}"]
        if seq == self.selected:
            classes.append("selected")
            if self.expanded:
                classes.append("open")
        if seq in self.highlight:
            classes.append("emitted")
        if r.mark:
            classes.append("marked")
        row = h("div", cls=" ".join(classes), attrs={
            "role": "option", "data-seq": seq, "data-type": r.type, "data-lane": r.lane,
            "aria-selected": "true" if seq == self.selected else "false",
        })
        line = h("div", cls="line")
        line.append(self._gutter(seq, r.lane))
        line.append(h("span", f"#{seq}", cls="seq"))
        line.append(h("span", r.type, cls="type"))
        if r.fp_color is not None:
            line.append(h("span", "●", cls=f"fp fp-{r.fp_color}", attrs={"title": f"fingerprint: {r.fp}"}))
        else:
            line.append(h("span", "", cls="fp none"))
        if r.partial:
            line.append(h("span", "partial", cls="badge"))
        line.append(h("span", r.summary, cls="summary", attrs={"title": r.summary[:300]}))
        if r.mark:
            line.append(h("span", f"⟲ {r.mark}", cls="mark", attrs={"title": r.mark}))
        for button in self._links(r):
            line.append(button)
        where = f"{r.file.rsplit('/', 1)[-1]}:{r.line}" if r.file else f"L{r.line}"
        line.append(h("span", where, cls="where", attrs={"title": f"input line {r.line}" + (f" of {r.file}" if r.file else "")}))
        row.append(line)
        if seq == self.selected and self.expanded:
            row.append(self._detail(r))
        return row

    def _links(self, r: Any) -> list[Element]:
        out = []
        if r.pair is not None:
            text = f"→ result #{r.pair}" if r.type == "tool_use" else f"← call #{r.pair}"
            out.append(h("button", text, cls="link", attrs={
                "type": "button", "data-action": "goto", "data-target": r.pair, "data-testid": "pair-link"}))
        if r.opens_lane is not None:
            label = self.labels.get(r.opens_lane, r.opens_lane)
            out.append(h("button", "lane ▸", cls="link", attrs={
                "type": "button", "data-action": "lane", "data-target": r.opens_lane,
                "data-testid": "opens-lane", "title": f"go to the lane this call spawned: {label}"}))
        if r.back_to is not None:
            out.append(h("button", f"↩ tool_result #{r.back_to}", cls="link", attrs={
                "type": "button", "data-action": "goto", "data-target": r.back_to,
                "data-testid": "back-to", "title": "back to the tool_result that closed this lane"}))
        return out

    def _gutter(self, seq: int, own: str) -> Element:
        g = h("span", cls="gutter", attrs={"aria-hidden": "true"})
        layout = self.layout
        for col in range(layout.columns):
            lane = layout.at(col, seq)
            if lane is None:
                g.append(h("span", cls="track"))
                continue
            first, last = layout.spans[lane]
            cls = f"track on lane-c{layout.color.get(lane, 0)}"
            if lane == own:
                cls += " dot"
            if seq == first:
                cls += " start"
            if seq == last:
                cls += " end"
            g.append(h("span", cls=cls))
        return g

    def _detail(self, r: Any) -> Element:
        box = h("div", cls="detail", attrs={"data-testid": "row-detail"})
        lane = self.labels.get(r.lane, r.lane)
        facts = h("p", cls="detail-facts")
        facts.append(h("span", f"lane: {lane}"))
        if r.fp:
            facts.append(h("span", f"fingerprint: {r.fp}", cls=f"fp-text fp-{r.fp_color}"))
        if r.mark:
            facts.append(h("span", r.mark, cls="mark"))
        facts.append(h("button", "show this line's step", cls="link", attrs={
            "type": "button", "data-action": "step-of", "data-target": r.seq}))
        box.append(facts)
        box.append(h("h3", "Content"))
        box.append(h("pre", r.detail, cls="content", attrs={"data-testid": "row-content"}))
        where = f"line {r.line}" + (f" of {r.file}" if r.file else "")
        box.append(h("h3", f"Raw input ({where})"))
        box.append(h("pre", r.raw, cls="raw", attrs={"data-testid": "row-raw"}))
        return box
