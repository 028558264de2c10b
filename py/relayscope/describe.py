"""describe: what a tool call did, in words and as plain data, so that rows say what happened.

A ``tool_use`` relay (and its paired ``tool_result``, when the caller knows it) becomes
* a one-line summary: ``Edit src/app.py: 3 lines → 5``, ``Bash: npm test → exit 1``,
  ``Read src/app.py:10-40``, ``Grep 'foo' in src/ → 12 files``; and
* a structured detail: frozen Structs of plain values (a diff's hunks are tuples of
  ``DiffLine(kind, old, new, text)``), for the web page's detail view or any other renderer.
  (Structs, not dataclasses: ``dataclasses``, the ``inspect`` it imports and a class made by
  ``exec`` for each record were a fifth of a short ``translate -f text``.)

Assistant text becomes ``Segment`` s: prose and fenced code blocks, with every newline kept.

Tool inputs are data from a transcript: any field may be missing or of another type. Every
function here takes what it gets and never raises; a tool it does not know, or an input it
cannot read, gives ``None`` and the caller keeps its generic summary (``present``).
The one optional extra, the result's input line (``result_line``), is read only for
``toolUseResult`` / ``tool_use_result`` (a session record's structured result: an Edit's patch
with the file's own line numbers, a command's stdout and stderr), and only when that line
carries exactly the one result it describes.

Must not: do I/O, import anything above ``relay``, produce markup (renderers set text as text).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final, NamedTuple

import msgspec

from . import relay as R

WIDTH: Final = 160
PATH_WIDTH: Final = 48  # a path in a one-line summary keeps its tail within this
MAX_DIFF_LINES: Final = 400  # per diff: beyond it, a count of the lines left out
HEAD_LINES: Final = 20  # lines of a command's output (or a search's matches) shown
EXCERPT: Final = 600  # characters of a sub-agent's prompt shown
CONTEXT: Final = 3  # unchanged lines around a change, as diff -u

_any: Final = msgspec.json.Decoder()
_ANSI: Final = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_EXIT: Final = re.compile(r"^(?:Exit code|exit code:?)\s+(-?\d+)\b")
_FOUND: Final = re.compile(r"^Found (\d+) (?:files?|total occurrences?|matches?|lines?)\b")
_BACKGROUND: Final = re.compile(r"^Command running in background with ID: ([\w-]+)")
_WRAPPER: Final = re.compile(r"</?tool_use_error>")
_FENCE: Final = re.compile(r"^ {0,3}(```+|~~~+)\s*([^`\s]*)")
_NUMBERED: Final = re.compile(r"^\s*\d+[→\t]")  # a line of Read's output (cat -n); compiled once: every line of it is tried


def clip(text: str, width: int = WIDTH) -> str:
    """One line: whitespace runs become one space; past ``width``, cut with an ellipsis."""
    if width > 0 and len(text) > 4 * width:
        # A long text (a result, a file written) shows only its start: a start of it made one line
        # is the start of the whole made one line, so when that is past ``width`` it is cut the same
        # without the rest being split (the rows and the search index clip every result this way).
        head = " ".join(text[: 4 * width].split())
        if len(head) > width:
            return head[: width - 1] + "…"
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# -- the structured details ---------------------------------------------------------------------


class DiffLine(NamedTuple):
    kind: str  # "context", "del", "add"
    old: int | None  # line number on the old side (None for an added line)
    new: int | None  # ... on the new side (None for a removed line)
    text: str  # the line without its newline, whitespace as it is


class Hunk(msgspec.Struct, frozen=True):
    header: str  # "@@ -6,10 +6,10 @@", or the edit's title ("edit 2 of 3")
    lines: tuple[DiffLine, ...]


class FileDiff(msgspec.Struct, frozen=True):
    """Edit, MultiEdit, Write: the change to one file."""

    tool: str
    path: str
    hunks: tuple[Hunk, ...]
    removed: int
    added: int
    numbering: str  # "file": the file's own line numbers (from the result); "snippet": from 1 in the edit
    notes: tuple[str, ...] = ()  # "replace all", "new file", "error: ...", "N more lines not shown"


class Output(msgspec.Struct, frozen=True):
    label: str  # "output", "stdout", "stderr"
    head: tuple[str, ...]
    lines: int  # how many in all


class Command(msgspec.Struct, frozen=True):
    """Bash: the command, what it was for, how it ended, the output's head."""

    command: str
    description: str | None
    status: str | None  # "exit 1", "ok", "interrupted", "error", "in background (ID)"; None: no result
    outputs: tuple[Output, ...]
    facts: tuple[tuple[str, str], ...] = ()  # ("timeout", "120000 ms"), ("run in background", "yes")


class Facts(msgspec.Struct, frozen=True):
    """Read, Glob, Grep, WebFetch, WebSearch: what was asked, and how much came back."""

    tool: str
    fields: tuple[tuple[str, str], ...]  # (label, value): path, lines, pattern, url, query ...
    count: str | None  # "12 files", "40 lines", "403 Forbidden"; None: no result (or none to count)
    outputs: tuple[Output, ...] = ()


class Todo(msgspec.Struct, frozen=True):
    content: str
    status: str  # as given: "pending", "in_progress", "completed", or anything else
    active_form: str | None


class Todos(msgspec.Struct, frozen=True):
    items: tuple[Todo, ...]


class Spawn(msgspec.Struct, frozen=True):
    """Task / Agent: the sub-agent it started; ``lane`` is the call's id, the id of the lane it opens."""

    tool: str
    agent_type: str | None
    description: str | None
    prompt: str  # the prompt's first EXCERPT characters
    prompt_chars: int
    lane: str
    facts: tuple[tuple[str, str], ...] = ()
    status: str | None = None


Detail = FileDiff | Command | Facts | Todos | Spawn


class Segment(msgspec.Struct, frozen=True):
    kind: str  # "text" or "code"
    text: str  # newlines kept; a code block without its fences
    lang: str = ""


# -- entry points -----------------------------------------------------------------------------


def summary(use: R.ToolUse, result: R.ToolResult | None = None) -> str | None:
    """``use`` in one line (with how it ended, given its result); None for a tool or an input
    this module cannot read."""
    args = _input(use)
    if args is None:
        return None
    try:
        return _SUMMARIES[use.name](args, result) if use.name in _SUMMARIES else None
    except (TypeError, ValueError, AttributeError, KeyError, IndexError):  # a shape no capture showed
        return None


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


def prose(text: str) -> tuple[Segment, ...]:
    """Text split into prose and fenced code blocks (``` or ~~~); every character kept except
    the fence lines themselves. An unclosed fence runs to the end."""
    out: list[Segment] = []
    buf: list[str] = []
    fence: str | None = None
    lang = ""
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None and m:
            if buf:
                out.append(Segment("text", "\n".join(buf)))
            buf, fence, lang = [], m.group(1), m.group(2)
        elif fence is not None and line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
            out.append(Segment("code", "\n".join(buf), lang))
            buf, fence = [], None
        else:
            buf.append(line)
    if fence is not None:
        out.append(Segment("code", "\n".join(buf), lang))
    elif buf and (len(buf) > 1 or buf[0] or not out):
        out.append(Segment("text", "\n".join(buf)))
    return tuple(out)


# -- reading what we were given ----------------------------------------------------------------


def _input(use: R.ToolUse) -> dict[str, Any] | None:
    try:
        value = _any.decode(use.input) if use.input else {}
    except (msgspec.DecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _text(result: R.ToolResult | None) -> str:
    if result is None:
        return ""
    try:
        return result.text
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return bytes(result.content).decode("utf-8", "replace")


class _Record(msgspec.Struct):
    toolUseResult: Any = None
    tool_use_result: Any = None
    message: Any = None


_record: Final = msgspec.json.Decoder(_Record)


def _structured_result(result: R.ToolResult | None, line: str | bytes | None) -> dict[str, Any]:
    """The record's ``toolUseResult`` when it is a dict and the record holds only this result."""
    if result is None or not line:
        return {}
    try:
        rec = _record.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeError):
        return {}
    value = rec.toolUseResult if rec.toolUseResult is not None else rec.tool_use_result
    content = rec.message.get("content") if isinstance(rec.message, dict) else None
    ids = [b.get("tool_use_id") for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] \
        if isinstance(content, list) else []
    return value if isinstance(value, dict) and ids == [result.tool_use_id] else {}


def _str(args: Mapping[str, Any], key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) else None


def _int(args: Mapping[str, Any], key: str) -> int | None:
    value = args.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _lines(text: str) -> list[str]:
    """The lines of ``text`` (a final newline ends the last line, it does not start another)."""
    if not text:
        return []
    parts = text.split("\n")
    return parts[:-1] if parts[-1] == "" else parts


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _first_line(text: str) -> str:
    start = len(text) - len(text.lstrip())
    end = text.find("\n", start)
    return _ANSI.sub("", _unwrap(text[start:] if end < 0 else text[start:end])).strip()


def _unwrap(text: str) -> str:
    """An error's text without the ``<tool_use_error>`` tags Claude Code wraps it in."""
    return _WRAPPER.sub("", text)


def short_path(path: str, width: int = PATH_WIDTH) -> str:
    """A path for a one-line summary: whole when short, else its last parts after ``…/``."""
    if len(path) <= width:
        return path
    sep = "\\" if "\\" in path and "/" not in path else "/"
    parts = path.split(sep)
    tail = parts[-1]
    for part in reversed(parts[:-1]):
        if len(part) + 1 + len(tail) + 2 > width:
            break
        tail = f"{part}{sep}{tail}"
    return f"…{sep}{tail}" if len(tail) + 2 <= width else "…" + tail[-(width - 1):]


def _head(text: str, label: str = "output") -> tuple[Output, ...]:
    """The first lines of an output, without terminal colour codes (only those are cleaned)."""
    lines = _lines(text)
    head = tuple(_ANSI.sub("", line) for line in lines[:HEAD_LINES])
    return (Output(label, head, len(lines)),) if lines else ()


def _status(tool: str, args: Mapping[str, Any], result: R.ToolResult | None, extra: Mapping[str, Any] | None) -> str | None:
    """How the call ended, in a word or two; None without a result."""
    if result is None:
        return None
    text = _text(result)
    first = _first_line(text)
    if tool == "Bash":
        code = _EXIT.match(first)
        if code:
            return f"exit {code.group(1)}"
        if (extra and extra.get("interrupted") is True) or first.startswith("[Request interrupted"):
            return "interrupted"
        background = _str(extra or {}, "backgroundTaskId")
        started = _BACKGROUND.match(first)
        if background or started:
            return f"in background ({background or (started.group(1) if started else '?')})"
        return "error" if result.is_error else "ok"
    if result.is_error:
        return "error"
    if tool in ("Grep", "Glob"):
        return _found(tool, args, text, extra or {})
    if tool == "Read":
        numbered = sum(1 for line in _lines(text) if _NUMBERED.match(line))
        return _n(numbered, "line") if numbered else "ok"
    if tool == "WebFetch" and extra:
        number, words = _int(extra, "code"), _str(extra, "codeText")
        if number is not None:
            return f"{number} {words or ''}".strip()
    return "ok"


def _found(tool: str, args: Mapping[str, Any], text: str, extra: Mapping[str, Any]) -> str:
    """A search's count: of files (Glob, Grep's default mode), lines (Grep content) or matches."""
    mode = _str(args, "output_mode") or "files_with_matches"
    if tool == "Grep" and mode == "content":
        n = _int(extra, "numLines")
        if n is None:
            n = 0 if _first_line(text).startswith("No ") else len(_lines(text))
        return _n(n, "line")
    if tool == "Grep" and mode == "count":
        n = _int(extra, "numMatches")
        if n is None:
            m = _FOUND.match(_first_line(text))
            n = int(m.group(1)) if m else sum(_count_of(line) for line in _lines(text))
        return _n(n, "match") if n != 1 else "1 match"
    n = _int(extra, "numFiles")
    if n is None:
        m = _FOUND.match(_first_line(text))
        if m:
            n = int(m.group(1))
        elif _first_line(text).startswith("No "):
            n = 0
        else:
            n = len([line for line in _lines(text) if line.strip() and not line.startswith(_TRUNCATED)])
    cut = extra.get("truncated") is True or any(line.startswith(_TRUNCATED) for line in _lines(text)[-2:])
    return _n(n, "file") + (" (truncated)" if cut else "")


_TRUNCATED: Final = "(Results are truncated"


def _count_of(line: str) -> int:
    tail = line.rsplit(":", 1)[-1].strip()
    return int(tail) if tail.isdigit() else 0


def _arrow(status: str | None) -> str:
    return f" → {status}" if status else ""


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


def _span(args: Mapping[str, Any]) -> str:
    """Read's lines: ``10-39`` (offset and limit), ``10-`` (offset), ``1-50`` (limit)."""
    offset, limit = _int(args, "offset"), _int(args, "limit")
    if offset is None and limit is None:
        return ""
    start = offset if offset is not None and offset > 0 else 1
    return f"{start}-{start + limit - 1}" if limit is not None and limit > 0 else f"{start}-"


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


# -- structured details, per tool ---------------------------------------------------------------


def _diff(old: str, new: str, title: str = "") -> tuple[Hunk, ...]:
    """old -> new with difflib, numbered from 1 in each; a short edit whole, a long one as hunks."""
    import difflib  # here: a one-line summary (translate -f text) diffs nothing

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


def _todos(args: Mapping[str, Any]) -> list[Todo] | None:
    raw = args.get("todos")
    if not isinstance(raw, list):
        return None
    return [Todo(_str(t, "content") or str(t.get("content", "")), _str(t, "status") or "?", _str(t, "activeForm"))
            for t in raw if isinstance(t, dict)]


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
