"""The view model's lazy trace: a single stream-json input is translated with marks only
(trace.Marks) and each step is made again when looked at. Everything the page reads of steps
and rows must be what the whole trace gives, whatever the order the steps are looked at in."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from _corpus import FIXTURE_STREAM_JSON, ROOT, SEEDS

from relayscope.analysis import Analyzer
from relayscope.translator import STRATEGIES
from relayscope.web import model as M
from relayscope.web.model import Workspace

INPUTS = sorted(FIXTURE_STREAM_JSON.glob("*.jsonl")) + sorted(SEEDS.glob("*.ndjson")) + sorted(
    (ROOT / "static" / "examples").glob("*.*"))


def loaded(data: bytes, strategy: str, lazy: bool) -> Workspace:
    ws = Workspace(lazy_trace=lazy)
    for _ in ws.load(data, strategy=strategy):
        pass
    for _ in ws.run_audit():
        pass
    return ws


def row_fields(ws: Workspace, seq: int) -> tuple[object, ...]:
    r = ws.row(seq)
    return (r.seq, r.type, r.lane, r.summary, r.pair, r.opens_lane, r.back_to, r.fp, r.fp_color, r.fp_label,
            r.mark, r.partial, r.fragments, r.joined)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_lazy_steps_and_rows_are_the_whole_traces(path: Path, strategy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # a small window, so that steps are made again in several translations, forward and back
    monkeypatch.setattr(M, "REPLAY_BACK", 2)
    monkeypatch.setattr(M, "REPLAY_AHEAD", 3)
    monkeypatch.setattr(M, "STEPS_KEPT", 4)
    data = path.read_bytes()
    lazy, eager = loaded(data, strategy, True), loaded(data, strategy, False)
    assert (lazy._marks is not None) == (lazy.format == "stream-json")
    n = eager.step_count()
    assert lazy.step_count() == n > 0
    order = [*range(n), *reversed(range(max(0, n - 40), n))]  # back: a translation again from the start
    order += random.Random(path.name).sample(range(n), min(n, 40))
    for i in order:
        assert lazy.step(i) == eager.step(i), i
    assert lazy.step(-1) == eager.step(-1)
    for seq in range(len(eager.relays)):
        assert row_fields(lazy, seq) == row_fields(eager, seq), seq
        assert lazy.step_of_seq(seq) == eager.step_of_seq(seq)
    for s in eager.trace:
        assert lazy.step_of_line(s.file, s.line) == eager.step_of_line(s.file, s.line)
    for i in range(n):
        assert lazy.lost_rows_of_step(i) == eager.lost_rows_of_step(i)
    assert lazy.fp_legend() == eager.fp_legend()
    assert lazy.fates == eager.fates
    assert lazy.trace_json() == eager.trace_json()
    assert lazy.trace == eager.trace


def test_marks_are_the_traces_fields() -> None:
    """What the marks keep of each step is what the trace says of it, relay numbering included."""
    for path in INPUTS:
        for strategy in STRATEGIES:
            lines = path.read_bytes().split(b"\n")
            marked, traced = Analyzer(strategy, marks=True), Analyzer(strategy, trace=True)
            for a in (marked, traced):
                for line in lines:
                    a.feed_line(line)
                a.finish()
            assert marked.relays == traced.relays
            if marked.format != "stream-json":  # the others keep the whole trace
                assert marked.marks is None and marked.trace == traced.trace
                continue
            m = marked.marks
            assert m is not None and not marked.trace
            steps = traced.trace
            assert len(m) == len(steps)
            line, lane, fp, reset, _ = m.columns()
            for i, s in enumerate(steps):
                assert (line[i], m.file, lane[i], fp[i], reset[i]) == (s.line, s.file, s.lane, s.fp, s.reset)
                assert list(m.seqs(i)) == s.seqs


@pytest.mark.parametrize("name", ["fleet-parallel.sse", "real-session.jsonl"])
def test_other_formats_keep_the_whole_trace(name: str) -> None:
    ws = loaded((ROOT / "static" / "examples" / name).read_bytes(), "lineage", True)
    assert ws.format != "stream-json" and ws._marks is None and ws._trace
