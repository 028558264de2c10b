"""subagents: each sub-agent's state as the relays tell it, and the CLI's own count of its
sub-agents (``result.subagent_stats``, PROTOCOL.md 7) held against the lanes the input has.

Theory of operation
-------------------
:class:`LaneStates` is fed relays, all at once or as they come, and keeps per sub-agent lane
what the rows below say (one rule per relay, as a table):

===========================================  ===============================================
relay                                        what it says of a sub-agent lane
===========================================  ===============================================
``tool_use`` of a spawn tool (Task, Agent)   the lane (the call's id) was spawned
``tool_result`` answering a spawn call       the call ended: completed, or failed on an error
                                             (not one that says it ``launched`` the agent in
                                             the background: that agent runs on)
``lane_end`` with no ``tool_use_id``           its work ended (a background agent's, or after a
                                             message): completed
``system`` with a ``state`` (``task_*``)     the task's own state wins over the call's end
                                             (a background agent's call ends at once)
``tool_progress`` heartbeat in the lane      it is alive: running for ``elapsed_time_seconds``
content (text, thinking, tools, user text)   the lane has records of its own
===========================================  ===============================================

The state is the task's when a task event gave one, else the call's end, else ``running`` once
the lane was spawned or beat; :func:`status_words` says it as the lanes panel does
("running, 30 s"). A heartbeat adds no row of its own: it only moves its lane's state.

:func:`check` holds the CLI's count against the lanes: the sub-agents it spawned against the
spawning calls and the lanes with records of their own; its completed and failed against the
lanes' states; and says in plain words when sub-agents are missing from the input (no frame of
theirs: ``--forward-subagent-text`` was off, or the stream was cut). For a session folder, the
sub-agent transcripts its records name and the input lacks (``lanes.missing_transcripts``) come
along. The result is plain data (:class:`SubagentCheck`), for the audit's text and JSON and for
the page's lanes panel.

Pure: no I/O. Imports ``relay``, ``lanes`` and ``meaning`` only; must not translate or change relays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import pairwise
from typing import Any, Final

import msgspec

from . import relay as R
from .lanes import MAIN, Lane, is_spawn_tool, missing_transcripts
from .meaning import elapsed_words, relay_fields

__all__ = ["CliCount", "LaneState", "LaneStates", "SubagentCheck", "check", "check_states", "cli_count",
           "describe_check", "status_words"]

RUNNING: Final = "running"
COMPLETED: Final = "completed"
FAILED: Final = "failed"
_CONTENT: Final = frozenset({R.TextDelta, R.ThinkingDelta, R.ToolUse, R.ToolResult, R.UserMessage, R.ContentBlock})
_HEARTBEAT: Final = "tool_progress"


class LaneState(msgspec.Struct):
    """What the relays say of one sub-agent lane so far."""

    spawned: bool = False  # its spawning call was seen
    ended: bool = False  # that call got its result
    end_error: bool = False
    task_state: str | None = None  # the last task_* event's
    elapsed_s: float | None = None  # the longest running time a heartbeat reported
    heartbeats: int = 0
    records: int = 0  # content relays in the lane

    @property
    def state(self) -> str | None:
        """``running``, ``completed`` or ``failed``; None for a lane no call spawned and nothing
        says is running."""
        if self.task_state is not None:
            return self.task_state
        if self.ended:
            return FAILED if self.end_error else COMPLETED
        return RUNNING if self.spawned or self.heartbeats else None


def status_words(st: LaneState) -> str | None:
    """A lane's state for people: ``running, 30 s`` while a heartbeat said so, else the state."""
    state = st.state
    if state == RUNNING and st.elapsed_s is not None:
        return f"{RUNNING}, {elapsed_words(st.elapsed_s)}"
    return state


class LaneStates:
    """Per sub-agent lane, its :class:`LaneState` (``feed`` relays in seq order, any slicing)."""

    def __init__(self) -> None:
        self.lanes: dict[str, LaneState] = {}

    def _of(self, lane: str) -> LaneState:
        found = self.lanes.get(lane)
        if found is None:
            found = self.lanes[lane] = LaneState()
        return found

    def feed(self, relays: Iterable[R.Relay]) -> None:
        add = self.add
        for r in relays:
            add(r)

    def add(self, r: R.Relay) -> None:
        """One relay (the table in the module doc). By exact type, not ``isinstance``: the page
        feeds every relay of a load through here, and a chain of ``isinstance`` tests on each
        cost four times the rest of the lane cards' pass (relays are final Structs)."""
        t = type(r)
        if t in _CONTENT and r.lane != MAIN:
            self._of(r.lane).records += 1
        if t is R.ToolUse:
            if is_spawn_tool(r.name):  # type: ignore[attr-defined]
                self._of(r.id).spawned = True  # type: ignore[attr-defined]
        elif t is R.ToolResult:
            st = self.lanes.get(r.tool_use_id)  # type: ignore[attr-defined]
            if st is not None and st.spawned and not r.launched:  # type: ignore[attr-defined]
                st.ended, st.end_error = True, r.is_error  # type: ignore[attr-defined]
        elif t is R.System:
            if r.state is not None and r.lane != MAIN:  # type: ignore[attr-defined]
                self._of(r.lane).task_state = r.state  # type: ignore[attr-defined]
            elif r.subtype == _HEARTBEAT:  # type: ignore[attr-defined]
                self._beat(r)  # type: ignore[arg-type]
        elif t is R.Passthrough and r.event_type == _HEARTBEAT:  # type: ignore[attr-defined]
            self._beat(r)  # type: ignore[arg-type]
        elif t is R.LaneEnd and r.tool_use_id is None:  # type: ignore[attr-defined]
            st = self.lanes.get(r.lane)
            if st is not None and st.spawned:
                st.ended = True

    def _beat(self, r: R.System | R.Passthrough) -> None:
        if r.lane == MAIN:  # an ordinary tool's progress: no sub-agent's
            return
        st = self._of(r.lane)
        st.heartbeats += 1
        elapsed = relay_fields(r).get("elapsed_time_seconds")
        if isinstance(elapsed, int | float) and not isinstance(elapsed, bool):
            st.elapsed_s = max(st.elapsed_s or 0.0, float(elapsed))

    def words(self) -> dict[str, str]:
        """Lane id -> its state in words, for the lanes that have one."""
        return {k: w for k, st in self.lanes.items() if (w := status_words(st)) is not None}


# --- the CLI's own count ---------------------------------------------------------------------


class CliCount(msgspec.Struct, omit_defaults=True):
    """The sub-agents the CLI counted (``subagent_stats``; killed and refused summed over their
    reasons), read tolerantly: a field of another type counts as 0."""

    spawned: int = 0
    completed: int = 0
    failed: int = 0
    killed: int = 0
    refused: int = 0
    spawned_by_subagents: int = 0
    max_depth: int = 0
    by_type: dict[str, int] = {}
    results: int = 0  # results whose counts these are


_SUMMED: Final = ("spawned", "completed", "failed", "killed", "refused", "spawned_by_subagents")


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else 0


def _total(value: Any) -> int:
    """A count, or the sum of a breakdown's counts (``killed {parent, user, system}``)."""
    if isinstance(value, dict):
        return sum(_int(v) for v in value.values())
    return _int(value)


def _one(stats: Mapping[str, Any]) -> CliCount:
    kinds = stats.get("by_type")
    return CliCount(**{k: _total(stats.get(k)) for k in _SUMMED}, max_depth=_int(stats.get("max_depth")),
                    by_type={k: _int(v) for k, v in kinds.items() if isinstance(k, str)} if isinstance(kinds, dict)
                    else {}, results=1)


def _add(a: CliCount, b: CliCount) -> CliCount:
    kinds = dict(a.by_type)
    for k, v in b.by_type.items():
        kinds[k] = kinds.get(k, 0) + v
    return CliCount(**{k: getattr(a, k) + getattr(b, k) for k in _SUMMED}, max_depth=max(a.max_depth, b.max_depth),
                    by_type=kinds, results=a.results + b.results)


def _running_totals(counts: list[CliCount]) -> bool:
    """Does each result repeat the ones before it (no count goes down): the last one holds all."""
    return all(getattr(b, k) >= getattr(a, k) for a, b in pairwise(counts) for k in _SUMMED)


def cli_count(relays: Iterable[R.Relay]) -> CliCount | None:
    """The CLI's count over the input's results, or None when no result carries one. The results
    of one session whose counts never go down are running totals (the last one holds); otherwise
    each counts its own turn, and they are summed; sessions are summed."""
    by_session: dict[str | None, list[CliCount]] = {}
    for r in relays:
        if isinstance(r, R.TurnComplete) and isinstance(stats := r.extra.get("subagent_stats"), dict):
            by_session.setdefault(r.session_id, []).append(_one(stats))
    if not by_session:
        return None
    total = CliCount(results=0)
    for counts in by_session.values():
        if _running_totals(counts):
            total = _add(total, CliCount(**{**msgspec.structs.asdict(counts[-1]), "results": len(counts)}))
        else:
            for c in counts:
                total = _add(total, c)
    return total


class SubagentCheck(msgspec.Struct):
    """The CLI's count against the input's sub-agents, as plain data. ``calls``: spawning calls in
    the input; ``with_records``: sub-agent lanes with records of their own; ``completed`` /
    ``failed`` / ``running``: the spawned lanes' states; ``silent``: spawned lanes with no record
    (their ids); ``missing``: sub-agents the CLI counted that have no record in the input;
    ``missing_files``: lane -> the sub-agent transcript a session's records name and the input
    lacks; ``words``: all of it in sentences."""

    cli: CliCount | None = None
    calls: int = 0
    with_records: int = 0
    completed: int = 0
    failed: int = 0
    running: int = 0
    silent: list[str] = []
    missing: int = 0
    missing_files: dict[str, str] = {}
    words: list[str] = []


def check(relays: Iterable[R.Relay], lanes: Mapping[str, Lane] | None = None) -> SubagentCheck | None:
    """The check of one input's relays (and, for a session folder, its lanes); None when there is
    nothing to hold the lanes against (no count from the CLI, no transcript missing)."""
    relays = list(relays)
    states = LaneStates()
    states.feed(relays)
    return check_states(states, relays, lanes)


def check_states(states: LaneStates, results: Iterable[R.Relay],
                 lanes: Mapping[str, Lane] | None = None) -> SubagentCheck | None:
    """``check`` of relays already fed to ``states``, given their results (``turn_complete``; any
    other relay is passed over): for a caller that counts relays as they come and keeps none."""
    cli = cli_count(results)
    files = missing_transcripts(lanes) if lanes else {}
    if cli is None and not files:
        return None
    spawned = {k: st for k, st in states.lanes.items() if st.spawned}
    records = {k for k, st in states.lanes.items() if st.records}
    by_state = [st.state for st in spawned.values()]
    out = SubagentCheck(cli=cli, calls=len(spawned), with_records=len(records),
                        completed=by_state.count(COMPLETED), failed=by_state.count(FAILED),
                        running=by_state.count(RUNNING), silent=[k for k in spawned if k not in records],
                        missing_files=files)
    out.missing = max(0, cli.spawned - len(records)) if cli is not None else len(files)
    out.words = describe_check(out)
    return out


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def describe_check(c: SubagentCheck) -> list[str]:
    """The check in sentences, first what the CLI counted and what the input has, then each
    difference and what it means."""
    out: list[str] = []
    cli = c.cli
    ours = (f"the input has {_n(c.calls, 'spawning call')} ({c.completed} completed, {c.failed} failed, "
            f"{c.running} running) and {_n(c.with_records, 'sub-agent')} with records of "
            f"{'its' if c.with_records == 1 else 'their'} own")
    if cli is not None:
        extra = [f"{cli.killed} killed" if cli.killed else None, f"{cli.refused} refused" if cli.refused else None]
        told = ", ".join(x for x in [f"{cli.completed} completed", f"{cli.failed} failed", *extra] if x)
        out.append(f"the CLI counted {_n(cli.spawned, 'sub-agent')} ({told}); {ours}")
        if c.missing:
            why = ("no sub-agent frame is in the input: --forward-subagent-text was off (or the stream was cut)"
                   if c.with_records == 0 else
                   "their frames are not in the input: the stream was cut, or they were not forwarded")
            out.append(f"{_n(c.missing, 'sub-agent')} the CLI counted {'has' if c.missing == 1 else 'have'} "
                       f"no record here: {why}")
        if c.calls < cli.spawned + cli.refused:
            gap = cli.spawned + cli.refused - c.calls
            out.append(f"{_n(gap, 'spawning call')} the CLI counted {'is' if gap == 1 else 'are'} not in the input"
                       + (" (sub-agents spawned by sub-agents whose frames are missing)"
                          if cli.spawned_by_subagents else " (the stream was cut)"))
        if cli.failed + cli.killed != c.failed:
            out.append(f"the CLI counted {cli.failed + cli.killed} failed or killed; the lanes show {c.failed} failed")
        if cli.completed != c.completed:
            out.append(f"the CLI counted {cli.completed} completed; the lanes show {c.completed} completed")
    elif c.calls:
        out.append(ours)
    if c.missing_files:
        names = ", ".join(c.missing_files.values())
        out.append(f"{_n(len(c.missing_files), 'sub-agent transcript')} the records name "
                   f"{'is' if len(c.missing_files) == 1 else 'are'} not in the input: {names}")
    return out
