"""Terminal output: messages on stderr (one line each, whatever they quote: ``termsafe``), JSON
made safe for a terminal, stdout, colour and width, ``--lane``'s match."""

from __future__ import annotations

import os
import sys
from typing import Any, BinaryIO

from ..termsafe import json_safe, safe
from .state import current as _run


def err(text: str) -> None:
    """One message on stderr, one line whatever it quotes (``termsafe``), redacted with
    ``--redact``; a closed or broken stderr loses it rather than failing the run."""
    stream = sys.stderr
    if stream is None:
        return
    text = safe(shown(text))
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def shown(name: str) -> str:
    """A file name or message as the run may show it: redacted with ``--redact``."""
    return _run.redactor.text(name) if _run.redactor is not None else name


def json_out(data: bytes) -> bytes:
    """JSON as written: to a terminal, with what JSON allows raw but terminals obey escaped
    (``termsafe.json_safe``: the same JSON); to a file or a pipe, as encoded (which escapes every
    C0 control already), at no cost to a program reading it."""
    return terminal_safe(data) if to_terminal() else data


def terminal_safe(data: bytes) -> bytes:
    return json_safe(data)


def to_terminal() -> bool:
    """Is stdout a terminal (``json_out``'s question)?"""
    try:
        return sys.stdout is not None and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def stdout() -> BinaryIO:
    """Where output goes: stdout, or /dev/null when the caller closed it (``>&-``): the run still
    reads everything and its exit code still says whether the input was good."""
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stdout for the rest of the process
    return sys.stdout.buffer


def use_color(choice: str, stream: Any) -> bool:
    """``--color``: always, never, or auto (a terminal, no ``NO_COLOR``, not a dumb terminal)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


def terminal_width() -> int | None:
    """``COLUMNS`` when set, else the terminal's width when stdout is one; None (no limit) else."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if sys.stdout is None or not sys.stdout.isatty():
            return None
    except (AttributeError, ValueError, OSError):
        return None
    return terminal_columns()


def terminal_columns() -> int:
    """The terminal's width as shutil.get_terminal_size() gives it (COLUMNS, else stdout's, else 80),
    without shutil (which imports bz2 and lzma: 3 ms of every run)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def lane_matches(wanted: str | None, lane: str | None, label: str) -> bool:
    """``--lane``: a lane's id, its label as the page shows it, or the start of that label."""
    if wanted is None:
        return True
    if lane is None:
        return False
    return wanted in (lane, label) or (bool(label) and label.lower().startswith(wanted.lower()))
