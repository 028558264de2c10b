"""swimlanes: the agents in time, above the timeline. The worker's half.

Theory of operation
-------------------
The core (``spans.build``) makes the timeline of what the workspace shows: one track per lane,
main on top and each sub-agent under the lane that spawned it, the agent span, the tool spans in
rows, the marks. This module builds one element per track (``[data-testid=swimlane-track]
[data-lane=ID]``, labelled as the lanes panel labels the lane; a Workflow run's tracks together
in one ``[data-testid=swimlane-run]`` under a header naming the run, ``newest.grouped``) and sends the tracks' data to the
page as ops (protocol.py): ``lanes`` (a new timeline: its axis and span), per track ``lane-meta``
(names and sizes) and ``lane-part`` (compact JSON of numbers, names and labels, which the page
only ever sets as ``textContent`` or ``fillText``), then ``lanes-ready``. The page's own module
(``static/js/swimlanes.mjs``) draws them on a canvas per track and owns zoom, pan, hover and the
keyboard: those never wait for the worker. What the reader picks comes back as messages: ``pick``
(a span or mark: select its row in the timeline and its line in the stepper) and ``range`` (a
dragged range: the timeline keeps the rows inside it, through ``Filters.restrict``). The other
way, a row selected anywhere is outlined on its span (``follow``, op ``lane-select``): its own
span (a call, a sub-agent's start), its call's (a result), else the narrowest span of its lane
else its agent's bar. On the wall-clock axis the header of ``lanes`` carries the run's folded
axis (``folds.of_run``'s ``to_json``: its breaks and segments), from which the page maps time to
x; whether it folds is the view's (``ViewState.fold``, ``fold=off`` in the address), said to the
page as the section's ``data-fold`` and toggled by the "Fold idle" button beside Fit (or F on a
track). The view
shows only when it has something to show the rows do not (:func:`worth_showing`): lanes side by
side (more than one), or tool calls in wall-clock time (their durations). One lane in line order
is the rows again, drawn as bars, and one more Tab stop on the way to them.

They are built after the rest of an input is on screen and its job is done (screen.py): the rows
do not wait for them. Meanwhile (``building``) nothing of the last input's timeline answers, the
section says in words that it is being built (shown in its place when the input has lanes side by
side, so that the rows do not move when it is ready) and carries ``data-building``; once drawn (or
found not worth showing), ``<html data-lanes-ms>`` is the time from the job's start and ``<html
data-lanes-parts>`` where the build's time went (ms: ``timeline``, ``positions``, ``tracks``,
``send``, ``yields`` handing the thread back, ``gc`` the cycle collector's share of those, and
``longest`` the longest stretch without a hand-back). The timeline and each track are built a few
thousand spans at a time and the thread handed back whenever ``jobs.SLICE_BUDGET`` has passed, as a
job's slices are: the worker answers the reader within a slice, whatever the input's size. A newer
``building`` (another input, a re-run) or ``stop`` gives up a build still running at its next slice.

Must not: draw (the page does), hold the page's zoom, or parse input beyond ``spans``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any, Final, Protocol, TypeVar

import msgspec

from .. import folds as F
from .. import spans as S
from ..fates import Fates
from ..lanes import Lane
from . import jobs, newest
from .dom import Element, On, clear, fmt_int, h, show
from .model import Workspace
from .protocol import Op, Pick, Range
from .remote import DOCUMENT as document
from .remote import PAGE
from .view import Shown, ViewState

KINDS: Final = {"agent": 0, "tool": 1}
MARKS: Final = {"model": 0, "lost": 1, "error": 2}
IDS: Final = ("swimlanes", "swimlanes-axis", "swimlanes-figures", "swimlanes-tracks", "swimlanes-clear-range",
              "swimlanes-fold-idle")
PART_NUMBERS: Final = 60_000  # numbers per part (10,000 spans; 12,000 marks)
PART_CHARS: Final = 1 << 20  # part text per message to the page
BUILDING: Final = "Building the agents' timeline… the rows are ready meanwhile."
LABELS_UP_TO: Final = 20_000  # spans in all: past this, a span's tooltip gives its name, not its key input
TRACK_SLICE: Final = 5_000  # spans or marks of a track made between two looks at the clock
T = TypeVar("T")


def _num(x: float) -> float | int:
    r = round(x, 3)
    return int(r) if r == int(r) else r


class Track(msgspec.Struct, frozen=True):
    """One lane's track: its element, and its numbers for the page (``lane-meta``, ``lane-part``)."""

    lane: str
    element: Element
    spans: list[float | int]  # 6 a span: start, end, row, flags, seq, name
    marks: list[float | int]  # 5 a mark: at, kind, seq, line, text
    spans_meta: dict[str, object]
    marks_meta: dict[str, object]


class Selecting(Protocol):
    def select(self, seq: int | None, expanded: bool | None = None, follow_step: bool = True) -> None: ...


class Stepping(Protocol):
    def go_line(self, file: str | None, line: int) -> None: ...


class Narrowing(Protocol):
    def restrict(self, within: Callable[[list[int]], list[int]] | None) -> None: ...


class Syncing(Protocol):
    def sync(self) -> None: ...


class Swimlanes:
    def __init__(self, view: ViewState, shown: Shown, selection: Selecting, stepper: Stepping, filters: Narrowing,
                 address: Syncing) -> None:
        self.view, self.shown, self.selection, self.stepper, self.filters = view, shown, selection, stepper, filters
        self.address = address
        self.els = {name: document.element(name) for name in IDS}
        self.tl: S.Timeline | None = None
        self.fold: F.Fold | None = None
        self.xs: list[float] = []
        self.range: tuple[float, float] | None = None
        self.version = 0
        self.by_lane: dict[str, list[S.Span]] = {}  # each track's spans, for the row selected
        self.outlined: tuple[str, int] | None = None  # the span outlined on the page
        self.selected: int | None = None  # the row selected
        self.builds = 0  # the newest build: an older one gives up at its next slice

    def wire(self, on: On) -> None:
        """What the reader picks and drags on the page's tracks comes as messages; the fold
        toggle is a button of ours."""
        PAGE.subscribe(Pick, self.on_pick)
        PAGE.subscribe(Range, self.on_range)
        on(self.els["swimlanes-fold-idle"], "click", lambda _: self.toggle_fold())

    # -- drawing the data ---------------------------------------------------------------------

    def building(self, ws: Workspace) -> None:
        """Before ``ws``'s timeline is built: the last input's gone from the tracks (nothing of it
        answers a click or a selection), and the section says in words that it is being built."""
        self.builds += 1
        section = self.els["swimlanes"]
        self.tl, self.fold, self.xs, self.range = None, None, [], None
        self.by_lane, self.outlined = {}, None
        show(self.els["swimlanes-clear-range"], False)
        document.documentElement.removeAttribute("data-lanes-ms")
        section.setAttribute("data-building", "true")
        clear(self.els["swimlanes-tracks"])
        self.els["swimlanes-axis"].textContent = ""
        self.els["swimlanes-axis"].removeAttribute("title")
        # in the figures' line: the one line under the head that shows at any height on a phone
        figures = self.els["swimlanes-figures"]
        figures.replaceChildren(h("span", BUILDING, attrs={"data-testid": "swimlanes-building", "role": "status"}))
        figures.setAttribute("title", BUILDING)
        if len(ws.lanes) > 1:  # a track a lane: it will show, so it takes its place now
            show(section)

    def stop(self) -> None:
        """No timeline to build any more (the input is not text): a build running gives up."""
        self.builds += 1
        self.els["swimlanes"].removeAttribute("data-building")

    async def show(self, ws: Workspace, began: float) -> None:
        """The timeline of what ``ws`` shows, sent to the page's tracks: the tracks first, then
        their data in parts of about ``PART_CHARS`` with a pause between, so that no message the
        page applies is big (a 600 MB run sends megabytes), then ``lanes-ready``. Called after
        :meth:`building`, once the rest of the input is on screen; ``began``: its job's start
        (``time.perf_counter``), for ``<html data-lanes-ms>``."""
        build = self.builds
        section = self.els["swimlanes"]
        clock = jobs.Clock()
        await clock.hand_back("wait")  # what the job drew reaches the page before any of this work

        def stamps(file: str | None, line: int) -> float | None:
            stamp = ws.line_time(file, line)
            return S.parse(stamp) if stamp else None
        t0 = time.perf_counter()
        tl = await self._steps(S.build_steps(ws.relays, stamps, _lost(ws.fates)), clock, "timeline", build)
        if tl is None:
            return  # another input came meanwhile: its own show() draws
        if await self._hand_back(clock, "timeline", build):
            return
        self.tl, self.xs = tl, S.positions(ws.relays, tl.axis, stamps)
        if await self._hand_back(clock, "positions", build):
            return
        self.fold = F.of_run(tl, ws.relays, stamps, xs=self.xs)
        clock.lap("positions")
        if await self._hand_back(clock, "positions", build):
            return
        box = self.els["swimlanes-tracks"]
        clear(box)
        if not worth_showing(tl):
            show(section, False)
            self._say_figures("")
            self._built(began, clock)
            return
        fig = S.figures(tl, ws.relays, stamps)
        spans: dict[str, list[S.Span]] = {}
        for sp in tl.spans:
            spans.setdefault(sp.lane, []).append(sp)
        marks: dict[str, list[S.Mark]] = {}
        for mk in tl.marks:
            marks.setdefault(mk.lane, []).append(mk)
        self.by_lane, self.outlined = spans, None
        if await self._hand_back(clock, "tracks", build):
            return
        tracks: list[Track] = []
        runs = newest.workflow_runs(ws)
        for tr in tl.tracks:
            parts = _label_parts(ws._lane_meta.get(tr.id), tr.id in runs)
            track = await self._steps(self._track(tr, tl, fig, spans.get(tr.id, []), marks.get(tr.id, []), parts),
                                      clock, "tracks", build)
            if track is None:
                return
            tracks.append(track)
        elements = {t.lane: t.element for t in tracks}
        order = newest.placed([(tr.id, tr.depth, tr.agent.seq if tr.agent and tr.agent.tool_id else None)
                               for tr in tl.tracks], newest.missing_agents(ws))
        box.append(*[elements[x] if isinstance(x, str) else _run_group(x[0], [elements[k] for k in x[1]])
                     if isinstance(x, tuple) else _missing_card(x, _label_parts(ws._lane_meta.get(x.lane), False))
                     for x in newest.grouped(order, runs)])
        self._say_figures(_figures_line(fig))
        self._say_fold()
        self.version += 1
        PAGE.op(Op.LANES, {
            "version": self.version, "axis": tl.axis, "span": _num(tl.end - tl.start),
            "origin": _num(tl.start),  # x of the run's start (its first line)
            "unit": "s" if tl.axis == S.TIME else "line" if tl.axis == S.LINE else "relay",
            "folds": self.fold.to_json()})
        for t in tracks:
            PAGE.op(Op.LANE_META, t.lane, t.spans_meta, t.marks_meta)
        # the worker's time for all of it: spans, figures, the data (bench/swimlanes_bench.py)
        section.setAttribute("data-build-ms", f"{(time.perf_counter() - t0) * 1000:.0f}")
        clock.lap("tracks")
        if await self._send(tracks, build, clock):
            clock.lap("send")
            show(section)
            PAGE.op(Op.LANES_READY)
            self._built(began, clock)
            self.outlined = None  # the page forgets its outline with its data: the selection's again
            self.follow(self.selected)

    def _say_figures(self, line: str) -> None:
        self.els["swimlanes-figures"].textContent = line
        self.els["swimlanes-figures"].setAttribute("title", line)  # one line: it may end in an ellipsis

    def _built(self, began: float, clock: jobs.Clock) -> None:
        """The build is over: the section says so, <html data-lanes-ms> says when and <html
        data-lanes-parts> where its time went."""
        self.els["swimlanes"].removeAttribute("data-building")
        root = document.documentElement
        root.setAttribute("data-lanes-parts", clock.account())
        root.setAttribute("data-lanes-ms", f"{(time.perf_counter() - began) * 1000:.0f}")

    async def _steps(self, steps: Generator[None, None, T], clock: jobs.Clock, part: str, build: int) -> T | None:
        """Run ``steps`` to its end, handing the thread back whenever the slice's budget has passed
        (the worker answers the reader meanwhile); its result, or None if a newer build began."""
        while True:
            try:
                next(steps)
            except StopIteration as done:
                clock.lap(part)
                return done.value  # type: ignore[no-any-return]
            if await self._hand_back(clock, part, build):
                steps.close()
                return None

    async def _hand_back(self, clock: jobs.Clock, part: str, build: int) -> bool:
        """Hand the thread back if the slice has had its budget; True if a newer build began."""
        if clock.due():
            await clock.hand_back(part)
        return build != self.builds

    def _track(self, tr: S.Track, tl: S.Timeline, fig: dict[str, Any], spans: list[S.Span],
               marks: list[S.Mark], parts: tuple[str | None, str] | None = None) -> Generator[None, None, Track]:
        """One lane's track, labelled as the lanes panel labels the lane, and its data; a pause
        after every ``TRACK_SLICE`` spans or marks; ``parts``: how its label is shown (``_label``).
        The whole label is the label's title and its canvas' name."""
        label = self.shown.labels.get(tr.id, tr.label)
        origin = tl.start
        with_labels = len(tl.spans) <= LABELS_UP_TO
        # by row, then start: the page finds each row's run without sorting
        own = [s for s in spans if s.kind == "agent"]  # the lane's bar; then its calls, by row, start, seq
        own += sorted((s for s in spans if s.kind != "agent"), key=attrgetter("row", "start"))  # seq: as given
        names: dict[str, int] = {}
        data: list[float | int] = []
        texts: list[str | None] = []
        for at in range(0, len(own), TRACK_SLICE):
            if at:
                yield
            for s in own[at:at + TRACK_SLICE]:
                k = names.setdefault(s.name if s.kind == "tool" else label, len(names))
                data += [_num(s.start - origin), _num(s.end - origin), s.row + (1 if s.kind == "tool" else 0),
                         KINDS[s.kind] + (2 if s.error else 0) + (4 if s.open else 0), s.seq, k]
                texts.append(s.label if with_labels and s.kind == "tool" else None)
        mnames: dict[str, int] = {}
        mdata: list[float | int] = []
        for at in range(0, len(marks), TRACK_SLICE):
            yield
            for m in marks[at:at + TRACK_SLICE]:
                mdata += [_num(m.at - origin), MARKS[m.kind], -1 if m.seq is None else m.seq, m.line,
                          mnames.setdefault(m.text, len(mnames))]
        element = h("div", cls=f"sl-track lane-c{self.shown.layout.color.get(tr.id, 0)}", attrs={
            "data-testid": "swimlane-track", "data-lane": tr.id, "data-depth": min(tr.depth, 6),
            "data-parent": tr.parent or None,
        })
        head = h("div", cls="sl-head-cell")
        head.append(_label(label, parts, {"data-testid": "swimlane-label"}))
        figures = next((ln for ln in fig["lanes"] if ln["lane"] == tr.id), None)
        if figures is not None:
            line = _lane_line(figures, fig)
            head.append(h("div", line, cls="sl-lane-figures", attrs={"data-testid": "swimlane-lane-figures", "title": line}))
        element.append(head, h("div", cls="sl-lane", attrs={
            "tabindex": 0, "role": "group", "data-testid": "swimlane-canvas",
            "aria-label": f"{label}: {_counted(len(own) - 1, 'tool call')}",  # its keys: swimlanes.mjs says them
        }))
        return Track(tr.id, element, data, mdata,
                     {"label": label, "rows": 1 + tr.rows, "names": list(names), "labels": texts, "n": len(own),
                      "parts": -(-len(data) // PART_NUMBERS)},
                     {"texts": list(mnames), "n": len(mdata) // 5, "parts": -(-len(mdata) // PART_NUMBERS)})

    async def _send(self, tracks: list[Track], build: int, clock: jobs.Clock) -> bool:
        """The tracks' numbers, a part at a time; False if a newer build began meanwhile."""
        written = 0
        for t in tracks:
            for stem, numbers in (("spans", t.spans), ("marks", t.marks)):
                for k in range(0, len(numbers), PART_NUMBERS):
                    part = _json(numbers[k:k + PART_NUMBERS])
                    PAGE.op(Op.LANE_PART, t.lane, stem, k // PART_NUMBERS, part)
                    written += len(part)
                    if written >= PART_CHARS:  # this turn's ops go to the page as one message: end it
                        written = 0
                        await clock.hand_back("send")
                        if build != self.builds:
                            return False
        return True

    def _say_fold(self) -> None:
        """The fold as the view has it: the section's ``data-fold`` (the page draws by it), the
        button's state (shown only when there is a gap to fold), the axis' caption."""
        tl, fold = self.tl, self.fold
        if tl is None or fold is None:
            return
        on = self.view.fold
        self.els["swimlanes"].setAttribute("data-fold", "on" if on else "off")
        button = self.els["swimlanes-fold-idle"]
        button.setAttribute("aria-pressed", "true" if on else "false")
        show(button, bool(fold.breaks))
        ws = self.shown.ws
        some = ws is not None and tl.axis != S.TIME and any(
            ws.line_time(r.file, r.line) for r in ws.relays[:1000])  # a look, not a count
        caption = f"x: {tl.axis_words}" + (
            f", from {_clock(tl.start)}" if tl.axis == S.TIME
            else " (only some records have a timestamp: the rows show no times)" if some
            else " (the input has no timestamps)")
        if fold.breaks:
            gaps = f"{_counted(len(fold.breaks), 'idle gap')} over {S.duration_words(fold.threshold_s, S.TIME)}"
            caption += f"; {gaps} folded" if on else f"; {gaps} shown to scale"
        self.els["swimlanes-axis"].textContent = caption
        self.els["swimlanes-axis"].setAttribute("title", caption)  # the line may end in an ellipsis

    def toggle_fold(self) -> None:
        """The axis folded or to scale; the address keeps the choice."""
        self.view.fold = not self.view.fold
        self._say_fold()
        self.address.sync()

    # -- what the reader does -------------------------------------------------------------------

    def on_pick(self, pick: Pick) -> None:
        """A span or mark was clicked (or Enter on it): its row in the timeline, its step."""
        ws = self.shown.ws
        if ws is None:
            return
        if pick.seq is not None and 0 <= pick.seq < len(ws.relays):
            self.selection.select(pick.seq, expanded=False)
        elif pick.line is not None:  # a lost block: the step of its line
            marks = self.tl.marks if self.tl else []
            file = next((m.file for m in marks if m.line == pick.line and m.lane == pick.lane), None)
            self.stepper.go_line(file, pick.line)

    def follow(self, seq: int | None, _follow_step: bool = True) -> None:
        """A row was selected (anywhere): its span outlined and brought into the tracks' view."""
        self.selected = seq
        found = self.span_of(seq)
        if found != self.outlined:
            self.outlined = found
            PAGE.op(Op.LANE_SELECT, *(found or (None, None)))

    def span_of(self, seq: int | None) -> tuple[str, int] | None:
        """The span of row ``seq`` as (its track, the seq that opens it), if the tracks hold one."""
        ws = self.shown.ws
        if seq is None or ws is None or self.tl is None or not 0 <= seq < len(ws.relays):
            return None
        lane = ws.relays[seq].lane
        own = self.by_lane.get(lane, [])
        exact = next((s for s in own if seq in (s.seq, s.end_seq)), None)  # a call, its result, a start
        if exact is not None:
            return lane, exact.seq
        bar = next((s for s in own if s.kind == "agent"), None)  # any other row: its agent's bar
        return (lane, bar.seq) if bar is not None else None

    def on_range(self, message: Range) -> None:
        """A range dragged (the timeline keeps the rows inside it), or cleared."""
        tl = self.tl
        if tl is None:
            return
        self.range = None if message.bounds is None else (message.bounds[0] + tl.start, message.bounds[1] + tl.start)
        show(self.els["swimlanes-clear-range"], self.range is not None)
        self.filters.restrict(self.within if self.range is not None else None)

    def within(self, seqs: list[int]) -> list[int]:
        """The rows of ``seqs`` inside the dragged range (all of them when there is none)."""
        if self.range is None or not self.xs:
            return seqs
        a, b = self.range
        xs = self.xs
        return [q for q in seqs if q < len(xs) and a <= xs[q] <= b]


def _run_group(run: newest.WorkflowRun, tracks: list[Element]) -> Element:
    """One Workflow run's tracks together under a header that names the run (its call, its id)."""
    group = h("div", cls="sl-run", attrs={"data-testid": "swimlane-run", "data-run": run.run, "role": "group",
                                          "aria-label": run.label})
    head = h("div", cls="sl-run-head")
    head.append(h("span", run.label, cls="sl-run-label", attrs={"title": run.label, "data-testid": "swimlane-run-label"}))
    if run.call_seq is not None:
        head.append(h("button", f"call #{run.call_seq}", cls="link", attrs={
            "type": "button", "data-action": "goto", "data-target": run.call_seq, "tabindex": -1,
            "title": f"the Workflow call that started {run.run}"}))
    group.append(head, *tracks)
    return group


Parts = tuple[str | None, str]  # a lane's label as shown: (its kind or None, what it does)


def _label_parts(meta: Lane | None, in_run: bool) -> Parts | None:
    """How a lane's label is shown: a run's agent by its task (under its run's header, which names
    the run), a sub-agent of a known kind and task as (``"<kind>: "``, its task); None: as it is."""
    if meta is not None and in_run:
        return None, meta.agent_type or meta.label
    if meta is not None and meta.agent_type and meta.description:
        return f"{meta.agent_type}: ", meta.description
    return None


def _label(label: str, parts: Parts | None, attrs: dict[str, object] | None = None) -> Element:
    """A track's (or card's) label: the whole of it its title; shown as ``parts`` say when they
    match it, the kind in a span of its own that a phone's narrow column leaves out (swimlanes.css)."""
    el = h("div", cls="sl-label", attrs={"title": label, **(attrs or {})})
    kind, what = parts if parts is not None and (parts[0] is None or label == f"{parts[0]}{parts[1]}") else (None, label)
    if kind:
        el.append(h("span", kind, cls="sl-kind"))
    el.append(h("span", what))
    return el


def _missing_card(m: newest.MissingAgent, parts: Parts | None = None) -> Element:
    """A lane card with no track, under the track of the lane that started it (``newest.placed``):
    the sub-agent ran, its transcript is not in the input."""
    card = h("div", cls="sl-track sl-missing", attrs={
        "data-testid": "missing-agent", "data-lane": m.lane, "data-file": m.file, "data-depth": min(m.depth, 6)})
    head = h("div", cls="sl-head-cell")
    head.append(_label(m.label, parts))
    head.append(h("div", "transcript not in the input", cls="sl-lane-figures"))
    note = h("div", cls="sl-missing-note")
    note.append(h("span", f"look for {m.file}", attrs={"title": m.file}))
    if m.spawn_seq is not None:
        note.append(h("button", f"spawned by #{m.spawn_seq}", cls="link", attrs={
            "type": "button", "data-action": "goto", "data-target": m.spawn_seq, "tabindex": -1,
            "title": "the call that started this sub-agent"}))
    card.append(head, note)
    return card


def worth_showing(tl: S.Timeline) -> bool:
    """More than one lane, or a tool call on a wall-clock axis (how long it took): else the view
    would repeat the rows (one lane in line order: its calls are the rows, in the rows' order)."""
    return len(tl.tracks) > 1 or (tl.axis == S.TIME and any(s.kind == "tool" for s in tl.spans))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _clock(seconds: float) -> str:
    """When the run began, for the axis: ``2026-04-18 13:10:51 UTC``."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _lost(fates: Fates | None) -> list[S.Lost]:
    return [S.Lost(b.line, b.file, b.words) for b in fates.lost] if fates is not None else []


def _q(v: float, fig: dict[str, Any]) -> str:
    unit = fig["unit"]
    return S.duration_words(v, fig["axis"]) if unit == "s" else f"{fmt_int(round(v))} {unit}"


def _tokens(t: dict[str, int]) -> str:
    given = t["input_tokens"] + t["cache_read_tokens"] + t["cache_creation_tokens"]
    return f"{fmt_int(given)} in / {fmt_int(t['output_tokens'])} out tokens"


def _figures_line(fig: dict[str, Any]) -> str:
    """The run's figures in a line: where the time went."""
    run = fig["run"]
    parts = [f"wall {_q(run['wall'], fig)}", f"a tool running {_q(run['tools'], fig)}",
             f"waiting on the model {_q(run['model_wait'], fig)}", f"idle {_q(run['idle'], fig)}", _tokens(run["tokens"])]
    if run["agents"]:
        parts.insert(0, _counted(run["agents"], "sub-agent"))
    tools = ", ".join(f"{t['tool']} {t['calls']}× {_q(t['time'], fig)}" for t in run["by_tool"][:4])
    if tools:
        parts.append(f"by tool (calls in parallel add up): {tools}")
    return " · ".join(parts)


def _counted(n: int, noun: str) -> str:
    return S.counted(n, noun, fmt_int)


def _lane_line(lane: dict[str, Any], fig: dict[str, Any]) -> str:
    """A lane's figures, under its label."""
    parts = [_q(lane["wall"], fig), f"tools {_q(lane['tools'], fig)}", f"model {_q(lane['model_wait'], fig)}"]
    if lane["idle"]:
        parts.append(f"idle {_q(lane['idle'], fig)}")
    if lane["status"]:  # a sub-agent's state, as the lanes panel says it ("running, 30 s")
        parts.insert(0, lane["status"])
    return " · ".join(parts)

