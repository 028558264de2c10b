"""Arbiter fleet streams (seeds/001, PROTOCOL.md section 3): Server-Sent Events in,
relay events out, one lane per ``stream_id``.

SSE framing: ``event:`` / ``data:`` / ``id:`` lines build an event, a blank line dispatches
it, ``:`` lines are comments (Arbiter's ``: heartbeat``). Stream 0 is the master and maps
to lane ``main``; stream N maps to ``stream-N``. ``stream_start`` opens a lane (with its
depth and agent), ``stream_end`` closes it; ``token_usage`` becomes ``usage`` and ``done``
becomes ``turn_complete``, both carried through with their numbers. Events re-sent by the
replay endpoint (an ``id:`` not above the last one seen) are skipped as duplicates.

Every physical line gets a trace step: the lines of an event are ``consumed`` and the
blank line that dispatches it carries the decision.

State: the event being built (its field lines, reset when a blank line dispatches it), the
last event id seen (replays), and the open lanes with their depths, for the whole stream.
Must not import anything above the format layer.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec import Raw

from .. import relay as R
from .. import trace as T
from ..emitter import Emitter
from ..lanes import MAIN

_decoder: Final = msgspec.json.Decoder()


def lane_of(stream_id: Any) -> str:
    if stream_id in (0, "0", None):
        return MAIN
    return f"stream-{stream_id}"


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
        self._last_id: int | None = None
        self._depth: dict[str, int] = {MAIN: 0}
        self._open_by_depth: dict[int, str] = {0: MAIN}

    def feed_line(self, text: str | bytes) -> list[R.Relay]:
        self.lines += 1
        number = self.lines
        self._out = []
        line = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        line = line.rstrip("\r\n")
        step = T.TraceStep(number, "sse", file=self.file)
        if not line.strip():
            if self._name is not None or self._data:
                self._dispatch(step, number)
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
        self._name, self._data, self._steps, self._data_line = None, [], [], 0
        if event_id is not None and event_id.isdigit():
            if self._last_id is not None and int(event_id) <= self._last_id:
                step.decision, step.reason = T.SKIP, f"replayed event id {event_id} (already at {self._last_id})"
                return
            self._last_id = int(event_id)
        try:
            obj = _decoder.decode(data) if data else {}
        except msgspec.DecodeError as exc:
            self._error(step, line, data, f"{name} event: data is not valid JSON: {exc}")
            return
        if not isinstance(obj, dict):
            self._error(step, line, data, f"{name} event: data is not a JSON object")
            return
        self._event(step, line, name, obj, data)

    def _event(self, step: T.TraceStep, line: int, name: str, obj: dict[str, Any], data: str) -> None:
        lane = lane_of(obj.get("stream_id"))
        step.lane = lane
        emit = self.emit
        if name == "request_received":
            emit(step, R.SessionMeta, line, MAIN, session_id=_str(obj.get("request_id")), model=None, tools=[],
                 source="request_received")
            if obj.get("message"):
                emit(step, R.UserMessage, line, MAIN, text=str(obj["message"]))
            step.reason = f"request for agent {obj.get('agent')!r}"
        elif name in ("stream_start", "agent_start"):
            if lane in self._started:
                step.decision, step.reason = T.IGNORE, f"{name}: lane {lane} already open"
                return
            self._open_lane(step, line, lane, obj)
        elif name == "text":
            if lane not in self._started:
                self._open_lane(step, line, lane, obj)
            emit(step, R.TextDelta, line, lane, text=str(obj.get("delta") or ""), message_id=None,
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
            emit(step, R.Error, line, lane, message=str(obj.get("message") or "error"), raw=data[:200])
        elif name == "done":
            ok = obj.get("ok") is not False
            usage = {k: obj[k] for k in ("input_tokens", "output_tokens") if k in obj}
            emit(step, R.TurnComplete, line, MAIN, subtype="success" if ok else "error", is_error=not ok,
                 result=_str(obj.get("content") if ok or obj.get("content") else obj.get("error")), cost_usd=None,
                 usage=usage or None, duration_ms=obj.get("duration_ms"), num_turns=None,
                 session_id=_str(obj.get("request_id")))
        else:
            emit(step, R.Passthrough, line, lane, event_type=name, data=Raw(data.encode()))
            step.reason = f"{name} event passed through"
        if not step.reason:
            step.reason = f"{name} event"

    def _open_lane(self, step: T.TraceStep, line: int, lane: str, obj: dict[str, Any]) -> None:
        depth = _int(obj.get("depth"))
        if depth is None:
            depth = 0 if lane == MAIN else 1
        parent = None if lane == MAIN else self._open_by_depth.get(depth - 1, MAIN)
        self._started.add(lane)
        self._depth[lane] = depth
        self._open_by_depth.setdefault(depth, lane)
        agent = _str(obj.get("agent"))
        self.emit(step, R.LaneStart, line, lane, parent_lane=parent, depth=depth, agent_type=agent,
                  description=None, label=f"{agent or 'agent'} (stream {obj.get('stream_id', 0)}, depth {depth})")


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None
