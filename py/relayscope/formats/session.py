"""Claude Code on-disk session transcripts (PROTOCOL.md section 2): records in, relays out.

Theory of operation
-------------------
A session transcript is one JSON record per line (``~/.claude/projects/<project>/<session>.jsonl``).
Its ``user`` / ``assistant`` / ``system`` records carry the same ``message`` as stream-json, so
:class:`SessionTranslator` *is* the stream-json :class:`~relayscope.translator.Translator`
with three things added in front of it; every de-dup rule (repeated message rows, usage taken
from the last row of a message) stays in ``translator``:

1. **Order.** Records are fed in file order, except that a record never goes before its
   ``parentUuid``: a record whose parent is written further down waits for it (real 2.1.x files
   hold such pairs). Timestamps are never read. When the whole file is at hand
   (``translate_file``) the rule is exact; when lines stream in (``feed_line``) a record
   waits at most ``HOLD_WINDOW`` lines for a parent that may never come (a file cut from a longer
   one), and the lines after it keep their place behind it.
2. **Lanes.** Each record is given a lane, written into ``parent_tool_use_id`` before the inner
   translator sees it, so lanes are explicit (never inferred) and named as in stream-json: by the
   id of the ``Task``/``Agent`` tool_use that spawned the sub-agent. How a record finds its lane:

   * in a sub-agent file (``agent-<id>.jsonl``, CLI 2.0.x beside the session, 2.1.x in
     ``<session>/subagents/``) every record is in the file's lane, which is the tool_use id named
     by ``agent-<id>.meta.json`` (``toolUseId``) or by the parent's tool result
     (``toolUseResult.agentId == <id>``); failing both, the Task whose ``prompt`` equals the file's
     first user prompt (content equality, a single unbound match);
   * a record with ``isSidechain`` false is in ``main``;
   * a sidechain record with a known ``agentId`` link is in that spawn's lane;
   * an inline sidechain (CLI 1.0.x) record whose ``parentUuid`` was fed is in its parent's lane;
     the root of an inline sidechain (``parentUuid`` null, a user prompt) is linked to the
     ``Task``/``Agent`` call whose ``input.prompt`` is exactly that prompt (the first such call not
     yet bound). The real 1.0.x files in the corpus bear this out: the Task's prompt is echoed
     verbatim as the sidechain's first record, and nothing else ties them (the root has no parent,
     1.0.x tool results carry no ``agentId``);
   * a sidechain nothing links (a ``Warmup`` run, a compaction run ``agent-acompact-*`` or a prompt
     suggestion ``agent-aprompt_suggestion-*``, a sub-agent file without its main file, a sidechain
     record whose parent is not in the file) gets a lane of its own: ``agent-<agentId>`` or
     ``sidechain-<uuid>``, labelled ``compaction`` or ``prompt suggestion`` for those
     (INTERNAL_AGENTS) and "no spawning call found" otherwise. The one exception: a sidechain
     record whose parent is missing joins the inline sidechain lane when exactly one is still open (its spawn has no
     result yet), since the missing parent can only have been in it.

   Nested sub-agents keep their depth: a spawn made in a sub-agent lane opens a lane one deeper
   (``lanes.LaneTracker``), whichever file it was written in.
3. **Session records.** The first record of each ``sessionId`` yields a ``session_meta`` relay
   (``source: "transcript"``, with ``cwd`` and ``version``). ``summary``, ``progress``,
   ``queue-operation``, ``file-history-snapshot``, ``attachment``, ``mode``, ``last-prompt``,
   ``ai-title`` and any type not invented yet become ``passthrough`` relays in their lane.

Several files of one session share one translator (``multifile.translate_session`` drives it
through :meth:`SessionTranslator.translate_file`), so seq numbers, de-dup state and lanes span
the files; which file is read when is decided up there, told to this class through its public
methods (``link_agent``, ``reserve_spawns``, ``describe_lane``, ``own_lane``, ``on_spawn``).

State, on top of the stream-json translator's (see ``translator``): the lane of every record fed
(by uuid), the spawn calls seen and their prompts, which calls a sidechain or file is bound to,
the sessions seen (all but the links bounded, ``_bounded``), the agent-id links, and the record queue of the file being read (records
waiting for a parent written after them). None of it resets on ``result``: a session's
records keep their lanes across turns. The queue empties at the end of each file.

A sub-agent resumed later (``SendMessage``) appends to its file: ``multifile`` cuts it and
tells this class (``resume_lane``, ``end_lane``). A spawn's result that only says its agent was
launched in the background ends nothing (``_ends_elsewhere``: the lane is in ``background`` until
its caller ends it with ``end_lane``). Not handled: ``progress`` records that embed
a sub-agent's messages (``agent_progress``) pass through whole, not as content.

No I/O here: callers pass file contents. Bad input never raises; it becomes ``error`` relays.
Must not import anything above the format layer (``analysis``, ``audit``, ``multifile``).
"""

import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Final

import msgspec
from msgspec import Raw, Struct

from .. import relay as R
from .. import trace as T
from .._bounded import Recent, RecentMap
from ..lanes import MAIN, MESSAGE_TOOL, WORKFLOW_TOOL, Lane, is_spawn_tool, spawn_input
from ..translator import Translator
from ..wire import Event, Frame, decode_line, split_lines

__all__ = [
    "AGENT_FILE",
    "AGENT_META",
    "BACKGROUND_END",
    "COMPACTION",
    "UNLINKED",
    "AgentLink",
    "SessionTranslator",
    "agent_link",
    "decode_or",
    "first_text",
    "split_lines",
]

Text = str | bytes
AGENT_FILE: Final = re.compile(r"^agent-(.+)\.jsonl$")  # a sub-agent's records
AGENT_META: Final = re.compile(r"^agent-(.+)\.meta\.json$")  # its meta file (2.1.x)
SIDECHAINS_KEPT: Final = 1024  # inline sidechain lanes remembered (the open ones are the last few)
COMPACTION: Final = "compaction"
# Sub-agents the CLI runs for itself, which no tool call spawns: agent id prefix -> lane label
INTERNAL_AGENTS: Final = {"acompact": COMPACTION, "aprompt_suggestion": "prompt suggestion"}
UNLINKED: Final = "no spawning call found"
BACKGROUND_END: Final = "end of the background agent's work: its launch result ended nothing"


class AgentLink(Struct):
    """``toolUseResult`` of a spawn's result: the sub-agent it names."""

    agentId: str | None = None
    status: Any = None  # "async_launched": the agent was launched in the background
    isAsync: Any = None

    @property
    def launched(self) -> bool:
        """The result only says the agent was launched in the background: its work ends later."""
        return self.status == "async_launched" or self.isAsync is True


class _Head(Struct):
    cwd: str | None = None
    version: str | None = None


agent_link: Final = msgspec.json.Decoder(AgentLink)
_head: Final = msgspec.json.Decoder(_Head)


def decode_or(decoder: msgspec.json.Decoder[Any], data: Text | Raw, default: Any) -> Any:
    """``decoder.decode(data)``, or ``default`` for anything it cannot read."""
    try:
        return decoder.decode(data)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return default


def first_text(content: Any) -> str | None:
    """The prompt of a user record: its string content, or its first text block."""
    if isinstance(content, str):
        return content
    for b in content or []:
        if getattr(b, "type", None) == "text":
            return getattr(b, "text", None)
    return None


def _agent_of(ev: Event) -> str | None:
    """``toolUseResult.agentId`` of a user record (the sub-agent a spawn's result names)."""
    raw = ev.toolUseResult
    if not raw or b"agentId" not in bytes(raw):
        return None
    info = decode_or(agent_link, raw, None)
    return info.agentId if info is not None and isinstance(info.agentId, str) else None


# --- one file being read ----------------------------------------------------------------------

class _FileCtx:
    # A plain class, not a dataclass: importing ``dataclasses`` (and its ``inspect``) was a tenth of a
    # one-session run's start-up.
    __slots__ = ("complete", "done", "lane", "lines", "name", "queue", "queued")

    def __init__(self, name: str | None, lane: str | None = None, complete: bool = False) -> None:
        self.name = name
        self.lane = lane  # every record's lane (a sub-agent file), or None: decide per record
        self.complete = complete  # the whole file is at hand: a record waits for its parent to the end
        self.lines = 0
        self.queue: deque[Frame] = deque()
        self.queued: dict[str, Frame] = {}  # uuid -> frame waiting in the queue
        self.done: set[int] = set()  # lines already fed


class SessionTranslator(Translator):
    """One session transcript (or several, through ``translate_file``) in, relays out.
    Same interface as :class:`~relayscope.translator.Translator`."""

    HOLD_WINDOW: ClassVar[int] = 64  # lines a streamed record waits for a parent written after it

    def __init__(self, strategy: str = "lineage", *, trace: bool = False, file: str | None = None,
                 links: Mapping[str, str] | None = None) -> None:
        super().__init__(strategy, trace=trace, file=file)
        self.links: dict[str, str] = dict(links or {})  # agent id -> spawning tool_use id
        self.file_errors: list[tuple[str | None, int, str]] = []
        self._ctx = _FileCtx(file)
        # Bounded as the stream-json translator's ids are (``_bounded``): a record's parent, a
        # spawn's prompt, a sidechain's call are written close to where they are needed, and a
        # session file of millions of records must not keep every uuid.
        self._lane_of: RecentMap[str, str] = RecentMap()  # uuid of every record fed -> its lane
        self._prompts: RecentMap[str, list[str]] = RecentMap()  # Task prompt -> spawn ids, in spawn order
        self._spawn_seen: Recent[str] = Recent()
        self._bound: Recent[str] = Recent()  # spawn ids an inline sidechain or a file is bound to
        self._sidechains: deque[str] = deque(maxlen=SIDECHAINS_KEPT)  # inline sidechain lanes, in order
        self._sessions: Recent[str] = Recent()
        self._how = ""
        self._usage_file: dict[str, str | None] = {}  # message id -> file of its pending usage row
        self._on_spawn: Callable[[str], list[R.Relay]] | None = None
        self._files: dict[str, _FileCtx] = {}  # files being read as they grow (feed_file_line)
        # lanes whose spawn result said "launched in the background" and whose work has not
        # ended yet (their callers end them: ``end_lane`` at the end of the agent's work)
        self.background: set[str] = set()
        self._lane_ends: set[str] = set()  # lanes ``end_lane`` ended (their latest span)

    # -- entry points ---------------------------------------------------------------------

    def feed_line(self, text: Text) -> list[R.Relay]:
        ctx = self._ctx
        ctx.lines += 1
        return self.feed(self._decode(text, ctx.lines))

    def _decode(self, text: Text, line: int) -> Frame:
        """The line's frame; through the drift count when there is one (each file its own lines)."""
        d = self.drift
        return decode_line(text, line) if d is None else d.decode(text, line, self.file)

    def feed(self, frame: Frame) -> list[R.Relay]:
        ctx = self._ctx
        if frame.line > ctx.lines:
            ctx.lines = frame.line
        ev = frame.event
        if not ctx.queue and (ev is None or ev.parentUuid is None or ev.parentUuid in self._lane_of):
            return self._feed_now(ctx, frame, moved=False)  # the usual case: nothing waits
        ctx.queue.append(frame)
        if ev is not None and ev.uuid:
            ctx.queued[ev.uuid] = frame
        return self._drain(final=False)

    def finish(self) -> list[R.Relay]:
        out = self._drain(final=True)
        return out + super().finish()

    # -- several files (driven by multifile.translate_session) -------------------------------

    def on_spawn(self, hook: Callable[[str], list[R.Relay]] | None) -> None:
        """Call ``hook(spawn_id)`` right after the record holding a spawn call seen for the first
        time; the relays it returns (a sub-agent file translated there) follow that record's."""
        self._on_spawn = hook

    def link_agent(self, agent_id: str, spawn_id: str) -> None:
        """The sub-agent ``agent_id`` was spawned by the call ``spawn_id``."""
        self.links[agent_id] = spawn_id

    def reserve_spawns(self, spawn_ids: Iterable[str]) -> None:
        """Spawn calls a sub-agent file is linked to: an inline sidechain never binds to them."""
        for spawn in spawn_ids:
            self._bound.add(spawn)

    def own_lane(self, lane_id: str, agent: str | None) -> str:
        """A lane no spawn call is known for (``agent``: its agent id, when it has one)."""
        kind = next((label for prefix, label in INTERNAL_AGENTS.items() if agent and agent.startswith(prefix)), None)
        self.lanes.own_lane(lane_id, agent_type=kind, description=None if kind else UNLINKED)
        return lane_id

    def describe_lane(self, lane_id: str, agent_type: str | None = None, description: str | None = None,
                      depth: int | None = None, file: str | None = None, *, over_spawn: bool = False) -> None:
        """Lane metadata known before the spawn is seen (an ``agent-<id>.meta.json``, the
        sub-agent file that holds the lane's records). With ``over_spawn`` it was read after
        the spawn (a folder read as it grows) and still wins over the call's input, as it does
        when read first."""
        if over_spawn:
            lane = self.lanes.lane(lane_id)
            lane.agent_type = agent_type or lane.agent_type
            lane.description = description or lane.description
        self.lanes.describe(lane_id, agent_type, description, depth, file)

    # -- files that grow while they are read (live.LiveFiles: a folder being written) --------

    def feed_file_line(self, name: str, text: Text, lane: str | None = None) -> list[R.Relay]:
        """One line of file ``name``. Lines of several files may interleave in any order; each
        file keeps its own line numbers and parent-order queue (streamed: a record waits at most
        ``HOLD_WINDOW`` lines for a parent written after it). ``lane``, given with a sub-agent
        file's first line, puts every record of that file in the lane of its spawning call."""
        ctx = self._files.get(name)
        if ctx is None:
            ctx = self._files[name] = _FileCtx(name, lane=lane)
        outer, outer_file = self._ctx, self.file
        self._ctx, self.file = ctx, name
        try:
            ctx.lines += 1
            return self.feed(self._decode(text, ctx.lines))
        finally:
            self._ctx, self.file = outer, outer_file

    def end_file(self, name: str) -> list[R.Relay]:
        """No more lines of ``name`` for now (end of input, or the file is read again from its
        start): the records still waiting for a parent go. Its next line is line 1 again."""
        ctx = self._files.pop(name, None)
        if ctx is None:
            return []
        outer, outer_file = self._ctx, self.file
        self._ctx, self.file = ctx, name
        try:
            return self._drain(final=True)
        finally:
            self._ctx, self.file = outer, outer_file

    def spawned(self, spawn_id: str) -> bool:
        """Whether the Task/Agent call ``spawn_id`` has been fed."""
        return spawn_id in self._spawn_seen

    def link_file(self, agent_id: str, first_prompt: str | None,
                  meta_spawn: str | None = None) -> tuple[str, str] | None:
        """The spawning call of sub-agent file ``agent-<agent_id>.jsonl`` from what was fed so
        far, and how it was found, in the order ``multifile.translate_session`` uses: the meta
        file's ``toolUseId``, a tool result's ``agentId``, then the one fed call whose prompt
        is the file's first prompt. None while nothing links it (yet)."""
        if meta_spawn:
            self._bound.add(meta_spawn)
            self.links.setdefault(agent_id, meta_spawn)
            return meta_spawn, "agent-<id>.meta.json toolUseId"
        if agent_id in self.links:
            self._bound.add(self.links[agent_id])
            return self.links[agent_id], "toolUseResult.agentId of the spawn's result"
        spawn = self._bind_prompt(first_prompt)
        if spawn is None:
            return None
        self.links[agent_id] = spawn
        return spawn, "the spawning call's prompt is the file's first prompt"

    def translate_file(self, name: str | None, lines: Iterable[Text], lane: str | None = None,
                       first_line: int = 1) -> list[R.Relay]:
        """Translate one whole file in its own context (exact parent order), then return to
        the file being read before. ``lane`` forces every record into one lane; ``first_line``:
        the line of the file ``lines`` start at (a part of it)."""
        outer, outer_file = self._ctx, self.file
        self._ctx = ctx = _FileCtx(name, lane=lane, complete=True)
        ctx.lines = first_line - 1
        self.file = name
        try:
            out: list[R.Relay] = []
            for text in lines:
                ctx.lines += 1
                out.extend(self.feed(self._decode(text, ctx.lines)))
            return out + self._drain(final=True)
        finally:
            self._ctx, self.file = outer, outer_file

    # -- order: a record never goes before its parent ----------------------------------------

    def _drain(self, final: bool) -> list[R.Relay]:
        ctx = self._ctx
        q = ctx.queue
        out: list[R.Relay] = []
        while q:
            head = q[0]
            if head.line in ctx.done:
                q.popleft()
                continue
            give_up = final or (not ctx.complete and ctx.lines - head.line >= self.HOLD_WINDOW)
            chain = self._chain(ctx, head, give_up)
            if chain is None:
                break
            for f in chain:
                out.extend(self._feed_now(ctx, f, moved=f is not head))
        if not q:  # nothing waits: the lines fed out of order can no longer be met again
            ctx.done.clear()
        return out

    def _chain(self, ctx: _FileCtx, head: Frame, give_up: bool) -> list[Frame] | None:
        """``head`` and the queued ancestors it waits for, parents first; None to wait."""
        path = [head]
        seen = {head.line}
        f = head
        while True:
            ev = f.event
            parent = ev.parentUuid if ev is not None else None
            if parent is None or parent in self._lane_of:
                break
            g = ctx.queued.get(parent)
            if g is not None and g.line not in ctx.done and g.line not in seen:
                path.append(g)
                seen.add(g.line)
                f = g
                continue
            if give_up:  # the parent is not in this file (or not within the window)
                break
            return None
        path.reverse()
        return path

    def _feed_now(self, ctx: _FileCtx, f: Frame, moved: bool) -> list[R.Relay]:
        if ctx.queue:
            ctx.done.add(f.line)
        ev = f.event
        if ev is None:
            return self._feed_checked(f)
        if ev.uuid and ctx.queued.get(ev.uuid) is f:
            del ctx.queued[ev.uuid]
        lane = self._lane_for(ctx, ev)
        if moved:
            self._how = (self._how + "; " if self._how else "") + "moved before a record written above it: its child"
        if ev.uuid:
            self._lane_of[ev.uuid] = lane
        ev.parent_tool_use_id = None if lane == MAIN else lane
        if ev.type == "user":
            agent = _agent_of(ev)
            if agent is not None:
                content = ev.message.content if ev.message is not None else None
                for b in content if isinstance(content, list) else []:
                    if b.type == "tool_result" and b.tool_use_id:
                        self.links.setdefault(agent, b.tool_use_id)
                        if b.tool_use_id in self.lanes.lanes:  # its transcript: agent-<id>.jsonl
                            self.lanes.describe(b.tool_use_id, agent_id=agent)
        out = self._feed_checked(f)
        spawned = self._note_spawns(ev, lane)
        if self._on_spawn is not None:
            for spawn in spawned:
                out.extend(self._on_spawn(spawn))
        return out

    def _feed_checked(self, f: Frame) -> list[R.Relay]:
        before = len(self.errors)
        out = Translator.feed(self, f)
        for line, message in self.errors[before:]:
            self.file_errors.append((self.file, line, message))
        return out

    def resume_lane(self, name: str, line: int, lane: str, call: str) -> list[R.Relay]:
        """``lane`` had ended and the SendMessage call ``call`` continued it: its second (third...)
        span starts here, at ``line`` of its file ``name``, with a lane_start naming the call."""
        self._out = []
        outer, self.file = self.file, name
        try:
            step = T.TraceStep(line, "lane resumed", decision=T.EMIT, file=name,
                               reason=f"the agent's work after the message of call {call}")
            known = self.lanes.lane(lane)
            known.messages = (*known.messages, call)
            known.ended = False
            self._lane_ends.discard(lane)
            self.emit(step, R.LaneStart, line, lane, parent_lane=known.parent, depth=known.depth,
                      agent_type=known.agent_type, description=known.description, label=known.label,
                      resumed_by=call)
            self._record(step)
            return self._out
        finally:
            self.file = outer

    def end_lane(self, name: str, line: int, lane: str, returned: str | None, how: str) -> list[R.Relay]:
        """End ``lane`` where no tool_result ends it (a workflow's agent: at the end of its file
        ``name``, ``line`` its last), with what it returned; a trace step of its own says why."""
        self._out = []
        outer, self.file = self.file, name
        try:
            step = T.TraceStep(line, "end of file", decision=T.EMIT, file=name, reason=how)
            if lane in self._started:
                self._flush_lane(step, lane)
                self.emit(step, R.LaneEnd, line, lane, tool_use_id=None, returned=returned)
                self.lanes.lane(lane).ended = True
                self._lane_ends.add(lane)
                self.background.discard(lane)
            self._record(step)
            return self._out
        finally:
            self.file = outer

    def _ends_elsewhere(self, lane: Lane) -> bool:
        """A background agent's launch result ends nothing: its lane ends where its work does
        (``end_lane``, called by whoever reads its file: ``multifile`` at the end of its part,
        ``live`` at its completion notification or the end of input)."""
        if lane.id not in self._lane_ends:  # its work goes on after the launch
            lane.ended = False
            self.background.add(lane.id)
        return True

    def _note_spawns(self, ev: Event, lane: str) -> list[str]:
        """Task/Agent calls first seen in this record (their prompts remembered), and Workflow
        calls (whose agents' files follow the record, as a spawn's do)."""
        if ev.type != "assistant" or ev.message is None or not isinstance(ev.message.content, list):
            return []
        found = []
        for b in ev.message.content:
            if b.type == "tool_use" and b.name in (WORKFLOW_TOOL, MESSAGE_TOOL) and b.id and b.id not in self._spawn_seen:
                self._spawn_seen.add(b.id)
                found.append(b.id)
            if b.type == "tool_use" and is_spawn_tool(b.name) and b.id and b.id not in self._spawn_seen:
                self._spawn_seen.add(b.id)
                prompt = spawn_input(b.input).prompt
                if prompt:
                    known = self._prompts.get(prompt)
                    if known is None:  # assignment, not setdefault: only it keeps the bound
                        known = self._prompts[prompt] = []
                    known.append(b.id)
                found.append(b.id)
        return found

    # -- lanes ---------------------------------------------------------------------------------

    def _lane_for(self, ctx: _FileCtx, ev: Event) -> str:
        if ctx.lane is not None:
            self._how = ""
            return ctx.lane
        if not ev.isSidechain:
            self._how = ""
            return MAIN
        agent = ev.agentId
        if agent and agent in self.links:
            self._how = f"agentId {agent} names the spawning call"
            return self.links[agent]
        parent = ev.parentUuid
        if parent is not None and parent in self._lane_of:
            self._how = "sidechain: lane of its parentUuid"
            return self._lane_of[parent]
        if parent is None and ev.type == "user":
            prompt = first_text(ev.message.content if ev.message is not None else None)
            spawn = self._bind_prompt(prompt)
            if spawn is not None:
                self._sidechains.append(spawn)
                self._how = f"sidechain root: its prompt is the input of call {spawn}"
                return spawn
        if agent:
            return self._own_lane(f"agent-{agent}", agent, "sidechain with an agentId no call names")
        if parent is not None:
            open_ = [s for s in self._sidechains if not self.lanes.is_closed(s)]
            if len(open_) == 1:
                self._how = "sidechain whose parent is not in the input: the one open sidechain lane"
                return open_[0]
        key = (parent or ev.uuid or f"line{ctx.lines}")[:8]
        return self._own_lane(f"sidechain-{key}", None, "sidechain no call is known to have spawned")

    def _bind_prompt(self, prompt: str | None) -> str | None:
        if not prompt:
            return None
        for candidates in (self._prompts.get(prompt), self._prompts.get(prompt.strip())):
            for spawn in candidates or []:
                if spawn not in self._bound:
                    self._bound.add(spawn)
                    return spawn
        return None

    def _own_lane(self, lane_id: str, agent: str | None, why: str) -> str:
        self._how = why
        return self.own_lane(lane_id, agent)

    # -- usage: a message's usage may be flushed while another file is read --------------------

    def _note_usage(self, step: T.TraceStep, line: int, lane: str, msg_id: str, model: str | None,
                    usage: Any, request_id: str | None = None) -> None:
        super()._note_usage(step, line, lane, msg_id, model, usage, request_id)
        if msg_id in self._pending:
            self._usage_file[msg_id] = self.file

    def _flush_usage(self, step: T.TraceStep, msg_id: str) -> None:
        where = self._usage_file.pop(msg_id, self.file)
        if where == self.file:
            super()._flush_usage(step, msg_id)
            return
        current, self.file = self.file, where  # the usage relay names the file of its row
        try:
            super()._flush_usage(step, msg_id)
        finally:
            self.file = current

    # -- per record ----------------------------------------------------------------------------

    def _event(self, step: T.TraceStep, f: Frame, ev: Event) -> None:
        sid = ev.sessionId
        if sid and sid not in self._sessions:
            self._sessions.add(sid)
            head = decode_or(_head, f.text, _Head())
            self.emit(step, R.SessionMeta, f.line, MAIN, session_id=sid, model=None, tools=[],
                      cwd=head.cwd, version=head.version, source="transcript")
        super()._event(step, f, ev)
        if self._how and self.tracing:
            step.note = f"{step.note}; {self._how}" if step.note else self._how
            self._how = ""
