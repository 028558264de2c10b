"""stepping: the steps of a translation, one per input line, and the view of one.

Job: every step as the page steps through it: from the whole trace, or (a big single stream-json
input, ``lazy_trace``) from the marks, made again around the one looked at from the nearest
checkpoint (``checkpoints``); which step a relay or a line belongs to; fingerprint marks.
Must not: load or index the input (``loading`` does), or know rows, lanes or search.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any, Final

import msgspec

from .. import fates as F
from .. import trace as T
from ..analysis import SLICE_BYTES, Analyzer
from ..translator import Translator
from .checkpoints import Replay
from .workstate import Loaded

# Steps made again around the one a reader looks at (``Steps._replay_around``), before and
# after it; and how many are kept before they are made again on demand.
REPLAY_BACK: Final = 64
REPLAY_AHEAD: Final = 64
STEPS_KEPT: Final = 4096
FP_COLORS: Final = 12
_any: Final = msgspec.json.Decoder()


class StepView(msgspec.Struct, frozen=True):
    index: int
    file: str | None
    line: int
    kind: str
    lane: str | None
    decision: str
    reason: str
    reset: str | None
    fp: str | None
    prev_fp: str | None
    fp_changed: bool
    before: Any
    after: Any
    seqs: list[int]
    raw: str
    content: list[str]
    pointer_before: int | None
    pointer_after: int | None
    blocks: list[tuple[int, str, str, str]]
    note: str | None
    fates: list[F.BlockFate] = msgspec.field(default_factory=list)  # of the blocks not emitted
    fp_mark: tuple[int, str] | None = None  # colour and label of fp, as in the rows
    prev_fp_mark: tuple[int, str] | None = None


class Steps(Loaded):
    """The step-through: a step whole, and the lookups between steps, relays and lines."""


    @property
    def trace(self) -> list[T.TraceStep]:
        """Every step of the translation shown. Kept as marks (``lazy_trace``), the whole trace
        is made when first asked for: by one more translation of the input, with the trace on."""
        if self._trace is None:
            assert self._input is not None and self._input.single
            a = Analyzer(self.strategy, self._input.fmt, trace=True, keep=False)
            for _ in a.feed_steps(self._input.lines, SLICE_BYTES):
                pass
            self._trace = a.trace
        return self._trace

    @trace.setter
    def trace(self, steps: list[T.TraceStep]) -> None:
        self._trace, self._marks = steps, None

    def _step(self, i: int) -> T.TraceStep:
        """Step ``i`` whole: from the trace, or else made again around it (``_replay_around``)."""
        if self._trace is not None or self._marks is None:
            return self.trace[i]
        n = len(self._marks)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"step {i} of {n}")
        found = self._step_cache.get(i)
        if found is None:
            self._replay_around(i)
            found = self._step_cache[i]
        return found

    def _replay_around(self, i: int) -> None:
        """Translate again up to step ``i`` without the trace, then the steps from REPLAY_BACK
        before it to REPLAY_AHEAD after it with the trace on, and keep those: a reader steps
        through neighbours. The translation starts from the last checkpoint at or before
        REPLAY_BACK steps before ``i`` (``checkpoints.Checkpoints``; the first line when there is none),
        unless the one already under way stands between that checkpoint and ``i``: then it goes
        on. Marks are kept in step with lines (one step per line, then one at the end), which is
        what makes this exact."""
        assert self._input is not None and self._marks is not None
        lines = self._input.lines
        start, state = self._checkpoints.before(max(i - REPLAY_BACK, 0)) if self._checkpoints else (0, None)
        rp = self._replay
        if rp is None or rp.next > i or rp.next < start:
            fresh = Analyzer(self.strategy, "stream-json", marks=True, keep=False).translator
            assert isinstance(fresh, Translator)
            if state is not None:  # into a translator of its own: the checkpoint stays as it is
                fresh.restore(state)
            rp = self._replay = Replay(fresh, start)
        t = rp.translator
        lo, hi = max(i - REPLAY_BACK, rp.next), min(i + REPLAY_AHEAD + 1, len(self._marks))
        if len(self._step_cache) > STEPS_KEPT:
            self._step_cache = {}
        feed = t.feed_line
        for k in range(rp.next, lo):
            feed(lines[k])
        t.tracing = True
        try:
            for k in range(lo, min(hi, len(lines))):
                feed(lines[k])
                self._step_cache[k] = t.trace[-1]
            rp.next = min(hi, len(lines))
            if hi > len(lines):  # the step at the end of input
                t.finish()
                assert len(t.trace) == len(lines) - lo + 1, "no step at the end of input"
                self._step_cache[len(lines)] = t.trace[-1]
                rp.next = hi
        finally:
            t.tracing = False
            t.trace.clear()
            if t.marks is not None:  # nobody reads this translation's marks: the load's are kept
                t.marks.clear()

    @property
    def _step_index(self) -> dict[tuple[str | None, int], int]:
        """(file, line) -> the first step of that line; made when first needed from marks."""
        if self._step_index_ is None:
            keys = list(zip(self._st_file, self._st_line, strict=True))
            self._step_index_ = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1), strict=True))  # first wins
        return self._step_index_

    def _step_at(self, seq: int) -> int:
        """The step that emitted relay ``seq``."""
        if self._marks is None:
            return self._step_of_seq[seq]
        ends = self._st_end
        i = bisect.bisect_right(ends, seq)  # the first step ending after seq
        return i if i < len(ends) else 0

    def _add_step(self, s: T.TraceStep) -> None:
        self._st_line.append(s.line)
        self._st_file.append(s.file)
        self._st_lane.append(s.lane)
        self._st_fp.append(s.fp)
        self._st_reset.append(s.reset)

    def steps_of(self, seqs: Iterable[int], lane: str = "") -> list[int]:
        """The steps that emitted any of ``seqs`` and, given a ``lane``, every step of that lane:
        the lines a reader steps through when only the rows shown count."""
        out = {self._step_at(q) for q in seqs}
        if lane:
            out.update(i for i, x in enumerate(self._st_lane) if x == lane)
        return sorted(out)

    def step_count(self) -> int:
        return len(self._st_line)

    def step_of_seq(self, seq: int) -> int:
        return self._step_at(seq)

    def step_of_line(self, file: str | None, line: int) -> int:
        found = self._step_index.get((file, line))
        if found is not None:
            return found
        return next((i for i, (n, f) in enumerate(zip(self._st_line, self._st_file, strict=True))
                     if n >= line and (file is None or f == file)), 0)

    def step(self, i: int) -> StepView:
        s = self._step(i)
        raw = self.raw_line(s.file, s.line)
        ints = isinstance(s.before, int) or isinstance(s.after, int)
        return StepView(
            index=i, file=s.file, line=s.line, kind=s.kind, lane=s.lane, decision=s.decision,
            reason=s.reason, reset=s.reset, fp=s.fp, prev_fp=s.prev_fp,
            fp_changed=s.prev_fp is not None and s.fp is not None and s.fp != s.prev_fp,
            before=s.before, after=s.after, seqs=list(s.seqs), raw=raw, content=content_keys(raw),
            pointer_before=s.before if ints else None, pointer_after=s.after if ints else None,
            blocks=[(b.index, b.key, b.action, b.reason) for b in s.blocks], note=s.note,
            fates=F.of_step(self.fates, s, raw) if self.fates is not None else [],
            fp_mark=self.fp_mark(s.fp), prev_fp_mark=self.fp_mark(s.prev_fp),
        )

    def lost_rows_of_step(self, i: int) -> set[int]:
        if self.fates is None or not self.fates.lost:
            return set()
        return {b.row for b in self.fates.lost_on(self._st_file[i], self._st_line[i])}

    def fp_mark(self, fp: str | None) -> tuple[int, str] | None:
        """Colour index and label of a fingerprint: colours in first-seen order, and once the
        palette is used up a number too (1-based first-seen ordinal)."""
        if fp is None:
            return None
        k = self._fp_order.get(fp)
        if k is None:
            return None
        return k % FP_COLORS, "●" if k < FP_COLORS else str(k + 1)

    def fp_legend(self) -> list[tuple[str, int, str]]:
        """(fingerprint, colour, label) in first-seen order."""
        return [(fp, k % FP_COLORS, "●" if k < FP_COLORS else str(k + 1)) for fp, k in self._fp_order.items()]

    def trace_json(self) -> bytes:
        return T.steps_to_json(self.trace)


def content_keys(raw: str) -> list[str]:
    """The content array of a raw input line, as short block keys (``text:Hello…``)."""
    try:
        obj = _any.decode(raw) if raw.strip() else None
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return []
    if not isinstance(obj, dict):
        return []
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    keys = []
    for b in content:
        if not isinstance(b, dict):
            keys.append(str(b)[:40])
            continue
        kind = b.get("type")
        if kind == "tool_use":
            keys.append(f"tool_use:{b.get('id')}")
        elif kind == "tool_result":
            keys.append(f"tool_result:{b.get('tool_use_id')}")
        else:
            text = b.get("thinking") if kind == "thinking" and b.get("thinking") is not None else b.get("text")
            text = " ".join(str(text or "").split())
            keys.append(f"{kind}:{text[:40]}{'…' if len(text) > 40 else ''}")
    return keys
