"""Golden tests: the seed documents' examples, under all four strategies."""

from __future__ import annotations

import pytest
from _corpus import seed

from relayscope import relay as R
from relayscope.translator import STRATEGIES, Translator

CONTENT = (R.SessionMeta, R.TextDelta, R.ThinkingDelta, R.ToolUse, R.ToolResult, R.TurnComplete)


def run(name: str, strategy: str) -> list[R.Relay]:
    t = Translator(strategy)
    out: list[R.Relay] = []
    for line in seed(name):
        out.extend(t.feed_line(line))
    out.extend(t.finish())
    return out


def brief(r: R.Relay) -> tuple[int, str, str]:
    if isinstance(r, R.TextDelta | R.ThinkingDelta):
        detail = r.text
    elif isinstance(r, R.ToolUse):
        detail = r.id
    elif isinstance(r, R.ToolResult):
        detail = r.tool_use_id
    else:
        detail = ""
    return (r.line, r.type, detail)


# seeds/000, "Example: Parallel Sub-Agents", TRANSLATOR OUTPUT, line by line.
DOCUMENTED_INTERLEAVED = [
    (1, "session_meta", ""),
    (2, "thinking_delta", "Two independent tasks: search and test."),
    (2, "text_delta", "Starting two sub-agents."),
    (2, "tool_use", "toolu_A"),
    (2, "tool_use", "toolu_B"),
    (3, "text_delta", "Agent A searching..."),
    (4, "tool_use", "toolu_grep"),
    (5, "text_delta", "Agent B testing..."),
    (6, "tool_use", "toolu_bash"),
    (7, "tool_result", "toolu_grep"),
    (7, "tool_result", "toolu_bash"),
    (8, "tool_result", "toolu_A"),
    (8, "tool_result", "toolu_B"),
    (9, "text_delta", "Both done."),
    (10, "turn_complete", ""),
]


def test_fingerprint_reproduces_the_documented_output_exactly() -> None:
    relays = run("interleaved-subagents.ndjson", "fingerprint")
    assert [brief(r) for r in relays] == DOCUMENTED_INTERLEAVED
    assert [r.seq for r in relays] == list(range(len(relays)))


def test_lineage_emits_the_documented_blocks_in_lanes_per_agent() -> None:
    relays = run("interleaved-subagents.ndjson", "lineage")
    content = [r for r in relays if isinstance(r, CONTENT)]
    assert [brief(r) for r in content] == DOCUMENTED_INTERLEAVED
    lane = {brief(r)[2]: r.lane for r in content if brief(r)[2]}
    assert lane["Agent A searching..."] == lane["toolu_grep"] == "toolu_A"
    assert lane["Agent B testing..."] == lane["toolu_bash"] == "toolu_B"
    assert lane["Both done."] == lane["toolu_A"] == "main"
    starts = {r.lane: r for r in relays if isinstance(r, R.LaneStart)}
    assert starts["toolu_A"].agent_type == "Explore" and starts["toolu_A"].inferred
    assert starts["toolu_B"].description == "Run the tests" and starts["toolu_B"].depth == 1
    ends = [r for r in relays if isinstance(r, R.LaneEnd)]
    assert [(e.lane, e.line) for e in ends] == [("toolu_A", 8), ("toolu_B", 8)]


def test_none_duplicates_the_repeated_blocks() -> None:
    relays = run("interleaved-subagents.ndjson", "none")
    texts = [r.text for r in relays if isinstance(r, R.TextDelta)]
    assert texts.count("Agent A searching...") == 2
    assert texts.count("Agent B testing...") == 2


def test_index_reproduces_the_documented_bug() -> None:
    """seeds/000 "The Problem": B's content length equals the index, so B is skipped."""
    relays = run("index-bug.ndjson", "index")
    texts = [r.text for r in relays if isinstance(r, R.TextDelta)]
    assert "Sub-agent A: searching the code base" in texts
    assert "Sub-agent B: running the tests" not in texts
    t = Translator("index", trace=True)
    for line in seed("index-bug.ndjson"):
        t.feed_line(line)
    steps = {s.line: s for s in t.trace}
    assert (steps[2].before, steps[2].after) == (0, 3)
    assert (steps[3].reset, steps[3].before, steps[3].after, steps[3].decision) == ("shrink", 3, 1, "emit")
    assert (steps[4].reset, steps[4].before, steps[4].after, steps[4].decision) == (None, 1, 1, "skip")


@pytest.mark.parametrize("strategy", ["fingerprint", "lineage", "none"])
def test_other_strategies_keep_sub_agent_b(strategy: str) -> None:
    texts = [r.text for r in run("index-bug.ndjson", strategy) if isinstance(r, R.TextDelta)]
    assert "Sub-agent B: running the tests" in texts


@pytest.mark.parametrize("strategy", ["index", "fingerprint", "lineage"])
def test_cumulative_arrays_emit_each_block_once(strategy: str) -> None:
    relays = run("cumulative-dedup.ndjson", strategy)
    content = [brief(r) for r in relays if isinstance(r, R.TextDelta | R.ThinkingDelta | R.ToolUse)]
    assert content == [
        (2, "thinking_delta", "Let me look at the code..."),
        (3, "text_delta", "I found the issue."),
        (4, "tool_use", "toolu_1"),
        (6, "text_delta", "Fixed: renamed foo to bar."),
    ]


def test_none_shows_why_dedup_exists() -> None:
    relays = run("cumulative-dedup.ndjson", "none")
    thinking = [r for r in relays if isinstance(r, R.ThinkingDelta)]
    assert [r.line for r in thinking] == [2, 3, 4]  # seeds/002: "thinking: 3 times"


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_gotchas_are_normalised_by_every_strategy(strategy: str) -> None:
    relays = run("gotchas.ndjson", strategy)
    thinking = [r for r in relays if isinstance(r, R.ThinkingDelta)]
    assert thinking[0].text == "Thinking stored under 'text' instead of 'thinking'."
    results = {r.tool_use_id: r for r in relays if isinstance(r, R.ToolResult)}
    assert results["toolu_s"].text == "file contents here"  # string
    assert results["toolu_a"].text == "File edited successfully"  # array of text blocks
    assert results["toolu_n"].text == ""  # null
    assert all(r.is_error is False for r in results.values())
    (done,) = [r for r in relays if isinstance(r, R.TurnComplete)]
    assert done.result == "The actual text here"  # double-encoded, unwrapped once


def test_index_on_one_block_events_loses_tool_calls() -> None:
    """Real output has one block per event; the documented index skips all but the first."""
    relays = run("gotchas.ndjson", "index")
    assert not [r for r in relays if isinstance(r, R.ToolUse)]
