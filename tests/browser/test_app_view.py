"""What the app shows once a transcript is in: lanes, rows, the step-through, filters, keys,
themes, sharing and exports; and that none of it reaches beyond the page's origin."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path

from _app import CORPUS, EXAMPLES_DIR, SETTLED_RUN, cli_ndjson, wait_js

from relayscope.translator import STRATEGY_NAMES

REAL_SUBAGENTS = EXAMPLES_DIR / "real-subagents.jsonl"
REAL_TASK = CORPUS / "stream-json" / "ArturoKuang__sandbox_ai_compiler__.repomirror__claude_output.jsonl"
INDEX_BUG = EXAMPLES_DIR / "index-bug.ndjson"


def cli_relays(path: Path, strategy: str = "lineage") -> list[dict]:
    return [json.loads(line) for line in cli_ndjson(path, strategy=strategy).splitlines()]


def test_a_real_capture_with_sub_agents_shows_one_lane_per_agent_context(app) -> None:
    app.example("real-subagents")
    relays = cli_relays(REAL_SUBAGENTS)
    expected = list(dict.fromkeys(r["lane"] for r in relays))
    assert app.lanes() == expected and len(expected) == 4
    page = app.page
    for start in (r for r in relays if r["type"] == "lane_start" and r["lane"] != "main"):
        card = page.locator(f'[data-testid="lane"][data-lane="{start["lane"]}"]')
        assert card.locator('[data-testid="lane-label"]').text_content() == start["label"]
        assert card.locator('[data-testid="lane-agent-type"]').text_content() == start["agent_type"]
        assert "depth 1" in card.text_content()
        usage = [r for r in relays if r["type"] == "usage" and r["lane"] == start["lane"]]
        tokens = card.locator('[data-testid="lane-tokens"]').text_content().replace("\u202f", "")
        assert f"{sum(u['output_tokens'] for u in usage)} out" in tokens
    # the spawning tool_use links to its lane; the lane's end links back to the tool_result
    lane = expected[1]
    card = page.locator(f'[data-testid="lane"][data-lane="{lane}"]')
    app.tab("lanes")
    card.locator('[data-testid="lane-spawn"]').click()
    spawn = page.locator(".row.selected")
    assert spawn.get_attribute("data-type") == "tool_use" and spawn.get_attribute("data-lane") == "main"
    spawn.locator('[data-testid="opens-lane"]').click()
    assert page.locator(".row.selected").get_attribute("data-lane") == lane
    card.locator('[data-testid="lane-end"]').click()
    end = page.locator(".row.selected")
    assert end.get_attribute("data-type") == "lane_end"
    end.locator('[data-testid="back-to"]').click()
    result = page.locator(".row.selected")
    assert result.get_attribute("data-type") == "tool_result"
    assert result.get_attribute("data-seq") == card.locator('[data-testid="lane-result"]').text_content().split("#")[1]
    # tool_use and tool_result are paired both ways
    result.locator('[data-testid="pair-link"]').click()
    assert page.locator(".row.selected").get_attribute("data-seq") == spawn_seq(relays, lane)


def spawn_seq(relays: list[dict], lane: str) -> str:
    return str(next(r["seq"] for r in relays if r["type"] == "tool_use" and r["id"] == lane))


def test_relay_count_and_exports_equal_the_cli_for_every_strategy(app) -> None:
    app.open_files([REAL_TASK])
    for strategy in STRATEGY_NAMES:
        app.strategy(strategy)
        expected = cli_ndjson(REAL_TASK, strategy=strategy)
        assert app.relay_count() == len(expected.splitlines()), strategy
        with app.page.expect_download() as download:
            app.tab("share")
            app.testid("export-ndjson").click()
        assert Path(download.value.path()).read_bytes() == expected, strategy
    with app.page.expect_download() as download:
        app.testid("export-trace").click()
    trace = subprocess.run([sys.executable, "-m", "relayscope", "trace", "--json", "-s", "lineage", str(REAL_TASK)],
                           capture_output=True, check=False).stdout
    assert json.loads(Path(download.value.path()).read_bytes()) == json.loads(trace)
    assert download.value.suggested_filename.endswith(".lineage.trace.json")


def test_stepping_shows_the_index_pointer_fingerprints_and_decision(app) -> None:
    app.example("index-bug", strategy="index")
    page = app.page
    assert app.step_position() == "4 / 6"  # the example opens on the block it loses
    app.testid("step-first").click()
    assert app.step_position() == "1 / 6"
    assert app.testid("step-prev").is_disabled() and app.testid("step-first").is_disabled()
    app.testid("step-next").click()  # line 2: three blocks, index 0 -> 3
    assert app.step_position() == "2 / 6"
    assert app.testid("dedup-index").text_content() == "index 0 → 3"
    assert app.testid("content-array").locator("li.block").count() == 4  # 3 blocks + end slot
    assert page.locator('[data-testid="pointer-before"]').evaluate("e => e.closest('li').dataset.index") == "0"
    assert page.locator('[data-testid="pointer-after"]').evaluate("e => e.closest('li').dataset.index") == "3"
    assert page.locator(".row.emitted").count() == 3
    page.keyboard.press("ArrowRight")  # line 3: content shrank, reset, emitted again
    assert app.step_position() == "3 / 6"
    assert "shrank" in app.testid("step-facts").text_content()
    assert "changed" in app.testid("fp-verdict").text_content()
    page.keyboard.press("ArrowRight")  # line 4: sub-agent B's text sits below the index
    assert app.step_position() == "4 / 6"
    assert app.testid("dedup-index").text_content() == "index 1 → 1"
    assert app.testid("step-facts").locator('[data-fact="decision"]').text_content() == "lost: 1 block never emitted"
    assert app.testid("content-array").locator("li.block.below").count() == 1
    assert "emitted nothing" in app.testid("step-emitted").text_content()
    assert "Sub-agent B: running the tests" in app.testid("step-raw").text_content()
    page.keyboard.press("ArrowLeft")
    assert app.step_position() == "3 / 6"
    # arrows typed into a field move the caret, not the step
    app.testid("filter").focus()
    page.keyboard.press("ArrowRight")
    assert app.step_position() == "3 / 6"
    page.keyboard.press("Escape")
    app.testid("step-last").click()
    assert app.step_position() == "6 / 6" and app.testid("step-next").is_disabled()
    assert "step=6" in page.url and "strategy=index" in page.url


def test_fingerprints_get_a_colour_each_and_resets_are_marked(app) -> None:
    app.example("interleaved-subagents", strategy="fingerprint")
    page = app.page
    rows = page.locator(".row").evaluate_all(
        """rows => rows.map(r => ({fp: r.querySelector('.fp')?.title || null,
                                  cls: r.querySelector('.fp')?.className,
                                  mark: r.querySelector('.mark')?.textContent || null}))""")
    colours: dict[str, str] = {}
    for row in rows:
        if row["fp"]:
            assert colours.setdefault(row["fp"], row["cls"]) == row["cls"]
    assert len(colours) >= 3  # main, A, B
    marks = [r["mark"] for r in rows if r["mark"]]
    assert any("context switch" in m for m in marks) and any("turn end" in m for m in marks)


def test_filter_by_text_type_and_lane(app) -> None:
    app.example("real-subagents")
    relays = cli_relays(REAL_SUBAGENTS)
    page = app.page
    page.click('[data-testid="type-filter"] button[data-type="tool_use"]')
    assert app.relay_count() == sum(r["type"] == "tool_use" for r in relays)
    lane = app.lanes()[2]
    app.testid("lane-filter").select_option(lane)
    assert app.relay_count() == sum(r["type"] == "tool_use" and r["lane"] == lane for r in relays)
    assert set(page.locator(".row").evaluate_all("rs => rs.map(r => r.dataset.lane)")) == {lane}
    page.click('[data-testid="type-filter"] button[data-type="tool_use"]')
    app.testid("lane-filter").select_option("")
    assert app.relay_count() == len(relays)
    app.testid("filter").fill("Agent")
    wait_js(page, f"document.querySelector('[data-testid=relay-count]').textContent !== '{len(relays)}'")
    assert 0 < app.relay_count() < len(relays)
    assert "q=Agent" in page.url
    app.testid("filter").fill("")
    wait_js(page, f"document.querySelector('[data-testid=relay-count]').textContent === '{len(relays)}'")


def test_keys_move_the_selection_and_open_a_row_with_its_raw_line(app) -> None:
    app.example("gotchas")
    page = app.page
    app.testid("timeline").focus()
    page.keyboard.press("j")
    page.keyboard.press("ArrowDown")
    assert page.locator(".row.selected").get_attribute("data-seq") == "1"
    page.keyboard.press("Enter")
    detail = page.locator('.row.selected [data-testid="row-detail"]')
    first_line = (EXAMPLES_DIR / "gotchas.ndjson").read_text(encoding="utf-8").splitlines()[0]
    assert detail.locator('[data-testid="row-raw"]').text_content() == first_line
    assert "sess-demo-1" in detail.locator('[data-testid="row-content"]').text_content()
    page.keyboard.press("k")
    assert page.locator(".row.selected").get_attribute("data-seq") == "0"
    page.keyboard.press("Escape")
    assert page.locator('[data-testid="row-detail"]').count() == 0
    assert "row=0" in page.url


def test_the_timeline_only_renders_the_rows_on_screen(app) -> None:
    app.example("real-subagents", strategy="none")
    total = app.relay_count()
    page = app.page
    assert total > 200
    assert page.locator(".row").count() < 80
    page.locator('[data-testid="timeline"]').evaluate("t => { t.scrollTop = t.scrollHeight; t.dispatchEvent(new Event('scroll')); }")
    page.wait_for_selector(f'.row[data-seq="{total - 1}"]')
    assert page.locator('.row[data-seq="0"]').count() == 0
    assert page.locator(".row").count() < 80


def test_theme_toggle_and_a_narrow_screen(app) -> None:
    app.example("index-bug")
    page = app.page
    background = "getComputedStyle(document.body).backgroundColor"
    app.testid("theme").click()
    assert page.get_attribute("html", "data-theme") == "light"
    assert page.evaluate(background) == "rgb(255, 255, 255)"
    app.testid("theme").click()
    assert page.get_attribute("html", "data-theme") == "dark"
    assert page.evaluate(background) == "rgb(13, 17, 23)"
    app.testid("theme").click()
    assert page.get_attribute("html", "data-theme") is None
    page.set_viewport_size({"width": 360, "height": 740})
    try:
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        assert app.testid("timeline").is_visible() and app.testid("step-next").is_visible()
    finally:
        page.set_viewport_size({"width": 1400, "height": 900})


def test_a_share_link_reproduces_the_view_on_another_page(app, visit, site, request_log) -> None:
    app.open_files([INDEX_BUG], strategy="index")  # a file: the link carries the transcript
    page = app.page
    page.click('.row[data-seq="2"] .summary')  # selects the row (and its step)
    page.click('[data-testid="step-first"]')
    for _ in range(3):
        app.testid("step-next").click()
    app.tab("share")
    app.testid("share").click()
    link = app.testid("share-link").get_attribute("href")
    assert link.startswith(site.url) and "#v1." in link
    text = INDEX_BUG.read_text(encoding="utf-8")
    assert "Sub-agent" not in link  # compressed
    other = visit(site, link[len(site.url):])
    assert other.input_value('[data-testid="strategy"]') == "index"
    assert other.text_content('[data-testid="step-position"]') == "4 / 6"
    assert other.get_attribute(".row.selected", "data-seq") == "2"
    assert other.locator('.row.selected [data-testid="row-detail"]').count() == 1
    assert other.text_content('[data-testid="source"]').startswith("index-bug.ndjson")
    assert int(other.text_content('[data-testid="relay-count"]')) == len(cli_ndjson(INDEX_BUG, strategy="index").splitlines())
    request_log.assert_same_origin()
    assert not [u for u in request_log.urls() if "v1." in u or "Sub-agent" in u]
    assert len(text) > 0
    # a changed view: the link follows it; the step-through's key, the share tab shown
    app.testid("timeline").focus()
    app.page.keyboard.press("ArrowRight")
    assert app.testid("share-link").is_visible() and "step=5" in app.testid("share-link").get_attribute("href")


def test_a_transcript_too_large_for_a_link_is_offered_as_downloads(app) -> None:
    rng = random.Random(7)
    noise = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(200_000))
    lines = INDEX_BUG.read_text(encoding="utf-8").splitlines()
    event = json.loads(lines[2])
    event["message"]["content"][0]["text"] = noise
    lines[2] = json.dumps(event)
    text = "\n".join(lines) + "\n"
    app.paste(text)
    app.tab("share")
    app.testid("share").click()
    assert app.testid("share-too-large").is_visible()
    assert "too large to travel in a link" in app.testid("share-note").text_content().lower()
    assert app.testid("share-link").get_attribute("data-kind") == "fingerprint"
    with app.page.expect_download() as download:
        app.testid("download-source").click()
    assert Path(download.value.path()).read_text(encoding="utf-8") == text  # byte for byte
    with app.page.expect_download() as download:
        app.testid("download-ndjson").click()
    assert len(Path(download.value.path()).read_bytes().splitlines()) == app.relay_count()


def test_no_request_leaves_the_origin_during_load_analysis_and_sharing(open_app, site, request_log) -> None:
    page = open_app(site)
    page.evaluate("document.getElementById('examples-box').open = true")
    page.click('[data-testid="example"][data-example="real-subagents"]')
    page.wait_for_selector(SETTLED_RUN, state="attached")
    page.select_option('[data-testid="strategy"]', "index")
    page.wait_for_selector(SETTLED_RUN, state="attached")
    page.fill('[data-testid="filter"]', "Agent")
    page.click('[data-testid="step-next"]')
    page.click("#tab-share")
    page.click('[data-testid="share"]')
    with page.expect_download():
        page.click('[data-testid="export-ndjson"]')
    page.evaluate("document.getElementById('examples-box').open = true")
    page.click('[data-testid="example"][data-example="index-bug"]')
    page.wait_for_selector(SETTLED_RUN, state="attached")
    page.click("#tab-share")
    page.click('[data-testid="share"]')
    link = page.get_attribute('[data-testid="share-link"]', "href")
    page.goto(link)
    page.wait_for_selector(SETTLED_RUN, state="attached", timeout=120_000)
    assert page.get_attribute("html", "data-app-state") == "done"
    request_log.assert_same_origin()
    request_log.assert_all_succeeded()


# Every time the page applies the worker's changes to the timeline (a MutationObserver runs
# after them, before the browser paints), note any shown row that overlaps the open row.
WATCH_OVERLAP = """() => {
  window.__overlaps = [];
  const timeline = document.querySelector('[data-testid="timeline"]');
  new MutationObserver(() => {
    const open = timeline.querySelector('.row.open');
    if (!open) return;
    const box = open.getBoundingClientRect();
    for (const row of timeline.querySelectorAll('.row')) {
      if (row === open || getComputedStyle(row).visibility === 'hidden') continue;
      const r = row.getBoundingClientRect();
      if (r.top >= box.top && r.top < box.bottom - 1) window.__overlaps.push([row.dataset.seq, r.top, box.bottom]);
    }
  }).observe(timeline, {subtree: true, childList: true, attributes: true});
}"""


def test_rows_below_an_opened_row_never_show_over_it(app) -> None:
    """An opened row is measured by the page after it is drawn; until the worker has placed the
    rows below it by that height, they are not shown (they used to sit over it for a frame)."""
    app.example("gotchas")
    page = app.page
    page.evaluate(WATCH_OVERLAP)
    for seq in ("1", "3", "0"):  # a click opens a row (and closes the one open)
        page.locator(f'.row[data-seq="{seq}"] .summary').click()
        opened = page.locator(f'.row.open[data-seq="{seq}"]').bounding_box()
        below = page.locator(f'.row[data-seq="{int(seq) + 1}"]')
        assert below.is_visible() and below.bounding_box()["y"] >= opened["y"] + opened["height"] - 1
    assert page.evaluate("window.__overlaps") == []
