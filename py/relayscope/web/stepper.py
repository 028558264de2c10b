"""stepper: the step-through, one input line at a time: what the line was, what the strategy
decided, the relays it emitted (highlighted in the rows), and where it goes next: every input
line, or (scope "shown") only the lines of the rows shown.

It follows the selection (a row selected: its line's step), except in an embed, where the step
the author chose stays until the reader steps.

Must not: select rows but to show a step's hidden relays, or filter (filters.py).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Final, Protocol

from . import panels
from .dom import On, show
from .jobs import Jobs
from .remote import DOCUMENT as document
from .remote import Event
from .timeline import Timeline
from .view import Address, Shown, ViewState

IDS: Final = ("stepper", "step-first", "step-prev", "step-position", "step-next", "step-last", "step-slider",
              "step-facts", "fp-compare", "dedup-index", "content-array", "step-emitted", "step-raw",
              "step-scope", "step-hidden", "step-hidden-text", "step-show-hidden")


class Selecting(Protocol):
    def select(self, seq: int | None, expanded: bool | None = None, follow_step: bool = True) -> None: ...


class Stepper:
    def __init__(self, view: ViewState, shown: Shown, timeline: Timeline, jobs: Jobs, selection: Selecting,
                 address: Address, *, embed: bool) -> None:
        self.view, self.shown, self.timeline, self.jobs = view, shown, timeline, jobs
        self.selection, self.address, self.embed = selection, address, embed
        self.els = {name: document.element(name) for name in IDS}
        self.scoped: list[int] | None = None  # the steps of the rows shown (scope "shown"), made when needed
        self.hidden: list[int] = []  # relays of the current step that the filter hides

    def wire(self, on: On) -> None:
        e = self.els
        on(e["step-first"], "click", lambda _: self.go(self.step_by(0, first=True)))
        on(e["step-prev"], "click", lambda _: self.go(self.step_by(-1)))
        on(e["step-next"], "click", lambda _: self.go(self.step_by(1)))
        on(e["step-last"], "click", lambda _: self.go(self.step_by(0, last=True)))
        on(e["step-slider"], "input", lambda _: self.go(int(e["step-slider"].value)))
        on(e["step-scope"], "change", self.on_scope)
        on(e["step-show-hidden"], "click", lambda _: self.show_hidden())

    def start(self) -> None:
        """A new input: the scope control as the view says."""
        self.els["step-scope"].value = self.view.step_scope

    def follow(self, seq: int | None, follow_step: bool) -> None:
        """A row was selected: go to its line's step (an embed keeps the author's step)."""
        if follow_step and not self.embed and seq is not None and self.shown.ws is not None:
            self.go(self.shown.ws.step_of_seq(seq), scroll=False)

    def rows_changed(self) -> None:
        self.scoped = None  # the steps of the rows shown: made again when stepping in scope

    def count(self) -> int:
        return self.shown.ws.step_count() if self.shown.ws else 0

    def next(self, delta: int) -> None:
        """The keys: the next or previous step."""
        self.go(self.step_by(delta))

    def go(self, i: int, scroll: bool = True) -> None:
        """Show step ``i`` (clamped): its panel, its relays highlighted (and scrolled to)."""
        ws, n = self.shown.ws, self.count()
        if ws is None or n == 0 or self.jobs.busy:
            if ws is not None and n == 0:
                self.els["step-position"].textContent = "0 / 0"
            return
        i = min(max(i, 0), n - 1)
        self.view.step = i
        s = ws.step(i)
        panels.step(self.els, s, n, self.shown.labels.get(s.lane or "", s.lane or ""))
        index = self.timeline.index
        # a relay inside a folded group of deltas is shown by the group's row; a lost block by its placeholder
        folded = [h for q in s.seqs[:50] if q not in index and (h := ws.group_of(q)) is not None and h in index]
        lost = ws.lost_rows_of_step(i)
        self.timeline.set_highlight(set(s.seqs) | set(folded) | lost)
        self._note_hidden(s.seqs, folded)
        if scroll and (s.seqs or lost):
            target = next((q for q in [*s.seqs[:1], *folded[:1], *sorted(lost)] if q in index), None)
            if target is not None:  # else the emitted rows are filtered out: leave the view be
                self.timeline.scroll_to(target)
        e = self.els
        e["step-prev"].disabled = self.step_by(-1) == i
        e["step-first"].disabled = self.step_by(0, first=True) == i
        e["step-next"].disabled = self.step_by(1) == i
        e["step-last"].disabled = self.step_by(0, last=True) == i
        self.address.sync()

    def go_line(self, file: str | None, line: int) -> None:
        """The step of an input line (an error, a lost block)."""
        if self.shown.ws is not None:
            self.go(self.shown.ws.step_of_line(file, line))

    def go_seq(self, seq: int) -> None:
        """The step of a relay ("show this line's step")."""
        if self.shown.ws is not None:
            self.go(self.shown.ws.step_of_seq(seq))

    def step_by(self, delta: int, *, first: bool = False, last: bool = False) -> int:
        """The step ``delta`` away from the current one (or the first, or the last): any input
        line, or with the scope "shown" only lines that emitted a row shown (or of the lane chosen)."""
        n, here, ws = self.count(), self.view.step, self.shown.ws
        if self.view.step_scope != "shown" or ws is None:
            return 0 if first else max(n - 1, 0) if last else min(max(here + delta, 0), max(n - 1, 0))
        if self.scoped is None:
            self.scoped = ws.steps_of([q for q in self.timeline.seqs if q >= 0], self.view.lane)
        steps = self.scoped
        if not steps:
            return here
        if first or last:
            return steps[0] if first else steps[-1]
        if delta > 0:
            k = bisect_right(steps, here)
            return steps[k] if k < len(steps) else here
        k = bisect_left(steps, here) - 1
        return steps[k] if k >= 0 else here

    def on_scope(self, _event: Event) -> None:
        self.view.step_scope = "shown" if str(self.els["step-scope"].value) == "shown" else "all"
        self.go(self.view.step, scroll=False)

    def _note_hidden(self, seqs: list[int], folded: list[int]) -> None:
        """A step whose relays the filter hides says so, and offers to show them."""
        index, ws = self.timeline.index, self.shown.ws
        hidden = [q for q in seqs if q not in index] if len(folded) < len(seqs) else []
        hidden = [q for q in hidden if (g := ws.group_of(q) if ws else None) is None or g not in index]
        self.hidden = hidden
        if hidden:
            listed = ", ".join(f"#{q}" for q in hidden[:5]) + (" …" if len(hidden) > 5 else "")
            n = len(hidden)
            self.els["step-hidden-text"].textContent = (
                f"{'All' if n == len(seqs) else n} of its relays {'are' if n != 1 else 'is'} not in the timeline "
                f"(the filter, the lane or the hidden chip leaves {'them' if n != 1 else 'it'} out: {listed}).")
        show(self.els["step-hidden"], bool(hidden))

    def show_hidden(self) -> None:
        if self.hidden:
            self.selection.select(self.hidden[0], expanded=False, follow_step=False)
            self.go(self.view.step)

    def clear(self) -> None:
        """Nothing of the last input stays beside new rows still coming."""
        e = self.els
        e["step-position"].textContent = "–"
        for name in ("step-facts", "fp-compare", "content-array", "step-emitted"):
            e[name].replaceChildren()
        e["dedup-index"].textContent = ""
        show(e["step-hidden"], False)
