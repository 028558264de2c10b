"""The search in a real browser: "n of m" with next and previous (the buttons, Enter and
Shift+Enter in the search box), the scoped terms tool:, lane:, is:error and is:lost with free
words, the words marked in the rows (<mark> elements holding text only: a transcript's
"<script>" stays text), "in detail" on rows whose words are in their detail only, and no match
on a file name no row shows."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

from _app import AppDriver

from relayscope.web.rowdraw import ROW_H

HOSTILE = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"


def search(app: AppDriver, text: str) -> tuple[int, int]:
    """Type a search; once its count says so, (n, m)."""
    app.testid("filter").fill(text)
    # the search runs a moment after the typing stops: then the address holds it
    app.page.wait_for_url(lambda url: parse_qs(urlsplit(url).query).get("q", [""])[0] == text)
    app.page.wait_for_selector("[data-testid=search-count]:not([hidden])", state="attached")
    return count(app)


def count(app: AppDriver) -> tuple[int, int]:
    app.page.wait_for_selector("html[data-app-state=done]", state="attached")
    text = app.testid("search-count").text_content()
    m = re.fullmatch(r"(\d+) of ([\d\u202f,]+)", text)
    if m is None:  # none selected yet: "64 matches", never "0 of 64"
        m = re.fullmatch(r"()([\d\u202f,]+) match(es)?", text)
        assert m, text
    return int(m.group(1) or 0), int(re.sub(r"\D", "", m.group(2)))


def visible_rows(app: AppDriver) -> list[dict]:
    return app.page.eval_on_selector_all(
        "[data-testid=timeline] [role=row]",
        "els => els.map(e => ({seq: +e.dataset.seq, type: e.dataset.type, lane: e.dataset.lane,"
        " summary: e.querySelector('[data-testid=row-summary]').textContent,"
        " marks: Array.from(e.querySelectorAll('mark'), m => [m.textContent, m.childElementCount]),"
        " detail: !!e.querySelector('[data-testid=match-in-detail]')}))")


def selected(app: AppDriver) -> int:
    return int(app.page.locator("[data-testid=timeline] .row.selected").get_attribute("data-seq"))


def test_n_of_m_and_enter_shift_enter_move_between_matches(app) -> None:
    app.open_folder()
    assert app.testid("search-count").is_hidden()
    n, m = search(app, "tool:Bash")
    assert n == 0 and m > 3 and app.testid("search-count").text_content().endswith(" matches")
    box = app.testid("filter")
    box.press("Enter")
    assert count(app) == (1, m)
    first = selected(app)
    box.press("Enter")
    assert count(app) == (2, m) and selected(app) != first
    box.press("Shift+Enter")
    assert count(app) == (1, m) and selected(app) == first
    box.press("Shift+Enter")  # round from the first to the last
    assert count(app) == (m, m)
    assert app.page.evaluate("document.activeElement.id") == "filter"  # typing goes on
    app.testid("search-next").click()
    assert count(app) == (1, m) and selected(app) == first
    app.testid("search-prev").click()
    assert count(app) == (m, m)
    # a row clicked among the matches is where the count stands
    app.testid("timeline").evaluate("t => { t.scrollTop = 0; }")
    third = f'[data-testid=timeline] [role=row][style*="top: {2 * ROW_H}px"] [data-testid=row-summary]'
    app.page.wait_for_selector(third)
    app.page.locator(third).click()
    assert count(app) == (3, m)
    # Esc leaves the box, the search kept; Esc again clears it
    box.press("Escape")
    assert app.page.evaluate("document.activeElement.id") != "filter"
    assert box.input_value() == "tool:Bash" and app.testid("search-count").is_visible()
    if app.page.locator("[data-testid=timeline] .row.open").count():
        app.page.keyboard.press("Escape")  # an open row closes first
        assert box.input_value() == "tool:Bash"
    app.page.keyboard.press("Escape")
    app.page.wait_for_selector("[data-testid=search-count][hidden]", state="attached")
    assert box.input_value() == ""


def test_scoped_terms_alone_and_with_words(app) -> None:
    app.open_folder()
    _, bash = search(app, "tool:Bash")
    rows = visible_rows(app)
    assert rows and {r["type"] for r in rows} <= {"tool_use", "tool_result"}
    assert all("Bash" in r["summary"] for r in rows if r["type"] == "tool_use")
    subs = [lane for lane in app.lanes() if lane != "main"]
    _, in_lane = search(app, f"lane:{subs[0][:12]}")
    assert {r["lane"] for r in visible_rows(app)} == {subs[0]}
    _, both = search(app, f"tool:bash lane:{subs[0][:12]}")
    assert both < min(bash, in_lane) and {r["lane"] for r in visible_rows(app)} <= {subs[0]}
    _, with_word = search(app, "tool:Bash git")
    assert 0 < with_word < bash
    assert search(app, "is:error") == (0, 1)  # one failed tool call in this run
    # the run reading shows it as its call's row, which holds the result
    assert [r["type"] for r in visible_rows(app)] == (["tool_use"] if app.page.get_attribute(
        "html", "data-reading") == "run" else ["tool_result"])
    search(app, "is:lost")  # nothing lost under lineage: none, and saying so
    assert count(app) == (0, 0)
    app.testid("filter").fill("")


def test_words_are_marked_as_text_and_in_detail_is_said(app) -> None:
    app.open_folder()
    search(app, "agent")
    rows = visible_rows(app)
    assert rows
    for r in rows:
        if r["detail"]:
            continue
        assert r["marks"], r  # found in the row's line: marked there
        for text, children in r["marks"]:
            assert text.lower() == "agent" and children == 0
    assert any(r["detail"] for r in rows) and any(not r["detail"] for r in rows)
    # "agent" is in every sub-agent's file name, which no row shows: those rows do not match
    total = app.total()
    assert count(app)[1] < total // 2
    app.testid("filter").fill("")


def test_a_transcript_s_markup_found_stays_text(app) -> None:
    events = [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "m", "tools": []},
        {"type": "assistant", "message": {"id": "msg_1", "role": "assistant", "content": [
            {"type": "text", "text": f"look: {HOSTILE} done"}]}, "session_id": "s"},
    ]
    app.paste("\n".join(json.dumps(e) for e in events) + "\n")
    assert search(app, "<script>") == (0, 1)
    mark = app.page.locator("[data-testid=timeline] mark").first
    assert mark.text_content() == "<script>"
    assert mark.evaluate("m => m.childElementCount") == 0
    assert app.page.locator("[data-testid=timeline] script, [data-testid=timeline] img").count() == 0
    assert app.pwned() is None
    app.testid("filter").fill("")
