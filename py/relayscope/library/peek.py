"""library.peek: a file's first and last bytes, which is all the rule and the summary read of it.

:class:`Peek` holds a file's head and tail (the whole file when it is small) and its size;
:func:`peek_with` reads one through any ``(offset, count)`` reader, :func:`peek_reads` is the same
as the reads it needs (for a caller whose reads are asynchronous: the page), :func:`peek_bytes`
makes one of bytes in hand. No I/O of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Final

import msgspec

PEEK_BYTES: Final = 65536  # how much of each end of a file the listing reads


class Peek(msgspec.Struct, frozen=True):
    """A file's first and last bytes: ``head`` (up to ``PEEK_BYTES``), ``tail`` (the last
    ``PEEK_BYTES``, empty when ``head`` is the whole file) and its ``size``."""

    size: int
    head: bytes
    tail: bytes = b""

    @property
    def whole(self) -> bool:
        return len(self.head) >= self.size


Peeker = Callable[[str], "Peek | str"]  # a path -> its ends, or why it cannot be read


ReadAt = Callable[[int, int], bytes]  # (offset, count) -> up to count bytes from offset


def peek_with(read_at: ReadAt, size: int, limit: int = PEEK_BYTES, most: int = 64 * PEEK_BYTES) -> Peek:
    """A file's :class:`Peek` through ``read_at``: the whole file when it is at most ``2 * limit``
    bytes; else its first ``limit`` bytes, read on to the end of the first line (a record can be
    longer than ``limit``), and its last ``limit`` bytes, read back to hold the last whole line;
    neither end grows past ``most`` bytes. (:func:`peek_reads` says which reads, for a caller
    whose reads are asynchronous: the page.)"""
    plan = peek_reads(size, limit, most)
    try:
        want = next(plan)
        while True:
            want = plan.send(read_at(*want))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def peek_reads(size: int, limit: int = PEEK_BYTES, most: int = 64 * PEEK_BYTES) -> Generator[tuple[int, int], bytes, Peek]:
    """:func:`peek_with` as the reads it needs: yields ``(offset, count)``, is sent those bytes,
    and returns the :class:`Peek`."""
    if size <= 2 * limit:
        return Peek(size, (yield (0, size)) if size else b"")
    head = yield (0, limit)
    while b"\n" not in head and len(head) < min(most, size):
        more = yield (len(head), limit)
        if not more:
            break
        head += more
    start = size - limit
    tail = yield (start, limit)
    while tail.find(b"\n", 0, len(tail) - 1) < 0 and start > len(head) and len(tail) < most:
        step = min(limit, start - len(head))
        start -= step
        tail = (yield (start, step)) + tail
    if start <= len(head):  # the two ends met: the whole file
        return Peek(size, head + tail[len(head) - start:])
    return Peek(size, head, tail)


def peek_bytes(data: bytes, limit: int = PEEK_BYTES) -> Peek:
    """The :class:`Peek` of bytes in hand (a dropped file, a zip member, a test), as
    :func:`peek_with` reads one on disk."""
    return peek_with(lambda at, n: data[at:at + n], len(data), limit)


def chunk_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The lines of a file read as ``chunks`` (without their newlines; a last line without one
    too)."""
    rest = b""
    for chunk in chunks:
        *whole, rest = (rest + chunk).split(b"\n")
        yield from whole
    if rest:
        yield rest
