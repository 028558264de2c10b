"""Where the benchmarks' real captures come from: the whole shared corpus when it sits beside the
checkout (../shared or ../../shared), else the curated subset the repository carries
(tests/fixtures/real/), so every benchmark runs from a bare clone. Reads nothing itself."""

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
