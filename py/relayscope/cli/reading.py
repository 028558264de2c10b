"""What was named on the command line: each path checked before anything is read (a typo is a
usage error), whether the inputs are read together (``is_batch``), one input's lines as they come."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Final

from ..inputs import STDIN, Input, display_name, is_share, open_named
from .errors import UsageError
from .redacting import redacted_lines, redactor_of
from .state import current as _run

if TYPE_CHECKING:
    import argparse

Named = Input | str  # an input to read, or a folder to walk


def named(paths: list[str]) -> list[Named]:
    """Check every named path before anything is read or printed: a typo is a usage error."""
    out: list[Named] = []
    for path in paths or [STDIN]:
        try:
            if path != STDIN and os.path.isdir(path):
                out.append(path)
            else:
                out.append(open_named(path))
        except OSError as exc:
            raise UsageError(f"{display_name(path)}: {exc.strerror or exc}") from exc
    return out


def read_one(source: Named, args: argparse.Namespace) -> list[bytes]:
    return list(lines_of(one(source), args))


def one(source: Named) -> Input:
    assert isinstance(source, Input)
    _run.name, _run.line = source.name, 0
    return source


def lines_of(source: Input, args: argparse.Namespace) -> Iterator[bytes]:
    """One input's lines (redacted with ``--redact``), read as they are taken: a command that takes
    them one by one holds none it has passed. A read that fails is a usage error."""
    try:
        for line in redacted_lines(args, source.lines(), source.live):
            _run.line += 1
            yield line
    except OSError as exc:
        raise UsageError(f"{source.name}: {exc.strerror or exc}") from exc
    finally:
        source.close()


def many(items: list[Named]) -> bool:
    """Read whole, as a set of files: several inputs, a folder, or a shareable file."""
    return len(items) > 1 or isinstance(items[0], str) or is_share_item(items[0])


def is_share_item(item: Named) -> bool:
    return isinstance(item, Input) and is_share(item)


# Under this size one pass holds little (about 41 MB at 100 MB) and reading again would only cost
# time (about 1.15 times one pass's CPU): a file is read once per strategy only above it.
ONE_PASS_BYTES: Final = 128 << 20


def read_again(source: Input, args: argparse.Namespace) -> Callable[[], Iterator[bytes]] | None:
    """``source``'s lines read again from the first, for a command that reads a file more than
    once to hold less: a regular file named on the command line over ONE_PASS_BYTES, not redacted
    (redacting each pass would cost more than the memory saved); None for a smaller file, a pipe or
    stdin, read once."""
    if source.path == STDIN or source.live or redactor_of(args) is not None:
        return None
    try:
        if os.stat(source.path).st_size < ONE_PASS_BYTES:
            return None
    except OSError:  # said where the file is read
        return None

    def lines() -> Iterator[bytes]:
        _run.line = 0
        return lines_of(Input(source.path), args)

    return lines
