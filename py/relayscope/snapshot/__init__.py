"""snapshot: a run as one self-contained HTML page anyone can read, offline, in any browser.

What the page's timeline shows, without the app. Per session (``export.runs``: the CLI's and the
page's translation of the same bytes): the figures (where the time went, ``spans.figures``), the
swimlanes as inline SVG (one track per lane, main first, each sub-agent under its parent: the
agent span, tool calls in rows, errors and lost blocks as ticks; a span links to its row), and
the rows: one per relay (a run of partial deltas of one block as one row, as the page groups
them), its summary in words (``describe`` with the call's result, else ``present``), and its
detail in a ``<details>``: a tool call as a diff, a command with its status, a search, a todo
list or a sub-agent's prompt, then its whole input or result; text as prose and code blocks;
any other relay as JSON. The row of the view's ``row`` is open.

The page runs no script and asks for nothing: its CSP (a meta tag: ``default-src 'none'``, the
one style element allowed by its hash) makes the browser enforce that. Bookkeeping records are
in the page, hidden until a checkbox shows them (CSS only). Light and dark follow
``prefers-color-scheme``.

Transcript text is data: every string goes through :func:`esc` (``html.escape``, control
characters as their visible pictures, ␛ for ESC, lone surrogates as U+FFFD) and nothing from a
transcript becomes markup or an unescaped attribute.

The swimlanes' time axis is an :class:`Axis`: by default :func:`folded`, the page's folded axis
(``folds``: idle gaps over 5 minutes drawn narrow, as shaded bands whose titles, and a line
under the lanes, give their true times); :func:`linear` is true time; any other plugs in through
``axis=``.

Pure: no I/O and no clock: the same input gives the same bytes, in the CLI and the page's worker.
Must not: emit script, event handler attributes or any URL outside the page; import the web layer.

The parts: ``escape`` (text as HTML text), ``axis`` (the swimlanes' time axis), ``rows`` (each
relay's row), ``page`` (the swimlanes, the style and the page: ``render``).
"""

from __future__ import annotations

from . import page
from .axis import Axis, AxisOf, Folded, Linear, folded, linear
from .escape import DETAIL_CHARS, esc
from .page import FULL_UP_TO, STYLE, TRACK_ROWS, WIDTH, csp, render
from .rows import (
    LANE_COLORS,
    SIGN,
    SUMMARY_CHARS,
    TEXT_TYPES,
    TODO_MARK,
    content,
    groups,
    is_bookkeeping,
    lost_after,
    pretty,
)

__all__ = [
    "DETAIL_CHARS",
    "FULL_UP_TO",
    "LANE_COLORS",
    "SIGN",
    "STYLE",
    "SUMMARY_CHARS",
    "TEXT_TYPES",
    "TODO_MARK",
    "TRACK_ROWS",
    "WIDTH",
    "Axis",
    "AxisOf",
    "Folded",
    "Linear",
    "content",
    "csp",
    "esc",
    "folded",
    "groups",
    "is_bookkeeping",
    "linear",
    "lost_after",
    "page",
    "pretty",
    "render",
]
