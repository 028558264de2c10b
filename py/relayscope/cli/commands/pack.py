"""``relayscope pack``: one shareable file, every file of the input compressed, with a view."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import sharefile
from ...inputs import STDIN, display_name
from ..errors import INPUT_ERRORS, OK, UsageError
from ..gathering import gather_shared
from ..reading import named
from ..redacting import redactor_of
from ..reports import report_redaction
from ..terminal import err
from ..writers import write_file

if TYPE_CHECKING:
    import argparse


def cmd_pack(args: argparse.Namespace) -> int:
    files, view, failed = gather_shared(args, named(args.files))
    try:
        data = sharefile.pack(files, view, redactor_of(args))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    write_file(args.output, data, args.files)
    size = sum(map(len, files.values()))
    where = "<stdout>" if args.output == STDIN else display_name(args.output)
    err(f"relayscope: packed {len(files)} file(s), {size:,} bytes, into {where} "
         f"({len(data):,} bytes)")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK
