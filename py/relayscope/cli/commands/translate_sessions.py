"""``relayscope translate`` of inputs read whole: a folder (a session folder with its
``subagents/``, a project folder, any folder above them), several files among which are session
transcripts, or a shareable file: translated together, one session at a time
(``multifile.translate_files``), so that a main file and its sub-agent files share one seq space
and their lanes link up."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ...multifile import translate_files
from ..errors import INPUT_ERRORS, OK
from ..gathering import gather, redacted_files
from ..notices import report_drift_files, report_missing
from ..reading import Named
from ..reports import report_files, report_problems, report_redaction
from ..state import current as _run
from ..terminal import stdout
from ..text import relay_text
from ..writers import Writer

if TYPE_CHECKING:
    import argparse


def cmd_translate_sessions(args: argparse.Namespace, items: list[Named]) -> int:
    writer = Writer(stdout(), args.format, live=False)  # first: Ctrl-C while reading still gives []
    files, problems = gather(items)
    files = redacted_files(args, files)
    writer.text = relay_text(args, list(files)) or writer.text
    if writer.text is not None:
        writer.text.inputs = files  # a spilled tool output's row says whether its file is given
    failed = report_problems(problems)
    _run.name, _run.line = next(iter(files), None), 0
    results = []
    for result in translate_files(files, args.strategy, fmt=args.input_format):
        if writer.text is not None:  # read whole: a call's row can say its sub-agent is missing
            writer.text.follow_lanes(functools.partial(dict, result.lanes))
        writer.write(result.relays)
        report_files(result.errors)
        failed = failed or bool(result.errors)
        results.append(result)
        result.relays = []  # written: not held to the end
    writer.close()
    report_drift_files(files, results)
    for result in results:
        report_missing(result.name, result.lanes)
    report_redaction(args)
    return INPUT_ERRORS if failed else OK
