"""Where the test inputs are. Imported by the unit tests (pytest puts this folder on sys.path).

Two sets of real captures: the curated subset the repository carries (tests/fixtures/real/, same
layout as the shared corpus, listed in its SOURCES.tsv), which every run uses, and the whole
shared corpus (../shared/corpus/real/), which the sweeps add when it is beside the checkout and
skip, with the path they looked at, when it is not. A fresh clone must pass on the first alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "tests" / "fixtures" / "seed-examples"
FIXTURES = ROOT / "tests" / "fixtures" / "real"
FIXTURE_STREAM_JSON = FIXTURES / "stream-json"
FIXTURE_SESSIONS = FIXTURES / "session-jsonl"
# CI may check out the repo with shared/ beside it; a developer's work tree has it at ../shared.
_LOOKED = (ROOT.parent / "shared", ROOT.parents[1] / "shared")
SHARED = next((p for p in _LOOKED if (p / "corpus").is_dir()), _LOOKED[0])
CORPUS = SHARED / "corpus"
SHARED_REAL = CORPUS / "real"
HAVE_SHARED = SHARED_REAL.is_dir()
NO_SHARED = ("no shared corpus (looked for " + " and ".join(str(p / "corpus" / "real") for p in _LOOKED)
             + "): the sweep ran over tests/fixtures/real/ only")
SHARED_STREAM_JSON = SHARED_REAL / "stream-json"
SHARED_SESSIONS = SHARED_REAL / "session-jsonl"


def with_shared(fixture_root: Path, shared_root: Path, pattern: str) -> list[Path]:
    """The fixture captures, then the shared corpus's others (a capture in both runs once)."""
    mine = sorted(fixture_root.glob(pattern))
    carried = {p.relative_to(fixture_root) for p in mine}
    shared = sorted(shared_root.glob(pattern)) if HAVE_SHARED else []
    return mine + [p for p in shared if p.relative_to(shared_root) not in carried]


# a capture's name keeps its repository's (one is a ``.log``)
REAL_FILES = sorted(with_shared(FIXTURE_STREAM_JSON, SHARED_STREAM_JSON, "*.jsonl")
                    + with_shared(FIXTURE_STREAM_JSON, SHARED_STREAM_JSON, "*.log"))
SESSION_FILES = with_shared(FIXTURE_SESSIONS, SHARED_SESSIONS, "**/*.jsonl")


def sweep(items: list[Any], ids: Callable[[Any], str] | None = None) -> list[Any]:
    """Parameters for a test over every real capture: the items, plus one skipped parameter saying
    where the shared corpus was looked for when it is absent (so the report says what did not run)."""
    params = [pytest.param(x, id=ids(x) if ids else None) for x in items]
    if not HAVE_SHARED:
        params.append(pytest.param(None, id="shared-corpus", marks=pytest.mark.skip(reason=NO_SHARED)))
    return params


def session_rel(path: Path) -> str:
    """A session file's name as the tests use it: relative to the corpus root that holds it."""
    for root in (FIXTURE_SESSIONS, SHARED_SESSIONS):
        if path.is_relative_to(root):
            return str(path.relative_to(root))
    raise ValueError(path)


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def seed(name: str) -> list[bytes]:
    return lines(SEEDS / name)
