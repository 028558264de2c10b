"""library: which files make which session, and what each session is, from its files' ends.

Theory of operation
-------------------
**The rule** (:func:`group`, one for the CLI, ``live``, the shareable file and the page): given the
relative paths of a set of files (``/``-separated; ``\\`` is read as ``/``) and a way to look at
a file's first and last bytes (``peek``), it returns the sessions they make and every file it
did not take, each with its reason. It does no I/O itself: the caller's ``peek`` reads (a file on
disk, a dropped file's bytes, a zip's member).

* ``P/S.jsonl`` whose records are a session transcript is session ``S``'s **main** file. Its id
  is ``S`` when ``S`` is a UUID (Claude Code names files by session id), else the ``sessionId``
  its records carry, else ``S``.
* ``P/S/subagents/**/agent-*.jsonl`` (``workflows/wf_*/`` included) are sub-agent files of ``S``,
  with their ``agent-*.meta.json``; ``P/S/subagents/workflows/**/journal.jsonl`` and every file of
  ``P/S/tool-results/`` are **attachments** of ``S`` (counted in its size, never translated).
* An ``agent-*.jsonl`` elsewhere (the 2.0.x layout: beside the main files) joins the session whose
  id its records' ``sessionId`` is.
* Sub-agent files whose session has no main file in the input make a session of their own (its id
  is the folder name ``S``, or their ``sessionId``), marked ``orphan``: listed, never merged into
  another session.
* A file of another format (stream-json, an Arbiter SSE stream) is a group of its own; a
  stream-json file holding several ``session_id`` s lists one session per id (:func:`listing`
  reads it whole for them: each session summed from its own lines).
* A main file whose session id another main file has too, and that begins as that one does, is a
  **copy**: the larger one (else the first by path) is the session, each other one is kept as a
  group with ``copy_of`` set (the commands translate each group alone, so nothing is merged; the
  library lists it as skipped). One that begins otherwise (a sidechain saved as a file of its own)
  is a session of its own, keyed ``ID#NAME`` (its file's name).
* Skipped, with a reason each (:class:`Skipped`): a file that cannot be read, that is empty, that
  is binary, whose name is no transcript's (``intake.read_in_folder``; unless the user named it on
  its own), or that holds no JSON record in its first bytes; a meta file or an attachment whose
  session is not in the input.
* :func:`place` is the folder part of the rule for one path, for a reader that meets files one
  at a time (``live``: the page's watch and ``--follow``).

The groups come in the order of their first file in the input (orphan sessions last): what
``multifile.group_files`` (the commands' and the page's translation) has always given.

**The summary** (:func:`summarize`; :func:`listing` is the rule and the summaries at once, each
file read once): a session's figures from the ends of its files only (the first and last
``PEEK_BYTES`` of each, found by pattern in the bytes): project (its folder name decoded, and ``cwd`` where the
records carry it), title (the last ``custom-title``, else the last ``ai-title``, else a
``summary``, else the first real prompt), start, last activity, duration, CLI versions, models,
sub-agents, size. The figures that need every line (tool calls, errors, tokens; every model and
version) come from a second pass, ``libsearch.fill``, done later.

**The index** (:func:`to_json`): one JSON object per session (NDJSON), schema ``SCHEMA``
(``docs/library.md`` documents every field).

State: none. Must not do I/O, translate, or import the CLI or the web package.

The parts: ``peek`` (a file's ends), ``rule`` (the grouping), ``facts`` (what the ends say),
``summary`` (the summaries, the listing and the index).
"""

from __future__ import annotations

from .facts import _IDE_CONTEXT, _NOT_MODELS, _NOT_PROMPTS, _Facts, _iso, _line_at, _Rec, _when
from .peek import PEEK_BYTES, Peek, Peeker, ReadAt, chunk_lines, peek_bytes, peek_reads, peek_with
from .rule import (
    AGENT_FILE,
    ATTACHMENT,
    MAIN,
    META,
    SUBAGENT,
    Group,
    Grouping,
    Skipped,
    group,
    named_by_id,
    place,
    split_ids,
)
from .summary import _BARE, SCHEMA, Summary, complete, decode_project, listing, summarize, to_json

__all__ = [
    "AGENT_FILE",
    "ATTACHMENT",
    "MAIN",
    "META",
    "PEEK_BYTES",
    "SCHEMA",
    "SUBAGENT",
    "_BARE",
    "_IDE_CONTEXT",
    "_NOT_MODELS",
    "_NOT_PROMPTS",
    "Group",
    "Grouping",
    "Peek",
    "Peeker",
    "ReadAt",
    "Skipped",
    "Summary",
    "_Facts",
    "_Rec",
    "_iso",
    "_line_at",
    "_when",
    "chunk_lines",
    "complete",
    "decode_project",
    "group",
    "listing",
    "named_by_id",
    "peek_bytes",
    "peek_reads",
    "peek_with",
    "place",
    "split_ids",
    "summarize",
    "to_json",
]
