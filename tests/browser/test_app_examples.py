"""The examples gallery: every example loads and shows what its seed document says."""

from __future__ import annotations

import pytest
from _app import EXAMPLES_DIR, ROOT

from relayscope.web.model import EXAMPLES

IDS = [ex.id for ex in EXAMPLES]


def test_gallery_lists_every_example_with_a_two_line_explanation(app) -> None:
    app.page.evaluate("document.getElementById('examples-box').open = true")
    cards = app.page.locator('[data-testid="example"]')
    assert cards.evaluate_all("els => els.map(e => e.dataset.example)") == IDS
    for ex, card in zip(EXAMPLES, cards.all(), strict=True):
        blurbs = card.locator(".blurb").all_text_contents()
        assert blurbs == ex.blurb.split("\n") and len(blurbs) == 2
        assert card.locator("strong").text_content() == ex.title
        assert (ROOT / ex.path).is_file() and (ROOT / ex.path).stat().st_size < 1_000_000


@pytest.mark.parametrize("example_id", IDS)
def test_each_example_shows_as_many_relays_as_the_cli(app, cli_count, example_id) -> None:
    ex = next(x for x in EXAMPLES if x.id == example_id)
    app.example(example_id)
    assert app.relay_count() == cli_count(ROOT / ex.path)
    assert app.testid("source").text_content().startswith((ROOT / ex.path).name)
    assert "example=" + example_id in app.page.url
    app.log.assert_same_origin()


def test_index_bug_index_strategy_loses_sub_agent_b_and_the_audit_says_so(app, cli_count) -> None:
    app.example("index-bug", strategy="index")
    assert app.relay_count() == cli_count(EXAMPLES_DIR / "index-bug.ndjson", strategy="index")
    timeline = app.testid("timeline")
    assert "Sub-agent A" in timeline.text_content()
    relay_rows = " ".join(timeline.locator(".row:not(.lost)").all_text_contents())
    assert "Sub-agent B" not in relay_rows  # skipped: below the index
    assert "Sub-agent B" in timeline.locator(".row.lost").text_content()  # and shown as lost
    assert app.audit_cell("index", "lost") == 1
    for other in ("none", "fingerprint", "lineage"):
        assert app.audit_cell(other, "lost") == 0
    note = app.page.locator('[data-testid="audit-notes"] li[data-strategy="index"][data-kind="lost"]')
    assert "Sub-agent B: running the tests" in note.text_content()
    # the link goes to the line where B's text was skipped, and says why
    app.tab("audit")
    note.locator('[data-testid="audit-first-lost"]').click()
    assert app.step_position() == "4 / 6"
    assert app.testid("step-facts").locator('[data-fact="decision"]').text_content().startswith("lost")
    assert app.testid("dedup-index").text_content() == "index 1 → 1"
    # lineage puts both sub-agent texts in the spawned lane and loses nothing
    app.strategy("lineage")
    assert "Sub-agent B" in timeline.text_content()
    assert app.lanes() == ["main", "toolu_agent"]


def test_cumulative_dedup_none_repeats_blocks_that_index_emits_once(app, cli_count) -> None:
    path = EXAMPLES_DIR / "cumulative-dedup.ndjson"
    app.example("cumulative-dedup", strategy="none")
    assert app.relay_count() == cli_count(path, strategy="none")
    assert app.audit_cell("none", "duplicated") > 0
    assert app.audit_cell("index", "duplicated") == 0 and app.audit_cell("index", "lost") == 0
    app.strategy("index")
    assert app.relay_count() == cli_count(path, strategy="index") < cli_count(path, strategy="none")
    # the duplicate link of 'none' switches to 'none' and selects the repeated relay
    app.tab("audit")
    app.page.click('[data-testid="audit-notes"] li[data-strategy="none"] [data-testid="audit-first-dup"]')
    app.settle()
    assert app.testid("strategy").input_value() == "none"
    assert app.page.locator(".row.selected.emitted").count() == 1


def test_interleaved_sub_agents_get_one_labelled_lane_each(app) -> None:
    app.example("interleaved-subagents")
    assert app.lanes() == ["main", "toolu_A", "toolu_B"]
    labels = app.page.locator('[data-testid="lane-label"]').all_text_contents()
    assert labels[1] == "Explore: Search for usages"
    lane_a = app.page.locator('[data-testid="lane"][data-lane="toolu_A"]')
    assert "inferred" in lane_a.text_content() and "depth 1" in lane_a.text_content()
    assert app.page.locator('[data-testid="lane"][data-lane="main"] [data-testid="lane-cost"]').text_content() == "cost: $0.0123"


def test_gotchas_are_normalised_into_plain_rows(app) -> None:
    app.example("gotchas")
    rows = app.page.locator(".row")
    summaries = rows.locator(".summary").all_text_contents()
    assert "Thinking stored under 'text' instead of 'thinking'." in summaries
    assert "File edited successfully" in summaries  # array content joined
    assert "Bash → ok · (no content)" in summaries  # null content (the row names its call)
    done = app.page.locator('.row[data-type="turn_complete"] .summary').text_content()
    assert "The actual text here" in done and '"' not in done  # double-encoded result unwrapped


def test_fleet_stream_gets_one_lane_per_stream(app) -> None:
    app.example("fleet-parallel")
    lanes = app.lanes()
    assert lanes[0] == "main" and len(lanes) == 4
    assert all(lane.startswith("stream-") for lane in lanes[1:])
    assert app.page.locator('[data-testid="lane-tokens"]').count() >= 3
    assert "nothing to compare" in app.testid("audit").text_content()


def test_real_streaming_capture_streams_deltas_and_does_not_repeat_the_snapshot(app) -> None:
    app.example("real-streaming")
    toggle = app.page.locator('.row [data-testid="fragments-toggle"]')  # the deltas, as one row
    assert toggle.count() >= 1 and int(toggle.first.text_content().split()[0]) > 1
    assert app.audit_cell("lineage", "duplicated") == 0 and app.audit_cell("lineage", "lost") == 0
