"""A page people can read. The timeline is the main column and its summaries get the
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
from _app import CORPUS, EXAMPLES_DIR, AppDriver

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
    const s = row.querySelector('[data-testid=row-summary]') || row.querySelector('.summary');  // (before the hook)
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
  const hooked = document.querySelectorAll('[data-testid=fp-badge]');
  for (const b of hooked.length ? hooked : document.querySelectorAll('.row .fp:not(.none), .fp-row .fp:not(.none)')) {
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
    elif which == "session-folder":  # one session's folder: its main file and its sub-agents (two would be a list)
        folder = tmp_path / PROJECT.name
        folder.mkdir()
        shutil.copy(PROJECT / f"{SESSION_ID}.jsonl", folder)
        shutil.copytree(PROJECT / SESSION_ID, folder / SESSION_ID)
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
    for name, body_id in (("stepper", "stepper"), ("lanes", "lanes-panel"), ("audit", "audit")):
        tab = page.locator(f'[data-testid=detail-tab][data-tab="{name}"]')
        box = tab.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= NARROW["width"], (name, box)
        tab.click()
        body = page.locator(f'#{body_id}')
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


def test_the_detail_panel_folds_and_the_address_remembers_its_tab_and_fold(app: AppDriver, visit, site) -> None:
    app.example("real-subagents")
    lanes = app.page.locator('[data-testid=detail-tab][data-tab="lanes"]')
    fold = app.testid("detail-fold")
    assert fold.get_attribute("aria-expanded") == "true" and app.testid("stepper").is_visible()
    lanes.click()
    assert lanes.get_attribute("aria-selected") == "true" and app.testid("lanes").is_visible()
    assert not app.testid("stepper").is_visible()
    fold.click()
    assert fold.get_attribute("aria-expanded") == "false" and not app.testid("lanes").is_visible()
    assert "tab=lanes" in app.page.url and "detail=closed" in app.page.url, app.page.url
    # the same address, opened afresh: the same tab, folded
    page = visit(site, "?" + app.page.url.split("?", 1)[1])
    assert page.locator('[data-testid=detail-fold]').get_attribute("aria-expanded") == "false"
    assert page.locator('[data-testid=detail-tab][data-tab="lanes"]').get_attribute("aria-selected") == "true"
    assert not page.locator("[data-testid=lanes]").is_visible()
    assert page.locator("[data-testid=timeline]").is_visible()
    fold.click()  # and open again
    assert app.testid("lanes").is_visible() and "detail=closed" not in app.page.url


def test_the_swimlanes_have_a_place_above_the_timeline(app: AppDriver) -> None:
    app.example("real-subagents")
    order = app.page.evaluate("""() => {
      const s = document.querySelector('[data-testid=swimlanes]'), t = document.querySelector('[data-testid=timeline]');
      return {same: s.parentElement === t.closest('.timeline-pane').parentElement,
              before: Boolean(s.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING)};
    }""")
    assert order == {"same": True, "before": True}


# -- 3. first contact -------------------------------------------------------------------------------

def test_the_empty_page_says_what_relays_lanes_and_strategies_are_and_help_opens(page, open_app, site) -> None:
    open_app(site)
    intro = page.locator("[data-testid=intro]")
    assert intro.is_visible() and intro.locator("li").count() == 3
    text = intro.text_content()
    for word in ("Relay", "Lane", "Strategy", "example"):
        assert word in text, word
    help_toggle = page.locator("[data-testid=help-toggle]")
    assert help_toggle.is_visible()  # before anything is loaded
    help_toggle.click()
    assert page.locator("[data-testid=help]").is_visible() and help_toggle.get_attribute("aria-expanded") == "true"
    assert "lineage" in page.locator("[data-testid=help]").text_content()


def test_a_file_picked_while_python_boots_is_acknowledged_at_once(page, request_log, site) -> None:
    held = []  # the package's wheel waits here: Python cannot finish booting until it is let go
    page.route("**/relayscope-*.whl", lambda route: held.append(route))
    request_log.origin = "/".join(site.url.split("/")[:3])
    page.goto(site.url)
    page.wait_for_selector("html[data-app-state=loading]", state="attached")
    page.locator("[data-testid=file-input]").set_input_files(str(SUBAGENTS))
    status = page.locator("[data-testid=status]").text_content()
    assert page.get_attribute("html", "data-app-state") == "loading"
    assert f"queued: {SUBAGENTS.name}" in status, status
    while not held:
        page.wait_for_timeout(100)
    held[0].continue_()
    page.wait_for_selector("html[data-app-state=done]", state="attached", timeout=120_000)
    assert SUBAGENTS.name in page.locator("[data-testid=source]").text_content()


def test_a_folder_of_sub_agents_only_names_the_folder_to_open_instead(app: AppDriver, tmp_path: Path) -> None:
    folder = tmp_path / SESSION_ID
    shutil.copytree(PROJECT / SESSION_ID, folder)
    assert (folder / "subagents").is_dir() and not list(folder.glob("*.jsonl"))
    app.testid("folder-input").set_input_files(folder)
    app.settle()
    message = app.testid("message").text_content()
    assert f"{SESSION_ID}.jsonl" in message and "Open the folder that holds it" in message, message
    # the folder that holds it: no such message
    app.testid("folder-input").set_input_files(PROJECT)
    app.settle()
    assert "sub-agents' transcripts" not in (app.testid("message").text_content() or "")


def test_new_input_clears_the_old_state(app: AppDriver) -> None:
    page = app.page
    app.paste((EXAMPLES_DIR / "cumulative-dedup.ndjson").read_text(encoding="utf-8"))
    app.open_files([str(MANY_FPS)])
    assert app.testid("paste-input").input_value() == ""  # the old paste is not what is shown
    app.example("index-bug", strategy="index")
    compare = app.testid("compare-lineage")
    compare.click()
    app.settle()
    assert compare.text_content() == "Back to 'index'"
    app.open_files([str(MANY_FPS)])
    assert "Back to" not in compare.text_content()
    # input that is not a transcript is refused by name; the session shown stays, named as it was
    before = app.testid("source").text_content()
    app.paste("hello\nthis is not a transcript\n")
    assert "does not look like a transcript" in app.testid("message").text_content()
    assert app.testid("source").text_content() == before
    assert page.get_attribute("html", "data-app-state") == "done"


# -- 4. stepping and filters agree ------------------------------------------------------------------

def test_stepping_in_scope_stays_on_the_lane_and_a_hidden_step_says_so(app: AppDriver) -> None:
    app.example("real-subagents")
    page = app.page
    lane = app.lanes()[1]  # a sub-agent
    app.testid("lane-filter").select_option(lane)
    app.testid("step-scope").select_option("shown")
    if app.testid("step-first").is_enabled():
        app.testid("step-first").click()
    shown = set(page.eval_on_selector_all("[data-testid=timeline] .row", "rs => rs.map(r => r.dataset.seq)"))
    seen = []
    for _ in range(12):
        assert app.testid("step-hidden").is_hidden(), app.testid("step-hidden").text_content()
        emitted = [a.replace("#", "") for a in app.testid("step-emitted").locator("button").all_text_contents()]
        seen.append(app.step_position())
        assert all(q in shown or int(q) > max(map(int, shown)) for q in emitted), (emitted, app.step_position())
        app.testid("step-next").click()
    assert len(set(seen)) > 5  # it moved
    # every line: Next lands on main-agent lines too, and says that their relays are hidden
    app.testid("step-scope").select_option("all")
    if app.testid("step-first").is_enabled():
        app.testid("step-first").click()
    for _ in range(40):
        if app.testid("step-hidden").is_visible():
            break
        app.testid("step-next").click()
    hidden = app.testid("step-hidden")
    assert hidden.is_visible() and "#" in hidden.text_content()
    first = hidden.text_content().split("#", 1)[1].split(",")[0].split(")")[0].split(" ")[0]
    app.testid("step-show-hidden").click()
    assert page.locator(f'[data-testid=timeline] .row[data-seq="{first}"]').count() == 1
    assert app.testid("filter-cleared").is_visible() and hidden.is_hidden()


# -- 5. keyboard ----------------------------------------------------------------------------------

def test_a_skip_link_chips_one_tab_stop_and_from_an_example_to_the_rows_in_five_tabs(app: AppDriver) -> None:
    page = app.page
    page.evaluate("document.getElementById('examples-box').open = true")
    card = page.locator('[data-testid=example][data-example="cumulative-dedup"]')
    card.click()
    app.settle()
    # the gallery folds away as the example opens: the focus goes to the rows, not to the page
    assert page.evaluate("document.activeElement.id") == "timeline"
    # the chips: one Tab stop, arrows within; a few Shift+Tabs back from the rows (the swimlanes between)
    chips = page.locator("[data-testid=type-filter] button")
    assert chips.count() > 2
    tabs = 0
    while tabs < 5 and not page.evaluate("!!document.activeElement.closest('[data-testid=type-filter]')"):
        page.keyboard.press("Shift+Tab")
        tabs += 1
    assert page.evaluate("!!document.activeElement.closest('[data-testid=type-filter]')"), f"{tabs} Shift+Tabs"
    first = page.evaluate("document.activeElement.textContent")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("!!document.activeElement.closest('[data-testid=type-filter]')")
    assert page.evaluate("document.activeElement.textContent") != first
    page.keyboard.press("Shift+Tab")
    assert not page.evaluate("!!document.activeElement.closest('[data-testid=type-filter]')")
    # the skip link: the first stop of the page (before the header's buttons), to the timeline
    tabbable = page.evaluate("""[...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
        .filter(e => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length).map(e => e.id)""")
    assert tabbable[:2] == ["skip-to-timeline", "skip-to-stepper"], tabbable[:3]
    app.testid("help-toggle").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "skip-to-timeline"
    assert app.testid("skip-to-timeline").is_visible()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "timeline"


# -- 6. first rows at once --------------------------------------------------------------------------

FIRST_ROWS = """() => {
  window.__first = null;
  const root = document.documentElement;
  delete root.dataset.firstRowsMs;
  new MutationObserver(() => {
    if (window.__first === null && root.dataset.firstRowsMs !== undefined)
      window.__first = {ms: Number(root.dataset.firstRowsMs), state: root.dataset.appState,
                        rows: document.querySelectorAll('[data-testid=timeline] .row').length};
  }).observe(root, {attributes: true, attributeFilter: ['data-first-rows-ms']});
}"""


def test_a_big_file_shows_its_first_rows_while_the_rest_is_analyzed(app: AppDriver, tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    one = SUBAGENTS.read_bytes().rstrip(b"\n") + b"\n"
    big.write_bytes(one * (6 * 2**20 // len(one) + 1))  # 6 MB: more than one slice read
    page = app.page
    page.evaluate(FIRST_ROWS)
    app.testid("file-input").set_input_files(str(big))
    app.settle()
    first = page.evaluate("window.__first")
    assert first is not None, "no data-first-rows-ms"
    assert first["state"] == "analyzing" and first["rows"] > 10, first
    assert first["ms"] < float(page.get_attribute("html", "data-analysis-ms")), first
    # a big paste too
    page.evaluate(FIRST_ROWS)
    page.evaluate("""text => { const box = document.querySelector('[data-testid=paste-input]');
        box.value = text; box.dispatchEvent(new Event('input', {bubbles: true})); }""", big.read_text(encoding="utf-8"))
    app.settle()
    first = page.evaluate("window.__first")
    assert first is not None and first["state"] == "analyzing" and first["rows"] > 10, first
    # and the small input: its first rows are its rows, drawn at the end
    page.evaluate(FIRST_ROWS)
    app.open_files([str(MANY_FPS)])
    assert page.evaluate("window.__first")["rows"] > 10
