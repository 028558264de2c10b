"""OTLP spans: each run as one trace, its lanes, calls and model calls as spans, as OTLP JSON."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, Final

import msgspec

from .. import spans as S
from ..lanes import MAIN
from .live import EVENTS_KEPT, SCOPE, Live, _base
from .reading import Writer, _dumps

# -- OTLP spans ------------------------------------------------------------------------------

Value = str | int | bool


class OSpan(msgspec.Struct, frozen=True):
    """One OTLP span as data: what the JSON writer and the protobuf encoder both write."""

    trace_id: bytes
    span_id: bytes
    parent_id: bytes | None
    name: str
    start_ns: int
    end_ns: int
    attributes: list[tuple[str, Value]]
    events: list[tuple[int, str, list[tuple[str, Value]]]] = msgspec.field(default_factory=list)
    error: str | None = None


def _id(seed: bytes, *parts: str, size: int) -> bytes:
    h = hashlib.sha256(seed)
    for p in parts:
        h.update(b"\0" + p.encode("utf-8", "replace"))
    return h.digest()[:size]


def _at(it: S.Span | S.Call) -> tuple[str, str]:
    """Where a call began (file base name, line): an id repeated later (a capture read twice, an
    id reused after its result) makes another span, and a file read whole or followed says the same."""
    return _base(it.file) or "", str(it.line)


def _tool_id(trace: bytes, tool_id: str | None, it: S.Span) -> bytes:
    return _id(trace, "tool", tool_id or "", *_at(it), size=8)


INT64: Final = (-(1 << 63), (1 << 63) - 1)  # OTLP's intValue, protobuf's int64


def _attrs(*pairs: tuple[str, Value | None]) -> list[tuple[str, Value]]:
    """The pairs with a value; an integer past OTLP's int64 (a token count of 10**30 in the
    input) clamped into it, the attributes clamped named in ``relayscope.clamped`` with the
    values the input gave."""
    out = [(k, v) for k, v in pairs if v is not None]
    low, high = INT64
    if all(v.__class__ is not int or low <= v <= high for _, v in out):
        return out
    said: list[str] = []
    for k, (key, v) in enumerate(out):
        if v.__class__ is int and not low <= v <= high:
            digits = str(abs(v))
            shown = digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits)} digits)"
            said.append(f"{key}={'-' if v < 0 else ''}{shown}")
            out[k] = (key, min(max(v, low), high))
    out.append(("relayscope.clamped", "past a 64-bit integer, clamped: " + ", ".join(said)))
    return out


class Spans:
    """A run's finished spans, calls and marks as OTLP spans (what ``otlp`` and the sender send).
    A lane's marks wait on its agent span (they are its events)."""

    def __init__(self, clock: Writer) -> None:
        self.clock = clock
        self.trace: dict[int, bytes] = {}  # id(run) -> trace id (fixed when its first span is made)
        self.events: dict[str, list[tuple[int, str, list[tuple[str, Value]]]]] = {}
        self.dropped: dict[str, int] = {}
        self.ended: dict[int, set[str]] = {}  # id(run) -> lanes whose agent span is written

    def trace_id(self, run: Live) -> bytes:
        got = self.trace.get(id(run))
        if got is None:
            b = run.builder_now()
            sid = (b.session_id or "").encode("utf-8", "replace")
            got = self.trace[id(run)] = _id(b"relayscope trace\0" + sid + b"\0" + run.seed, size=16)
        return got

    def resource(self, run: Live) -> list[tuple[str, Value]]:
        b = run.builder_now()
        return _attrs(("service.name", "claude-code"), ("session.id", b.session_id),
                      ("relayscope.axis", self.clock.axis_words(b.axis)), ("relayscope.source", _base(run.name)))

    def of(self, run: Live, items: list[S.Closed]) -> list[OSpan]:
        b = run.builder_now()
        axis = b.axis
        trace = self.trace_id(run)
        ns = self.clock.ns
        out: list[OSpan] = []
        for it in items:
            if isinstance(it, S.Mark):
                if it.kind == "model":
                    continue
                # a mark found after its lane's span was written (a block found lost later) goes on the root
                late = it.lane in self.ended.get(id(run), ())
                on = MAIN if late else it.lane
                kept = self.events.setdefault(on, [])
                if len(kept) >= EVENTS_KEPT:
                    self.dropped[on] = self.dropped.get(on, 0) + 1
                    continue
                kept.append((ns(it.at, axis), "lost block" if it.kind == "lost" else "error", _attrs(
                    ("relayscope.text", it.text), ("relayscope.line", it.line), ("relayscope.file", _base(it.file)),
                    ("relayscope.lane", it.lane if late else None))))
            elif isinstance(it, S.Call):
                mid = it.message_id or f"@{it.seq}"
                total_in = it.input_tokens + it.cache_read_tokens + it.cache_creation_tokens
                out.append(OSpan(
                    trace, _id(trace, "chat", it.lane, mid, *_at(it), size=8), _id(trace, "agent", it.lane, size=8),
                    f"chat {it.model}" if it.model else "chat", ns(it.start, axis), ns(it.end, axis), _attrs(
                        ("gen_ai.operation.name", "chat"), ("gen_ai.provider.name", "anthropic"),
                        ("gen_ai.request.model", it.model), ("gen_ai.response.model", it.model),
                        ("gen_ai.response.id", it.message_id), ("gen_ai.conversation.id", b.session_id),
                        ("gen_ai.usage.input_tokens", total_in if it.usage else None),
                        ("gen_ai.usage.output_tokens", it.output_tokens if it.usage else None),
                        ("gen_ai.usage.cache_read.input_tokens", it.cache_read_tokens if it.usage else None),
                        ("gen_ai.usage.cache_creation.input_tokens", it.cache_creation_tokens if it.usage else None),
                        ("openinference.span.kind", "LLM"), ("llm.provider", "anthropic"), ("llm.system", "anthropic"),
                        ("llm.model_name", it.model),
                        ("llm.token_count.prompt", total_in if it.usage else None),
                        ("llm.token_count.completion", it.output_tokens if it.usage else None),
                        ("llm.token_count.total", total_in + it.output_tokens if it.usage else None),
                        ("llm.token_count.prompt_details.cache_read", it.cache_read_tokens if it.usage else None),
                        ("llm.token_count.prompt_details.cache_write", it.cache_creation_tokens if it.usage else None),
                        ("relayscope.seq", it.seq), ("relayscope.line", it.line), ("relayscope.file", _base(it.file)))))
            elif it.kind == "tool":
                out.append(OSpan(
                    trace, _tool_id(trace, it.tool_id, it), _id(trace, "agent", it.lane, size=8),
                    f"execute_tool {it.name}", ns(it.start, axis), ns(it.end, axis), _attrs(
                        ("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", it.name),
                        ("gen_ai.tool.call.id", it.tool_id), ("gen_ai.tool.type", "function"),
                        ("openinference.span.kind", "TOOL"), ("tool.name", it.name),
                        ("relayscope.input", it.label), ("relayscope.seq", it.seq), ("relayscope.line", it.line),
                        ("relayscope.file", _base(it.file)), ("relayscope.open", True if it.open else None)),
                    error="tool_result is_error" if it.error else None))
            else:
                self.ended.setdefault(id(run), set()).add(it.lane)
                out.append(self._agent(run, b, trace, it))
        return out

    def _agent(self, run: Live, b: S.Builder, trace: bytes, s: S.Span) -> OSpan:
        tr = b.tracks.get(s.lane)
        if s.lane == MAIN:
            parent = None
        elif s.tool_id:
            parent = _tool_id(trace, s.tool_id, s)  # the spawning call: the agent span carries its line
        else:
            parent = _id(trace, "agent", s.parent_lane or MAIN, size=8)
        events = self.events.pop(s.lane, [])
        notes = b.notes if s.lane == MAIN else []
        dropped = self.dropped.pop(s.lane, None)
        return OSpan(
            trace, _id(trace, "agent", s.lane, size=8), parent, f"invoke_agent {s.name}",
            self.clock.ns(s.start, b.axis), self.clock.ns(s.end, b.axis), _attrs(
                ("gen_ai.operation.name", "invoke_agent"), ("gen_ai.provider.name", "anthropic"),
                ("gen_ai.agent.name", s.name), ("gen_ai.agent.id", s.lane),
                ("gen_ai.conversation.id", b.session_id), ("gen_ai.request.model", tr.model if tr else None),
                ("openinference.span.kind", "AGENT"), ("session.id", b.session_id),
                ("relayscope.usage.input_tokens", tr.input_tokens if tr else None),
                ("relayscope.usage.output_tokens", tr.output_tokens if tr else None),
                ("relayscope.usage.cache_read_input_tokens", tr.cache_read_tokens if tr else None),
                ("relayscope.usage.cache_creation_input_tokens", tr.cache_creation_tokens if tr else None),
                ("relayscope.axis", self.clock.axis_words(b.axis) if s.lane == MAIN else None),
                ("relayscope.notes", "; ".join(notes) if notes else None),
                ("relayscope.events_dropped", dropped),
                ("relayscope.seq", s.seq), ("relayscope.line", s.line), ("relayscope.file", _base(s.file)),
                ("relayscope.open", True if s.open else None)),
            events, "tool_result is_error" if s.error else None)


def _json_attrs(attrs: list[tuple[str, Value]]) -> list[dict[str, Any]]:
    """OTLP/JSON ``KeyValue``s: 64-bit integers as strings (one comprehension: a call per value
    would cost as much as the rest of the span)."""
    return [{"key": k, "value": {"boolValue": v} if v is True or v is False else
             {"intValue": str(v)} if type(v) is int else {"stringValue": v}} for k, v in attrs]


def otlp_json_span(s: OSpan) -> dict[str, Any]:
    """One span as OTLP/JSON writes it (ids as hex, 64-bit integers as strings)."""
    out: dict[str, Any] = {"traceId": s.trace_id.hex(), "spanId": s.span_id.hex()}
    if s.parent_id:
        out["parentSpanId"] = s.parent_id.hex()
    out.update({"name": s.name, "kind": 1, "startTimeUnixNano": str(s.start_ns), "endTimeUnixNano": str(s.end_ns),
                "attributes": _json_attrs(s.attributes)})
    if s.events:
        out["events"] = [{"timeUnixNano": str(t), "name": n, "attributes": _json_attrs(a)} for t, n, a in s.events]
    if s.error:
        out["status"] = {"code": 2, "message": s.error}
    return out


class OtlpJson(Writer):
    def __init__(self, out: Callable[[bytes], None], untimed_start: float) -> None:
        super().__init__(out, untimed_start)
        self.spans = Spans(self)
        self.cur: Live | None = None
        self.runs = 0
        self.first = True
        out(b'{"resourceSpans":[')

    def put(self, run: Live, items: list[S.Closed], done: bool) -> None:
        got = self.spans.of(run, items)
        if got and run is not self.cur:
            self.out((b"," if self.runs else b"") + b'{"resource":{"attributes":'
                     + _dumps(_json_attrs(self.spans.resource(run)))
                     + b'},"scopeSpans":[{"scope":{"name":"' + SCOPE.encode() + b'"},"spans":[')
            self.cur, self.first = run, True
            self.runs += 1
        if got:  # one write per batch: a call per span would cost as much as its encoding
            self.out((b"" if self.first else b",\n") + b",\n".join([_dumps(otlp_json_span(s)) for s in got]))
            self.first = False
        if done and self.cur is run:
            self.out(b"]}]}")
            self.cur = None

    def close(self) -> None:
        self.out(b"]}\n")


