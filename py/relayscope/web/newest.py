"""newest: the page's view of what newer Claude Code output brings, as plain data.

* The **drift notice**: what the loaded input has that this version does not know (``drift``),
  in one sentence, with a one-click filter to the rows those records became (their input lines'
  relays). ``drift_view`` takes it from the workspace (``Workspace.drift_report``: counted while
  the input was translated, within the load's slices); ``draw_notice`` draws it.

Plain text only (``dom.h``, ``textContent``). Must not translate or decode relays itself beyond
what ``drift`` and ``meaning`` give; the filters (filters.py) call it after a load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .. import relay as R
from ..drift import DriftReport, describe
from .dom import Element, clear, fmt_int, h, show

FILTER_ACTION = "drift-filter"


@dataclass(slots=True)
class DriftView:
    report: DriftReport
    text: str  # the sentence the notice shows
    seqs: set[int] = field(default_factory=set)  # the rows of the records it counts


class Drifting(Protocol):
    """What the drift notice needs of the workspace (which imports this module: no cycle)."""

    @property
    def format(self) -> str | None: ...

    @property
    def relays(self) -> Sequence[R.Relay]: ...

    def drift_report(self) -> DriftReport | None: ...


def drift_view(ws: Drifting) -> DriftView | None:
    """The drift of the loaded input, or None when it has none or is an Arbiter stream (another
    vocabulary). The report is the workspace's (made as it translated, again with another strategy);
    only the rows of its lines are found here."""
    if ws.format == "sse":
        return None
    report = ws.drift_report()
    text = None if report is None else describe(None, report)
    if report is None or text is None:
        return None
    where = set(zip(report.files or [None] * len(report.lines), report.lines, strict=True))
    seqs = {r.seq for r in ws.relays if (r.file, r.line) in where}
    return DriftView(report, text, seqs)


def draw_notice(box: Element, view: DriftView | None, active: bool) -> None:
    """The notice (hidden without drift): the sentence, and a button that filters to those rows
    (or, while it does, back to all rows)."""
    clear(box)
    show(box, view is not None)
    if view is None:
        box.dataset.records = "0"
        return
    box.dataset.records = str(view.report.records)
    box.dataset.active = "true" if active else "false"
    box.append(h("span", "New to this version: ", cls="drift-lead"))
    box.append(h("span", view.text, cls="drift-text", attrs={"data-testid": "drift-text"}))
    label = "show all rows" if active else f"show these {fmt_int(len(view.seqs))} rows"
    box.append(h("button", label, cls="link", attrs={
        "type": "button", "data-action": FILTER_ACTION, "data-testid": "drift-filter",
        "aria-pressed": "true" if active else "false"}))
