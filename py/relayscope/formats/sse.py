"""Arbiter fleet streams (seeds/001, PROTOCOL.md section 3): Server-Sent Events in,
relay events out, one lane per ``stream_id``.

SSE framing: ``event:`` / ``data:`` / ``id:`` lines build an event, a blank line dispatches
it, ``:`` lines are comments (Arbiter's ``: heartbeat``). Stream 0 is the master and maps
to lane ``main``; stream N maps to ``stream-N``. ``stream_start`` opens a lane (with its
depth and agent), ``stream_end`` closes it; ``token_usage`` becomes ``usage`` and ``done``
becomes ``turn_complete``, both carried through with their numbers. Events re-sent by the
replay endpoint (an ``id:`` not above the last one seen) are skipped as duplicates.

State resets (the SSE rows of the table in ``translator``): ``request_received`` starts a
request, ``done`` ends one; both forget the replay id (each request numbers its events from
the start again, so a file holding two requests keeps both) and the open lanes (the next
request's ``stream_start`` opens its lanes again, with their ``lane_start``).

A field of the wrong type (``"duration_ms": "slow"``, a ``message`` that is an object) is
reported in a ``warning`` relay; text fields keep a non-string value as its JSON text, number
fields drop it. Every relay keeps the documented schema.

Every physical line gets a trace step: the lines of an event are ``consumed`` and the
blank line that dispatches it carries the decision.

State: the event being built (its field lines, reset when a blank line dispatches it), the
last event id seen (replays), and the open lanes with their depths, for the whole stream.
Must not import anything above the format layer.
"""

from __future__ import annotations

import math
from typing import Any, Final

import msgspec
from msgspec import Raw

from .. import relay as R
from .. import trace as T
from ..emitter import Emitter
from ..lanes import MAIN
from ..wire import repair_escapes

_decoder: Final = msgspec.json.Decoder()
MAX_DEPTH: Final = 64  # an agent's depth in a fleet, at most (a deeper one is read as this, with a warning)
_encoder: Final = msgspec.json.Encoder()

# The documented fields of Arbiter's events (PROTOCOL.md section 3), by the type they must have.
_TEXT_FIELDS: Final = frozenset({"request_id", "agent", "message", "delta", "tool", "path", "encoding",
                                 "content", "model", "error"})
_NUMBER_FIELDS: Final = frozenset({"depth", "size", "input_tokens", "output_tokens", "cache_read_tokens",
                                   "cache_create_tokens", "duration_ms"})


# The SSE rows of the reset table (translator): what each event resets, after it is read.
RESETS: Final[dict[str, frozenset[str]]] = {
    "request_received": frozenset({"replay ids", "open lanes"}),
    "done": frozenset({"replay ids", "open lanes"}),
}


def lane_of(stream_id: Any) -> str:
    if stream_id in (0, "0", None) and not isinstance(stream_id, bool):
        return MAIN
    if isinstance(stream_id, str) or (isinstance(stream_id, int) and not isinstance(stream_id, bool)):
        return f"stream-{stream_id}"
    return f"stream-{_json(stream_id)}"


def _id_order(event_id: str) -> tuple[int, str] | None:
    """A decimal ``id:`` as a sortable key (any length: no int() of 5,000 digits); None when
    the id is not a plain ASCII decimal number."""
    if not (event_id.isascii() and event_id.isdigit()):
        return None
    digits = event_id.lstrip("0") or "0"
    return len(digits), digits


def _wrong_types(obj: dict[str, Any]) -> list[str]:
    wrong = []
    for key, value in obj.items():
        if value is None:
            continue
        if key in _TEXT_FIELDS and not isinstance(value, str):
            wrong.append(f"{key} (a {_kind(value)}, expected text)")
        elif key in _NUMBER_FIELDS and _number(value) is None:
            wrong.append(f"{key} (a {_kind(value)}, expected a number)")
        elif key == "ok" and not isinstance(value, bool):
            wrong.append(f"ok (a {_kind(value)}, expected true or false)")
        elif key == "stream_id" and (isinstance(value, bool) or not isinstance(value, int | str)):
            wrong.append(f"stream_id (a {_kind(value)}, expected a number)")
    return wrong


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "array", str: "string", int: "number", float: "number"}.get(type(value), "null")


class FleetTranslator(Emitter):
    """Arbiter SSE in, relay events out. Same interface as ``Translator``."""

    strategy_name = "fleet"

    def __init__(self, strategy: str = "lineage", *, trace: bool = False, file: str | None = None) -> None:
        super().__init__(trace=trace, file=file)
        self._name: str | None = None
        self._data: list[str] = []
        self._id: str | None = None
        self._first = 0
        self._data_line = 0
        self._steps: list[T.TraceStep] = []
        self._last_id: tuple[int, str] | None = None
        self._damaged: list[int] = []  # lines of the event being read that were not valid UTF-8
        self._depth: dict[str, int] = {MAIN: 0}
        self._open_by_depth: dict[int, str] = {0: MAIN}

    def _reset(self, name: str) -> None:
        """Apply ``name``'s row of ``RESETS``: replay ids and open lanes belong to one request."""
        row = RESETS.get(name, frozenset())
        if "replay ids" in row:
            self._last_id = None
        if "open lanes" in row:
            self._depth = {MAIN: 0}
            self._open_by_depth = {0: MAIN}
            self._started.clear()

    def feed_line(self, text: str | bytes) -> list[R.Relay]:
        self.lines += 1
        number = self.lines
        self._out = []
        line = _text_of(text)
        if line is None:  # not UTF-8 (or lone surrogates): keep the line, say so at dispatch
            line = text.decode("utf-8", "replace") if isinstance(text, bytes) else _fix_surrogates(text)
            self._damaged.append(number)
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        line = line.rstrip("\r\n")
        step = T.TraceStep(number, "sse", file=self.file)
        if not line.strip():
            if self._name is not None or self._data:
                try:
                    self._dispatch(step, number)
                except Exception as exc:  # a bug: report it on its line, keep the stream going
                    self._internal_error(step, number, line, exc)
            else:
                step.decision, step.reason = T.IGNORE, "blank line"
        elif line.startswith(":"):
            step.kind, step.decision, step.reason = "sse/comment", T.IGNORE, f"comment{line[1:].rstrip()[:40]}"
        else:
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field in ("event", "data", "id", "retry"):
                if not self._steps:
                    self._first = number
                step.kind, step.decision = f"sse/{field}", T.CONSUMED
                self._steps.append(step)
                if field == "event":
                    self._name = value
                elif field == "data":
                    if not self._data:
                        self._data_line = number
                    self._data.append(value)
                elif field == "id":
                    self._id = value
            else:
                self._error(step, number, line, f"not an SSE line (unknown field {field[:20]!r})")
        self._record(step)
        return self._out

    def finish(self) -> list[R.Relay]:
        self._out = []
        if self._name is not None or self._data:
            step = T.TraceStep(self.lines, "end of input", file=self.file)
            self._dispatch(step, self.lines)
            self._record(step)
        return self._out

    def _dispatch(self, step: T.TraceStep, number: int) -> None:
        name = self._name or "message"
        data = "\n".join(self._data)
        line = self._data_line or self._first
        for consumed in self._steps:
            consumed.reason = f"part of the {name!r} event dispatched at line {number}"
        step.kind = f"sse:{name}"
        step.to_line = number
        step.note = f"event lines {self._first}-{number}"
        event_id, self._id = self._id, None
        damaged, self._damaged = self._damaged, []
        self._name, self._data, self._steps, self._data_line = None, [], [], 0
        order = _id_order(event_id) if event_id is not None else None
        if order is not None and event_id is not None and name != "request_received":
            if self._last_id is not None and order <= self._last_id:
                shown = event_id if len(event_id) <= 20 else event_id[:20] + "…"
                step.decision, step.reason = T.SKIP, f"replayed event id {shown} (not above the last one)"
                return
            self._last_id = order
        warnings = [f"line(s) {', '.join(map(str, damaged))}: bytes that are not UTF-8 replaced with U+FFFD"] \
            if damaged else []
        try:
            obj = _decoder.decode(data) if data else {}
        except (msgspec.DecodeError, UnicodeError, RecursionError) as exc:
            fixed = repair_escapes(data)
            try:
                obj = _decoder.decode(fixed) if isinstance(fixed, str) else None
            except (msgspec.DecodeError, UnicodeError, RecursionError):
                obj = None
            if obj is None:
                why = "nested too deeply" if isinstance(exc, RecursionError) else f"not valid JSON: {exc}"
                self._error(step, line, data, f"{name} event: data is {why}")
                return
            data = fixed  # type: ignore[assignment]
            warnings.append("lone surrogate escape(s) replaced with U+FFFD")
        if not isinstance(obj, dict):
            self._error(step, line, data, f"{name} event: data is not a JSON object")
            return
        wrong = _wrong_types(obj)
        if wrong:
            warnings.append(f"{name} event: field(s) of the wrong type: {', '.join(wrong)}")
        for message in warnings:
            self.warn(step, line, data, message, lane_of(obj.get("stream_id")))
        if name == "request_received":  # a request starts: forget the one before
            self._reset(name)
            if order is not None:
                self._last_id = order
        self._event(step, line, name, obj, data)
        if name == "done":  # a request ends
            self._reset(name)

    def _event(self, step: T.TraceStep, line: int, name: str, obj: dict[str, Any], data: str) -> None:
        lane = lane_of(obj.get("stream_id"))
        step.lane = lane
        emit = self.emit
        if name == "request_received":
            emit(step, R.SessionMeta, line, MAIN, session_id=_str(obj.get("request_id")), model=None, tools=[],
                 source="request_received", extra=_rest(obj, ("request_id", "message")))
            if obj.get("message"):
                emit(step, R.UserMessage, line, MAIN, text=_json(obj["message"]))
            step.reason = f"request for agent {obj.get('agent')!r}"
        elif name in ("stream_start", "agent_start"):
            if lane in self._started:
                step.decision, step.reason = T.IGNORE, f"{name}: lane {lane} already open"
                return
            self._open_lane(step, line, lane, obj)
        elif name == "text":
            if lane not in self._started:
                self._open_lane(step, line, lane, obj)
            emit(step, R.TextDelta, line, lane, text=_str(obj.get("delta")) or "", message_id=None,
                 block_index=None, partial=True)
        elif name == "tool_call":
            emit(step, R.ToolCall, line, lane, tool=_str(obj.get("tool")), ok=_bool(obj.get("ok")))
        elif name == "file":
            emit(step, R.File, line, lane, path=_str(obj.get("path")), size=_int(obj.get("size")),
                 encoding=_str(obj.get("encoding")), content=_str(obj.get("content")))
        elif name == "sub_agent_response":
            emit(step, R.SubAgentResponse, line, lane, agent=_str(obj.get("agent")), content=_str(obj.get("content")))
        elif name == "token_usage":
            emit(step, R.Usage, line, lane, message_id=None, model=_str(obj.get("model")),
                 input_tokens=_int(obj.get("input_tokens")) or 0, output_tokens=_int(obj.get("output_tokens")) or 0,
                 cache_read_input_tokens=_int(obj.get("cache_read_tokens")) or 0,
                 cache_creation_input_tokens=_int(obj.get("cache_create_tokens")) or 0)
        elif name == "stream_end":
            ok = obj.get("ok")
            emit(step, R.LaneEnd, line, lane, tool_use_id=None, is_error=ok is False)
            depth = self._depth.get(lane)
            if depth is not None and self._open_by_depth.get(depth) == lane:
                del self._open_by_depth[depth]
        elif name == "error":
            emit(step, R.Error, line, lane, message=_str(obj.get("message")) or "error", raw=data[:200])
        elif name == "done":
            ok = obj.get("ok") is not False
            usage = {k: obj[k] for k in ("input_tokens", "output_tokens") if _number(obj.get(k)) is not None}
            said = "content" if ok or obj.get("content") else "error"
            duration = _number(obj.get("duration_ms"))
            carried = ("ok", said, "request_id", *usage, *(("duration_ms",) if duration is not None else ()))
            emit(step, R.TurnComplete, line, MAIN, subtype="success" if ok else "error", is_error=not ok,
                 result=_str(obj.get(said)), cost_usd=None, usage=usage or None, duration_ms=duration,
                 num_turns=None, session_id=_str(obj.get("request_id")), extra=_rest(obj, carried))
        else:  # data on several lines: its line breaks are JSON's white space, kept out of the relay's one line
            flat = data.replace("\r", " ").replace("\n", " ").strip(" \t")
            emit(step, R.Passthrough, line, lane, event_type=name, data=Raw(flat.encode()) if flat else Raw(b"{}"))
            step.reason = f"{name} event passed through"
        if not step.reason:
            step.reason = f"{name} event"

    def _open_lane(self, step: T.TraceStep, line: int, lane: str, obj: dict[str, Any]) -> None:
        depth = _int(obj.get("depth"))
        if depth is None:
            depth = 0 if lane == MAIN else 1
        elif not 0 <= depth <= MAX_DEPTH:  # an agent nested deeper than any fleet: a value out of range
            self.warn(step, line, _json(obj.get("depth")), f"depth {depth} out of range (0 to {MAX_DEPTH}): "
                      f"read as {min(max(depth, 0), MAX_DEPTH)}", lane)
            depth = min(max(depth, 0), MAX_DEPTH)
        parent = None if lane == MAIN else self._open_by_depth.get(depth - 1, MAIN)
        self._started.add(lane)
        self._depth[lane] = depth
        self._open_by_depth.setdefault(depth, lane)
        agent = _str(obj.get("agent"))
        self.emit(step, R.LaneStart, line, lane, parent_lane=parent, depth=depth, agent_type=agent,
                  description=None, label=f"{agent or 'agent'} (stream {lane.removeprefix('stream-') if lane != MAIN else 0}, depth {depth})")


def _json(value: Any) -> str:
    """Text as is; any other JSON value as its compact JSON text (never a Python repr)."""
    if isinstance(value, str):
        return value
    try:
        return _encoder.encode(value).decode("utf-8")
    except (TypeError, ValueError, RecursionError):  # cannot happen for decoded JSON; be safe
        return "?"


def _rest(obj: dict[str, Any], carried: tuple[str, ...]) -> dict[str, Any]:
    """The event's fields no field of its relay carries (its ``extra``: nothing of it is lost)."""
    return {k: v for k, v in obj.items() if k not in carried}


def _str(value: Any) -> str | None:
    return None if value is None else _json(value)


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if isinstance(value, int) or math.isfinite(value) else None


def _int(value: Any) -> int | None:
    number = _number(value)
    return None if number is None else int(number)


def _text_of(text: str | bytes) -> str | None:
    """The line as text; None when it is not valid UTF-8 (or holds lone surrogates)."""
    try:
        if isinstance(text, bytes):
            return text.decode("utf-8")
        text.encode("utf-8")
        return text
    except UnicodeError:
        return None


def _fix_surrogates(text: str) -> str:
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None
