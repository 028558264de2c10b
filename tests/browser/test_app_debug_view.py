"""The debugging view, right and readable. Each test drives the built site as a developer
debugging a transcript would: the filter, the step-through's verdicts, fingerprint colours, session
folders, time and cost, streamed fragments, help and keys, and input that is no text at all."""

from __future__ import annotations

import json
from pathlib import Path

from _app import EXAMPLES_DIR, AppDriver, cli_ndjson, wait_js

from relayscope.translator import STRATEGIES, STRATEGY_NAMES

REAL_SUBAGENTS = EXAMPLES_DIR / "real-subagents.jsonl"
REAL_STREAMING = EXAMPLES_DIR / "real-streaming.jsonl"
SID = "5f0e7d1c-1111-4222-8333-944455556666"
MODEL = "claude-opus-4-1-20250805"


def cli_relays(*paths: Path, strategy: str = "lineage") -> list[dict]:
    return [json.loads(line) for line in cli_ndjson(*paths, strategy=strategy).splitlines()]


def session_lines() -> list[str]:
    """A small session transcript: timestamps on every record, bookkeeping records between the
    conversation's, cwd/version/gitBranch on the records, the model only on assistant rows."""
    base = {"sessionId": SID, "cwd": "/home/dev/shop", "version": "2.1.30", "gitBranch": "fix/cart",
            "userType": "external", "isSidechain": False}
    out: list[str] = []
    parent: str | None = None

    def rec(kind: str, second: int, **fields: object) -> None:
        nonlocal parent
        uid = f"u-{len(out):04d}"
        out.append(json.dumps({**base, "type": kind, "uuid": uid, "parentUuid": parent,
                               "timestamp": f"2026-03-01T10:00:{second:02d}.000Z", **fields}))
        if kind in ("user", "assistant"):
            parent = uid

    usage = {"input_tokens": 1000, "output_tokens": 200, "cache_read_input_tokens": 0,
             "cache_creation_input_tokens": 0}

    def said(mid: str, second: int, block: dict) -> None:
        rec("assistant", second, message={"id": mid, "role": "assistant", "model": MODEL,
                                          "content": [block], "usage": usage})

    out.append(json.dumps({"type": "queue-operation", "operation": "enqueue", "sessionId": SID,
                           "timestamp": "2026-03-01T09:59:59.000Z"}))
    rec("user", 0, message={"role": "user", "content": "Find the bug in cart.py"})
    for k in range(4):
        rec("progress", 1, data={"type": "hook_progress", "hookName": f"h{k}"}, toolUseID="t1")
    out.append(json.dumps({"type": "file-history-snapshot", "messageId": "m1", "snapshot": {}}))
    said("msg_a1", 2, {"type": "text", "text": "Looking at cart.py."})
    said("msg_a2", 3, {"type": "tool_use", "id": "toolu_g1", "name": "Grep", "input": {"pattern": "total"}})
    rec("progress", 4, data={"type": "hook_progress", "hookName": "post"}, toolUseID="toolu_g1")
    rec("user", 5, message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_g1", "content": "cart.py:12: total = 0"}]})
    out.append(json.dumps({"type": "file-history-snapshot", "messageId": "m2", "snapshot": {}}))
    said("msg_a3", 9, {"type": "text", "text": "Found it: total is reset."})
    return out


def sub_agent_lines() -> list[str]:
    """A sub-agent file of the same session, on a cheaper model."""
    base = {"sessionId": SID, "isSidechain": True, "agentId": "a1b2c3", "cwd": "/home/dev/shop",
            "version": "2.1.30", "gitBranch": "fix/cart", "userType": "external"}
    return [
        json.dumps({**base, "type": "user", "uuid": "s-1", "parentUuid": None, "timestamp": "2026-03-01T10:00:20.000Z",
                    "message": {"role": "user", "content": "Check the tests"}}),
        json.dumps({**base, "type": "assistant", "uuid": "s-2", "parentUuid": "s-1", "timestamp": "2026-03-01T10:00:23.500Z",
                    "message": {"id": "msg_s1", "role": "assistant", "model": "claude-haiku-4-5-20251001",
                                "content": [{"type": "text", "text": "Tests pass."}],
                                "usage": {"input_tokens": 500, "output_tokens": 20}}}),
    ]


def open_session(app: AppDriver, tmp_path: Path) -> list[Path]:
    """A session folder (main file and one sub-agent file), opened with the folder picker, read in
    the protocol reading (chips and rows by relay type; a session opens in the run reading)."""
    folder = tmp_path / "-home-dev-shop"
    (folder / SID / "subagents").mkdir(parents=True)
    main = folder / f"{SID}.jsonl"
    main.write_text("\n".join(session_lines()) + "\n", encoding="utf-8")
    sub = folder / SID / "subagents" / "agent-a1b2c3.jsonl"
    sub.write_text("\n".join(sub_agent_lines()) + "\n", encoding="utf-8")
    app.testid("folder-input").set_input_files(folder)
    app.settle()
    app.reading("protocol")
    return [main, sub]


def row_seqs(app: AppDriver, selector: str = ".row") -> list[str]:
    return app.page.locator(f'[data-testid="timeline"] {selector}').evaluate_all("rs => rs.map(r => r.dataset.seq)")


# -- 1. the filter ------------------------------------------------------------------------------

def test_the_filter_redraws_at_once_and_esc_clears_it_everywhere(app) -> None:
    app.example("real-subagents")
    relays = cli_relays(REAL_SUBAGENTS)
    page = app.page
    app.testid("filter").fill("Glob")
    wait_js(page, f"document.querySelector('[data-testid=relay-count]').textContent !== '{len(relays)}'")
    app.settle()
    shown = app.relay_count()
    assert 0 < shown < len(relays)
    # drawn at once, without a scroll: as many rows as the count (all fit), and a list that high
    assert len(row_seqs(app)) == shown
    height = page.evaluate("document.getElementById('timeline-sizer').offsetHeight")
    assert height == shown * 26  # rowdraw.ROW_H
    assert "q=Glob" in page.url
    app.testid("filter").focus()
    page.keyboard.press("Escape")  # the first leaves the box with the search kept
    app.settle()
    assert app.testid("filter").input_value() == "Glob" and app.relay_count() == shown
    page.keyboard.press("Escape")  # the second clears it
    wait_js(page, f"document.querySelector('[data-testid=relay-count]').textContent === '{len(relays)}'")
    assert app.testid("filter").input_value() == ""
    assert "q=" not in page.url
    page.reload()
    app.settle()
    assert app.testid("filter").input_value() == "" and app.relay_count() == app.total()
    assert "q=" not in page.url


def test_a_link_that_must_clear_the_filter_says_so_and_offers_the_way_back(app) -> None:
    app.example("real-subagents")
    page = app.page
    page.click('[data-testid="type-filter"] button[data-type="tool_use"]')
    only_calls = app.relay_count()
    link = page.locator('.row[data-type="tool_use"] [data-testid="pair-link"]').first
    target = link.get_attribute("data-target")
    link.click()
    assert page.locator(".row.selected").get_attribute("data-seq") == target
    note = app.testid("filter-cleared")
    assert note.is_visible() and f"#{target}" in note.text_content()
    note.locator('[data-testid="filter-restore"]').click()
    assert app.relay_count() == only_calls
    assert page.locator('[data-testid="type-filter"] button[data-type="tool_use"]').get_attribute("aria-pressed") == "true"
    assert not note.is_visible()


# -- 2. the step-through's verdicts ------------------------------------------------------------

def test_the_stepper_calls_a_lost_block_lost_and_the_timeline_shows_where_it_went(app) -> None:
    app.page.goto(app.site.url + "?example=index-bug&strategy=index&step=4")
    app.settle()
    decision = app.testid("step-facts").locator('[data-fact="decision"]')
    assert "lost" in decision.text_content() and "duplicate" not in decision.text_content()
    assert "d-lost" in decision.get_attribute("class")
    error = app.page.evaluate("""(() => { const p = document.body.appendChild(document.createElement('p'));
        p.style.color = 'var(--error)'; const c = getComputedStyle(p).color; p.remove(); return c; })()""")
    assert app.page.evaluate("getComputedStyle(document.querySelector('[data-fact=decision]')).color") == error
    words = app.testid("step-facts").locator('[data-fact="lost"]').text_content()
    assert "Sub-agent B: running the tests" in words and "never emitted" in words
    lost = app.page.locator('[data-testid="timeline"] .row.lost')
    assert lost.count() == 1
    assert "Sub-agent B" in lost.text_content() and "emitted" in lost.get_attribute("class")
    # where it would have been: after the relays of line 3, before those of line 5
    seqs = app.page.locator('[data-testid="timeline"] .row').evaluate_all(
        "rs => rs.sort((a, b) => a.offsetTop - b.offsetTop).map(r => r.dataset.seq)")
    assert seqs[seqs.index(lost.get_attribute("data-seq")) - 1] == "4"
    # no placeholder under a strategy that loses nothing
    app.strategy("lineage")
    assert app.page.locator(".row.lost").count() == 0


def test_a_correct_skip_links_to_the_row_that_carried_the_block(app) -> None:
    app.example("cumulative-dedup", strategy="index")
    page = app.page
    for _ in range(app.page.locator("[data-testid=step-slider]").evaluate("s => +s.max") + 1):
        if page.locator('[data-testid="dup-of"]').count():
            break
        app.testid("step-next").click()
    dup = page.locator('[data-testid="dup-of"]').first
    assert dup.is_visible()
    decision = app.testid("step-facts").locator('[data-fact="decision"]').text_content()
    assert "duplicate of #" in decision and "lost" not in decision
    target = dup.get_attribute("data-target")
    assert dup.text_content() == f"duplicate of #{target}"
    dup.click()
    assert page.locator(".row.selected").get_attribute("data-seq") == target


def test_a_snapshot_after_streaming_reads_already_streamed(app) -> None:
    app.example("real-streaming", strategy="lineage")
    page = app.page
    found = False
    for _ in range(page.locator("[data-testid=step-slider]").evaluate("s => +s.max") + 1):
        if "already streamed" in app.testid("step-facts").locator('[data-fact="decision"]').text_content():
            found = True
            break
        app.testid("step-next").click()
    assert found
    assert page.locator('[data-testid="streamed-as"]').count() >= 1


# -- 3. fingerprint colours ----------------------------------------------------------------------

def legend(app: AppDriver) -> list[dict]:
    box = app.page.locator("#fp-legend-box")
    if box.get_attribute("open") is None:
        box.locator("summary").click()  # drawn when opened
    app.page.wait_for_selector('[data-testid="fp-legend"] li')
    return app.testid("fp-legend").locator("[data-fingerprint]").evaluate_all(
        "es => es.map(e => ({fp: e.dataset.fingerprint, color: e.dataset.color, text: e.textContent}))")


def test_fingerprints_are_coloured_in_first_seen_order_with_a_legend(app) -> None:
    app.example("index-bug", strategy="index")
    entries = legend(app)
    fps = [e["fp"] for e in entries]
    assert fps[0] == "thinking:I will delegate."
    assert len(set(fps)) == len(fps) and len({e["color"] for e in entries}) == len(entries)
    colors = {e["fp"]: e["color"] for e in entries}
    b = next(fp for fp in fps if fp.startswith("text:Sub-agent B"))
    assert colors["thinking:I will delegate."] != colors[b]
    assert [e["color"] for e in entries] == [f"fp-{k}" for k in range(len(entries))]
    # the rows use the legend's colours
    dot = app.page.locator('.row[data-seq="1"] .fp')
    assert "fp-0" in dot.get_attribute("class").split()


def test_beyond_the_palette_fingerprints_are_numbered(app) -> None:
    lines = [json.dumps({"type": "assistant", "message": {"id": f"m{k}", "role": "assistant", "content": [
        {"type": "text", "text": f"agent {k} says hello"}]}}) for k in range(20)]
    app.paste("\n".join(lines) + "\n")
    app.strategy("lineage")  # 'index' loses one-block events: every one of them is wanted here
    entries = legend(app)
    assert len(entries) == 20
    looks = {(e["color"], e["text"].split(" ", 1)[0]) for e in entries}
    assert len(looks) == 20 and len({e["color"] for e in entries}) == 20
    numbered = [e for e in entries if "#" in e["color"]]
    assert numbered and all(e["text"].split(" ", 1)[0].isdigit() for e in numbered)
    last = entries[-1]
    row_dot = app.page.locator(f'.row .fp[title="fingerprint: {last["fp"]}"]').first
    app.testid("timeline").evaluate("t => { t.scrollTop = t.scrollHeight; t.dispatchEvent(new Event('scroll')); }")
    assert row_dot.text_content() == last["text"].split(" ", 1)[0]


# -- 4. sessions ---------------------------------------------------------------------------------

def test_a_session_shows_file_line_hides_bookkeeping_and_reads_its_metadata(app, tmp_path: Path) -> None:
    paths = open_session(app, tmp_path)
    relays = cli_relays(*paths)
    bookkeeping = [r for r in relays if r["type"] == "passthrough"]
    page = app.page
    assert len(bookkeeping) == 8
    shown = app.relay_count()
    assert shown == len(relays) - len(bookkeeping)
    chip = app.testid("hidden-chip")
    assert chip.is_visible() and chip.text_content().startswith("8 hidden")
    assert page.locator('.row[data-type="passthrough"]').count() == 0
    # file:line with the line number always visible
    last = next(r for r in reversed(relays) if r["file"].endswith(f"{SID}.jsonl"))
    where = page.locator(f'.row[data-seq="{last["seq"]}"] .where')
    assert where.locator(".ln").text_content() == f":{last['line']}"
    box = where.locator(".ln").bounding_box()
    row_box = page.locator(f'.row[data-seq="{last["seq"]}"]').bounding_box()
    assert box and box["width"] > 0 and box["x"] + box["width"] <= row_box["x"] + row_box["width"]
    # the session row names the model, version, cwd and branch
    meta = page.locator('.row[data-type="session_meta"] .summary').text_content()
    for part in (MODEL, "2.1.30", "/home/dev/shop"):  # the one session row of page, CLI and snapshot
        assert part in meta, meta
    assert "model ?" not in meta
    # an opened row shows its raw line as written and indented
    page.locator('.row[data-type="session_meta"]').click()
    pretty = page.locator('.row.selected [data-testid="row-raw-pretty"]').text_content()
    assert json.loads(pretty)["type"] == "queue-operation" and '\n  "type": "queue-operation"' in pretty
    chip.click()
    assert app.relay_count() == len(relays)
    assert page.locator('.row[data-type="passthrough"]').count() == 8
    assert "bookkeeping=shown" in page.url
    chip.click()
    assert app.relay_count() == shown
    # a type chip includes (only the types chosen), its ⊘ excludes (all but): one click each
    tool_use = page.locator('[data-testid="type-filter"] button[data-type="tool_use"]')
    hide = page.locator('[data-testid="type-filter"] button[data-exclude="tool_use"]')
    tool_use.click()
    assert app.relay_count() == 1 and tool_use.get_attribute("data-mode") == "include"
    hide.click()
    assert app.relay_count() == shown - 1 and tool_use.get_attribute("data-mode") == "exclude"
    assert hide.get_attribute("aria-pressed") == "true" and tool_use.get_attribute("aria-pressed") == "false"
    assert page.locator('.row[data-type="tool_use"]').count() == 0
    assert "types=-tool_use" in page.url
    page.locator('[data-testid="type-filter"] button[data-exclude="user_message"]').click()
    assert app.relay_count() == shown - 1 - sum(r["type"] == "user_message" for r in relays)
    page.locator('[data-testid="type-filter"] button[data-exclude="user_message"]').click()
    hide.click()
    assert app.relay_count() == shown and tool_use.get_attribute("data-mode") is None


# -- 5. time, model, cost --------------------------------------------------------------------------

def test_rows_show_their_time_and_the_gap_and_lanes_their_model_time_and_estimated_cost(app, tmp_path: Path) -> None:
    paths = open_session(app, tmp_path)
    relays = cli_relays(*paths)
    page = app.page
    found = next(r for r in relays if r["type"] == "text_delta" and "Found it" in r["text"])
    time = page.locator(f'.row[data-seq="{found["seq"]}"] [data-testid="row-time"]')
    assert time.get_attribute("data-time") == "2026-03-01T10:00:09.000Z"
    assert "10:00:09" in time.text_content()
    gap = page.locator(f'.row[data-seq="{found["seq"]}"] [data-testid="row-gap"]')
    assert gap.text_content() == "+4s"  # the tool_result before it in the lane came at :05
    lane = page.locator('[data-testid="lane"][data-lane="main"]')
    assert lane.locator('[data-testid="lane-model"]').text_content() == MODEL
    assert "10 s" in lane.locator('[data-testid="lane-wall"]').text_content()  # 09:59:59 -> 10:00:09
    cost = lane.locator('[data-testid="lane-cost"]')
    assert cost.get_attribute("data-estimated") == "true" and "estimated" in cost.text_content()
    # opus 4.1: 3 x (1000 in x $15 + 200 out x $75) / 1e6
    assert "$0.0900" in cost.text_content()
    sub = page.locator('[data-testid="lane"]').nth(1)
    assert sub.locator('[data-testid="lane-model"]').text_content() == "claude-haiku-4-5-20251001"
    assert sub.locator('[data-testid="lane-wall"]').text_content() == "wall time 4 s"  # 10:00:20 -> 10:00:23.5


def test_sub_agents_on_another_model_show_it_and_given_cost_is_not_estimated(app) -> None:
    app.example("real-subagents")
    page = app.page
    main = page.locator('[data-testid="lane"][data-lane="main"]')
    assert main.locator('[data-testid="lane-model"]').text_content() == "claude-sonnet-4-6"
    assert main.locator('[data-testid="lane-cost"]').get_attribute("data-estimated") == "false"
    assert "4m 35s" in main.locator('[data-testid="lane-wall"]').text_content()  # duration_ms 274651
    sub = page.locator('[data-testid="lane"]').nth(1)
    assert sub.locator('[data-testid="lane-model"]').text_content() == "claude-haiku-4-5-20251001"
    assert sub.locator('[data-testid="lane-cost"]').get_attribute("data-estimated") == "true"
    # stream-json rows carry no time of their own: no time is made up
    assert page.locator('[data-testid="row-time"][data-time]').count() == 0 or all(
        t for t in page.locator('[data-testid="row-time"]').evaluate_all("ts => ts.map(t => t.dataset.time)"))


# -- 6. streamed fragments -------------------------------------------------------------------------

def test_consecutive_partial_deltas_are_one_row_expandable_to_the_fragments(app) -> None:
    app.example("real-streaming")
    relays = cli_relays(REAL_STREAMING)
    partial = [r for r in relays if r.get("partial")]
    page = app.page
    rows = page.locator('.row[data-type="text_delta"]')
    assert rows.count() == 1
    head = rows.first
    assert head.get_attribute("data-fragments") == str(len(partial))
    joined = "".join(r["text"] for r in partial)
    assert head.locator(".summary").get_attribute("title") == " ".join(joined.split())[:300]
    head.locator('[data-testid="fragments-toggle"]').click()
    assert page.locator(".row.fragment").count() == len(partial) - 1
    assert page.locator('.row[data-type="text_delta"]').count() == len(partial)
    head.locator('[data-testid="fragments-toggle"]').click()
    assert page.locator(".row.fragment").count() == 0
    # stepping onto a line whose delta is folded into the group marks the group's row
    if app.testid("step-first").is_enabled():
        app.testid("step-first").click()
    while app.testid("step-position").get_attribute("data-line") != str(partial[2]["line"]):
        app.testid("step-next").click()
    assert "emitted" in head.get_attribute("class").split()
    # the relays themselves are as they were
    assert app.relay_count() == len(relays)
    app.tab("share")
    with page.expect_download() as download:
        app.testid("export-ndjson").click()
    assert Path(download.value.path()).read_bytes() == cli_ndjson(REAL_STREAMING)


def test_streamed_thinking_without_text_is_one_row_that_says_so(app) -> None:
    def event(ev: dict) -> str:
        return json.dumps({"type": "stream_event", "event": ev, "session_id": "s1", "parent_tool_use_id": None})
    lines = [json.dumps({"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-opus-4-5", "tools": []}),
             event({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}}),
             event({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}})]
    lines += [event({"type": "content_block_delta", "index": 0,
                     "delta": {"type": "thinking_delta", "thinking": "", "estimated_tokens": 12}})] * 3
    app.paste("\n".join(lines) + "\n")
    app.strategy("lineage")
    rows = app.page.locator('.row[data-type="thinking_delta"]')
    assert rows.count() == 1 and rows.first.get_attribute("data-fragments") == "3"
    assert rows.first.locator(".summary").text_content() == "thinking omitted (12 tokens)"
    assert "(empty)" not in app.testid("timeline").text_content()


# -- 7. help, keys, odd input ----------------------------------------------------------------------

def test_help_explains_strategies_decisions_and_chips(app) -> None:
    app.example("index-bug")
    app.testid("help-toggle").click()
    help_text = app.testid("help").text_content()
    assert app.testid("help").is_visible()
    for word in (*STRATEGY_NAMES, "lost", "duplicate", "already streamed", "hidden"):
        assert word in help_text, word
    for name in STRATEGY_NAMES:  # the core's own words for each
        assert STRATEGIES[name].summary in help_text, name


def test_home_end_page_keys_and_a_skip_link_past_the_rows(app) -> None:
    app.example("real-subagents", strategy="none")
    page = app.page
    total = app.relay_count()
    app.testid("timeline").focus()
    page.keyboard.press("End")
    assert page.locator(".row.selected").get_attribute("data-seq") == str(total - 1)
    page.keyboard.press("Home")
    assert page.locator(".row.selected").get_attribute("data-seq") == "0"
    page.keyboard.press("PageDown")
    down = int(page.locator(".row.selected").get_attribute("data-seq"))
    assert down > 5
    page.keyboard.press("PageUp")
    assert page.locator(".row.selected").get_attribute("data-seq") == "0"
    # Tab from the timeline goes to the detail panel (its separator, then its tab: the
    # step-through's), not through the rows' links
    app.testid("timeline").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "detail-resizer"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "tab-stepper", page.evaluate(
        "document.activeElement.outerHTML.slice(0, 200)")
    # a skip link before the timeline jumps to the stepper
    skip = app.testid("skip-to-stepper")
    skip.focus()
    assert skip.is_visible()
    page.keyboard.press("Enter")
    assert page.evaluate("!!document.activeElement.closest('[data-testid=stepper]')")


def test_a_binary_file_gets_one_clear_message_and_leaves_the_session_shown(app) -> None:
    app.example("index-bug")
    rows = app.page.locator(".row").count()
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
    app.testid("file-input").set_input_files([{"name": "screenshot.png", "mimeType": "image/png", "buffer": png}])
    app.settle()
    message = app.testid("message")
    assert message.is_visible() and "binary" in message.text_content() and "screenshot.png" in message.text_content()
    assert app.testid("errors").is_hidden()
    assert app.testid("workspace").is_visible()
    assert "example=index-bug" in app.page.url and app.page.locator(".row").count() == rows


def test_analyze_on_an_empty_box_says_so(app) -> None:
    app.example("index-bug")
    app.testid("paste-input").fill("")
    app.testid("analyze").click()
    message = app.testid("message")
    assert message.is_visible() and "empty" in message.text_content()
    assert "index-bug" in message.text_content()  # says what the view still shows
