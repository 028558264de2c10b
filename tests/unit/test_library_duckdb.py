"""The sessions index (`sessions --json --full`) loaded into DuckDB answers tokens per project per
day as the CLI itself counts them; the query is the one docs/library.md shows."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from _cli import main
from _corpus import ROOT

duckdb = pytest.importorskip("duckdb", reason="duckdb is a dev dependency (pip install -e '.[dev]')")

LIBRARY = ROOT / "tests" / "fixtures" / "library" / "projects"
DOC = ROOT / "docs" / "library.md"


def _doc_query() -> str:
    """The DuckDB query docs/library.md shows (its first ```sql block)."""
    m = re.search(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert m is not None, "docs/library.md shows no SQL"
    return m.group(1)


def test_tokens_per_project_per_day_equal_the_clis_totals(tmp_path: Path) -> None:
    code, out, _ = main("sessions", "--json", "--full", str(LIBRARY))
    assert code == 0
    index = tmp_path / "sessions.ndjson"
    index.write_bytes(out)
    # the CLI's own totals: `stats --json` of each session alone
    want: dict[tuple[str, str], int] = defaultdict(int)
    for line in out.splitlines():
        row = json.loads(line)
        files = [f for f in row["files"] if not f.endswith(".txt")]
        _, fig, _ = main("stats", "--json", *files)
        tokens = json.loads(fig)[0]["run"]["tokens"]
        want[(row["project"], row["day"])] += sum(tokens.values())
    con = duckdb.connect()
    got = con.execute(_doc_query().replace("sessions.ndjson", str(index))).fetchall()
    assert {(project, str(day)): int(tokens) for project, day, tokens, _sessions in got} == dict(want)
    assert len(got) >= 5 and all(tokens > 0 for _p, _d, tokens, _s in got)
