"""The shareable file's format: its names and bounds, what an opened file says, which paths are kept."""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from typing import Any, Final

import msgspec

SUFFIX: Final = ".relayscope.zip"
MEDIA_TYPE: Final = "application/zip"
FORMAT: Final = "relayscope-share"
VERSION: Final = 1
MANIFEST: Final = "relayscope.json"
FILES: Final = "files/"
MAX_FILES: Final = 10_000  # files read from one shareable file; a session has a few dozen
MAX_BYTES: Final = 1 << 30  # unpacked, all files together: the zip-bomb bound
MAX_MANIFEST: Final = 16 << 20
MAX_PATH: Final = 1024  # characters of one path
LEVEL: Final = 6  # zlib's default: level 9 makes transcripts 1% smaller and takes twice as long
LINK_LIMIT: Final = 100_000  # characters of URL fragment; longer links break in chat apps and proxies
LINK_PREFIX: Final = "v2."
LINK_MAX_BYTES: Final = 32 << 20  # unpacked: a link that claims more is refused unread
TRANSCRIPTS: Final = (".jsonl", ".ndjson", ".meta.json")  # what a zip that is not ours is read for
_ZIP_MAGIC: Final = (b"PK\x03\x04", b"PK\x05\x06")  # a member first; an empty zip
_WHEN: Final = (1980, 1, 1, 0, 0, 0)  # every member's date: the same input packs to the same bytes
_LOCAL: Final = struct.Struct("<IHHHHHIIIHH")
_CHUNK: Final = 1 << 16
_DRIVE: Final = re.compile(r"^[A-Za-z]:")


class Issue(msgspec.Struct, frozen=True):
    """Something wrong with a shareable file; ``path`` names the file it concerns (None: the
    whole shareable file)."""

    path: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class Opened(msgspec.Struct):
    """What :func:`unpack` could read: the files (path -> bytes, in the manifest's order), the
    view, what was wrong, and which listed files are missing or incomplete."""

    files: dict[str, bytes] = msgspec.field(default_factory=dict)
    view: dict[str, str] = msgspec.field(default_factory=dict)
    issues: list[Issue] = msgspec.field(default_factory=list)
    missing: list[str] = msgspec.field(default_factory=list)
    version: int | None = None  # None: no manifest of ours (a zip made by another tool)
    redacted: dict[str, Any] | None = None


# -- names ------------------------------------------------------------------------------------

# (refused when, why): the first rule a name breaks says why. Backslashes count as separators
# (zip tools on Windows write them), and "." and empty parts are dropped, before these run.
_PATH_RULES: Final[tuple[tuple[Callable[[str], bool], str], ...]] = (
    (lambda p: not p, "an empty name"),
    (lambda p: len(p) > MAX_PATH, f"a name longer than {MAX_PATH} characters"),
    (lambda p: any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in p), "a control character in the name"),
    (lambda p: p.startswith("/") or bool(_DRIVE.match(p)), "an absolute path"),
    (lambda p: ".." in p.split("/"), "a path that climbs out of its folder (..)"),
)


def check_path(name: str) -> tuple[str, str | None]:
    """``name`` as a relative path (``/``-separated, no ``.`` or empty parts) and, when it must
    be refused (empty, absolute, ``..``, control characters), why."""
    raw = name.replace("\\", "/")
    plain = "/".join(p for p in raw.split("/") if p not in ("", "."))
    if raw.startswith("/") and plain:
        plain = "/" + plain  # kept absolute, so the rule below names it
    for refused, why in _PATH_RULES:
        if refused(plain):
            return plain, why
    return plain, None


def is_sharefile(head: bytes) -> bool:
    """Whether bytes starting with ``head`` (4 are enough) are a zip, and so read as a shareable
    file rather than as a transcript (a transcript is text; a zip starts with ``PK``)."""
    return bytes(head[:4]) in _ZIP_MAGIC


