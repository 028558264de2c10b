"""``relayscope redact`` of inputs read whole: several inputs or a folder into ``-o DIR``, one
shareable file as a shareable file (``sharefile``)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ... import sharefile
from ...inputs import Problem, display_name
from ...redact import Redactor, redact_bytes
from ...sharefile import Opened
from ..errors import INPUT_ERRORS, OK, UsageError
from ..gathering import gather, say_unreadable
from ..reading import Named, is_share_item
from ..redacting import redactor_of
from ..reports import report_problems, report_redaction
from ..terminal import stdout
from ..text import names_of
from ..writers import list_findings, make_folders, refuse_over_inputs, write_some

if TYPE_CHECKING:
    import argparse


def cmd_redact_files(args: argparse.Namespace, items: list[Named]) -> int:
    """``relayscope redact`` of several inputs, or a folder, into ``-o DIR`` under the names they
    have below what was named (redacted too); of one shareable file, as a shareable file to stdout
    (or its files into ``-o DIR``). ``--list``: what would be replaced, not the text."""
    r = redactor_of(args)
    assert r is not None
    if len(items) == 1 and is_share_item(items[0]) and not args.output:
        return _redact_share(args, items, r)
    if not args.output and not args.list:
        raise UsageError("several inputs or a folder: name a folder to write the redacted files to with -o DIR")
    out = stdout()
    files, problems = gather(items)
    failed = report_problems(problems)
    names = names_of(args.files)
    failed = say_unreadable(files) or failed
    for data in files.values():  # the first pass: a name any file shows is redacted in every file
        r.discover(data)
    redacted = [(name, redact_bytes(data, r)) for name, data in files.items()]
    if not args.list:
        # every target checked before any is written: never over a file read, whatever -o names
        targets = [(name, os.path.join(args.output, names(r.text(name))), data) for name, data in redacted]
        for _, target, _ in targets:
            refuse_over_inputs(target, args.files)
        failed = _write_all(targets) or failed
    if args.list:
        list_findings(out, r)
    write_some(out, b"")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


def _write_all(targets: list[tuple[str, str, bytes]]) -> bool:
    """Each redacted file at its target; one that cannot be written (a file and a folder of the
    same name in a shareable file, a full disk) is ``NAME: message`` on stderr and the rest are
    written. Whether one failed."""
    problems: list[Problem] = []
    for name, target, data in targets:
        try:
            make_folders(os.path.dirname(target))
            with open(target, "wb") as f:
                f.write(data)
        except OSError as exc:
            why = ("a folder of the input has this name (a file and a folder of the same name)"
                   if isinstance(exc, IsADirectoryError) else
                   "a folder on its path is a file of the input (a file and a folder of the same name)"
                   if isinstance(exc, NotADirectoryError | FileExistsError) else exc.strerror or exc)
            problems.append(Problem(name, f"not written to {display_name(target)}: {why}"))
    return report_problems(problems)


def _redact_share(args: argparse.Namespace, items: list[Named], r: Redactor) -> int:
    """One shareable file in, the same redacted out (its files, their paths and its view)."""
    shares: dict[str, Opened] = {}
    _, problems = gather(items, shares)
    failed = report_problems(problems)
    opened = next(iter(shares.values()))
    out = stdout()
    if args.list:
        sharefile.prepare(opened.files, opened.view, r)  # the findings are what --list shows
        list_findings(out, r)
    else:
        if sys.stdout is not None and sys.stdout.isatty():
            raise UsageError("the redacted shareable file is a zip: send it to a file (> FILE), "
                             "or write its files into a folder with -o DIR")
        write_some(out, sharefile.pack(opened.files, opened.view, r))
    write_some(out, b"")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK
