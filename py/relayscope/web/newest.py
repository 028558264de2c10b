"""newest: the page's view of what newer Claude Code output brings, as plain data.

* The **drift notice**: what the loaded input has that this version does not know (``drift``),
  in one sentence, with a one-click filter to the rows those records became (their input lines'
  relays). ``drift_view`` takes it from the workspace (``Workspace.drift_report``: counted while
  the input was translated, within the load's slices); ``draw_notice`` draws it.
* **Sub-agents and lanes**: the sub-agents a call started whose transcript is not in the input
  (``missing_agents``, from ``lanes.missing_transcripts``: each with the file to look for and the
  call's row), the CLI's own count held against the lanes (``subagent_words``:
  ``subagents.check``'s sentences), the run's timing as its results report it (``run_timing``),
  and the links between a permission denial and the call it refused (``refused_call``,
  ``refusal_of``). A Workflow run's agents are drawn as one group (``workflow_runs``: each run
  labelled by its call and its id; ``grouped``: the run's tracks together, at its first one's
  place). Lane states are the core's (``subagents.LaneStates``, fed as the lane cards
  are counted in rows.py); nothing here guesses one.

Plain text only (``dom.h``, ``textContent``). Must not translate or decode relays itself beyond
what ``drift``, ``meaning`` and ``subagents`` give; reads the lookups the workspace made while
loading (rows.py) and keeps no state of its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

import msgspec

from .. import relay as R
from ..drift import DriftReport, describe
from ..lanes import is_spawn_tool, missing_transcripts
from ..meaning import call_of, is_error
from ..spans import TIMING, median, timing_words
from ..subagents import check_states
from .dom import Element, clear, fmt_int, h, show
from .model import Workspace

FILTER_ACTION = "drift-filter"


class DriftView(msgspec.Struct):
    report: DriftReport
    text: str  # the sentence the notice shows
    seqs: set[int] = msgspec.field(default_factory=set)  # the rows of the records it counts


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


# -- sub-agents and lanes --------------------------------------------------------------------------


class MissingAgent(msgspec.Struct, frozen=True):
    """A sub-agent a call started whose transcript is not among the input."""

    lane: str  # the spawning call's id (the lane its records would be in)
    file: str  # the transcript to look for: agent-<id>.jsonl
    label: str  # as the lanes panel names a lane
    parent: str  # the lane the call was made in
    depth: int
    spawn_seq: int | None  # the call's row
    result_seq: int | None  # its result's row


def missing_agents(ws: Workspace) -> list[MissingAgent]:
    """The sub-agents whose transcript a session's records name and the input lacks, in lane order."""
    meta = ws._lane_meta
    return [MissingAgent(lane, name, meta[lane].label, meta[lane].parent or "main", meta[lane].depth,
                         ws._by_tool_use.get(lane), ws._by_tool_result.get(lane))
            for lane, name in missing_transcripts(meta).items()]


def placed(lanes: Sequence[tuple[str, int, int | None]], missing: Sequence[MissingAgent]) -> list[str | MissingAgent]:
    """The order to draw ``lanes`` (id, depth, its spawning call's row; as given) and the missing
    sub-agents in: each missing one under the lane that started it, among that lane's other
    sub-agents in the order they were spawned (last when its lane has no card)."""
    out: list[tuple[str | MissingAgent, int, float]] = [(k, d, math.inf if q is None else q) for k, d, q in lanes]
    for m in sorted(missing, key=lambda m: math.inf if m.spawn_seq is None else m.spawn_seq):
        at = math.inf if m.spawn_seq is None else m.spawn_seq
        ids = [x if isinstance(x, str) else x.lane for x, _, _ in out]
        if m.parent in ids:
            i = ids.index(m.parent) + 1
            floor = out[i - 1][1]
            while i < len(out) and out[i][1] > floor and not (out[i][1] <= m.depth and out[i][2] > at):
                i += 1
        else:
            i = len(out)
        out.insert(i, (m, m.depth, at))
    return [x for x, _, _ in out]


class WorkflowRun(msgspec.Struct, frozen=True):
    """A Workflow run whose agents are lanes: its id, the run in words, its call's row."""

    run: str  # wf_<id>
    label: str  # "<its Workflow call as the row reads> · run wf_<id>", or "workflow run wf_<id>"
    call_seq: int | None  # the row of the Workflow call that started it, when it is among the input


def workflow_runs(ws: Workspace) -> dict[str, WorkflowRun]:
    """Lane id -> the Workflow run it is an agent of, for every lane of a run."""
    runs: dict[str, WorkflowRun] = {}
    out: dict[str, WorkflowRun] = {}
    for lane_id, lane in ws._lane_meta.items():
        if not lane.run:
            continue
        found = runs.get(lane.run)
        if found is None:
            seq = ws._by_tool_use.get(lane.spawn) if lane.spawn else None
            words = ws.shown_text(seq) if seq is not None else None
            label = f"{words} · run {lane.run}" if words else f"workflow run {lane.run}"
            found = runs[lane.run] = WorkflowRun(lane.run, label, seq)
        out[lane_id] = found
    return out


def grouped(order: Sequence[str | MissingAgent], runs: dict[str, WorkflowRun]
            ) -> list[str | MissingAgent | tuple[WorkflowRun, list[str]]]:
    """``order`` (``placed``'s) with each Workflow run's lanes gathered into one group, (run, its
    lanes in order), where its first lane was."""
    out: list[str | MissingAgent | tuple[WorkflowRun, list[str]]] = []
    members: dict[str, list[str]] = {}
    for x in order:
        if not isinstance(x, str) or x not in runs:
            out.append(x)
            continue
        run = runs[x]
        if run.run in members:
            members[run.run].append(x)
        else:
            members[run.run] = [x]
            out.append((run, members[run.run]))
    return out


def subagent_words(ws: Workspace) -> list[str]:
    """The CLI's own count of its sub-agents held against the lanes, and the transcripts missing,
    in ``subagents.check``'s sentences (none when no result counts them and nothing is missing)."""
    found = check_states(ws._states, ws._results, ws._lane_meta)
    return found.words if found is not None else []


def run_timing(ws: Workspace) -> str | None:
    """What the results report of the run's timing (``time_to_request_ms``, ``ttft_stream_ms``,
    ``first_content_frame_ms``, ...) in words, the median of several; None when they report none."""
    values: dict[str, list[float]] = {}
    for r in ws._results:
        for name in TIMING:
            value = r.extra.get(name)
            if isinstance(value, int | float) and not isinstance(value, bool):
                values.setdefault(name, []).append(float(value))
    if not values:
        return None
    return timing_words({k: median(v) for k, v in values.items()}, max(map(len, values.values())))


def refused_call(ws: Workspace, seq: int) -> int | None:
    """The row of the call a permission denial (row ``seq``) refused, when that call is in the input."""
    r = ws.relays[seq]
    call = call_of(r) if is_error(r) else None
    return ws._by_tool_use.get(call) if call is not None else None


def missing_file(ws: Workspace, use: R.ToolUse) -> str | None:
    """The transcript this call's sub-agent would be in, when the input lacks it."""
    lane = ws._lane_meta.get(use.id) if is_spawn_tool(use.name) else None
    return lane.missing_file if lane is not None else None


def refusal_of(ws: Workspace, use: R.ToolUse) -> int | None:
    """The row of the permission denial that refused this call, if one did."""
    return ws._refusals.get(use.id)


class LanesFacts(msgspec.Struct, frozen=True):
    """What the lanes panel shows beside the lane cards: the sub-agents missing from the input,
    the CLI's count held against the lanes, and the run's timing (on the main lane's card)."""

    missing: list[MissingAgent] = msgspec.field(default_factory=list)
    words: list[str] = msgspec.field(default_factory=list)
    timing: str | None = None


def lanes_facts(ws: Workspace) -> LanesFacts:
    return LanesFacts(missing_agents(ws), subagent_words(ws), run_timing(ws))
