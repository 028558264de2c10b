"""No command writes over a file it reads, whatever ``-o`` names: a transcript inside the folder
being read, the same file by a link or another spelling; refused with a usage error naming the
file, before anything is written. ``redact -o DIR`` of files that cannot all be written (a file and
a folder of the same name in a shareable file) writes the others and names the one it could not."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from _cli import main

from relayscope import sharefile as S


def _session(folder: Path) -> tuple[Path, bytes]:
    folder.mkdir(parents=True, exist_ok=True)
    data = (json.dumps({"type": "user", "sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z", "uuid": "u1",
                        "message": {"role": "user", "content": "hello"}}) + "\n").encode()
    path = folder / "s1.jsonl"
    path.write_bytes(data)
    (folder / "s2.jsonl").write_bytes(data.replace(b"s1", b"s2"))
    return path, data


@pytest.mark.parametrize("command", [["pack"], ["html"], ["html", "--redact"], ["pack", "--redact"]])
def test_a_transcript_inside_the_folder_read_is_never_written_over(tmp_path: Path, command: list[str]) -> None:
    path, data = _session(tmp_path / "proj")
    code, _, err = main(*command, str(tmp_path / "proj"), "-o", str(path))
    assert code == 2, err
    assert "would write over" in err and "s1.jsonl" in err
    assert path.read_bytes() == data


def test_the_same_file_by_a_link_or_another_spelling_is_refused(tmp_path: Path) -> None:
    path, data = _session(tmp_path / "proj")
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    hard = tmp_path / "hard.jsonl"
    os.link(path, hard)
    for target in (link, hard, tmp_path / "proj" / "." / "s1.jsonl"):
        for command in (["pack"], ["html"]):
            code, _, err = main(*command, str(tmp_path / "proj"), "-o", str(target))
            assert code == 2 and "would write over" in err, (command, target, err)
        code, _, err = main("html", str(path), "-o", str(target))
        assert code == 2 and "would write over" in err
    assert path.read_bytes() == data


def test_a_new_file_in_the_folder_read_is_written(tmp_path: Path) -> None:
    _session(tmp_path / "proj")
    out = tmp_path / "proj" / "out.relayscope.zip"
    code, _, err = main("pack", str(tmp_path / "proj"), "-o", str(out))
    assert code == 0, err
    assert set(S.unpack(out.read_bytes()).files) == {"s1.jsonl", "s2.jsonl"}


def test_redact_into_the_folder_read_refuses_before_writing_anything(tmp_path: Path) -> None:
    path, data = _session(tmp_path / "proj")
    other = tmp_path / "proj" / "s2.jsonl"
    before = other.read_bytes()
    code, _, err = main("redact", str(tmp_path / "proj"), "-o", str(tmp_path / "proj"))
    assert code == 2 and "would write over" in err
    assert path.read_bytes() == data and other.read_bytes() == before


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


def test_redact_o_dir_of_a_file_and_a_folder_of_one_name_writes_the_rest_and_names_it(tmp_path: Path) -> None:
    line = b'{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}\n'
    share = tmp_path / "in.relayscope.zip"
    share.write_bytes(_zip([("a.jsonl", line), ("a.jsonl/b.jsonl", line), ("c.jsonl", line)]))
    out = tmp_path / "out"
    code, _, err = main("redact", str(share), "-o", str(out))
    assert code == 1, err
    assert "a.jsonl/b.jsonl: not written" in err and "Traceback" not in err
    assert (out / "c.jsonl").read_bytes() == line and (out / "a.jsonl").read_bytes() == line
    # the other order: the folder's file first, then the file of the folder's name
    share.write_bytes(_zip([("a.jsonl/b.jsonl", line), ("a.jsonl", line), ("c.jsonl", line)]))
    code, _, err = main("redact", str(share), "-o", str(tmp_path / "out2"))
    assert code == 1 and "a.jsonl: not written" in err and "a folder of the input has this name" in err
    assert (tmp_path / "out2" / "c.jsonl").read_bytes() == line
