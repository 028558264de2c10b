"""Stream-json lines in the shapes PROTOCOL.md section 7 gives for CLI 2.1.250-2.1.281 (heartbeats,
permission denials, repository changes, the new init and result fields), with values of our own:
no line is copied from a capture. Imported by the tests of those shapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from relayscope import relay as R
from relayscope.translator import Translator

SESSION = "5d0c1e7a-run"
AGENT = "toolu_01AgentExplore"
AGENT_2 = "toolu_01AgentReview"
BASH = "toolu_01BashPush"


def init(**extra: Any) -> dict[str, Any]:
    return {"type": "system", "subtype": "init", "session_id": SESSION, "model": "claude-opus-5", "cwd": "/srv/app",
            "claude_code_version": "2.1.266", "tools": ["Bash", "Read", "Agent"], "uuid": "i-1",
            "capabilities": ["interrupt_receipt_v1", "msg_lifecycle_v1"], "memory_paths": {"auto": "/srv/.mem"},
            "view_mode": "default", "per_turn_effort_active": False, "scratchpad_path": "/tmp/pad-1", **extra}


def call(uuid: str, mid: str, tool_id: str, name: str, tool_input: dict[str, Any],
         parent: str | None = None) -> dict[str, Any]:
    return {"type": "assistant", "uuid": uuid, "parent_tool_use_id": parent, "session_id": SESSION,
            "message": {"id": mid, "role": "assistant", "model": "claude-opus-5",
                        "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}],
                        "usage": {"input_tokens": 5, "output_tokens": 9}}}


def say(uuid: str, mid: str, text: str, parent: str | None = None) -> dict[str, Any]:
    return {"type": "assistant", "uuid": uuid, "parent_tool_use_id": parent, "session_id": SESSION,
            "message": {"id": mid, "role": "assistant", "model": "claude-opus-5",
                        "content": [{"type": "text", "text": text}], "usage": {"input_tokens": 2, "output_tokens": 3}}}


def answer(uuid: str, tool_id: str, text: str, error: bool = False, parent: str | None = None) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "parent_tool_use_id": parent, "session_id": SESSION,
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": text,
                                                     "is_error": error}]}}


def heartbeat(agent: str, n: int, seconds: int) -> dict[str, Any]:
    return {"type": "tool_progress", "tool_use_id": f"{agent}-heartbeat-{n}", "tool_name": "Agent",
            "parent_tool_use_id": agent, "elapsed_time_seconds": seconds, "heartbeat": True, "session_id": SESSION,
            "uuid": f"hb-{agent[-6:]}-{n}"}


def denied(tool_id: str, tool: str = "Bash", text: str = "Permission to use Bash with command git push origin "
           "main has been denied.") -> dict[str, Any]:
    return {"type": "system", "subtype": "permission_denied", "tool_name": tool, "tool_use_id": tool_id,
            "decision_reason_type": "rule", "message": text, "session_id": SESSION, "uuid": f"pd-{tool_id[-4:]}"}


def vcs(kind: str = "push") -> dict[str, Any]:
    return {"type": "system", "subtype": "vcs_state_changed", "kind": kind, "cwd": "/srv/app", "session_id": SESSION,
            "uuid": "vcs-1"}


def published(url: str = "https://github.com/acme/app/pull/42") -> dict[str, Any]:
    return {"type": "system", "subtype": "code_change_published", "provider": "github", "url": url,
            "repo": "acme/app", "identifier": "42", "action": "pushed", "session_id": SESSION, "uuid": "pub-1"}


def stats(spawned: int, completed: int, failed: int, *, killed: int = 0, refused: int = 0,
          by_subagents: int = 0, by_type: dict[str, int] | None = None) -> dict[str, Any]:
    return {"spawned": spawned, "requested": {"background": 0, "foreground": spawned, "unset": 0},
            "started_in_background": 0, "max_depth": 1, "spawned_by_subagents": by_subagents,
            "completed": completed, "failed": failed, "killed": {"parent": killed, "user": 0, "system": 0},
            "refused": {"depth_limit": refused, "concurrency_limit": 0, "budget": 0},
            "by_type": by_type or {"Explore": spawned}}


def result(subagents: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    line: dict[str, Any] = {
        "type": "result", "subtype": "success", "is_error": False, "result": "done", "duration_ms": 71250,
        "duration_api_ms": 40100, "num_turns": 4, "session_id": SESSION, "total_cost_usd": 0.25, "uuid": "r-1",
        "first_content_frame_ms": 1460, "time_to_request_ms": 212, "ttft_ms": 1390, "ttft_stream_ms": 1410,
        "queued_turn_count": 0, "api_error_status": None, "terminal_reason": "completed", "result_index": 0,
        "structured_output": None, **extra}
    if subagents is not None:
        line["subagent_stats"] = subagents
    return line


def text(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(x).encode() + b"\n" for x in lines)


def run(lines: list[dict[str, Any]]) -> list[R.Relay]:
    t = Translator("lineage")
    out: list[R.Relay] = []
    for line in lines:
        out += t.feed_line(json.dumps(line))
    return out + t.finish()


def a_run_with_two_agents(forwarded: bool = True) -> list[dict[str, Any]]:
    """Two Explore agents in parallel, each beating; one finishes, one fails; a denied push; a
    published change; the result's own count (2 spawned, 1 completed, 1 failed)."""
    inner = [say("s-1", "msg_s1", "reading the tree", parent=AGENT),
             say("s-2", "msg_s2", "reviewing the diff", parent=AGENT_2)] if forwarded else []
    return [
        init(),
        {"type": "user", "uuid": "p-1", "session_id": SESSION, "parent_tool_use_id": None,
         "message": {"role": "user", "content": "look around, then push"}},
        call("a-1", "msg_1", AGENT, "Agent", {"description": "map the tree", "subagent_type": "Explore",
                                               "prompt": "map it"}),
        call("a-2", "msg_2", AGENT_2, "Agent", {"description": "review the diff", "subagent_type": "Explore",
                                                 "prompt": "review it"}),
        heartbeat(AGENT, 0, 30),
        *inner[:1],
        heartbeat(AGENT_2, 0, 30),
        *inner[1:],
        heartbeat(AGENT, 1, 60),
        answer("u-1", AGENT, "the tree has 3 packages"),
        answer("u-2", AGENT_2, "review crashed", error=True),
        call("a-3", "msg_3", BASH, "Bash", {"command": "git push origin main"}),
        denied(BASH),
        answer("u-3", BASH, "Permission denied", error=True),
        vcs(),
        published(),
        result(stats(2, 1, 1)),
    ]


def cli(*args: str, data: bytes, check: bool = True) -> str:
    """``relayscope ARGS -`` on ``data``, its stdout as text (no terminal width: rows are not cut)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "TERM")}
    p = subprocess.run([sys.executable, "-m", "relayscope", *args, "-"], input=data, capture_output=True, env=env,
                       check=False)
    assert not check or p.returncode == 0, p.stderr.decode()
    return p.stdout.decode()
