"""No false loss. A capture repeated back to back (``cat X X``, ``tee -a``
logs) streams the same message again; lineage emits it again, and the audit must map that second
stream onto the block it repeats, never join it to the first (which made one doubled text that
matched nothing: "lost 1 block", "1 relay(s) matched no inventory block").

The sweep audits every carried fixture concatenated with itself and with every other fixture
(lineage only, the strategy under test: the sweep stays a few seconds in ``make test``)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON, FIXTURES

from relayscope.multifile import audit_input
from relayscope.web.model import Workspace

HAIKU = FIXTURE_STREAM_JSON / "foksa__open-claude-agent-sdk__tests__snapshots__streaming-haiku.jsonl"
CARRIED = sorted(FIXTURE_STREAM_JSON.glob("*.jsonl")) + sorted(FIXTURE_SESSIONS.glob("**/*.jsonl"))


def _lineage(data: bytes) -> object:
    (result,) = audit_input(data, ["lineage"])
    (audit,) = result.audits
    return audit


def test_the_doubled_haiku_loses_nothing() -> None:
    once = HAIKU.read_bytes()
    (result,) = audit_input(once + once)
    audits = {a.strategy: a for a in result.audits}
    lineage = audits["lineage"]
    assert (lineage.lost, lineage.unmatched) == (0, 0)
    assert lineage.relays == 42  # it streamed the text again: 21 deltas the first time, 21 the second
    # the second stream is the same block emitted again: a duplicate, as "none" reports it
    assert (lineage.emitted, lineage.duplicated) == (1, 1)
    assert audits["none"].lost == 0


def _name(path: Path) -> str:
    return str(path.relative_to(FIXTURES)).rsplit("/", 1)[-1][:40]


PAIRS = list(itertools.product(CARRIED, repeat=2))  # both orders: X+Y and Y+X


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=[f"{_name(a)}+{_name(b)}" for a, b in PAIRS])
def test_lineage_loses_nothing_on_concatenated_fixtures(first: Path, second: Path) -> None:
    a, b = first.read_bytes(), second.read_bytes()
    joined = a + (b"" if a.endswith(b"\n") else b"\n") + b
    audit = _lineage(joined)
    assert (audit.lost, audit.unmatched, audit.first_lost) == (0, 0, None)  # type: ignore[attr-defined]


def test_the_pages_stepper_agrees_on_the_doubled_haiku() -> None:
    """The page's step-through (``Workspace``, its fates from the audit's inventory) shows no lost
    block and no placeholder row: the second assistant line's block was already streamed."""
    once = HAIKU.read_bytes()
    ws = Workspace()
    list(ws.load(once + once, strategy="lineage"))
    list(ws.run_audit())
    assert ws.fates is not None and ws.fates.lost == []
    fates = [f for i in range(ws.step_count()) for f in ws.step(i).fates]
    assert [f.fate for f in fates] == ["streamed", "streamed"]
    assert [f.seq for f in fates] == [2, 2]  # the block's first relay, as the audit's first emission
