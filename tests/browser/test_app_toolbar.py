"""The toolbar fits, in Chromium against the built site: at 1280x800 the search box shows its
whole placeholder and typing in it moves nothing (no wrap, the rows stay where they were); at
390x844 the title stays, no control is cut or out of reach (the ones that do not fit are behind a
menu button, reached by Tab, that says whether it is open), and at least ten rows of a real
session with sub-agents are on the screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from _app import ROWS_IN_VIEW, AppDriver
from conftest import SETTLED, RequestLog, new_app_page

# a real session with two sub-agents whose lane names are long (type: task)
SESSION = (Path(__file__).resolve().parents[1] / "fixtures/real/session-jsonl/JamesTiberiusKirk__dotsv2__cut"
           / ".claude/projects/-Users-dumitruvulpe-uw-telecom-mobile")

# the search box: its placeholder's width set in the box's own font (a span beside it, spaces
# kept), and the room inside the box
PLACEHOLDER_FITS = """() => {
  const box = document.querySelector('[data-testid=filter]');
  const css = getComputedStyle(box, '::placeholder');
  const span = document.createElement('span');
  for (const p of ['font-family', 'font-size', 'font-weight', 'font-style', 'font-stretch', 'letter-spacing', 'word-spacing'])
    span.style.setProperty(p, css.getPropertyValue(p));
  span.style.whiteSpace = 'pre';
  span.style.position = 'absolute';
  span.textContent = box.placeholder;
  document.body.append(span);
  const text = span.getBoundingClientRect().width;
  span.remove();
  const own = getComputedStyle(box);
  return [text, box.clientWidth - parseFloat(own.paddingLeft) - parseFloat(own.paddingRight)];
}"""
# where everything of the toolbar and below it is (visible elements only)
BOXES = """() => {
  const out = {};
  const pick = ['.toolbar', '.toolbar > *', '#type-filter', '#panes', '[data-testid=timeline]', '#side'];
  for (const sel of pick) document.querySelectorAll(sel).forEach((el, i) => {
    if (!el.checkVisibility()) return;
    const r = el.getBoundingClientRect();
    out[sel + ' ' + i + ' ' + (el.id || el.className)] = [Math.round(r.top), Math.round(r.height)];
  });
  return out;
}"""
# the controls above the rows that a person sees, and those of them cut: outside the window, or
# outside an ancestor that clips (overflow not visible), by more than a pixel
CONTROLS = "header.top :is(button, a, select, input, summary), main :is(button, select, input:not([type=file]), " \
           "label.button, summary, textarea):not(#panes *, #library *, #intro *), #side .tab-bar :is([role=tab], button)"
CUT = """(sel) => {
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    if (!el.checkVisibility() || el.closest('[hidden]')) continue;
    const r = el.getBoundingClientRect();
    const name = el.id || el.textContent.trim().slice(0, 20) || el.outerHTML.slice(0, 40);
    if (r.left < -1 || r.right > innerWidth + 1 || r.top < -1 || r.bottom > innerHeight + 1) { out.push(name + ': off the window'); continue; }
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const css = getComputedStyle(a);
      if (css.overflowX === 'visible' && css.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1) {
        out.push(name + ': cut by ' + (a.id || a.className)); break;
      }
    }
  }
  return out;
}"""
SHOWN = "(sel) => [...document.querySelectorAll(sel)].filter(el => el.checkVisibility() && !el.closest('[hidden]')).map(el => el.id || el.textContent.trim())"
FOCUSED_ID = "() => document.activeElement && document.activeElement.id"
# what the toolbar holds at any width, by id (a label's control stands for it)
ALL_CONTROLS = ("analyze", "file-input", "folder-input", "strategy", "filter", "lane-filter", "order", "open-share",
                "help-toggle", "theme", "examples-box", "reading-run", "reading-protocol")


def booted(browser, site, width: int, height: int):
    log = RequestLog()
    context, page = new_app_page(browser, site, log, viewport={"width": width, "height": height})
    page.goto(site.url)
    page.wait_for_selector(SETTLED, state="attached", timeout=120_000)
    app = AppDriver(page, log, site)
    app.open_folder(SESSION)
    return context, app


def reachable(page, element_id: str) -> bool:
    """The control (or the label holding it) is shown and has a box."""
    return bool(page.evaluate("""(id) => {
      const el = document.getElementById(id);
      const seen = el.type === 'file' || el.classList.contains('visually-hidden') ? el.closest('label') : el;
      const r = seen.getBoundingClientRect();
      return seen.checkVisibility() && r.width > 0 && r.height > 0;
    }""", element_id))


@pytest.fixture(scope="module")
def wide(browser, site):
    context, app = booted(browser, site, 1280, 800)
    yield app
    context.close()


def test_at_1280_the_search_box_shows_its_whole_placeholder(wide) -> None:
    text, room = wide.page.evaluate(PLACEHOLDER_FITS)
    assert text <= room, f"placeholder {text:.0f} px in a box with {room:.0f} px of room"
    assert wide.page.evaluate(CUT, CONTROLS) == []


def test_at_1280_typing_in_the_search_box_moves_nothing(wide) -> None:
    wide.testid("filter").fill("")
    wide.settle()
    before = wide.page.evaluate(BOXES)
    box = wide.testid("filter")
    box.click()
    box.press_sequentially("Agent")
    wide.page.wait_for_selector("[data-testid=search-count]:not([hidden])", timeout=30_000)
    wide.settle()
    after = wide.page.evaluate(BOXES)
    moved = {k: (before.get(k), v) for k, v in after.items() if before.get(k) != v}
    assert not moved, f"moved while typing (top, height) before -> after: {moved}"
    box.press("Enter")  # a match selected: "1 of N", still nothing moves
    wide.settle()
    assert wide.page.evaluate(BOXES) == before
    box.fill("")
    wide.settle()


@pytest.fixture(scope="module")
def phone(browser, site):
    context, app = booted(browser, site, 390, 844)
    yield app
    context.close()


def test_at_390_the_title_stays_and_ten_rows_show(phone) -> None:
    title = phone.page.locator("header.top h1")
    box = title.bounding_box()
    assert title.is_visible() and box["width"] > 40 and box["height"] > 10 and box["x"] >= 0
    assert title.text_content() == "Relayscope"
    assert phone.page.evaluate(ROWS_IN_VIEW) >= 10
    height, inner = phone.page.evaluate("() => [document.documentElement.scrollHeight, innerHeight]")
    assert height == inner


def test_at_390_no_control_is_cut_and_the_rest_are_behind_a_menu(phone) -> None:
    page = phone.page
    menu = phone.testid("menu")
    assert menu.get_attribute("aria-expanded") == "false"
    assert page.evaluate(CUT, CONTROLS) == []
    hidden = [i for i in ALL_CONTROLS if not reachable(page, i)]
    assert hidden, "all of the toolbar fits at 390 px: no menu needed"
    assert reachable(page, "filter") and reachable(page, "reading-run")
    # the menu is one Tab stop away from the page's top, and Enter opens it
    page.evaluate("() => { document.body.tabIndex = -1; document.body.focus(); document.body.removeAttribute('tabindex'); }")
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED_ID) == "menu":
            break
    assert page.evaluate(FOCUSED_ID) == "menu"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=menu][aria-expanded=true]")
    assert [i for i in ALL_CONTROLS if not reachable(page, i)] == []
    assert page.evaluate(CUT, CONTROLS) == []
    controlled = menu.get_attribute("aria-controls").split()
    assert controlled and all(page.locator(f"#{i}").count() == 1 for i in controlled)
    # a control in the menu works from it, and Esc closes the menu with the focus on its button
    phone.testid("strategy").select_option("index")
    phone.settle()
    assert phone.testid("strategy").input_value() == "index"
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=menu][aria-expanded=false]")
    assert page.evaluate(FOCUSED_ID) == "menu"
    assert not reachable(page, "strategy")
    menu.click()  # and the pointer opens and closes it too
    page.wait_for_selector("[data-testid=menu][aria-expanded=true]")
    phone.strategy("lineage")
    menu.click()
    page.wait_for_selector("[data-testid=menu][aria-expanded=false]")


def test_at_390_the_menu_button_is_not_shown_at_1280(wide) -> None:
    assert not wide.testid("menu").is_visible()
    assert [i for i in ALL_CONTROLS if not reachable(wide.page, i)] == []


def test_at_390_the_match_count_sits_inside_the_search_box(phone) -> None:
    box = phone.testid("filter")
    box.fill("Agent")
    phone.page.wait_for_selector("[data-testid=search-count]:not([hidden])", timeout=30_000)
    phone.settle()
    count, field = phone.testid("search-count").bounding_box(), box.bounding_box()
    reading = phone.testid("reading").bounding_box()
    assert field["x"] <= count["x"] and count["x"] + count["width"] <= field["x"] + field["width"] + 1
    assert count["x"] >= reading["x"] + reading["width"]  # not drawn over the reading switch
    box.fill("")
    phone.settle()
