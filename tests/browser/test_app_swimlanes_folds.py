"""The swimlanes' folded time axis in a real browser: at Fit the idle hours fold into narrow
breaks and the work gets the width (each sub-agent's span measured on screen, folded and to
scale, on a small session carried here and on the shared corpus' five-day session); each break on
the ruler with its folded time (``[data-testid=axis-gap][data-ms]``, as ``relayscope stats``
folds it); the toggle kept in the address and restored from it; a range dragged across a break
keeping the rows of both sides; the keyboard and zoom going past a break."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from _app import AppDriver

from relayscope import spans as S

ROOT = Path(__file__).resolve().parents[2]
IDLE_HOURS = ROOT / "tests" / "fixtures" / "folds" / "idle-hours"  # two idle gaps, two sub-agents in parallel
# the shared corpus, beside the checkout (CI) or at ../shared from a worktree
IDAHO_IN = Path("corpus", "real", "session-jsonl", "LAF-US__IDAHO-VAULT", ".claude", "projects",
                "c--Users-loganf-Documents-IDAHO-VAULT")
IDAHO_LOOKED = (ROOT.parent / "shared" / IDAHO_IN, ROOT.parents[1] / "shared" / IDAHO_IN)
IDAHO = next((p for p in IDAHO_LOOKED if p.is_dir()), IDAHO_LOOKED[0])
AGENT_Y = 3  # inside a track's agent bar, at either density (6 or 8 px high: static/js/swimlanes-state.mjs)
CLICKABLE_PX = 8  # a sub-agent's spans are drawn at least this wide (swimlanes-state.mjs's MIN_SUB_PX)
MODULE = "import('./static/js/swimlanes.mjs')"


def open_folder(app: AppDriver, folder: Path, tmp_path: Path) -> None:
    copy = tmp_path / folder.name
    if not copy.exists():
        shutil.copytree(folder, copy)
    app.testid("folder-input").set_input_files(copy)
    app.settle()
    app.page.wait_for_selector("[data-testid=swimlanes][data-view]", state="attached")


def fold_button(app: AppDriver):
    return app.testid("swimlane-fold")


def set_fold(app: AppDriver, on: bool) -> None:
    if (fold_button(app).get_attribute("aria-pressed") == "true") != on:
        fold_button(app).click()
    app.page.wait_for_selector(f'[data-testid=swimlanes][data-fold="{"on" if on else "off"}"]', state="attached")
    app.testid("swimlane-fit").click()
    app.page.wait_for_timeout(100)  # a frame


def query(app: AppDriver) -> dict[str, list[str]]:
    return parse_qs(urlsplit(app.page.url).query)


def agent_spans(app: AppDriver) -> dict[str, dict]:
    """Each sub-agent's own span (its track's agent bar) as drawn with the current view: true start
    and end (seconds from the run's start) and its left and right on screen, in CSS px."""
    return app.page.evaluate("""(module) => import(module).then((m) => {
      const section = document.querySelector('[data-testid=swimlanes]');
      const [a, b] = section.dataset.view.split(' ').map(Number);
      const out = {};
      for (const track of document.querySelectorAll('[data-testid=swimlane-track]')) {
        const lane = track.dataset.lane;
        if (lane === 'main') continue;
        const span = m.spansOf(lane).find((s) => !(s.flags & 1));
        const box = track.querySelector('.sl-lane').getBoundingClientRect();
        const x = (t) => box.left + ((m.toAxis(t) - a) / (b - a)) * box.width;
        out[lane] = {start: span.start, end: span.end, left: x(span.start), right: x(span.end)};
      }
      return out;
    })""", "./static/js/swimlanes.mjs")


def painted(app: AppDriver, lane: str, x: float) -> bool:
    """Whether the track's canvas has the agent bar painted at page x (its middle row)."""
    return app.page.evaluate("""([lane, x, y]) => {
      const canvas = document.querySelector(`[data-testid=swimlane-track][data-lane="${lane}"] canvas`);
      const r = canvas.getBoundingClientRect();
      const k = canvas.width / r.width;
      return canvas.getContext('2d').getImageData(Math.floor((x - r.left) * k), Math.floor(y * k), 1, 1).data[3] > 0;
    }""", [lane, x, AGENT_Y])


def widths(app: AppDriver) -> dict[str, float]:
    """Each sub-agent's span as wide as its true time maps on the axis (px)."""
    return {lane: round(s["right"] - s["left"], 2) for lane, s in agent_spans(app).items()}


def drawn_width(app: AppDriver, lane: str, x: float) -> int:
    """How many pixel columns of the track's agent bar are painted in a run from page x (the span's
    drawn left edge) rightwards."""
    return app.page.evaluate("""([lane, x, y]) => {
      const canvas = document.querySelector(`[data-testid=swimlane-track][data-lane="${lane}"] canvas`);
      const r = canvas.getBoundingClientRect();
      const k = canvas.width / r.width;
      const ctx = canvas.getContext('2d');
      let n = 0;
      const x0 = Math.floor(x - r.left); // the pixel column the span is drawn from
      while (n < 400 && ctx.getImageData(Math.floor((x0 + n + 0.5) * k), Math.floor(y * k), 1, 1).data[3] > 0) n++;
      return n;
    }""", [lane, x, AGENT_Y])


def drawn_left(app: AppDriver, lane: str, span: dict) -> float:
    """Where a sub-agent's span is drawn from: its true start, or further left when it starts
    within the minimum width of the track's right edge (it ends there then)."""
    right = app.page.locator(f'[data-testid=swimlane-track][data-lane="{lane}"] .sl-lane').bounding_box()
    return min(span["left"], right["x"] + right["width"] - CLICKABLE_PX)


def check_sub_agents_drawn_wide_enough_to_click(app: AppDriver) -> int:
    """Every sub-agent's span painted at least CLICKABLE_PX wide from where it is drawn; one
    narrower than that in true time, under the pointer at its last drawn pixel: its tooltip gives
    its true duration and says it is drawn wider, and a click there selects its row. Returns how
    many were narrower."""
    squeezed = 0
    for lane, span in agent_spans(app).items():
        track = app.page.locator(f'[data-testid=swimlane-track][data-lane="{lane}"]')
        track.scroll_into_view_if_needed()
        span = agent_spans(app)[lane]  # measured again: the tracks' box may have scrolled
        left = drawn_left(app, lane, span)
        assert drawn_width(app, lane, left) >= CLICKABLE_PX, (lane, span)
        true_px = span["right"] - span["left"]
        if true_px >= CLICKABLE_PX:
            continue
        squeezed += 1
        y = track.locator(".sl-lane").bounding_box()["y"] + AGENT_Y
        app.page.mouse.move(left + CLICKABLE_PX - 1, y)
        tip = app.testid("swimlane-tip")
        tip.wait_for(state="visible")
        label = track.locator("[data-testid=swimlane-label]").text_content()
        text = tip.text_content()
        # its true duration, in the words of the core's (the page says durations of 10 s and over alike)
        assert span["end"] - span["start"] >= 10
        assert text.startswith(f"{label} · {S.duration_words(span['end'] - span['start'], S.TIME)} — "), text
        assert "drawn 8 px wide" in text, text
        seq = next(s for s in spans_of(app, lane) if not s["flags"] & 1)["seq"]
        app.page.mouse.click(left + CLICKABLE_PX - 1, y)
        app.page.wait_for_selector(f'[data-testid=timeline] .row.selected[data-seq="{seq}"]', state="attached")
        # the track took the focus from the click: its tip still names what was clicked
        assert tip.text_content().startswith(f"{label} · "), tip.text_content()
    return squeezed



def spans_of(app: AppDriver, lane: str) -> list[dict]:
    return app.page.evaluate(f"(lane) => {MODULE}.then((m) => m.spansOf(lane))", lane)


def check_the_work_gets_the_width(app: AppDriver, name: str) -> int:
    """At Fit, to scale and folded: each sub-agent's on-screen width (printed for the report);
    folded, each is wide enough to click and painted there, and the sub-agents that ran at the
    same time overlap on screen. Returns how many sub-agents are narrower than CLICKABLE_PX in
    true time, folded (drawn that wide all the same)."""
    set_fold(app, False)
    to_scale = widths(app)
    set_fold(app, True)
    folded = widths(app)
    print(f"\n{name}: sub-agent span width at Fit, px (to scale -> folded):",
          {lane: (to_scale[lane], folded[lane]) for lane in folded})
    assert folded and sum(folded.values()) > 10 * sum(to_scale.values()), (to_scale, folded)
    assert any(w < CLICKABLE_PX for w in to_scale.values()), to_scale  # to scale, a sliver: what folding fixes
    squeezed = check_sub_agents_drawn_wide_enough_to_click(app)
    spans = agent_spans(app)
    for lane, s in spans.items():
        assert painted(app, lane, (s["left"] + s["right"]) / 2), lane
    parallel = [(p, q) for p in spans for q in spans
                if p < q and spans[p]["start"] < spans[q]["end"] and spans[q]["start"] < spans[p]["end"]]
    assert parallel, "the session has sub-agents running at the same time"
    for p, q in parallel:
        assert spans[p]["left"] < spans[q]["right"] and spans[q]["left"] < spans[p]["right"], (p, q)
        overlap = min(spans[p]["right"], spans[q]["right"]) - max(spans[p]["left"], spans[q]["left"])
        assert overlap >= CLICKABLE_PX / 2, (p, q, overlap)  # visibly, not by a pixel
    return squeezed


def test_at_fit_the_work_gets_the_width(app, tmp_path: Path) -> None:
    open_folder(app, IDLE_HOURS, tmp_path)
    check_the_work_gets_the_width(app, "idle-hours fixture")


@pytest.mark.skipif(not IDAHO.is_dir(), reason="the shared corpus' five-day session is not beside the checkout "
                    f"(looked for {' and '.join(map(str, IDAHO_LOOKED))})")
def test_at_fit_the_work_of_a_five_day_session_gets_the_width(app, tmp_path: Path) -> None:
    app.page.set_viewport_size({"width": 1280, "height": 800})
    try:
        open_folder(app, IDAHO, tmp_path)
        assert len(agent_spans(app)) == 3
        # at 1280 px the shortest sub-agent (40 s) is 7.7 px wide in true time, folded: drawn 8 px wide
        assert check_the_work_gets_the_width(app, "LAF-US__IDAHO-VAULT") == 1
    finally:
        app.page.set_viewport_size({"width": 1400, "height": 900})


def test_to_scale_every_sub_agent_is_still_drawn_wide_enough_to_click(app, tmp_path: Path) -> None:
    open_folder(app, IDLE_HOURS, tmp_path)
    set_fold(app, False)
    assert any(w < 1 for w in widths(app).values())  # to scale at Fit, a sub-agent is under a pixel
    assert check_sub_agents_drawn_wide_enough_to_click(app) >= 1


def test_each_break_is_on_the_ruler_with_its_folded_time_as_stats_folds_it(app, tmp_path: Path) -> None:
    open_folder(app, IDLE_HOURS, tmp_path)
    set_fold(app, True)
    run = subprocess.run([sys.executable, "-m", "relayscope", "stats", "--json", str(IDLE_HOURS)],
                         capture_output=True, check=True, text=True)
    want = json.loads(run.stdout)[0]["folds"]["breaks"]
    gaps = app.page.locator("[data-testid=swimlane-ruler] [data-testid=axis-gap]")
    assert gaps.count() == len(want) == 2
    for k, b in enumerate(want):
        gap = gaps.nth(k)
        assert float(gap.get_attribute("data-ms")) == b["folded_ms"]
        assert gap.get_attribute("title").startswith(f"{b['label']}: ")
        assert gap.text_content() in (b["label"], b["label"].removesuffix(" idle"))
    assert gaps.nth(1).text_content() == "29h 00m idle"  # room enough at 1400 px: said in full
    # on a track, the break says the same under the pointer
    gap = gaps.nth(1).bounding_box()
    main = app.page.locator('[data-testid=swimlane-track][data-lane="main"] .sl-lane').bounding_box()
    app.page.mouse.move(gap["x"] + gap["width"] / 2, main["y"] + main["height"] / 2)  # idle: no span there
    # read at once: the tip is the pointer's, and a later redraw of the tracks may take it away
    assert app.page.evaluate("() => !document.querySelector('[data-testid=swimlane-tip]').hidden")
    assert app.testid("swimlane-tip").text_content().startswith("29h 00m idle (folded")
    assert "2 idle gaps over 5m 00s folded" in app.testid("swimlane-axis").text_content()
    # the spans keep their true times in what they say: the longer sub-agent, 1m 57s
    lane, span = max(agent_spans(app).items(), key=lambda kv: kv[1]["end"] - kv[1]["start"])
    track = app.page.locator(f'[data-testid=swimlane-track][data-lane="{lane}"] .sl-lane')
    track.scroll_into_view_if_needed()  # the swimlanes' own height may keep a track out of view
    box = track.bounding_box()
    app.page.mouse.move((span["left"] + span["right"]) / 2, box["y"] + AGENT_Y)
    app.testid("swimlane-tip").wait_for(state="visible")
    assert " · 1m 57s" in app.testid("swimlane-tip").text_content()
    set_fold(app, False)
    assert gaps.count() == 0
    assert "2 idle gaps over 5m 00s shown to scale" in app.testid("swimlane-axis").text_content()


def test_the_toggle_is_kept_in_the_address_and_restored_from_it(app, tmp_path: Path) -> None:
    page = app.page
    open_folder(app, IDLE_HOURS, tmp_path)
    set_fold(app, True)
    assert "fold" not in query(app) and fold_button(app).get_attribute("aria-pressed") == "true"
    set_fold(app, False)
    assert query(app)["fold"] == ["off"] and fold_button(app).get_attribute("aria-pressed") == "false"
    # F on a focused track is the button's key (the button is for the pointer: no Tab stop)
    assert fold_button(app).get_attribute("tabindex") == "-1" and fold_button(app).get_attribute("aria-keyshortcuts") == "f"
    page.locator('[data-testid=swimlane-track][data-lane="main"] .sl-lane').focus()
    page.keyboard.press("f")
    page.wait_for_selector("[data-testid=swimlanes][data-fold=on]", state="attached")
    assert "fold" not in query(app) and page.locator("[data-testid=axis-gap]").count() == 2
    set_fold(app, False)
    # the address, opened again: to scale, and the toggle says so
    page.goto(page.url)
    page.wait_for_selector("html[data-app-state=ready]", state="attached")
    open_folder(app, IDLE_HOURS, tmp_path)
    assert page.get_attribute("[data-testid=swimlanes]", "data-fold") == "off"
    assert fold_button(app).get_attribute("aria-pressed") == "false" and fold_button(app).is_visible()
    assert page.locator("[data-testid=axis-gap]").count() == 0
    assert query(app)["fold"] == ["off"]
    set_fold(app, True)
    assert page.locator("[data-testid=axis-gap]").count() == 2 and "fold" not in query(app)


def test_a_range_across_a_break_keeps_the_rows_of_both_sides(app, tmp_path: Path) -> None:
    page = app.page
    open_folder(app, IDLE_HOURS, tmp_path)
    set_fold(app, True)
    total = app.relay_count()
    gap = page.locator("[data-testid=axis-gap]").nth(1).bounding_box()  # the 29 h one
    box = page.locator('[data-testid=swimlane-track][data-lane="main"] .sl-lane').bounding_box()
    y = box["y"] + 4
    page.mouse.move(gap["x"] - 30, y)  # from before the break
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] + 10, y, steps=6)  # past the run's end
    page.mouse.up()
    app.testid("swimlane-clear-range").wait_for(state="visible")
    lo, hi = page.evaluate(f"() => {MODULE}.then((m) => m.range())")
    assert hi - lo > 29 * 3600  # true time: the break's 29 h are inside the range
    rows = page.locator("[data-testid=timeline] .row").all_text_contents()
    text = " ".join(rows)
    assert "Water beds 1 and 3" in text and "Glad to help." in text  # before the break and after it
    assert "Good morning. I will wait" not in text  # before the range
    assert 0 < app.relay_count() < total
    app.testid("swimlane-clear-range").click()
    assert app.relay_count() == total


def test_the_keyboard_and_zoom_go_past_a_break(app, tmp_path: Path) -> None:
    page = app.page
    open_folder(app, IDLE_HOURS, tmp_path)
    set_fold(app, True)

    def view() -> tuple[float, float]:
        a, b = page.get_attribute("[data-testid=swimlanes]", "data-view").split()
        return float(a), float(b)

    fit = view()
    main = page.locator('[data-testid=swimlane-track][data-lane="main"] .sl-lane')
    main.focus()
    page.keyboard.press("Home")
    for _ in range(5):
        page.keyboard.press("+")
    page.wait_for_timeout(100)
    a, b = view()
    assert b - a == pytest.approx((fit[1] - fit[0]) / 32, rel=0.01)
    page.keyboard.press("End")  # the last span, past the 29 h break: the view goes to it
    page.wait_for_timeout(100)
    last = max(page.evaluate(f"() => {MODULE}.then((m) => m.spansOf('main'))"), key=lambda s: s["start"])
    x = page.evaluate(f"(t) => {MODULE}.then((m) => m.toAxis(t))", last["start"])
    a2, b2 = view()
    assert a2 <= x <= b2 and b2 - a2 == pytest.approx(b - a, rel=0.01)
    assert last["name"] == "Bash" and x > 100  # the next day's call: on the folded axis at about 142 s, not at 32 h
    assert main.get_attribute("aria-description").startswith("tool call: Bash · 2 s")  # its true duration
    # a wheel pan back across the break, then Fit
    page.mouse.move(main.bounding_box()["x"] + 50, main.bounding_box()["y"] + 4)
    page.mouse.wheel(-5000, 0)
    page.wait_for_timeout(100)
    assert view()[0] < a2
    app.testid("swimlane-fit").click()
    page.wait_for_timeout(100)
    assert view() == pytest.approx(fit)
