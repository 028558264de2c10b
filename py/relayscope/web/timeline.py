"""timeline: the relay rows, virtualized: only the rows on screen (plus a margin) exist in the DOM.

Every row is ROW_H pixels high except the selected row when it is expanded (its full content
and raw input line), whose height is measured once it is in the DOM. Rows are absolutely
placed inside a sizer as high as all rows together, so the scrollbar is true for 100 000 rows
while the DOM holds a few dozen. A row is made when it scrolls into view and dropped when it
leaves; clicks are handled once on the container (event delegation, see selection.py).

A gutter at the start of each row draws the lanes as vertical tracks, one column per lane
that is open at the same time (interval colouring: a column is reused once its lane is over),
with a dot on the row's own lane, so that parallel sub-agents read as parallel lines.

Must not: put transcript text anywhere but textContent and title attributes.
"""

from __future__ import annotations

from collections.abc import Callable

from . import detail_view, rowinfo
from .dom import Element, clear, h, measure
from .jobs import Jobs
from .model import RowView, Workspace
from .view import LaneLayout, Shown, ViewState

ROW_H = 30  # px: keep in step with --row-h in static/css/app.css
OVERSCAN = 12  # rows made above and below the visible ones


class Timeline:
    """The rows of ``seqs``, in the order given (the filters decide which and in what order;
    the timeline only draws them), the selected one open or not."""

    def __init__(self, shown: Shown, view: ViewState, jobs: Jobs, container: Element, sizer: Element) -> None:
        self.shown, self.view, self.jobs = shown, view, jobs
        self.container = container
        self.sizer = sizer
        self.seqs: list[int] = []  # the rows shown (after filtering), in seq order
        self.index: dict[int, int] = {}  # seq -> position in seqs
        self.nodes: dict[int, Element] = {}  # seq -> row element in the DOM
        self.selected: int | None = None
        self.expanded = False
        self.expanded_h = ROW_H
        self.unmeasured = False  # the open row is drawn, and the page has not measured it yet
        self.highlight: set[int] = set()
        self.preview_ws: Workspace | None = None  # an input still being translated: its first rows

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

    def content_height(self) -> int:
        """The container's scrollHeight: all rows, or its own height if they are fewer."""
        return max(self._height(), int(self.container.clientHeight or 0))

    def _height(self) -> int:
        e = self._open_pos()
        return len(self.seqs) * ROW_H + (self.expanded_h - ROW_H if e is not None else 0)

    # -- content ----------------------------------------------------------------------------

    @property
    def layout(self) -> LaneLayout:
        return LaneLayout({}, []) if self.preview_ws is not None else self.shown.layout

    @property
    def labels(self) -> dict[str, str]:
        return {} if self.preview_ws is not None else self.shown.labels

    def set_rows(self, seqs: list[int]) -> None:
        self.seqs = seqs
        self.index = {seq: i for i, seq in enumerate(seqs)}
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

    def preview(self, ws: Workspace, seqs: list[int]) -> None:
        """The first rows of ``ws`` while it is still translated: drawn now, though a job runs
        (the rest of the view comes with the end of the job, which draws every row again)."""
        self.preview_ws = ws
        self.selected, self.expanded = None, False
        self.seqs, self.index = seqs, {seq: i for i, seq in enumerate(seqs)}
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
                node = self.nodes[seq] = self._row(seq)
                c.append(node)
                if seq == self.selected and self.expanded:
                    height = measure(node, self._measured(seq, node))
                    self.expanded_h = max(ROW_H, height)
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
                self.expanded_h = max(ROW_H, int(height))
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
        return max(1, int((self.container.clientHeight or 600) // ROW_H) - 1)

    # -- one row ----------------------------------------------------------------------------

    def _ws(self) -> Workspace:
        ws = self.preview_ws or self.shown.ws
        assert ws is not None, "rows are drawn of a workspace"
        return ws

    def _row(self, seq: int) -> Element:
        ws = self._ws()
        if seq < 0:
            return self._lost_row(seq)
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
        if seq in ws.retracted:  # withdrawn by a model_refusal_fallback (static/css/newest.css)
            classes.append("retracted")
        head = ws.group_of(seq)
        if head is not None and head != seq:
            classes.append("fragment")
        row = h("div", cls=" ".join(classes), attrs={
            "role": "row", "data-seq": seq, "data-type": r.type, "data-lane": r.lane,
            "aria-selected": "true" if seq == self.selected else "false",
            "data-fragments": r.fragments or None,
        })
        line = h("div", cls="line", attrs={"role": "gridcell"})
        line.append(self._gutter(seq, r.lane))
        line.append(h("span", f"#{seq}", cls="seq"))
        line.append(h("span", r.type, cls="type", attrs={"title": r.type}))
        if r.fp_color is not None:
            line.append(h("span", r.fp_label, cls=f"fp fp-{r.fp_color}" + (" numbered" if r.fp_label != "●" else ""),
                          attrs={"title": f"fingerprint: {r.fp}", "data-testid": "fp-badge"}))
        else:
            line.append(h("span", "", cls="fp none"))
        if r.fragments:
            opened = seq in self.shown.open_groups
            line.append(h("button", f"{r.fragments} fragments {'▾' if opened else '▸'}", cls="link badge", attrs={
                "type": "button", "data-action": "fragments", "data-target": seq, "tabindex": self._tab(seq),
                "data-testid": "fragments-toggle", "aria-expanded": "true" if opened else "false",
                "title": "streamed deltas of one block, shown joined: show each fragment"}))
        elif r.partial:
            line.append(h("span", "partial", cls="badge"))
        text = detail_view.row_summary(ws, r)
        line.append(h("span", text, cls="summary", attrs={"title": text[:300], "data-testid": "row-summary"}))
        if r.mark:
            short = r.mark.split(":", 1)[0] if "shrank" not in r.mark else "shrank"  # the title says it whole
            line.append(h("span", f"⟲ {short}", cls="mark", attrs={"title": r.mark}))
        for button in self._links(r):
            line.append(button)
        self._time(line, r)
        line.append(self._where(r.file, r.line))
        row.append(line)
        if seq == self.selected and self.expanded:
            row.append(self._detail(r))
        return row

    def _tab(self, seq: int) -> str:
        """A row's buttons are Tab stops in the selected row only: Tab goes from the timeline
        through that row's links, then on (a grid's cells hold controls; a listbox's may not)."""
        return "0" if seq == self.selected else "-1"

    def _links(self, r: RowView) -> list[Element]:
        out = []
        tab = self._tab(r.seq)
        if r.pair is not None:
            text = f"→ result #{r.pair}" if r.type == "tool_use" else f"← call #{r.pair}"
            out.append(h("button", text, cls="link", attrs={
                "type": "button", "data-action": "goto", "data-target": r.pair, "data-testid": "pair-link",
                "tabindex": tab, "title": text}))
        if r.opens_lane is not None:
            label = self.labels.get(r.opens_lane, r.opens_lane)
            out.append(h("button", "lane ▸", cls="link", attrs={
                "type": "button", "data-action": "lane", "data-target": r.opens_lane,
                "data-testid": "opens-lane", "title": f"go to the lane this call spawned: {label}",
                "tabindex": tab}))
        if r.back_to is not None:
            out.append(h("button", f"↩ tool_result #{r.back_to}", cls="link", attrs={
                "type": "button", "data-action": "goto", "data-target": r.back_to,
                "data-testid": "back-to", "title": "back to the tool_result that closed this lane",
                "tabindex": tab}))
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

    def _detail(self, r: RowView) -> Element:
        box = h("div", cls="detail", attrs={"role": "gridcell", "data-testid": "row-detail"})
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
        detail_view.content(box, self._ws(), r, self.labels)
        where = f"line {r.line}" + (f" of {r.file}" if r.file else "")
        box.append(h("h3", f"Raw input ({where})"))
        box.append(h("pre", r.raw, cls="raw", attrs={"data-testid": "row-raw", "tabindex": "0"}))
        pretty = r.raw_pretty
        if pretty is not None:
            more = h("details", cls="raw-pretty")
            more.append(h("summary", "Raw input, indented"))
            more.append(h("pre", pretty, cls="raw", attrs={"data-testid": "row-raw-pretty", "tabindex": "0"}))
            box.append(more)
        return box

    # -- time, file:line, lost blocks ------------------------------------------------

    def _time(self, line: Element, r: RowView) -> None:
        """The row's time where its input line has one, and the gap since its lane's previous row."""
        stamp = r.time
        if stamp is None:
            return
        gap = r.gap
        since = f" · {rowinfo.gap(gap)} since the previous row of this lane" if gap is not None else ""
        line.append(h("span", rowinfo.clock(stamp), cls="time", attrs={
            "data-testid": "row-time", "data-time": stamp, "title": stamp + since}))
        if gap is not None:  # its own cell where the row has room for it (app.css)
            line.append(h("span", rowinfo.gap(gap), cls="gap", attrs={
                "data-testid": "row-gap", "title": "since the previous row of this lane"}))

    @staticmethod
    def _where(file: str | None, number: int) -> Element:
        """``file:line`` with the line number always shown; a long file name is shortened."""
        title = f"input line {number}" + (f" of {file}" if file else "")
        where = h("span", cls="where", attrs={"title": title})
        if file:
            name = file.rsplit("/", 1)[-1]
            stem, dot, _ = name.rpartition(".")
            stem = stem if dot else name
            short = stem if len(stem) <= 14 else f"{stem[:6]}…{stem[-4:]}"
            where.append(h("span", short, cls="file"))
            where.append(h("span", f":{number}", cls="ln"))
        else:
            where.append(h("span", f"L{number}", cls="ln"))
        return where

    def _lost_row(self, row_id: int) -> Element:
        """A faint placeholder where a block the strategy never emitted would have been."""
        b = self._ws().lost_block(row_id)
        classes = ["row", "lost"]
        if row_id in self.highlight:
            classes.append("emitted")
        lane = b.lane if b is not None else ""
        row = h("div", cls=" ".join(classes), attrs={
            "role": "row", "data-seq": row_id, "data-type": "lost", "data-lane": lane or "",
            "aria-selected": "false", "data-line": b.line if b is not None else None})
        line = h("div", cls="line", attrs={"role": "gridcell"})
        line.append(self._gutter(b.before_seq if b is not None else 0, lane or ""))
        line.append(h("span", "lost", cls="seq"))
        line.append(h("span", "never emitted", cls="type"))
        line.append(h("span", "", cls="fp none"))
        words = b.words if b is not None else "a block"
        strategy = self.view.strategy
        text = f"{words}: '{strategy}' never emits it (the audit counts it as lost)"
        line.append(h("span", text, cls="summary", attrs={"title": text, "data-testid": "row-summary"}))
        if b is not None:
            line.append(self._where(b.file, b.line))
        row.append(line)
        return row
