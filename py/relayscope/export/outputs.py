"""The entry points: a source written in a format, whole runs as bytes, their figures."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from .. import spans as S
from ..analysis import AUTO
from ..folds import THRESHOLD_S, fold, of_run
from .chrome import ChromeTrace
from .live import Live, _base, day_start
from .otlp_spans import OtlpJson
from .reading import Run, Source, Writer, _replay, stream


def writer(fmt: str, out: Callable[[bytes], None], untimed_start: float) -> Writer:
    if fmt == "chrome-trace":
        return ChromeTrace(out, untimed_start)
    if fmt == "otlp":
        return OtlpJson(out, untimed_start)
    raise ValueError(f"unknown export format {fmt!r}")


def write(source: Source, fmt: str, out: Callable[[bytes], None], strategy: str = "lineage", in_fmt: str = AUTO,
          untimed_start: float | None = None, now: float | None = None) -> list[Live]:
    """Export ``source`` in ``fmt`` to ``out`` as it is read (the CLI and the page). Untimed runs
    start at ``untimed_start`` (default: the start of the UTC day of ``now``). Returns the runs."""
    start = untimed_start if untimed_start is not None else day_start(time.time() if now is None else now)
    w = writer(fmt, out, start)
    seen: list[Live] = []
    for run, items, done in stream(source, strategy, in_fmt):
        if not seen or seen[-1] is not run:
            seen.append(run)
        w.put(run, items, done)
    w.close()
    return seen


def export(all_runs: Sequence[Run], fmt: str, untimed_start: float = 0.0) -> bytes:
    """The runs held whole (:func:`runs`) in ``fmt``: the bytes :func:`write` gives for their input."""
    parts: list[bytes] = []
    w = writer(fmt, parts.append, untimed_start or day_start(time.time()))
    for run, items, done in _replay(all_runs):
        w.put(run, items, done)
    w.close()
    return b"".join(parts)


def chrome_trace(all_runs: Sequence[Run], untimed_start: float = 0.0) -> bytes:
    return export(all_runs, "chrome-trace", untimed_start)


def otlp(all_runs: Sequence[Run], untimed_start: float = 0.0) -> bytes:
    return export(all_runs, "otlp", untimed_start)


def figures(all_runs: Sequence[Run]) -> list[dict[str, Any]]:
    """Where the time went, per session: ``{"name": ..., **spans.figures, "folds": ...}`` (the idle
    gaps the swimlanes fold, ``folds.Fold.to_json``)."""
    return [{"name": _base(r.name), **r.timeline.figures,
             "folds": of_run(r.timeline, r.relays, r.stamps).to_json()} for r in all_runs]


def run_figures(run: Live) -> dict[str, Any]:
    """A streamed run's figures (after its last item), with its folded gaps as :func:`figures`
    gives them (the builder kept the idle stretches as it went)."""
    b = run.builder_now()
    folds = run.folds
    if folds is None:
        start, end = b.bounds()
        folds = fold(b.gaps if b.axis == S.TIME else [], start, end, THRESHOLD_S).to_json()
    return {"name": _base(run.name), **b.figures([t.id for t in S._ordered(b.tracks)]), "folds": folds}
