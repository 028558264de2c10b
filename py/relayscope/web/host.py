"""host: what the browser does for the worker's Python, as typed interfaces. main.py (the one
module that touches JavaScript) implements them over the browser's objects; tests implement them
in plain Python.

Job: say what a picked or dropped file, a watched file or folder, a slice being read and the
host itself (fetch, downloads, the clock) offer, and nothing more.
Must not: import JavaScript, the DOM mirror, or anything of the app.
"""

from __future__ import annotations

from typing import Protocol


class Slice(Protocol):
    """A slice of a file, read, not yet in Python's memory."""

    def __len__(self) -> int: ...

    def copy_into(self, out: bytearray) -> None:
        """Copy the slice into ``out`` (exactly as long as the slice)."""


class SliceReader(Protocol):
    """A file read a slice at a time, the next slices read meanwhile."""

    async def next(self) -> Slice:
        """The next slice (the last may be shorter; an empty file gives one empty slice)."""

    def close(self) -> None:
        """Done, or abandoned: stop reading ahead."""


class PageFile(Protocol):
    """A file the reader picked or dropped (a browser File)."""

    @property
    def size(self) -> int: ...

    async def read(self, start: int = 0, end: int | None = None) -> bytes:
        """Its bytes from ``start`` to ``end`` (the end of the file when None)."""

    def slices(self, size: int) -> SliceReader:
        """The file read ``size`` bytes at a time, ahead of whoever reads them."""


class WatchHandle(Protocol):
    """A file or folder handle the reader gave to watch (File System Access API)."""

    @property
    def kind(self) -> str: ...  # "file" | "directory"

    @property
    def name(self) -> str: ...

    async def file(self) -> PageFile:
        """The file as it is now (a new snapshot at each call)."""

    async def listing(self) -> list[tuple[str, WatchHandle]]:
        """A folder's files, with their paths relative to it, sorted."""


class Host(Protocol):
    """What only the browser can do."""

    async def fetch(self, url: str) -> bytes:
        """The body at ``url`` (relative to the page); OSError with the HTTP status when not ok."""

    def download(self, name: str, data: bytes, mime: str) -> None:
        """Offer ``data`` as a file named ``name`` (the page makes a blob: URL; nothing leaves it)."""

    def now(self) -> float:
        """Milliseconds since the worker started (performance.now)."""
