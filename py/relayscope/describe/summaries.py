"""A tool call in one line: ``Edit src/app.py: 3 lines → 5``, ``Bash: npm test → exit 1``."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from .. import relay as R
from .. import spill
from .base import (
    _arrow,
    _first_line,
    _input,
    _lines,
    _n,
    _span,
    _status,
    _str,
    _text,
    _todos,
    clip,
    short_path,
)

# -- entry points -----------------------------------------------------------------------------


def summary(use: R.ToolUse, result: R.ToolResult | None = None,
            agents: Mapping[str, str] | None = None) -> str | None:
    """``use`` in one line (with how it ended, given its result); None for a tool or an input
    this module cannot read. ``agents``: agent id -> its lane's label, for a message to one."""
    args = _input(use)
    if args is None:
        return None
    if use.name == "SendMessage":
        return _sum_message(args, result, agents or {})
    if use.name == "Workflow":
        return _sum_workflow(args, result)
    try:
        said = _SUMMARIES[use.name](args, result) if use.name in _SUMMARIES else None
    except (TypeError, ValueError, AttributeError, KeyError, IndexError):  # a shape no capture showed
        return None
    if said is None or result is None:
        return said
    spilled = spill.of(_text(result))
    return f"{said} · {spilled.words}" if spilled is not None and spilled.words not in said else said


def result_summary(use: R.ToolUse, result: R.ToolResult) -> str | None:
    """A ``tool_result`` row's line, knowing its call: ``Bash → exit 1 · npm ERR! ...``,
    ``Read …/src/app.py → 40 lines``, ``Edit src/app.py → ok``."""
    args = _input(use)
    if args is None or use.name not in _SUMMARIES or summary(use, result) is None:
        return None
    path = _str(args, "file_path")
    subject = f"{use.name} {short_path(path)}" if path and use.name in _FILE_TOOLS else use.name
    words = f"{subject} → {_status(use.name, args, result, None)}"
    text = _text(result)
    first = _first_line(text) if use.name not in _FILE_TOOLS or result.is_error else ""
    first = first or ("" if text.strip() else "(no content)")
    return clip(f"{words} · {first}" if first else words)


_FILE_TOOLS: Final = frozenset({"Read", "Edit", "MultiEdit", "Write", "TodoWrite"})


# -- one-line summaries, per tool ---------------------------------------------------------------

_Summary = Callable[[dict[str, Any], "R.ToolResult | None"], "str | None"]


def _sum_edit(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
    path, old, new = _str(args, "file_path"), _str(args, "old_string"), _str(args, "new_string")
    if path is None or old is None or new is None:
        return None
    every = " (every occurrence)" if args.get("replace_all") is True else ""
    return f"Edit {short_path(path)}: {_n(len(_lines(old)), 'line')} → {len(_lines(new))}{every}{_error(result)}"


def _sum_multi(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
    path, edits = _str(args, "file_path"), args.get("edits")
    if path is None or not isinstance(edits, list):
        return None
    pairs = [(e.get("old_string"), e.get("new_string")) for e in edits if isinstance(e, dict)]
    old = sum(len(_lines(o)) for o, _ in pairs if isinstance(o, str))
    new = sum(len(_lines(n)) for _, n in pairs if isinstance(n, str))
    return f"MultiEdit {short_path(path)}: {_n(len(edits), 'edit')}, {_n(old, 'line')} → {new}{_error(result)}"


def _sum_write(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
    path, content = _str(args, "file_path"), _str(args, "content")
    if path is None or content is None:
        return None
    return f"Write {short_path(path)}: {_n(len(_lines(content)), 'line')}{_error(result)}"


def _error(result: R.ToolResult | None) -> str:
    if result is None or not result.is_error:
        return ""
    first = _first_line(_text(result))
    return f" → error: {clip(first, 60)}" if first else " → error"


def _sum_bash(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
    command = _str(args, "command")
    if command is None:
        return None
    return f"Bash: {clip(command, 100)}{_arrow(_status('Bash', args, result, None))}"


def _sum_read(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
    path = _str(args, "file_path")
    if path is None:
        return None
    span = _span(args)
    where = f"{short_path(path)}:{span}" if span else short_path(path)
    return f"Read {where}{_error(result)}"


def _sum_search(tool: str) -> _Summary:
    def one(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
        pattern = _str(args, "pattern")
        if pattern is None:
            return None
        path = _str(args, "path")
        where = f" in {short_path(path, 32)}" if path else ""
        glob = _str(args, "glob")
        kind = f" ({glob})" if glob else ""
        return f"{tool} '{clip(pattern, 60)}'{where}{kind}{_arrow(_status(tool, args, result, None))}"

    return one


def _sum_todos(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
    items = _todos(args)
    if items is None:
        return None
    done = sum(1 for t in items if t.status == "completed")
    now = next((t for t in items if t.status == "in_progress"), None)
    words = f"TodoWrite: {done} of {_n(len(items), 'todo')} done"
    if now is not None:
        words += f" · now: {clip(now.active_form or now.content, 80)}"
    return words + _error(result)


def _sum_spawn(tool: str) -> _Summary:
    def one(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
        kind, description = _str(args, "subagent_type"), _str(args, "description")
        prompt = _str(args, "prompt")
        if description is None and prompt is None:
            return None
        label = f"{tool} ({kind})" if kind else tool
        return f"{label}: {clip(description or prompt or '', 100)}{_error(result)}"

    return one


_SCRIPT_NAME: Final = re.compile(r"""\bname\s*:\s*['"]([^'"\n]{1,80})['"]""")


def _sum_workflow(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
    """``Workflow review (script)``: the run's name (its ``name``, the script's ``meta.name`` or
    its file's name), how it was given, and the run it resumes."""
    script, path = _str(args, "script"), _str(args, "scriptPath")
    found = _SCRIPT_NAME.search(script) if script else None
    name = _str(args, "name") or (found.group(1) if found else None) or (short_path(path) if path else None)
    how = "script" if script else "saved script" if path else "saved workflow" if _str(args, "name") else None
    if name is None and how is None:
        return None
    resumes = _str(args, "resumeFromRunId")
    words = " ".join(w for w in ("Workflow", name, f"({how})" if how else None) if w)
    return words + (f" · resumes {resumes}" if resumes else "") + _error(result)


def message_to(use: R.ToolUse) -> str | None:
    """The agent id a SendMessage call writes to (its ``to``), else None."""
    args = _input(use) if use.name == "SendMessage" else None
    return _str(args, "to") if args is not None else None


def _sum_message(args: dict[str, Any], result: R.ToolResult | None, agents: Mapping[str, str]) -> str | None:
    """``→ LABEL: summary``: a message to a running (or returned) agent, by its lane's label when
    known, else its id."""
    to = _str(args, "to")
    if to is None:
        return None
    what = _str(args, "summary") or _str(args, "message") or ""
    return f"→ {clip(agents.get(to, to), 60)}: {clip(what, 100)}{_error(result)}"


def _sum_fetch(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
    url = _str(args, "url")
    return None if url is None else f"WebFetch {clip(url, 100)}{_error(result)}"


def _sum_search_web(args: dict[str, Any], result: R.ToolResult | None) -> str | None:
    query = _str(args, "query")
    return None if query is None else f"WebSearch '{clip(query, 100)}'{_error(result)}"


_SUMMARIES: Final = {
    "Edit": _sum_edit, "MultiEdit": _sum_multi, "Write": _sum_write, "Bash": _sum_bash,
    "Read": _sum_read, "Grep": _sum_search("Grep"), "Glob": _sum_search("Glob"),
    "TodoWrite": _sum_todos, "Task": _sum_spawn("Task"), "Agent": _sum_spawn("Agent"),
    "WebFetch": _sum_fetch, "WebSearch": _sum_search_web,
}


