"""Text for people (``-f text``, ``trace``'s table): how files are named, the columns
(``textout``), coloured and as wide as the terminal."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ..inputs import STDIN, is_share_path
from ..termsafe import safe
from ..textout import Names, RelayText
from .terminal import shown, terminal_width, use_color

if TYPE_CHECKING:
    import argparse


def names_of(paths: list[str]) -> Names:
    """How files are named in text output: relative to the folders (and shareable files) and
    files named (redacted with ``--redact``, as the files' names are)."""
    folders = [p for p in paths if p != STDIN and (os.path.isdir(p) or is_share_path(p))]
    files = [p for p in paths if p != STDIN and p not in folders]
    return Names([shown(p) for p in folders], [shown(p) for p in files])


def where_width(names: Names, files: list[str] | None) -> int:
    """The where column: the line (6), or ``file:line`` as wide as the longest name needs."""
    if not files:
        return 6
    return min(max(len(safe(names(f))) for f in files) + 6, 48)


def relay_text(args: argparse.Namespace, files: list[str] | None = None) -> RelayText | None:
    if args.format != "text":
        return None
    names = names_of(args.files)
    return RelayText(terminal_width(), use_color(args.color, sys.stdout), names, where_width(names, files))
