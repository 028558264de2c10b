"""``translate --follow`` and ``trace --follow``: one file or folder tailed as it grows
(``follow.py``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .. import follow
from ..inputs import STDIN, display_name, is_share_path
from .commands.trace import Table
from .errors import INPUT_ERRORS, INTERRUPTED, OK, UsageError
from .redacting import redactor_of
from .terminal import stdout
from .text import names_of, relay_text
from .writers import Writer

if TYPE_CHECKING:
    import argparse


def run_followed(command: str, args: argparse.Namespace, paths: list[str]) -> int:
    """``--follow``: tail one file or folder as it grows (``follow.py``)."""
    redactor_of(args)  # --redact with --follow: a usage error, never an unredacted output
    if len(paths) != 1 or paths[0] == STDIN:
        raise UsageError("--follow takes one FILE or DIR (stdin is always read live)")
    if not os.path.exists(paths[0]):
        raise UsageError(f"{display_name(paths[0])}: No such file or directory")
    if is_share_path(paths[0]):
        raise UsageError(f"{display_name(paths[0])}: a shareable file does not grow: read it without --follow")
    if not (os.path.isfile(paths[0]) or os.path.isdir(paths[0])):
        raise UsageError(f"{display_name(paths[0])}: --follow reads a regular file or a folder "
                         "(a pipe is read live without it)")
    folder = [paths[0]] if os.path.isdir(paths[0]) else None
    if command == "translate":
        writer = Writer(stdout(), args.format, live=True, text=relay_text(args, folder))
        lanes_to = writer.text.follow_lanes if writer.text is not None else None
        outcome = follow.run(paths[0], args, writer, lanes_to=lanes_to)
    else:
        outcome = follow.run(paths[0], args, None, Table(args, names_of(paths), folder))
    return INTERRUPTED if outcome.interrupted else INPUT_ERRORS if outcome.failed else OK
