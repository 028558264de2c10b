"""What every description reads: the widths, the records of a structured detail, a tool's input and result read as they come."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

import msgspec

from .. import relay as R
from .. import spill

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
    spilled = spill.of(text)
    if spilled is not None:  # the preview's first line is a tag: the file it names instead
        return spilled.words
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


def _span(args: Mapping[str, Any]) -> str:
    """Read's lines: ``10-39`` (offset and limit), ``10-`` (offset), ``1-50`` (limit)."""
    offset, limit = _int(args, "offset"), _int(args, "limit")
    if offset is None and limit is None:
        return ""
    start = offset if offset is not None and offset > 0 else 1
    return f"{start}-{start + limit - 1}" if limit is not None and limit > 0 else f"{start}-"


def _todos(args: Mapping[str, Any]) -> list[Todo] | None:
    raw = args.get("todos")
    if not isinstance(raw, list):
        return None
    return [Todo(_str(t, "content") or str(t.get("content", "")), _str(t, "status") or "?", _str(t, "activeForm"))
            for t in raw if isinstance(t, dict)]


