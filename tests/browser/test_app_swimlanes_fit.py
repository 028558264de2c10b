"""The swimlanes' default height in the workspace, in a real browser at 1280x800: main's track and
the first sub-agents' show in the swimlanes' visible box without resizing (the tracks drawn
compact while they do not all fit, their heads one line each), while the rows under them keep
their 20 rows; dragged taller, the tracks are drawn full again. On a phone (390x844) main and
its first sub-agent show too, each label beside its track, over the first rows, and a handle a
finger can drag (or the arrow keys move) sets the height there; a wide screen has the mouse's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _app import CORPUS, AppDriver
from test_app_swimlanes_folds import IDAHO, IDAHO_LOOKED
from test_app_workspace import ROWS_IN_VIEW

SESSION = next(CORPUS.rglob("ef958aa1-*.jsonl"))
SESSION_FILES = [SESSION, *sorted((SESSION.parent / SESSION.stem / "subagents").glob("*.jsonl"))]

# each entry of the swimlanes (a track or a missing sub-agent's card): its lane, and whether its
# box lies wholly inside the tracks' visible box and the swimlanes' own
ENTRIES_SHOWN = """() => {
  const room = document.getElementById('swimlanes-tracks').getBoundingClientRect();
  const section = document.querySelector('[data-testid=swimlanes]').getBoundingClientRect();
  return [...document.querySelectorAll('#swimlanes-tracks > *')].map((e) => {
    const r = e.getBoundingClientRect();
    const inside = r.height > 0 && r.top >= room.top - 0.5 && r.bottom <= room.bottom + 0.5
      && r.top >= section.top && r.bottom <= section.bottom;
    return [e.dataset.testid, e.dataset.lane, inside];
  });
}"""


def laptop(app: AppDriver) -> None:
    app.page.set_viewport_size({"width": 1280, "height": 800})


def shown(app: AppDriver) -> list[list]:
    app.page.wait_for_selector("[data-testid=swimlanes][data-view]", state="attached")
    app.page.wait_for_timeout(100)  # a frame: the density follows the box's size
    return app.page.evaluate(ENTRIES_SHOWN)


def test_main_and_the_first_sub_agents_show_over_twenty_rows(app) -> None:
    laptop(app)
    app.open_files([str(f) for f in SESSION_FILES])
    entries = shown(app)
    assert entries[0][:2] == ["swimlane-track", "main"]
    tracks = [e for e in entries if e[0] == "swimlane-track"]
    assert len(tracks) == 3  # main and two sub-agents (the other four are missing: their cards)
    assert all(inside for _, _, inside in entries[:3]), entries  # main, and the next two under it
    assert app.page.get_attribute("[data-testid=swimlanes]", "data-density") == "compact"
    # each lane's head is one line
    for head in app.page.locator("[data-testid=swimlane-track] .sl-head-cell").all():
        assert head.bounding_box()["height"] < 20
    assert app.page.evaluate(ROWS_IN_VIEW) >= 20


def test_on_a_phone_main_and_its_first_sub_agent_show_beside_their_labels(app) -> None:
    app.page.set_viewport_size({"width": 390, "height": 844})
    app.open_files([str(f) for f in SESSION_FILES])
    entries = shown(app)
    assert [e[:2] for e in entries[:2]] == [["swimlane-track", "main"], ["swimlane-track", entries[1][1]]]
    assert entries[0][2] and entries[1][2], entries  # wholly in sight without dragging
    for track in app.page.locator("[data-testid=swimlane-track]").all()[:2]:
        head = track.locator(".sl-head-cell").bounding_box()
        lane = track.locator(".sl-lane").bounding_box()
        assert head["x"] + head["width"] <= lane["x"] + 1 and head["height"] < 20  # beside, one line
    assert app.page.evaluate(ROWS_IN_VIEW) >= 3
    assert app.page.evaluate("document.documentElement.scrollWidth") <= 390


# the swimlanes' head (its title and its zoom buttons), the section and the column it is in
HEAD_AND_COLUMN = """() => {
  const section = document.querySelector('[data-testid=swimlanes]');
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; };
  return {tools: box(section.querySelector('.sl-tools')), head: box(section.querySelector('.sl-head')),
          section: box(section), column: section.parentElement.getBoundingClientRect().height};
}"""


def test_on_a_phone_the_default_height_shows_the_first_six_entries_under_a_whole_head(app) -> None:
    """ef958aa1 has seven entries (main, two sub-agents' tracks, four missing sub-agents' cards):
    the phone's default height shows six of them whole (the seventh a scroll away), not two and a
    half, with the head's zoom buttons whole above them and the rows still under them."""
    app.page.set_viewport_size({"width": 390, "height": 844})
    app.open_files([str(f) for f in SESSION_FILES])
    entries = shown(app)
    assert len(entries) == 7
    assert [inside for _, _, inside in entries] == [True] * 6 + [False], entries
    got = app.page.evaluate(HEAD_AND_COLUMN)
    top, bottom = got["section"][:2]
    for part in ("tools", "head"):
        assert top <= got[part][0] and got[part][1] <= bottom and got[part][3] <= 390, got
    assert bottom - top <= 0.45 * got["column"] + 1  # the rows keep the rest of the column
    assert app.page.evaluate(ROWS_IN_VIEW) >= 3
    assert app.page.evaluate("document.documentElement.scrollWidth") <= 390


TRACKS_H = "() => document.getElementById('swimlanes-tracks').clientHeight"


def test_on_a_phone_the_handle_sets_the_height_by_drag_and_keys(app) -> None:
    page = app.page
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        app.open_files([str(f) for f in SESSION_FILES])
        shown(app)
        section = page.locator("[data-testid=swimlanes]")
        grip = app.testid("swimlanes-grip")
        box = grip.bounding_box()
        before, tracks = section.bounding_box()["height"], page.evaluate(TRACKS_H)
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x, y + 75, steps=3)
        page.mouse.move(x, y + 150, steps=3)
        page.mouse.up()
        assert abs(section.bounding_box()["height"] - (before + 150)) <= 2
        assert page.evaluate(TRACKS_H) >= tracks + 145  # the tracks' box takes what was added
        entries = shown(app)
        assert all(inside for _, _, inside in entries[:5]), entries  # compact still: more of them in sight
        assert section.get_attribute("data-density") == "compact"
        assert int(grip.get_attribute("aria-valuenow")) > 0
        taller = section.bounding_box()["height"]
        grip.focus()
        page.keyboard.press("ArrowUp")
        assert abs(section.bounding_box()["height"] - (taller - 24)) <= 1
        page.keyboard.press("Home")
        assert section.bounding_box()["height"] <= 33  # the head alone
        page.set_viewport_size({"width": 1280, "height": 800})
        assert not grip.is_visible()  # a mouse has the CSS handle there
    finally:
        page.evaluate("() => { document.querySelector('[data-testid=swimlanes]').style.height = ''; }")


@pytest.mark.skipif(not IDAHO.is_dir(), reason="the shared corpus' five-day session is not beside the checkout "
                    f"(looked for {' and '.join(map(str, IDAHO_LOOKED))})")
def test_every_track_of_a_run_with_three_sub_agents_shows(app, tmp_path: Path) -> None:
    laptop(app)
    copy = tmp_path / IDAHO.name
    shutil.copytree(IDAHO, copy)
    app.testid("folder-input").set_input_files(copy)
    app.settle()
    entries = shown(app)
    assert [e[0] for e in entries] == ["swimlane-track"] * 4
    assert all(inside for _, _, inside in entries), entries
    assert app.page.evaluate(ROWS_IN_VIEW) >= 20


def test_dragged_taller_the_tracks_are_drawn_full(app) -> None:
    laptop(app)
    app.open_files([str(f) for f in SESSION_FILES])
    shown(app)
    main = app.page.locator('[data-testid=swimlane-track][data-lane="main"] .sl-lane')
    compact = main.bounding_box()["height"]
    app.page.evaluate("() => { document.querySelector('[data-testid=swimlanes]').style.height = '36rem'; }")
    app.page.wait_for_selector("[data-testid=swimlanes][data-density=full]", state="attached")
    assert main.bounding_box()["height"] > compact
    assert all(inside for _, _, inside in shown(app))
    app.page.evaluate("() => { document.querySelector('[data-testid=swimlanes]').style.height = ''; }")
    app.page.wait_for_selector("[data-testid=swimlanes][data-density=compact]", state="attached")
