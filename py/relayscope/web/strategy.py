"""strategy: the strategy the input is shown with: the select, "Compare with lineage" (and back),
and the audit's links to a strategy's first lost or duplicated block, each a re-translation of
the input already read (``rerun``), a slice at a time.

The select's options are the core's catalogue (translator.STRATEGY_NAMES), drawn here; a name
from the page is checked once, where it comes in (``strategy_named``), and held as the type.

Must not: read input (loads.py), or draw what a translation shows (screen.py does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ..translator import DEFAULT_STRATEGY, STRATEGY_NAMES, StrategyName, strategy_named
from .dom import On, fmt_int, option, show
from .jobs import Jobs
from .protocol import Work
from .remote import DOCUMENT as document
from .remote import Event
from .screen import Screen
from .selection import Selection
from .stepper import Stepper
from .timeline import Timeline
from .view import Shown, ViewState

IDS: Final = ("strategy", "compare-lineage")


class StrategySwitch:
    def __init__(self, view: ViewState, shown: Shown, jobs: Jobs, screen: Screen, selection: Selection,
                 stepper: Stepper, timeline: Timeline) -> None:
        self.view, self.shown, self.jobs, self.screen = view, shown, jobs, screen
        self.selection, self.stepper, self.timeline = selection, stepper, timeline
        self.els = {name: document.element(name) for name in IDS}
        self.compare_from: StrategyName | None = None  # the strategy "Compare with lineage" goes back to
        self.els["strategy"].replaceChildren(*[option(name, name) for name in STRATEGY_NAMES])
        self.els["strategy"].value = view.strategy

    def wire(self, on: On) -> None:
        on(self.els["strategy"], "change", self.on_select, work=Work.ALWAYS)
        on(self.els["compare-lineage"], "click", lambda _: self.toggle_compare(), work=Work.ALWAYS)

    def on_select(self, _event: Event) -> None:
        strategy = strategy_named(str(self.els["strategy"].value))
        if self.shown.ws is None:
            self.view.strategy = strategy
            return
        self.jobs.start_work(self.rerun(strategy))

    def choose(self, strategy: StrategyName) -> None:
        """The select shows ``strategy`` (before a load, it is the one the load uses)."""
        self.view.strategy = strategy
        self.els["strategy"].value = strategy

    async def rerun(self, strategy: StrategyName, then: Callable[[], None] | None = None) -> None:
        """The input again, with ``strategy``; ``then()`` once it is on screen."""
        ws = self.shown.ws
        if ws is None:
            self.view.strategy = strategy
            self.jobs.set_state("ready")
            return
        label = f"Re-translating with '{strategy}'…"
        run = self.jobs.begin(label)
        mark = self.jobs.mark()
        if not await self.jobs.drive(ws.rerun(strategy), run, label):
            return
        mark = self.jobs.timed("translate", mark)
        self.view.strategy = strategy
        self.view.row, self.view.expanded = None, False
        if not await self.screen.present(run, step=self.view.step, row=None):
            return
        if then is not None:
            then()
        self.jobs.timed("draw", mark)
        self.jobs.end(run, f"{fmt_int(len(ws.relays))} relay events with '{strategy}'")

    # -- compare with lineage -----------------------------------------------------------------------

    def update_compare(self) -> None:
        """After a translation: "Compare with lineage", or the way back once it is compared."""
        button = self.els["compare-lineage"]
        on = self.compare_from is not None and self.view.strategy == DEFAULT_STRATEGY
        if not on:
            self.compare_from = None
        button.setAttribute("aria-pressed", "true" if on else "false")
        button.textContent = f"Back to '{self.compare_from}'" if on else "Compare with lineage"
        show(button, self.shown.ws is not None and (on or self.view.strategy != DEFAULT_STRATEGY))

    def forget_compare(self) -> None:
        """A new input: "Back to ..." belonged to the last one."""
        self.compare_from = None

    def toggle_compare(self) -> None:
        if self.shown.ws is None or self.jobs.busy:
            return
        if self.compare_from is not None and self.view.strategy == DEFAULT_STRATEGY:
            target, self.compare_from = self.compare_from, None
        else:
            self.compare_from, target = self.view.strategy, DEFAULT_STRATEGY
        self.els["strategy"].value = target
        self.jobs.start_work(self.rerun(target))

    # -- the audit's links ------------------------------------------------------------------------------

    def follow_audit(self, action: str, name: str) -> None:
        """The audit's "see line N" (first lost block) or "see them" (first duplicate) of a
        strategy: shown under that strategy (translated again if it is not the one shown)."""
        ws = self.shown.ws
        assert ws is not None and ws.audit is not None
        strategy = strategy_named(name)
        a = next(x for x in ws.audit if x.strategy == strategy)

        def show_it() -> None:
            if action == "audit-lost" and a.first_lost_line is not None:
                self.selection.select(None, expanded=False)
                self.stepper.go_line(a.first_lost_file, a.first_lost_line)
            elif a.first_dup_seqs:
                self.selection.select(a.first_dup_seqs[-1], expanded=True)
                self.timeline.set_highlight(set(a.first_dup_seqs))

        if strategy != self.view.strategy:
            self.els["strategy"].value = strategy
            self.jobs.start_work(self.rerun(strategy, then=show_it))
        else:
            show_it()
