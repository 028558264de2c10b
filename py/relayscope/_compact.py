"""Compact per-item state for counts over a whole run: what is kept of every item costs bytes in a
few flat arrays, not a Python object (tens of bytes) and a dict entry each.

``DigestIndex`` numbers 16-byte digests 0, 1, 2, ... in the order they are added: the digests side
by side in one ``bytearray``, found through an open-addressing table of those numbers (an
``array('I')`` at most half full, probed linearly). 24 to 32 bytes a digest, against ~130 for a
``dict[bytes, int]`` with its keys and values. ``Texts`` holds short strings numbered the same way,
deflated in chunks of ``CHUNK`` (what a chunk holds is read back by decompressing it once; reads in
ascending order decompress each chunk once).

Both only grow: nothing is removed. Everything here is pure Python (the page runs it in Pyodide).
Imports nothing from relayscope.
"""

from __future__ import annotations

import zlib
from array import array
from typing import Final

DIGEST: Final = 16  # bytes of each digest
_FIRST_SLOTS: Final = 1 << 10
CHUNK: Final = 512  # strings deflated together: ~2.2x smaller than as text, ~5x than as str objects


class DigestIndex:
    """16-byte digests numbered in the order added (``add``), found by ``find``."""

    __slots__ = ("_mask", "_slots", "digests")

    def __init__(self) -> None:
        self.digests = bytearray()  # digest n at [n * DIGEST, (n + 1) * DIGEST)
        self._slots = array("I", bytes(4 * _FIRST_SLOTS))  # number + 1 of the digest hashed here; 0: free
        self._mask = _FIRST_SLOTS - 1

    def __len__(self) -> int:
        return len(self.digests) // DIGEST

    def find(self, d: bytes) -> int:
        """The number of digest ``d``, or -1 when it was never added."""
        slots, mask, digests = self._slots, self._mask, self.digests
        i = int.from_bytes(d, "little") & mask  # a digest's bits are uniform: its low ones will do
        while n := slots[i]:
            at = (n - 1) * DIGEST
            if digests[at:at + DIGEST] == d:
                return n - 1
            i = (i + 1) & mask
        return -1

    def add(self, d: bytes) -> int:
        """The number of digest ``d``: its own if it was added before, else the next one."""
        if len(d) != DIGEST:
            raise ValueError(f"a digest is {DIGEST} bytes, not {len(d)}")
        slots, mask, digests = self._slots, self._mask, self.digests
        i = int.from_bytes(d, "little") & mask
        while n := slots[i]:
            at = (n - 1) * DIGEST
            if digests[at:at + DIGEST] == d:
                return n - 1
            i = (i + 1) & mask
        number = len(digests) // DIGEST
        slots[i] = number + 1
        digests += d
        if 2 * (number + 1) > mask:
            self._grow()
        return number

    def _grow(self) -> None:
        size = 2 * (self._mask + 1)
        slots, mask, digests = array("I", bytes(4 * size)), size - 1, self.digests
        for number in range(len(digests) // DIGEST):
            at = number * DIGEST
            i = int.from_bytes(digests[at:at + DIGEST], "little") & mask
            while slots[i]:
                i = (i + 1) & mask
            slots[i] = number + 1
        self._slots, self._mask = slots, mask


class Texts:
    """Strings numbered in the order appended, read back by number (``texts[n]``)."""

    __slots__ = ("_chunks", "_lengths", "_open", "_read")

    def __init__(self) -> None:
        self._chunks: list[bytes] = []  # CHUNK strings each, joined, UTF-8 (lone surrogates kept), deflated
        self._lengths = array("I")  # each string's length in characters
        self._open: list[str] = []  # the strings of the chunk not yet deflated
        self._read: tuple[int, str, list[int]] = (-1, "", [])  # the chunk read last: its number, text, starts

    def __len__(self) -> int:
        return len(self._lengths)

    def append(self, text: str) -> None:
        self._open.append(text)
        self._lengths.append(len(text))
        if len(self._open) == CHUNK:
            self._chunks.append(zlib.compress("".join(self._open).encode("utf-8", "surrogatepass")))
            self._open = []

    def __getitem__(self, n: int) -> str:
        if not 0 <= n < len(self._lengths):
            raise IndexError(n)
        chunk, at = divmod(n, CHUNK)
        if chunk == len(self._chunks):
            return self._open[at]
        number, text, starts = self._read
        if number != chunk:
            text = zlib.decompress(self._chunks[chunk]).decode("utf-8", "surrogatepass")
            starts = [0]
            for length in self._lengths[chunk * CHUNK:(chunk + 1) * CHUNK]:
                starts.append(starts[-1] + length)
            self._read = (chunk, text, starts)
        return text[starts[at]:starts[at + 1]]
