"""An input's files (redacted) and the view, packed as one zip with its manifest."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Mapping
from typing import Any

import msgspec

from .. import __version__
from ..redact import Redactor, redact_bytes
from . import names as N  # the bounds read at each call (a test may lower them)
from .names import _WHEN, FILES, FORMAT, LEVEL, MANIFEST, VERSION, check_path

# -- writing ----------------------------------------------------------------------------------


class Shared(msgspec.Struct, frozen=True):
    """An input as it leaves: the files under their paths, the view, and what redaction replaced
    (counted by kind; None when not redacted). One value for the file, the link and the snapshot,
    so all three carry the same bytes and a secret has the same placeholder in each."""

    files: dict[str, bytes]
    view: dict[str, str]
    redacted: dict[str, Any] | None = None


def prepare(files: Mapping[str, bytes], view: Mapping[str, Any] | None = None,
            redactor: Redactor | None = None) -> Shared:
    """The files and view as they are shared: paths checked (ValueError names a path that would
    be refused on reading, or two that become one), and with a ``redactor``, secrets replaced in
    the files, in their paths (a user name in a project folder's name) and in the view's values
    (a search for a key), one redactor for all; its findings are then what a preview lists."""
    checked: list[tuple[str, bytes]] = []
    if redactor is not None:  # the first pass: a name any file shows is redacted in every file
        for data in files.values():
            redactor.discover(bytes(data))
    for name, data in files.items():
        path, why = check_path(name)
        if why is not None:
            raise ValueError(f"{name!r} cannot be shared under that name: {why}")
        checked.append((path, bytes(data) if redactor is None else redact_bytes(bytes(data), redactor)))
    out: dict[str, bytes] = {}
    for path, data in checked:  # after every file: a user name found in one is known in all paths
        path = path if redactor is None else redactor.text(path)
        if path in out:
            raise ValueError(f"two files would be shared as {path!r}")
        out[path] = data
    shown: dict[str, str] = {}
    for key, value in (view or {}).items():
        if not isinstance(key, str) or isinstance(value, bool) or not isinstance(value, str | int):
            raise ValueError(f"view {key!r}: keys and values are strings (as in the page's URL query)")
        shown[key] = str(value) if redactor is None else redactor.text(str(value))
    if len(out) > N.MAX_FILES or sum(map(len, out.values())) > N.MAX_BYTES:
        raise ValueError(f"a shareable file holds at most {N.MAX_FILES:,} files and {N.MAX_BYTES >> 20:,} MiB")
    return Shared(out, shown, None if redactor is None else _redaction(redactor))


def _redaction(redactor: Redactor) -> dict[str, Any]:
    kinds: dict[str, int] = {}
    for kind, _ in redactor.numbers:
        kinds[kind] = kinds.get(kind, 0) + 1
    return {"secrets": len(redactor.numbers), "places": redactor.count, "kinds": dict(sorted(kinds.items()))}


def _member(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, _WHEN)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16  # a plain readable file once extracted
    return info


def manifest(shared: Shared) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "generator": f"relayscope {__version__}",
        "files": [{"path": p, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for p, d in shared.files.items()],
        "view": dict(shared.view),
        "redacted": shared.redacted,
    }


def write(shared: Shared, *, level: int = LEVEL) -> bytes:
    """The shareable file of what :func:`prepare` made. The same input always gives the same bytes."""
    head = json.dumps(manifest(shared), indent=2, ensure_ascii=False) + "\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as z:
        z.writestr(_member(MANIFEST), head.encode("utf-8"), compresslevel=level)
        for path, data in shared.files.items():
            z.writestr(_member(FILES + path), data, compresslevel=level)
    return buffer.getvalue()


def pack(files: Mapping[str, bytes], view: Mapping[str, Any] | None = None,
         redactor: Redactor | None = None, *, level: int = LEVEL) -> bytes:
    """The shareable file of ``files`` ({relative path: bytes}, main file first) at ``view``,
    redacted through ``redactor`` when given: :func:`write` of :func:`prepare`."""
    return write(prepare(files, view, redactor), level=level)


