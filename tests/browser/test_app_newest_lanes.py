"""A Workflow run's agents and a message to a returned agent, on the page against the built site:
the run's lanes under the Workflow call (the call opens them, each lane_start leads back), drawn
together in the swimlanes as one group under a header naming the run, its button leading to the call; the SendMessage row in words, linked to the lane it continues and back,
and the lane's work after the message a second span of its track.

The sessions are tests/fixtures/shapes/{workflow,sendmessage}/, built from the shapes PROTOCOL.md
section 8 and other viewers document (their READMEs say so: no public capture holds either). The
view data is unit-tested in tests/unit/test_sendmessage.py and tests/unit/test_workflows.py."""

from __future__ import annotations

from pathlib import Path

from _app import AppDriver

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "shapes"
RUN = "wf_3a1b2c3d-4e5"
PARSER, CACHE = f"{RUN}/a3f1c2d4e5b6a7980", f"{RUN}/a9e8d7c6b5a4f3e21"
REVIEWER, MESSAGE = "toolu_01SpawnReviewer000001", "toolu_01MessageReviewer00001"


def open_folder(app: AppDriver, folder: Path) -> None:
    app.testid("folder-input").set_input_files(folder)
    app.settle()
    app.page.wait_for_selector("[data-testid=swimlanes][data-view]", state="attached")


def tracks(app: AppDriver) -> list[str]:
    return app.page.eval_on_selector_all("[data-testid=swimlane-track]", "els => els.map(e => e.dataset.lane)")


def agent_spans(app: AppDriver, lane: str) -> list[dict]:
    spans = app.page.evaluate("(lane) => import('./static/js/swimlanes.mjs').then((m) => m.spansOf(lane))", lane)
    return [s for s in spans if s["row"] == 0]


def row(app: AppDriver, kind: str, text: str):
    return app.page.locator(f'[data-testid="timeline"] .row[data-type="{kind}"]').filter(has_text=text)


def test_a_workflow_runs_agents_are_lanes_under_its_call(app: AppDriver) -> None:
    open_folder(app, SHAPES / "workflow" / "-Users-dev-shop")
    assert {PARSER, CACHE} <= set(app.lanes())
    order = tracks(app)
    assert order.index(CACHE) == order.index(PARSER) + 1  # the run's agents drawn together
    label = app.page.locator(f'[data-testid=lane][data-lane="{PARSER}"] [data-testid=lane-label]').text_content()
    assert label == f"Review src/parser.py for bugs: workflow run {RUN}"
    call = row(app, "tool_use", "Workflow review (script)")
    assert call.locator('[data-testid="opens-lane"]').get_attribute("data-target") == PARSER
    end = row(app, "lane_end", "returned")
    assert end.count() == 2 and 'returned {"file":"src/parser.py"' in end.first.text_content()
    back = row(app, "lane_start", f"workflow run {RUN}").first.locator('[data-testid="back-to"]')
    assert back.text_content().startswith("↩ call #")
    assert app.pwned() is None


def test_a_message_to_a_returned_agent_reads_in_words_and_draws_its_second_span(app: AppDriver) -> None:
    open_folder(app, SHAPES / "sendmessage" / "-Users-dev-shop")
    call = row(app, "tool_use", "→ general-purpose: Review the parser diff")
    assert "run the parser tests too" in call.text_content() and '{"to"' not in call.text_content()
    assert call.locator('[data-testid="opens-lane"]').get_attribute("data-target") == REVIEWER
    seq = call.get_attribute("data-seq")
    back = row(app, "lane_start", "continued by the message").locator('[data-testid="back-to"]')
    assert back.get_attribute("data-target") == seq
    spans = agent_spans(app, REVIEWER)
    assert len(spans) == 2 and spans[0]["end"] < spans[1]["start"]  # returned, then worked again


def test_a_workflow_runs_agents_are_drawn_as_one_group_named_by_the_run(app: AppDriver) -> None:
    open_folder(app, SHAPES / "workflow" / "-Users-dev-shop")
    app.lanes_drawn()
    group = app.page.locator(f'[data-testid=swimlane-run][data-run="{RUN}"]')
    assert group.count() == 1
    inside = group.evaluate("g => [...g.querySelectorAll('[data-testid=swimlane-track]')].map(e => e.dataset.lane)")
    assert inside == [PARSER, CACHE]  # the run's agents, and only they, in the run's group
    label = group.locator("[data-testid=swimlane-run-label]")
    assert label.text_content() == f"Workflow review (script) · run {RUN}"
    assert label.get_attribute("title") == label.text_content()
    call = row(app, "tool_use", "Workflow review (script)").get_attribute("data-seq")
    button = group.locator('.sl-run-head button[data-action="goto"]')
    assert button.get_attribute("data-target") == call
    button.click()
    app.page.wait_for_selector(f'[data-testid="timeline"] .row.selected[data-seq="{call}"]')
    assert app.page.locator("#swimlanes-tracks > [data-testid=swimlane-track]").evaluate_all(
        "els => els.map(e => e.dataset.lane)") == ["main"]  # main stays outside any run
    assert app.pwned() is None


SHOWS_FIRST = """([label, n]) => {
  const text = [...label.querySelectorAll('span')].find((s) => getComputedStyle(s).display !== 'none').firstChild;
  const range = document.createRange();
  range.setStart(text, 0);
  range.setEnd(text, Math.min(n, text.length));
  return range.getBoundingClientRect().width <= label.clientWidth + 0.5;
}"""


def test_on_a_phone_the_lane_labels_show_what_tells_the_agents_apart(app: AppDriver) -> None:
    """At 390 px the tracks are compact, each label in a column beside its track: wide enough for
    the first 16 characters of what each agent does (a run's agent by its task under the run's
    header; a sub-agent without its kind), the whole label in its title."""
    page = app.page
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        open_folder(app, SHAPES / "workflow" / "-Users-dev-shop")
        app.lanes_drawn()
        if page.get_attribute("#swimlanes-fold", "aria-expanded") == "false":
            page.click("#swimlanes-fold")
        page.wait_for_selector("[data-testid=swimlanes][data-density=compact]", state="attached")
        for lane, task in ((PARSER, "Review src/parser.py for bugs"), (CACHE, "Review src/cache.py for bugs")):
            label = page.locator(f'[data-testid=swimlane-track][data-lane="{lane}"] [data-testid=swimlane-label]')
            assert label.text_content() == task  # the run is its group's header
            assert label.get_attribute("title") == f"{task}: workflow run {RUN}"
            assert page.evaluate(SHOWS_FIRST, [label.element_handle(), 16])  # "Review src/parse"
        folder = (Path(__file__).resolve().parents[1] / "fixtures" / "real" / "session-jsonl" / "handgemacht-ai__claude-code-log"
                  / "test" / "test_data" / "real_projects" / "-experiments-worktrees")
        open_folder(app, folder)
        app.lanes_drawn()
        label = page.locator("[data-testid=swimlane-track][data-parent] [data-testid=swimlane-label]").first
        title = label.get_attribute("title") or ""
        assert title.startswith("general-purpose: ") and label.text_content() == title
        assert label.locator(".sl-kind").evaluate("s => getComputedStyle(s).display") == "none"
        assert page.evaluate(SHOWS_FIRST, [label.element_handle(), 16])  # "Research Claude "
    finally:
        page.set_viewport_size({"width": 1400, "height": 900})
