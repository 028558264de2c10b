"""An input as a link's fragment (compressed, base64url) and back."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Mapping
from typing import Any

from ..redact import Redactor
from . import names as N  # the bounds read at each call (a test may lower them)
from .names import _CHUNK, LINK_LIMIT, LINK_PREFIX, check_path
from .writing import Shared, prepare

# -- links ------------------------------------------------------------------------------------


def encode_link(files: Mapping[str, bytes], view: Mapping[str, Any] | None = None,
                redactor: Redactor | None = None, limit: int = LINK_LIMIT) -> str | None:
    """A URL fragment (without ``#``) carrying ``files`` and ``view`` (as :func:`pack` takes
    them), or None when it would be longer than ``limit`` characters: :func:`link` of
    :func:`prepare`."""
    return link(prepare(files, view, redactor), limit)


def link(shared: Shared, limit: int = LINK_LIMIT) -> str | None:
    """The fragment of what :func:`prepare` made, or None past ``limit`` characters. The
    payload: one JSON line ``{"view": {...}, "files": [[path, size], ...]}``, then the files'
    bytes one after another, deflated (zlib, level 9), in base64url after ``v2.``."""
    head = json.dumps({"view": shared.view, "files": [[p, len(d)] for p, d in shared.files.items()]},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    budget = (limit - len(LINK_PREFIX)) * 3 // 4  # base64 makes 4 characters of 3 bytes
    z = zlib.compressobj(9)
    parts: list[bytes] = []
    size = 0
    for data in (head, *shared.files.values()):
        for start in range(0, len(data), _CHUNK):  # give up as soon as it cannot fit
            parts.append(z.compress(data[start:start + _CHUNK]))
            size += len(parts[-1])
            if size > budget:
                return None
    parts.append(z.flush())
    fragment = LINK_PREFIX + base64.urlsafe_b64encode(b"".join(parts)).rstrip(b"=").decode()
    return fragment if len(fragment) <= limit else None


def damaged_link(what: str) -> str:
    """The reader's words for a link whose payload cannot be unpacked."""
    return (f"This link is damaged: {what} cannot be unpacked. "
            "Was it cut short or changed when it was copied? Ask for the link again.")


def inflate_link(body: str, limit: int, damaged: str) -> bytes:
    """A link's payload (URL-safe base64 of a zlib stream, padding dropped) unpacked, at most
    ``limit`` bytes of it: a few hundred kilobytes of fragment can unpack to gigabytes. ValueError
    in the reader's words (``damaged``, or the limit) otherwise."""
    d = zlib.decompressobj()
    try:
        raw = d.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)), limit)
    except (ValueError, zlib.error) as exc:
        raise ValueError(damaged) from exc
    if d.unconsumed_tail:
        raise ValueError(f"This link would unpack to more than {limit >> 20} MB, more than any link "
                         "Relayscope makes, so it was not opened.")
    if not d.eof or d.unused_data:
        raise ValueError(damaged)
    return raw


def decode_link(fragment: str) -> tuple[dict[str, bytes], dict[str, str]]:
    """The files and view of a fragment made by :func:`encode_link`. ValueError, in the
    reader's words, when it is damaged or would unpack to more than LINK_MAX_BYTES."""
    fragment = fragment.removeprefix("#")
    if not fragment.startswith(LINK_PREFIX):
        raise ValueError("This is not a link to files shared by Relayscope.")
    damaged = damaged_link("the files it carries")
    raw = inflate_link(fragment[len(LINK_PREFIX):], N.LINK_MAX_BYTES, damaged)
    line, _, rest = raw.partition(b"\n")
    try:
        head = json.loads(line.decode("utf-8"))
        names = [(str(p), int(n)) for p, n in head["files"]]
        view = {str(k): str(v) for k, v in head.get("view", {}).items()}
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise ValueError(damaged) from exc
    if sum(n for _, n in names) != len(rest) or any(n < 0 for _, n in names):
        raise ValueError(damaged)
    files: dict[str, bytes] = {}
    at = 0
    for name, n in names:
        path, why = check_path(name)
        if why is not None or path in files:
            raise ValueError(f"This link names a file Relayscope will not open ({name!r}: "
                             f"{why or 'named twice'}).")
        files[path] = rest[at:at + n]
        at += n
    return files, view
