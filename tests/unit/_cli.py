"""The command line run in this process (property tests run it hundreds of times, a process each
would take minutes): arguments in, exit code, stdout's bytes and stderr's text out."""

from __future__ import annotations

import io
import sys

from relayscope import cli


class _Terminal(io.TextIOWrapper):
    """stdout as a terminal would be (``isatty``), its bytes kept."""

    def isatty(self) -> bool:
        return True


def main(*argv: str, stdin: bytes = b"", tty: bool = False) -> tuple[int, bytes, str]:
    """``tty``: stdout is a terminal (what is written for a person to read there)."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = (io.TextIOWrapper(io.BytesIO(stdin)),
               (_Terminal if tty else io.TextIOWrapper)(out, encoding="utf-8", write_through=True),
               io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True))
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        code = cli.main(list(argv))
        sys.stdout.flush()
        sys.stderr.flush()
        return code, out.getvalue(), err.getvalue().decode("utf-8", "replace")
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for stream in streams:
            stream.detach()  # the buffers are read above; closing the wrappers must not close them first
