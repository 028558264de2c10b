"""library_view.table: the library's table as text and order, no page and no state of its own.

The columns (:data:`COLUMNS`), what each shows of a session (:func:`cell_text`), the value it
sorts by (:func:`sort_key`, sessions without one last) and the order of a list (:func:`ordered`);
:class:`State`, how the list is shown (sort, filters, grouping, the search's hits); whether the
filters and the search keep a session (:func:`keeps`); and the part of a library search the
workspace's own search runs on an opened session's rows (:func:`workspace_query`).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Final

import msgspec

from ... import libsearch
from ...query import LIBRARY_TERMS, TERMS, parse
from ..dom import fmt_int
from ..rowinfo import duration
from ..shelf import Entry


class Column(msgspec.Struct, frozen=True):
    key: str
    label: str
    numeric: bool  # sorted largest first on the first click, right-aligned
    title: str = ""


COLUMNS: Final = (
    Column("project", "Project", False, "the project folder, decoded to the path it stands for (cwd where known)"),
    Column("title", "Title", False, "custom title, else AI title, else summary, else the first prompt"),
    Column("start", "Start", True),
    Column("duration", "Duration", True, "first to last timestamp"),
    Column("last", "Last activity", True),
    Column("cli", "CLI", False, "Claude Code versions its records carry"),
    Column("model", "Model", False),
    Column("subagents", "Sub-agents", True),
    Column("tools", "Tools", True, "tool calls, counted from every line: filled in after the list"),
    Column("errors", "Errors", True, "counted from every line: filled in after the list"),
    Column("tokens", "Tokens", True, "input, output and cache tokens: filled in after the list"),
    Column("size", "Size", True),
)
BY_KEY: Final = {c.key: c for c in COLUMNS}
DEFAULT_SORT: Final = "last"
PENDING: Final = "…"  # a figure not filled in yet
DRAW_ROWS: Final = 80  # rows sent to the page a message, when a list is first drawn
PROGRESS_S: Final = 0.1  # the listing's progress is said at most this often
FILTER_S: Final = 0.5  # a search hides the rows it has found not to match at most this often


class State(msgspec.Struct):
    """How the list is shown: kept while a session is open, so "Back" comes back to it."""

    sort: str = DEFAULT_SORT
    descending: bool = True
    project: str = ""  # "" all projects
    words: str = ""  # the filter box: every word in the title, project, id, models or versions
    grouped: bool = True
    scroll: int = 0  # the list's scrollTop when a session was opened
    query: str = ""  # the search across sessions last run ("" none)
    hits: dict[str, libsearch.Hit] = msgspec.field(default_factory=dict)  # matching sessions, by id
    searched: set[str] = msgspec.field(default_factory=set)  # sessions the search has looked at


def _project(e: Entry) -> str:
    return e.summary.project or e.summary.project_dir or "(no project)"


def _when(iso: str | None) -> str:
    """``2025-06-02 14:03`` (UTC), or "–"."""
    if not iso:
        return "–"
    try:
        t = _dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return t.astimezone(_dt.UTC).strftime("%Y-%m-%d %H:%M")


def _listed(values: list[str]) -> str:
    if not values:
        return "–"
    return values[0] if len(values) == 1 else f"{values[0]} +{len(values) - 1}"


def _model(name: str) -> str:
    return name.removeprefix("claude-")


def cell_text(e: Entry, key: str) -> str:
    """What a column shows of a session (figures not yet counted: "…")."""
    s = e.summary
    match key:
        case "project":
            return _project(e)
        case "title":
            return s.title or "(untitled)"
        case "start":
            return _when(s.start)
        case "duration":
            return duration(s.duration_s) if s.duration_s is not None else "–"
        case "last":
            return _when(s.last_activity)
        case "cli":
            return _listed(s.cli_versions)
        case "model":
            return _listed([_model(m) for m in s.models])
        case "subagents":
            return fmt_int(s.subagents)
        case "tools":
            return PENDING if s.tool_calls is None else fmt_int(s.tool_calls)
        case "errors":
            return PENDING if s.errors is None else fmt_int(s.errors)
        case "tokens":
            return PENDING if s.tokens is None else _tokens(s.tokens)
        case "size":
            return _size(s.size)
    raise KeyError(key)


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.0f} KiB" if n < 10 << 20 else f"{n / 1048576:.0f} MiB"


def _tokens(n: int) -> str:
    return fmt_int(n) if n < 100_000 else f"{n / 1e6:.1f} M" if n >= 1_000_000 else f"{n / 1e3:.0f} k"


def sort_key(e: Entry, key: str) -> tuple[int, Any]:
    """A column's value to sort by; sessions without one come last whatever the direction."""
    s = e.summary
    value: Any = {
        "project": _project(e).lower(),
        "title": (s.title or "").lower(),
        "start": s.start,
        "duration": s.duration_s,
        "last": s.last_activity,
        "cli": s.cli_versions[-1] if s.cli_versions else None,
        "model": ",".join(s.models) or None,
        "subagents": s.subagents,
        "tools": s.tool_calls,
        "errors": s.errors,
        "tokens": s.tokens,
        "size": s.size,
    }[key]
    return (0, value) if value not in (None, "") else (1, 0)


def ordered(entries: list[Entry], state: State) -> list[Entry]:
    """The sessions in the order the list shows them (ties: the last activity, newest first)."""
    out = sorted(entries, key=lambda e: sort_key(e, "last"), reverse=True)
    present = [e for e in out if sort_key(e, state.sort)[0] == 0]
    missing = [e for e in out if sort_key(e, state.sort)[0] == 1]
    present.sort(key=lambda e: sort_key(e, state.sort)[1], reverse=state.descending)
    return present + missing


def haystack(e: Entry) -> str:
    s = e.summary
    return " ".join([s.session, _project(e), s.project_dir or "", s.cwd or "", s.title or "", s.git_branch or "",
                     *s.models, *s.cli_versions]).lower()


def keeps(e: Entry, state: State) -> bool:
    """Whether the filters (project, words) and the search (once it has looked at it) keep a session."""
    if state.project and _project(e) != state.project:
        return False
    if state.query and e.id in state.searched and e.id not in state.hits:
        return False
    words = state.words.lower().split()
    if not words:  # no words: no text to build (the search asks of every row after each slice)
        return True
    text = haystack(e)
    return all(word in text for word in words)


def _session_dirs(e: Entry) -> tuple[str, ...]:
    """The folder ``P/S/`` beside a session's main file ``P/S.jsonl``, where new sub-agents of a
    session being watched appear (the core's rule puts what is under it in the session)."""
    main = e.group.main
    return (main.removesuffix(".jsonl") + "/",) if main and main.endswith(".jsonl") else ()


def workspace_query(text: str) -> str:
    """The part of a library search the workspace's own search runs on a session's rows: its
    words, ``tool:``, ``lane:`` and ``is:`` (a ``file:`` path as a word: its calls' inputs hold
    it); the session terms (``model:``, ``cli:``, ``project:``) chose the session and stop there."""
    q = parse(text, LIBRARY_TERMS)
    quoted = [f'"{w}"' if " " in w else w for w in (*q.words, *q.files)]
    terms = [f'{k}:"{v}"' if " " in v else f"{k}:{v}"
             for k, values in (("tool", q.tools), ("lane", q.lanes), ("is", tuple(sorted(q.flags)))) for v in values]
    out = " ".join([*quoted, *terms])
    return out if not parse(out, TERMS).empty else ""
