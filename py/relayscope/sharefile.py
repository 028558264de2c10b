"""sharefile: an input as one file anyone can pass on, and as a link's fragment.

A shareable file holds every file of an input (a session's main transcript, its sub-agent files
and their meta files, under their paths relative to one another, so the session's folder layout
survives), redacted when asked, compressed, with the view it was shared at. It is a plain zip
(DEFLATE), so any zip tool lists and extracts it; docs/share-format.md describes it:

* ``relayscope.json`` (the first member): the manifest. ``format`` (``relayscope-share``),
  ``version`` (:data:`VERSION`), ``generator``, ``files`` (each one's ``path``, ``size`` and
  ``sha256``), ``view`` (the page's URL query as an object of strings: strategy, step, row,
  filters; open, so keys this version does not know travel on), ``redacted`` (what was replaced,
  counted by kind; null when the input was not redacted).
* ``files/<path>``: each file's bytes.

Reading (:func:`unpack`) never raises on bad bytes and loses nothing it can keep: a member that
cannot be read, a hash that does not match, a file cut short, a name that would climb out of a
folder, a zip that is not ours, a zip that would unpack to more than :data:`MAX_BYTES`, each
becomes an :class:`Issue`, and every file that can be read is returned. A zip cut short (a
download that stopped) has no central directory: its members are read from their local headers,
in order, up to where the bytes end.

A link (:func:`encode_link`, :func:`decode_link`) carries the same files and view in its
fragment (``#v2.<base64url of the deflated payload>``) when that fits :data:`LINK_LIMIT`
characters; the fragment never reaches a server.

Pure: no I/O (the CLI's ``inputs`` and the page's worker pass bytes). Must not: import the web
layer, or write a name it would refuse to read.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

import msgspec

from . import __version__
from .redact import Redactor, redact_bytes

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
    if len(out) > MAX_FILES or sum(map(len, out.values())) > MAX_BYTES:
        raise ValueError(f"a shareable file holds at most {MAX_FILES:,} files and {MAX_BYTES >> 20:,} MiB")
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


# -- reading ----------------------------------------------------------------------------------


class _Broken(Exception):
    """A member that cannot be read, in the reader's words."""


class _Entry(msgspec.Struct):
    name: str
    size: int  # as the zip declares it
    read: Callable[[int], bytes]  # up to n bytes of it; raises _Broken
    cut: bool = False  # the zip ends inside it: what read gives is its start


def _central(data: bytes) -> list[_Entry]:
    """The members as the central directory lists them (zipfile.BadZipFile when there is none)."""
    z = zipfile.ZipFile(io.BytesIO(data))

    def reader(info: zipfile.ZipInfo) -> Callable[[int], bytes]:
        def read(n: int) -> bytes:
            if info.flag_bits & 1:
                raise _Broken("encrypted; a shareable file is never encrypted")
            try:
                with z.open(info) as f:
                    got = f.read(n)
                    if len(got) == info.file_size:
                        f.read(1)  # at the end: zipfile checks the CRC
                    return got
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
                raise _Broken(f"damaged ({exc})") from exc
            except (NotImplementedError, RuntimeError) as exc:
                raise _Broken(f"cannot be read here ({exc})") from exc
        return read

    return [_Entry(i.filename, i.file_size, reader(i)) for i in z.infolist()]


def _scan(data: bytes) -> Iterator[_Entry]:
    """The members of a zip with no central directory (cut short), from their local headers, in
    order, until the bytes end or stop making sense. Each is inflated only when read; a member
    whose sizes come after its data (a data descriptor) is inflated once, to find its end."""
    at = 0
    inflated = 0  # by the look for ends: bounded as reading is
    while data.startswith(b"PK\x03\x04", at) and at + _LOCAL.size <= len(data):
        _, _, flags, method, _, _, _, csize, usize, nlen, xlen = _LOCAL.unpack_from(data, at)
        start = at + _LOCAL.size + nlen + xlen
        name = data[at + _LOCAL.size:at + _LOCAL.size + nlen].decode("utf-8" if flags & 0x800 else "cp437", "replace")
        if start > len(data) or flags & 1 or method not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            return  # cut inside a header; encrypted; a method this reader has not
        if not flags & 8:
            stop = start + csize
        elif method == zipfile.ZIP_DEFLATED:
            stop, size, _, _ = _inflate(data, start, len(data), MAX_BYTES - inflated, keep=False)
            inflated += size
            stop += _descriptor(data, stop)
        else:
            return  # stored, its size only after it: its end cannot be found
        cut = stop > len(data)
        yield _Entry(name, usize, _reader(data, start, min(stop, len(data)), method, cut), cut=cut)
        at = stop


def _reader(data: bytes, start: int, stop: int, method: int, cut: bool) -> Callable[[int], bytes]:
    def read(n: int) -> bytes:
        if method == zipfile.ZIP_STORED:
            return data[start:min(stop, start + n)]
        _, got, body, ended = _inflate(data, start, stop, n, keep=True)
        if not ended and not cut and got <= n:
            raise _Broken("damaged (its compressed data does not inflate)")
        return body
    return read


def _inflate(data: bytes, start: int, stop: int, limit: int, keep: bool) -> tuple[int, int, bytes, bool]:
    """The raw DEFLATE stream in ``data[start:stop]``: where it ends (``stop`` when it does not),
    how many bytes it gives (at most ``limit`` + 1: a bomb is cut there), with ``keep`` those
    bytes, and whether the stream ended."""
    d = zlib.decompressobj(-15)
    out: list[bytes] = []
    got = 0
    at = start
    view = memoryview(data)
    try:
        while not d.eof and at < stop and got <= limit:
            piece = view[at:min(at + _CHUNK, stop)]
            at += len(piece)
            part = d.decompress(piece, limit + 1 - got)
            while True:
                got += len(part)
                if keep:
                    out.append(part)
                if not d.unconsumed_tail or got > limit:
                    break
                part = d.decompress(d.unconsumed_tail, limit + 1 - got)
    except zlib.error:
        return stop, got, b"".join(out), False
    return (at - len(d.unused_data) if d.eof else stop), got, b"".join(out), d.eof


def _descriptor(data: bytes, at: int) -> int:
    """The length of the data descriptor at ``at`` (with or without its signature)."""
    return 16 if data.startswith(b"PK\x07\x08", at) else 12


def _entries(data: bytes, out: Opened) -> list[_Entry]:
    try:
        return _central(data)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        found = list(_scan(data))
        if not found:
            out.issues.append(Issue(None, f"not a readable zip file ({exc}): nothing in it could be read"))
        else:
            out.issues.append(Issue(None, "the zip's directory is missing (was the file cut short?): "
                                          "its files were read from where each one starts"))
        return found


def _manifest(entry: _Entry, out: Opened) -> dict[str, Any]:
    """The manifest, checked (empty, with an issue saying why, when it cannot be read)."""
    try:
        head = json.loads(entry.read(MAX_MANIFEST + 1).decode("utf-8"))
    except (_Broken, ValueError, RecursionError) as exc:
        why = exc if isinstance(exc, _Broken) else "cut short" if entry.cut else "not readable JSON"
        out.issues.append(Issue(MANIFEST, f"the manifest is {why}: the files were read unchecked, the view is lost"))
        return {}
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        out.issues.append(Issue(MANIFEST, f"not a Relayscope manifest (its format is not {FORMAT!r}): the files "
                                          "were read unchecked"))
        return {}
    version = head.get("version")
    out.version = version if isinstance(version, int) and not isinstance(version, bool) else 0
    if out.version != VERSION:
        out.issues.append(Issue(None, f"format version {version!r}: this Relayscope reads version {VERSION}; "
                                      "the files were read as version 1 lays them out"))
    view = head.get("view")
    if isinstance(view, dict):
        out.view = {k: str(v) for k, v in view.items() if isinstance(v, str | int) and not isinstance(v, bool)}
        if len(out.view) < len(view):
            out.issues.append(Issue(MANIFEST, "view values that are not strings were left out"))
    redacted = head.get("redacted")
    out.redacted = redacted if isinstance(redacted, dict) else None
    return head


def _listed(head: dict[str, Any], out: Opened) -> dict[str, tuple[int, str]]:
    """The manifest's files: path -> (size, sha256)."""
    listed: dict[str, tuple[int, str]] = {}
    files = head.get("files")
    for k, item in enumerate(files if isinstance(files, list) else []):
        ok = isinstance(item, dict) and isinstance(item.get("path"), str)
        size, sha = (item.get("size"), item.get("sha256")) if ok else (None, None)
        if not ok or not isinstance(size, int) or not isinstance(sha, str):
            out.issues.append(Issue(MANIFEST, f"file entry {k + 1} of the manifest is not readable"))
            continue
        listed[item["path"]] = (size, sha.lower())
    return listed


def unpack(data: bytes) -> Opened:
    """Every file a shareable file holds that can be read, its view, and what was wrong (see the
    module doc). A zip made by another tool (no manifest) gives its transcripts
    (``.jsonl``, ``.ndjson``, ``.meta.json``) at their own paths, unchecked, with an issue saying so."""
    out = Opened()
    if not is_sharefile(data[:4]):
        out.issues.append(Issue(None, "not a zip file, so not a shareable file (those start with PK)"))
        return out
    entries = _entries(data, out)
    entry = next((e for e in entries if e.name == MANIFEST), None)
    listed = _listed(_manifest(entry, out), out) if entry is not None else {}
    if entry is None:
        members = [(e, e.name) for e in entries if e.name.lower().endswith(TRANSCRIPTS)]
        if entries:
            out.issues.append(Issue(None, f"a zip made by another tool (it has no {MANIFEST}): "
                                          + (f"its {len(members)} transcript file(s) were read unchecked" if members
                                             else "it holds no transcript (.jsonl) to read")))
    else:
        members = [(e, e.name[len(FILES):]) for e in entries if e.name.startswith(FILES) and not e.name.endswith("/")]
    _read_members(members, listed, out)
    return out


def _read_members(members: list[tuple[_Entry, str]], listed: Mapping[str, tuple[int, str]], out: Opened) -> None:
    budget = MAX_BYTES
    for entry, name in members:
        path, why = check_path(name)
        if why is not None:
            out.issues.append(Issue(name, f"skipped: {why}"))
            continue
        if path in out.files:
            out.issues.append(Issue(path, "a second file under the same name; skipped"))
            continue
        if len(out.files) >= MAX_FILES:
            out.issues.append(Issue(None, f"more than {MAX_FILES:,} files: the rest were not read"))
            break
        if entry.size > budget:
            out.issues.append(Issue(path, f"would unpack to more than the {MAX_BYTES >> 20:,} MiB a shareable file "
                                          "may hold; skipped"))
            continue
        try:
            content = entry.read(budget + 1)
        except _Broken as exc:
            out.issues.append(Issue(path, f"{exc}; skipped"))
            continue
        if len(content) > budget:
            out.issues.append(Issue(path, f"unpacks to more than the {MAX_BYTES >> 20:,} MiB a shareable file may "
                                          "hold; skipped"))
            continue
        if entry.cut:
            content = content[:content.rfind(b"\n") + 1]  # its complete lines
            out.issues.append(Issue(path, f"cut short: its first {len(content):,} bytes (complete lines) were read"))
            if not content:
                continue
        budget -= len(content)
        out.files[path] = content
        _check(path, content, listed, entry.cut, out)
    for path in listed:
        if path not in out.files:
            out.issues.append(Issue(path, "listed in the manifest but not in the file"))
    out.missing = [p for p in listed if p not in out.files or any(i.path == p and "cut short" in i.message
                                                                 for i in out.issues)]


def _check(path: str, content: bytes, listed: Mapping[str, tuple[int, str]], cut: bool, out: Opened) -> None:
    if not listed:
        return
    if path not in listed:
        out.issues.append(Issue(path, "not listed in the manifest; read anyway"))
    elif not cut and (len(content), hashlib.sha256(content).hexdigest()) != listed[path]:
        out.issues.append(Issue(path, "its size or SHA-256 is not the manifest's (changed after it was packed?); "
                                      "read as it is"))


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
    raw = inflate_link(fragment[len(LINK_PREFIX):], LINK_MAX_BYTES, damaged)
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
