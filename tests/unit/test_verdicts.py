"""Every command gives the same verdict on the same bad input: the README's exit-code table holds
for all of them. A table over commands x bad inputs: each command exits with the code the row
says and says the same errors on stderr (``FILE:LINE: message``, ``FILE: message``), whatever it
writes (relays, a trace, an audit, an export, figures, the redacted input, a snapshot page, a
shareable file). And a folder tree
thousands of levels deep is read by every command as any other (no recursion to run out of)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli import main
from _corpus import FIXTURE_SESSIONS

EVENT = b'{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"hi"}]}}\n'
RESULT = b'{"type":"result","subtype":"success","session_id":"s"}\n'
SESSION = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log" / "test" / "test_data" / "real_projects" / \
    "-src-experiments-claude_p"

COMMANDS = [["translate"], ["translate", "-f", "text"], ["translate", "-f", "json"], ["translate", "--redact"],
            ["trace"], ["trace", "--json"], ["audit"], ["audit", "--json"], ["stats"], ["stats", "--json"],
            ["export", "--format", "otlp"], ["export", "--format", "chrome-trace"], ["redact"], ["html"],
            ["pack", "-o", "{out}"]]


def args_of(command: list[str], path: Path, out: Path) -> list[str]:
    """The command's arguments: ``redact`` of a folder writes into a folder, ``pack`` into a file."""
    out.mkdir(parents=True, exist_ok=True)
    named = [a.replace("{out}", str(out / "shared.zip")) for a in command] + [str(path)]
    return named + (["-o", str(out / "redacted")] if command == ["redact"] and path.is_dir() else [])


def write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def garbage(tmp: Path) -> Path:
    return write(tmp, "garbage.jsonl", EVENT + b"not json at all\n" + RESULT)


def cut_mid_line(tmp: Path) -> Path:  # a run killed while writing its last line
    return write(tmp, "cut.jsonl", EVENT + EVENT[:50])


def too_deep(tmp: Path) -> Path:
    return write(tmp, "deep.jsonl", EVENT + b'{"type":"user","x":' + b"[" * 3000 + b"]" * 3000 + b"}\n" + RESULT)


def not_utf8(tmp: Path) -> Path:  # repaired and warned about: not an error
    return write(tmp, "latin1.jsonl", EVENT.replace(b"hi", b"caf\xe9") + RESULT)


def empty(tmp: Path) -> Path:
    return write(tmp, "empty.jsonl", b"")


def arbiter_error_event(tmp: Path) -> Path:  # an error the stream reports is content, not an unreadable line
    return write(tmp, "fleet.sse", b'event: text\ndata: {"stream_id":0,"delta":"hi"}\n\n'
                                  b'event: error\ndata: {"message":"upstream failed"}\n\n')


def bad_sse_line(tmp: Path) -> Path:
    return write(tmp, "bad.sse", b'event: text\ndata: {"stream_id":0,"delta":"hi"}\n\nbogus line\n\n')


def folder_with_a_fifo(tmp: Path) -> Path:
    folder = tmp / "with-fifo"
    folder.mkdir()
    write(folder, "ok.jsonl", EVENT + RESULT)
    os.mkfifo(folder / "pipe.jsonl")
    return folder


def broken_meta_file(tmp: Path) -> Path:
    folder = tmp / "-src-app"
    shutil.copytree(SESSION, folder)
    (next(folder.glob("*/subagents")) / "agent-a2271d1.meta.json").write_bytes(b'{"toolUseId": ')
    return folder


def missing(tmp: Path) -> Path:
    return tmp / "no-such-file.jsonl"


# (input, exit code): 0 ok, 1 unreadable lines or files, 2 a usage error
TABLE = [(garbage, 1), (cut_mid_line, 1), (too_deep, 1), (not_utf8, 0), (empty, 0), (arbiter_error_event, 0),
         (bad_sse_line, 1), (folder_with_a_fifo, 1), (broken_meta_file, 1), (missing, 2)]
# audit compares de-dup strategies: an Arbiter stream has none to compare, a usage error it says once
AUDIT_OF_SSE = 2


def said(err: str) -> list[str]:
    """The errors a run said: its stderr without warnings, drift notes and redaction summaries."""
    return sorted(line for line in err.splitlines() if line and ": warning: " not in line
                  and " new to relayscope" not in line and not line.startswith(("relayscope: redacted ",
                                                                                 "relayscope: packed ")))


@pytest.mark.parametrize(("make", "code"), TABLE, ids=[m.__name__ for m, _ in TABLE])
def test_every_command_gives_the_same_verdict_and_exit_code(make: object, code: int, tmp_path: Path) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    verdicts: dict[str, tuple[int, list[str]]] = {}
    for n, command in enumerate(COMMANDS):
        got, _out, err = main(*args_of(command, path, tmp_path / f"out{n}"))
        verdicts[" ".join(command)] = (got, said(err))
    expected = {name: (code, verdicts["translate"][1]) for name in verdicts}
    if make is arbiter_error_event or make is bad_sse_line:
        got, errs = verdicts.pop("audit"), verdicts.pop("audit --json")
        assert got[0] == errs[0] == AUDIT_OF_SSE and "Arbiter SSE" in got[1][0]
        del expected["audit"], expected["audit --json"]
    assert verdicts == expected
    assert (code == 0) == (verdicts["translate"][1] == [])  # an error is always said; nothing is said of none


def files_under(root: Path) -> list[Path]:
    """Every file under ``root``, and then every folder bottom up, found without recursion."""
    files, folders, todo = [], [], [root]
    while todo:
        here = todo.pop()
        folders.append(here)
        for entry in os.scandir(here):
            (todo if entry.is_dir(follow_symlinks=False) else files).append(Path(entry.path))
    return files + folders[::-1]


@pytest.fixture
def deep_tree(tmp_path: Path) -> Iterator[Path]:
    """1,500 folders inside each other (os.makedirs, os.walk and shutil.rmtree would recurse), a
    transcript at the bottom; taken down after, without recursion either."""
    root = tmp_path / "deep"
    path = root
    for _ in range(1500):
        path.mkdir()
        path = path / "d"
    path.mkdir()
    (path / "run.jsonl").write_bytes(EVENT + RESULT)
    yield root
    for made in (root, tmp_path / "out"):
        for found in files_under(made) if made.exists() else []:
            found.rmdir() if found.is_dir() else found.unlink()


def test_a_folder_tree_1500_levels_deep_is_read_by_every_command(deep_tree: Path, tmp_path: Path) -> None:
    for command in COMMANDS:
        code, out, err = main(*args_of(command, deep_tree, tmp_path / "out"))
        assert code == 0, (command, err)
        assert "internal error" not in err and "Recursion" not in err
        if command == ["translate"]:
            assert [json.loads(line)["type"] for line in out.splitlines()][-1] == "turn_complete"
    written = [p for p in files_under(tmp_path / "out" / "redacted") if p.is_file()]
    assert [p.name for p in written] == ["run.jsonl"] and written[0].read_bytes() == EVENT + RESULT
