"""The command line's exit codes and the errors that choose one.

Exit codes: 0 ok; 1 when the input had errors (unreadable lines, files in a folder that could
not be read: each on stderr as ``FILE:LINE: message`` or ``FILE: message``, everything else still
printed); 2 on usage errors (bad flags, a named file missing); 70 on a bug of ours (one line on
stderr naming the input line being read); 74 when stdout cannot be written (a full disk); 130
on Ctrl-C. A reader that goes away (``| head``) ends the run quietly with 0.
"""

from __future__ import annotations

from typing import Final

OK: Final = 0
INPUT_ERRORS: Final = 1
USAGE: Final = 2
INTERNAL: Final = 70  # EX_SOFTWARE: a bug of ours, never "your input was bad"
OUTPUT_FAILED: Final = 74  # EX_IOERR: stdout could not be written
INTERRUPTED: Final = 130  # 128 + SIGINT, what shells report for Ctrl-C


class UsageError(Exception):
    pass


class OutputError(Exception):
    """stdout failed; not an OSError, so it is never taken for an input that failed."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(exc.strerror or str(exc))
        self.errno = exc.errno
