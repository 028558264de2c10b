"""The translator: stream-json lines in, relays out, through the strategy chosen."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

import msgspec
from msgspec import UNSET

from .. import relay as R
from .. import trace as T
from .._bounded import WITHDRAW_WINDOW, Recent
from ..emitter import Emitter
from ..lanes import MAIN, Lane, LaneTracker
from ..meaning import NOTED_FIELDS, RECORDS, field_words, task_state
from ..wire import (
    Block,
    Event,
    Frame,
    decode_line,
    tool_result_content,
    unwrap_result,
)
from ..wire import Usage as WireUsage
from .blocks import _NOTED_ROWS, EMPTY_OBJECT, _any, block_text, fingerprint
from .fields import (
    _INIT_FIELDS,
    _INIT_NO_TOOLS,
    _RESULT_FIELDS,
    _agent_result,
    _explicit_lane,
    _extra,
    _fields,
    _raw_block,
    _raw_line,
)
from .lineage import LineageDedup
from .registry import STRATEGIES, strategy_named

# --- the translator -----------------------------------------------------------------------


class _Pending(msgspec.Struct, gc=False):  # one per assistant line: a Struct, as _Rec
    lane: str
    line: int
    model: str | None
    usage: WireUsage
    request_id: str | None = None  # a session record's requestId (the first of the message's rows that has one)


# Content relays a model_refusal_fallback may withdraw (by the message they came from).
_CONTENT: Final = frozenset({R.TextDelta, R.ThinkingDelta, R.ToolUse, R.ContentBlock})
_Noted = tuple[str | None, str | None, tuple[tuple[str | None, int], ...]]  # Translator._recent's items


MAX_BLOCK_INDEX: Final = 1 << 12  # content blocks of one streamed message; real ones have dozens
_BLOCK_EVENTS: Final = frozenset({"content_block_start", "content_block_delta", "content_block_stop"})


class Reset(NamedTuple):
    """One row of the reset table: what an event resets."""

    strategy: bool  # the strategy's de-dup state (index, fingerprint, lineage's messages and ids)
    lanes: bool  # lane inference: open calls a new context may bind to, the bindings made
    usage: bool  # usage of open messages flushed (written now), the message per lane forgotten


RESETS: Final[dict[str, Reset]] = {
    "system/init": Reset(strategy=True, lanes=True, usage=True),
    "result": Reset(strategy=True, lanes=True, usage=True),
    "system/result": Reset(strategy=True, lanes=True, usage=True),
}


class Translator(Emitter):
    """Claude Code stream-json in, relay events out. One instance per input stream."""

    def __init__(self, strategy: str = "lineage", *, trace: bool = False, file: str | None = None) -> None:
        strategy_named(strategy)  # misuse of the API: ValueError, naming the choices
        super().__init__(trace=trace, file=file)
        self.strategy_name = strategy
        self.strategy = STRATEGIES[strategy]()
        self.lane_events = self.strategy.lane_events
        self.lanes = LaneTracker(infer=self.strategy.infers_lanes)
        self._prev_fp: str | None = None
        self._pending: dict[str, _Pending] = {}  # message id -> last usage row seen
        self._lane_msg: dict[str, str] = {}
        self._flushed: Recent[str] = Recent()
        # For model_refusal_fallback: of each recent line with content, its uuid, its message id and
        # its content relays (their message id, or the line's uuid without one; their seq). One
        # append a line; read back only when a fallback comes (two maps kept up to date for every
        # line were a tenth of the translator's time).
        self._recent: deque[_Noted] = deque(maxlen=WITHDRAW_WINDOW)
        self._thinking_est: dict[str, int] = {}  # lane -> the last system/thinking_tokens estimate

    def lane_map(self) -> Mapping[str, Lane]:
        return self.lanes.snapshot()

    def checkpoint(self) -> tuple[Any, ...]:
        """Everything that decides what this translator does with the lines after the last one
        fed, as values no translator holds (immutable, or copies): ``Translator.restore`` of it
        into a new translator gives one that goes on exactly as this one would, however often
        it is restored. Not the trace or the marks so far (``Emitter.checkpoint``). The web
        page's step-through keeps checkpoints along the input, to make a step again from the
        nearest one instead of from the first line (``Workspace._replay_around``)."""
        if type(self) is not Translator:  # a subclass's own state would be missing (SessionTranslator's)
            raise TypeError(f"{type(self).__name__} keeps state a Translator checkpoint does not hold")
        # _pending's records are replaced, never changed in place: shared with the checkpoint
        return (Emitter.checkpoint(self), self.strategy_name, self.strategy.checkpoint(), self.lanes.checkpoint(),
                self._prev_fp, tuple(self._pending.items()), tuple(self._lane_msg.items()), self._flushed.checkpoint(),
                tuple(self._recent), tuple(self._thinking_est.items()))

    def checkpoint_size(self) -> int:
        """How many entries (ids, lanes, a message's records) a checkpoint now holds: what its
        memory and the time to take it grow with."""
        lanes, strategy = self.lanes, self.strategy
        size = (len(self._flushed) + len(self._pending) + len(lanes.lanes) + len(lanes.spawns)
                + len(lanes.tool_lane) + len(lanes.contexts) + len(self._recent))
        if isinstance(strategy, LineageDedup):
            size += len(strategy.msgs) + len(strategy.tool_ids) + len(strategy.result_ids)
        return size

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        """Hold what ``checkpoint`` held (any translator's, of any strategy) and nothing else."""
        emitter, name, strategy, lanes, self._prev_fp, pending, lane_msg, flushed, recent, est = checkpoint
        Emitter.restore(self, emitter)
        self.strategy_name, self.strategy = name, STRATEGIES[name]()
        self.strategy.restore(strategy)
        self.lanes.restore(lanes)
        self._pending, self._lane_msg = dict(pending), dict(lane_msg)
        self._flushed.restore(flushed)
        self._recent = deque(recent, maxlen=WITHDRAW_WINDOW)
        self._thinking_est = dict(est)

    # -- entry points -------------------------------------------------------------------

    def feed_line(self, text: str | bytes) -> list[R.Relay]:
        self.lines = line = self.lines + 1
        d = self.drift
        return self.feed(decode_line(text, line) if d is None else d.decode(text, line, self.file))

    def feed(self, frame: Frame) -> list[R.Relay]:
        line, kind, ev = frame.line, frame.kind, frame.event
        if line > self.lines:
            self.lines = line
        self._out = []
        tracing = self.tracing
        marks = self.marks
        # Without tracing one scratch step is reused: nothing reads it back but the marks, whose
        # fields are cleared for each line.
        if tracing:
            step = T.TraceStep(line, kind, file=self.file, note=frame.note)
        else:
            step = self._scratch
            if marks is not None:
                step.lane, step.fp, step.reset = None, None, None
        if kind == "event" and ev is not None:
            try:
                if frame.warning is not None:
                    self.warn(step, line, frame.text, frame.warning)
                self._event(step, frame, ev)
            except Exception as exc:  # a bug: report it on its line, keep the stream going
                self._internal_error(step, line, frame.text, exc)
            if tracing and step.seqs and step.decision in (T.IGNORE, T.SKIP):
                step.decision = T.EMIT if step.decision == T.IGNORE else T.PARTIAL
        elif kind == "blank":
            step.decision, step.reason = T.IGNORE, "blank line"
        else:
            self._error(step, line, frame.text, frame.error or "unreadable line")
        if tracing:
            self.trace.append(step)
        elif marks is not None:  # as Marks.add, without a call: this runs for every line
            marks.line.append(line)
            marks.lane.append(step.lane)
            marks.fp.append(step.fp)
            marks.reset.append(step.reset)
            marks.end.append(self._seq)
        return self._out

    def finish(self) -> list[R.Relay]:
        """End of input: emit the usage of messages still open."""
        self._out = []
        if self._pending:
            step = T.TraceStep(self.lines, "end of input", decision=T.EMIT, file=self.file)
            self._flush_all(step)
            step.reason = "usage of messages still open"
            self._record(step)
        return self._out

    # -- emission -----------------------------------------------------------------------

    def _start_lane(self, step: T.TraceStep, line: int, lane_id: str) -> None:
        self._started.add(lane_id)
        lane = self.lanes.lane(lane_id)
        self.emit(
            step, R.LaneStart, line, lane_id, parent_lane=lane.parent, depth=lane.depth,
            agent_type=lane.agent_type, description=lane.description, inferred=lane.inferred,
            label=lane.label,
        )

    def emit_block(
        self, step: T.TraceStep, f: Frame, lane: str, b: Block, msg_id: str | None, index: int,
        *, text: str | None = None, partial: bool = False,
    ) -> None:
        kind = b.type
        line = f.line
        push = self._out.append
        if kind == "text":
            push(R.TextDelta(seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
                             text=(b.text or "") if text is None else text, message_id=msg_id,
                             block_index=index, partial=partial))
        elif kind == "thinking":
            body = block_text(b) if text is None else text
            ev = f.event
            if body or not (partial or b.signature or (ev is not None and ev.thinking_display == "omitted")):
                push(R.ThinkingDelta(seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
                                     text=body, message_id=msg_id, block_index=index, partial=partial,
                                     duration_ms=ev.thinking_duration_ms if ev is not None else None))
            else:  # the CLI left the text out (PROTOCOL.md 6): say what is known of it instead
                est, took = self._omitted_thinking(ev, lane, partial)
                push(R.ThinkingDelta(seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
                                     text="", message_id=msg_id, block_index=index, partial=partial, omitted=True,
                                     estimated_tokens=est, duration_ms=took))
        elif kind == "tool_use":
            tool_id, name = b.id or "", b.name or ""
            self.lanes.note_tool_use(tool_id, name, b.input, lane)
            push(R.ToolUse(seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
                           id=tool_id, name=name, input=b.input if b.input else EMPTY_OBJECT,
                           message_id=msg_id, block_index=index))
        elif kind == "redacted_thinking":
            self.emit(step, R.ThinkingDelta, line, lane, text="[redacted thinking]", message_id=msg_id,
                      block_index=index, redacted=True)
        else:
            self.emit(step, R.ContentBlock, line, lane, block_type=kind or "", data=_raw_block(f, b),
                      message_id=msg_id, block_index=index)

    # -- per event type -----------------------------------------------------------------

    def _event(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        start = len(self._out)
        self._dispatch(step, f, ev)
        if (ev.attributionAgent or ev.attributionSkill or ev.origin or ev.promptSource or ev.sourceToolUseID
                or ev.apiErrorStatus or ev.wire_tool_inputs):
            self._note_fields(start, ev)

    def _note_fields(self, start: int, ev: Event) -> None:
        """The words of the line's ``FIELD_MEANINGS`` fields, on the first row it gave (a
        ``system`` or ``passthrough`` row says them in its own summary)."""
        fields: dict[str, Any] = {}
        for key in NOTED_FIELDS:
            raw = getattr(ev, key)
            if raw:
                try:
                    fields[key] = _any.decode(raw)
                except (msgspec.DecodeError, RecursionError):
                    continue
        words = tuple(field_words(fields))
        out = self._out
        for i in range(start, len(out)):
            r = out[i]
            if isinstance(r, R.System | R.Passthrough):
                return
            if type(r) in _NOTED_ROWS and words:
                out[i] = msgspec.structs.replace(r, notes=words)
                return

    def _dispatch(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        kind = ev.type
        if kind == "assistant":
            self._assistant(step, f, ev)
        elif kind == "user":
            self._user(step, f, ev)
        elif kind == "result":
            step.kind = "result"
            self._result(step, f, ev)
        elif kind == "system":
            step.kind = f"system/{ev.subtype}"
            if ev.subtype == "init":
                self._reset(step, "system/init")
                # tools that are no list (one string, in captures their authors redacted) stay in extra
                self.emit(step, R.SessionMeta, f.line, MAIN, session_id=ev.session_id, model=ev.model,
                          tools=ev.tools or [], cwd=ev.cwd, version=ev.claude_code_version, source="init",
                          extra=_extra(f, _INIT_FIELDS if ev.tools is not None else _INIT_NO_TOOLS))
                step.reason = ("a session starts: its model, tools and folder make the session's first row; "
                               "the de-dup state starts empty")
            elif ev.subtype == "result":  # the documented end-of-turn marker
                self._reset(step, "system/result")
                step.decision, step.reason = T.IGNORE, "end of turn (system/result): nothing to show; the de-dup state is cleared"
            else:
                sub = ev.subtype
                tid = ev.tool_use_id
                if sub == "permission_denied" and tid is not None:  # a row on the refused call, where it ran
                    lane = self.lanes.tool_lane.get(tid) or _explicit_lane(ev) or MAIN
                else:
                    lane = tid if tid in self.lanes.spawns else _explicit_lane(ev) or MAIN
                step.lane = lane
                state: str | None = None
                retracts: tuple[int, ...] = ()
                if sub == "thinking_tokens" and isinstance(ev.estimated_tokens, int | float):
                    self._thinking_est[lane] = int(ev.estimated_tokens)
                elif sub == "model_refusal_fallback":
                    retracts = self._retracted(_fields(f))
                    step.note = f"withdraws {len(retracts)} content relay(s)"
                elif sub is not None and sub.startswith("task_") and lane == ev.tool_use_id:  # a sub-agent's task
                    state = task_state(sub, _fields(f))
                self.emit(step, R.System, f.line, lane, subtype=sub, data=_raw_line(f), state=state,
                          retracts=retracts)
                step.reason = "system event passed through"
        elif kind == "stream_event":
            self._stream_event(step, f, ev)
        else:
            step.kind = f"passthrough:{kind}"
            lane = _explicit_lane(ev) or MAIN
            if lane not in self.lanes.spawns and lane in self.lanes.tool_lane:  # about an ordinary call (its
                lane = self.lanes.tool_lane[lane]  # progress): where the call ran, not a lane of its own
            step.lane = lane
            self.emit(step, R.Passthrough, f.line, lane, event_type=kind, data=_raw_line(f))
            step.decision, step.reason = T.EMIT, (f"{kind} record passed through" if kind in RECORDS
                                                  else f"unknown event type {kind!r} passed through")

    def _assistant(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        step.kind = "assistant"
        msg = ev.message
        if msg is None:
            step.decision, step.reason = T.IGNORE, "assistant event without a message"
            return
        content = msg.content
        blocks = content if isinstance(content, list) else [Block(type="text", text=content)] if content else []
        if self.tracing or self.marks is not None:
            fp = fingerprint(blocks[0]) if blocks else None
            step.fp, step.prev_fp = fp, self._prev_fp
            self._prev_fp = fp
        parent = ev.parent_tool_use_id
        if parent is not UNSET:
            lane = parent or MAIN
            if ev.subagent_type is not None or ev.task_description is not None:
                self._describe(ev)
        elif self.lanes.infer and blocks:
            lane, how = self.lanes.infer_context(msg.id or f"fp:{fingerprint(blocks[0])}")
            step.note = f"lane inferred ({how})"
        else:
            lane = MAIN
        step.lane = lane
        start = len(self._out)
        self.strategy.assistant(self, step, f, lane, msg, blocks)
        if ev.uuid is not None or msg.id is not None:
            self._note_content(start, ev.uuid, msg.id)
        if msg.id is not None and msg.usage is not None:
            self._note_usage(step, f.line, lane, msg.id, msg.model, msg.usage, ev.requestId)

    def _user(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        step.kind = "user"
        msg = ev.message
        content = msg.content if msg is not None else None
        parent = ev.parent_tool_use_id
        if parent is not UNSET:
            explicit: str | None = parent or MAIN
            if ev.subagent_type is not None or ev.task_description is not None:
                self._describe(ev)
        else:  # no parent_tool_use_id key: inferred per item when the strategy infers lanes
            explicit = None if self.lanes.infer else MAIN
        emitted = skipped = 0
        if isinstance(content, str):
            content = [Block(type="text", text=content)]
        line, lanes, accept = f.line, self.lanes, self.strategy.accept_result
        for i, b in enumerate(content or []):
            if b.type == "tool_result":
                tid = b.tool_use_id or ""
                lane = explicit or lanes.infer_tool_result(tid)
                if not accept(tid):
                    skipped += 1
                    if self.tracing:
                        step.blocks.append(T.BlockStep(i, f"tool_result:{tid}", T.BLOCK_DUP, "result already emitted"))
                    continue
                body, others = tool_result_content(b.content)
                # Most results answer an ordinary tool: test before reading it as a spawn's.
                spawn = tid in lanes.spawns
                agent_id, tokens, launched = _agent_result(ev) if spawn else (None, None, False)
                self._out.append(R.ToolResult(
                    seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
                    tool_use_id=tid, content=body, is_error=bool(b.is_error),
                    attachments=tuple(others) if others else (), launched=launched))
                emitted += 1
                if spawn:
                    ended = lanes.close_spawn(tid)
                    if ended is not None:
                        if launched and self._ends_elsewhere(ended):
                            pass  # its agent works on: its lane ends where its work does
                        elif ended.id in self._started:
                            self._flush_lane(step, ended.id)
                            self.emit(step, R.LaneEnd, line, ended.id, tool_use_id=tid, is_error=bool(b.is_error),
                                      agent_id=agent_id, total_tokens=tokens)
            else:
                lane = explicit or self.lanes.infer_other()
                text: str | None = b.text if b.type == "text" else f"[{b.type}]"
                self.emit(step, R.UserMessage, f.line, lane, text=text or "", replay=bool(ev.isReplay))
                emitted += 1
            step.lane = lane
        if emitted == 0 and skipped == 0:
            step.decision, step.reason = T.IGNORE, "user event without content"
        elif skipped:
            step.decision = T.SKIP if emitted == 0 else T.PARTIAL
            step.reason = (f"skipped {T.plural(skipped, 'tool result')} already emitted for "
                           f"{'its' if skipped == 1 else 'their'} tool_use_id" + (f", emitted {emitted} new" if emitted else ""))
        elif self.tracing:
            results = sum(1 for b in content or [] if b.type == "tool_result")
            parts = [T.plural(results, "tool result")] if results else []
            if emitted - results:
                parts.append(T.plural(emitted - results, "user message"))
            step.reason = f"emitted {' and '.join(parts)}: a user event is passed on as it comes"

    def _ends_elsewhere(self, lane: Lane) -> bool:
        """``lane``'s spawn result only says its agent was launched in the background: whether
        its end is told elsewhere (a session's files: at the end of the agent's work), so that
        the result ends nothing. Here (stream-json) the result still ends the lane."""
        return False

    def _describe(self, ev: Event) -> None:
        """A forwarded sub-agent frame's type and task, for its lane (``parent_tool_use_id``) when
        no spawn call named them (a capture that starts after the call); once its lane_start is
        out, it stays as it is."""
        lane = ev.parent_tool_use_id
        if isinstance(lane, str) and lane and lane != MAIN and lane not in self._started:
            self.lanes.describe(lane, ev.subagent_type, ev.task_description)

    def _result(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        self._reset(step, "result")
        try:
            usage = _any.decode(ev.usage) if ev.usage else None
        except (msgspec.DecodeError, RecursionError):
            usage = None
        known = _RESULT_FIELDS
        if usage is not None and not isinstance(usage, dict):  # not an object: kept in extra as it came
            usage, known = None, known - {"usage"}
        cost: float | None = ev.total_cost_usd  # cost_usd carries one of the two
        if cost is not None:
            known -= {"cost_usd"}
        else:
            cost, known = ev.cost_usd, known - {"total_cost_usd"}
        self.emit(step, R.TurnComplete, f.line, MAIN, subtype=ev.subtype, is_error=bool(ev.is_error),
                  result=unwrap_result(ev.result), cost_usd=cost, usage=usage, duration_ms=ev.duration_ms,
                  num_turns=ev.num_turns, session_id=ev.session_id, extra=_extra(f, known))
        step.reason = "the turn is complete: the next turn's messages are new, so the de-dup state is cleared"

    def _stream_event(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        inner = ev.event
        kind = inner.type if inner is not None else None
        step.kind = f"stream_event/{kind}"
        lane = _explicit_lane(ev) or MAIN
        step.lane = lane
        if inner is None:
            step.decision, step.reason = T.IGNORE, "stream_event without an event"
            return
        index = inner.index
        if index is not None and not 0 <= index < MAX_BLOCK_INDEX and kind in _BLOCK_EVENTS:
            # lineage keeps a message's blocks by position: -1 would name the last block, and
            # 50,000,000 would pad the message with that many placeholders
            message = f"{kind}: content block index {index} is out of range (0 to {MAX_BLOCK_INDEX - 1}); ignored"
            self.warn(step, f.line, f.text, message, lane)
            step.reason = message
            return
        if kind == "message_start" and inner.message is not None and inner.message.id:
            m = inner.message
            self._lane_msg_switch(step, lane, m.id or "")
            if m.usage is not None:
                self._note_usage(step, f.line, lane, m.id or "", m.model, m.usage)
        elif kind == "message_delta" and inner.usage is not None:
            current = self._lane_msg.get(lane)
            if current is not None and current in self._pending:
                old = self._pending[current]
                merged = msgspec.structs.replace(
                    old.usage, **{k: v for k, v in msgspec.structs.asdict(inner.usage).items() if v is not None}
                )
                self._pending[current] = _Pending(lane, f.line, old.model, merged, old.request_id)
        start = len(self._out)
        self.strategy.stream(self, step, f, lane, inner)
        if len(self._out) > start:
            self._note_content(start, ev.uuid, None)
        if kind == "message_stop":
            current = self._lane_msg.get(lane)
            if current is not None:
                self._flush_usage(step, current)

    # -- usage: the last row of a message carries its final usage -----------------------

    def _lane_msg_switch(self, step: T.TraceStep, lane: str, msg_id: str) -> None:
        current = self._lane_msg.get(lane)
        if current != msg_id:
            if current is not None:
                self._flush_usage(step, current)
            self._lane_msg[lane] = msg_id

    def _note_usage(self, step: T.TraceStep, line: int, lane: str, msg_id: str, model: str | None,
                    usage: WireUsage, request_id: str | None = None) -> None:
        """A row of message ``msg_id`` with its usage so far: the last row's values are the
        message's (``usage`` module doc), written once, when the message ends. A message is its
        id: rows of one response share it (and its ``requestId``, which a repeated row may lack)."""
        lane_msg = self._lane_msg
        current = lane_msg.get(lane)
        if current != msg_id:  # as _lane_msg_switch
            if current is not None:
                self._flush_usage(step, current)
            lane_msg[lane] = msg_id
        if msg_id not in self._flushed:
            if request_id is None:
                old = self._pending.get(msg_id)
                request_id = old.request_id if old is not None else None
            self._pending[msg_id] = _Pending(lane, line, model, usage, request_id)

    def _flush_usage(self, step: T.TraceStep, msg_id: str) -> None:
        p = self._pending.pop(msg_id, None)
        if p is None:
            return
        self._flushed.add(msg_id)
        u, line, lane = p.usage, p.line, p.lane
        self._out.append(R.Usage(
            seq=self.next_seq(step, line, lane), line=line, lane=lane, file=self.file,
            message_id=msg_id, model=p.model, input_tokens=int(u.input_tokens or 0),
            output_tokens=int(u.output_tokens or 0), cache_read_input_tokens=int(u.cache_read_input_tokens or 0),
            cache_creation_input_tokens=int(u.cache_creation_input_tokens or 0), request_id=p.request_id))

    # -- newer shapes (PROTOCOL.md 6): omitted thinking, retracted messages ---------------------

    def _omitted_thinking(self, ev: Event | None, lane: str, partial: bool) -> tuple[int | None, float | None]:
        """What is known of a thinking block the CLI left out: the token estimate (the streamed
        delta's own, else the lane's last ``system/thinking_tokens``) and the frame's thinking time."""
        est: int | float | None = None
        inner = ev.event if ev is not None else None
        if inner is not None and inner.delta is not None:
            est = inner.delta.estimated_tokens
        if not isinstance(est, int | float):
            est = self._thinking_est.get(lane) if partial else self._thinking_est.pop(lane, None)
        took = ev.thinking_duration_ms if ev is not None else None
        return (int(est) if isinstance(est, int | float) else None), took

    def _note_content(self, start: int, uuid: str | None, msg_id: str | None) -> None:
        """Remember the content relays emitted since ``start`` with their message (what a later
        ``model_refusal_fallback`` may withdraw), and the line's ``uuid`` and message."""
        out = self._out
        if len(out) == start + 1:  # one relay: the usual line, without a loop
            r: Any = out[start]
            relays: tuple[tuple[str | None, int], ...] = ((r.message_id or uuid, r.seq),) if type(r) in _CONTENT else ()
        else:
            relays = tuple((r.message_id or uuid, r.seq) for r in out[start:] if type(r) in _CONTENT)  # type: ignore[attr-defined]
        if relays or (uuid is not None and msg_id is not None):
            self._recent.append((uuid, msg_id, relays))

    def _retracted(self, fields: Any) -> tuple[int, ...]:
        """The seqs of the content relays of the messages a ``model_refusal_fallback`` names
        (``retracted_message_uuids``: the lines' uuids, or message ids); tolerant of any shape."""
        uuids = fields.get("retracted_message_uuids") if isinstance(fields, dict) else None
        named = [u for u in (uuids if isinstance(uuids, list) else []) if isinstance(u, str)]
        if not named:
            return ()
        message_of = {u: m for u, m, _ in self._recent if u is not None and m is not None}  # the latest wins
        keys = {k for u in named for k in (message_of.get(u, u), u)}
        return tuple(sorted({q for _, _, relays in self._recent for key, q in relays if key in keys}))

    def _flush_lane(self, step: T.TraceStep, lane: str) -> None:
        for msg_id in [m for m, p in self._pending.items() if p.lane == lane]:
            self._flush_usage(step, msg_id)

    def _reset(self, step: T.TraceStep, event: str) -> None:
        """Apply ``event``'s row of the reset table (``RESETS``, the module doc)."""
        row = RESETS[event]
        if row.usage:
            self._flush_all(step)
        if row.strategy:
            self.strategy.turn_end(step)
        if row.lanes:
            self.lanes.end_run()

    def _flush_all(self, step: T.TraceStep) -> None:
        for msg_id in list(self._pending):
            self._flush_usage(step, msg_id)
        self._lane_msg.clear()


