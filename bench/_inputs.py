"""Where the benchmarks' real captures come from: the whole shared corpus when it sits beside the
checkout (../shared or ../../shared), else the curated subset the repository carries
(tests/fixtures/real/), so every benchmark runs from a bare clone; and the Python a user's install
runs whole processes with. Reads nothing itself."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SHARED = [p / "corpus" / "real" / "stream-json" for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared")]
FIXTURES = ROOT / "tests" / "fixtures" / "real" / "stream-json"


def stream_json_dir() -> Path:
    """The folder of real stream-json captures to use (says which on stderr: the numbers differ)."""
    import sys

    found = next((p for p in _SHARED if p.is_dir()), FIXTURES)
    print(f"real captures: {found}", file=sys.stderr)
    return found


def plain_python() -> Path:
    """A Python with msgspec (this one's version) and nothing else installed, made once under
    bench/out/plain-venv: whole processes timed as a user's install runs them. The checkout's own
    .venv is not that: it holds the dev tools' ``typing_extensions``, which msgspec imports, and
    ``inspect`` with it, whenever it is there (about 7 ms of every start)."""
    import subprocess
    import sys

    import msgspec

    venv = ROOT / "bench" / "out" / "plain-venv"
    python = venv / "bin" / "python"
    if not python.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        f"msgspec=={msgspec.__version__}"], check=True)
    return python
