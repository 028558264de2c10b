"""detail_view: an opened row's content drawn from ``describe``'s plain data: a tool call as a
diff, a command with its exit status, a search with its count, a todo list, a sub-agent with a
link to its lane; an agent's message as its Markdown (markdown_view.py); a prompt and thinking
as prose and monospace code blocks, their newlines kept.

Called by the timeline where it builds a row's detail (``content``). The row's tool call and
result are paired by the web model (``Rows.call_of``, the same link as the row's ``pair-link``);
nothing here pairs them again, and the row's summary cell is the web model's (``Rows.shown``).

Must not: put transcript text anywhere but ``textContent`` (through ``dom.h``) and title
attributes; decode more than the opened row's own lines; know the timeline's geometry.
"""

from __future__ import annotations

from .. import describe as D
from .. import relay as R
from .. import spill
from ..describe.details import tool_call
from . import markdown_view, newest
from .dom import Element, h
from .model import RowView, Workspace

TEXT_TYPES = (R.TextDelta, R.ThinkingDelta, R.UserMessage, R.SubAgentResponse)
MARKDOWN_TYPES = (R.TextDelta, R.SubAgentResponse)  # what agents write in Markdown (a prompt, a thought: as typed)
SIGN = {"context": " ", "del": "-", "add": "+"}
TODO_MARK = {"completed": "☑", "in_progress": "◐", "pending": "☐"}


def content(box: Element, ws: Workspace, r: RowView, labels: dict[str, str]) -> None:
    """Append the opened row's content to ``box`` (its facts line and raw line are the timeline's)."""
    relay = r.relay
    pair = ws.call_of(r)
    if pair is not None:
        use, result = pair
        line = ws.raw_line(result.file, result.line) if result is not None else None
        detail = tool_call(use, result, line)
        if detail is not None:
            lane = _spawned_lane(ws, r, use)
            box.append(h("h3", f"{use.name}: what it did" if result is not None else f"{use.name}: what it asks"))
            box.append(tool_detail(detail, lane, labels))
        missing = newest.missing_file(ws, use)
        if missing is not None:
            box.append(h("p", f"The sub-agent's transcript is not in the input: look for {missing} (in the "
                         "session's subagents/ folder) and open it with the session.", cls="note missing-note",
                         attrs={"data-testid": "missing-agent-note"}))
        if result is not None:
            spilled_output(box, ws, result)
        heading = "Input (JSON)" if r.type == "tool_use" else "Result, whole"
        box.append(h("h3", heading if detail is not None else "Content"))
        box.append(h("pre", r.detail, cls="content", attrs={"data-testid": "row-content"}))
        return
    box.append(h("h3", "Content"))
    if isinstance(relay, MARKDOWN_TYPES):  # an agent's message, as it was written
        box.append(markdown_view.draw(r.detail if not isinstance(relay, R.SubAgentResponse) else relay.content or ""))
    elif r.joined is not None or isinstance(relay, TEXT_TYPES):
        box.append(prose(r.detail))
    else:
        box.append(h("pre", r.detail, cls="content", attrs={"data-testid": "row-content"}))


def spilled_output(box: Element, ws: Workspace, result: R.ToolResult) -> None:
    """A result too large for the transcript: the file Claude Code saved it to, its text as the
    input holds it (the first ``spill.SHOWN_BYTES``), or that the input does not hold it."""
    found = ws.spilled(result)
    if found is None:
        return
    what, name, data = found
    if name is None or data is None:
        box.append(h("p", f"The whole output ({what.size}) was saved to {what.short}, which is not in the input: "
                     "open the session's folder (with its tool-results/ folder) to see it here.",
                     cls="note missing-note", attrs={"data-testid": "spill-missing"}))
        return
    text, left = spill.shown(data)
    more = f": the first {len(data) - left:,} of its {len(data):,} bytes" if left else f" ({len(data):,} bytes)"
    box.append(h("h3", "Whole output"))
    box.append(h("p", f"From {what.short}, in the input{more}.", cls="note spill-file", attrs={"title": name}))
    box.append(h("pre", text, cls="content output", attrs={"data-testid": "spill-content", "data-file": name,
                                                           "tabindex": "0"}))


def _spawned_lane(ws: Workspace, r: RowView, use: R.ToolUse) -> str | None:
    if r.type == "tool_use":
        return r.opens_lane
    return ws.row(use.seq).opens_lane if 0 <= use.seq < len(ws.relays) else None


def prose(text: str) -> Element:
    """Text as written: paragraphs keep their newlines, fenced code blocks are monospace."""
    box = h("div", cls="content prose", attrs={"data-testid": "row-content"})
    for seg in D.prose(text):
        if seg.kind == "code":
            box.append(h("pre", seg.text, cls="code", attrs={"data-lang": seg.lang or None}))
        else:
            box.append(h("div", seg.text, cls="para"))
    return box


def tool_detail(d: D.Detail, lane: str | None, labels: dict[str, str]) -> Element:
    tool = d.tool if not isinstance(d, D.Command | D.Todos) else ("Bash" if isinstance(d, D.Command) else "TodoWrite")
    box = h("div", cls="tool-detail", attrs={"data-testid": "tool-detail", "data-tool": tool})
    if isinstance(d, D.FileDiff):
        _file_diff(box, d)
    elif isinstance(d, D.Command):
        _command(box, d)
    elif isinstance(d, D.Facts):
        _facts(box, d.fields, d.count)
        _outputs(box, d.outputs)
    elif isinstance(d, D.Todos):
        _todos(box, d)
    else:
        _spawn(box, d, lane, labels)
    return box


def _file_diff(box: Element, d: D.FileDiff) -> None:
    head = h("div", cls="diff-head")
    head.append(h("span", d.path, cls="diff-path", attrs={"data-testid": "diff-path"}))
    head.append(h("span", f"−{d.removed}", cls="diff-stat del", attrs={"title": f"{d.removed} lines removed"}))
    head.append(h("span", f"+{d.added}", cls="diff-stat add", attrs={"title": f"{d.added} lines added"}))
    box.append(head)
    notes = list(d.notes)
    if d.numbering == "snippet":
        notes.append("line numbers count from the edited text's first line (the input does not say where in the file it is)")
    for note in notes:
        box.append(h("p", note, cls="note error" if note.startswith("error") else "note"))
    table = h("table", cls="diff", attrs={"data-testid": "diff", "data-numbering": d.numbering})
    cols = h("colgroup")  # a fixed layout takes its widths from here, not from the hunk's header row
    for cls in ("ln", "ln", "sign", "code"):
        cols.append(h("col", cls=f"c-{cls}"))
    table.append(cols)
    for hunk in d.hunks:
        body = h("tbody")
        title = h("tr", cls="hunk")
        title.append(h("td", hunk.header, attrs={"colspan": 4}))
        body.append(title)
        for line in hunk.lines:
            tr = h("tr", cls=line.kind)
            tr.append(h("td", "" if line.old is None else str(line.old), cls="ln old"))
            tr.append(h("td", "" if line.new is None else str(line.new), cls="ln new"))
            tr.append(h("td", SIGN.get(line.kind, " "), cls="sign", attrs={"aria-hidden": "true"}))
            tr.append(h("td", line.text, cls="code"))
            body.append(tr)
        table.append(body)
    scroll = h("div", cls="diff-scroll")
    scroll.append(table)
    box.append(scroll)


def _command(box: Element, d: D.Command) -> None:
    if d.description:
        box.append(h("p", d.description, cls="note"))
    box.append(h("pre", d.command, cls="command", attrs={"data-testid": "command"}))
    status = d.status or "no result yet"
    good = status in ("ok", "exit 0")
    box.append(h("p", status, cls="status " + ("ok" if good else "bad" if d.status else "none"),
                 attrs={"data-testid": "exit-status"}))
    _facts(box, d.facts, None)
    _outputs(box, d.outputs)


def _facts(box: Element, fields: tuple[tuple[str, str], ...], count: str | None) -> None:
    if fields:
        dl = h("dl", cls="facts")
        for label, value in fields:
            dl.append(h("dt", label))
            dl.append(h("dd", value))
        box.append(dl)
    if count is not None:
        box.append(h("p", f"→ {count}", cls="status count", attrs={"data-testid": "tool-count"}))


def _outputs(box: Element, outputs: tuple[D.Output, ...]) -> None:
    for out in outputs:
        more = out.lines - len(out.head)
        box.append(h("h4", out.label + (f" (first {len(out.head)} of {out.lines} lines)" if more > 0 else "")))
        box.append(h("pre", "\n".join(out.head), cls="output", attrs={"data-testid": "output-head", "data-label": out.label}))


def _todos(box: Element, d: D.Todos) -> None:
    ul = h("ul", cls="todos", attrs={"data-testid": "todos"})
    for t in d.items:
        li = h("li", attrs={"data-status": t.status})
        li.append(h("span", TODO_MARK.get(t.status, "·"), cls="todo-mark", attrs={"aria-hidden": "true"}))
        li.append(h("span", t.content, cls="todo-text"))
        li.append(h("span", t.status.replace("_", " "), cls="todo-status"))
        ul.append(li)
    box.append(ul)


def _spawn(box: Element, d: D.Spawn, lane: str | None, labels: dict[str, str]) -> None:
    fields = [("type", d.agent_type or "(none given)"), ("description", d.description or "(none)"), *d.facts]
    _facts(box, tuple(fields), None)
    if d.status is not None:
        box.append(h("p", d.status, cls="status " + ("bad" if d.status == "error" else "ok"),
                     attrs={"data-testid": "spawn-status"}))
    if lane is not None:
        box.append(h("button", f"lane ▸ {labels.get(lane, lane)}", cls="link", attrs={
            "type": "button", "data-action": "lane", "data-target": lane, "data-testid": "spawn-lane",
            "title": "go to the lane this call spawned"}))
    if not d.prompt:
        return
    more = f" (the first {len(d.prompt) - 1} of {d.prompt_chars} characters)" if d.prompt_chars > len(d.prompt) else ""
    box.append(h("h4", "prompt" + more))
    box.append(h("div", d.prompt, cls="para prompt", attrs={"data-testid": "spawn-prompt"}))
