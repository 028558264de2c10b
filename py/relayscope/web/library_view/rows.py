"""library_view.rows: the list's table as the page holds it, :class:`Rows`: a row per session
(its cells, each text ``table.cell_text``'s), the groups' bodies and headings, the sort buttons
and the search's counts on the rows. Sorting, grouping and filtering move or hide the rows the
page already holds; a row is drawn once, when its shelf is listed.
"""

from __future__ import annotations

from ..dom import Element, fmt_int, h, option
from ..shelf import Entry
from .table import BY_KEY, COLUMNS, PENDING, State, _project, cell_text, keeps, ordered


def _set_text(el: Element, text: str) -> None:
    """An element's text, sent to the page only when it changes: the search sets the filter's
    every group head again after each slice, and each text set is an op the page lays the list
    out again for."""
    if el.textContent != text:
        el.textContent = text


def _numeric(key: str) -> bool:
    """A column drawn as a number (right-aligned): the dates are not."""
    return BY_KEY[key].numeric and key not in ("start", "last")


class Rows:
    def __init__(self, el: dict[str, Element], state: State) -> None:
        self.el, self.state = el, state  # the library's elements (controller.IDS) and its choices
        self.rows: dict[str, Element] = {}  # session id -> its row
        self.cells: dict[str, dict[str, Element]] = {}
        self.bodies: dict[str, Element] = {}  # project -> its group's tbody ("" flat)
        self.heads: dict[str, Element] = {}  # project -> its group's heading cell
        self.sort_buttons: dict[str, Element] = {}
        self.marks: list[Element] = []  # the search's counts shown on the rows

    def let_go(self) -> None:
        """Every row and body out of the page (a new list, or none)."""
        for body in self.bodies.values():
            body.remove()
        self.rows, self.cells, self.bodies, self.heads = {}, {}, {}, {}

    # -- a row ---------------------------------------------------------------------------------

    def make(self, entry: Entry) -> Element:
        """The row of ``entry``, kept (not yet in a body)."""
        cells: dict[str, Element] = {}
        tds = []
        for col in COLUMNS:
            text = cell_text(entry, col.key)
            if col.key == "title":
                td = h("td", cls="lib-title", attrs={"data-col": col.key}, children=[h("div", cls="lib-title-in", children=[
                    h("button", text, cls="link lib-open", attrs={"type": "button", "data-action": "library-open",
                                                                  "data-session": entry.id,
                                                                  "title": entry.summary.title or entry.id})])])
            else:
                cls = " ".join(c for c in ("num" if _numeric(col.key) else "", "pending" if text == PENDING else "")
                               if c)
                td = h("td", text, cls=cls or None, attrs={"data-col": col.key, "title": _cell_title(entry, col.key)})
            cells[col.key] = td
            tds.append(td)
        tr = h("tr", cls="lib-row", attrs={"data-testid": "library-session", "data-session": entry.id,
                                           "data-project": _project(entry)}, children=tds)
        self.rows[entry.id], self.cells[entry.id] = tr, cells
        return tr

    def draw_figures(self, entry: Entry) -> None:
        """A row's figures of a whole read (tool calls, errors, tokens, model), now filled in."""
        cells = self.cells.get(entry.id)
        if cells is None:
            return
        for key in ("tools", "errors", "tokens", "model"):
            cells[key].textContent = cell_text(entry, key)
            cells[key].classList.toggle("pending", False)
        for key, n in (("tools", entry.summary.tool_calls), ("errors", entry.summary.errors)):
            if n == 1:
                cells[key].setAttribute("data-one", "")
        cells["model"].setAttribute("title", ", ".join(entry.summary.models) or "–")
        cells["errors"].classList.toggle("has-errors", bool(entry.summary.errors))
        s = entry.summary
        if s.tokens is not None:
            cells["tokens"].setAttribute("title", f"input {fmt_int(s.input_tokens or 0)} · output "
                                         f"{fmt_int(s.output_tokens or 0)} · cache read {fmt_int(s.cache_read_tokens or 0)}"
                                         f" · cache write {fmt_int(s.cache_creation_tokens or 0)}")

    def mark_hit(self, entry: Entry) -> None:
        """The search's count on a matching row (before its title, which an ellipsis may cut)."""
        hit = self.state.hits.get(entry.id)
        cells = self.cells.get(entry.id)
        if hit is None or cells is None:
            return
        words = "matches" if hit.count is None else f"{fmt_int(hit.count)} row{'' if hit.count == 1 else 's'}"
        mark = h("span", words, cls="lib-hits", attrs={"data-testid": "library-hits",
                                                       "data-count": "" if hit.count is None else str(hit.count)})
        cells["title"].children[0].children[0].before(mark)
        self.marks.append(mark)

    def clear_hit_marks(self) -> None:
        for mark in self.marks:
            mark.remove()
        self.marks = []

    # -- sort, filter, group -----------------------------------------------------------------

    def draw_head(self) -> None:
        ths = []
        for col in COLUMNS:
            button = h("button", col.label, cls="lib-sort", attrs={"type": "button", "data-sort": col.key,
                                                                   "title": col.title or None})
            self.sort_buttons[col.key] = button
            ths.append(h("th", cls="num" if _numeric(col.key) else None, attrs={"scope": "col", "data-col": col.key},
                         children=[button]))
        self.el["library-head"].replaceChildren(h("tr", children=ths))
        self.el["library-sort"].replaceChildren(*[option(c.key, f"Sort: {c.label}") for c in COLUMNS])
        self.mark_sort()

    def mark_sort(self) -> None:
        for key, button in self.sort_buttons.items():
            th = button.parentElement
            if th is None:
                continue
            if key == self.state.sort:
                th.setAttribute("aria-sort", "descending" if self.state.descending else "ascending")
            else:
                th.removeAttribute("aria-sort")

    def arrange(self, entries: list[Entry]) -> None:
        """The rows in the order and groups chosen, then the filters. Rows the page holds are
        moved into the new groups' bodies (a move, not a drawing), before the old bodies go."""
        self.mark_sort()
        st = self.state
        self.el["library"].dataset.grouped = "true" if st.grouped else "false"
        self.el["library-group"].setAttribute("aria-pressed", "true" if st.grouped else "false")
        groups: dict[str, list[Entry]] = {}
        for entry in ordered(entries, st):
            groups.setdefault(_project(entry) if st.grouped else "", []).append(entry)
        old, self.bodies, self.heads = list(self.bodies.values()), {}, {}
        span = str(len(COLUMNS))
        table = self.el["library-table"]
        for project, members in groups.items():
            children = []
            if st.grouped:
                head = self.heads[project] = h("th", project, attrs={"colspan": span, "scope": "rowgroup"})
                children.append(h("tr", cls="lib-group", children=[head]))
            body = self.bodies[project] = h("tbody", attrs={"data-project": project or None}, children=children)
            table.append(body)
            body.append(*[self.rows[m.id] for m in members])
        for body in old:
            body.remove()
        self.apply_filter(entries)

    def apply_filter(self, entries: list[Entry]) -> None:
        """Each row shown or hidden by the filters (and a search's matches), the groups' counts
        and the list's count with them."""
        shown = 0
        per: dict[str, int] = {}
        for entry in entries:
            keep = keeps(entry, self.state)
            self.rows[entry.id].hidden = not keep
            if keep:
                shown += 1
                per[_project(entry)] = per.get(_project(entry), 0) + 1
        for project, head in self.heads.items():
            n = per.get(project, 0)
            _set_text(head, f"{project} · {fmt_int(n)} session{'' if n == 1 else 's'}")
            body = self.bodies.get(project)
            if body is not None:
                body.hidden = n == 0
        total = len(entries)
        _set_text(self.el["library-count"], fmt_int(shown))
        self.el["library-count"].dataset.total = str(total)
        _set_text(self.el["library-count-unit"], f"session{'' if shown == 1 else 's'}" if shown == total
                  else f"of {fmt_int(total)} sessions")


def _cell_title(entry: Entry, key: str) -> str | None:
    """A cell's tooltip: what the cell's text leaves out."""
    s = entry.summary
    if key == "project":
        return " · ".join(x for x in (s.cwd or s.project, s.project_dir and f"folder {s.project_dir}",
                                      s.git_branch and f"branch {s.git_branch}", f"session {s.session}") if x)
    if key == "cli" and s.cli_versions:
        return ", ".join(s.cli_versions)
    if key == "model" and s.models:
        return ", ".join(s.models)
    if key in ("start", "last"):
        return (s.start if key == "start" else s.last_activity) or None
    if key == "size":
        return f"{fmt_int(s.size)} bytes in {len(s.files)} file(s)"
    return None
