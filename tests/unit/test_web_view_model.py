"""The view model behind the debugging view: block fates (lost / duplicate / streamed), the
timeline's rows (grouped deltas, lost placeholders, hidden bookkeeping), fingerprint marks, time,
prices, binary input. Browser behaviour is proven in tests/browser/test_app_debug_view.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relayscope import usage as prices
from relayscope.web import loading, rowinfo
from relayscope.web.model import FP_COLORS, Workspace

EXAMPLES = Path(__file__).resolve().parents[2] / "static" / "examples"


def loaded(name: str, strategy: str = "lineage", audit: bool = True) -> Workspace:
    ws = Workspace()
    for _ in ws.load((EXAMPLES / name).read_bytes(), strategy=strategy):
        pass
    if audit:
        for _ in ws.run_audit():
            pass
    return ws


def test_the_index_bug_loses_one_block_and_its_placeholder_sits_where_it_would_have_been() -> None:
    ws = loaded("index-bug.ndjson", "index")
    assert ws.fates is not None and len(ws.fates.lost) == 1
    lost = ws.fates.lost[0]
    assert lost.line == 4 and "Sub-agent B" in lost.words and lost.row < 0
    rows = ws.rows(ws.select())
    assert rows == [0, 1, 2, 3, 4, lost.row, 5, 6]
    fates = ws.step(ws.step_of_line(None, 4)).fates
    assert [f.fate for f in fates] == ["lost"] and "never emitted" in fates[0].words
    assert ws.lost_rows_of_step(ws.step_of_line(None, 4)) == {lost.row}
    for _ in ws.rerun("lineage"):
        pass
    assert ws.fates is not None and ws.fates.lost == [] and lost.row not in ws.rows(ws.select())


def test_a_correct_skip_names_the_relay_that_carried_the_block() -> None:
    ws = loaded("cumulative-dedup.ndjson", "index")
    fates = [f for i in range(ws.step_count()) for f in ws.step(i).fates]
    assert fates and all(f.fate == "duplicate" for f in fates)
    for f in fates:
        assert f.seq is not None and f"#{f.seq}" in f.words


def test_a_snapshot_after_streaming_is_already_streamed_and_the_deltas_are_one_row() -> None:
    ws = loaded("real-streaming.jsonl")
    fates = [f for i in range(ws.step_count()) for f in ws.step(i).fates]
    assert [f.fate for f in fates] == ["streamed"]
    head = fates[0].seq
    assert head is not None
    row = ws.row(head)
    partial = [r for r in ws.relays if getattr(r, "partial", False)]
    assert row.fragments == len(partial) and row.joined == "".join(r.text for r in partial)  # type: ignore[attr-defined]
    rows = ws.rows(ws.select())
    assert head in rows and not any(r.seq in rows for r in partial[1:])
    assert ws.rows(ws.select(), {head}) == list(range(len(ws.relays)))
    # a search finds the group's row by the joined text it shows; a fragment whose group's row
    # does not match is shown on its own, though the group is folded
    only = ws.select("night")
    shown = ws.rows(only)
    assert only and all(q in shown or ws.group_of(q) in shown for q in only)
    assert head in only and "night" in ws.shown(ws.row(head)).lower()


def test_fingerprints_are_marked_in_first_seen_order_and_numbered_past_the_palette() -> None:
    lines = [json.dumps({"type": "assistant", "message": {"id": f"m{k}", "content": [
        {"type": "text", "text": f"agent {k}"}]}}) for k in range(FP_COLORS + 3)]
    ws = Workspace()
    for _ in ws.load("\n".join(lines)):
        pass
    legend = ws.fp_legend()
    assert [fp for fp, _, _ in legend] == [f"text:agent {k}" for k in range(FP_COLORS + 3)]
    assert [label for _, _, label in legend[:FP_COLORS]] == ["●"] * FP_COLORS
    assert [label for _, _, label in legend[FP_COLORS:]] == [str(FP_COLORS + k + 1) for k in range(3)]
    assert len({(c, label) for _, c, label in legend}) == len(legend)


def test_bookkeeping_is_hidden_unless_asked_for_and_types_can_be_excluded() -> None:
    base = {"sessionId": "s", "cwd": "/w", "version": "2.1.30", "gitBranch": "main"}
    lines = [
        {**base, "type": "user", "uuid": "a", "parentUuid": None, "timestamp": "2026-03-01T10:00:00Z",
         "message": {"role": "user", "content": "hi"}},
        {**base, "type": "progress", "uuid": "p", "parentUuid": "a", "timestamp": "2026-03-01T10:00:01Z", "data": {}},
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        {**base, "type": "assistant", "uuid": "b", "parentUuid": "a", "timestamp": "2026-03-01T10:00:03.5Z",
         "message": {"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                     "content": [{"type": "text", "text": "hello"}],
                     "usage": {"input_tokens": 1000, "output_tokens": 100}}},
    ]
    ws = Workspace()
    for _ in ws.load("\n".join(json.dumps(x) for x in lines)):
        pass
    assert ws.bookkeeping_count == 2
    every = ws.select(bookkeeping=True)
    assert len(every) == len(ws.relays) and len(ws.select()) == len(ws.relays) - 2
    no_usage = ws.select(exclude=["usage"])
    assert all(ws.relays[q].type != "usage" for q in no_usage) and len(no_usage) < len(ws.select())
    text = next(q for q in every if ws.relays[q].type == "text_delta")
    assert ws.row(text).time == "2026-03-01T10:00:03.5Z" and ws.row(text).gap == pytest.approx(3.5)
    meta = next(q for q in every if ws.relays[q].type == "session_meta")
    assert ws.row(meta).summary == "session s · claude-sonnet-4-5-20250929 · v2.1.30 · /w"
    main = ws.lanes[0]
    assert main.model == "claude-sonnet-4-5-20250929" and main.wall_s == pytest.approx(3.5)
    assert main.cost_usd is None and main.est_cost_usd == pytest.approx((1000 * 3 + 100 * 15) / 1e6)


def test_prices_and_time_formats() -> None:
    assert prices.estimate("claude-opus-4-1-20250805", 1_000_000, 0) == 15.0
    assert prices.estimate("claude-opus-4-5-20251101", 1_000_000, 0) == 5.0  # longest prefix wins
    assert prices.estimate("glm-4.6", 10, 10) is None
    assert [rowinfo.gap(x) for x in (0.25, 4, 65, 3725)] == ["+0.2s", "+4s", "+1m05s", "+1h02m"]
    assert [rowinfo.duration(x) for x in (0.4, 10, 274.651)] == ["0.4 s", "10 s", "4m 35s"]
    assert rowinfo.timestamp(b'{"timestamp":"2026-03-01T10:00:09.000Z","type":"user"}') == "2026-03-01T10:00:09.000Z"
    assert rowinfo.timestamp(b'{"timestamp":"soon"}') is None and rowinfo.timestamp(b"not json") is None


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.*") if p.suffix != ".md"))
def test_row_lanes_and_type_counts_are_those_of_the_relays(name: str) -> None:
    """What the page draws its gutter and type chips from, without a pass over the relays of its own."""
    ws = loaded(name, audit=False)
    types: dict[str, int] = {}
    for r in ws.relays:
        types[r.type] = types.get(r.type, 0) + 1
    rows = ws.rows(ws.select(bookkeeping=True))
    assert ws.lanes_of(rows) == [ws.relays[q].lane for q in rows] and rows
    assert list(ws.type_counts().items()) == list(types.items())


@pytest.mark.parametrize("name", ["real-streaming.jsonl", "real-subagents.jsonl", "real-session.jsonl"])
def test_lookups_made_a_few_relays_at_a_time_are_those_made_at_once(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lookups pause between slices of relays (a 600 MB input has 340,000): runs of deltas,
    tool ids and lane cards carry across the cuts."""
    whole = loaded(name, audit=False)
    monkeypatch.setattr(loading, "INDEX_SLICE", 3)
    cut = loaded(name, audit=False)
    assert cut.lanes == whole.lanes and whole.lanes
    assert cut._group_end == whole._group_end and cut._member_head == whole._member_head
    assert cut._bookkeeping == whole._bookkeeping
    assert (cut._by_tool_use, cut._by_tool_result) == (whole._by_tool_use, whole._by_tool_result)
    assert [cut.row(q).summary for q in range(len(cut.relays))] == [whole.row(q).summary for q in range(len(whole.relays))]
