"""inputs: the command line's inputs, each read once. With ``cli``, the only module that does I/O.

Job: turn what the user named (files, ``-``, pipes, process substitution ``<(...)``, FIFOs,
folders) into named byte streams, and say plainly what could not be read.

* Every input is read once. Looking at the first lines (to detect the format, or to decide
  whether files are a session) keeps them in :class:`Input` and hands them out again before the
  rest: a pipe cannot be read twice. A regular file is closed between that look and the full read
  (and re-opened at the offset reached), so naming thousands of files never runs out of
  descriptors.
* Walking a folder opens only regular files, and never blocks: a FIFO, socket or device, a
  symlink loop, a dangling link or an unreadable file or folder becomes a :class:`Problem`
  (``NAME: message``) and is skipped; the rest is read. A FIFO named on the command line is
  read (its writer is the user's business).
* A shareable file (``sharefile``: a zip of an input's files) is read like a folder: its files
  are named ``FILE/PATH`` (PATH as stored in it), and what is wrong with it (a file cut short, a
  hash that does not match, a zip that is not ours) is a :class:`Problem` each, the rest read.
  Its reader (``sharefile``: zipfile, the redactor) is loaded only by the commands that read
  inputs whole (``cli.gathering``): a transcript streamed never loads it (it was a third of a
  short run's start-up).
* Names are shown as text whatever their bytes: :func:`display_name` escapes what is not UTF-8
  (``bad\\xff.jsonl``), so messages and the ``file`` field of relays never fail to encode.

Must not: translate, print, or decide exit codes (``cli`` does); import the web layer.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, Final, NamedTuple, TypeVar

from .intake import read_in_folder

STDIN: Final = "-"
STDIN_NAME: Final = "<stdin>"
_CHUNK: Final = 1 << 20


def display_name(path: str) -> str:
    """``path`` as printable text: bytes that are not UTF-8 (a POSIX name can hold any) become
    ``\\xNN``, as Python's own messages show them."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")


class Problem(NamedTuple):
    """An input that could not be read, reported as ``NAME: message`` and skipped. (A tuple, not
    a dataclass: ``dataclasses`` and the ``inspect`` it imports were a tenth of a short run.)"""

    name: str
    message: str

    def __str__(self) -> str:
        return f"{self.name}: {self.message}"


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _why(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symbolic link loop; skipped"
    return f"{exc.strerror or exc}; skipped"


class Input:
    """One named input, opened once. ``peek()`` looks at the first lines without losing them;
    ``lines()`` then yields every line from the first; ``read()`` returns all the bytes."""

    def __init__(self, path: str, stream: BinaryIO | None = None) -> None:
        self.path = path
        self.name = STDIN_NAME if path == STDIN else display_name(path)
        self._stream = stream
        self._head: list[bytes] = []
        self._offset = 0  # bytes of a closed regular file already in _head
        self._regular: bool | None = None
        self._done = False

    @classmethod
    def stdin(cls) -> Input:
        buffer = sys.stdin.buffer if sys.stdin is not None else None  # None: stdin closed (<&-)
        made = cls(STDIN, buffer)
        if buffer is None:
            made._done = True
        return made

    @property
    def live(self) -> bool:
        """Not a regular file (a pipe, a terminal, a FIFO): hand each line on as it arrives."""
        if self._regular is None:
            self._open()
        return not self._regular

    def _open(self) -> BinaryIO | None:
        if self._done:
            return None
        if self._stream is None:
            # A large buffer: reading lines through Python's default 8 KiB one cost a sixth of
            # ``translate`` on real captures (lines of kilobytes); a pipe's reads still return
            # what has arrived, so live input is not held back.
            self._stream = open(self.path, "rb", buffering=_CHUNK)  # noqa: SIM115 - closed by close() / the end of lines()
            if self._offset:
                self._stream.seek(self._offset)
        if self._regular is None:
            try:
                self._regular = stat.S_ISREG(os.fstat(self._stream.fileno()).st_mode)
            except (OSError, ValueError, AttributeError):  # a stream with no descriptor (tests)
                self._regular = False
        return self._stream

    def peek(self) -> Iterator[bytes]:
        """The lines from the first, each kept for ``lines()`` / ``read()``: a look at the start
        (format detection) that reads no further than the caller's loop goes. ``park()`` after."""
        at = 0
        while True:
            if at < len(self._head):
                yield self._head[at]
                at += 1
                continue
            stream = self._open()
            line = stream.readline() if stream is not None else b""
            if not line:
                return
            self._head.append(line)

    def park(self) -> None:
        """Done looking: a regular file is closed until it is read (at the offset reached), so
        many inputs never hold many descriptors; a pipe stays open (it cannot be reopened)."""
        if self._regular and self._stream is not None and self.path != STDIN:
            self._offset = self._stream.tell()
            self._stream.close()
            self._stream = None

    def lines(self) -> Iterator[bytes]:
        """Every line, each with its newline (the last may have none), from the first."""
        stream = self._open()
        head, self._head = self._head, []
        yield from head
        if stream is None:
            return
        try:
            if self._regular:
                yield from stream
            else:  # a pipe: no read-ahead past the line at hand, so output keeps pace with input
                yield from iter(stream.readline, b"")
        finally:
            self.close()

    def read(self) -> bytes:
        """All the bytes, the lines already looked at included."""
        stream = self._open()
        parts = [b"".join(self._head)]
        self._head = []
        if stream is not None:
            try:
                parts.append(stream.read())
            finally:
                self.close()
        return b"".join(parts)

    def close(self) -> None:
        self._done = True
        if self._stream is not None and self.path != STDIN:
            self._stream.close()
        self._stream = None


class Window:
    """The lines of one input from a line on, numbered from 1 as they are added: what a command
    still needs of the lines it has passed (``trace``: the lines whose steps are not written)."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.base = 0  # the number of the line before lines[0]

    def add(self, line: bytes) -> None:
        self.lines.append(line)

    def get(self, step: Any) -> bytes:
        """The line of a trace step (``step.line``), or b"" once let go."""
        at = step.line - 1 - self.base
        return self.lines[at] if 0 <= at < len(self.lines) else b""

    def keep_from(self, number: int) -> None:
        """Let go of the lines before line ``number``."""
        done = min(max(0, number - 1 - self.base), len(self.lines))
        del self.lines[:done]
        self.base += done


def open_named(path: str) -> Input:
    """An input named on the command line: ``-`` is stdin, anything else a path that is checked
    to exist and be readable now (so a typo fails before any output) and opened when read."""
    if path == STDIN:
        return Input.stdin()
    st = os.stat(path)  # OSError: the caller's usage error
    if not stat.S_ISDIR(st.st_mode) and not os.access(path, os.R_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    return Input(path)


def _open_regular(path: str) -> int | Problem:
    """A descriptor of ``path`` if it is a regular file. Checked before it is opened, then opened
    non-blocking and checked again, so a FIFO (even one swapped in between) never blocks the run."""
    name = display_name(path)
    try:
        mode = os.stat(path).st_mode  # not even opened when it is no regular file: a FIFO's
        if not stat.S_ISREG(mode):    # writer would see a reader come and go
            return Problem(name, f"{_kind(mode)}, not a transcript file; skipped")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return Problem(name, _why(exc))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            return Problem(name, f"{_kind(mode)}, not a transcript file; skipped")
        os.set_blocking(fd, True)
    except OSError as exc:
        os.close(fd)
        return Problem(name, _why(exc))
    return fd


def read_regular(path: str) -> bytes | Problem:
    """A file found while walking a folder, read whole: only if it is a regular file (a FIFO is
    never opened for reading, so it never blocks the run)."""
    fd = _open_regular(path)
    if isinstance(fd, Problem):
        return fd
    try:
        with os.fdopen(fd, "rb", closefd=True) as stream:
            fd = -1
            return stream.read()
    except OSError as exc:
        return Problem(display_name(path), _why(exc))
    finally:
        if fd >= 0:
            os.close(fd)


T = TypeVar("T")


def peek_regular(path: str, look: Callable[[Callable[[int, int], bytes], int], T]) -> T | Problem:
    """``look(read_at, size)`` of a regular file (``read_at(offset, count)`` reads at most ``count``
    bytes from ``offset``): a look at parts of a file (its ends) without reading it all."""
    fd = _open_regular(path)
    if isinstance(fd, Problem):
        return fd
    try:
        return look(lambda at, n: os.pread(fd, n, at), os.fstat(fd).st_size)
    except OSError as exc:
        return Problem(display_name(path), _why(exc))
    finally:
        os.close(fd)


def walk(folder: str, every: bool = False) -> tuple[list[str], list[Problem]]:
    """The files under ``folder`` that are read (``intake.read_in_folder``: transcripts by name,
    sub-agent meta files; sorted, symlinked folders not followed, so no loop), and for a session
    folder ``<session>/`` the main file ``<session>.jsonl`` beside it; with what could not be
    looked at. Reads no file.

    A folder's files come before its subfolders', each in name order (``os.walk``'s order),
    walked with a list rather than recursion: a tree thousands of folders deep is just long.
    ``every``: every file, whatever its name (the library names what it does not read)."""
    problems: list[Problem] = []
    found: list[str] = []
    todo = [folder]
    while todo:
        here = todo.pop()
        try:
            with os.scandir(here) as listing:
                entries = list(listing)
        except OSError as exc:
            problems.append(Problem(display_name(exc.filename or here), _why(exc)))
            continue
        folders: list[str] = []
        for entry in sorted(entries, key=lambda e: e.name):
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                if every or read_in_folder(os.path.join(here, entry.name)):
                    found.append(os.path.join(here, entry.name))
            elif not entry.is_symlink():
                folders.append(os.path.join(here, entry.name))
        todo.extend(reversed(folders))
    main = os.path.normpath(folder) + ".jsonl"
    if os.path.lexists(main) and main not in found:
        found.insert(0, main)
    return found, problems


def is_share(source: Input) -> bool:
    """Whether ``source`` is a shareable file (it starts as a zip does): a look at its first
    bytes, kept for the read."""
    try:
        head = next(source.peek(), b"")
    except OSError:
        return False  # reported when read
    finally:
        source.park()
    return is_zip(head)


def is_share_path(path: str) -> bool:
    """Whether ``path`` is a regular file that is a shareable file (a FIFO is never opened)."""
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as f:
            return is_zip(f.read(4))
    except OSError:
        return False


# sharefile's (test_cli_startup holds them equal), written here so that a transcript never loads
# the zip reader
ZIP_MAGIC: Final = (b"PK\x03\x04", b"PK\x05\x06")  # a member first; an empty zip


def is_zip(head: bytes) -> bool:
    """``sharefile.is_sharefile``: whether bytes starting with ``head`` are a zip, and so read as
    a shareable file."""
    return bytes(head[:4]) in ZIP_MAGIC
