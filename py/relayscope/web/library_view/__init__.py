"""library_view: a folder (or a shareable file) of several sessions, as a list to pick one from.

Theory of operation
-------------------
An input of several files is offered here first (``offer``): the core's rule says which files
make which session (shelf.py reads what it asks for), and when they make more than one, the page
lists them instead of translating them together; one session goes on to the load as before.
The list is one table (``#library``), a row per session, a ``<tbody>`` per project when grouped:

* sorting moves the rows the page already holds (no row is drawn twice); filtering (project,
  words) hides rows; grouping moves them between the groups' bodies. ``State`` holds the choice,
  which the rows keep across an opened session and "Back to the library";
* the figures that need every line (tool calls, errors, tokens) are filled in afterwards, a
  session at a time, by a task of its own that hands the worker's loop back between sessions
  (``Library._fill``), and pauses while a session is shown;
* opening a row loads that session's files alone, through the one load path (loads.py), as if
  they had been opened by themselves; the address names it (``session=``), and the input the
  library came from is kept, so that "Back to the library" (``#library-back``) shows the list
  where it was: its scroll, sort, filter and grouping;
* an address that names a session whose files the page no longer has (a reload) says which
  session and asks for the folder again; opened, the session opens directly.

Each row is ``[data-testid=library-session]`` with ``data-session`` (its id) and ``data-project``;
``#library-count`` holds the number listed once all are. Transcript text (titles, paths) is
set as text, never markup.

Must not: decide which files make a session (the core's ``library.group``), translate (loads.py
does, when a session is opened), or build markup from strings.

The parts: ``table`` (the columns, each cell's text, the order, what the filters keep), ``rows``
(the table's rows, groups and sort buttons as the page holds them), ``search`` (a search across
the sessions) and ``controller`` (the ``Library`` controller, which makes and drives the two).
"""

from __future__ import annotations

from .controller import IDS, Library, Opener
from .table import (
    BY_KEY,
    COLUMNS,
    DEFAULT_SORT,
    DRAW_ROWS,
    FILTER_S,
    PENDING,
    PROGRESS_S,
    Column,
    State,
    cell_text,
    haystack,
    keeps,
    ordered,
    sort_key,
    workspace_query,
)

__all__ = [
    "BY_KEY",
    "COLUMNS",
    "DEFAULT_SORT",
    "DRAW_ROWS",
    "FILTER_S",
    "IDS",
    "PENDING",
    "PROGRESS_S",
    "Column",
    "Library",
    "Opener",
    "State",
    "cell_text",
    "haystack",
    "keeps",
    "ordered",
    "sort_key",
    "workspace_query",
]
