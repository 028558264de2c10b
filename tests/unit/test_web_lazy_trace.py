"""The view model's lazy trace: a single stream-json input is translated with marks only
(trace.Marks) and each step is made again when looked at, from the nearest checkpoint of the
translator the load took. Everything the page reads of steps and rows must be what the whole trace
gives, whatever the order the steps are looked at in, and a jump anywhere translates again only a
bounded stretch of the input."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from _corpus import FIXTURE_STREAM_JSON, ROOT, SEEDS

from relayscope.analysis import Analyzer
from relayscope.translator import STRATEGIES, Translator
from relayscope.web import checkpoints, stepping
from relayscope.web.model import Workspace

INPUTS = sorted(FIXTURE_STREAM_JSON.glob("*.jsonl")) + sorted(SEEDS.glob("*.ndjson")) + sorted(
    (ROOT / "static" / "examples").glob("*.*"))


def loaded(data: bytes, strategy: str, lazy: bool, checkpoint_bytes: int = 0) -> Workspace:
    ws = Workspace(lazy_trace=lazy, checkpoint_bytes=checkpoint_bytes)
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
    monkeypatch.setattr(stepping, "REPLAY_BACK", 2)
    monkeypatch.setattr(stepping, "REPLAY_AHEAD", 3)
    monkeypatch.setattr(stepping, "STEPS_KEPT", 4)
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


STREAM_JSON = [p for p in INPUTS if p.suffix in (".jsonl", ".ndjson") and p.name != "real-session.jsonl"]


class FedLines:
    """A spy on Translator.feed_line: what each translation fed, and whether with the trace on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.fed: list[tuple[int, bool]] = []  # (bytes, tracing)
        feed = Translator.feed_line

        def spy(t: Translator, text: str | bytes) -> object:
            self.fed.append((len(text), t.tracing))
            return feed(t, text)

        monkeypatch.setattr(Translator, "feed_line", spy)

    def take(self) -> tuple[int, int]:
        """Bytes fed with the trace off, lines fed with it on, since the last call."""
        fed, self.fed = self.fed, []
        return sum(n for n, tracing in fed if not tracing), sum(1 for _, tracing in fed if tracing)


def jumps(n: int, seed: str) -> list[int]:
    """Every step once in a random (seeded) order, then far jumps back and forth between the ends."""
    order = random.Random(seed).sample(range(n), n)
    return order + [k for pair in zip(range(n), reversed(range(n)), strict=True) for k in pair][: 2 * min(n, 20)]


def far_jumps_are_exact_and_bounded(lazy: Workspace, eager: Workspace, data: bytes, spacing: int,
                                    seed: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cps = lazy._checkpoints
    assert cps is not None and lazy._marks is not None
    lines = data.split(b"\n")
    if len(lines) > 8:
        assert len(cps.lines) >= 3, "the input crosses several checkpoints"
    bound = 2 * spacing + max(map(len, lines))
    spy = FedLines(monkeypatch)
    n = eager.step_count()
    for i in jumps(n, seed):
        assert lazy.step(i) == eager.step(i), i
        untraced, traced = spy.take()
        assert untraced <= bound, (i, untraced, bound)
        assert traced <= stepping.REPLAY_BACK + stepping.REPLAY_AHEAD + 1


@pytest.fixture
def small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stepping, "REPLAY_BACK", 2)
    monkeypatch.setattr(stepping, "REPLAY_AHEAD", 3)
    monkeypatch.setattr(stepping, "STEPS_KEPT", 0)  # every step outside the last window is made again
    monkeypatch.setattr(checkpoints, "CHECKPOINT_BYTES_PER_ENTRY", 0)  # spaced by bytes only, to test the bound


@pytest.mark.usefixtures("small_windows")
@pytest.mark.parametrize("path", STREAM_JSON, ids=lambda p: p.name)
@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_far_jumps_start_from_the_nearest_checkpoint(path: Path, strategy: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Checkpoints every ~1/30 of the input: every step made again from one of them is the whole
    trace's step, whatever the order, and no jump translates more than the stretch between two
    checkpoints (2 x spacing + the longest line, as the load only stops between slices) with the
    trace off, and the window around the step with it on."""
    data = path.read_bytes()
    spacing = max(len(data) // 30, 64)
    lazy, eager = loaded(data, strategy, True, spacing), loaded(data, strategy, False)
    far_jumps_are_exact_and_bounded(lazy, eager, data, spacing, path.name, monkeypatch)


@pytest.mark.usefixtures("small_windows")
@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_a_rerun_takes_its_own_checkpoints(strategy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another strategy translates the input again (``rerun``), with checkpoints of its own."""
    data = (ROOT / "static" / "examples" / "real-subagents.jsonl").read_bytes()
    spacing = len(data) // 30
    other = next(s for s in STRATEGIES if s != strategy)
    lazy, eager = loaded(data, other, True, spacing), loaded(data, strategy, False)
    for _ in lazy.rerun(strategy):
        pass
    far_jumps_are_exact_and_bounded(lazy, eager, data, spacing, strategy, monkeypatch)


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_a_restored_checkpoint_shares_nothing(strategy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step made again from a checkpoint, then one before it (from an earlier checkpoint), then
    the first again, from the same checkpoint: the same steps each time, so the translation that
    went on from a checkpoint changed nothing the checkpoint holds (nor the load's translator, nor
    a checkpoint it shares messages with)."""
    monkeypatch.setattr(stepping, "REPLAY_BACK", 1)
    monkeypatch.setattr(stepping, "REPLAY_AHEAD", 1)
    monkeypatch.setattr(stepping, "STEPS_KEPT", 0)
    for path in STREAM_JSON:
        data = path.read_bytes()
        lazy, eager = loaded(data, strategy, True, max(len(data) // 20, 32)), loaded(data, strategy, False)
        n = eager.step_count()
        for far in range(n - 1, 5, -max(1, n // 7)):
            for i in (far, far // 2, far, far - 3, far):
                assert lazy.step(i) == eager.step(i), (path.name, far, i)


def test_checkpoints_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past CHECKPOINTS_KEPT (or CHECKPOINT_ENTRIES entries), every other checkpoint goes and the
    spacing doubles; steps are still exact."""
    monkeypatch.setattr(checkpoints, "CHECKPOINTS_KEPT", 4)
    monkeypatch.setattr(checkpoints, "CHECKPOINT_BYTES_PER_ENTRY", 0)
    path = ROOT / "static" / "examples" / "real-subagents.jsonl"
    data = path.read_bytes()
    lazy, eager = loaded(data, "lineage", True, 1000), loaded(data, "lineage", False)
    cps = lazy._checkpoints
    assert cps is not None and 2 <= len(cps.lines) <= 4 and cps.spacing >= 8 * 1000
    for i in jumps(eager.step_count(), "bounded"):
        assert lazy.step(i) == eager.step(i), i
    monkeypatch.setattr(checkpoints, "CHECKPOINTS_KEPT", 512)
    monkeypatch.setattr(checkpoints, "CHECKPOINT_ENTRIES", 50)
    lazy = loaded(data, "lineage", True, 1000)
    cps = lazy._checkpoints
    assert cps is not None and (sum(cps.sizes) <= 50 or len(cps.lines) == 1) and len(cps.lines) < 40


def test_a_big_state_spaces_its_checkpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    """Taking a checkpoint costs its entries: the next one waits CHECKPOINT_BYTES_PER_ENTRY input
    bytes per entry, so that taking them stays a small part of the load."""
    data = (ROOT / "static" / "examples" / "real-subagents.jsonl").read_bytes()
    monkeypatch.setattr(checkpoints, "CHECKPOINT_BYTES_PER_ENTRY", 0)
    plain = loaded(data, "lineage", True, 1000)._checkpoints
    monkeypatch.setattr(checkpoints, "CHECKPOINT_BYTES_PER_ENTRY", 10_000)
    spaced = loaded(data, "lineage", True, 1000)._checkpoints
    assert plain is not None and spaced is not None and 0 < len(spaced.lines) < len(plain.lines)


def test_no_checkpoints_without_marks() -> None:
    for name in ("fleet-parallel.sse", "real-session.jsonl"):
        ws = loaded((ROOT / "static" / "examples" / name).read_bytes(), "lineage", True, 100)
        assert ws._checkpoints is None and ws._marks is None
