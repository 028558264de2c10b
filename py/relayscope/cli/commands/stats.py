"""``relayscope stats``: where the time went, per lane and for the run, for each session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from ...export import run_figures
from ...export import stream as export_stream
from ...spans import render_figures
from ...termsafe import safe, safe_data
from ..errors import INPUT_ERRORS, OK
from ..gathering import source_of, unread
from ..reports import report_redaction, said
from ..terminal import json_out
from ..writers import write_out

if TYPE_CHECKING:
    import argparse


def cmd_stats(args: argparse.Namespace) -> int:
    source, read = source_of(args)
    failed = unread(source, False)
    held: dict[str, Any] | None = None  # the first session's figures: headed only if a second comes
    count = 0
    for run, _items, done in export_stream(source, args.strategy, args.input_format, read):
        if not done:  # only the figures count: the spans go as they finish
            continue
        fig = run_figures(run)
        failed = said(run, unread(source, failed))
        count += 1
        if args.json:  # written as each session ends: a folder's figures are not held
            write_out((b"[" if count == 1 else b",") + json_out(msgspec.json.encode(fig)))
            continue
        fig = safe_data(fig)  # every string of the figures made safe before it is placed in a row
        if held is not None or count > 1:
            if held is not None:
                write_out(f"== {safe(held['name'] or '')}\n{render_figures(held)}".encode())
                held = None
            write_out(f"\n== {safe(fig['name'] or '')}\n{render_figures(fig)}".encode())
        else:
            held = fig
    if args.json:
        write_out((b"]" if count else b"[]") + b"\n")
    else:
        write_out(render_figures(held).encode() if held is not None else b"")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK
