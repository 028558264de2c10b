"""``--redact``, an input filter any command can take: the run's one redactor (made by
``cli.main`` before anything is named), an input's lines redacted a batch ahead of their use."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Final, cast

from ..inputs import walk
from .errors import UsageError
from .state import current as _run

if TYPE_CHECKING:
    import argparse

    from ..redact import Redactor


def redactor_of(args: argparse.Namespace) -> Redactor | None:
    """The run's redactor with ``--redact`` (one for all inputs: the same secret, the same
    placeholder; made by ``cli.main`` as the run starts), else None."""
    if not getattr(args, "redact", False):
        return None
    if getattr(args, "follow", False):
        raise UsageError("--redact does not work with --follow yet: redact the file, then follow that")
    _run.redactor = cast("Redactor | None", getattr(args, "_redactor", None))
    return _run.redactor


REDACT_AHEAD: Final = 256 << 10  # a regular file's lines redacted this far ahead of their use


def redacted_lines(args: argparse.Namespace, lines: Iterable[bytes], live: bool = True) -> Iterable[bytes]:
    """``lines``, redacted with ``--redact`` (as they are, with no generator between, without);
    ``live``: each line as it comes (a pipe), else ``REDACT_AHEAD`` bytes at a time."""
    r = redactor_of(args)
    return lines if r is None else _redacted(r, lines, live)


def _redacted(r: Redactor, lines: Iterable[bytes], live: bool) -> Iterator[bytes]:
    """A streamed block's lines come out together, when it ends. From a file the lines are
    redacted a batch ahead of the command's use: redacting and translating line by line in turn
    took 15% longer than the two one batch after the other (each pushes the other's code and data
    out of the processor's caches), and a batch is read as one block (``Redactor.feed_lines``). A
    read that fails gives the lines before it first."""
    first = 1
    for batch in batches(lines, live):
        yield from r.feed_lines(batch, first)
        first += len(batch)
    yield from r.flush()


def batches(lines: Iterable[bytes], live: bool) -> Iterator[list[bytes]]:
    """``lines`` in batches of ``REDACT_AHEAD`` bytes, a pipe's a line each; a read that fails
    gives the lines before it, then its error."""
    batch: list[bytes] = []
    held = 0
    try:
        for line in lines:
            batch.append(line)
            held += len(line)
            if live or held >= REDACT_AHEAD:
                yield batch
                batch, held = [], 0
    except OSError:
        if batch:
            yield batch
        raise
    if batch:
        yield batch


FIRST_PASS_CHUNK: Final = 4 << 20


def first_pass(args: argparse.Namespace, r: Redactor) -> None:
    """Before anything is read: the words of ``--redact-word``, and the names every regular file
    named (a folder's files as the folder rule reads them) shows anywhere, read in whole lines
    ``FIRST_PASS_CHUNK`` at a time, so that a name one file or a late line shows is redacted in
    every file from its first line (a pipe's names are learnt as they come). A file that cannot
    be read is said where the command reads it."""
    for word in getattr(args, "redact_word", None) or []:
        if not r.add_word(word):
            raise UsageError(f"--redact-word {word!r}: a word of at least 2 characters, on one line")
    paths: list[str] = []
    for path in list(getattr(args, "files", None) or getattr(args, "file", None) or []):
        if path == "-":
            continue
        if os.path.isdir(path):
            paths += walk(path)[0]  # as the folder rule reads it, a list not a recursion: any depth
        else:
            paths.append(path)
    for path in paths:
        try:
            if not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                if f.read(2) == b"PK":  # a shareable file: its files are read whole, names found then
                    continue
                f.seek(0)
                rest = b""
                while chunk := f.read(FIRST_PASS_CHUNK):
                    cut = chunk.rfind(b"\n") + 1
                    if cut:
                        r.discover(rest + chunk[:cut])
                        rest = chunk[cut:]
                    else:
                        rest += chunk
                r.discover(rest)
        except OSError:
            continue
