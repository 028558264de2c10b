"""A zip read by hand within bounds: its members found (central directory, else local headers) and inflated."""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from collections.abc import Iterator
from typing import Any, Final

import msgspec

try:  # bzip2 and LZMA members of zips made by other tools; a Python may lack either (Pyodide's lzma is apart)
    import bz2
except ImportError:  # pragma: no cover - CPython has it
    bz2 = None  # type: ignore[assignment]
try:
    import lzma
except ImportError:  # pragma: no cover - CPython has it
    lzma = None  # type: ignore[assignment]

from . import names as N  # the bounds read at each call (a test may lower them)
from .names import (
    _CHUNK,
    _LOCAL,
    FORMAT,
    MANIFEST,
    MAX_MANIFEST,
    VERSION,
    Issue,
    Opened,
)

# -- reading ----------------------------------------------------------------------------------

_LZMA_ERROR: Final[type[Exception]] = lzma.LZMAError if lzma is not None else ValueError


class _Broken(Exception):
    """A member that cannot be read, in the reader's words."""


_METHOD_NAMES: Final = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "DEFLATE", zipfile.ZIP_BZIP2: "bzip2",
                        zipfile.ZIP_LZMA: "LZMA"}
_SIG_LOCAL: Final = b"PK\x03\x04"
_SIG_CENTRAL: Final = b"PK\x01\x02"
_SIG_DESCRIPTOR: Final = b"PK\x07\x08"


class _Entry(msgspec.Struct):
    """A member: where its compressed bytes are and what its headers declare of it."""

    name: str
    size: int | None  # as the zip declares it (None: a data descriptor we could not find says it)
    method: int
    start: int  # its compressed bytes: data[start:stop]
    stop: int
    crc: int | None  # as declared (None: not known)
    flags: int = 0
    cut: bool = False  # the zip ends inside it: what it gives is its start
    broken: str | None = None  # why it cannot be read at all (its header is not where it is said to be)
    moved: int = 0  # bytes from where the directory says its header is to where it was found

    def read(self, data: bytes, n: int) -> bytes:
        """Its bytes, at most ``n`` of them (and at most its declared size: a member that inflates
        past it is damaged, and is stopped there, never inflated on); _Broken when it cannot be read."""
        if self.broken is not None:
            raise _Broken(self.broken)
        if self.flags & 1:
            raise _Broken("encrypted; a shareable file is never encrypted")
        limit = n if self.size is None else min(n, self.size)
        got, ended = _expand(self.method, memoryview(data)[self.start:self.stop], limit)
        if self.size is not None and len(got) > self.size:
            raise _Broken(f"damaged: it inflates past the {self.size:,} bytes its header declares (stopped there)")
        if len(got) > limit or self.cut:
            return got  # the caller's bound, or the start of a member cut short
        if not ended:
            raise _Broken("damaged: its compressed data ends before its stream does")
        if self.size is not None and len(got) != self.size:
            raise _Broken(f"damaged: it inflates to {len(got):,} bytes, its header declares {self.size:,}")
        if self.crc is not None and zlib.crc32(got) != self.crc:
            raise _Broken("damaged: its CRC-32 does not match")
        return got


def _expand(method: int, body: memoryview, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` + 1 bytes of a member's data inflated (in pieces of :data:`_CHUNK`, each
    inflated to at most what is left of the limit: a bomb never inflates past it), and whether its
    stream ended. _Broken names a compression method's own error."""
    if method == zipfile.ZIP_STORED:
        return bytes(body[:limit + 1]), True
    if method == zipfile.ZIP_DEFLATED:
        _, _, inflated, ended = _inflate(body, 0, len(body), limit, keep=True, strict=True)
        return inflated, ended
    d = _decompressor(method, body)
    if isinstance(d, tuple):
        d, body = d
    out: list[bytes] = []
    got = 0
    pos = 0
    try:
        while not d.eof and got <= limit:
            piece = b""
            if d.needs_input:
                if pos >= len(body):
                    break
                piece = bytes(body[pos:pos + _CHUNK])
                pos += len(piece)
            part = d.decompress(piece, limit + 1 - got)
            if not part and not piece:
                break
            out.append(part)
            got += len(part)
    except (OSError, EOFError, ValueError, _LZMA_ERROR) as exc:
        raise _Broken(f"damaged ({_METHOD_NAMES[method]}: {exc})") from exc
    return b"".join(out), d.eof


def _decompressor(method: int, body: memoryview) -> Any:
    """A bounded decompressor (``decompress(data, max_length)``) of a bzip2 or LZMA member, and
    for LZMA the body after its properties; _Broken for any other method."""
    name = _METHOD_NAMES.get(method)
    try:
        if method == zipfile.ZIP_BZIP2:
            if bz2 is None:
                raise ImportError("bz2")
            return bz2.BZ2Decompressor()
        if method == zipfile.ZIP_LZMA:
            if lzma is None:
                raise ImportError("lzma")
            if len(body) < 4:
                raise _Broken("damaged (LZMA: its properties are cut short)")
            (psize,) = struct.unpack_from("<H", body, 2)
            props = bytes(body[4:4 + psize])
            if len(props) < 5:
                raise _Broken("damaged (LZMA: its properties are cut short)")
            d, (dict_size,) = props[0], struct.unpack_from("<I", props, 1)
            if d >= 9 * 5 * 5:
                raise _Broken("damaged (LZMA: its properties are not LZMA's)")
            lz = {"id": lzma.FILTER_LZMA1, "lc": d % 9, "lp": d // 9 % 5, "pb": d // 45, "dict_size": dict_size}
            return lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[lz]), body[4 + psize:]
    except ImportError as exc:
        raise _Broken(f"compressed with {name}, which this Python cannot read") from exc
    except (ValueError, _LZMA_ERROR) as exc:
        raise _Broken(f"damaged ({name}: {exc})") from exc
    raise _Broken(f"compressed with method {method}, which Relayscope does not read (a shareable file uses "
                  "DEFLATE)")


def _local_data(data: bytes, at: int, name: bytes | None) -> int | None:
    """Where the data of the local header at ``at`` starts, when one is there (named ``name``
    when given)."""
    if not 0 <= at <= len(data) - _LOCAL.size or not data.startswith(_SIG_LOCAL, at):
        return None
    nlen, xlen = struct.unpack_from("<HH", data, at + 26)
    if name is not None and data[at + 30:at + 30 + nlen] != name:
        return None
    return int(at + 30 + nlen + xlen)


def _locals(data: bytes) -> dict[bytes, list[int]]:
    """Every local header in ``data`` by name: where a member is when the directory is off (as
    ``unzip`` looks for it: "attempting to re-compensate")."""
    found: dict[bytes, list[int]] = {}
    at = data.find(_SIG_LOCAL)
    while at >= 0:
        if at + _LOCAL.size <= len(data):
            nlen = struct.unpack_from("<H", data, at + 26)[0]
            found.setdefault(data[at + 30:at + 30 + nlen], []).append(at)
        at = data.find(_SIG_LOCAL, at + 4)
    return found


def _central(data: bytes) -> list[_Entry]:
    """The members as the central directory lists them (an exception when it cannot be read),
    each found at its local header: where the directory says, else the local header of its name
    nearest to that (a directory a few bytes off, as ``unzip`` recovers it)."""
    z = zipfile.ZipFile(io.BytesIO(data))
    index: dict[bytes, list[int]] | None = None
    out: list[_Entry] = []
    for info in z.infolist():
        raw = info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437", "replace")
        start = _local_data(data, info.header_offset, raw)
        if start is None:
            index = _locals(data) if index is None else index
            near = sorted(index.get(raw, []), key=lambda at: abs(at - info.header_offset))
            found = next(((at, s) for at in near if (s := _local_data(data, at, raw)) is not None), None)
            start = found[1] if found is not None else None
            moved = found[0] - info.header_offset if found is not None else 0
        else:
            moved = 0
        entry = _Entry(info.filename, info.file_size, info.compress_type, 0, 0, info.CRC, info.flag_bits,
                       moved=moved)
        if start is None:
            entry.broken = (f"not where the zip's directory says (offset {info.header_offset:,}, past the end or no "
                            "member there), and no member of its name is elsewhere")
        else:
            entry.start, entry.stop = start, start + info.compress_size
            entry.cut = entry.stop > len(data)
        out.append(entry)
    return out


def _scan(data: bytes, out: Opened) -> Iterator[_Entry]:
    """The members of a zip whose directory cannot be read (cut short), from their local headers,
    in order: bytes between members that are none are skipped (said once); a member whose sizes
    come after its data (a data descriptor) ends where that descriptor is, else (no descriptor
    signature, DEFLATE) where its stream ends, found by inflating within the bound."""
    at = 0
    inflated = 0  # by the look for ends: bounded as reading is
    skipped = 0
    while at + _LOCAL.size <= len(data):
        if not data.startswith(_SIG_LOCAL, at):
            if data.startswith(_SIG_CENTRAL, at):
                break
            nxt = data.find(_SIG_LOCAL, at + 1)
            if nxt < 0:
                break
            skipped += nxt - at
            at = nxt
            continue
        _, _, flags, method, _, _, crc, csize, usize, nlen, xlen = _LOCAL.unpack_from(data, at)
        start = at + _LOCAL.size + nlen + xlen
        name = data[at + _LOCAL.size:at + _LOCAL.size + nlen].decode("utf-8" if flags & 0x800 else "cp437", "replace")
        if start > len(data):
            break  # cut inside a header
        size: int | None = usize
        if not flags & 8:
            stop = next_at = start + csize
        else:
            found = _descriptor_at(data, start)
            if found is not None:
                stop, crc, size, next_at = found
            elif method == zipfile.ZIP_DEFLATED and not flags & 1:
                stop, got, _, ended = _inflate(memoryview(data), start, len(data), N.MAX_BYTES - inflated, keep=False)
                inflated += got
                crc, size = None, None if not ended else got
                next_at = stop + (16 if data.startswith(_SIG_DESCRIPTOR, stop) else 12)
            else:
                break  # its end cannot be found
        yield _Entry(name, size, method, start, min(stop, len(data)), crc, flags, cut=stop > len(data))
        at = next_at
    if skipped:
        out.issues.append(Issue(None, f"{skipped:,} bytes between its files belong to none of them; skipped"))


def _descriptor_at(data: bytes, start: int) -> tuple[int, int, int, int] | None:
    """The first signed data descriptor after ``start`` whose compressed size is the distance
    from ``start``: (where the data stops, its CRC, its size, where the next header is)."""
    at = data.find(_SIG_DESCRIPTOR, start)
    while at >= 0:
        if at + 16 <= len(data):
            crc, csize, usize = struct.unpack_from("<III", data, at + 4)
            if csize == at - start:
                return at, crc, usize, at + 16
        if at + 24 <= len(data):
            crc, csize64, usize64 = struct.unpack_from("<IQQ", data, at + 4)
            if csize64 == at - start:
                return at, crc, usize64, at + 24
        at = data.find(_SIG_DESCRIPTOR, at + 4)
    return None


def _inflate(data: bytes | memoryview, start: int, stop: int, limit: int, keep: bool,
             strict: bool = False) -> tuple[int, int, bytes, bool]:
    """The raw DEFLATE stream in ``data[start:stop]``: where it ends (``stop`` when it does not),
    how many bytes it gives (at most ``limit`` + 1: a bomb is cut there), with ``keep`` those
    bytes, and whether the stream ended. ``strict``: a stream zlib cannot inflate is _Broken."""
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
    except zlib.error as exc:
        if strict:
            raise _Broken(f"damaged (DEFLATE: {exc})") from exc
        return stop, got, b"".join(out), False
    return (at - len(d.unused_data) if d.eof else stop), got, b"".join(out), d.eof


def _entries(data: bytes, out: Opened) -> list[_Entry]:
    try:
        entries = _central(data)
        moved = sorted({e.moved for e in entries if e.moved})
        if moved:
            by = ", ".join(f"{m:+,}" for m in moved[:3]) + (" ..." if len(moved) > 3 else "")
            out.issues.append(Issue(None, f"the zip's directory is off from its files (by {by} bytes): "
                                          f"{sum(1 for e in entries if e.moved)} of them were found by their names, "
                                          "as unzip finds them"))
        return entries
    except Exception as exc:  # zipfile's many ways to refuse a directory: the members are read from theirs
        found = list(_scan(data, out))
        if not found:
            out.issues.append(Issue(None, f"not a readable zip file ({exc}): nothing in it could be read"))
        else:
            out.issues.append(Issue(None, "the zip's directory is missing (was the file cut short?): "
                                          "its files were read from where each one starts"))
        return found


def _manifest(data: bytes, entry: _Entry, out: Opened) -> dict[str, Any]:
    """The manifest, checked (empty, with an issue saying why, when it cannot be read)."""
    try:
        head = json.loads(entry.read(data, MAX_MANIFEST + 1).decode("utf-8"))
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


