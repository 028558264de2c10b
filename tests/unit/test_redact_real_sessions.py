"""Real sessions shared redacted hold the user's name nowhere, over every output of the command
line: ``redact`` (files and their names, ``--list``), ``pack --redact`` (every member and member
name), ``html --redact``, ``translate``, ``trace``, ``audit``, ``stats`` and both ``export``
formats with ``--redact``, their stderr too, and ``redact`` of a shareable file packed without it.

Three real sessions of tests/fixtures/real: one whose project folder, ``cwd`` and home paths
name the user (``-Users-NAME-...``, with sub-agents, a tool result and meta files), one whose
sub-agent lists a folder with ``ls -l`` (the user in its owner and group columns) though no
path names them, and a stream-json capture (one file) whose ``ls -l`` owner column is its
user's home folder name (macOS: the group is ``staff``)."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real" / "session-jsonl"
SESSIONS = {
    "dumitruvulpe": REAL / "JamesTiberiusKirk__dotsv2__cut" / ".claude" / "projects" / "-Users-dumitruvulpe-uw-telecom-mobile",
    "cboos": (REAL / "handgemacht-ai__claude-code-log" / "test" / "test_data" / "real_projects"
              / "-experiments-worktrees"),
    "marshal": ROOT / "tests" / "fixtures" / "real" / "stream-json"
    / "foksa__open-claude-agent-sdk__tests__snapshots__plan-mode-ls.jsonl",
}


def relayscope(*args: str, cwd: Path) -> tuple[bytes, bytes]:
    run = subprocess.run([sys.executable, "-m", "relayscope", *args], capture_output=True, cwd=cwd)
    assert run.returncode == 0, (args, run.stderr.decode())
    return run.stdout, run.stderr


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {name: z.read(name) for name in z.namelist()}


@pytest.fixture(params=sorted(SESSIONS))
def session(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    """The user's name and a copy of their session's folder (under its own name)."""
    source = SESSIONS[request.param]
    copy = tmp_path / "in" / source.name
    if source.is_dir():
        shutil.copytree(source, copy)
    else:
        copy.parent.mkdir()
        shutil.copy(source, copy)
    assert any(request.param.encode() in p.read_bytes().lower() for p in [copy, *copy.rglob("*")] if p.is_file())
    return request.param, copy


def test_a_real_session_shared_redacted_names_its_user_nowhere(session: tuple[str, Path], tmp_path: Path) -> None:
    user, folder = session
    work, here = folder.parent, f"./{folder.name}"  # a folder named -Users-...: no option
    outputs: dict[str, bytes] = {}
    for command in ("translate", "trace", "audit", "stats"):
        outputs[command], outputs[f"{command} stderr"] = relayscope(command, "--redact", here, cwd=work)
    for fmt in ("chrome-trace", "otlp"):
        outputs[fmt], outputs[f"{fmt} stderr"] = relayscope("export", "--redact", "--format", fmt, here, cwd=work)
    outputs["redact --list"], _ = relayscope("redact", "--list", here, cwd=work)
    assert b"[redacted:user:1]" in outputs["redact --list"]

    _, outputs["pack stderr"] = relayscope("pack", "--redact", "-o", str(tmp_path / "s.relayscope.zip"), here,
                                           cwd=work)
    packed = members((tmp_path / "s.relayscope.zip").read_bytes())
    assert len(packed) >= 2  # the files and the manifest
    outputs |= {f"pack member {name!r}": data for name, data in packed.items()}
    outputs["pack member names"] = "\n".join(packed).encode()

    _, outputs["html stderr"] = relayscope("html", "--redact", "-o", str(tmp_path / "s.html"), here, cwd=work)
    outputs["html"] = (tmp_path / "s.html").read_bytes()

    if folder.is_dir():
        _, outputs["redact -o stderr"] = relayscope("redact", "-o", str(tmp_path / "out"), here, cwd=work)
        written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
        assert len(written) >= 3
        outputs |= {f"redact -o {p}": p.read_bytes() for p in written}
        outputs["redact -o names"] = "\n".join(str(p.relative_to(tmp_path)) for p in written).encode()
    else:
        outputs["redact"], outputs["redact stderr"] = relayscope("redact", here, cwd=work)

    # a shareable file packed as it is, redacted afterwards: its members and their names
    relayscope("pack", "-o", str(tmp_path / "plain.relayscope.zip"), here, cwd=work)
    red, outputs["redact of a shareable file stderr"] = relayscope("redact", str(tmp_path / "plain.relayscope.zip"),
                                                                   cwd=work)
    again = members(red)
    assert len(again) == len(packed)
    outputs |= {f"redacted share member {name!r}": data for name, data in again.items()}
    outputs["redacted share member names"] = "\n".join(again).encode()

    leaks = [what for what, data in outputs.items() if user.encode() in data.lower()]
    assert leaks == [], leaks
    assert any(b"[redacted:user:" in data for what, data in outputs.items() if what.startswith("pack member"))
