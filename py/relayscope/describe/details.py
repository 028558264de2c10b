"""A tool call as a structured detail: a diff's hunks, a command's output, facts, todos, a spawn."""

from __future__ import annotations

import difflib
from typing import Any, Final

from .. import relay as R
from .base import (
    CONTEXT,
    EXCERPT,
    HEAD_LINES,
    MAX_DIFF_LINES,
    Command,
    Detail,
    DiffLine,
    Facts,
    FileDiff,
    Hunk,
    Output,
    Spawn,
    Todos,
    _head,
    _input,
    _int,
    _lines,
    _n,
    _span,
    _status,
    _str,
    _structured_result,
    _text,
    _todos,
    _unwrap,
    clip,
)


def tool_call(use: R.ToolUse, result: R.ToolResult | None = None,
              result_line: str | bytes | None = None) -> Detail | None:
    """The structured detail of ``use``; ``result_line`` is the raw input line ``result`` came
    from (for the structured result some records carry). None: nothing better than the JSON."""
    args = _input(use)
    if args is None or use.name not in _DETAILS:
        return None
    extra = _structured_result(result, result_line)
    try:
        return _DETAILS[use.name](use, args, result, extra)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError):
        return None


# -- structured details, per tool ---------------------------------------------------------------


def _diff(old: str, new: str, title: str = "") -> tuple[Hunk, ...]:
    """old -> new with difflib, numbered from 1 in each; a short edit whole, a long one as hunks."""
    a, b = _lines(old), _lines(new)
    context = CONTEXT if len(a) + len(b) > 60 else max(len(a), len(b), 1)
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        lines: list[DiffLine] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [DiffLine("context", i + 1, j1 + k + 1, a[i]) for k, i in enumerate(range(i1, i2))]
                continue
            lines += [DiffLine("del", i + 1, None, a[i]) for i in range(i1, i2)]
            lines += [DiffLine("add", None, j + 1, b[j]) for j in range(j1, j2)]
        i0, j0 = group[0][1], group[0][3]
        header = f"@@ -{i0 + 1},{group[-1][2] - i0} +{j0 + 1},{group[-1][4] - j0} @@"
        hunks.append(Hunk(f"{title} {header}".strip(), tuple(lines)))
    if not hunks and (a or b):  # identical strings: show them, unchanged
        hunks.append(Hunk(f"{title} (no change)".strip(),
                          tuple(DiffLine("context", i + 1, i + 1, t) for i, t in enumerate(a))))
    return tuple(hunks)


def _patch(value: Any) -> tuple[Hunk, ...] | None:
    """A result's ``structuredPatch`` (hunks with the file's line numbers); None if malformed."""
    if not isinstance(value, list) or not value:
        return None
    hunks = []
    for h in value:
        if not isinstance(h, dict):
            return None
        old, new, lines = _int(h, "oldStart"), _int(h, "newStart"), h.get("lines")
        if old is None or new is None or not isinstance(lines, list):
            return None
        out: list[DiffLine] = []
        for line in lines:
            if not isinstance(line, str):
                return None
            mark, text = line[:1], line[1:]
            if mark == "-":
                out.append(DiffLine("del", old, None, text))
                old += 1
            elif mark == "+":
                out.append(DiffLine("add", None, new, text))
                new += 1
            elif mark in (" ", ""):
                out.append(DiffLine("context", old, new, text))
                old, new = old + 1, new + 1
            elif mark == "\\":  # "\ No newline at end of file"
                continue
            else:
                return None
        header = f"@@ -{h.get('oldStart')},{h.get('oldLines', '?')} +{h.get('newStart')},{h.get('newLines', '?')} @@"
        hunks.append(Hunk(header, tuple(out)))
    return tuple(hunks)


def _file_diff(tool: str, path: str, hunks: tuple[Hunk, ...], numbering: str, notes: list[str],
               result: R.ToolResult | None) -> FileDiff:
    kept, left, shown = [], 0, 0
    for h in hunks:
        room = MAX_DIFF_LINES - shown
        if room <= 0:
            left += len(h.lines)
            continue
        kept.append(Hunk(h.header, h.lines[:room]) if len(h.lines) > room else h)
        left += max(0, len(h.lines) - room)
        shown += min(room, len(h.lines))
    if left:
        notes.append(f"{_n(left, 'more line')} not shown")
    if result is not None and result.is_error:
        notes.append("error, not applied: " + clip(_unwrap(_text(result)), 200))
    removed = sum(1 for h in hunks for x in h.lines if x.kind == "del")
    added = sum(1 for h in hunks for x in h.lines if x.kind == "add")
    return FileDiff(tool, path, tuple(kept), removed, added, numbering, tuple(notes))


def _det_edit(use: R.ToolUse, args: dict[str, Any], result: R.ToolResult | None, extra: dict[str, Any]) -> Detail | None:
    path, old, new = _str(args, "file_path"), _str(args, "old_string"), _str(args, "new_string")
    if path is None or old is None or new is None:
        return None
    notes = ["every occurrence replaced"] if args.get("replace_all") is True else []
    patch = _patch(extra.get("structuredPatch"))
    if patch is not None:
        return _file_diff("Edit", path, patch, "file", notes, result)
    return _file_diff("Edit", path, _diff(old, new), "snippet", notes, result)


def _det_multi(use: R.ToolUse, args: dict[str, Any], result: R.ToolResult | None, extra: dict[str, Any]) -> Detail | None:
    path, edits = _str(args, "file_path"), args.get("edits")
    if path is None or not isinstance(edits, list):
        return None
    patch = _patch(extra.get("structuredPatch"))
    if patch is not None:
        return _file_diff("MultiEdit", path, patch, "file", [], result)
    hunks: list[Hunk] = []
    notes = []
    for k, e in enumerate(edits, 1):
        old = _str(e, "old_string") if isinstance(e, dict) else None
        new = _str(e, "new_string") if isinstance(e, dict) else None
        if old is None or new is None:
            notes.append(f"edit {k} of {len(edits)} is not an old/new pair")
            continue
        every = ", every occurrence" if isinstance(e, dict) and e.get("replace_all") is True else ""
        hunks += _diff(old, new, f"edit {k} of {len(edits)}{every}")
    return _file_diff("MultiEdit", path, tuple(hunks), "snippet", notes, result)


def _det_write(use: R.ToolUse, args: dict[str, Any], result: R.ToolResult | None, extra: dict[str, Any]) -> Detail | None:
    path, content = _str(args, "file_path"), _str(args, "content")
    if path is None or content is None:
        return None
    patch = _patch(extra.get("structuredPatch"))
    if patch is not None and isinstance(extra.get("originalFile"), str):
        return _file_diff("Write", path, patch, "file", ["file overwritten"], result)
    lines = tuple(DiffLine("add", None, i + 1, t) for i, t in enumerate(_lines(content)))
    notes = ["new file"] if extra.get("type") == "create" else ["the whole content written"]
    numbering = "file"  # a write's lines are the file's lines
    return _file_diff("Write", path, (Hunk(f"@@ -0,0 +1,{len(lines)} @@", lines),) if lines else (), numbering, notes, result)


def _det_bash(use: R.ToolUse, args: dict[str, Any], result: R.ToolResult | None, extra: dict[str, Any]) -> Detail | None:
    command = _str(args, "command")
    if command is None:
        return None
    facts = []
    if _int(args, "timeout") is not None:
        facts.append(("timeout", f"{args['timeout']} ms"))
    if args.get("run_in_background") is True:
        facts.append(("run in background", "yes"))
    stdout, stderr = _str(extra, "stdout"), _str(extra, "stderr")
    if stdout is not None and stderr is not None:
        outputs = _head(stdout, "stdout") + _head(stderr, "stderr")
    else:
        outputs = _head(_text(result))
    return Command(command, _str(args, "description"), _status("Bash", args, result, extra), outputs, tuple(facts))


def _det_read(use: R.ToolUse, args: dict[str, Any], result: R.ToolResult | None, extra: dict[str, Any]) -> Detail | None:
    path = _str(args, "file_path")
    if path is None:
        return None
    fields = [("path", path), ("lines", _span(args) or "all")]
    info = extra.get("file")
    if isinstance(info, dict) and _int(info, "totalLines") is not None:
        fields.append(("file has", _n(info["totalLines"], "line")))
    status = _status("Read", args, result, extra)
    return Facts("Read", tuple(fields), status, _head(_text(result)) if result is not None and result.is_error else ())


def _det_search(use: R.ToolUse, args: dict[str, Any], result: R.ToolResult | None, extra: dict[str, Any]) -> Detail | None:
    pattern = _str(args, "pattern")
    if pattern is None:
        return None
    fields = [("pattern", pattern)]
    for key, label in (("path", "in"), ("glob", "files"), ("type", "type"), ("output_mode", "mode")):
        value = _str(args, key)
        if value is not None:
            fields.append((label, value))
    if extra.get("truncated") is True:
        fields.append(("truncated", "yes"))
    return Facts(use.name, tuple(fields), _status(use.name, args, result, extra), _head(_text(result), "found"))


def _det_todos(use: R.ToolUse, args: dict[str, Any], result: R.ToolResult | None, extra: dict[str, Any]) -> Detail | None:
    items = _todos(args)
    return None if items is None else Todos(tuple(items))


def _det_spawn(use: R.ToolUse, args: dict[str, Any], result: R.ToolResult | None, extra: dict[str, Any]) -> Detail | None:
    prompt = _str(args, "prompt") or ""
    if _str(args, "description") is None and not prompt:
        return None
    facts = [(label, value) for key, label in (("model", "model"), ("name", "name"), ("isolation", "isolation"))
             if (value := _str(args, key)) is not None]
    calls, tokens, took = _int(extra, "totalToolUseCount"), _int(extra, "totalTokens"), _int(extra, "totalDurationMs")
    if calls is not None:
        facts.append(("tool calls", str(calls)))
    if tokens is not None:
        facts.append(("tokens", f"{tokens:,}".replace(",", "\u202f")))  # a thin space: 20 218
    if took is not None:
        facts.append(("took", f"{took / 1000:.1f} s"))
    status = None if result is None else "error" if result.is_error else _str(extra, "status") or "returned"
    excerpt = prompt if len(prompt) <= EXCERPT else prompt[: EXCERPT - 1] + "…"
    return Spawn(use.name, _str(args, "subagent_type"), _str(args, "description"), excerpt, len(prompt),
                 use.id, tuple(facts), status)


def _det_web(use: R.ToolUse, args: dict[str, Any], result: R.ToolResult | None, extra: dict[str, Any]) -> Detail | None:
    key = "url" if use.name == "WebFetch" else "query"
    target = _str(args, key)
    if target is None:
        return None
    fields = [(key, target)]
    prompt = _str(args, "prompt")
    if prompt is not None:
        fields.append(("prompt", prompt))
    status = _status(use.name, args, result, extra)
    results = extra.get("results")
    if use.name == "WebSearch" and isinstance(results, list):
        links = [x for r in results if isinstance(r, dict) and isinstance(r.get("content"), list)
                 for x in r["content"] if isinstance(x, dict)]
        status = _n(len(links), "link")
        heads = [f"{_str(x, 'title') or ''} {_str(x, 'url') or ''}".strip() for x in links]
        return Facts(use.name, tuple(fields), status, (Output("links", tuple(heads[:HEAD_LINES]), len(heads)),) if heads else ())
    return Facts(use.name, tuple(fields), status, _head(_text(result)))


_DETAILS: Final = {
    "Edit": _det_edit, "MultiEdit": _det_multi, "Write": _det_write, "Bash": _det_bash,
    "Read": _det_read, "Grep": _det_search, "Glob": _det_search, "TodoWrite": _det_todos,
    "Task": _det_spawn, "Agent": _det_spawn, "WebFetch": _det_web, "WebSearch": _det_web,
}
