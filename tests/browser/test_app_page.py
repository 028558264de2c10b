"""Issue 18: a page people can read. The timeline is the main column and its summaries get the
room, badges never cover text, nothing is clipped without an ellipsis and a title, nothing scrolls
sideways at 390 px, panels collapse (remembered in the URL), first contact explains the words,
stepping follows the filter, the keyboard gets there in a few Tabs, a big file's first rows come
at once. Geometry is measured with bounding boxes on a stream-json capture with sub-agents, a
session folder with subagents/, and captures with more than 12 fingerprints (one real, one made
here with 1,100).

Each layout test writes screenshots at 1280 and 390 px, light and dark, to $RELAYSCOPE_SHOTS (a
temporary folder when unset).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from _app import CORPUS, AppDriver

STREAM = CORPUS / "stream-json"
SUBAGENTS = STREAM / "SimonErich__obers_ui__.broins__tmp__drivers__claude__last_raw_stream@014042a4.jsonl"
MANY_FPS = STREAM / "ArturoKuang__sandbox_ai_compiler__.repomirror__claude_output.jsonl"  # 129 under fingerprint
PROJECT = CORPUS / "session-jsonl/handgemacht-ai__claude-code-log/test/test_data/real_projects/-src-experiments-claude_p"
SESSION_ID = "29ccd257-68b1-427f-ae5f-6524b7cb6f20"

WIDE = {"width": 1280, "height": 800}
NARROW = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("RELAYSCOPE_SHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def thousand_fingerprints(tmp_path: Path, n: int = 1100) -> Path:
    """A stream-json capture whose every assistant event starts with a block of its own: n
    fingerprints, numbered past the palette's 12 up to four digits."""
    lines = [json.dumps({"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-sonnet-4-5",
                         "tools": []})]
    for k in range(n):
        lines.append(json.dumps({"type": "assistant", "session_id": "s1", "parent_tool_use_id": None, "message": {
            "id": f"msg_{k:05d}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": f"Step {k}: checked src/module_{k}.py and found {k % 7} issues"}],
            "usage": {"input_tokens": 3, "output_tokens": 1}}}))
    path = tmp_path / "thousand-fingerprints.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# What the tests measure, in the page: every row on screen (its width and its summary cell's),
# every cell cut short (with its text-overflow and title), every fingerprint badge against the
# text beside it.
GEOMETRY = """() => {
  const out = {rows: [], cut: [], badges: []};
  const box = document.querySelector('[data-testid=timeline]').getBoundingClientRect();
  for (const row of document.querySelectorAll('[data-testid=timeline] .row')) {
    const r = row.getBoundingClientRect();
    if (r.bottom <= box.top || r.top >= box.bottom || getComputedStyle(row).visibility === 'hidden') continue;
    const s = row.querySelector('[data-testid=row-summary]');
    out.rows.push({seq: row.dataset.seq, row: r.width, summary: s ? s.getBoundingClientRect().width : 0});
    for (const cell of row.querySelectorAll('.line > *')) {
      if (!cell.getClientRects().length || !cell.textContent.trim()) continue;
      if (cell.scrollWidth > cell.clientWidth + 1) {
        const cs = getComputedStyle(cell);
        out.cut.push({seq: row.dataset.seq, cls: cell.className, ellipsis: cs.textOverflow === 'ellipsis',
                      title: cell.getAttribute('title') || ''});
      }
    }
  }
  for (const b of document.querySelectorAll('[data-testid=fp-badge]')) {
    if (!b.getClientRects().length) continue;
    const r = b.getBoundingClientRect();
    const near = [b.previousElementSibling, b.nextElementSibling].filter((x) => x && x.getClientRects().length);
    const hit = near.map((x) => x.getBoundingClientRect()).some((t) => t.width > 0 &&
      r.left < t.right - 0.5 && t.left < r.right - 0.5 && r.top < t.bottom - 0.5 && t.top < r.bottom - 0.5);
    out.badges.push({label: b.textContent, overlap: hit, fits: b.scrollWidth <= b.clientWidth + 1,
                     where: b.closest('[data-testid=fp-compare]') ? 'stepper' : 'row'});
  }
  return out;
}"""


def geometry(app: AppDriver) -> dict:
    return app.page.evaluate(GEOMETRY)


def doc_width(app: AppDriver) -> int:
    return app.page.evaluate("document.documentElement.scrollWidth")


def shoot(app: AppDriver, shots: Path, name: str) -> None:
    """Screenshots of the view as it is, light and dark (the page follows the colour scheme)."""
    for scheme in ("light", "dark"):
        app.page.emulate_media(color_scheme=scheme)
        app.page.wait_for_timeout(50)
        app.page.screenshot(path=str(shots / f"{name}-{scheme}.png"), full_page=False)
    app.page.emulate_media(color_scheme="light")


def open_input(app: AppDriver, which: str, tmp_path: Path) -> None:
    if which == "subagents":
        app.open_files([str(SUBAGENTS)], strategy="fingerprint")
    elif which == "session-folder":
        folder = tmp_path / PROJECT.name
        shutil.copytree(PROJECT, folder)
        app.testid("folder-input").set_input_files(folder)
        app.settle()
        app.strategy("fingerprint")
    elif which == "many-fingerprints":
        app.open_files([str(MANY_FPS)], strategy="fingerprint")
    else:
        app.open_files([str(thousand_fingerprints(tmp_path))], strategy="fingerprint")


@pytest.fixture
def sized(app: AppDriver):
    """The shared page at a given size for one test; back to the module's size after."""
    def size(viewport: dict) -> AppDriver:
        app.page.set_viewport_size(viewport)
        return app

    yield size
    app.page.set_viewport_size({"width": 1400, "height": 900})
    app.page.emulate_media(color_scheme="light")


INPUTS = ["subagents", "session-folder", "many-fingerprints", "thousand-fingerprints"]


# -- 1. layout ------------------------------------------------------------------------------------

@pytest.mark.parametrize("which", INPUTS)
def test_at_1280_the_summary_has_half_the_row_and_nothing_covers_or_cuts_text(
        sized, which: str, tmp_path: Path, shots: Path) -> None:
    app = sized(WIDE)
    open_input(app, which, tmp_path)
    page = app.page
    views = [geometry(app)]
    if which.endswith("fingerprints"):  # the rows past the palette: numbered badges, up to 4 digits
        app.testid("timeline").focus()
        page.keyboard.press("End")
        views.append(geometry(app))
    shoot(app, shots, f"layout-{which}-1280")
    rows = [r for v in views for r in v["rows"]]
    assert len(rows) >= 15, rows
    narrow = [r for r in rows if r["summary"] < r["row"] / 2]
    assert not narrow, f"summary under half the row: {narrow[:5]}"
    badges = [b for v in views for b in v["badges"]]
    if which != "session-folder":
        assert badges
    if which == "thousand-fingerprints":
        assert any(len(b["label"]) == 4 for b in badges), [b["label"] for b in badges][:20]
    bad = [b for b in badges if b["overlap"] or not b["fits"]]
    assert not bad, f"badges over text or spilling out: {bad[:5]}"
    cut = [c for v in views for c in v["cut"] if not (c["ellipsis"] and c["title"])]
    assert not cut, f"text cut without an ellipsis and a title: {cut[:5]}"
    # the timeline is the main column: wider than every panel beside it
    timeline = app.testid("timeline").bounding_box()
    side = page.locator("#side").bounding_box()
    assert timeline["width"] > 1.8 * side["width"]


@pytest.mark.parametrize("which", INPUTS)
def test_at_390_nothing_scrolls_sideways_and_every_panel_is_reachable(
        sized, which: str, tmp_path: Path, shots: Path) -> None:
    app = sized(NARROW)
    open_input(app, which, tmp_path)
    page = app.page
    assert doc_width(app) <= NARROW["width"], page.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > innerWidth + 1)"
        ".slice(0, 5).map(e => e.tagName + '.' + e.className)")
    page.screenshot(path=str(shots / f"layout-{which}-390-page-light.png"), full_page=True)
    shoot(app, shots, f"layout-{which}-390")
    cut = [c for c in geometry(app)["cut"] if not (c["ellipsis"] and c["title"])]
    assert not cut, f"text cut without an ellipsis and a title: {cut[:5]}"
    for name in ("stepper", "lanes", "audit"):
        toggle = page.locator(f'[data-testid=panel-toggle][data-panel="{name}"]')
        toggle.scroll_into_view_if_needed()
        box = toggle.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= NARROW["width"], (name, box)
        body = page.locator(f'#panel-{name}')
        assert body.is_visible()
        body_box = body.bounding_box()
        assert body_box["x"] >= 0 and body_box["x"] + body_box["width"] <= NARROW["width"] + 0.5, (name, body_box)
    assert doc_width(app) <= NARROW["width"]


def test_badges_in_the_stepper_never_cover_the_fingerprint_text(sized, tmp_path: Path, shots: Path) -> None:
    app = sized(WIDE)
    open_input(app, "thousand-fingerprints", tmp_path)
    app.testid("step-last").click()
    app.testid("step-prev").click()  # the last line with a fingerprint before it and after it
    app.testid("step-prev").click()
    badges = [b for b in geometry(app)["badges"] if b["where"] == "stepper"]
    assert len(badges) == 2 and all(len(b["label"]) == 4 for b in badges), badges
    assert not [b for b in badges if b["overlap"] or not b["fits"]], badges
    app.testid("stepper").screenshot(path=str(shots / "stepper-fingerprints-1280-light.png"))


def test_panels_collapse_and_the_address_remembers_them(app: AppDriver, visit, site) -> None:
    app.example("real-subagents")
    lanes = app.page.locator('[data-testid=panel-toggle][data-panel="lanes"]')
    assert lanes.get_attribute("aria-expanded") == "true" and app.testid("lanes").is_visible()
    lanes.click()
    assert lanes.get_attribute("aria-expanded") == "false" and not app.testid("lanes").is_visible()
    app.page.locator('[data-testid=panel-toggle][data-panel="audit"]').click()
    assert "closed=lanes%2Caudit" in app.page.url or "closed=lanes,audit" in app.page.url, app.page.url
    assert not app.testid("audit-notes").is_visible() and app.testid("stepper").is_visible()
    # the same address, opened afresh: the same panels collapsed
    page = visit(site, "?" + app.page.url.split("?", 1)[1])
    assert page.locator('[data-testid=panel-toggle][data-panel="lanes"]').get_attribute("aria-expanded") == "false"
    assert not page.locator("[data-testid=lanes]").is_visible()
    assert page.locator("[data-testid=step-position]").is_visible()
    lanes.click()  # and open again
    assert app.testid("lanes").is_visible() and "lanes" not in app.page.url.split("closed=")[-1].split("&")[0]


def test_the_swimlanes_have_a_place_above_the_timeline(app: AppDriver) -> None:
    app.example("real-subagents")
    order = app.page.evaluate("""() => {
      const s = document.querySelector('[data-testid=swimlanes]'), t = document.querySelector('[data-testid=timeline]');
      return {same: s.parentElement === t.closest('.timeline-pane').parentElement,
              before: Boolean(s.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING)};
    }""")
    assert order == {"same": True, "before": True}
