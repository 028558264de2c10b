"""``relayscope audit``: the de-dup strategies compared on one transcript, or on each session
of a folder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from ...audit import json_pieces, render
from ...multifile import audit_input
from ...termsafe import safe
from ..errors import INPUT_ERRORS, OK, UsageError
from ..gathering import gather, redacted_files
from ..reading import Named, lines_of, many, named, one, read_again
from ..reports import report_files, report_problems, report_redaction
from ..state import current as _run
from ..terminal import err, json_out
from ..writers import write_out, write_pieces

if TYPE_CHECKING:
    import argparse


def cmd_audit(args: argparse.Namespace) -> int:
    items = named(args.file)
    if many(items):
        return _audit_many(args, items)
    source = one(items[0])
    again = read_again(source, args)
    lines = lines_of(source, args)
    name = _run.name or ""
    (result,) = audit_input(lines, fmt=args.input_format, name=name, items=False, again=again, keys=args.json)
    if not result.comparable:
        raise UsageError(f"{name}: audit compares de-dup strategies; an Arbiter SSE stream has no duplicates to compare")
    if args.json:
        write_pieces(json_out(piece) for piece in json_pieces(result.audits, end=b"\n"))
    else:
        write_out(render(result.audits).encode())
    report_redaction(args)
    report_files(result.errors)
    return INPUT_ERRORS if result.errors else OK


def _audit_many(args: argparse.Namespace, items: list[Named]) -> int:
    """Audit each session (a main file with its sub-agent files) or other transcript found."""
    files, problems = gather(items)
    files = redacted_files(args, files)
    failed = report_problems(problems)
    _run.name, _run.line = next(iter(files), None), 0
    audits: list[dict[str, Any]] = []
    for g in audit_input(files, fmt=args.input_format):
        if not g.comparable:  # nothing to compare; what could not be read is still said
            err(f"relayscope: {g.name}: skipped: an Arbiter SSE stream has no duplicates to compare")
            report_files(g.errors)
            failed = failed or bool(g.errors)
            continue
        audits.append({"name": g.name, "files": g.files, "audit": g.audits})
        report_files(g.errors)
        failed = failed or bool(g.errors)
    if args.json:
        write_out(json_out(msgspec.json.encode(audits) + b"\n"))
    else:
        write_out("\n".join(f"== {safe(a['name'])} ({len(a['files'])} file(s))\n" + render(a["audit"])
                             for a in audits).encode())
    report_redaction(args)
    return INPUT_ERRORS if failed else OK
