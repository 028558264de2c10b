"""Where the time went: each lane's and the run's figures, and their words."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

import msgspec

from .. import relay as R
from ..lanes import MAIN
from ..meaning import years_words
from .records import LINE, ORDER, TIME, TOP_TOOLS, Timeline, Track
from .stamps import Stamps
from .sweep import _Lane


class _Sums(msgspec.Struct, frozen=True):
    """What a closed lane's figures need of it (the lane itself is freed)."""

    wall: float
    tools: float
    model: float
    longest: float
    both: float
    parallel: float
    by_tool: dict[str, list[float]]


def _sums(ln: _Lane, end: float) -> _Sums:
    return _Sums(end - ln.start, ln.tools, ln.model, max(ln.longest, ln.gap), ln.both, ln.parallel, ln.by_tool)


def _sums_added(a: _Sums, b: _Sums) -> _Sums:
    """Two spans of one lane as one lane's figures: their times added (the time between them,
    when the agent had returned, is none of the lane's)."""
    by_tool = {k: list(v) for k, v in a.by_tool.items()}
    for k, v in b.by_tool.items():
        by_tool[k] = [x + y for x, y in zip(by_tool[k], v, strict=True)] if k in by_tool else list(v)
    return _Sums(a.wall + b.wall, a.tools + b.tools, a.model + b.model, max(a.longest, b.longest),
                 a.both + b.both, a.parallel + b.parallel, by_tool)


def median(values: Sequence[float]) -> float:
    """The middle value (the mean of the two middle ones of an even count), as ``statistics.median``
    says it, without importing ``statistics`` (about 10 ms of the page's import in Pyodide)."""
    if not values:
        raise ValueError("no median of nothing")
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2


def _figures_of(tr: Track, s: _Sums) -> dict[str, Any]:
    wall = s.wall
    tools, model = min(s.tools, wall), min(s.model, max(0.0, wall - s.tools))
    idle = max(0.0, wall - tools - model)
    return {
        "lane": tr.id, "label": tr.label, "depth": tr.depth, "parent": tr.parent, "model": tr.model,
        "wall": _round(wall), "tools": _round(tools), "model_wait": _round(model), "idle": _round(idle),
        "longest_idle": _round(min(s.longest, idle)),
        "overlap": {"model_and_tools": _round(s.both), "parallel_tools": _round(s.parallel)},
        "tool_calls": int(sum(v[0] for v in s.by_tool.values())),
        "by_tool": _top(s.by_tool, TOP_TOOLS),
        "tokens": {"input_tokens": tr.input_tokens, "output_tokens": tr.output_tokens,
                   "cache_read_tokens": tr.cache_read_tokens, "cache_creation_tokens": tr.cache_creation_tokens},
        "reported_ms": tr.reported_ms, "ttft_ms": tr.ttft_ms,
        "state": tr.state, "status": tr.status, "elapsed_s": tr.elapsed_s,
        "timing": {k: _round(median(v)) for k, v in tr.timing.items()},
        "timing_results": max((len(v) for v in tr.timing.values()), default=0),
    }


# -- where the time went --------------------------------------------------------------------

def _merged(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        elif b > a:
            out.append((a, b))
    return out


def _length(merged: Sequence[tuple[float, float]]) -> float:
    return sum(b - a for a, b in merged)


def _common(x: Sequence[tuple[float, float]], y: Sequence[tuple[float, float]]) -> float:
    """How long two merged interval lists overlap."""
    total, i, j = 0.0, 0, 0
    while i < len(x) and j < len(y):
        total += max(0.0, min(x[i][1], y[j][1]) - max(x[i][0], y[j][0]))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return total


def run_parts(tl: Timeline) -> tuple[float, float, float, float]:
    """The run's (tools, model, model_and_tools, parallel_tools) from its spans and model calls:
    for a run whose relays do not come in time order (a session's files, each read in turn), where
    the sweep that follows the relays cannot go back. Tools: while a call ran; model: while a
    model call ran and no tool; parallel: while two calls or more ran."""
    tools = [(s.start, s.end) for s in tl.spans if s.kind == "tool"]
    merged, model = _merged(tools), _merged((c.start, c.end) for c in tl.calls)
    edges = sorted([(a, 1) for a, _ in tools] + [(b, -1) for _, b in tools])
    parallel, running, at = 0.0, 0, 0.0
    for x, step in edges:
        if running > 1:
            parallel += x - at
        running, at = running + step, x
    both = _common(merged, model)
    return _length(merged), _length(model) - both, both, parallel


def busy(tl: Timeline) -> list[tuple[float, float]]:
    """Where something was in flight in any lane, merged, in order: a tool call, a sub-agent, a
    model call (from its input to its answer's last block): what the figures count as not idle."""
    return _merged([(s.start, s.end) for s in tl.spans if s.kind == "tool" or s.lane != MAIN]
                   + [(c.start, c.end) for c in tl.calls])


def figures(tl: Timeline, relays: Sequence[R.Relay] = (), stamps: Stamps | None = None,
            top: int = TOP_TOOLS) -> dict[str, Any]:
    """Where the time went, per lane and for the run, in the axis' unit (seconds on ``time``,
    lines or relays otherwise): the running sums the timeline was built with."""
    return tl.figures


def _round(x: float) -> float:
    return round(x, 3)


def _top(by_tool: Mapping[str, list[float]], top: int) -> list[dict[str, Any]]:
    ranked = sorted(by_tool.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
    out = [{"tool": k, "calls": int(v[0]), "time": _round(v[1])} for k, v in ranked[:top]]
    rest = ranked[top:]
    if rest:
        out.append({"tool": "other", "calls": int(sum(v[0] for _, v in rest)), "time": _round(sum(v[1] for _, v in rest))})
    return out


def counted(n: int, noun: str, number: Callable[[int], str] = str) -> str:
    """``1 sub-agent``, ``3 sub-agents``: a count in words (the number written by ``number``)."""
    return f"{number(n)} {noun}{'' if n == 1 else 's'}"


def duration_words(seconds: float, axis: str) -> str:
    """A span's length for people: ``4.2 s``, ``2m 05s``; ``12 lines`` off the time axis."""
    if axis == LINE:
        n = round(seconds)
        return f"{n} line" + ("" if n == 1 else "s")
    if axis == ORDER:
        n = round(seconds)
        return f"{n} relay" + ("" if n == 1 else "s")
    if (long := years_words(seconds)) is not None:
        return long
    if seconds < 10:
        return f"{seconds:.1f} s" if seconds >= 0.1 else f"{seconds * 1000:.0f} ms"
    s = round(seconds)
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s" if s >= 60 else f"{s} s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


_TIMING_WORDS: Final = {"time_to_request_ms": "request sent", "ttft_ms": "first token",
                        "ttft_stream_ms": "first streamed token", "first_content_frame_ms": "first content"}


def timing_words(timing: Mapping[str, float], results: int) -> str:
    """``request sent 0.1 s · first token 0.9 s ...``: a result's timing (the median of several)."""
    words = " · ".join(f"{_TIMING_WORDS[k]} " + (f"{v:,.0f} ms" if v < 10_000 else duration_words(v / 1000, TIME))
                       for k, v in timing.items() if k in _TIMING_WORDS)
    return words + (f" (median of {results} results)" if results > 1 else "")


def _utc(t: float) -> str:
    try:
        return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return f"{t:g}"


def folded_lines(folds: Mapping[str, Any]) -> list[str]:
    """The folded gaps (``folds.Fold.to_json``) as ``stats`` lists them: true times, in UTC."""
    breaks = folds.get("breaks") or []
    if not breaks:
        return []
    total = sum(b["folded_ms"] for b in breaks) / 1000
    head = (f"folded: {len(breaks)} idle gap{'s' if len(breaks) != 1 else ''} over "
            f"{duration_words(folds['threshold_s'], TIME)}, {duration_words(total, TIME)} in all")
    return [head] + [f"     {_utc(b['start'])} → {_utc(b['end'])} UTC  {b['label']}" for b in breaks]


def render_figures(fig: Mapping[str, Any]) -> str:
    """The figures as a short text report (``relayscope stats``); the folded gaps when the figures
    carry them (``export`` adds them)."""
    unit = fig["unit"]

    def q(v: float) -> str:
        return duration_words(v, fig["axis"]) if unit == "s" else f"{v:g} {unit}"

    def overlaps(o: Mapping[str, float]) -> str:
        parts = ([f"the model answering while a tool ran {q(o['model_and_tools'])}"] if o["model_and_tools"] else []) \
            + ([f"tools in parallel {q(o['parallel_tools'])}"] if o["parallel_tools"] else [])
        return f" (overlaps, counted once above: {', '.join(parts)})" if parts else ""
    run = fig["run"]
    out = [f"axis: {fig['axis_words']}" + (f" · session {fig['session_id']}" if fig.get("session_id") else ""),
           f"run: wall {q(run['wall'])} = in tools {q(run['tools'])} ({run['tool_calls']} calls) + "
           f"waiting on the model {q(run['model_wait'])} + idle {q(run['idle'])}{overlaps(run['overlap'])} · "
           f"{counted(run['agents'], 'sub-agent')}",
           f"     tokens {run['tokens']['input_tokens']} in · {run['tokens']['output_tokens']} out · "
           f"{run['tokens']['cache_read_tokens']} cache read · {run['tokens']['cache_creation_tokens']} cache write"
           + (f" · {counted(run['lost_blocks'], 'lost block')}" if run["lost_blocks"] else "")
           + (f" · {counted(run['errors'], 'error')}" if run["errors"] else "")]
    out += [f"     {t['tool']:<16} {t['calls']:>5} calls  {q(t['time'])}" for t in run["by_tool"]]
    for ln in fig["lanes"]:
        out.append(f"{'  ' * ln['depth']}{ln['label']}: wall {q(ln['wall'])} = tools {q(ln['tools'])} + "
                   f"model {q(ln['model_wait'])} + idle {q(ln['idle'])} (longest gap {q(ln['longest_idle'])})"
                   f"{overlaps(ln['overlap'])} · "
                   f"{ln['tokens']['input_tokens']} in / {ln['tokens']['output_tokens']} out tokens"
                   + (f" · reported {ln['reported_ms']:g} ms" if ln["reported_ms"] is not None else "")
                   + (f" · {ln['status']}" if ln.get("status") else ""))
        if ln.get("timing"):
            out.append(f"{'  ' * ln['depth']}  timing: {timing_words(ln['timing'], ln['timing_results'])}")
    out += folded_lines(fig.get("folds") or {})
    out += [f"note: {n}" for n in fig.get("notes", [])]
    return "\n".join(out) + "\n"
