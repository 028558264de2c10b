"""Real captures: under lineage every content block is emitted exactly once, in its lane.

Runs over the captures in tests/fixtures/real/ always, and over the whole shared corpus when it
is beside the checkout.

The expectations are computed here from the raw JSON with the standard library, sharing no
code with the translator or with ``audit.inventory``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from _corpus import (
    FIXTURE_STREAM_JSON,
    FIXTURES,
    HAVE_SHARED,
    NO_SHARED,
    REAL_FILES,
    SHARED_STREAM_JSON,
    lines,
    sweep,
)

from relayscope import relay as R
from relayscope.multifile import audit_lines
from relayscope.translator import Translator


def test_the_fixture_captures_are_there() -> None:
    assert len(list(FIXTURE_STREAM_JSON.glob("*.jsonl"))) >= 8


def test_the_shared_corpus_is_there() -> None:
    if not HAVE_SHARED:
        pytest.skip(NO_SHARED)
    assert len(list(SHARED_STREAM_JSON.glob("*.jsonl"))) >= 12


def translate(path: Path, strategy: str = "lineage") -> list[R.Relay]:
    t = Translator(strategy)
    out: list[R.Relay] = []
    for line in lines(path):
        out.extend(t.feed_line(line))
    return out + t.finish()


def expected_blocks(path: Path) -> tuple[Counter[str], Counter[str], Counter[tuple[str, str]], dict[str, str]]:
    """tool_use ids, tool_result ids, (lane, text) of text blocks, tool id -> lane."""
    tools: Counter[str] = Counter()
    results: Counter[str] = Counter()
    texts: Counter[tuple[str, str]] = Counter()
    lane_of: dict[str, str] = {}
    seen_text: set[tuple[str | None, str]] = set()
    for raw in lines(path):
        obj = json.loads(raw)
        lane = obj.get("parent_tool_use_id") or "main"
        message = obj.get("message") or {}
        for block in message.get("content") or [] if isinstance(message.get("content"), list) else []:
            if obj["type"] == "assistant" and block["type"] == "tool_use":
                tools[block["id"]] += 1
                lane_of[block["id"]] = lane
            elif obj["type"] == "assistant" and block["type"] == "text":
                key = (message.get("id"), block["text"])
                if key not in seen_text:
                    seen_text.add(key)
                    texts[(lane, block["text"])] += 1
            elif block.get("type") == "tool_result":
                results[block["tool_use_id"]] += 1
                lane_of["result:" + block["tool_use_id"]] = lane
    return tools, results, texts, lane_of


@pytest.mark.parametrize("path", sweep(REAL_FILES, lambda p: p.name[:60]))
def test_lineage_emits_every_block_once_in_its_lane(path: Path) -> None:
    relays = translate(path)
    tools, results, texts, lane_of = expected_blocks(path)
    emitted_tools = Counter(r.id for r in relays if isinstance(r, R.ToolUse))
    assert emitted_tools == tools
    emitted_results = Counter(r.tool_use_id for r in relays if isinstance(r, R.ToolResult))
    assert emitted_results == results
    for r in relays:
        if isinstance(r, R.ToolUse):
            assert r.lane == lane_of[r.id]
        elif isinstance(r, R.ToolResult):
            assert r.lane == lane_of["result:" + r.tool_use_id]
    whole_texts = Counter((r.lane, r.text) for r in relays if isinstance(r, R.TextDelta) and not r.partial)
    streamed = "stream_event" in path.read_text()
    if not streamed:
        assert whole_texts == texts
    assert [r.seq for r in relays] == list(range(len(relays)))


@pytest.mark.parametrize("path", sweep(REAL_FILES, lambda p: p.name[:60]))
def test_audit_finds_nothing_lost_or_doubled_under_lineage(path: Path) -> None:
    results = {a.strategy: a for a in audit_lines(lines(path))}
    lineage = results["lineage"]
    assert (lineage.lost, lineage.duplicated, lineage.unmatched) == (0, 0, 0)
    assert lineage.emitted == lineage.blocks > 0


def test_index_loses_blocks_on_real_one_block_events() -> None:
    path = next(p for p in REAL_FILES if "ArturoKuang" in p.name)
    index = next(a for a in audit_lines(lines(path)) if a.strategy == "index")
    assert index.lost > 100 and index.first_lost is not None and index.first_lost["line"] == 3


def test_sub_agent_lanes_follow_parent_tool_use_id() -> None:
    path = next(p for p in REAL_FILES if "014042a4" in p.name)
    relays = translate(path)
    starts = {r.lane: r for r in relays if isinstance(r, R.LaneStart)}
    agent_calls = [r for r in relays if isinstance(r, R.ToolUse) and r.name in ("Task", "Agent")]
    assert agent_calls and all(c.id in starts for c in agent_calls)
    for call in agent_calls:
        lane = starts[call.id]
        assert lane.parent_lane == "main" and lane.depth == 1 and not lane.inferred
        assert lane.description and lane.agent_type
        ends = [r for r in relays if isinstance(r, R.LaneEnd) and r.lane == call.id]
        assert len(ends) == 1 and ends[0].agent_id


def test_streamed_text_is_emitted_as_deltas_and_not_repeated() -> None:
    path = FIXTURE_STREAM_JSON / "foksa__open-claude-agent-sdk__tests__snapshots__streaming-haiku.jsonl"
    relays = translate(path)
    deltas = [r for r in relays if isinstance(r, R.TextDelta)]
    snapshot = next(json.loads(x) for x in lines(path) if json.loads(x)["type"] == "assistant")
    full = snapshot["message"]["content"][0]["text"]
    assert len(deltas) > 10 and all(d.partial for d in deltas)
    assert "".join(d.text for d in deltas) == full
    assert {d.block_index for d in deltas} == {0} and {d.message_id for d in deltas} == {snapshot["message"]["id"]}
    usage = [r for r in relays if isinstance(r, R.Usage)]
    assert len(usage) == 1 and usage[0].output_tokens == 33  # message_delta's final count, not the snapshot's


def test_usage_is_counted_once_per_message() -> None:
    path = next(p for p in REAL_FILES if "ArturoKuang" in p.name)
    relays = translate(path)
    last: dict[str, tuple[str, int]] = {}
    for raw in lines(path):
        obj = json.loads(raw)
        if obj["type"] == "assistant" and obj["message"].get("usage"):
            last[obj["message"]["id"]] = (obj.get("parent_tool_use_id") or "main",
                                          obj["message"]["usage"]["output_tokens"])
    usage = {r.message_id: (r.lane, r.output_tokens) for r in relays if isinstance(r, R.Usage)}
    assert usage == last


def test_the_fixtures_are_small_and_each_names_its_source() -> None:
    """The carried captures stay a curated subset (under 4 MB, 1 MB a file), and SOURCES.tsv names
    the repository, path and commit of each, with its size as stored."""
    files = {str(p.relative_to(FIXTURES)): p.stat().st_size for p in FIXTURES.rglob("*")
             if p.suffix in (".jsonl", ".log")}
    rows = [line.split("\t") for line in (FIXTURES / "SOURCES.tsv").read_text().splitlines()
            if line and not line.startswith("#")]
    header, rows = rows[0], rows[1:]
    assert header[:5] == ["local_name", "repo", "path", "commit", "bytes"]
    assert {r[0]: int(r[4]) for r in rows} == files
    assert all(len(r[3]) == 40 and r[1].count("/") == 1 and r[2] for r in rows)
    assert sum(files.values()) < 4_000_000 and max(files.values()) < 1_000_000
