"""audit: strategies compared against an inventory that depends on no strategy."""

from __future__ import annotations

from _corpus import seed

from relayscope.audit import inventory
from relayscope.multifile import audit_lines


def by_strategy(name: str) -> dict[str, object]:
    return {a.strategy: a for a in audit_lines(seed(name))}


def test_the_index_bug_is_reported_as_one_lost_block() -> None:
    index = by_strategy("index-bug.ndjson")["index"]
    assert (index.lost, index.duplicated) == (1, 0)  # type: ignore[attr-defined]
    assert index.first_lost == {"block": "text 'Sub-agent B: running the tests'", "line": 4, "file": None}  # type: ignore[attr-defined]


def test_none_duplicates_and_the_others_do_not() -> None:
    results = by_strategy("interleaved-subagents.ndjson")
    none = results["none"]
    assert (none.lost, none.duplicated, none.extra_emissions) == (0, 2, 2)  # type: ignore[attr-defined]
    assert none.first_duplicated["line"] == 3  # type: ignore[attr-defined]
    for name in ("index", "fingerprint", "lineage"):
        a = results[name]
        assert (a.lost, a.duplicated, a.unmatched) == (0, 0, 0), name  # type: ignore[attr-defined]


def test_inventory_counts_each_block_once() -> None:
    items = inventory(seed("cumulative-dedup.ndjson"))
    kinds = sorted(k[0] if k[0] != "block" else k[2] for k in items)
    assert kinds == ["text", "text", "thinking", "tool_result", "tool_use"]


def test_audit_json_in_pieces_is_the_json_of_the_audits() -> None:
    """The CLI writes an audit's JSON in pieces (the lost blocks' words a few thousand at a time):
    the same bytes as encoding it whole, whatever the words hold."""
    import msgspec
    import pytest

    from relayscope import audit

    results = audit_lines(seed("gotchas.ndjson"))
    index = next(a for a in results if a.strategy == "index")
    hostile = ['"lost_keys":[]', 'x"lost_keys":[]', "\\", '"', "\n\x1b[31m", ""]
    index.lost_keys = [*hostile, *(f"tool_use toolu_{n}" for n in range(10)), *index.lost_keys]
    index.first_lost = {"block": '"lost_keys":[]', "line": 1, "file": None}
    for piece in (1, 3, 4096):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(audit.report, "KEYS_A_PIECE", piece)
            assert b"".join(audit.json_pieces(results, end=b"\n")) == msgspec.json.encode(results) + b"\n"
    assert b"".join(audit.json_pieces([])) == b"[]"
