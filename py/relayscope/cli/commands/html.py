"""``relayscope html``: the snapshot, one self-contained page anyone can read
(``snapshot.render``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ... import sharefile, snapshot
from ...inputs import STDIN
from ..errors import INPUT_ERRORS, OK, UsageError
from ..gathering import gather_shared, say_unreadable, view_of
from ..reading import many, named, read_one
from ..redacting import redactor_of
from ..reports import report_redaction
from ..state import current as _run
from ..writers import write_file

if TYPE_CHECKING:
    import argparse


def cmd_html(args: argparse.Namespace) -> int:
    """``relayscope html``: the snapshot, one self-contained page (``snapshot.render``)."""
    if args.detail_chars is not None and args.detail_chars < 0:
        raise UsageError("--detail-chars takes 0 or more")
    items = named(args.files)
    r = redactor_of(args)
    if many(items):
        files, view, failed = gather_shared(args, items)
        try:
            shared = sharefile.prepare(files, view, r)
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        source: bytes | dict[str, bytes] = shared.files
        view = shared.view
        name = next(iter(shared.files)) if len(shared.files) == 1 else None
    else:
        source, view = b"".join(read_one(items[0], args)), view_of(args, {})
        failed = say_unreadable({_run.name or STDIN: source})
        name = os.path.basename(args.files[0]) if args.files[0] != STDIN else "stdin"
    page = snapshot.render(source, strategy=args.strategy, fmt=args.input_format, name=name,
                           view=view, redacted=r.summary() if r is not None else None,
                           detail_chars=args.detail_chars)
    write_file(args.output, page.encode("utf-8"), args.files)
    report_redaction(args)
    return INPUT_ERRORS if failed else OK
