"""A quick pass over a session's files: who spawned which sub-agent file, names of a session folder's files."""

from __future__ import annotations

import posixpath
import re
from datetime import UTC, datetime
from typing import Any, Final

import msgspec
from msgspec import Raw, Struct

from ..formats.session import (
    AGENT_FILE,
    agent_link,
    decode_or,
    first_text,
)
from ..intake import SPILLED_FOLDER, is_spilled
from ..lanes import MESSAGE_TOOL, WORKFLOW_TOOL, is_spawn_tool, spawn_input
from ..wire import split_lines

Text = str | bytes
Errors = list[tuple[str | None, int, str]]  # (file, line, message)


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
    timestamp: str | None = None
    sessionId: str | None = None
    agentId: str | None = None
    isSidechain: bool | None = None
    message: _ScanMsg | None = None
    toolUseResult: Raw = Raw(b"")


BAD_META: Final = "sub-agent meta file is not the JSON object expected; ignored"


class _Meta(Struct):
    toolUseId: str | None = None
    agentType: str | None = None
    description: str | None = None
    spawnDepth: int | None = None


_scan: Final = msgspec.json.Decoder(_ScanRec)
_meta: Final = msgspec.json.Decoder(_Meta)


# --- one sub-agent file waiting for its spawning call ------------------------------------------


class _AgentFile(msgspec.Struct):
    name: str
    agent_id: str
    lane: str
    lines: list[bytes]
    how: str
    done: bool = False
    run: str | None = None  # a workflow's agent: its run; its lane ends at its file's end
    returned: str | None = None  # what its run's journal says it returned
    first_line: int = 1  # a part of the file: the line it starts at
    resumed_by: str | None = None  # the part after a SendMessage call's message: that call




def _basename(name: str) -> str:
    return posixpath.basename(name.replace("\\", "/"))


def _dirname(name: str) -> str:
    return posixpath.dirname(name.replace("\\", "/"))


WORKFLOWS: Final = "workflows"  # <session>/subagents/workflows/wf_<id>/: one Workflow run's agents
JOURNAL: Final = "journal.jsonl"  # beside them: each agent's start and return value, in order


def _workflow_run(name: str) -> str | None:
    """``wf_<id>`` of a file in a session's ``subagents/workflows/wf_<id>/``, else None."""
    parts = name.replace("\\", "/").split("/")
    if len(parts) >= 4 and parts[-2].startswith("wf_") and parts[-3] == WORKFLOWS and parts[-4] == "subagents":
        return parts[-2]
    return None


def is_companion(name: str) -> bool:
    """A file kept with its session and not translated: spilled tool output
    (``<session>/tool-results/``) or a workflow run's journal."""
    return is_spilled(name) or (_basename(name) == JOURNAL and _workflow_run(name) is not None)


def _session_main(name: str) -> str | None:
    """The main file of the session folder a sub-agent, workflow or companion file is in
    (``<session>.jsonl`` beside ``<session>/``), else None."""
    folder = _dirname(name)
    if _workflow_run(name) is not None:
        return _dirname(_dirname(_dirname(folder))) + ".jsonl"
    if _basename(folder) in ("subagents", SPILLED_FOLDER):
        return _dirname(folder) + ".jsonl"
    return None


def _agent_id(name: str) -> str | None:
    m = AGENT_FILE.match(_basename(name))
    return m.group(1) if m else None


class _Scan(msgspec.Struct):
    """What a quick pass over one file tells: enough to link files before translating."""

    session_id: str | None = None
    agent_id: str | None = None  # from the records (2.x sub-agent files)
    first_prompt: str | None = None
    spawns: dict[str, str | None] = msgspec.field(default_factory=dict)  # Task/Agent id -> prompt
    agent_results: dict[str, str] = msgspec.field(default_factory=dict)  # agentId -> tool_use_id
    workflow_calls: list[str] = msgspec.field(default_factory=list)  # Workflow call ids, in order
    workflow_runs: dict[str, str] = msgspec.field(default_factory=dict)  # wf_<id> -> its Workflow call
    messages: list[Message] = msgspec.field(default_factory=list)  # SendMessage calls, in order
    # SendMessage call -> the agent its result says it resumed (``resumedAgentId``), or None when
    # its result says it resumed none (queued for a running agent, refused)
    resumed: dict[str, str | None] = msgspec.field(default_factory=dict)
    background: set[str] = msgspec.field(default_factory=set)  # spawn ids whose result says "launched in the background"


class Message(msgspec.Struct, frozen=True):
    """A SendMessage call as a quick pass sees it: its id, its ``to`` (an agent id or name), its
    message and when it was made (the record's timestamp, in seconds; None without one)."""

    call: str
    to: str
    message: str
    at: float | None = None


class _RunLink(Struct):
    runId: Any = None


class _Message(Struct):
    to: Any = None
    message: Any = None


class _MessageResult(Struct):
    """A SendMessage call's ``toolUseResult``: ``{success, message, resumedAgentId}``."""
    success: Any = None
    message: Any = None
    resumedAgentId: Any = None


_run_link: Final = msgspec.json.Decoder(_RunLink)
_message: Final = msgspec.json.Decoder(_Message)
_message_result: Final = msgspec.json.Decoder(_MessageResult)
_INTERESTING: Final = re.compile(rb'"(?:Task|Agent|agentId|Workflow|runId|SendMessage|resumedAgentId)"')  # one pass over lines of no interest


def seconds(stamp: str | None) -> float | None:
    """An ISO 8601 timestamp in seconds since the epoch (no offset: UTC), or None."""
    if not stamp:
        return None
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo is not None else when.replace(tzinfo=UTC)).timestamp()


def _resumed_agent(raw: Raw, to: str) -> str | None:
    """The agent a SendMessage call's result says it resumed: its ``resumedAgentId``; in the older
    form without one, ``to`` when its message says the agent was resumed; else None (a message
    queued for a running agent, or refused)."""
    got = decode_or(_message_result, raw, None)
    if got is None:
        return None
    if isinstance(got.resumedAgentId, str) and got.resumedAgentId:
        return got.resumedAgentId
    said = got.message if isinstance(got.message, str) else ""
    return to if got.success is True and "resumed" in said else None


def _scan_file(lines: list[bytes], sent: dict[bytes, str] | None = None) -> _Scan:
    """``sent``: the SendMessage calls seen before these lines (id as bytes -> its ``to``), added
    to as calls are seen (a file read as it grows, a line at a time)."""
    s = _Scan()
    if sent is None:
        sent = {}  # a SendMessage call seen, its id as bytes -> its ``to``
    for i, line in enumerate(lines):
        head = i < 8 and s.session_id is None
        prompt = s.first_prompt is None and b'"user"' in line
        answer = bool(sent) and b'"toolUseResult"' in line and any(c in line for c in sent)
        if not (head or prompt or answer or _INTERESTING.search(line)):
            continue
        spawn = b'"tool_use"' in line and (b'"Task"' in line or b'"Agent"' in line or b'"Workflow"' in line
                                           or b'"SendMessage"' in line)
        result = b'"toolUseResult"' in line and (b'"agentId"' in line or b'"runId"' in line or answer)
        if not (head or prompt or spawn or result):
            continue
        rec = decode_or(_scan, line, None)
        if rec is None:
            continue
        if s.session_id is None and rec.sessionId:
            s.session_id, s.agent_id = rec.sessionId, rec.agentId
        content = rec.message.content if rec.message is not None else None
        if rec.type == "user" and s.first_prompt is None:
            s.first_prompt = first_text(content)
        if spawn and isinstance(content, list):
            for b in content:
                if b.type == "tool_use" and is_spawn_tool(b.name) and b.id:
                    s.spawns.setdefault(b.id, spawn_input(b.input).prompt)
                elif b.type == "tool_use" and b.name == WORKFLOW_TOOL and b.id:
                    s.workflow_calls.append(b.id)
                elif b.type == "tool_use" and b.name == MESSAGE_TOOL and b.id:
                    args = decode_or(_message, b.input, None) if b.input else None
                    if args is not None and isinstance(args.to, str) and isinstance(args.message, str):
                        s.messages.append(Message(b.id, args.to, args.message, seconds(rec.timestamp)))
                        sent[b.id.encode()] = args.to
        if answer and rec.toolUseResult and isinstance(content, list):
            for b in content:
                to = sent.get(b.tool_use_id.encode()) if b.type == "tool_result" and b.tool_use_id else None
                if b.tool_use_id and to is not None:
                    s.resumed[b.tool_use_id] = _resumed_agent(rec.toolUseResult, to)
        if result and rec.toolUseResult:
            run = decode_or(_run_link, rec.toolUseResult, None)
            if run is not None and isinstance(run.runId, str) and isinstance(content, list):
                for b in content:
                    if b.type == "tool_result" and b.tool_use_id:
                        s.workflow_runs.setdefault(run.runId, b.tool_use_id)
            link = decode_or(agent_link, rec.toolUseResult, None)
            if link is not None and isinstance(link.agentId, str) and isinstance(content, list):
                for b in content:
                    if b.type == "tool_result" and b.tool_use_id:
                        s.agent_results.setdefault(link.agentId, b.tool_use_id)
                        if link.launched:
                            s.background.add(b.tool_use_id)
    return s


_Prepared = dict[str, tuple[list[bytes], _Scan]]  # file -> its lines and what a quick pass saw


def _prepare(name: str, content: Text, cache: _Prepared) -> tuple[list[bytes], _Scan]:
    found = cache.get(name)
    if found is None:
        lines = split_lines(content)
        found = cache[name] = (lines, _scan_file(lines))
    return found


