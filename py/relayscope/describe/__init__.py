"""describe: what a tool call did, in words and as plain data, so that rows say what happened.

A ``tool_use`` relay (and its paired ``tool_result``, when the caller knows it) becomes
* a one-line summary: ``Edit src/app.py: 3 lines → 5``, ``Bash: npm test → exit 1``,
  ``Read src/app.py:10-40``, ``Grep 'foo' in src/ → 12 files``; and
* a structured detail: frozen Structs of plain values (a diff's hunks are tuples of
  ``DiffLine(kind, old, new, text)``), for the web page's detail view or any other renderer:
  ``describe.details.tool_call``, its own module (with ``difflib``), which a one-line summary
  (``translate -f text``) never loads.
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

from .base import (
    CONTEXT,
    EXCERPT,
    HEAD_LINES,
    MAX_DIFF_LINES,
    PATH_WIDTH,
    WIDTH,
    Command,
    Detail,
    DiffLine,
    Facts,
    FileDiff,
    Hunk,
    Output,
    Segment,
    Spawn,
    Todo,
    Todos,
    clip,
    short_path,
)
from .segments import prose
from .summaries import _SUMMARIES, message_to, result_summary, summary

__all__ = [
    "CONTEXT",
    "EXCERPT",
    "HEAD_LINES",
    "MAX_DIFF_LINES",
    "PATH_WIDTH",
    "WIDTH",
    "_SUMMARIES",
    "Command",
    "Detail",
    "DiffLine",
    "Facts",
    "FileDiff",
    "Hunk",
    "Output",
    "Segment",
    "Spawn",
    "Todo",
    "Todos",
    "clip",
    "message_to",
    "prose",
    "result_summary",
    "short_path",
    "summary",
]
