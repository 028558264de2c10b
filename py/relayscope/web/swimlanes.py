"""swimlanes: the agents in time, above the timeline (issue 20). The worker's half.

Theory of operation
-------------------
The core (``spans.build``) makes the timeline of what the workspace shows: one track per lane,
main on top and each sub-agent under the lane that spawned it, the agent span, the tool spans in
rows, the marks. This module writes it into the page once per translation, as data attributes
of one element per track (``[data-testid=swimlane-track][data-lane=ID]``, labelled as the lanes
panel labels the lane): ``data-spans`` and ``data-marks``, compact JSON of numbers, names and
labels (text the page only ever sets as ``textContent``). The page's own module
(``static/js/swimlanes.mjs``) draws them on a canvas per track and owns zoom, pan, hover and the
keyboard: those never wait for the worker. What the reader picks comes back through two hidden
inputs the page's ops already sync: ``#swimlanes-pick`` (a span or mark: select its row in the
timeline and its line in the stepper) and ``#swimlanes-range`` (a dragged range: the timeline
keeps the rows inside it, :meth:`Swimlanes.within`). The view shows only when it has something
to show the rows do not (:func:`worth_showing`): lanes side by side (more than one), or tool calls
in wall-clock time (their durations). One lane in line order is the rows again, drawn as bars,
and one more Tab stop on the way to them.

The exports (their buttons are in the "Share and export" panel, with the other downloads) are the
core's (``export.runs`` on the input's own bytes, or with "Redact secrets" on, the redacted bytes
the switch keeps), so they are byte for byte the CLI's ``export``, or ``export --redact``.

Must not: draw (the page does), hold the page's zoom, or parse input beyond ``spans``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

from .. import export
from .. import spans as S
from ..fates import Fates
from .dom import clear, download, fmt_int, h, show
from .remote import DOCUMENT as document

KINDS: Final = {"agent": 0, "tool": 1}
MARKS: Final = {"model": 0, "lost": 1, "error": 2}
IDS: Final = ("swimlanes", "swimlanes-axis", "swimlanes-figures", "swimlanes-tracks", "swimlanes-pick",
               "swimlanes-range", "swimlanes-clear-range", "export-chrome-trace", "export-otlp")
PART_NUMBERS: Final = 60_000  # numbers per data attribute (10,000 spans; 12,000 marks)
PART_CHARS: Final = 1 << 20  # attribute text per message to the page
LABELS_UP_TO: Final = 20_000  # spans in all: past this, a span's tooltip gives its name, not its key input
MIME: Final = "application/json"


def _num(x: float) -> float | int:
    r = round(x, 3)
    return int(r) if r == int(r) else r


class Swimlanes:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.els = {name: document.getElementById(name) for name in IDS}
        self.tl: S.Timeline | None = None
        self.xs: list[float] = []
        self.range: tuple[float, float] | None = None
        self.version = 0

    def wire(self, on: Callable[[Any, str, Callable[[Any], Any]], None]) -> None:
        """Its handlers, through the app's ``on`` (one error path for every handler)."""
        e = self.els
        on(e["swimlanes-pick"], "change", self.on_pick)
        on(e["swimlanes-range"], "change", self.on_range)
        on(e["swimlanes-clear-range"], "click", lambda _: self.clear_range())
        on(e["export-chrome-trace"], "click", lambda _: self.export("chrome-trace"))
        on(e["export-otlp"], "click", lambda _: self.export("otlp"))

    # -- drawing the data ---------------------------------------------------------------------

    async def show(self, ws: Any, labels: dict[str, str], colors: dict[str, int]) -> None:
        """The timeline of what ``ws`` shows, written into the page's tracks: the tracks first,
        then their data in parts of about ``PART_CHARS`` with a pause between, so that no message
        the page applies is big (a 600 MB run writes megabytes), then ``data-version``."""
        section = self.els["swimlanes"]
        self.range = None
        show(self.els["swimlanes-clear-range"], False)

        def stamps(file: str | None, line: int) -> float | None:
            stamp = ws.line_time(file, line)
            return S.parse(stamp) if stamp else None
        relays = ws.relays
        began = time.perf_counter()
        steps = S.build_steps(relays, stamps, _lost(ws.fates))
        while True:  # a slice at a time: the worker answers the reader meanwhile
            try:
                next(steps)
            except StopIteration as done:
                tl = done.value
                break
            await asyncio.sleep(0)
            if self.app.ws is not ws and self.app.ws is not None:
                return  # another input came meanwhile: its own show() draws
        self.tl, self.xs = tl, S.positions(relays, tl.axis, stamps)
        box = self.els["swimlanes-tracks"]
        clear(box)
        if not worth_showing(tl):
            show(section, False)
            return
        with_labels = len(tl.spans) <= LABELS_UP_TO
        fig = S.figures(tl, relays, stamps)
        lane_figs = {ln["lane"]: ln for ln in fig["lanes"]}
        origin = tl.start
        by_lane: dict[str, list[S.Span]] = {}
        for sp in tl.spans:
            by_lane.setdefault(sp.lane, []).append(sp)
        marks_of: dict[str, list[S.Mark]] = {}
        for mk in tl.marks:
            marks_of.setdefault(mk.lane, []).append(mk)
        pending: list[tuple[Any, str, list[Any]]] = []  # (element, attribute stem, numbers)
        for tr in tl.tracks:
            label = labels.get(tr.id, tr.label)
            # by row, then start: the page finds each row's run without sorting
            own = sorted(by_lane.get(tr.id, []), key=lambda s: (0 if s.kind == "agent" else s.row + 1, s.start, s.seq))
            names: dict[str, int] = {}
            data: list[float | int] = []
            texts: list[str | None] = []
            for s in own:
                k = names.setdefault(s.name if s.kind == "tool" else label, len(names))
                data += [_num(s.start - origin), _num(s.end - origin), s.row + (1 if s.kind == "tool" else 0),
                         KINDS[s.kind] + (2 if s.error else 0) + (4 if s.open else 0), s.seq, k]
                texts.append(s.label if with_labels and s.kind == "tool" else None)
            mnames: dict[str, int] = {}
            mdata: list[Any] = []
            for m in marks_of.get(tr.id, []):
                mdata += [_num(m.at - origin), MARKS[m.kind], -1 if m.seq is None else m.seq, m.line,
                          mnames.setdefault(m.text, len(mnames))]
            track = h("div", cls=f"sl-track lane-c{colors.get(tr.id, 0)}", attrs={
                "data-testid": "swimlane-track", "data-lane": tr.id, "data-depth": min(tr.depth, 6),
                "data-rows": 1 + tr.rows, "data-parent": tr.parent or None,
            })
            figures = lane_figs.get(tr.id)
            head = h("div", cls="sl-head-cell")
            head.append(h("div", label, cls="sl-label", attrs={"title": label, "data-testid": "swimlane-label"}))
            if figures is not None:
                head.append(h("div", _lane_line(figures, fig), cls="sl-lane-figures",
                              attrs={"data-testid": "swimlane-lane-figures"}))
            track.append(head)
            lane_box = h("div", cls="sl-lane", attrs={
                "tabindex": 0, "role": "group", "data-testid": "swimlane-canvas",
                "aria-label": f"{label}: {len(own) - 1} tool call(s)",  # its keys: swimlanes.mjs says them
            })
            lane_box.setAttribute("data-spans", _json({"names": list(names), "labels": texts, "n": len(own),
                                                       "parts": -(-len(data) // PART_NUMBERS)}))
            lane_box.setAttribute("data-marks", _json({"texts": list(mnames), "n": len(mdata) // 5,
                                                       "parts": -(-len(mdata) // PART_NUMBERS)}))
            pending += [(lane_box, "data-spans", data), (lane_box, "data-marks", mdata)]
            track.append(lane_box)
            box.append(track)
        self.els["swimlanes-axis"].textContent = f"x: {tl.axis_words}" + (
            f", from {_clock(tl.start)}" if tl.axis == S.TIME else " (the input has no timestamps)")
        self.els["swimlanes-figures"].textContent = _figures_line(fig)
        section.setAttribute("data-axis", tl.axis)
        section.setAttribute("data-span", str(_num(tl.end - tl.start)))
        section.setAttribute("data-origin", str(_num(tl.start)))  # x of the run's start (its first line)
        section.setAttribute("data-unit", "s" if tl.axis == S.TIME else "line" if tl.axis == S.LINE else "relay")
        # the worker's time for all of it: spans, figures, the data (bench/swimlanes_bench.py)
        section.setAttribute("data-build-ms", f"{(time.perf_counter() - began) * 1000:.0f}")
        written = 0
        for el, stem, numbers in pending:
            for k in range(0, len(numbers), PART_NUMBERS):
                part = _json(numbers[k:k + PART_NUMBERS])
                el.setAttribute(f"{stem}-{k // PART_NUMBERS}", part)
                written += len(part)
                if written >= PART_CHARS:  # this turn's ops go to the page as one message: end it
                    written = 0
                    await asyncio.sleep(0)
        self.version += 1
        section.setAttribute("data-version", str(self.version))  # last: the page loads on it
        show(section)

    # -- what the reader does -------------------------------------------------------------------

    def on_pick(self, _event: Any) -> None:
        """A span or mark was clicked (or Enter on it): its row in the timeline, its step."""
        app, ws = self.app, self.app.ws
        raw = str(self.els["swimlanes-pick"].value or "")
        if ws is None or not raw:
            return
        try:
            seq, line, lane = json.loads(raw)
        except (ValueError, TypeError):
            return
        if isinstance(seq, int) and 0 <= seq < len(ws.relays):
            app.select_row(seq, expanded=False)
        elif isinstance(line, int):  # a lost block: the step of its line
            file = next((m.file for m in (self.tl.marks if self.tl else []) if m.line == line and m.lane == lane), None)
            app.go_step(ws.step_of_line(file, line))

    def on_range(self, _event: Any) -> None:
        raw = str(self.els["swimlanes-range"].value or "").split()
        tl = self.tl
        if tl is None:
            return
        try:
            a, b = (float(raw[0]) + tl.start, float(raw[1]) + tl.start) if len(raw) == 2 else (0.0, 0.0)
        except ValueError:
            return
        self.range = (min(a, b), max(a, b)) if len(raw) == 2 else None
        show(self.els["swimlanes-clear-range"], self.range is not None)
        self.app.filter_rows()

    def clear_range(self) -> None:
        self.els["swimlanes-range"].value = ""
        self.range = None
        show(self.els["swimlanes-clear-range"], False)
        self.app.filter_rows()

    def within(self, seqs: list[int]) -> list[int]:
        """The rows of ``seqs`` inside the dragged range (all of them when there is none)."""
        if self.range is None or not self.xs:
            return seqs
        a, b = self.range
        xs = self.xs
        return [q for q in seqs if q < len(xs) and a <= xs[q] <= b]

    def export(self, fmt: str) -> None:
        ws = self.app.ws
        if ws is None:
            return
        parts = self.app.redaction.source_parts(ws)  # "Redact secrets" on: as `export --redact` reads it
        source: bytes | dict[str, bytes] = parts[0][1] if len(parts) == 1 and parts[0][0] is None else {
            str(k): v for k, v in parts}
        parts_out: list[bytes] = []
        export.write(source, fmt, parts_out.append, ws.strategy)  # the CLI's own writer: the same bytes
        data = b"".join(parts_out)
        base = (ws.name or "relayscope").rstrip("/").rsplit("/", 1)[-1].split(" ", 1)[0] or "relayscope"
        stem = base.rsplit(".", 1)[0] if "." in base else base
        download(f"{stem}.{ws.strategy}.{'trace' if fmt == 'chrome-trace' else 'otlp'}.json", data, MIME)


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
        parts.insert(0, f"{run['agents']} sub-agent(s)")
    tools = ", ".join(f"{t['tool']} {t['calls']}× {_q(t['time'], fig)}" for t in run["by_tool"][:4])
    if tools:
        parts.append(f"by tool (calls in parallel add up): {tools}")
    return " · ".join(parts)


def _lane_line(lane: dict[str, Any], fig: dict[str, Any]) -> str:
    """A lane's figures, under its label."""
    parts = [_q(lane["wall"], fig), f"tools {_q(lane['tools'], fig)}", f"model {_q(lane['model_wait'], fig)}"]
    if lane["idle"]:
        parts.append(f"idle {_q(lane['idle'], fig)}")
    return " · ".join(parts)

