"""The run reading on the built site: tokens on the row of the message they count, chapters and
the outline, a spilled tool output's file in its call's detail. A real session with sub-agents
(tests/fixtures/spill/, cut from the shared corpus: its SOURCES.tsv) and a session written here
(three prompts, each followed by tool calls; values of our own). The model is unit-tested in
tests/unit/test_web_reading_run.py."""

from __future__ import annotations

import json
from pathlib import Path

from _app import ROOT, wait_js

SPILL = ROOT / "tests" / "fixtures" / "spill"
SID = "3c5e0f6a-chapters"
ROWS = '[data-testid="timeline"] .row'


def chapters_session(chapters: int = 3, steps: int = 14) -> bytes:
    """A session transcript: ``chapters`` prompts, each followed by ``steps`` Bash calls (the
    fourth of each fails), three seconds apart, a minute between chapters."""
    out: list[dict] = []
    t = 0

    def stamp() -> str:
        return f"2026-03-01T10:{t // 60:02d}:{t % 60:02d}.000Z"

    def record(kind: str, uuid: str, **rest: object) -> dict:
        parent = out[-1]["uuid"] if out else None
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": False, "sessionId": SID,
                "cwd": "/srv/app", "version": "2.1.97", "timestamp": stamp(), **rest}

    for c in range(chapters):
        out.append(record("user", f"u{c}", message={"role": "user", "content": f"chapter {c + 1}: please do part {c + 1}"}))
        for k in range(steps):
            t += 3
            tid = f"toolu_{c}_{k}"
            out.append(record("assistant", f"a{c}-{k}", message={
                "id": f"msg_{c}_{k}", "role": "assistant", "model": "claude-sonnet-4-6",
                "content": [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": f"echo {c}-{k}"}}],
                "usage": {"input_tokens": 3, "output_tokens": 40 + k}}))
            t += 2
            out.append(record("user", f"r{c}-{k}", message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tid, "content": f"{c}-{k}", "is_error": k == 3}]}))
        t += 60
    return ("\n".join(json.dumps(x) for x in out) + "\n").encode()


def open_chapters(app) -> None:
    app.open_files([{"name": f"{SID}.jsonl", "mimeType": "application/x-ndjson", "buffer": chapters_session()}])
    assert app.page.get_attribute("html", "data-reading") == "run"


def rows_of(page, selector: str) -> list[dict]:
    return page.eval_on_selector_all(selector, "els => els.map(e => ({seq: +e.dataset.seq, type: e.dataset.type, "
                                               "text: e.textContent}))")


def test_the_run_reading_puts_each_usage_on_its_message_s_row_and_protocol_keeps_the_relay(app) -> None:
    page = app.page
    open_chapters(app)
    page.locator('[data-testid="timeline"]').evaluate("el => el.scrollTop = 0")
    assert not rows_of(page, f'{ROWS}[data-type="usage"]')
    figures = rows_of(page, f'{ROWS}:has([data-testid="row-usage"])')
    assert figures and all(r["type"] == "tool_use" for r in figures)
    first = page.locator(f'{ROWS}[data-seq="3"] [data-testid="row-usage"]')
    assert first.text_content() == "3 in · 40 out"  # msg_0_0: the first call (seq 3, after the session and the prompt)
    page.locator(f'{ROWS}[data-seq="3"] .summary').click()  # selected and opened
    page.wait_for_selector('.row.selected [data-testid="detail-usage"]')
    assert page.locator('.row.selected [data-testid="detail-usage"]').text_content() == "tokens: 3 in · 40 out"
    app.reading("protocol")
    page.wait_for_selector(f'{ROWS}[data-type="usage"]')
    assert not page.locator(f'{ROWS} [data-testid="row-usage"]').count()
    app.reading("run")


def test_time_order_keeps_rows_in_time_once_usage_is_on_its_message(app) -> None:
    page = app.page
    open_chapters(app)
    app.testid("order").select_option("time")
    wait_js(page, "document.querySelector('[data-testid=timeline] .row[data-type=user_message]') !== null")
    stamps = page.eval_on_selector_all(f"{ROWS}[data-time]", "els => els.map(e => [+e.style.top.replace('px', ''), "
                                                              "e.dataset.time])")
    times = [t for _, t in sorted(stamps)]
    assert len(times) > 10 and times == sorted(times)


def test_each_prompt_heads_a_chapter_that_the_outline_lists_and_goes_to(app) -> None:
    page = app.page
    open_chapters(app)
    heads = rows_of(page, f'{ROWS}[data-chapter-start="1"]')
    assert [r["seq"] for r in heads][:1] == [2] and "prompt" in heads[0]["text"]
    app.tab("outline")
    outline = app.testid("outline")
    items = outline.locator('[data-testid="outline-item"]')
    assert items.count() == 3
    facts = [items.nth(k).locator('[data-testid="outline-facts"]').text_content() for k in range(3)]
    assert facts[0] == "10:00:00 · 2m 10s · 14 tools · 1 error"
    assert facts[2].startswith("10:04:20 · ") and facts[2].endswith(" · 14 tools · 1 error")
    assert items.nth(0).get_attribute("aria-current") == "true"
    # the keyboard: Tab into the panel's first entry, down to the third, Enter
    items.nth(2).focus()
    page.keyboard.press("Enter")
    third = page.locator(f'{ROWS}[aria-selected="true"]')
    third.wait_for()
    assert third.get_attribute("data-chapter-start") == "1" and "chapter 3" in third.text_content()
    wait_js(page, "document.querySelectorAll('[data-testid=outline-item]')[2].getAttribute('aria-current') === 'true'")
    assert items.nth(0).get_attribute("aria-current") is None
    # scrolling the rows back to the top marks the first chapter again
    page.locator('[data-testid="timeline"]').evaluate("el => el.scrollTop = 0")
    wait_js(page, "document.querySelectorAll('[data-testid=outline-item]')[0].getAttribute('aria-current') === 'true'")
    items.nth(1).click()
    second = items.nth(1).get_attribute("data-target")
    wait_js(page, f"document.querySelector('[data-testid=timeline] .row[aria-selected=true]')?.dataset.seq === '{second}'")
    app.tab("row")


def test_a_spilled_output_shows_its_file_in_the_call_s_detail(app) -> None:
    page = app.page
    app.open_folder(SPILL)
    assert page.get_attribute("html", "data-reading") == "run"
    app.testid("filter").fill("b8oz93j98")
    # the search runs a moment after the typing stops and redraws the rows: wait for it first
    page.wait_for_selector("[data-testid=search-count]:not([hidden])", state="attached")
    row = page.locator(f'{ROWS}:has-text("whole in tool-results/b8oz93j98.txt")').first
    row.wait_for()
    row.locator(".summary").click()  # selected and opened
    pre = page.locator('.row.selected [data-testid="spill-content"]')
    pre.wait_for()
    whole = (SPILL / "230240ea-0a87-449e-afca-cff76f0fdc8a" / "tool-results" / "b8oz93j98.txt").read_text()
    assert pre.text_content() == whole
    assert pre.get_attribute("data-file").endswith("230240ea-0a87-449e-afca-cff76f0fdc8a/tool-results/b8oz93j98.txt")
    app.testid("filter").fill("")


def test_a_spilled_output_whose_file_is_not_given_says_so(app) -> None:
    page = app.page
    lone = SPILL / "230240ea-0a87-449e-afca-cff76f0fdc8a" / "subagents" / "agent-a49ee8045afef3b66.jsonl"
    app.open_files([lone])
    row = page.locator(f'{ROWS}:has-text("whole in tool-results/b8oz93j98.txt")').first
    row.wait_for()
    row.locator(".summary").click()  # selected and opened
    note = page.locator('.row.selected [data-testid="spill-missing"]')
    note.wait_for()
    assert "which is not in the input" in note.text_content()
    assert not page.locator('.row.selected [data-testid="spill-content"]').count()


MARKDOWN = """# Findings

Two issues, **one** of them *serious*:

1. The loop is `unbounded`.
2. See [the PR](https://github.com/acme/app/pull/7) and [this](javascript:window.__pwned=3).

| file | lines |
|:-----|------:|
| a.go | 12 |

```go
for {}
```

![diagram](http://127.0.0.1:9/never.png)

<script>window.__pwned=1</script> <img src=x onerror="window.__pwned=2"> <b>raw</b>
"""


def test_a_message_s_detail_is_its_markdown_and_its_summary_plain_text(app) -> None:
    page = app.page
    events = [{"type": "system", "subtype": "init", "session_id": "md", "model": "m", "tools": []},
              {"type": "assistant", "session_id": "md", "message": {
                  "id": "msg_md", "role": "assistant", "content": [{"type": "text", "text": MARKDOWN}]}}]
    app.paste("\n".join(json.dumps(e) for e in events) + "\n")
    row = page.locator(f'{ROWS}[data-type="text_delta"]')
    summary = row.locator(".summary")
    assert summary.text_content().startswith("# Findings Two issues, **one** of them") and not summary.locator("*").count()
    summary.click()
    md = page.locator('.row.selected [data-testid="row-content"][data-format="markdown"]')
    md.wait_for()
    assert md.locator("h3").text_content() == "Findings"
    assert md.locator("ol > li").count() == 2 and md.locator("strong").text_content() == "one"
    assert md.locator("table th").evaluate_all("ts => ts.map(t => t.textContent)") == ["file", "lines"]
    assert md.locator("td.align-right").text_content() == "12"
    assert md.locator('pre.code[data-lang="go"]').text_content() == "for {}"
    links = md.locator("a").evaluate_all("as => as.map(a => [a.textContent, a.getAttribute('href'), a.rel])")
    assert links == [["the PR", "https://github.com/acme/app/pull/7", "noopener noreferrer"],
                     ["[image: diagram]", "http://127.0.0.1:9/never.png", "noopener noreferrer"]]
    assert "<script>window.__pwned=1</script>" in md.text_content() and "<b>raw</b>" in md.text_content()
    assert page.locator(".timeline script, .timeline img, .timeline b, .timeline iframe").count() == 0
    assert not [u for u in app.log.urls() if "never.png" in u]  # the image is never fetched
    assert app.pwned() is None


def test_a_break_s_label_on_the_ruler_is_drawn_over_no_mark(app, tmp_path: Path) -> None:
    from test_app_swimlanes_folds import IDLE_HOURS, open_folder, set_fold
    page = app.page
    open_folder(app, IDLE_HOURS, tmp_path)
    set_fold(app, True)
    labels = page.locator("[data-testid=swimlane-ruler] [data-testid=axis-gap]:not([hidden])")
    assert labels.count() == 2
    for k in range(labels.count()):
        label = labels.nth(k)
        if not label.text_content() or "sl-gap-quiet" in (label.get_attribute("class") or ""):
            continue
        box = label.bounding_box()
        # the ruler's pixels under the label's line: nothing drawn there (no band, no zigzag, no tick label)
        inked = page.evaluate("""([x, w, h]) => {
          const c = document.querySelector('[data-testid=swimlane-ruler] canvas');
          const r = c.getBoundingClientRect(), s = c.width / r.width;
          const data = c.getContext('2d').getImageData(Math.round((x - r.left) * s), 0,
                                                       Math.max(1, Math.round(w * s)), Math.round(h * s)).data;
          let n = 0;
          for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
          return n;
        }""", [box["x"], box["width"], box["height"] - 1])
        assert inked == 0, (label.text_content(), inked)


def stream_json(timed: str) -> str:
    """A stream-json run: main starts a sub-agent, which makes a Bash call a second. ``timed``:
    "all" records carry a timestamp, "results" only the tool results (as real captures do), "none"."""
    events: list[dict] = [{"type": "system", "subtype": "init", "session_id": "t", "model": "m", "tools": ["Bash"]},
                          {"type": "assistant", "session_id": "t", "parent_tool_use_id": None, "message": {
                              "id": "msg_main", "role": "assistant", "content": [
                                  {"type": "tool_use", "id": "toolu_agent", "name": "Agent",
                                   "input": {"description": "look around", "prompt": "look", "subagent_type": "Explore"}}]}}]
    for k in range(6):
        events.append({"type": "assistant", "session_id": "t", "parent_tool_use_id": "toolu_agent", "message": {
            "id": f"msg_{k}", "role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_{k}", "name": "Bash", "input": {"command": f"sleep {k}"}}]}})
        events.append({"type": "user", "session_id": "t", "parent_tool_use_id": "toolu_agent", "message": {
            "role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}", "content": "ok"}]}})
    events.append({"type": "user", "session_id": "t", "parent_tool_use_id": None, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_agent", "content": "done"}]}})
    for n, e in enumerate(events):
        if timed == "all" or (timed == "results" and e["type"] == "user"):
            e["timestamp"] = f"2026-03-01T10:00:{n:02d}.000Z"
    return "\n".join(json.dumps(e) for e in events) + "\n"


def test_the_axis_and_the_rows_tell_time_the_same_way(app) -> None:
    page = app.page
    caption = app.testid("swimlane-axis")
    app.paste(stream_json("all"))  # every record timed: the axis is the clock, and so are the rows
    assert caption.text_content().startswith("x: wall-clock time, from ")
    assert page.locator(f"{ROWS}[data-time]").count() > 5
    app.paste(stream_json("results"))  # only some: line order, and the rows say no time either
    assert caption.text_content() == "x: input line order (only some records have a timestamp: the rows show no times)"
    assert page.locator(f"{ROWS}[data-time]").count() == 0 and page.locator(f"{ROWS} .time").count() == 0
    app.paste(stream_json("none"))
    assert caption.text_content() == "x: input line order (the input has no timestamps)"
    assert page.locator(f"{ROWS}[data-time]").count() == 0
