"""words: how Relayscope says things to people, worded once for every place that says them: the
web page, ``translate -f text`` and ``trace``, ``relayscope html`` (the snapshot) and the PyScript
page. A place that shows a session's first row, a lane's name or the message of a fingerprint
link asks here, so the same input reads the same everywhere (a step's decision, worded with its
blocks' fates: ``fates.decision_words``).

Pure Python, no I/O: it runs in Pyodide as it does in the CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Final

import msgspec

from . import relay as R
from .lanes import MAIN, Lane, lane_label
from .present import session_words

# A session's first row: one rule, worded in ``present`` (whose summaries every row uses).
session_row = session_words


def lane_name(lane: str, said: str | None, lanes: Mapping[str, Lane]) -> str:
    """A lane's name for people, the same on the page, in the CLI's text and in the snapshot: what
    its lane_start said (``said``; a plain id is no name), else the translator's lane (the
    sub-agent's type and task, known from its spawning call even under a strategy that emits no
    lane_start or loses the call), else the main agent or the lane's id."""
    if said and said != lane:
        return said
    known = lanes.get(lane)
    if known is not None:
        return known.label
    return lane_label(MAIN, None, None) if lane == MAIN else lane


def first_model(relays: Iterable[R.Relay], lane: str) -> str | None:
    """The model the first of ``lane``'s messages names (its usage): what a session's first row
    says when the session record does not (transcripts have no init line)."""
    return next((r.model for r in relays if isinstance(r, R.Usage) and r.lane == lane and r.model), None)


class _Head(msgspec.Struct):
    cwd: str | None = None
    version: str | None = None
    gitBranch: str | None = None


_head: Final = msgspec.json.Decoder(_Head)
HEAD_LOOK: Final = 50  # records after a session row looked at for its folder, version and branch


def session_head(raw: bytes | str) -> tuple[str | None, str | None, str | None]:
    """(cwd, version, git branch) of a session record."""
    try:
        h = _head.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):  # RecursionError: nested too deep
        return None, None, None
    return h.cwd, h.version, h.gitBranch


def session_of(r: R.SessionMeta, model: str | None, line: Callable[[int], bytes | str | None]) -> str:
    """A session's first row with what the records from its line on say (``line(n)``: the raw
    record at line n, None past the end): its folder and version when the relay lacks them. The
    git branch is not said: ``translate -f text`` writes rows without the records, and the row
    reads the same in all three places (the branch is in the row's record, in its detail)."""
    cwd, version = r.cwd, r.version
    for n in range(r.line, r.line + HEAD_LOOK):
        if cwd and version:
            break
        raw = line(n)
        if not raw:
            break
        c, v, _ = session_head(raw)
        cwd, version = cwd or c, version or v
    return session_row(msgspec.structs.replace(r, cwd=cwd, version=version), model)


def fingerprint_words(size: int, sha256: str) -> str:
    """A transcript's fingerprint for people: ``1 244 287 bytes · SHA-256 3f2a…`` (thin spaces
    between thousands, a separator between the two)."""
    return f"{size:,}".replace(",", "\u202f") + f" bytes · SHA-256 {sha256[:12]}…"


def fingerprint_opening(name: str, size: int, sha256: str, sent_file: bool) -> str:
    """What a fingerprint link says to its recipient before the transcript is opened: the file
    the sender was told to send (``sent_file``: ``name`` is the shareable ``.relayscope.zip``),
    or for an older link, the transcript it names."""
    fp = fingerprint_words(size, sha256)
    if sent_file:
        return (f"This link shows a view of a transcript too large to travel in a link ({fp}). Open "
                f"“{name}”, the file sent with the link, or the transcript itself (Open files…, or "
                "drop it on this page), and the view appears.")
    named = f" “{name}”" if name else ""
    return (f"This link shows a view of the transcript{named} ({fp}), too large to travel in a link. "
            "Open that transcript, its file or its folder (Open files…, or drop it on this page), and "
            "the view appears.")
