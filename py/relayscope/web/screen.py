"""screen: a translated input on screen: everything drawn again from the workspace after a load,
a re-run or a watch's first look (``present``), a big input's first rows while the rest is
translated (``first_rows``), and nothing of the last input once an input is not text.

``present`` draws the panels, the stepper, the filters, the rows and the selection, and hands
the swimlanes' build to a task of its own that begins once the job is done (``<html
data-app-state="done">``): the rows never wait for the agents' timeline, which says meanwhile
that it is being built and, once drawn, sets ``<html data-lanes-ms>`` (swimlanes.py).

Must not: translate or read input (loads.py), or decide what a panel shows (the controllers
and panels.py do); it only calls them in order, a slice at a time.
"""

from __future__ import annotations

import asyncio
from typing import Final, Protocol

from . import legend, panels
from .chrome import Chrome, Panels
from .dom import fmt_int, show
from .filters import Filters
from .jobs import Jobs
from .model import EXAMPLES, Workspace
from .notices import Notices
from .remote import DOCUMENT as document
from .selection import Selection
from .stepper import Stepper
from .timeline import Timeline
from .view import Address, LaneLayout, Shown, Signal, Source, ViewState

IDS: Final = ("workspace", "strategy", "type-filter", "lanes", "relay-count", "relay-count-of", "examples-box",
              "audit-body", "audit-notes", "errors", "error-summary", "error-list", "audit-table", "run-audit",
              "fp-legend-box", "fp-legend-summary", "fp-legend", "source")


class Lanes(Protocol):
    """The swimlanes, drawn from the workspace (a task of their own, a slice at a time)."""

    def building(self, ws: Workspace) -> None: ...

    def stop(self) -> None: ...

    async def show(self, ws: Workspace, began: float) -> None: ...


class Screen:
    def __init__(self, view: ViewState, shown: Shown, jobs: Jobs, timeline: Timeline, filters: Filters,
                 selection: Selection, stepper: Stepper, swimlanes: Lanes, panels: Panels, chrome: Chrome,
                 notices: Notices, address: Address, *, embed: bool) -> None:
        self.view, self.shown, self.jobs, self.timeline = view, shown, jobs, timeline
        self.filters, self.selection, self.stepper, self.swimlanes = filters, selection, stepper, swimlanes
        self.panels, self.chrome, self.notices, self.address, self.embed = panels, chrome, notices, address, embed
        self.root = document.documentElement
        self.els = {name: document.element(name) for name in IDS}
        self.presented: Signal[[]] = Signal()  # a translation is on screen (the strategy's controls follow)
        self.first_rows_run = 0  # the job whose first rows are drawn (data-first-rows-ms)

    async def present(self, run: int, step: int, row: int | None) -> bool:
        """Draw everything from the workspace after a (re)translation. False if a newer job took over."""
        ws = self.shown.ws
        assert ws is not None
        await asyncio.sleep(0)
        if run != self.jobs.run:
            return False
        shown, e = self.shown, self.els
        shown.type_counts, shown.groups = ws.type_counts(), []
        shown.layout = LaneLayout([lane.id for lane in ws.lanes])
        shown.labels = {lane.id: lane.label for lane in ws.lanes}
        self.jobs.busy = False
        show(e["workspace"])
        self.chrome.show_skips(True)
        self.panels.draw()
        self.stepper.start()
        e["strategy"].value = ws.strategy
        self.filters.start()
        self.swimlanes.building(ws)
        panels.errors(e, ws.errors, ws.error_summary())
        panels.audit(e, ws.audit, ws.strategy, ws.format)
        legend.draw(e["fp-legend-box"], e["fp-legend-summary"], e["fp-legend"], ws.fp_legend())
        self.timeline.preview_ws = None
        self.timeline.selected, self.timeline.expanded = None, False
        self.filters.apply(scroll_top=True)
        if row is not None and 0 <= row < len(ws.relays):
            self.selection.select(row, expanded=True, follow_step=False)
        self.stepper.go(step, scroll=row is None)
        self.presented.emit()
        self.first_rows_done(run)
        # after the job's end (the caller's, in this same turn): a task, so "done" comes first
        self.jobs.spawn(self.swimlanes.show(ws, self.jobs.started))
        return True

    def first_rows(self, ws: Workspace, run: int) -> None:
        """The first screen of rows of an input still being translated (``ws`` is not the
        workspace shown yet: the rest of the page waits for the end, and says so)."""
        if run != self.jobs.run or not ws.so_far():
            return
        e = self.els
        show(e["workspace"])
        self.chrome.show_skips(True)
        e["type-filter"].replaceChildren()
        e["lanes"].replaceChildren()
        e["relay-count"].textContent = f"{fmt_int(len(ws.relays))}+"
        e["relay-count-of"].textContent = "(so far)"
        e["examples-box"].open = False  # the rows, not the gallery, in the first screen
        self.stepper.clear()
        for name in ("audit-body", "audit-notes"):
            e[name].replaceChildren()  # nothing of the last input stays beside the new rows
        self.timeline.preview(ws, list(range(len(ws.relays))))
        self.first_rows_done(run)

    def first_rows_done(self, run: int) -> None:
        """<html data-first-rows-ms>: the time from the job's start to its first rows on screen."""
        if run == self.jobs.run and self.first_rows_run != run:
            self.first_rows_run = run
            self.root.dataset.firstRowsMs = f"{self.jobs.elapsed_ms():.0f}"

    def clear(self) -> None:
        """An input that is not text: nothing of the previous one left on screen."""
        self.shown.ws = None
        self.swimlanes.stop()
        self.timeline.clear()
        show(self.els["workspace"], False)
        self.chrome.show_skips(False)
        show(self.els["errors"], False)
        self.els["source"].textContent = ""
        self.view.source = Source()
        self.address.clear()  # nothing to come back to

    def focus_example(self, example_id: str) -> None:
        """Open an example where it makes its point: the step of the first block its strategy
        loses (with the audit's line about it in view), or its first duplicated block."""
        ex = next((x for x in EXAMPLES if x.id == example_id), None)
        ws = self.shown.ws
        if ex is None or ws is None or not ex.focus or not ws.audit:
            return
        a = next((x for x in ws.audit if x.strategy == ws.strategy), None)
        if a is None:
            return
        if ex.focus == "lost" and a.first_lost_line is not None:
            self.stepper.go_line(a.first_lost_file, a.first_lost_line)
            kind = "lost"
        elif ex.focus == "dup" and a.first_dup_seqs:
            kind = "duplicated"
        else:
            return
        note = self.els["audit-notes"].querySelector(f'li[data-strategy="{ws.strategy}"][data-kind="{kind}"]')
        if note is not None:
            note.classList.add("focus")
            if not self.embed:  # an embed shows it in place: its one scroll area stays at the top
                note.scrollIntoView({"block": "center"})  # "nearest" can stop a fraction of a pixel short
        if kind == "duplicated":  # its row selected and in view last, the one thing that must be seen
            self.selection.select(a.first_dup_seqs[-1], expanded=False)  # the step follows
            self.timeline.set_highlight(set(a.first_dup_seqs))
