"""Where the test inputs are. Imported by the unit tests (pytest puts this folder on sys.path)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "tests" / "fixtures" / "seed-examples"
# CI checks out the repo with shared/ beside it; a developer's work tree has it at ../shared.
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared") if (p / "corpus").is_dir()),
              ROOT.parent / "shared")
CORPUS = SHARED / "corpus"
REAL_STREAM_JSON = CORPUS / "real" / "stream-json"
REAL_FILES = sorted(REAL_STREAM_JSON.glob("*.jsonl"))


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def seed(name: str) -> list[bytes]:
    return lines(SEEDS / name)
