"""``pack``, ``html`` and the shareable-file reader with hostile input (property tests;
deterministic in ``make test``, randomized in ``make fuzz``): any stream ``_gen`` makes packs and
renders without failing inside (exit 0 or 1), the shareable file packed reads back whole; any
shareable file with bytes changed, cut, inserted or its sizes and offsets rewritten reads without
raising, keeps no file it did not hold, and ``translate`` of it exits 0 or 1."""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path

import _gen
from _cli import main
from hypothesis import given, settings
from hypothesis import strategies as st

from relayscope import sharefile as S

EXAMPLES = settings().max_examples // 4 if settings().derandomize else settings().max_examples
LINE = b'{"type":"user","sessionId":"s","message":{"role":"user","content":"hello"}}\n'


@settings(max_examples=EXAMPLES)
@given(_gen.streams(), st.booleans())
def test_pack_and_html_survive_any_stream(lines: list[bytes], redact: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "proj"
        folder.mkdir()
        (folder / "s.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        flags = ["--redact"] if redact else []
        out = Path(tmp) / "out.relayscope.zip"
        code, _, err = main("pack", *flags, str(folder), "-o", str(out))
        assert code in (0, 1) and "Traceback" not in err and "internal error" not in err, err
        opened = S.unpack(out.read_bytes())
        assert not [i for i in opened.issues if i.path is not None or "version" in i.message], opened.issues
        if not redact:
            assert opened.files == {"s.jsonl": (folder / "s.jsonl").read_bytes()}
        for source in (folder, out):
            code, page, err = main("html", *flags, str(source))
            assert code in (0, 1) and "Traceback" not in err and "internal error" not in err, err
            assert page.startswith(b"<!DOCTYPE html>") or page.lower().startswith(b"<!doctype html>")
        code, _, err = main("pack", str(folder), "-o", str(folder / "s.jsonl"))
        assert code == 2 and "would write over" in err


def _packed() -> bytes:
    return S.pack({"a.jsonl": LINE, "sub/b.jsonl": LINE * 40, "c.jsonl": LINE * 3})


@st.composite
def damaged_shares(draw: st.DrawFn) -> bytes:
    data = bytearray(_packed())
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "cut", "insert", "size", "offset", "method"]))
        if kind == "flip" and data:
            at = draw(st.integers(0, len(data) - 1))
            data[at] ^= draw(st.integers(1, 255))
        elif kind == "cut":
            del data[draw(st.integers(0, len(data))):]
        elif kind == "insert":
            at = draw(st.integers(0, len(data)))
            data[at:at] = draw(st.binary(min_size=1, max_size=12))
        else:
            heads = [k for k in range(len(data) - 46) if data[k:k + 4] in (b"PK\x01\x02", b"PK\x03\x04")]
            if not heads:
                continue
            at = draw(st.sampled_from(heads))
            central = data[at:at + 4] == b"PK\x01\x02"
            field = {"size": 24 if central else 22, "offset": 42 if central else 14,
                     "method": 10 if central else 8}[kind]
            if kind == "method":
                struct.pack_into("<H", data, at + field, draw(st.sampled_from([0, 8, 12, 14, 9, 93, 99])))
            else:
                struct.pack_into("<I", data, at + field, draw(st.sampled_from([0, 1, 100, 2**31, 2**32 - 1])))
    return bytes(data)


@settings(max_examples=EXAMPLES * 4)
@given(damaged_shares())
def test_the_shareable_file_reader_survives_any_damage(data: bytes) -> None:
    opened = S.unpack(data)
    whole = {"a.jsonl": LINE, "sub/b.jsonl": LINE * 40, "c.jsonl": LINE * 3}
    for path, content in opened.files.items():
        assert path in whole or any(i.path == path for i in opened.issues) or opened.version is None, path
        assert len(content) <= S.MAX_BYTES
    if opened.files != whole or opened.missing:
        assert opened.issues  # whatever is lost is said
    code, _, err = main("translate", "-", stdin=data)
    assert code in (0, 1, 2) and "Traceback" not in err and "internal error" not in err, err
