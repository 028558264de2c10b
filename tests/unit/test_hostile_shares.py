"""Shareable files and zips from anyone, read in bounded memory and time: a member that inflates
far past its declared size is stopped there (its neighbours read, also cut short and on stdin); a
compression method's own error, an offset past the file in a zip64 extra, each is ``FILE:
message`` with the intact members read; a directory a few bytes off is recovered as ``unzip``
recovers it (the local headers found by name); a manifest naming many absent files is checked in
time linear in their number. Every hostile zip is made here, byte by byte where zipfile would
refuse to write it."""

from __future__ import annotations

import io
import json
import shutil
import struct
import subprocess
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest
from _cli import main

from relayscope import sharefile as S

LINE = b'{"type":"user","sessionId":"s","message":{"role":"user","content":"hello"}}\n'


def build(members: list[tuple[str, bytes]], *, method: int = zipfile.ZIP_DEFLATED, declared: dict[str, int] | None = None,
          offsets: dict[str, int] | None = None, zip64_offset: dict[str, int] | None = None,
          raw: dict[str, bytes] | None = None) -> bytes:
    """A zip of ``members`` written by hand: ``declared`` sizes instead of the real ones (in both
    headers), ``offsets`` in the directory instead of the real ones, ``zip64_offset`` as a zip64
    extra in the directory, ``raw`` compressed bytes instead of the real ones."""
    declared, offsets, zip64_offset, raw = declared or {}, offsets or {}, zip64_offset or {}, raw or {}
    body = bytearray()
    central = bytearray()
    for name, data in members:
        n = name.encode()
        if name in raw:
            packed = raw[name]
        elif method == zipfile.ZIP_DEFLATED:
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            packed = c.compress(data) + c.flush()
        else:
            packed = data
        crc = zlib.crc32(data)
        size = declared.get(name, len(data))
        at = len(body)
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0x800, method, 0, 0x21, crc, len(packed), size, len(n), 0)
        body += n + packed
        extra = b""
        where = offsets.get(name, at)
        if name in zip64_offset:
            extra = struct.pack("<HHQ", 1, 8, zip64_offset[name])
            where = 0xFFFFFFFF
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0x800, method, 0, 0x21, crc, len(packed),
                               size, len(n), len(extra), 0, 0, 0, 0o644 << 16, where)
        central += n + extra
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(body), 0)
    return bytes(body + central + eocd)


def manifest(files: dict[str, bytes]) -> tuple[str, bytes]:
    head = S.manifest(S.Shared(files, {}))
    return S.MANIFEST, json.dumps(head).encode()


def ours(files: dict[str, bytes], **hostile: dict) -> bytes:  # type: ignore[type-arg]
    return build([manifest(files), *((S.FILES + p, d) for p, d in files.items())], **hostile)


def peak_of(fn) -> tuple[object, int]:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        got = fn()
        return got, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- a member that inflates past its declared size ----------------------------------------------

BOMB = b"\0" * (48 << 20)  # 48 MiB of zeros: about 48 KiB deflated


@pytest.mark.parametrize("cut", [False, True])
def test_a_member_inflating_far_past_its_declared_size_is_stopped_there_and_its_neighbours_read(cut: bool) -> None:
    files = {"a.jsonl": LINE, "bomb.jsonl": BOMB, "c.jsonl": LINE * 3}
    data = ours(files, declared={S.FILES + "bomb.jsonl": 100})
    if cut:
        data = data[:-40]  # no directory (a download that stopped): read from the local headers
    opened, peak = peak_of(lambda: S.unpack(data))
    assert isinstance(opened, S.Opened)
    assert opened.files["a.jsonl"] == LINE and opened.files["c.jsonl"] == LINE * 3
    assert "bomb.jsonl" not in opened.files
    said = [str(i) for i in opened.issues if i.path == "bomb.jsonl"]
    assert any("inflates past the 100 bytes its header declares" in s for s in said), opened.issues
    assert peak < 8 << 20, f"{peak:,} bytes at the peak for a member declared as 100"


def test_a_bomb_on_stdin_cut_short_costs_its_declared_size_and_the_rest_is_translated() -> None:
    files = {"a.jsonl": LINE, "bomb.jsonl": BOMB, "c.jsonl": LINE}
    data = ours(files, declared={S.FILES + "bomb.jsonl": 64})[:-30]
    (code, out, err), peak = peak_of(lambda: main("translate", "-", stdin=data))  # type: ignore[misc]
    assert code == 1 and "bomb.jsonl: damaged: it inflates past the 64 bytes" in err
    assert out.count(b"hello") == 2
    assert peak < 16 << 20


def test_a_streamed_bomb_without_sizes_is_bounded_and_the_members_after_it_are_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Members whose sizes come after them (a data descriptor): their ends are found by the
    descriptor's signature, never by inflating a bomb as far as the whole file's bound."""
    monkeypatch.setattr(S.names, "MAX_BYTES", 4 << 20)

    class Sink(io.RawIOBase):
        def __init__(self) -> None:
            self.data = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, b) -> int:  # type: ignore[no-untyped-def, override]
            self.data += b
            return len(b)

    sink = Sink()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in [("a.jsonl", LINE), ("bomb.jsonl", b"\0" * (16 << 20)), ("c.jsonl", LINE)]:
            with z.open(name, "w") as f:
                f.write(body)
    cut = bytes(sink.data)[:-30]
    opened = S.unpack(cut)
    assert opened.files["a.jsonl"] == LINE and opened.files["c.jsonl"] == LINE
    assert any(i.path == "bomb.jsonl" and "MiB" in i.message for i in opened.issues), opened.issues


# -- a compression method's own error -----------------------------------------------------------

@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_compression_methods_own_error_is_named_and_the_other_members_read(method: int) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name in ("a.jsonl", "b.jsonl", "c.jsonl"):
            z.writestr(name, LINE * 50)
    data = bytearray(buf.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.getinfo("b.jsonl")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for k in range(start + 6, start + info.compress_size - 2):  # past LZMA's properties
        data[k] ^= 0xA5
    opened = S.unpack(bytes(data))
    assert opened.files == {"a.jsonl": LINE * 50, "c.jsonl": LINE * 50}
    (said,) = [i for i in opened.issues if i.path == "b.jsonl"]
    assert "damaged" in said.message


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_bzip2_or_lzma_bomb_is_stopped_at_its_declared_size(method: int) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        z.writestr("a.jsonl", LINE)
        z.writestr("bomb.jsonl", BOMB)
    data = bytearray(buf.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        infos = z.infolist()
    cd = data.rfind(b"PK\x01\x02")  # the bomb's directory entry is the last: its size says 10
    struct.pack_into("<I", data, cd + 24, 10)
    struct.pack_into("<I", data, infos[1].header_offset + 22, 10)
    opened, peak = peak_of(lambda: S.unpack(bytes(data)))
    assert isinstance(opened, S.Opened) and opened.files == {"a.jsonl": LINE}
    assert any(i.path == "bomb.jsonl" and "inflates past the 10 bytes" in i.message for i in opened.issues)
    assert peak < 16 << 20  # LZMA's dictionary is 8 MiB (the preset zipfile writes)


def test_a_method_not_read_here_is_named() -> None:
    data = build([("a.jsonl", LINE), ("b.jsonl", LINE)], method=zipfile.ZIP_STORED)
    data = bytearray(data)
    cd = data.rfind(b"PK\x01\x02")
    struct.pack_into("<H", data, cd + 10, 93)  # zstd
    opened = S.unpack(bytes(data))
    assert opened.files == {"a.jsonl": LINE}
    assert any(i.path == "b.jsonl" and "method 93" in i.message for i in opened.issues)


# -- offsets and directories that are off -------------------------------------------------------

@pytest.mark.parametrize("offset", [2**64 - 1, 2**63, 10**12])
def test_a_zip64_offset_past_the_file_is_named_and_the_others_read(offset: int) -> None:
    data = build([("a.jsonl", LINE), ("lost.jsonl", b"only here\n"), ("c.jsonl", LINE)],
                 zip64_offset={"lost.jsonl": offset}, offsets={})
    # its local header is there, under its name: found as unzip finds it; without it, named
    opened = S.unpack(data)
    assert opened.files == {"a.jsonl": LINE, "lost.jsonl": b"only here\n", "c.jsonl": LINE}
    gone = data.replace(b"lost.jsonl", b"LOST.jsonl", 1)  # its local header under another name
    opened = S.unpack(gone)
    assert opened.files == {"a.jsonl": LINE, "c.jsonl": LINE}
    (said,) = [i for i in opened.issues if i.path == "lost.jsonl"]
    assert f"offset {offset:,}" in said.message


def _shifted(packed: bytes, junk: bytes) -> bytes:
    """``packed`` with ``junk`` inserted before its directory, which is not told."""
    cd = packed.rfind(b"PK\x05\x06")
    start = struct.unpack_from("<I", packed, cd + 16)[0]
    return packed[:start] + junk + packed[start:]


def _by_unzip(data: bytes, tmp: Path) -> dict[str, bytes] | None:
    if shutil.which("unzip") is None:
        return None
    (tmp / "z.zip").write_bytes(data)
    subprocess.run(["unzip", "-qq", "-o", str(tmp / "z.zip"), "-d", str(tmp / "out")], capture_output=True,
                   check=False, timeout=60)
    return {str(p.relative_to(tmp / "out")): p.read_bytes() for p in (tmp / "out").rglob("*") if p.is_file()}


@pytest.mark.parametrize("junk", [b"x", b"\0\0\0", b"12345678"])
def test_a_directory_a_few_bytes_off_is_recovered_as_unzip_recovers_it(junk: bytes, tmp_path: Path) -> None:
    files = {"a.jsonl": LINE, "sub/b.jsonl": LINE * 2, "c.jsonl": LINE * 3}
    packed = S.pack(files)
    data = _shifted(packed, junk)
    with zipfile.ZipFile(io.BytesIO(data)) as z, pytest.raises(zipfile.BadZipFile):
        z.read(z.infolist()[0])  # zipfile gives up on every member
    opened = S.unpack(data)
    assert opened.files == files
    assert any("off" in i.message for i in opened.issues), opened.issues
    unzipped = _by_unzip(data, tmp_path)
    if unzipped is not None:
        assert {p.removeprefix(S.FILES): d for p, d in unzipped.items() if p != S.MANIFEST} == opened.files


def test_a_cut_zip_with_bytes_between_members_is_read_past_them() -> None:
    files = {"a.jsonl": LINE, "b.jsonl": LINE * 2}
    packed = S.pack(files)
    second = packed.find(b"PK\x03\x04", packed.find(b"PK\x03\x04", 4) + 4)  # the manifest, a.jsonl, then b
    data = packed[:second] + b"garbage!" + packed[second:]
    opened = S.unpack(data[:data.find(b"PK\x01\x02")])  # cut before its directory
    assert opened.files == files
    assert any("8 bytes between its files" in i.message for i in opened.issues)


# -- the manifest's checks ----------------------------------------------------------------------

def test_a_manifest_naming_many_absent_files_is_checked_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: how often the issues are looked through, against what they hold."""
    present = {f"p{k}.jsonl": LINE for k in range(300)}
    absent = {f"gone/{k}.jsonl": LINE for k in range(3000)}
    head = S.manifest(S.Shared({**present, **absent}, {}))
    data = build([(S.MANIFEST, json.dumps(head).encode()), *((S.FILES + p, d) for p, d in present.items())])
    looks = [0]

    class Counted(list):  # type: ignore[type-arg]
        def __iter__(self):  # type: ignore[no-untyped-def]
            for item in super().__iter__():
                looks[0] += 1
                yield item

    real = S.Opened

    def opened() -> S.Opened:
        o = real()
        o.issues = Counted()
        return o
    monkeypatch.setattr(S.reading, "Opened", opened)
    got = S.unpack(data)
    assert got.files == present and got.missing == list(absent)
    assert looks[0] <= 4 * (len(present) + len(absent)), f"{looks[0]:,} looks at the issues"
