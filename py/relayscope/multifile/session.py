"""One session's files (the main file, its sub-agents' and workflows' files) translated as one run."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import msgspec
from msgspec import Raw, Struct

from .. import relay as R
from .. import trace as T
from ..drift import Drift, DriftReport
from ..formats.session import (
    AGENT_META,
    BACKGROUND_END,
    UNLINKED,
    SessionTranslator,
    decode_or,
    first_text,
)
from ..lanes import Lane
from ..wire import split_lines
from .scan import (
    BAD_META,
    Message,
    Text,
    _agent_id,
    _AgentFile,
    _basename,
    _Meta,
    _meta,
    _prepare,
    _Prepared,
    _Scan,
    _scan,
    _workflow_run,
    is_companion,
    seconds,
)

# --- several files --------------------------------------------------------------------------


class SessionResult(msgspec.Struct):
    """One session (a main file and its sub-agent files), translated."""

    name: str  # the main file, or the first file when there is none
    format: str  # "session", or the format a file that is no session transcript was read as
    files: list[str]  # in the order their relays were emitted
    relays: list[R.Relay]
    trace: list[T.TraceStep]
    errors: list[tuple[str | None, int, str]]  # (file, line, message)
    lanes: dict[str, Lane] = msgspec.field(default_factory=dict)  # lane id -> parent, depth, label ...
    file_lanes: dict[str, str] = msgspec.field(default_factory=dict)  # sub-agent file -> its lane
    file_links: dict[str, str] = msgspec.field(default_factory=dict)  # sub-agent file -> how it was linked
    session_id: str | None = None
    drift: dict[str, DriftReport] = msgspec.field(default_factory=dict)  # file -> its drift report
    companions: list[str] = msgspec.field(default_factory=list)  # kept with it, not translated (tool-results/, journals)


def translate_session(files: Mapping[str, Text], strategy: str = "lineage", *,
                      trace: bool = False, drift: Drift | None = None) -> SessionResult:
    """Translate the files of ONE session together: ``{name or relative path: content}``.

    Files named ``agent-<id>.jsonl`` are sub-agent files, ``agent-<id>.meta.json`` their meta
    files, every other file a main file (usually one). Sub-agent files are linked to their
    spawning call as the module doc says; the relays come in one seq space. ``drift``, when
    given, counts the files' drift as they are decoded (each line with its file)."""
    return _translate_session(files, strategy, trace, {}, drift)


class _Files(msgspec.Struct, eq=False):
    """A session's files sorted by kind: what a quick pass saw of each transcript, meta files read."""
    metas: dict[str, _Meta] = msgspec.field(default_factory=dict)  # agent id -> its meta file
    mains: list[str] = msgspec.field(default_factory=list)
    agents: list[str] = msgspec.field(default_factory=list)
    data: dict[str, list[bytes]] = msgspec.field(default_factory=dict)  # transcript -> its lines
    scans: dict[str, _Scan] = msgspec.field(default_factory=dict)
    errors: list[tuple[str | None, int, str]] = msgspec.field(default_factory=list)
    companions: list[str] = msgspec.field(default_factory=list)
    returned: dict[tuple[str, str], str] = msgspec.field(default_factory=dict)  # (run, agent id) -> its journal's result


class _Links(msgspec.Struct, eq=False):
    """Which call spawned which sub-agent file, and what each call is known by."""
    links: dict[str, tuple[str, str]]  # agent id -> (spawn id, how)
    spawn_file: dict[str, str]  # spawn id -> file it is in
    prompts: dict[str, list[str]]  # a spawn's prompt -> its calls
    runs: dict[str, tuple[str | None, str]]  # workflow run -> (its call, how)
    sent: dict[str, list[Message]]  # agent id -> the SendMessage calls that resumed it, in order
    taken: set[str]  # spawn ids a sub-agent file is linked to


def _translate_session(files: Mapping[str, Text], strategy: str, trace: bool,
                       cache: _Prepared, drift: Drift | None = None) -> SessionResult:
    f = _sorted_files(files, cache)
    lk = _linked(f)
    t = SessionTranslator(strategy, trace=trace, links={a: sp for a, (sp, _) in lk.links.items()})
    t.drift = drift
    t.reserve_spawns(lk.taken)  # an inline sidechain never takes a call a sub-agent file is linked to
    waiting: dict[str, list[_AgentFile]] = {}  # spawn id -> sub-agent files run right after it
    pending: list[_AgentFile] = []
    for name in sorted(f.agents):
        _queue_agent(t, f, lk, name, waiting, pending)
    background = {spawn for s in f.scans.values() for spawn in s.background}
    order, relays = _run_files(t, f, waiting, pending, lk.spawn_file, background)
    for agent, (spawn, _) in lk.links.items():  # whose transcript to look for (lanes.missing_transcripts)
        if spawn in t.lanes.lanes:
            t.lanes.describe(spawn, agent_id=agent)
    first = (f.mains or f.agents or list(files) or [""])[0]
    session_id = next((f.scans[n].session_id for n in (f.mains + f.agents) if f.scans[n].session_id), None)
    return SessionResult(
        name=first, format="session", files=order, relays=relays, trace=t.trace,
        errors=f.errors + t.file_errors, lanes=t.lanes.snapshot(),
        file_lanes={af.name: af.lane for af in pending}, file_links={af.name: af.how for af in pending},
        session_id=session_id, companions=f.companions,
    )


def _sorted_files(files: Mapping[str, Text], cache: _Prepared) -> _Files:
    """Each file as what it is: a companion (a workflow's journal read for its agents' results), a
    meta file (read; a bad one is an error), or a main or sub-agent transcript (scanned)."""
    f = _Files()
    for name, content in files.items():
        if is_companion(name):
            f.companions.append(name)
            wf = _workflow_run(name)
            if wf is not None:
                for agent, value in journal_results(content).items():
                    f.returned[(wf, agent)] = value
            continue
        m = AGENT_META.match(_basename(name))
        if m:
            meta = decode_or(_meta, content, None)
            if meta is None:
                f.errors.append((name, 1, BAD_META))
            else:
                f.metas[m.group(1)] = meta
            continue
        f.data[name], f.scans[name] = _prepare(name, content, cache)
        (f.agents if _agent_id(name) is not None else f.mains).append(name)
    return f


def _linked(f: _Files) -> _Links:
    """The links the files state (a meta file's toolUseId, a spawn result's agentId), the spawning
    calls and their prompts, the workflow runs' calls and the messages sent to each agent."""
    links: dict[str, tuple[str, str]] = {}
    for agent, meta in f.metas.items():
        if meta.toolUseId:
            links[agent] = (meta.toolUseId, "agent-<id>.meta.json toolUseId")
    for s in f.scans.values():
        for agent, tool_id in s.agent_results.items():
            links.setdefault(agent, (tool_id, "toolUseResult.agentId of the spawn's result"))
    spawn_file: dict[str, str] = {}
    prompts: dict[str, list[str]] = {}
    for name, s in f.scans.items():
        for tool_id, prompt in s.spawns.items():
            spawn_file.setdefault(tool_id, name)
            if prompt:
                prompts.setdefault(prompt, []).append(tool_id)
    runs = _workflow_calls(f.scans.values(), {r for n in f.agents if (r := _workflow_run(n)) is not None})
    sent: dict[str, list[Message]] = {}
    for name in f.mains:
        scan = f.scans[name]
        for m in scan.messages:
            # the agent its result says it resumed (by id, whatever ``to`` named it by); a call
            # whose result says it resumed none (its message was queued for a running agent)
            # starts no span; a call with no result seen: the agent ``to`` names
            whom = scan.resumed.get(m.call, m.to)
            if whom is not None:
                sent.setdefault(whom, []).append(m)
    return _Links(links, spawn_file, prompts, runs, sent, {spawn for spawn, _ in links.values()})


def _queue_agent(t: SessionTranslator, f: _Files, lk: _Links, name: str,
                 waiting: dict[str, list[_AgentFile]], pending: list[_AgentFile]) -> None:
    """A sub-agent file's lane made and described, the file (and its parts after each message sent
    to it) queued to run right after its spawning call (``waiting``), and in ``pending``."""
    agent = _agent_id(name) or name
    wf = _workflow_run(name)
    if wf is not None:  # an agent of a Workflow run: a lane of its own under the call
        call, how = lk.runs.get(wf, (None, UNLINKED))
        meta = f.metas.get(agent)
        lane = workflow_lane(t, name, wf, agent, call, meta.description if meta is not None else None,
                             f.scans[name].first_prompt)
        af = _AgentFile(name, agent, lane, f.data[name], how, run=wf, returned=f.returned.get((wf, agent)))
        if call is not None:
            waiting.setdefault(call, []).append(af)
        pending.append(af)
        return
    links = lk.links
    if agent not in links:
        # no meta, no agentId in a result: the one call whose prompt is the file's first prompt
        prompt = f.scans[name].first_prompt
        free = [sp for sp in lk.prompts.get(prompt or "", []) if sp not in lk.taken]
        if prompt and free:
            links[agent] = (free[0], "the spawning call's prompt is the file's first prompt")
            lk.taken.add(free[0])
            t.link_agent(agent, free[0])
    spawn, how = links.get(agent, (f"agent-{agent}", UNLINKED))
    lines, parts = _resumed_parts(f.data[name], lk.sent.get(agent, []))
    af = _AgentFile(name, agent, spawn, lines, how)
    for call, start, part in parts:  # its work after each message: right after that call
        later = _AgentFile(name, agent, spawn, part, f"continued by SendMessage {call}", first_line=start,
                           resumed_by=call)
        waiting.setdefault(call, []).append(later)
        pending.append(later)
    meta = f.metas.get(agent)
    if agent in links:
        waiting.setdefault(spawn, []).append(af)
    else:
        t.own_lane(spawn, agent)
    if meta is not None:
        t.describe_lane(spawn, meta.agentType, meta.description, meta.spawnDepth, file=name)
    else:
        t.describe_lane(spawn, file=name)
    pending.append(af)


def _run_files(t: SessionTranslator, f: _Files, waiting: dict[str, list[_AgentFile]],
               pending: list[_AgentFile], spawn_file: Mapping[str, str],
               background: set[str]) -> tuple[list[str], list[R.Relay]]:
    """The main files translated in turn, each sub-agent file right after its spawning call; then
    those whose call never came (orphans first, then the rest by name). (files in order, relays)
    A sub-agent launched in the background (``background``: its spawn's result says so) ends at
    the end of its work (its part's last record), not at that result."""
    order: list[str] = []
    relays: list[R.Relay] = []

    def run(af: _AgentFile) -> list[R.Relay]:
        af.done = True
        if af.name not in order:
            order.append(af.name)
        out = t.resume_lane(af.name, af.first_line, af.lane, af.resumed_by) if af.resumed_by else []
        out += t.translate_file(af.name, af.lines, lane=af.lane, first_line=af.first_line)
        if af.resumed_by is not None:  # no tool_result ends the work after a message: its part's end does
            out += t.end_lane(af.name, af.first_line + len(af.lines) - 1, af.lane, None,
                              f"end of the work after the message of call {af.resumed_by}")
        elif af.run is None and af.lane in background and af.lines:  # nor does a background launch's result
            out += t.end_lane(af.name, af.first_line + len(af.lines) - 1, af.lane, None, BACKGROUND_END)
        if af.run is not None:  # no tool_result ends a workflow's agent: the end of its file does
            out += end_workflow_agent(t, af.name, len(af.lines), af.lane, af.run, af.returned)
        return out

    def on_spawn(spawn: str) -> list[R.Relay]:
        out: list[R.Relay] = []
        for af in waiting.pop(spawn, []):
            if not af.done:
                out.extend(run(af))
        return out

    t.on_spawn(on_spawn)
    for name in f.mains:
        order.append(name)
        relays.extend(t.translate_file(name, f.data[name]))
    for af in pending:
        if not af.done and af.lane not in spawn_file:
            relays.extend(run(af))
    for af in pending:
        if not af.done:
            relays.extend(run(af))
    relays.extend(t.finish())
    return order, relays


class _JournalLine(Struct):
    type: Any = None
    agentId: Any = None
    result: Raw = Raw(b"")


_journal_line: Final = msgspec.json.Decoder(_JournalLine)


def workflow_lane(t: SessionTranslator, name: str, run: str, agent: str, call: str | None,
                  description: str | None, first_prompt: str | None) -> str:
    """The lane of agent ``agent`` of Workflow run ``run`` (its file ``name``), made under the
    run's call ``call`` (None: not found) and labelled by its task (its meta file's description,
    else its prompt's first sentence) and its run. Returns its id, ``<run>/<agent>``."""
    lane_id = f"{run}/{agent}"
    task = description or _first_sentence(first_prompt)
    # its task first (the run's agents told apart in a narrow lane), then its run
    lane = t.lanes.own_lane(lane_id, agent_type=task or agent, description=f"workflow run {run}")
    lane.spawn, lane.run, lane.agent_id, lane.file = call, run, agent, name
    return lane_id


def end_workflow_agent(t: SessionTranslator, name: str, lines: int, lane: str, run: str,
                       returned: str | None) -> list[R.Relay]:
    """A workflow agent's lane ended at the end of its file (``lines`` its last line), with what
    its run's journal says it returned: no tool_result ends it."""
    return t.end_lane(name, lines, lane, returned, f"end of workflow {run}'s agent"
                      + (": its journal's result" if returned else ""))


def journal_results(content: Text) -> dict[str, str]:
    """Agent id -> what it returned, from a workflow run's ``journal.jsonl`` (``{"type": "result",
    "agentId", "result"}`` lines; a later line for an agent wins): text as it is, else its JSON."""
    out: dict[str, str] = {}
    for line in split_lines(content):
        rec = decode_or(_journal_line, line, None)
        if rec is None or rec.type != "result" or not isinstance(rec.agentId, str) or not rec.result:
            continue
        value = decode_or(_text, rec.result, None)
        out[rec.agentId] = value if isinstance(value, str) else bytes(rec.result).decode("utf-8", "replace")
    return out


_text: Final = msgspec.json.Decoder(str)


def _workflow_calls(scans: Iterable[_Scan], runs: set[str]) -> dict[str, tuple[str | None, str]]:
    """Each workflow run -> (its Workflow call, how that was found), from the files' scans."""
    named: dict[str, str] = {}
    calls: list[str] = []
    for s in scans:
        calls.extend(s.workflow_calls)
        for run, call in s.workflow_runs.items():
            named.setdefault(run, call)
    return pair_runs(named, calls, runs)


def pair_runs(named: Mapping[str, str], calls: Iterable[str], runs: Iterable[str]) -> dict[str, tuple[str | None, str]]:
    """Each workflow run -> (its Workflow call, how that was found): the call whose result names
    the run (``named``: ``toolUseResult.runId``), else, in order, the Workflow calls (``calls``,
    in order) no result names, given to the runs of ``runs`` no result names, by id."""
    found: dict[str, tuple[str | None, str]] = {
        run: (call, "toolUseResult.runId of the Workflow call's result") for run, call in named.items()}
    taken = set(named.values())
    free = [c for c in calls if c not in taken]
    for run, call in zip(sorted(r for r in set(runs) if r not in found), free, strict=False):
        found[run] = (call, "the Workflow call no result names, in order")
    return found


def _resumed_parts(lines: list[bytes], messages: list[Message]
                   ) -> tuple[list[bytes], list[tuple[str, int, list[bytes]]]]:
    """A sub-agent file cut where each SendMessage call resumed it: at the first user record with
    words (no tool result) after the previous cut that is stamped no earlier than the call; where
    the call or the records have no time, at the first such record whose text is the message.
    Returns the lines before the first cut, and each later part as (call, its first line, its
    lines). No cut found: the file whole."""
    cuts: list[tuple[int, str]] = []
    at = 1
    for m in messages:
        for i in range(at, len(lines)):
            words = user_words(lines[i])
            if words is not None and answers(words, m):
                cuts.append((i, m.call))
                at = i + 1
                break
    if not cuts:
        return lines, []
    parts = []
    for k, (i, call) in enumerate(cuts):
        end = cuts[k + 1][0] if k + 1 < len(cuts) else len(lines)
        parts.append((call, i + 1, lines[i:end]))
    return lines[:cuts[0][0]], parts


def user_words(line: bytes) -> tuple[str, float | None] | None:
    """A user record with words (not a tool result): its text and its time (None without one);
    else None. Where a sub-agent's file may be cut for a message sent to it."""
    if b'"user"' not in line:
        return None
    rec = decode_or(_scan, line, None)
    if rec is None or rec.type != "user":
        return None
    text = first_text(rec.message.content if rec.message is not None else None)
    return None if text is None else (text, seconds(rec.timestamp))


def answers(words: tuple[str, float | None], m: Message) -> bool:
    """Whether a user record's words (``user_words``) are where message ``m`` resumed its agent:
    stamped no earlier than the call; where either has no time, its text is the message."""
    text, when = words
    return when >= m.at if (m.at is not None and when is not None) else text.strip() == m.message.strip()


def _first_sentence(text: str | None, width: int = 60) -> str | None:
    """A prompt's first sentence on one line, without its full stop, cut to ``width``."""
    if not text:
        return None
    line = " ".join(text.split())
    line = line.split(". ", 1)[0].rstrip(".")
    return line if len(line) <= width else line[: width - 1] + "…"


