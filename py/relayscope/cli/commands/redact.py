"""``relayscope redact`` of one input (a file, ``-``): its secrets replaced, in its own format,
to stdout a line at a time, each line looked at as the translators would (``verdict``).
Several inputs, a folder or a shareable file: ``redact_files``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from ...inputs import Input
from ...redact import Redactor
from ...verdict import LineCheck, Readers
from ..errors import INPUT_ERRORS, OK
from ..reading import Named
from ..redacting import batches, redactor_of
from ..reports import report_redaction
from ..state import current as _run
from ..terminal import err, stdout
from ..writers import list_findings, write_some

if TYPE_CHECKING:
    import argparse

# emitter.ERRORS_KEPT (test_cli_startup holds them equal), written here so that redact loads no
# emitter (nor the translator's records under it)
ERRORS_KEPT: Final = 200


def cmd_redact(args: argparse.Namespace, items: list[Named], readers: Readers) -> int:
    """``relayscope redact`` of one input (a file, ``-``): its secrets replaced, in its own format,
    to stdout a line at a time (``redact_files``: several, a folder, a shareable file). ``--list``:
    what would be replaced, not the text. What is unreadable in the input is said as ``translate``
    says it, with its exit code (``verdict``): the redacted text still holds every line. ``readers``
    read the rare line msgspec's skip does not settle (the dispatcher's: loaded when one comes)."""
    r = redactor_of(args)
    assert r is not None
    source = items[0]
    assert isinstance(source, Input)
    out = stdout()
    check = LineCheck(readers=readers)
    for lines in _checked(source, check, r):
        if not args.list:
            write_some(out, b"".join(lines))
            if source.live:  # a pipe: each line out as it comes
                write_some(out, b"")
    failed = check.count > 0
    if args.list:
        list_findings(out, r)
    write_some(out, b"")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


def _checked(source: Input, check: LineCheck, r: Redactor) -> Iterator[list[bytes]]:
    """The input's lines redacted, a batch at a time (as ``redacted_lines`` batches them), each
    looked at as the translators would: what is unreadable is said as ``translate`` says it (the
    first ``ERRORS_KEPT``, then how many more), before its line is redacted (a message takes the
    placeholders of the lines before it). A batch with nothing to say is redacted as one block."""
    _run.name, _run.line = source.name, 0
    listed = 0

    def said(problems: list[tuple[int, str]]) -> None:
        nonlocal listed
        if not problems:  # the emitter (and the translator with it) loads once a line is unreadable
            return
        for number, message in problems:
            if listed < ERRORS_KEPT:
                err(f"{source.name}:{number}: {message}")
                listed += 1

    for batch in batches(source.lines(), source.live):
        first = _run.line + 1
        _run.line += len(batch)
        types = check.types(batch)
        if types is not None:
            yield r.feed_lines(batch, first, types)
            continue
        problems = [check.feed(line, n) for n, line in enumerate(batch, first)]
        if not any(problems):
            yield r.feed_lines(batch, first)
            continue
        out: list[bytes] = []
        for n, (line, found) in enumerate(zip(batch, problems, strict=True), first):
            said(found)
            out += r.feed(line, n)
        yield out
    said(check.finish())
    if check.count > listed:
        err(f"{source.name}: {check.count - listed} more unreadable line(s) not listed (each is in the output, "
             "redacted as text)")
    yield r.flush()
