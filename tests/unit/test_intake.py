"""intake: which files of a folder are read, and whether bytes are text. One rule for the CLI's
folder walk, ``--follow`` of a folder and the page's "Open folder", drop and "Watch folder"."""

from __future__ import annotations

from pathlib import Path

import pytest

from relayscope import follow, inputs
from relayscope.formats.session import AGENT_META as SESSION_META
from relayscope.intake import AGENT_META, FOLDER_FILES, binary_reason, read_in_folder

READ = ["s.jsonl", "t.ndjson", "fleet.sse", "run_stream.log", "S.JSONL", "subagents/agent-a1.meta.json"]
SKIPPED = ["notes.txt", "settings.json", "x.meta.json", "README.md", "image.png", "jsonl"]


def folder(tmp_path: Path) -> Path:
    root = tmp_path / "session"
    for name in READ + SKIPPED:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("{}\n")
    return root


@pytest.mark.parametrize(("name", "read"), [(n, True) for n in READ] + [(n, False) for n in SKIPPED])
def test_a_folder_s_files_are_read_by_one_rule(name: str, read: bool) -> None:
    assert read_in_folder(name) is read


def test_every_suffix_of_the_table_is_read_and_says_what_it_is() -> None:
    for suffix, what in FOLDER_FILES:
        assert read_in_folder(f"a{suffix}") and what


def test_the_cli_walk_and_follow_read_what_the_rule_reads(tmp_path: Path) -> None:
    root = folder(tmp_path)
    expected = sorted(str(root / n) for n in READ)
    found, problems = inputs.walk(str(root))
    assert sorted(found) == expected and problems == []
    assert sorted(follow._listing(str(root))) == expected


def test_binary_input_is_told_from_text() -> None:
    assert binary_reason("a.png", b"\x89PNG\r\n\x1a\n\x00\x00") is not None
    assert binary_reason("x.bin", bytes(range(128, 256)) * 50) is not None
    assert binary_reason("t.jsonl", '{"type":"user","text":"héllo ✓"}\n'.encode()) is None
    cut = ("é" * 5000).encode()  # a character cut at the 8 KiB sample is still text
    assert binary_reason("t.txt", cut) is None
    assert binary_reason("empty", b"") is None
    # the page looks at the first slice of a big file: the size is the file's, a cut character is text
    assert binary_reason("t.txt", cut[:9001], 600_000_000) is None
    told = binary_reason("big.bin", b"\x00" * 9000, 600_000_000)
    assert told is not None and "572 MiB" in told


def test_the_meta_file_is_named_as_the_session_reader_names_it() -> None:
    for name in ("agent-a1.meta.json", "agent-x.y.meta.json", "agent-.meta.json", "x.meta.json", "agent-a1.json"):
        assert bool(AGENT_META.match(name)) == bool(SESSION_META.match(name)), name
