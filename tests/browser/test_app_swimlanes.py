"""The swimlane view in a real browser: one track per lane labelled as the lanes panel
labels it, the axis named, a click selecting the row and the step, hover, the keyboard, zoom,
a dragged range filtering the timeline, the exports byte for byte the CLI's (and with "Redact
secrets" on, the CLI's `export --redact`), the view hidden when it would only repeat the rows,
390 px and dark."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _app import CORPUS, AppDriver

SESSION_DIR = (CORPUS / "session-jsonl" / "handgemacht-ai__claude-code-log" / "test" / "test_data"
               / "real_projects" / "-experiments-worktrees")
PLANTED = Path(__file__).parents[1] / "fixtures" / "redact" / "planted.jsonl"
STREAM = CORPUS / "stream-json" / "ArturoKuang__sandbox_ai_compiler__.repomirror__claude_output.jsonl"


def open_session(app: AppDriver, tmp_path: Path) -> Path:
    folder = tmp_path / "-experiments-worktrees"
    if not folder.exists():
        shutil.copytree(SESSION_DIR, folder)
    app.testid("folder-input").set_input_files(folder)
    app.settle()
    app.page.wait_for_selector("[data-testid=swimlanes][data-view]", state="attached")
    return folder


def tracks(app: AppDriver) -> list[str]:
    return app.page.eval_on_selector_all("[data-testid=swimlane-track]", "els => els.map(e => e.dataset.lane)")


def spans_of(app: AppDriver, lane: str) -> list[dict]:
    """A track's spans as the page holds them (swimlanes.mjs's spansOf, for scripts and tests)."""
    return app.page.evaluate("(lane) => import('./static/js/swimlanes.mjs').then((m) => m.spansOf(lane))", lane)


def brushed(app: AppDriver) -> list[float] | None:
    """The range dragged on the swimlanes, as the page holds it."""
    return app.page.evaluate("() => import('./static/js/swimlanes.mjs').then((m) => m.range())")


def view(app: AppDriver) -> tuple[float, float]:
    a, b = app.page.get_attribute("[data-testid=swimlanes]", "data-view").split()
    return float(a), float(b)


def to_axis(app: AppDriver, t: float) -> float:
    """A true time's place on the (maybe folded) axis, as the page maps it."""
    return app.page.evaluate("(t) => import('./static/js/swimlanes.mjs').then((m) => m.toAxis(t))", t)


def row_box(app: AppDriver, row: int) -> tuple[float, float]:
    """Where a track's row is drawn at the page's current density: top and height, in px."""
    top, height = app.page.evaluate("(r) => import('./static/js/swimlanes.mjs').then((m) => m.rowBox(r))", row)
    return top, height


def point_of(app: AppDriver, lane: str, span: dict) -> tuple[float, float]:
    """Where a span is drawn (its middle) with the current view."""
    box = app.page.locator(f'[data-testid=swimlane-track][data-lane="{lane}"] .sl-lane').bounding_box()
    a, b = view(app)
    mid = (max(to_axis(app, span["start"]), a) + min(to_axis(app, span["end"]), b)) / 2
    x = box["x"] + (mid - a) / (b - a) * box["width"]
    top, height = row_box(app, span["row"])
    return x, box["y"] + top + height / 2


def test_one_track_per_lane_main_on_top_labelled_as_the_lanes_panel(app, tmp_path: Path) -> None:
    open_session(app, tmp_path)
    page = app.page
    assert page.locator("[data-testid=swimlanes]").is_visible()
    got = tracks(app)
    assert got[0] == "main" and sorted(got) == sorted(app.lanes())
    for lane in got:
        label = page.locator(f'[data-testid=lane][data-lane="{lane}"] [data-testid=lane-label]').text_content()
        track = page.locator(f'[data-testid=swimlane-track][data-lane="{lane}"]')
        assert track.locator("[data-testid=swimlane-label]").text_content() == label
        assert track.get_attribute("data-depth") == ("0" if lane == "main" else "1")
        assert " · tools " in track.locator("[data-testid=swimlane-lane-figures]").text_content()
    assert app.testid("swimlane-axis").text_content() == (
        "x: wall-clock time, from 2026-04-18 13:10:51 UTC; 3 idle gaps over 5m 00s folded")
    figures = app.testid("swimlane-figures").text_content()
    # wall time runs from the first record (13:10:51) to the last (the /exit at 15:09:30): the wait is idle
    assert figures.startswith("2 sub-agents · wall 1h 58m · a tool running ") and "by tool" in figures
    assert " · idle 1h 38m · " in figures
    # the parallel sub-agents' spawning calls overlap on main's track, in rows of their own
    calls = [s for s in spans_of(app, "main") if s["name"] == "Agent"]
    assert any(a["start"] < b["end"] and b["start"] < a["end"] for a in calls for b in calls if a is not b)
    assert len({s["row"] for s in calls}) >= 2


def test_the_run_s_figures_count_sub_agents_in_words(app) -> None:
    main = next(CORPUS.rglob("ef958aa1-*.jsonl"))
    subagents = sorted((main.parent / main.stem / "subagents").glob("*.jsonl"))
    app.open_files([str(main), str(subagents[0])])  # main and one of its sub-agents
    app.page.wait_for_selector("[data-testid=swimlanes][data-view]", state="attached")
    assert len(tracks(app)) == 2
    assert app.testid("swimlane-figures").text_content().startswith("1 sub-agent · wall ")
    app.open_files([str(main), *map(str, subagents)])
    app.page.wait_for_selector("[data-testid=swimlanes][data-view]", state="attached")
    assert app.testid("swimlane-figures").text_content().startswith("2 sub-agents · wall ")


def test_stream_json_axis_is_line_order(app) -> None:
    app.open_files(str(STREAM))
    app.page.wait_for_selector("[data-testid=swimlanes][data-view]", state="attached")
    assert app.testid("swimlane-axis").text_content() == "x: input line order (the input has no timestamps)"
    assert len(tracks(app)) == 2


def test_a_click_selects_the_row_and_the_step_and_hover_says_name_and_duration(app, tmp_path: Path) -> None:
    open_session(app, tmp_path)
    lane = tracks(app)[1]
    span = max((s for s in spans_of(app, lane) if s["row"] == 1), key=lambda s: s["end"] - s["start"])
    # the swimlanes are a few lines high over the rows: their track scrolled into their view first
    app.page.locator(f'[data-testid=swimlane-track][data-lane="{lane}"]').scroll_into_view_if_needed()
    x, y = point_of(app, lane, span)
    app.page.mouse.move(x, y)
    tip = app.testid("swimlane-tip")
    tip.wait_for(state="visible")
    text = tip.text_content()
    assert text.startswith(f"{span['name']} · ") and ("m " in text or " s" in text)
    app.page.mouse.click(x, y)
    app.page.wait_for_selector(f'.row.selected[data-seq="{span["seq"]}"]', state="attached")
    row = app.page.locator(".row.selected")
    assert row.get_attribute("data-type") == "tool_use"
    line = row.locator(".ln").text_content().strip(":")
    assert app.testid("step-position").get_attribute("data-line") == line


def test_the_keyboard_reaches_every_span_and_leaves_the_page_keys_alone(app, tmp_path: Path) -> None:
    open_session(app, tmp_path)
    page = app.page
    main = page.locator('[data-testid=swimlane-track][data-lane="main"] .sl-lane')
    main.focus()
    step = app.step_position()
    page.keyboard.press("Home")
    first = main.get_attribute("aria-description")
    page.keyboard.press("ArrowRight")
    second = main.get_attribute("aria-description")
    assert first and second and first != second
    assert app.step_position() == step  # → moved along the track, not the stepper
    page.keyboard.press("ArrowDown")
    lane = tracks(app)[1]
    # one Tab stop for the tracks: the one last used
    assert page.eval_on_selector_all("[data-testid=swimlane-canvas]", "els => els.map(e => e.tabIndex)") == [-1, 0, -1]
    assert page.evaluate("document.activeElement.closest('[data-testid=swimlane-track]').dataset.lane") == lane
    page.keyboard.press("Home")
    page.keyboard.press("Enter")
    first_seq = min(spans_of(app, lane), key=lambda s: (s["start"], s["row"]))["seq"]
    page.wait_for_selector(f'.row.selected[data-seq="{first_seq}"]', state="attached")


def test_zoom_with_keys_buttons_and_wheel_then_fit(app, tmp_path: Path) -> None:
    open_session(app, tmp_path)
    page = app.page
    a, b = view(app)
    page.locator('[data-testid=swimlane-track][data-lane="main"] .sl-lane').focus()
    page.keyboard.press("+")
    page.wait_for_timeout(100)
    a1, b1 = view(app)
    assert b1 - a1 == pytest.approx((b - a) / 2, rel=0.01)
    page.keyboard.press("-")
    page.wait_for_timeout(100)
    assert view(app)[1] - view(app)[0] == pytest.approx(b - a, rel=0.01)
    app.testid("swimlane-zoom-in").click()
    page.wait_for_timeout(100)
    assert view(app)[1] - view(app)[0] == pytest.approx((b - a) / 2, rel=0.01)
    box = page.locator('[data-testid=swimlane-track][data-lane="main"] .sl-lane').bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 4)
    page.mouse.wheel(0, -400)
    page.wait_for_timeout(100)
    assert view(app)[1] - view(app)[0] < (b - a) / 2
    page.mouse.wheel(300, 0)  # sideways: a pan
    page.wait_for_timeout(100)
    app.testid("swimlane-fit").click()
    page.wait_for_timeout(100)
    assert view(app) == pytest.approx((a, b))


def test_dragging_a_range_filters_the_timeline_to_it(app, tmp_path: Path) -> None:
    open_session(app, tmp_path)
    page = app.page
    total = app.relay_count()
    # the swimlanes are a few lines high over the rows: the track scrolled into their view first
    page.locator('[data-testid=swimlane-track][data-lane="main"]').scroll_into_view_if_needed()
    box = page.locator('[data-testid=swimlane-track][data-lane="main"] .sl-lane').bounding_box()
    y = box["y"] + 4
    page.mouse.move(box["x"] + box["width"] * 0.20, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.35, y, steps=5)
    page.mouse.up()
    app.testid("swimlane-clear-range").wait_for(state="visible")
    shown = app.relay_count()
    assert 0 < shown < total
    lo, hi = brushed(app)
    assert 0 < lo < hi
    app.testid("swimlane-clear-range").click()
    assert app.relay_count() == total
    # again, and Esc on the focused track clears it (the button is for the pointer: no Tab stop)
    page.mouse.move(box["x"] + box["width"] * 0.20, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.35, y, steps=5)
    page.mouse.up()
    app.testid("swimlane-clear-range").wait_for(state="visible")
    assert app.relay_count() == shown
    assert app.testid("swimlane-clear-range").get_attribute("tabindex") == "-1"
    page.keyboard.press("Escape")  # the press focused the track
    app.testid("swimlane-clear-range").wait_for(state="hidden")
    app.settle()
    assert app.relay_count() == total and brushed(app) is None


def test_the_tracks_declare_and_say_their_keys(app, tmp_path: Path) -> None:
    open_session(app, tmp_path)
    boxes = app.page.locator("[data-testid=swimlane-canvas]")
    for k in range(boxes.count()):
        keys = boxes.nth(k).get_attribute("aria-keyshortcuts").split()
        assert {"ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "Enter", "Shift+=", "-", "0", "f",
                "Escape"} <= set(keys)
        said = boxes.nth(k).get_attribute("aria-description")
        assert all(word in said for word in ("+ and − zoom", "0 shows the whole run", "Esc clears")), said
    for testid in ("swimlane-zoom-in", "swimlane-zoom-out", "swimlane-fit", "swimlane-clear-range"):
        button = app.testid(testid)
        assert button.get_attribute("tabindex") == "-1" and button.get_attribute("aria-keyshortcuts")


# At each change of <html data-app-state> and once the swimlanes are drawn: what the page shows.
RECORD_ORDER = """() => {
  window.__order = [];
  const root = document.documentElement, section = document.querySelector('[data-testid=swimlanes]');
  const look = (what) => window.__order.push({
    what, state: root.dataset.appState, lanesMs: root.dataset.lanesMs ?? null,
    building: section.hasAttribute('data-building'), hidden: section.hidden,
    note: document.querySelector('[data-testid=swimlanes-building]')?.textContent ?? null,
    noteSeen: document.querySelector('[data-testid=swimlanes-building]')?.checkVisibility() ?? false,
    tracks: document.querySelectorAll('[data-testid=swimlane-track]').length,
    rows: document.querySelectorAll('[data-testid=timeline] .row').length,
    rowsTop: document.querySelector('[data-testid=timeline]').getBoundingClientRect().top});
  let had = root.dataset.lanesMs !== undefined;
  new MutationObserver(() => {
    const last = window.__order.at(-1);
    if (!last || last.state !== root.dataset.appState) look('state');
    const has = root.dataset.lanesMs !== undefined;
    if (has && !had) look('lanes');
    had = has;
  }).observe(root, {attributes: true, attributeFilter: ['data-app-state', 'data-lanes-ms']});
}"""


def test_the_rows_are_done_before_the_swimlanes_which_say_they_are_being_built(app, tmp_path: Path) -> None:
    """The job is done (rows, counts) with the swimlanes still to build: the section in its
    place saying so in words; then they are drawn, the rows where they were, and <html
    data-lanes-ms> says when."""
    open_session(app, tmp_path)  # a timeline on screen: the next input's replaces it
    app.page.evaluate(RECORD_ORDER)
    app.testid("strategy").select_option("none")
    app.settle()
    order = app.page.evaluate("window.__order")
    done = next(o for o in order if o["what"] == "state" and o["state"] == "done")
    drawn = next(o for o in order if o["what"] == "lanes")
    assert order.index(done) < order.index(drawn), order
    assert done["rows"] > 0 and done["lanesMs"] is None and done["tracks"] == 0, done
    assert done["building"] and not done["hidden"] and "Building the agents' timeline" in (done["note"] or ""), done
    assert done["noteSeen"], done
    assert not drawn["building"] and drawn["note"] is None and drawn["tracks"] == len(app.lanes()), drawn
    assert drawn["rowsTop"] == done["rowsTop"], "the rows moved when the swimlanes came"
    lanes_ms = float(app.page.get_attribute("html", "data-lanes-ms"))
    assert lanes_ms >= float(app.page.get_attribute("html", "data-analysis-ms"))


def test_the_swimlanes_say_where_their_build_went(app, tmp_path: Path) -> None:
    """<html data-lanes-parts>: the build's parts in ms (the timeline, the positions, the tracks,
    sending them, the hand-backs, the cycle collector's share) and its longest slice."""
    open_session(app, tmp_path)
    app.page.wait_for_selector("html[data-lanes-ms]", state="attached")
    parts = dict(p.split("=") for p in (app.page.get_attribute("html", "data-lanes-parts") or "").split())
    assert {"timeline", "positions", "tracks", "send", "gc", "longest"} <= parts.keys(), parts
    assert all(v.isdigit() for v in parts.values()), parts
    took = sum(int(parts[k]) for k in ("timeline", "positions", "tracks", "send"))
    assert took <= float(app.page.get_attribute("html", "data-lanes-ms")), parts


def test_the_view_shows_only_when_it_shows_more_than_the_rows(app, tmp_path: Path) -> None:
    """Lanes side by side, or tool calls in wall-clock time; not one lane in line order."""
    section = app.page.locator("[data-testid=swimlanes]")
    app.example("cumulative-dedup")  # one lane, one tool call, no timestamps: the rows say it all
    assert section.is_hidden() and app.page.locator("[data-testid=swimlane-track]").count() == 0
    app.example("real-subagents")
    app.page.wait_for_selector("[data-testid=swimlanes]:not([hidden])", state="attached")
    assert len(tracks(app)) > 1
    app.example("cumulative-dedup")  # and it goes again with the next input
    assert section.is_hidden()
    open_session(app, tmp_path)
    assert section.is_visible()


@pytest.mark.parametrize("fmt", ["chrome-trace", "otlp"])
def test_exports_are_byte_for_byte_the_cli_s(app, tmp_path: Path, fmt: str) -> None:
    folder = open_session(app, tmp_path)
    app.tab("share")  # every download is in the detail panel's Share tab
    with app.page.expect_download() as download:
        app.testid(f"export-{fmt}").click()
    got = Path(download.value.path()).read_bytes()
    cli = subprocess.run([sys.executable, "-m", "relayscope", "export", "--format", fmt, str(folder)],
                         capture_output=True, check=True).stdout
    assert got == cli and len(got) > 1000
    single = subprocess.run([sys.executable, "-m", "relayscope", "export", "--format", fmt, str(STREAM)],
                            capture_output=True, check=True).stdout
    app.open_files(str(STREAM))
    app.tab("share")
    with app.page.expect_download() as download:
        app.testid(f"export-{fmt}").click()
    assert Path(download.value.path()).read_bytes() == single


@pytest.mark.parametrize("fmt", ["chrome-trace", "otlp"])
def test_exports_honour_redact_secrets_as_the_cli_s_export_redact(app, fmt: str) -> None:
    secrets = json.loads((PLANTED.parent / "planted-secrets.json").read_text()).values()
    app.open_files(str(PLANTED))
    button = app.page.locator(f'section.share [data-testid="export-{fmt}"]')  # with the other downloads

    def got() -> bytes:
        app.tab("share")  # every download is in the detail panel's Share tab
        with app.page.expect_download() as download:
            button.click()
        return Path(download.value.path()).read_bytes()

    def cli(*flags: str) -> bytes:
        return subprocess.run([sys.executable, "-m", "relayscope", "export", "--format", fmt, *flags, str(PLANTED)],
                              capture_output=True, check=True).stdout

    plain = got()
    assert plain == cli() and any(s in plain.decode() for s in secrets)  # a secret the switch must keep out
    switch = app.testid("redact-switch")
    switch.click()
    app.page.wait_for_selector('[data-testid="redact-switch"][aria-checked="true"]')
    try:
        redacted = got()
        assert redacted == cli("--redact")
        assert not any(s in redacted.decode() for s in secrets) and "[redacted:" in redacted.decode()
    finally:
        switch.click()
        app.page.wait_for_selector('[data-testid="redact-switch"][aria-checked="false"]')
    assert got() == plain


def test_usable_at_390_px_in_dark(app, tmp_path: Path) -> None:
    page = app.page
    try:
        app.testid("theme").click()  # auto -> light (at 390 px the button is behind the menu)
        app.testid("theme").click()  # light -> dark
        page.set_viewport_size({"width": 390, "height": 844})
        open_session(app, tmp_path)
        section = page.locator("[data-testid=swimlanes]")
        sw, cw = section.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert sw <= cw  # nothing sticks out sideways
        box = page.locator('[data-testid=swimlane-track][data-lane="main"] .sl-lane').bounding_box()
        # drawn compact in the default height: the label in a narrow column beside its track, which
        # keeps two-thirds of the width (drawn full, the label goes above it)
        assert page.get_attribute("[data-testid=swimlanes]", "data-density") == "compact"
        assert box["width"] > 0.6 * 390
        bg = section.evaluate("e => getComputedStyle(e).backgroundColor")
        assert bg != "rgb(251, 252, 253)"  # the dark panel, not the light one
        page.set_viewport_size({"width": 1400, "height": 844})
        page.wait_for_timeout(100)
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # at once, before a redraw
    finally:
        page.set_viewport_size({"width": 1400, "height": 900})
        while page.get_attribute("html", "data-theme"):
            app.testid("theme").click()
