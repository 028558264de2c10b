"""export: the run as a trace other tools open, and its figures.

* ``chrome_trace``: Trace Event Format JSON (Perfetto UI, chrome://tracing). One process per
  session, one named thread per lane (``M`` metadata: ``process_name``, ``thread_name``,
  ``thread_sort_index``), ``X`` complete events for agent and tool spans, ``i`` instant events for
  model turns, lost blocks and errors. Events of one thread nest or follow each other: a tool call
  that overlaps another without nesting in it goes to a thread of its own under the same lane
  (``<lane> · parallel 2``). ``ts`` is in microseconds from the run's first span on the time axis;
  off it (no timestamps in the input) one input line (or relay) counts as one millisecond, and
  ``otherData.axis`` says so.
* ``otlp``: OTLP/JSON ``ExportTraceServiceRequest`` (Jaeger, Phoenix, Langfuse). One trace per
  session; a span per agent (``invoke_agent``) and per tool call (``execute_tool``); an agent's
  parent is the call that spawned it, a tool call's the agent that made it. Attributes after the
  OpenTelemetry GenAI semantic conventions. Ids (hex, as OTLP/JSON writes them) are derived from a
  hash of the input, so the same input always gives the same bytes. Lost blocks and errors are
  span events on their lane's agent span.
* ``figures``: where the time went (``spans.figures``), one entry per session.

The CLI (``relayscope export``, ``relayscope stats``) and the web page's downloads both call
:func:`runs` on the input's bytes and these writers on its result, so their bytes are the same.
Pure: no I/O. Must not: name machine paths in its output (files are named by their base name).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from . import relay as R
from . import spans as S
from .analysis import AUTO, Analyzer
from .folds import of_run
from .lanes import MAIN
from .multifile import audit_input, translate_files
from .wire import split_lines

FORMATS: Final = ("chrome-trace", "otlp")
LINE_US: Final = 1000  # off the time axis: one line (or relay) is drawn as one millisecond
SCOPE: Final = "relayscope"


@dataclass(frozen=True, slots=True)
class Run:
    """One session (or stream) of the input: its timeline and what made it."""

    name: str | None
    timeline: S.Timeline
    relays: list[R.Relay]
    stamps: S.Stamps
    digest: bytes  # of the input's lines: the seed of the OTLP ids


def _base(name: str | None) -> str | None:
    return name.replace("\\", "/").rsplit("/", 1)[-1] if name else name


def runs(source: bytes | Mapping[str, bytes], strategy: str = "lineage", fmt: str = AUTO) -> list[Run]:
    """Translate ``source`` (one text, or ``{file name: content}``) as the CLI and the page do,
    audit it under ``strategy`` for its lost blocks, and build one timeline per session."""
    out: list[Run] = []
    if isinstance(source, bytes | bytearray):
        lines = split_lines(bytes(source))
        digest = hashlib.sha256(b"\n".join(lines)).digest()
        a = Analyzer(strategy, fmt)
        for line in lines:
            a.feed_line(line)
        a.finish()
        relays = list(a.relays)
        (whole,) = audit_input(lines, [strategy], fmt)
        stamps = S.stamps_of({None: lines})
        tl = S.build(relays, stamps, S.lost_blocks(relays, whole.items) if whole.comparable else ())
        return [Run(None, tl, relays, stamps, digest)]
    split = {k: split_lines(v) for k, v in source.items()}
    # the lines, not the bytes: a file's last newline (which a page holding lines may not keep)
    # must not change the ids
    h = hashlib.sha256()
    for k in sorted(source, key=lambda k: (_base(k) or "", k)):
        h.update((_base(k) or "").encode("utf-8", "replace") + b"\0" + b"\n".join(split[k]) + b"\0")
    digest = h.digest()
    audits = {a.name: a for a in audit_input(source, [strategy], fmt)}
    for res in translate_files(source, strategy, fmt=fmt):
        stamps = S.stamps_of({k: split[k] for k in res.files if k in split})
        audit = audits.get(res.name)
        lost = S.lost_blocks(res.relays, audit.items) if audit is not None and audit.comparable else ()
        out.append(Run(res.name, S.build(res.relays, stamps, lost), res.relays, stamps, digest))
    return out


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def _origin(all_runs: Sequence[Run]) -> float:
    timed = [r.timeline.start for r in all_runs if r.timeline.axis == S.TIME and r.timeline.spans]
    return min(timed) if timed else 0.0


def _us(x: float, axis: str, origin: float) -> int:
    return round((x - origin) * 1_000_000) if axis == S.TIME else round(x * LINE_US)


# -- Trace Event Format ---------------------------------------------------------------------

def _threads(tl: S.Timeline) -> list[tuple[S.Track, int, list[S.Span]]]:
    """Per lane, the spans split into threads whose spans nest or follow each other: the agent
    span and what nests in it stay on the lane's thread (row 0)."""
    out: list[tuple[S.Track, int, list[S.Span]]] = []
    by_lane: dict[str, list[S.Span]] = {}
    for s in tl.spans:
        if s.kind == "tool":
            by_lane.setdefault(s.lane, []).append(s)
    for tr in tl.tracks:
        items = ([tr.agent] if tr.agent is not None else []) + sorted(
            by_lane.get(tr.id, []), key=lambda s: (s.start, -s.end, s.seq))
        rows: list[tuple[list[float], list[S.Span]]] = []
        for s in items:
            for stack, got in rows:
                while stack and stack[-1] <= s.start:
                    stack.pop()
                if not stack or s.end <= stack[-1]:
                    stack.append(s.end)
                    got.append(s)
                    break
            else:
                rows.append(([s.end], [s]))
        for n, (_, got) in enumerate(rows or [([], [])]):
            out.append((tr, n, got))
    return out


def chrome_trace(all_runs: Sequence[Run]) -> bytes:
    """Trace Event Format JSON of the runs (see the module doc)."""
    origin = _origin(all_runs)
    events: list[dict[str, Any]] = []
    axes = sorted({r.timeline.axis for r in all_runs})
    for pid, run in enumerate(all_runs, 1):
        tl = run.timeline
        title = f"session {tl.session_id}" if tl.session_id else (_base(run.name) or "run")
        events.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": title}})
        lane_tid: dict[str, int] = {}
        body: list[dict[str, Any]] = []
        for tid, (tr, row, spans) in enumerate(_threads(tl), 1):
            lane_tid.setdefault(tr.id, tid)
            name = tr.label if row == 0 else f"{tr.label} · parallel {row + 1}"
            events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}})
            events.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid, "args": {"sort_index": tid}})
            for s in spans:
                ts = _us(s.start, tl.axis, origin)
                args: dict[str, Any] = {"lane": s.lane, "seq": s.seq, "line": s.line}
                if s.file:
                    args["file"] = _base(s.file)
                if s.kind == "tool":
                    args["input"] = s.label
                    args["tool_use_id"] = s.tool_id
                if s.end_seq is None:
                    args["open"] = True  # no result: ends at the lane's last event
                if s.error:
                    args["is_error"] = True
                body.append({"name": s.name, "cat": s.kind, "ph": "X", "ts": ts,
                             "dur": max(0, _us(s.end, tl.axis, origin) - ts), "pid": pid, "tid": tid, "args": args})
        for m in tl.marks:
            args = {"lane": m.lane, "line": m.line, "text": m.text}
            if m.file:
                args["file"] = _base(m.file)
            if m.seq is not None:
                args["seq"] = m.seq
            name = {"model": "model turn", "lost": "lost block", "error": "error"}[m.kind]
            body.append({"name": name, "cat": m.kind, "ph": "i", "s": "t", "ts": _us(m.at, tl.axis, origin),
                         "pid": pid, "tid": lane_tid.get(m.lane, 1), "args": args})
        body.sort(key=lambda e: (e["tid"], e["ts"], -e.get("dur", 0), e["ph"] != "X"))
        events.extend(body)
    other: dict[str, Any] = {"generator": SCOPE, "axis": ",".join(S.AXIS_WORDS[a] for a in axes)}
    if S.TIME in axes:
        other["origin_unix_s"] = origin
    if axes != [S.TIME]:
        other["untimed_unit"] = "1 ms = 1 input line (or relay): the input carries no timestamps"
    return _dumps({"traceEvents": events, "displayTimeUnit": "ms", "otherData": other})


# -- OTLP/JSON ------------------------------------------------------------------------------

def _id(seed: bytes, *parts: str, size: int) -> str:
    h = hashlib.sha256(seed)
    for p in parts:
        h.update(b"\0" + p.encode("utf-8", "replace"))
    return h.hexdigest()[: size * 2]


def _attr(key: str, value: str | int | bool | None) -> dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _attrs(*pairs: tuple[str, str | int | bool | None]) -> list[dict[str, Any]]:
    return [a for k, v in pairs if (a := _attr(k, v)) is not None]


def _ns(x: float, axis: str) -> str:
    return str(round(x * 1_000_000) * 1000) if axis == S.TIME else str(round(x * LINE_US) * 1000)


def otlp(all_runs: Sequence[Run]) -> bytes:
    """OTLP/JSON ExportTraceServiceRequest of the runs (see the module doc)."""
    resource_spans: list[dict[str, Any]] = []
    for n, run in enumerate(all_runs):
        tl = run.timeline
        trace_id = _id(run.digest, "trace", str(n), tl.session_id or "", size=16)
        seed = bytes.fromhex(trace_id)
        agent_id = {t.id: _id(seed, "agent", t.id, size=8) for t in tl.tracks}
        tool_id = {s.tool_id: _id(seed, "tool", s.tool_id or str(s.seq), size=8) for s in tl.spans if s.kind == "tool"}
        events: dict[str, list[dict[str, Any]]] = {}
        for m in tl.marks:
            if m.kind == "model":
                continue
            events.setdefault(m.lane, []).append({
                "timeUnixNano": _ns(m.at, tl.axis), "name": "lost block" if m.kind == "lost" else "error",
                "attributes": _attrs(("relayscope.text", m.text), ("relayscope.line", m.line),
                                     ("relayscope.file", _base(m.file)))})
        out: list[dict[str, Any]] = []
        for s in tl.spans:
            tr = tl.track(s.lane)
            if s.kind == "agent":
                parent = None if s.lane == MAIN else (tool_id.get(s.tool_id) or agent_id.get(tr.parent or MAIN) if tr else None)
                span: dict[str, Any] = {
                    "traceId": trace_id, "spanId": agent_id[s.lane], "name": f"invoke_agent {s.name}", "kind": 1,
                    "startTimeUnixNano": _ns(s.start, tl.axis), "endTimeUnixNano": _ns(s.end, tl.axis),
                    "attributes": _attrs(
                        ("gen_ai.operation.name", "invoke_agent"), ("gen_ai.provider.name", "anthropic"),
                        ("gen_ai.agent.name", s.name), ("gen_ai.agent.id", s.lane),
                        ("gen_ai.conversation.id", tl.session_id),
                        ("gen_ai.request.model", tr.model if tr else None),
                        ("gen_ai.usage.input_tokens", tr.input_tokens if tr else None),
                        ("gen_ai.usage.output_tokens", tr.output_tokens if tr else None),
                        ("relayscope.seq", s.seq), ("relayscope.line", s.line), ("relayscope.file", _base(s.file)),
                        ("relayscope.open", True if s.end_seq is None else None)),
                }
                if s.lane in events:
                    span["events"] = events[s.lane]
            else:
                parent = agent_id.get(s.lane)
                span = {
                    "traceId": trace_id, "spanId": tool_id[s.tool_id], "name": f"execute_tool {s.name}", "kind": 1,
                    "startTimeUnixNano": _ns(s.start, tl.axis), "endTimeUnixNano": _ns(s.end, tl.axis),
                    "attributes": _attrs(
                        ("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", s.name),
                        ("gen_ai.tool.call.id", s.tool_id), ("gen_ai.tool.type", "function"),
                        ("relayscope.input", s.label), ("relayscope.seq", s.seq), ("relayscope.line", s.line),
                        ("relayscope.file", _base(s.file)), ("relayscope.open", True if s.end_seq is None else None)),
                }
            if parent:
                span["parentSpanId"] = parent
            if s.error:
                span["status"] = {"code": 2, "message": "tool_result is_error"}
            # parentSpanId right after spanId, as the proto orders its fields
            out.append({k: span[k] for k in ("traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano",
                                            "endTimeUnixNano", "attributes", "events", "status") if k in span})
        resource_spans.append({
            "resource": {"attributes": _attrs(("service.name", "claude-code"), ("session.id", tl.session_id),
                                              ("relayscope.axis", tl.axis_words),
                                              ("relayscope.source", _base(run.name)))},
            "scopeSpans": [{"scope": {"name": SCOPE}, "spans": out}],
        })
    return _dumps({"resourceSpans": resource_spans})


def export(all_runs: Sequence[Run], fmt: str) -> bytes:
    if fmt == "chrome-trace":
        return chrome_trace(all_runs)
    if fmt == "otlp":
        return otlp(all_runs)
    raise ValueError(f"unknown export format {fmt!r}")


def figures(all_runs: Sequence[Run]) -> list[dict[str, Any]]:
    """Where the time went, per session: ``{"name": ..., **spans.figures, "folds": ...}`` (the idle
    gaps the swimlanes fold, ``folds.Fold.to_json``)."""
    return [{"name": _base(r.name), **S.figures(r.timeline, r.relays, r.stamps),
             "folds": of_run(r.timeline, r.relays, r.stamps).to_json()} for r in all_runs]
