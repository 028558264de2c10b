"""``relayscope trace``: every input line's de-dup decision and each block's fate, as a table
or JSON (``Table``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import msgspec

from ... import relay as R
from ...analysis import Analyzer
from ...fates import Tracker
from ...inputs import Window
from ...multifile import translate_files
from ...textout import Names, TraceText, spill_note
from ...trace import CONSUMED, TraceStep
from ..errors import INPUT_ERRORS, OK
from ..gathering import gather, redacted_files
from ..notices import report_drift, report_drift_files
from ..reading import lines_of, many, named, one
from ..reports import (
    report,
    report_files,
    report_problems,
    report_redaction,
    report_warnings,
    unlisted,
)
from ..state import current as _run
from ..terminal import json_out, lane_matches, stdout, terminal_width, use_color
from ..text import names_of, where_width
from ..writers import Held, write_out

if TYPE_CHECKING:
    import argparse


def cmd_trace(args: argparse.Namespace) -> int:
    names = names_of(args.file)
    items = named(args.file)
    if many(items):
        files, problems = gather(items)
        files = redacted_files(args, files)
        failed = report_problems(problems)
        results = translate_files(files, args.strategy, trace=True, fmt=args.input_format)
        relays = [r for result in results for r in result.relays]
        steps = [step for r in results for step in r.trace]
        split: dict[str, list[bytes]] = {}

        def raw(step: TraceStep) -> bytes:
            lines = split.setdefault(step.file or "", files.get(step.file or "", b"").split(b"\n"))
            return lines[step.line - 1] if 0 < step.line <= len(lines) else b""

        table = Table(args, names, list(files))
        write_out(table.render(steps, relays, raw))
        report_redaction(args)
        for r in results:
            report_files(r.errors)
        report_drift_files(files, results)
        return INPUT_ERRORS if failed or any(r.errors for r in results) else OK
    source = one(items[0])
    a = Analyzer(args.strategy, args.input_format, trace=True, keep=False, drift=True)
    table = Table(args, names, None)
    out = Held(stdout(), source.live, table.end)  # a pipe: each step out as its line comes
    lines = lines_of(source, args)
    raws = Window()
    for line in lines:
        raws.add(line)
        relays = a.feed_line(line)
        steps = a.trace
        if steps or relays:  # written as they come: a line is let go once its step is out
            out.put(table.part(steps, relays, raws.get))
            if steps:
                raws.keep_from(table.oldest or steps[-1].line)
                del steps[:]
    relays = a.finish()  # first: an input whose format nothing proved has its steps only now
    out.put(table.part(a.trace, relays, raws.get))
    out.close()
    report_redaction(args)
    report_warnings(_run.name or "", a.warnings)
    report(_run.name or "", a.errors)
    report_drift(_run.name or "", a.drift)
    unlisted(_run.name or "", a.translator)
    return INPUT_ERRORS if a.errors else OK


class Table:
    """``trace``'s output: the table (``textout.TraceText``, each block's fate from
    ``fates.Tracker`` as the relays up to its line say) or JSON; ``--lane`` keeps one lane's
    steps. ``--follow`` writes through it a few steps at a time: the same bytes."""

    def __init__(self, args: argparse.Namespace, names: Names, files: list[str] | None) -> None:
        self.encode, self.lane_start, self.consumed = msgspec.json.encode, R.LaneStart, CONSUMED
        self.json, self.lane = bool(args.json), args.lane
        self.text = TraceText(terminal_width(), use_color(args.color, sys.stdout), names, where_width(names, files))
        self.tracker = Tracker()
        self.inputs: list[str] = files or []  # a spilled tool output's file is looked for among them
        self.count = 0  # steps written
        self.waiting: list[R.Relay] = []  # relays after the last step written: the next steps' to feed
        self.unsettled: list[TraceStep] = []  # steps of an event still being read (SSE): worded when it ends
        self._raw: Any = None

    def render(self, steps: list[TraceStep], relays: list[R.Relay], raw: Any) -> bytes:
        """The whole output of a finished input."""
        return self.part(steps, relays, raw) + self.end()

    def part(self, steps: list[TraceStep], relays: list[R.Relay], raw: Any) -> bytes:
        """Steps (and the relays they emitted, in seq order), after those written before. A relay
        after the last step waits for the steps that come next, as it would in the whole input."""
        if self.waiting:
            relays, self.waiting = self.waiting + relays, []
        if self.unsettled:
            steps, self.unsettled = self.unsettled + steps, []
        cut = len(steps)
        while cut and steps[cut - 1].decision == self.consumed:
            cut -= 1
        if cut < len(steps):  # an SSE event's lines get their reason when the event ends
            steps, self.unsettled = steps[:cut], steps[cut:]
        self._raw = raw
        return self._write(steps, relays, raw)

    def _write(self, steps: list[TraceStep], relays: list[R.Relay], raw: Any) -> bytes:
        out: list[bytes] = []
        at = 0
        for step in steps:
            top = max(step.seqs, default=-1)
            while at < len(relays) and relays[at].seq <= top:
                self._relay(relays[at])
                at += 1
            if not lane_matches(self.lane, step.lane, self.text.lane(step.lane)[0]):
                continue
            if self.json:
                out.append((b"[" if self.count == 0 else b",") + json_out(self.encode(step)))
            else:
                if self.count == 0:
                    out.append((self.text.header() + "\n").encode())
                fates = self.tracker.blocks(step, raw(step)) if raw is not None else None
                out.append((self.text.step(step, fates) + "\n").encode("utf-8", "backslashreplace"))
            self.count += 1
        self.waiting = relays[at:]
        self.tracker.done()
        return b"".join(out)

    def _relay(self, relay: R.Relay) -> None:
        self.tracker.feed((relay,))
        if not self.json and isinstance(relay, R.ToolResult) and (note := spill_note(relay, self.inputs, named=True)):
            self.text.spills[relay.seq] = note.removeprefix(" · ")
        if isinstance(relay, self.lane_start) and relay.label:
            self.text.labels[relay.lane] = relay.label

    @property
    def oldest(self) -> int | None:
        """The first line of the steps not yet written, if any."""
        return self.unsettled[0].line if self.unsettled else None

    def end(self) -> bytes:
        """What is left (an event the input ended in) and the output's end."""
        left, self.unsettled = self.unsettled, []
        out = self._write(left, self.waiting, self._raw) if left else b""
        if self.json:
            return out + (b"]\n" if self.count else b"[]\n")
        return out + (b"" if self.count else (self.text.header() + "\n").encode())
