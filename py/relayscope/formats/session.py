"""Claude Code on-disk session transcripts (PROTOCOL.md section 2): records in, relays out.

Theory of operation
-------------------
A session transcript is one JSON record per line (``~/.claude/projects/<project>/<session>.jsonl``).
Its ``user`` / ``assistant`` / ``system`` records carry the same ``message`` as stream-json, so
:class:`SessionTranslator` *is* the stream-json :class:`~relayscope.translator.Translator`
with three things added in front of it; every de-dup rule (repeated message rows, usage taken
from the last row of a message) stays in ``translator.py``:

1. **Order.** Records are fed in file order, except that a record never goes before its
   ``parentUuid``: a record whose parent is written further down waits for it (real 2.1.x files
   hold such pairs). Timestamps are never read. When the whole file is at hand
   (:func:`translate_session`) the rule is exact; when lines stream in (``feed_line``) a record
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
   * a sidechain nothing links (a ``Warmup`` run, a compaction run ``agent-acompact-*``, a sub-agent
     file without its main file, a sidechain record whose parent is not in the file) gets a lane of
     its own: ``agent-<agentId>`` or ``sidechain-<uuid>``, labelled ``compaction`` for compaction
     runs and "no spawning call found" otherwise. The one exception: a sidechain record whose parent
     is missing joins the inline sidechain lane when exactly one is still open (its spawn has no
     result yet), since the missing parent can only have been in it.

   Nested sub-agents keep their depth: a spawn made in a sub-agent lane opens a lane one deeper
   (``lanes.LaneTracker``), whichever file it was written in.
3. **Session records.** The first record of each ``sessionId`` yields a ``session_meta`` relay
   (``source: "transcript"``, with ``cwd`` and ``version``). ``summary``, ``progress``,
   ``queue-operation``, ``file-history-snapshot``, ``attachment``, ``mode``, ``last-prompt``,
   ``ai-title`` and any type not invented yet become ``passthrough`` relays in their lane.

Several files of one session (:func:`translate_session`) share one translator, so seq numbers,
de-dup state and lanes span the files. **Emission order**: the main file(s) in the order given,
and each sub-agent file's relays right after the record holding the call that spawned it
(recursively, so a nested sub-agent's file comes right after its spawn inside its parent's file);
sub-agent files whose spawning call is in none of the files (orphans, compaction runs) come
last, in file-name order. A sub-agent's ``lane_end`` still comes at the parent's tool_result,
with the usage of the sub-agent's last message just before it. Every relay's ``file`` names the
file its row came from and ``line`` is the line in that file.

:func:`translate_files` takes any set of files (a dropped folder, a project folder), groups them
into sessions (a main file and its sub-agent files) and translates each; files that are not
session transcripts are translated on their own with the format detected.

Not handled: a sub-agent resumed later (``SendMessage`` to its agentId) appends to its file, and
those records are still emitted right after the original spawn; ``progress`` records that embed
a sub-agent's messages (``agent_progress``) pass through whole, not as content.

No I/O here: callers pass file contents. Bad input never raises; it becomes ``error`` relays.
"""

from __future__ import annotations

import posixpath
import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final

import msgspec
from msgspec import Raw, Struct

from .. import relay as R
from .. import trace as T
from ..lanes import MAIN, SPAWN_TOOLS, Lane
from ..translator import Translator
from ..wire import Block, Event, Frame, decode_line

if TYPE_CHECKING:
    from ..audit import StrategyAudit

__all__ = [
    "SessionResult",
    "SessionTranslator",
    "audit_session",
    "group_files",
    "translate_files",
    "translate_session",
]

Text = str | bytes
_AGENT_FILE: Final = re.compile(r"^agent-(.+)\.jsonl$")
_AGENT_META: Final = re.compile(r"^agent-(.+)\.meta\.json$")
COMPACTION: Final = "compaction"
UNLINKED: Final = "no spawning call found"


# --- light records for pre-scans (fields we need only; everything else skipped) -------------


class _ScanBlock(Struct):
    type: str | None = None
    id: str | None = None
    name: str | None = None
    input: Raw = Raw(b"")
    tool_use_id: str | None = None
    text: str | None = None


class _ScanMsg(Struct):
    content: list[_ScanBlock] | str | None = None


class _ScanRec(Struct):
    type: str | None = None
    sessionId: str | None = None
    agentId: str | None = None
    isSidechain: bool | None = None
    message: _ScanMsg | None = None
    toolUseResult: Raw = Raw(b"")


class _AgentLink(Struct):
    agentId: str | None = None


class _SpawnPrompt(Struct):
    prompt: str | None = None


class _Head(Struct):
    cwd: str | None = None
    version: str | None = None


class _Meta(Struct):
    toolUseId: str | None = None
    agentType: str | None = None
    description: str | None = None
    spawnDepth: int | None = None


_scan: Final = msgspec.json.Decoder(_ScanRec)
_link: Final = msgspec.json.Decoder(_AgentLink)
_prompt: Final = msgspec.json.Decoder(_SpawnPrompt)
_head: Final = msgspec.json.Decoder(_Head)
_meta: Final = msgspec.json.Decoder(_Meta)
_any: Final = msgspec.json.Decoder()


def _decode_or(decoder: msgspec.json.Decoder[Any], data: Text | Raw, default: Any) -> Any:
    try:
        return decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return default


def _first_text(content: Any) -> str | None:
    """The prompt of a user record: its string content, or its first text block."""
    if isinstance(content, str):
        return content
    for b in content or []:
        if getattr(b, "type", None) == "text":
            return getattr(b, "text", None)
    return None


def _spawn_prompt(b: Block | _ScanBlock) -> str | None:
    if not b.input:
        return None
    info = _decode_or(_prompt, b.input, None)
    return info.prompt if info is not None else None


def _agent_of(ev: Event) -> str | None:
    """``toolUseResult.agentId`` of a user record (the sub-agent a spawn's result names)."""
    raw = ev.toolUseResult
    if not raw or b"agentId" not in bytes(raw):
        return None
    info = _decode_or(_link, raw, None)
    return info.agentId if info is not None and isinstance(info.agentId, str) else None


def split_lines(data: Text) -> list[bytes]:
    """Physical lines on ``\\n`` only, as :class:`~relayscope.analysis.Analyzer` splits them."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


# --- one file being read ----------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _FileCtx:
    name: str | None
    lane: str | None = None  # every record's lane (a sub-agent file), or None: decide per record
    complete: bool = False  # the whole file is at hand: a record waits for its parent to the end
    lines: int = 0
    queue: deque[Frame] = field(default_factory=deque)
    queued: dict[str, Frame] = field(default_factory=dict)  # uuid -> frame waiting in the queue
    done: set[int] = field(default_factory=set)  # lines already fed


@dataclass(slots=True)
class _AgentFile:
    name: str
    agent_id: str
    lane: str
    lines: list[bytes]
    how: str
    done: bool = False


class SessionTranslator(Translator):
    """One session transcript (or several, through :func:`translate_session`) in, relays out.
    Same interface as :class:`~relayscope.translator.Translator`."""

    HOLD_WINDOW: ClassVar[int] = 64  # lines a streamed record waits for a parent written after it

    def __init__(self, strategy: str = "lineage", *, trace: bool = False, file: str | None = None,
                 links: Mapping[str, str] | None = None) -> None:
        super().__init__(strategy, trace=trace, file=file)
        self.links: dict[str, str] = dict(links or {})  # agent id -> spawning tool_use id
        self.file_errors: list[tuple[str | None, int, str]] = []
        self._ctx = _FileCtx(file)
        self._lane_of: dict[str, str] = {}  # uuid of every record fed -> its lane
        self._prompts: dict[str, list[str]] = {}  # Task prompt -> spawn ids, in spawn order
        self._spawn_seen: set[str] = set()
        self._bound: set[str] = set()  # spawn ids an inline sidechain or a file is bound to
        self._sidechains: list[str] = []  # lanes of inline sidechains, in order of appearance
        self._sessions: set[str] = set()
        self._how = ""
        self._usage_file: dict[str, str | None] = {}  # message id -> file of its pending usage row
        # set by translate_session: sub-agent files waiting for their spawning call
        self._waiting: dict[str, list[_AgentFile]] = {}
        self._run_file: Callable[[_AgentFile], list[R.Relay]] | None = None
        self._files: dict[str, _FileCtx] = {}  # files being read as they grow (feed_file_line)

    # -- entry points ---------------------------------------------------------------------

    def feed_line(self, text: Text) -> list[R.Relay]:
        ctx = self._ctx
        ctx.lines += 1
        return self.feed(decode_line(text, ctx.lines))

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

    # -- files (used by translate_session) ---------------------------------------------------

    def translate_file(self, name: str | None, lines: Iterable[Text], lane: str | None = None) -> list[R.Relay]:
        """Translate one whole file in its own context (exact parent order), then return to
        the file being read before. ``lane`` forces every record into one lane."""
        outer, outer_file = self._ctx, self.file
        self._ctx = ctx = _FileCtx(name, lane=lane, complete=True)
        self.file = name
        try:
            out: list[R.Relay] = []
            for text in lines:
                ctx.lines += 1
                out.extend(self.feed(decode_line(text, ctx.lines)))
            return out + self._drain(final=True)
        finally:
            self._ctx, self.file = outer, outer_file

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
            return self.feed(decode_line(text, ctx.lines))
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

    def link_file(self, agent_id: str, first_prompt: str | None, meta_spawn: str | None = None) -> tuple[str, str] | None:
        """The spawning call of sub-agent file ``agent-<agent_id>.jsonl`` from what was fed so
        far, and how it was found, in the order :func:`translate_session` uses: the meta file's
        ``toolUseId``, a tool result's ``agentId``, then the one fed call whose prompt is the
        file's first prompt. None while nothing links it (yet)."""
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

    def unlinked_lane(self, agent_id: str) -> str:
        """A lane of its own for a sub-agent file no call is known to have spawned."""
        return self._own_lane(f"agent-{agent_id}", agent_id, UNLINKED)

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
        out = self._feed_checked(f)
        spawned = self._note_spawns(ev, lane)
        for spawn in spawned:
            for agent_file in self._waiting.pop(spawn, []):
                if not agent_file.done and self._run_file is not None:
                    out.extend(self._run_file(agent_file))
        return out

    def _feed_checked(self, f: Frame) -> list[R.Relay]:
        before = len(self.errors)
        out = Translator.feed(self, f)
        for line, message in self.errors[before:]:
            self.file_errors.append((self.file, line, message))
        return out

    def _note_spawns(self, ev: Event, lane: str) -> list[str]:
        """Task/Agent calls first seen in this record: remember their prompts."""
        if ev.type != "assistant" or ev.message is None or not isinstance(ev.message.content, list):
            return []
        found = []
        for b in ev.message.content:
            if b.type == "tool_use" and b.name in SPAWN_TOOLS and b.id and b.id not in self._spawn_seen:
                self._spawn_seen.add(b.id)
                prompt = _spawn_prompt(b)
                if prompt:
                    self._prompts.setdefault(prompt, []).append(b.id)
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
            prompt = _first_text(ev.message.content if ev.message is not None else None)
            spawn = self._bind_prompt(prompt)
            if spawn is not None:
                self._sidechains.append(spawn)
                self._how = f"sidechain root: its prompt is the input of call {spawn}"
                return spawn
        if agent:
            return self._own_lane(f"agent-{agent}", agent, "sidechain with an agentId no call names")
        if parent is not None:
            open_ = [s for s in self._sidechains if not self._closed(s)]
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

    def _closed(self, spawn: str) -> bool:
        s = self.lanes.spawns.get(spawn)
        return s is None or s.closed

    def _own_lane(self, lane_id: str, agent: str | None, why: str) -> str:
        self._how = why
        if lane_id not in self.lanes.lanes:
            compaction = agent is not None and agent.startswith("acompact")
            self.lanes.lanes[lane_id] = Lane(
                lane_id, parent=MAIN, depth=1, agent_type=COMPACTION if compaction else None,
                description=None if compaction else UNLINKED)
        return lane_id

    def describe_lane(self, lane_id: str, agent_type: str | None, description: str | None,
                      depth: int | None = None, *, over_spawn: bool = False) -> None:
        """Lane metadata known before the spawn is seen (an ``agent-<id>.meta.json``); with
        ``over_spawn``, read after it (a file read as it grows), and still preferred to the
        spawning call's input, as when it is read first."""
        lane = self.lanes.lane(lane_id)
        if over_spawn:
            lane.agent_type = agent_type or lane.agent_type
            lane.description = description or lane.description
        lane.agent_type = lane.agent_type or agent_type
        lane.description = lane.description or description
        if depth is not None and lane_id not in self.lanes.spawns:
            lane.depth = depth

    # -- usage: a message's usage may be flushed while another file is read --------------------

    def _note_usage(self, step: T.TraceStep, line: int, lane: str, msg_id: str, model: str | None,
                    usage: Any) -> None:
        super()._note_usage(step, line, lane, msg_id, model, usage)
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
            head = _decode_or(_head, f.text, _Head())
            self.emit(step, R.SessionMeta, f.line, MAIN, session_id=sid, model=None, tools=[],
                      cwd=head.cwd, version=head.version, source="transcript")
        super()._event(step, f, ev)
        if self._how and self.tracing:
            step.note = f"{step.note}; {self._how}" if step.note else self._how
            self._how = ""


# --- several files --------------------------------------------------------------------------


@dataclass
class SessionResult:
    """One session (a main file and its sub-agent files), translated."""

    name: str  # the main file, or the first file when there is none
    format: str  # "session", or the format a file that is no session transcript was read as
    files: list[str]  # in the order their relays were emitted
    relays: list[R.Relay]
    trace: list[T.TraceStep]
    errors: list[tuple[str | None, int, str]]  # (file, line, message)
    lanes: dict[str, Lane] = field(default_factory=dict)  # lane id -> parent, depth, label ...
    file_lanes: dict[str, str] = field(default_factory=dict)  # sub-agent file -> its lane
    file_links: dict[str, str] = field(default_factory=dict)  # sub-agent file -> how it was linked
    session_id: str | None = None


def _basename(name: str) -> str:
    return posixpath.basename(name.replace("\\", "/"))


def _dirname(name: str) -> str:
    return posixpath.dirname(name.replace("\\", "/"))


def _agent_id(name: str) -> str | None:
    m = _AGENT_FILE.match(_basename(name))
    return m.group(1) if m else None


@dataclass(slots=True)
class _Scan:
    """What a quick pass over one file tells: enough to link files before translating."""

    session_id: str | None = None
    agent_id: str | None = None  # from the records (2.x sub-agent files)
    first_prompt: str | None = None
    spawns: dict[str, str | None] = field(default_factory=dict)  # Task/Agent id -> prompt
    agent_results: dict[str, str] = field(default_factory=dict)  # agentId -> tool_use_id


_INTERESTING: Final = re.compile(rb'"(?:Task|Agent|agentId)"')  # one pass over lines of no interest


def _scan_file(lines: list[bytes]) -> _Scan:
    s = _Scan()
    for i, line in enumerate(lines):
        head = i < 8 and s.session_id is None
        prompt = s.first_prompt is None and b'"user"' in line
        if not (head or prompt or _INTERESTING.search(line)):
            continue
        spawn = b'"tool_use"' in line and (b'"Task"' in line or b'"Agent"' in line)
        result = b'"toolUseResult"' in line and b'"agentId"' in line
        if not (head or prompt or spawn or result):
            continue
        rec = _decode_or(_scan, line, None)
        if rec is None:
            continue
        if s.session_id is None and rec.sessionId:
            s.session_id, s.agent_id = rec.sessionId, rec.agentId
        content = rec.message.content if rec.message is not None else None
        if rec.type == "user" and s.first_prompt is None:
            s.first_prompt = _first_text(content)
        if spawn and isinstance(content, list):
            for b in content:
                if b.type == "tool_use" and b.name in SPAWN_TOOLS and b.id:
                    s.spawns.setdefault(b.id, _spawn_prompt(b))
        if result and rec.toolUseResult:
            link = _decode_or(_link, rec.toolUseResult, None)
            if link is not None and isinstance(link.agentId, str) and isinstance(content, list):
                for b in content:
                    if b.type == "tool_result" and b.tool_use_id:
                        s.agent_results.setdefault(link.agentId, b.tool_use_id)
    return s


_Prepared = dict[str, tuple[list[bytes], _Scan]]  # file -> its lines and what a quick pass saw


def _prepare(name: str, content: Text, cache: _Prepared) -> tuple[list[bytes], _Scan]:
    found = cache.get(name)
    if found is None:
        lines = split_lines(content)
        found = cache[name] = (lines, _scan_file(lines))
    return found


def translate_session(files: Mapping[str, Text], strategy: str = "lineage", *,
                      trace: bool = False) -> SessionResult:
    """Translate the files of ONE session together: ``{name or relative path: content}``.

    Files named ``agent-<id>.jsonl`` are sub-agent files, ``agent-<id>.meta.json`` their meta
    files, every other file a main file (usually one). Sub-agent files are linked to their
    spawning call as the module doc says; the relays come in one seq space."""
    return _translate_session(files, strategy, trace, {})


def _translate_session(files: Mapping[str, Text], strategy: str, trace: bool,
                       cache: _Prepared) -> SessionResult:
    metas: dict[str, _Meta] = {}
    mains: list[str] = []
    agents: list[str] = []
    data: dict[str, list[bytes]] = {}
    scans: dict[str, _Scan] = {}
    errors: list[tuple[str | None, int, str]] = []
    for name, content in files.items():
        m = _AGENT_META.match(_basename(name))
        if m:
            meta = _decode_or(_meta, content, None)
            if meta is None:
                errors.append((name, 1, "sub-agent meta file is not the JSON object expected; ignored"))
            else:
                metas[m.group(1)] = meta
            continue
        data[name], scans[name] = _prepare(name, content, cache)
        (agents if _agent_id(name) is not None else mains).append(name)

    links: dict[str, tuple[str, str]] = {}  # agent id -> (spawn id, how)
    for agent, meta in metas.items():
        if meta.toolUseId:
            links[agent] = (meta.toolUseId, "agent-<id>.meta.json toolUseId")
    for s in scans.values():
        for agent, tool_id in s.agent_results.items():
            links.setdefault(agent, (tool_id, "toolUseResult.agentId of the spawn's result"))
    spawn_file: dict[str, str] = {}  # spawn id -> file it is in
    prompts: dict[str, list[str]] = {}
    for name, s in scans.items():
        for tool_id, prompt in s.spawns.items():
            spawn_file.setdefault(tool_id, name)
            if prompt:
                prompts.setdefault(prompt, []).append(tool_id)
    taken = {spawn for spawn, _ in links.values()}
    t = SessionTranslator(strategy, trace=trace, links={a: sp for a, (sp, _) in links.items()})
    t._bound.update(taken)  # an inline sidechain never takes a call a sub-agent file is linked to
    pending: list[_AgentFile] = []
    for name in sorted(agents):
        agent = _agent_id(name) or name
        if agent not in links:
            # no meta, no agentId in a result: the one call whose prompt is the file's first prompt
            prompt = scans[name].first_prompt
            free = [sp for sp in prompts.get(prompt or "", []) if sp not in taken]
            if prompt and free:
                links[agent] = (free[0], "the spawning call's prompt is the file's first prompt")
                taken.add(free[0])
                t.links[agent] = free[0]
        spawn, how = links.get(agent, (f"agent-{agent}", UNLINKED))
        af = _AgentFile(name, agent, spawn, data[name], how)
        meta = metas.get(agent)
        if agent in links:
            t._waiting.setdefault(spawn, []).append(af)
            if meta is not None:
                t.describe_lane(spawn, meta.agentType, meta.description, meta.spawnDepth)
        else:
            t._own_lane(spawn, agent, UNLINKED)
            if meta is not None:
                t.describe_lane(spawn, meta.agentType, meta.description, meta.spawnDepth)
        pending.append(af)

    order: list[str] = []
    relays: list[R.Relay] = []

    def run(af: _AgentFile) -> list[R.Relay]:
        af.done = True
        order.append(af.name)
        return t.translate_file(af.name, af.lines, lane=af.lane)

    t._run_file = run
    for name in mains:
        order.append(name)
        relays.extend(t.translate_file(name, data[name]))
    # sub-agent files whose spawning call never came: orphans first, then the rest by name
    for af in pending:
        if not af.done and af.lane not in spawn_file:
            relays.extend(run(af))
    for af in pending:
        if not af.done:
            relays.extend(run(af))
    relays.extend(t.finish())
    first = (mains or agents or list(files) or [""])[0]
    session_id = next((scans[n].session_id for n in (mains + agents) if scans[n].session_id), None)
    return SessionResult(
        name=first, format="session", files=order, relays=relays, trace=t.trace,
        errors=errors + t.file_errors, lanes=dict(t.lanes.lanes),
        file_lanes={af.name: af.lane for af in pending}, file_links={af.name: af.how for af in pending},
        session_id=session_id,
    )


# --- any set of files: group into sessions ----------------------------------------------------


def _head_lines(content: Text, count: int = 8) -> list[Text]:
    """The first ``count`` lines, without splitting the whole file."""
    out: list[Text] = []
    at = 0
    while len(out) < count and at < len(content):
        end = content.find("\n" if isinstance(content, str) else b"\n", at)  # type: ignore[arg-type]
        end = len(content) if end < 0 else end
        out.append(content[at:end])
        at = end + 1
    return out


@dataclass
class FileGroup:
    """One session's files (``format == "session"``), or one file of another format."""

    name: str
    format: str
    files: dict[str, Text]


def group_files(files: Mapping[str, Text], fmt: str = "auto", _cache: _Prepared | None = None) -> list[FileGroup]:
    """Sort a set of files (a folder, a drop) into sessions: each main ``<session>.jsonl`` with
    the sub-agent files of ``<session>/subagents/`` beside it, the sub-agent files one of its tool
    results names (``toolUseResult.agentId``), and the ``agent-*.jsonl`` whose records carry its
    ``sessionId``; each with its ``agent-<id>.meta.json``. Sub-agent files with no main file form
    one group per sessionId. A file that is no session transcript (detected; every file when
    ``fmt`` names another format) is a group of its own. Groups come in input order."""
    from . import detect

    cache: _Prepared = {} if _cache is None else _cache
    metas = {n for n in files if _AGENT_META.match(_basename(n))}
    groups: list[FileGroup] = []
    mains: dict[str, FileGroup] = {}  # main file path -> its group
    agents: list[tuple[str, _Scan]] = []
    by_sid: dict[str, FileGroup] = {}
    linked: dict[str, FileGroup] = {}  # agent id -> group whose tool results name it
    for name, content in files.items():
        if name in metas:
            continue
        found = fmt if fmt != "auto" else detect(_head_lines(content))
        if found != "session":
            groups.append(FileGroup(name, found, {name: content}))
            continue
        _, s = _prepare(name, content, cache)
        if _agent_id(name) is not None:
            agents.append((name, s))
            continue
        g = mains[name.replace("\\", "/")] = FileGroup(name, "session", {name: content})
        groups.append(g)
        if s.session_id:
            by_sid.setdefault(s.session_id, g)
        for agent in s.agent_results:
            linked.setdefault(agent, g)
    orphans: dict[str, FileGroup] = {}
    for name, s in agents:
        agent = _agent_id(name) or ""
        folder = _dirname(name)
        group = None
        if _basename(folder) == "subagents":  # 2.1.x: <project>/<session>/subagents/agent-<id>.jsonl
            group = mains.get(_dirname(folder) + ".jsonl")
        group = group or linked.get(agent) or (by_sid.get(s.session_id) if s.session_id else None)
        if group is None:
            key = s.session_id or name
            group = orphans.get(key)
            if group is None:
                group = orphans[key] = FileGroup(name, "session", {})
                groups.append(group)
        group.files[name] = files[name]
        for meta in metas:
            if _dirname(meta) == folder and _basename(meta) == f"agent-{agent}.meta.json":
                group.files[meta] = files[meta]
    return groups


def translate_files(files: Mapping[str, Text], strategy: str = "lineage", *, trace: bool = False,
                    fmt: str = "auto") -> list[SessionResult]:
    """Translate a set of files (``{relative path or name: content}``), one result per session
    (see :func:`group_files`); a file that is no session transcript gets a result of its own."""
    from ..analysis import Analyzer

    results: list[SessionResult] = []
    cache: _Prepared = {}
    for g in group_files(files, fmt, cache):
        if g.format == "session":
            results.append(_translate_session(g.files, strategy, trace, cache))
            continue
        a = Analyzer(strategy, g.format, trace=trace, file=g.name)
        a.feed_text(g.files[g.name])
        a.finish()
        results.append(SessionResult(
            name=g.name, format=g.format, files=[g.name], relays=a.relays, trace=a.trace,
            errors=[(g.name, line, message) for line, message in a.errors],
            lanes=dict(getattr(getattr(a.translator, "lanes", None), "lanes", {}) or {}),
        ))
    return results


def audit_session(files: Mapping[str, Text], strategies: Iterable[str] | None = None) -> list[StrategyAudit]:
    """``audit.audit_lines`` for the files of one session: each strategy's relays against one
    inventory of every file's content blocks (built by ``audit.inventory``, independent of the
    translator; user text is told apart by file and line)."""
    from ..audit import audit_relays, inventory
    from ..translator import STRATEGIES

    items: dict[Any, Any] = {}
    for name, content in files.items():
        if _AGENT_META.match(_basename(name)):
            continue
        for key, item in inventory(split_lines(content), file=name).items():
            items.setdefault(key, item)
    return [audit_relays(name, translate_session(files, name).relays, items)
            for name in (strategies or STRATEGIES)]


# --- for files read as they grow (live.LiveFiles) ----------------------------------------------


def agent_file_id(name: str) -> str | None:
    """``<id>`` of a sub-agent file ``agent-<id>.jsonl``, else None."""
    return _agent_id(name)


def meta_file_id(name: str) -> str | None:
    """``<id>`` of a sub-agent meta file ``agent-<id>.meta.json``, else None."""
    m = _AGENT_META.match(_basename(name))
    return m.group(1) if m else None


def read_meta(content: Text) -> tuple[str | None, str | None, str | None, int | None] | None:
    """A meta file's (toolUseId, agentType, description, spawnDepth); None if it is not the
    JSON object expected (yet: it may be half written)."""
    meta = _decode_or(_meta, content, None)
    if meta is None:
        return None
    return meta.toolUseId, meta.agentType, meta.description, meta.spawnDepth


def file_head(lines: list[bytes]) -> tuple[str | None, str | None]:
    """The ``sessionId`` and the first user prompt found in these lines of a file."""
    s = _scan_file(lines)
    return s.session_id, s.first_prompt
