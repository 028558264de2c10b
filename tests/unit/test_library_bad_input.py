"""Bad input to the library: every file listed, or named once as skipped with its reason; nothing
merged, nothing silently dropped."""

from __future__ import annotations

import json
import os
import shutil
import tracemalloc
from pathlib import Path

from _cli import main
from _corpus import ROOT

from relayscope import library as L

LIBRARY = ROOT / "tests" / "fixtures" / "library" / "projects"
SPOTTER = LIBRARY / "-home-marco-projects-spotter"
SHORT = "55604662-cf2a-4331-851a-ec234028f8ca"
TELECOM = LIBRARY / "-Users-dumitruvulpe-uw-telecom-mobile"
BIG = "230240ea-0a87-449e-afca-cff76f0fdc8a"


def _run(*paths: Path, full: bool = False) -> tuple[int, list[dict[str, object]], list[str]]:
    code, out, err = main("sessions", "--json", *(["--full"] if full else []), *map(str, paths))
    return code, [json.loads(line) for line in out.splitlines()], err.splitlines()


def _skipped(err: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in err:
        assert line.startswith("relayscope: ")
        path, _, reason = line[len("relayscope: "):].partition(": ")
        assert path not in out, f"{path} named twice"
        out[path] = reason
    return out


def test_unreadable_binary_and_empty_files_are_each_named_once(tmp_path: Path) -> None:
    shutil.copy(SPOTTER / f"{SHORT}.jsonl", tmp_path / f"{SHORT}.jsonl")
    (tmp_path / "binary.jsonl").write_bytes(b"\x00\x01\x02PNG\x00" * 100)
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "blank.jsonl").write_bytes(b"\n\n   \n")
    (tmp_path / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    os.mkfifo(tmp_path / "pipe.jsonl")
    (tmp_path / "notes.md").write_text("# not a transcript")
    code, rows, err = _run(tmp_path)
    assert [r["session"] for r in rows] == [SHORT]
    said = _skipped(err)
    assert set(said) == {str(tmp_path / n) for n in ("binary.jsonl", "empty.jsonl", "blank.jsonl", "gone.jsonl",
                                                   "pipe.jsonl", "notes.md")}
    assert "binary" in said[str(tmp_path / "binary.jsonl")]
    assert "empty" in said[str(tmp_path / "empty.jsonl")]
    assert "no JSON record" in said[str(tmp_path / "blank.jsonl")]
    assert "No such file" in said[str(tmp_path / "gone.jsonl")]
    assert "FIFO" in said[str(tmp_path / "pipe.jsonl")]
    assert "not a transcript by its name" in said[str(tmp_path / "notes.md")]
    assert code == 1  # files that should have been read were not


def test_a_subagents_folder_without_its_main_file_is_a_session_of_its_own(tmp_path: Path) -> None:
    shutil.copytree(TELECOM / BIG, tmp_path / "proj" / BIG)  # no BIG.jsonl beside it
    shutil.copy(SPOTTER / f"{SHORT}.jsonl", tmp_path / "proj" / f"{SHORT}.jsonl")
    code, rows, err = _run(tmp_path, full=True)
    assert code == 0 and err == []
    by_id = {r["session"]: r for r in rows}
    assert set(by_id) == {BIG, SHORT}
    orphan = by_id[BIG]
    assert orphan["orphan"] is True and orphan["main"] is None and orphan["subagents"] == 3
    assert len(orphan["files"]) == 7  # type: ignore[arg-type]  # 3 transcripts, 3 meta files, 1 tool result
    assert by_id[SHORT]["files"] == [str(tmp_path / "proj" / f"{SHORT}.jsonl")]  # nothing merged into it
    assert by_id[SHORT]["relays"] == len(main("translate", str(tmp_path / "proj" / f"{SHORT}.jsonl"))[1].splitlines())


def test_two_copies_of_one_session_list_it_once(tmp_path: Path) -> None:
    for where in ("a", "b"):
        shutil.copytree(TELECOM, tmp_path / where / TELECOM.name)
    code, rows, err = _run(tmp_path, full=True)
    assert [r["session"] for r in rows] == [BIG]
    said = _skipped(err)
    assert list(said) == [str(tmp_path / "b" / TELECOM.name / f"{BIG}.jsonl")]
    assert said[str(tmp_path / "b" / TELECOM.name / f"{BIG}.jsonl")].startswith(f"a copy of session {BIG} (")
    assert all(str(f).startswith(str(tmp_path / "a")) for f in rows[0]["files"])  # type: ignore[union-attr]
    assert code == 0
    # the larger copy (a session that went on after it was copied) is the one listed
    longer = tmp_path / "b" / TELECOM.name / f"{BIG}.jsonl"
    longer.write_bytes(longer.read_bytes() + json.dumps({"type": "ai-title", "aiTitle": "later",
                                                         "sessionId": BIG}).encode() + b"\n")
    _, rows, err = _run(tmp_path)
    assert rows[0]["main"] == str(longer) and rows[0]["title"] == "later"
    assert list(_skipped(err)) == [str(tmp_path / "a" / TELECOM.name / f"{BIG}.jsonl")]


def test_a_sidechain_saved_with_the_same_id_is_not_a_copy() -> None:
    head = b'{"type":"user","sessionId":"s1","parentUuid":null,"uuid":"u","message":{"role":"user","content":"%s"}}\n'
    files = {"p/main.jsonl": head % b"one", "p/side.jsonl": head % b"two"}
    g = L.group(list(files), lambda p: L.peek_bytes(files[p]))
    assert [x.key for x in g.groups] == ["s1", "s1#side"] and all(x.copy_of is None for x in g.groups)


def test_fifty_thousand_files_of_which_three_are_transcripts(tmp_path: Path) -> None:
    for k in range(3):
        shutil.copy(SPOTTER / f"{SHORT}.jsonl", tmp_path / f"{k}.jsonl")
        # three sessions, not copies: each its own id
        data = (tmp_path / f"{k}.jsonl").read_bytes().replace(SHORT.encode(), f"{k}-session".encode())
        (tmp_path / f"{k}.jsonl").write_bytes(data)
    for d in range(50):
        folder = tmp_path / f"d{d}"
        folder.mkdir()
        for k in range(1000 - (3 if d == 0 else 0)):
            (folder / f"f{k}.txt").write_bytes(b"x")
    tracemalloc.start()
    code, rows, err = _run(tmp_path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert sorted(r["session"] for r in rows) == ["0-session", "1-session", "2-session"]
    said = _skipped(err)
    assert len(said) == 50_000 - 3
    assert all(r.startswith("not a transcript by its name") for r in said.values())
    assert code == 0
    assert peak < 64 << 20
