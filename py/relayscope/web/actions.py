"""actions: the clicks on buttons the panels and rows draw with ``data-action`` (and
``data-target``), one delegated listener per container, and the rows themselves.

``ACTIONS`` is the table: each action, whether it may start a job (the page then shows
"analyzing" in the click's own task: protocol.Work), and whether it waits for a transcript on
screen and no job running. The app gives each its handler.

Must not: do what an action does (the controllers do), or make a listener per element.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, Protocol

import msgspec

from .dom import Element, On
from .jobs import Jobs
from .remote import Event
from .view import Shown


class Action(msgspec.Struct, frozen=True):
    name: str
    work: bool  # may start a job
    needs_view: bool  # waits for a transcript shown and no job running


ACTIONS: Final = (
    Action("example", work=True, needs_view=False),  # the gallery: load that example
    Action("goto", work=False, needs_view=True),  # a link to a relay: select it, open
    Action("chapter", work=False, needs_view=True),  # the outline: a chapter's prompt row, selected, at the top
    Action("lane", work=False, needs_view=True),  # a lane: its card in view, its first row
    Action("fragments", work=False, needs_view=True),  # a group of streamed fragments, one by one or joined
    Action("lane-only", work=False, needs_view=True),  # a lane card: only its rows, or all again
    Action("step-of", work=False, needs_view=True),  # a row's "show this line's step"
    Action("error", work=False, needs_view=True),  # an unreadable line: its step and first row
    Action("audit-lost", work=True, needs_view=True),  # the audit's first lost block (another strategy: a re-run)
    Action("audit-dup", work=True, needs_view=True),  # the audit's first duplicated block
)
STARTS_WORK: Final = tuple(a.name for a in ACTIONS if a.work)


class Rows(Protocol):
    def toggle(self, seq: int) -> None: ...


class Lines(Protocol):
    def go_line(self, file: str | None, line: int) -> None: ...


class Actions:
    def __init__(self, shown: Shown, jobs: Jobs, handlers: Mapping[str, Callable[[str], object]],
                 rows: Rows, lines: Lines) -> None:
        missing = {a.name for a in ACTIONS} ^ set(handlers)
        if missing:
            raise ValueError(f"actions without a handler, or handlers of no action: {sorted(missing)}")
        self.shown, self.jobs, self.handlers, self.rows, self.lines = shown, jobs, handlers, rows, lines
        self.rules = {a.name: a for a in ACTIONS}

    def wire(self, on: On, containers: list[Element], timeline: Element) -> None:
        for container in containers:
            on(container, "click", self.on_click, work=STARTS_WORK)
        on(timeline, "click", self.on_timeline_click, work=STARTS_WORK)

    def on_click(self, event: Event) -> None:
        target = event.closest("[data-action]")
        if target is None:
            return
        action = self.rules.get(str(target.dataset.action))
        if action is None:
            return
        if action.needs_view and (self.shown.ws is None or self.jobs.busy):
            return
        self.handlers[action.name](str(target.dataset.target))

    def on_timeline_click(self, event: Event) -> None:
        """A button in a row is an action; a click in an open row's detail is reading; a row
        selects (or opens) it, a lost block's placeholder shows the line it was lost on."""
        ws = self.shown.ws
        if ws is None or self.jobs.busy:
            return
        if event.closest("button[data-action]") is not None:
            self.on_click(event)
            return
        if event.closest(".detail") is not None:
            return  # reading or selecting text in the open row
        row = event.closest(".row[data-seq]")
        if row is None:
            return
        seq = int(str(row.dataset.seq))
        if seq >= 0:
            self.rows.toggle(seq)
        elif (block := ws.lost_block(seq)) is not None:
            self.lines.go_line(block.file, block.line)

