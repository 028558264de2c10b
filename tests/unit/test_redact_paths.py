"""With ``--redact`` (and in ``relayscope redact``) the paths the command line prints are redacted
like the input: Claude Code names a project's folder after its path (``-Users-NAME-app``), so the
user's name is in every file name under ``~/.claude/projects/``. A session laid out so, with a bad
line and a broken meta file to be reported, goes through every command; the name is in none of
their output, messages included, nor in the folders ``redact -o`` writes."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _corpus import FIXTURE_SESSIONS, ROOT

ENV = {"PYTHONPATH": str(ROOT / "py"), "PATH": "/usr/bin:/bin", "COLUMNS": "300"}
NAME = "quentinz"
SESSION = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log" / "test" / "test_data" / "real_projects" / \
    "-src-experiments-claude_p"


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``projects/-Users-NAME-code-app/``: a session with its sub-agent file, a broken meta file,
    and a line that is no JSON (both reported, with the file's name)."""
    root = tmp_path_factory.mktemp("home") / "projects"
    folder = root / f"-Users-{NAME}-code-app"
    shutil.copytree(SESSION, folder)
    main = next(p for p in folder.glob("*.jsonl") if (folder / p.stem).is_dir())
    main.write_bytes(main.read_bytes() + b"not json\n")
    (folder / main.stem / "subagents" / "agent-a2271d1.meta.json").write_bytes(b'{"toolUseId": ')
    return root


def run(*args: str, code: int = 1) -> subprocess.CompletedProcess[bytes]:
    p = subprocess.run([sys.executable, "-m", "relayscope", *args], capture_output=True, env=ENV, timeout=120,
                       check=False)
    assert p.returncode == code, (args, p.stderr.decode())
    return p


COMMANDS = [["translate"], ["translate", "-f", "text"], ["translate", "-f", "json"], ["trace"], ["trace", "--json"],
            ["audit"], ["audit", "--json"], ["stats"], ["stats", "--json"], ["export", "--format", "otlp"],
            ["export", "--format", "chrome-trace"]]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_no_command_prints_the_user_name_of_a_project_folder(projects: Path, command: list[str]) -> None:
    plain = run(*command, str(projects))
    assert NAME.encode() in plain.stdout + plain.stderr  # without --redact it is there to be found
    p = run(*command, "--redact", str(projects))
    assert NAME.encode() not in p.stdout, command
    assert NAME not in p.stderr.decode(), p.stderr.decode()
    assert re.search(rb"-Users-\[redacted:user:[0-9]+\]-code-app", p.stdout + p.stderr)
    assert b"not valid JSON" in p.stderr and b"meta file" in p.stderr  # still said, of the redacted name


def test_the_file_field_of_relays_carries_the_redacted_name(projects: Path) -> None:
    p = run("translate", "--redact", str(projects))
    files = {line.split(b'"file":"', 1)[1].split(b'"', 1)[0] for line in p.stdout.splitlines() if b'"file":"' in line}
    assert files and all(re.search(rb"/projects/-Users-\[redacted:user:[0-9]+\]-code-app/", f) for f in files), files


def test_redact_o_writes_folders_whose_names_are_redacted_and_says_what_it_could_not_read(
        projects: Path, tmp_path: Path) -> None:
    out = tmp_path / "shared"
    p = run("redact", str(projects), "-o", str(out))
    written = [q.relative_to(out).as_posix() for q in sorted(out.rglob("*")) if q.is_file()]
    assert written and all(NAME not in w for w in written), written
    assert all(re.match(r"-Users-\[redacted:user:[0-9]+\]-code-app/", w) for w in written)
    assert NAME not in p.stderr.decode() and "not valid JSON" in p.stderr.decode()
    for q in out.rglob("*.jsonl"):
        assert NAME.encode() not in q.read_bytes()
