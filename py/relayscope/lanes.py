"""lanes: which agent context an event belongs to.

A lane is ``"main"`` for the top-level agent and, for a sub-agent, the id of the
``Task``/``Agent`` tool_use that spawned it (what real output puts in
``parent_tool_use_id``). Lanes come from that field whenever the input has it (``None``
means main). Hand-written fixtures such as the seed examples carry no such field; there,
and only when the strategy asks for it, lanes are *inferred*: a new agent context (told
apart by message id or first-block fingerprint, seeds/000) that appears while sub-agent
calls are open belongs to a sub-agent, because the main agent cannot start a new message
before all of its tool calls have results. Contexts bind to open calls in spawn order.

No timing is used anywhere. This module does not emit relays; the translator does.

Public API for everything above (formats, sessions, CLI, web): :class:`Lane` (label, agent
type, description, spawning call, depth, parent, file, the sub-agent's own id), ``LaneTracker.lane``
/ ``describe`` / ``own_lane`` / ``snapshot`` / ``is_closed``, :func:`is_spawn_tool`,
:func:`spawn_input` (the ``Task``/``Agent`` input: type, description, prompt), :func:`lane_label`
and :func:`missing_transcripts` (the sub-agent files a session's input lacks, by the name to look
for). Nobody else parses a spawn's input or words a lane's label.

State: a :class:`LaneTracker` holds the lanes, the spawn calls (open or closed) and, when
inferring, the context -> lane bindings. Lanes and spawns span the whole input (a sub-agent's
lane id stays its spawning call's id; a background sub-agent's result may come after its run's
``result``); the inference state - which calls a new context may bind to, and the bindings made
- belongs to one run and is dropped by :meth:`LaneTracker.end_run` (the translator's reset
table: ``init`` and ``result``), so a run killed with sub-agent calls open cannot pull the next
run's events into its lanes. ``checkpoint`` / ``restore`` give and take all of it (the web page's
step-through restarts translations from checkpoints).
"""

import operator
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from ._bounded import RecentMap

MAIN: Final = "main"
SPAWN_TOOLS: Final = frozenset({"Task", "Agent"})
WORKFLOW_TOOL: Final = "Workflow"  # runs a script that starts many agents (subagents/workflows/wf_<id>/)
MESSAGE_TOOL: Final = "SendMessage"  # continues a sub-agent that returned ({"to": its agent id, ...})


def lane_label(lane_id: str, agent_type: str | None, description: str | None) -> str:
    """How a lane is named for people: ``main agent``, or ``<agent type>: <description>``."""
    if lane_id == MAIN:
        return "main agent"
    kind = agent_type or "sub-agent"
    return f"{kind}: {description}" if description else kind


def transcript_file(agent_id: str) -> str:
    """The name of a sub-agent's own transcript in a session folder (``subagents/``)."""
    return f"agent-{agent_id}.jsonl"


# Lane, _Spawn and LaneTracker are Structs and a plain class, not dataclasses: ``dataclasses`` (and
# the ``inspect`` it imports) was a tenth of a one-session run's start-up.
class Lane(msgspec.Struct, gc=False):
    """One agent context. ``spawn`` is the id of the Task/Agent call that started it, when
    that call was seen; ``file`` the sub-agent file its records came from (session input);
    ``agent_id`` the sub-agent's own id, when a session's records name it (the spawn's
    ``toolUseResult.agentId``, its ``agent-<id>.meta.json``): its transcript is
    ``agent-<agent_id>.jsonl``, and a lane with an ``agent_id`` and no ``file`` is missing it."""

    id: str
    parent: str | None = None
    depth: int = 0
    agent_type: str | None = None
    description: str | None = None
    inferred: bool = False
    ended: bool = False
    spawn: str | None = None
    file: str | None = None
    agent_id: str | None = None
    run: str | None = None  # the workflow run (``wf_<id>``) the agent belongs to, with ``spawn`` its Workflow call
    messages: tuple[str, ...] = ()  # SendMessage calls that continued it after it returned, in order

    @property
    def label(self) -> str:
        return lane_label(self.id, self.agent_type, self.description)

    @property
    def missing_file(self) -> str | None:
        """The sub-agent file its records are in and the input lacks (``agent-<id>.jsonl``), or None."""
        return transcript_file(self.agent_id) if self.agent_id and self.file is None else None


def agent_labels(lanes: Mapping[str, Lane]) -> dict[str, str]:
    """Agent id -> its lane's label, for the lanes whose agent id is known."""
    return {lane.agent_id: lane.label for lane in lanes.values() if lane.agent_id}


def lane_of_agent(lanes: Mapping[str, Lane], agent_id: str | None) -> str | None:
    """The id of the lane of the sub-agent ``agent_id``, or None."""
    return next((k for k, lane in lanes.items() if agent_id and lane.agent_id == agent_id), None)


def lane_of_message(lanes: Mapping[str, Lane], call: str, to: str | None) -> str | None:
    """The id of the lane a SendMessage call ``call`` writes to: the lane it resumed (its
    ``messages``: the agent the call's result names, whatever ``to`` called it), else the lane of
    the agent whose id is ``to``, else None."""
    return next((k for k, lane in lanes.items() if call in lane.messages), None) or lane_of_agent(lanes, to)


def message_labels(lanes: Mapping[str, Lane], call: str, to: str | None) -> dict[str, str]:
    """``{to: label}`` of the lane a SendMessage call writes to (:func:`lane_of_message`), for
    ``describe.summary``; empty when none is known."""
    lane = lane_of_message(lanes, call, to)
    return {to: lanes[lane].label} if lane is not None and to is not None else {}


def missing_transcripts(lanes: Mapping[str, Lane]) -> dict[str, str]:
    """Lane id -> the file to look for, for each sub-agent a session's records name (by a spawn's
    result or a meta file) whose transcript was not among the input; in lane order."""
    return {k: name for k, lane in lanes.items() if (name := lane.missing_file) is not None}


class _Spawn(msgspec.Struct, gc=False):
    id: str
    lane: str  # where the call was made
    depth: int
    closed: bool = False
    bound: int = 0  # contexts bound to it (inference only)


# A lane's or a spawn's fields as a tuple, in the order their constructor takes them: what a
# checkpoint keeps of them (copy.copy of a slots dataclass is seven times slower).
_lane_fields: Final = operator.attrgetter(*Lane.__struct_fields__)
_spawn_fields: Final = operator.attrgetter(*_Spawn.__struct_fields__)


class SpawnInput(msgspec.Struct):
    """The fields of a Task/Agent call's input that name the sub-agent it starts."""

    description: str | None = None
    subagent_type: str | None = None
    prompt: str | None = None


_spawn_decoder: Final = msgspec.json.Decoder(SpawnInput)


def is_spawn_tool(name: str | None) -> bool:
    """Does a tool_use of this name start a sub-agent (a lane)?"""
    return name in SPAWN_TOOLS


def spawn_input(raw_input: msgspec.Raw | bytes | None) -> SpawnInput:
    """A spawn call's input, tolerant: anything unreadable gives empty fields."""
    if not raw_input:
        return SpawnInput()
    try:
        return _spawn_decoder.decode(raw_input)
    except (msgspec.DecodeError, RecursionError):  # ValidationError is a DecodeError
        return SpawnInput()


class LaneTracker:
    __slots__ = ("_last_bound", "_open", "contexts", "infer", "lanes", "spawns", "tool_lane")

    def __init__(self, infer: bool = False) -> None:
        self.infer = infer
        self.lanes: dict[str, Lane] = {MAIN: Lane(MAIN)}
        self.spawns: dict[str, _Spawn] = {}
        self.tool_lane: RecentMap[str, str] = RecentMap()  # tool_use id -> lane it ran in
        self.contexts: RecentMap[str, str] = RecentMap()  # inferred: context key -> lane
        self._open: list[str] = []  # open spawn ids, spawn order
        self._last_bound: str | None = None

    def checkpoint(self) -> tuple[Any, ...]:
        """Everything this tracker holds, as immutable values (a lane or a spawn as the tuple of
        its fields), for :meth:`restore`: see ``Translator.checkpoint``."""
        return (self.infer, tuple((k, _lane_fields(v)) for k, v in self.lanes.items()),
                tuple((k, _spawn_fields(v)) for k, v in self.spawns.items()), self.tool_lane.checkpoint(),
                self.contexts.checkpoint(), tuple(self._open), self._last_bound)

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        """Hold what ``checkpoint`` held, and nothing else."""
        self.infer, lanes, spawns, tool_lane, contexts, opened, self._last_bound = checkpoint
        self.lanes = {k: Lane(*v) for k, v in lanes}
        self.spawns = {k: _Spawn(*v) for k, v in spawns}
        self.tool_lane.restore(tool_lane)
        self.contexts.restore(contexts)
        self._open = list(opened)

    def end_run(self) -> None:
        """A run ended (or a new one starts): no context of the next run binds to its calls."""
        self._open.clear()
        self.contexts.clear()
        self._last_bound = None

    def lane(self, lane_id: str) -> Lane:
        found = self.lanes.get(lane_id)
        if found is None:
            spawn = self.spawns.get(lane_id)
            parent = spawn.lane if spawn else MAIN
            depth = spawn.depth if spawn else self.lanes[MAIN].depth + 1
            found = self.lanes[lane_id] = Lane(lane_id, parent=parent, depth=depth)
        return found

    def note_tool_use(self, tool_id: str, name: str, raw_input: msgspec.Raw, lane: str) -> None:
        """Record where a tool ran; a Task/Agent call also opens a future lane."""
        self.tool_lane[tool_id] = lane
        if name not in SPAWN_TOOLS or tool_id in self.spawns:
            return
        depth = self.lane(lane).depth + 1
        self.spawns[tool_id] = _Spawn(tool_id, lane, depth)
        self._open.append(tool_id)
        info = spawn_input(raw_input)
        known = self.lanes.get(tool_id)
        target = known or Lane(tool_id, parent=lane, depth=depth)
        target.parent, target.depth, target.spawn = lane, depth, tool_id
        target.agent_type = target.agent_type or info.subagent_type
        target.description = target.description or info.description
        self.lanes[tool_id] = target

    def describe(self, lane_id: str, agent_type: str | None = None, description: str | None = None,
                 depth: int | None = None, file: str | None = None, agent_id: str | None = None) -> Lane:
        """Lane metadata known before (or besides) its spawn call, e.g. from a sub-agent's meta
        file. What is already known wins; ``depth`` applies only while no spawn call is seen."""
        lane = self.lane(lane_id)
        lane.agent_type = lane.agent_type or agent_type
        lane.description = lane.description or description
        lane.file = lane.file or file
        lane.agent_id = lane.agent_id or agent_id
        if depth is not None and lane_id not in self.spawns:
            lane.depth = depth
        return lane

    def own_lane(self, lane_id: str, agent_type: str | None = None, description: str | None = None) -> Lane:
        """A lane no spawn call is known for (a compaction run, an orphan sidechain): one
        level below main. An existing lane is returned as it is."""
        found = self.lanes.get(lane_id)
        if found is None:
            found = self.lanes[lane_id] = Lane(lane_id, parent=MAIN, depth=1, agent_type=agent_type,
                                               description=description)
        return found

    def is_closed(self, spawn_id: str) -> bool:
        """Has this spawn call got its result (True too for an id that is no spawn call)?"""
        s = self.spawns.get(spawn_id)
        return s is None or s.closed

    def snapshot(self) -> dict[str, Lane]:
        """Every lane so far, by id (main first, then in order of appearance)."""
        return dict(self.lanes)

    def close_spawn(self, tool_use_id: str) -> Lane | None:
        """A spawn call got its tool_result: the sub-agent is done. Returns its lane."""
        spawn = self.spawns.get(tool_use_id)
        if spawn is None or spawn.closed:
            return None
        spawn.closed = True
        if tool_use_id in self._open:
            self._open.remove(tool_use_id)
        lane = self.lanes.get(tool_use_id)
        if lane is not None:
            lane.ended = True
        return lane

    def infer_context(self, key: str) -> tuple[str, str]:
        """Lane of an assistant context with no parent_tool_use_id. Returns (lane, how)."""
        known = self.contexts.get(key)
        if known is not None:
            return known, "known context"
        if not self._open:
            lane, how = MAIN, "no sub-agent call open"
        else:
            unbound = [s for s in self._open if self.spawns[s].bound == 0]
            if unbound:
                lane, how = unbound[0], "bound to the first open sub-agent call"
            else:
                lane = self._last_bound if self._last_bound in self._open else self._open[-1]
                how = "every open call is bound: joined the latest sub-agent"
            self.spawns[lane].bound += 1
            self._last_bound = lane
            self.lane(lane).inferred = True
        self.contexts[key] = lane
        return lane, how

    def infer_tool_result(self, tool_use_id: str) -> str:
        """Lane of a tool_result with no parent_tool_use_id: where its call ran."""
        return self.tool_lane.get(tool_use_id, MAIN)

    def infer_other(self) -> str:
        """Lane of a user event with no tool_result and no parent_tool_use_id."""
        if self._open and self._last_bound in self._open:
            return self._last_bound or MAIN
        return MAIN
