"""``relayscope sessions``: every session the folders named hold, one line each, or NDJSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...inputs import STDIN
from ..errors import UsageError
from ..library import Fill, Unpack, run_sessions
from ..reading import named
from ..terminal import err, stdout, terminal_width

if TYPE_CHECKING:
    import argparse


def cmd_sessions(args: argparse.Namespace, fill: Fill | None = None, unpack: Unpack | None = None) -> int:
    """``fill`` (``--full``) and ``unpack`` (a shareable file named) are given by the dispatcher,
    which loads them only then: listing a folder loads no translator and no zip reader."""
    if STDIN in args.inputs:
        raise UsageError(f"- (stdin): {args.command} reads files and folders; save the transcript to a file")
    named(args.inputs)  # a typo is a usage error before anything is read
    return run_sessions(args.inputs, stdout(), err, as_json=args.json, sort=args.sort, width=terminal_width(),
                        fill=fill, unpack=unpack)
