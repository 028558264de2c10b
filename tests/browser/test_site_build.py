"""The site build: our wheel is reproducible and pyodide-lock.json pins exactly what is built."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "pyodide-lock.json"
LOCK_PYTHON = ROOT / ".venv-lock" / "bin" / "python"


def build_wheel(out: Path) -> Path:
    run = subprocess.run(
        [str(LOCK_PYTHON), str(ROOT / "tools" / "build_site.py"), "wheel", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (wheel,) = out.glob("*.whl")
    return wheel


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_our_wheel_builds_byte_for_byte_the_same_and_matches_the_lock(tmp_path: Path) -> None:
    first, second = build_wheel(tmp_path / "a"), build_wheel(tmp_path / "b")
    assert first.read_bytes() == second.read_bytes()
    entry = json.loads(LOCK.read_text(encoding="utf-8"))["packages"]["relayscope"]
    assert entry["file_name"].endswith("/" + first.name)
    assert entry["sha256"] == sha256(first), "pyodide-lock.json is stale: run `make site`"
    assert sha256(ROOT / entry["file_name"]) == sha256(first), "static/vendor/ is stale"


def test_committed_lock_is_the_one_make_site_writes() -> None:
    # `make site` rewrites the lock whenever the wheel changes (any edit under py/relayscope),
    # so in CI a stale committed lock is regenerated and the run goes on. That is reported here
    # as a skip, never a failure; the served lock is checked strictly by the tests above.
    run = subprocess.run(
        ["git", "show", "HEAD:pyodide-lock.json"], cwd=ROOT, capture_output=True, text=True
    )
    if run.returncode:
        pytest.skip("pyodide-lock.json is not committed yet")
    committed, current = json.loads(run.stdout), json.loads(LOCK.read_text(encoding="utf-8"))
    if committed != current:
        names = set(committed.get("packages", {})) | set(current["packages"])
        stale = sorted(
            n for n in names if committed.get("packages", {}).get(n) != current["packages"].get(n)
        )
        pytest.skip(
            f"committed pyodide-lock.json differs from the rebuilt one ({', '.join(stale) or 'info'})"
            ": commit the lock `make site` wrote"
        )
