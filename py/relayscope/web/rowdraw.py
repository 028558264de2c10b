"""rowdraw: one row of the timeline, drawn from the view model: its lane's gutter, its type,
fingerprint, summary (a search's words marked in it, and "in detail" where they are in the row's
detail only), links to its pair and its lane, its time and input line (the cells of rowcells.py);
open, its detail (detail_view.py) and raw input line; a lost block's faint placeholder.

A gutter at the start of each row draws the lanes as vertical tracks, one column per lane that
is open at the same time in the rows as drawn (gutter.Gutter), with a dot on the row's own lane,
so that parallel sub-agents read as parallel lines.

Must not: put transcript text anywhere but textContent and title attributes, or place rows
(timeline.py does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

from .. import present
from .. import relay as R
from ..chapters import is_start
from ..meaning import is_error, link_of
from . import newest, rowcells
from .dom import Element, h
from .gutter import Gutter
from .model import RowView, Workspace
from .search import Query, parse
from .view import LaneLayout, Shown, ViewState

ROW_H: Final = 26  # px: keep in step with --row-h in static/css/app.css
# A timeline narrower than this (a phone) gives each row three lines, so that the summary wraps
# over two of them rather than being cut: app.css's @container rule for .timeline says the same.
NARROW_W: Final = 600
ROW_H_NARROW: Final = 66


class Drawn(Protocol):
    """What a row's look depends on, of the timeline that shows it."""

    selected: int | None
    expanded: bool
    highlight: set[int]
    index: dict[int, int]  # seq -> its row's place as drawn
    gutter: Gutter

    @property
    def layout(self) -> LaneLayout: ...

    @property
    def labels(self) -> dict[str, str]: ...


# An opened row's content drawn into its box (``detail_view.content``): given, so that the detail's
# drawing (with markdown-it-py and difflib) is loaded when a row is first opened (web.main), not at boot.
Content = Callable[[Element, Workspace, RowView, dict[str, str]], None]


class RowDraw:
    def __init__(self, tl: Drawn, shown: Shown, view: ViewState, content: Content) -> None:
        self.tl, self.shown, self.view = tl, shown, view
        self.content = content
        self._query: tuple[str, Query] = ("", parse(""))

    @property
    def query(self) -> Query:
        """The search the rows are drawn for (parsed once per text)."""
        if self._query[0] != self.view.text:
            self._query = (self.view.text, parse(self.view.text))
        return self._query[1]

    def row(self, ws: Workspace, seq: int) -> Element:
        """Row ``seq`` of ``ws`` (a lost block's placeholder for a negative one), as the timeline is now."""
        if seq < 0:
            return self._lost_row(ws, seq)
        r = ws.row(seq)
        color = self.tl.layout.color.get(r.lane, 0)
        classes = ["row", f"lane-c{color}", f"t-{r.type}"]
        if seq == self.tl.selected:
            classes.append("selected")
            if self.tl.expanded:
                classes.append("open")
        if seq in self.tl.highlight:
            classes.append("emitted")
        if r.mark:
            classes.append("marked")
        if seq in ws.retracted:  # withdrawn by a model_refusal_fallback (static/css/newest.css)
            classes.append("retracted")
        if is_error(r.relay):  # a record that reports a failure (a permission denial)
            classes.append("failed")
        head = ws.group_of(seq)
        if head is not None and head != seq:
            classes.append("fragment")
        chapter = is_start(r.relay)  # a real user prompt: its row heads a chapter (the outline lists them)
        if chapter:
            classes.append("chapter")
        row = h("div", cls=" ".join(classes), attrs={
            "role": "row", "data-seq": seq, "data-type": r.type, "data-lane": r.lane,
            "aria-selected": "true" if seq == self.tl.selected else "false",
            "data-fragments": r.fragments or None, "data-time": r.time, "data-chapter-start": "1" if chapter else None,
        })
        line = h("div", cls="line", attrs={"role": "gridcell"})
        line.append(self._gutter(seq, r.lane))
        line.append(h("span", f"#{seq}", cls="seq"))
        groups = self.shown.groups  # the run reading names what a row is, not its relay type
        kind = groups[seq].removesuffix("s") if self.view.reading == "run" and seq < len(groups) else r.type
        kind = "prompt" if chapter and self.view.reading == "run" else kind
        line.append(h("span", kind, cls="type", attrs={"title": r.type}))
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
        text = rowcells.without_link(ws.shown(r), link_of(r.relay))
        q = self.query
        summary = h("span", None if q.words else text, cls="summary",
                    attrs={"title": text[:300], "data-testid": "row-summary"})
        if q.words:
            summary.append(*rowcells.marked(text, q.words))
        line.append(summary)
        if q.words and ws.search_ready and ws.match_in(seq, q) == "detail":
            line.append(h("span", "in detail", cls="badge in-detail", attrs={
                "data-testid": "match-in-detail",
                "title": "the search's words are in this row's detail (open it), not all in its line"}))
        if r.mark:
            short = r.mark.split(":", 1)[0] if "shrank" not in r.mark else "shrank"  # the title says it whole
            line.append(h("span", f"⟲ {short}", cls="mark", attrs={"title": r.mark}))
        usage = ws.usage_of(seq) if self.view.reading == "run" else None
        if usage is not None:  # the tokens of the message this row ends (protocol: a row of its own)
            line.append(h("span", present.usage_figure(usage), cls="badge usage", attrs={
                "data-testid": "row-usage", "data-seq": usage.seq,
                "title": f"tokens of this message: {present.summary(usage)} (usage #{usage.seq})"}))
        for button in self._links(r):
            line.append(button)
        for extra in self._newest(ws, r):
            line.append(extra)
        for cell in rowcells.time(r):
            line.append(cell)
        line.append(rowcells.where(r.file, r.line))
        row.append(line)
        if seq == self.tl.selected and self.tl.expanded:
            row.append(self._detail(ws, r))
        return row

    def _tab(self, seq: int) -> str:
        """A row's buttons are Tab stops in the selected row only: Tab goes from the timeline
        through that row's links, then on (a grid's cells hold controls; a listbox's may not)."""
        return "0" if seq == self.tl.selected else "-1"

    def _links(self, r: RowView) -> list[Element]:
        out = []
        tab = self._tab(r.seq)
        if r.pair is not None and not (r.type == "tool_use" and self.view.reading == "run"):  # folded in
            text = f"→ result #{r.pair}" if r.type == "tool_use" else f"← call #{r.pair}"
            out.append(h("button", text, cls="link", attrs={
                "type": "button", "data-action": "goto", "data-target": r.pair, "data-testid": "pair-link",
                "tabindex": tab, "title": text}))
        if r.opens_lane is not None:
            label = self.tl.labels.get(r.opens_lane, r.opens_lane)
            out.append(h("button", "lane ▸", cls="link", attrs={
                "type": "button", "data-action": "lane", "data-target": r.opens_lane,
                "data-testid": "opens-lane", "title": f"go to the lane of this call: {label}",
                "tabindex": tab}))
        if r.back_to is not None:
            call = r.type == "lane_start"  # a run's agent, or work after a message: the call behind it
            out.append(h("button", f"↩ call #{r.back_to}" if call else f"↩ tool_result #{r.back_to}", cls="link", attrs={
                "type": "button", "data-action": "goto", "data-target": r.back_to,
                "data-testid": "back-to", "title": "back to the call that started or continued this lane" if call
                else "back to the tool_result that closed this lane", "tabindex": tab}))
        return out

    def _newest(self, ws: Workspace, r: RowView) -> list[Element]:
        """What newer output links a row to: a sub-agent whose transcript the input lacks (on its
        call), a permission denial and the call it refused (each way), where a change was published."""
        out = []
        tab = self._tab(r.seq)
        relay = r.relay
        if isinstance(relay, R.ToolUse):
            missing = newest.missing_file(ws, relay)
            if missing is not None:
                out.append(h("span", f"missing {missing}", cls="badge missing-agent", attrs={
                    "data-testid": "missing-agent", "data-lane": relay.id, "data-file": missing,
                    "title": f"this call started a sub-agent whose transcript is not in the input: look for {missing}"}))
            denied = newest.refusal_of(ws, relay)
            if denied is not None:
                out.append(h("button", f"⊘ denied #{denied}", cls="link", attrs={
                    "type": "button", "data-action": "goto", "data-target": denied, "data-testid": "denied-by",
                    "tabindex": tab, "title": "the permission rules refused this call: go to the denial"}))
        elif isinstance(relay, R.System | R.Passthrough):
            call = newest.refused_call(ws, r.seq)
            if call is not None:
                out.append(h("button", f"→ call #{call}", cls="link", attrs={
                    "type": "button", "data-action": "goto", "data-target": call, "data-testid": "refused-call",
                    "tabindex": tab, "title": "the call the permission rules refused"}))
            url = link_of(relay)
            if url is not None:  # vetted by meaning.link_of: http(s), URI characters only; text, never markup
                out.append(h("a", url, cls="ext-link", attrs={
                    "href": url, "rel": "noopener noreferrer", "target": "_blank", "tabindex": tab,
                    "data-testid": "published-link", "title": f"open {url} (a new tab)"}))
        return out

    def _gutter(self, seq: int, own: str) -> Element:
        """The lanes' tracks beside row ``seq``, at its place as drawn."""
        g = h("span", cls="gutter", attrs={"aria-hidden": "true"})
        gutter, color, pos = self.tl.gutter, self.tl.layout.color, self.tl.index.get(seq, -1)
        for col in range(gutter.columns):
            lane = gutter.at(col, pos)
            if lane is None:
                g.append(h("span", cls="track"))
                continue
            first, last = gutter.spans[lane]
            cls = f"track on lane-c{color.get(lane, 0)}"
            if lane == own:
                cls += " dot"
            if pos == first:
                cls += " start"
            if pos == last:
                cls += " end"
            g.append(h("span", cls=cls))
        return g

    def _detail(self, ws: Workspace, r: RowView) -> Element:
        box = h("div", cls="detail", attrs={"role": "gridcell", "data-testid": "row-detail"})
        lane = self.tl.labels.get(r.lane, r.lane)
        facts = h("p", cls="detail-facts")
        facts.append(h("span", f"lane: {lane}"))
        if r.fp:
            facts.append(h("span", f"fingerprint: {r.fp}", cls=f"fp-text fp-{r.fp_color}"))
        if r.mark:
            facts.append(h("span", r.mark, cls="mark"))
        usage = ws.usage_of(r.seq)
        if usage is not None:
            facts.append(h("span", f"tokens: {present.summary(usage)}", cls="usage", attrs={"data-testid": "detail-usage"}))
        facts.append(h("button", "show this line's step", cls="link", attrs={
            "type": "button", "data-action": "step-of", "data-target": r.seq}))
        box.append(facts)
        self.content(box, ws, r, self.tl.labels)
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

    # -- lost blocks ------------------------------------------------------------------

    def _lost_row(self, ws: Workspace, row_id: int) -> Element:
        """A faint placeholder where a block the strategy never emitted would have been."""
        b = ws.lost_block(row_id)
        classes = ["row", "lost"]
        if row_id in self.tl.highlight:
            classes.append("emitted")
        lane = b.lane if b is not None else ""
        row = h("div", cls=" ".join(classes), attrs={
            "role": "row", "data-seq": row_id, "data-type": "lost", "data-lane": lane or "",
            "aria-selected": "false", "data-line": b.line if b is not None else None})
        line = h("div", cls="line", attrs={"role": "gridcell"})
        line.append(self._gutter(row_id, lane or ""))
        line.append(h("span", "lost", cls="seq"))
        line.append(h("span", "never emitted", cls="type"))
        line.append(h("span", "", cls="fp none"))
        words = b.words if b is not None else "a block"
        strategy = self.view.strategy
        text = f"{words}: '{strategy}' never emits it (the audit counts it as lost)"
        line.append(h("span", text, cls="summary", attrs={"title": text, "data-testid": "row-summary"}))
        if b is not None:
            line.append(rowcells.where(b.file, b.line))
        row.append(line)
        return row

