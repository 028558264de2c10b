"""For files read as they grow (live.LiveFiles): a sub-agent file's id, a meta file, a file's head."""

from __future__ import annotations

import re
from typing import Final

from ..formats.session import (
    AGENT_META,
    decode_or,
)
from .scan import (
    JOURNAL,
    Message,
    Text,
    _agent_id,
    _basename,
    _meta,
    _scan,
    _scan_file,
    _workflow_run,
    seconds,
)

# --- for files read as they grow (live.LiveFiles) ----------------------------------------------


def agent_file_id(name: str) -> str | None:
    """``<id>`` of a sub-agent file ``agent-<id>.jsonl``, else None."""
    return _agent_id(name)


def meta_file_id(name: str) -> str | None:
    """``<id>`` of a sub-agent meta file ``agent-<id>.meta.json``, else None."""
    m = AGENT_META.match(_basename(name))
    return m.group(1) if m else None


def read_meta(content: Text) -> tuple[str | None, str | None, str | None, int | None] | None:
    """A meta file's (toolUseId, agentType, description, spawnDepth); None if it is not the
    JSON object expected (yet: it may be half written)."""
    meta = decode_or(_meta, content, None)
    if meta is None:
        return None
    return meta.toolUseId, meta.agentType, meta.description, meta.spawnDepth


def file_head(lines: list[bytes]) -> tuple[str | None, str | None]:
    """The ``sessionId`` and the first user prompt found in these lines of a file."""
    s = _scan_file(lines)
    return s.session_id, s.first_prompt


def result_links(line: bytes) -> dict[str, str]:
    """``{agentId: spawn id}`` that one record's spawn results name (``toolUseResult``)."""
    return _scan_file([line]).agent_results


def workflow_run(name: str) -> str | None:
    """``wf_<id>`` of a file in a session's ``subagents/workflows/wf_<id>/``, else None."""
    return _workflow_run(name)


def is_journal(name: str) -> bool:
    """Is this a Workflow run's ``journal.jsonl`` (each agent's return value)?"""
    return _basename(name) == JOURNAL and _workflow_run(name) is not None


def workflow_links(line: bytes) -> tuple[list[str], dict[str, str]]:
    """The Workflow calls one record makes (in order) and ``{wf_<id>: call}`` that its results
    name (``toolUseResult.runId``)."""
    s = _scan_file([line])
    return s.workflow_calls, s.workflow_runs


def message_links(line: bytes, sent: dict[bytes, str]) -> tuple[list[Message], dict[str, str | None]]:
    """The SendMessage calls one record makes (in order; each added to ``sent``, its id as bytes
    -> its ``to``) and, of the calls in ``sent`` its results answer, the agent each resumed
    (None: none, its message was queued or refused)."""
    s = _scan_file([line], sent)
    return s.messages, s.resumed


_NOTIFIED: Final = re.compile(rb"<tool-use-id>([^<\\]+)</tool-use-id>")


def notified_call(line: bytes) -> str | None:
    """The call a ``<task-notification>`` record says is done (its ``<tool-use-id>``: the spawn
    of a background agent, or a SendMessage call that resumed one), else None."""
    if b"<task-notification>" not in line:
        return None
    m = _NOTIFIED.search(line)
    return m.group(1).decode("utf-8", "replace") if m else None


def line_time(line: bytes) -> float | None:
    """One record's ``timestamp`` in seconds, or None (none, or not a record)."""
    rec = decode_or(_scan, line, None)
    return seconds(rec.timestamp) if rec is not None else None
