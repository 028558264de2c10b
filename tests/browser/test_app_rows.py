"""Rows that say what happened. An opened tool call shows the change as a diff
(path, old -> new, line-numbered), a command with its exit status and output head, a todo list
with its states; assistant text keeps its newlines and code blocks; transcript text stays text.
Expectations come from the raw JSON of real captures (tests/fixtures/real/), not from our code.
Screenshots of opened rows at 1280 and 390 px, light and dark, go to $RELAYSCOPE_SHOTS (or the
test's tmp folder)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from _app import CORPUS, cli_ndjson, wait_js

SAMPLE = CORPUS / "session-jsonl" / "d-kimuson__claude-code-viewer" / "mock-global-claude-dir" / "projects" \
    / "sample-project" / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
FASTHOOKS = CORPUS / "session-jsonl" / "oneryalcin__fasthooks" / "specs" / "data" / "sample_main_transcript.jsonl"


def tool_blocks(path: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    """Every tool_use block by id, and every tool_result block by the id it answers."""
    uses, results = {}, {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                uses[block["id"]] = block
            elif isinstance(block, dict) and block.get("type") == "tool_result":
                results[block["tool_use_id"]] = block
    return uses, results


def seq_of(path: Path, tool_id: str, kind: str = "tool_use") -> int:
    """The seq of a call (or its result) in the relays the CLI writes for ``path``."""
    relays = [json.loads(line) for line in cli_ndjson(path).splitlines()]
    key = "id" if kind == "tool_use" else "tool_use_id"
    return next(r["seq"] for r in relays if r["type"] == kind and r.get(key) == tool_id)


def open_call(app, path: Path, tool_id: str, kind: str = "tool_use"):
    """Filter by the call's id (it matches the call and its result), open the call's row (or its result's),
    in the protocol reading (every relay its row: the run reading folds a result into its call's row)."""
    page = app.page
    app.reading("protocol")
    seq = seq_of(path, tool_id, kind)
    c = "document.querySelector('[data-testid=relay-count]')"
    shown = f"+{c}.textContent.replace(/\\D/g, '') + +{c}.dataset.hidden"  # all rows but bookkeeping
    app.testid("filter").fill("")
    wait_js(page, f"{shown} === +{c}.dataset.total")
    app.testid("filter").fill(tool_id)
    wait_js(page, f"{shown} < +{c}.dataset.total")
    page.locator(f'.row[data-seq="{seq}"] .summary').click()
    page.wait_for_selector(f'.row.selected[data-seq="{seq}"] [data-testid="row-detail"]')
    return page.locator('.row.selected [data-testid="row-detail"]')


def lines_of(text: str) -> list[str]:
    parts = text.split("\n")
    return parts[:-1] if parts and parts[-1] == "" else parts


def test_an_edit_row_shows_its_change_as_a_numbered_diff(app) -> None:
    uses, _ = tool_blocks(SAMPLE)
    edit = next(b for b in uses.values() if b["name"] == "Edit")
    old, new = lines_of(edit["input"]["old_string"]), lines_of(edit["input"]["new_string"])
    app.open_files([SAMPLE])
    detail = open_call(app, SAMPLE, edit["id"])
    summary = app.page.locator(".row.selected .summary").text_content()
    assert summary.startswith("Edit ") and f": {len(old)} lines → {len(new)}" in summary
    diff = detail.locator('[data-testid="diff"]')
    assert diff.count() == 1
    assert detail.locator('[data-testid="diff-path"]').text_content() == edit["input"]["file_path"]
    rows = diff.locator("tr.del, tr.add, tr.context").evaluate_all(
        "trs => trs.map(tr => [tr.className, ...[...tr.cells].map(td => td.textContent)])")
    old_seen, new_seen = {}, {}
    for kind, old_no, new_no, _sign, text in rows:
        if kind in ("del", "context"):
            old_seen[int(old_no)] = text
        if kind in ("add", "context"):
            new_seen[int(new_no)] = text
        assert (old_no == "") == (kind == "add") and (new_no == "") == (kind == "del")
    # every old line under its number on the old side, every new line on the new side, whitespace kept
    assert old_seen == {k + 1: t for k, t in enumerate(old)}
    assert new_seen == {k + 1: t for k, t in enumerate(new)}
    assert any(kind == "del" for kind, *_ in rows) and any(kind == "add" for kind, *_ in rows)
    # the input is still one look away, as JSON
    assert edit["input"]["old_string"].split("\n")[0] in detail.locator('[data-testid="row-content"]').text_content()
    app.testid("filter").fill("")


def test_a_bash_row_shows_the_command_then_its_exit_status_and_output(app) -> None:
    uses, results = tool_blocks(FASTHOOKS)
    failed = [b for b in uses.values() if b["name"] == "Bash" and results.get(b["id"], {}).get("is_error")
              and str(results[b["id"]]["content"]).startswith("Exit code ")]
    assert failed
    call = failed[-1]
    result = results[call["id"]]["content"]
    code = result.split("\n")[0].removeprefix("Exit code ")
    app.open_files([FASTHOOKS])
    detail = open_call(app, FASTHOOKS, call["id"])
    summary = app.page.locator(".row.selected .summary").text_content()
    assert summary == f"Bash: {call['input']['command']} → exit {code}"
    assert detail.locator('[data-testid="command"]').text_content() == call["input"]["command"]
    assert detail.locator('[data-testid="exit-status"]').text_content() == f"exit {code}"
    assert call["input"]["description"] in detail.locator('[data-testid="tool-detail"]').text_content()
    assert detail.locator('[data-testid="output-head"]').text_content() == result.rstrip("\n")
    # the result's row says what it answers
    open_call(app, FASTHOOKS, call["id"], "tool_result")
    assert app.page.locator(".row.selected .summary").text_content().startswith(f"Bash → exit {code} · ")
    app.testid("filter").fill("")


def test_a_todowrite_row_shows_the_list_with_its_states(app) -> None:
    uses, _ = tool_blocks(SAMPLE)
    call = [b for b in uses.values() if b["name"] == "TodoWrite"][-1]
    todos = call["input"]["todos"]
    app.open_files([SAMPLE])
    detail = open_call(app, SAMPLE, call["id"])
    items = detail.locator('[data-testid="todos"] li')
    assert items.evaluate_all("lis => lis.map(li => [li.dataset.status, li.querySelector('.todo-text').textContent])") \
        == [[t["status"], t["content"]] for t in todos]
    done = sum(t["status"] == "completed" for t in todos)
    assert f"TodoWrite: {done} of {len(todos)} todos done" in app.page.locator(".row.selected .summary").text_content()
    app.testid("filter").fill("")


def test_a_sub_agent_call_shows_its_type_description_prompt_and_a_link_to_its_lane(app) -> None:
    uses, _ = tool_blocks(SAMPLE)
    app.open_files([SAMPLE])
    lanes = set(app.lanes())
    call = next(b for b in uses.values() if b["name"] == "Task" and b["id"] in lanes)
    detail = open_call(app, SAMPLE, call["id"])
    facts = detail.locator('[data-testid="tool-detail"] dl.facts').text_content()
    assert call["input"]["subagent_type"] in facts and call["input"]["description"] in facts
    assert detail.locator('[data-testid="spawn-prompt"]').text_content() == call["input"]["prompt"][:599] + (
        "…" if len(call["input"]["prompt"]) > 600 else call["input"]["prompt"][599:])
    detail.locator('[data-testid="spawn-lane"]').click()
    assert app.page.locator(".row.selected").get_attribute("data-lane") == call["id"]
    app.testid("filter").fill("")


HOSTILE = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"


def hostile_session() -> str:
    text = f"Here is the fix:\n\n```js\n{HOSTILE}\nconsole.log(1)\n```\nand a second line {HOSTILE}"
    events = [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "m", "tools": []},
        {"type": "assistant", "message": {"id": "msg_1", "role": "assistant", "content": [
            {"type": "text", "text": text},
            {"type": "tool_use", "id": "toolu_edit", "name": "Edit",
             "input": {"file_path": f"/src/{HOSTILE}.html", "old_string": f"a\n{HOSTILE}\n", "new_string": "a\n<b>x</b>\n"}},
            {"type": "tool_use", "id": "toolu_todo", "name": "TodoWrite",
             "input": {"todos": [{"content": HOSTILE, "status": "in_progress", "activeForm": HOSTILE}]}}]},
         "session_id": "s"},
    ]
    return "\n".join(json.dumps(e) for e in events) + "\n"


def test_transcript_markup_in_text_and_tool_calls_is_shown_as_text(app) -> None:
    transcript = hostile_session()
    page = app.page
    app.paste(transcript)
    page.locator('.row[data-type="text_delta"] .summary').click()
    detail = page.locator('.row.selected [data-testid="row-detail"]')
    prose = detail.locator('[data-testid="row-content"]')
    code = prose.locator("pre.code")
    assert code.get_attribute("data-lang") == "js"
    assert code.text_content() == f"{HOSTILE}\nconsole.log(1)"
    paras = prose.locator("p").evaluate_all("ps => ps.map(p => p.textContent)")
    assert paras == ["Here is the fix:", f"and a second line {HOSTILE}"]  # its Markdown: markup in it stays text
    assert code.evaluate("p => getComputedStyle(p).fontFamily").startswith("ui-monospace")
    for tool in ("Edit", "TodoWrite"):
        page.locator(f'.row[data-type="tool_use"]:has-text("{tool}") .summary').first.click()
        assert HOSTILE in page.locator('.row.selected [data-testid="tool-detail"]').text_content()
    assert page.locator('.row.selected [data-testid="diff"], .row.selected [data-testid="todos"]').count() == 1
    assert page.locator(".timeline script, .timeline img").count() == 0
    assert app.pwned() is None


THEMES = ("light", "dark")


def shoot_in_each_theme(page, width: int, name: str, shots: Path) -> None:
    """The opened row, light and dark (the page follows the scheme as it changes): nothing wider
    than the window, and its screenshot in each."""
    for theme in THEMES:
        page.emulate_media(color_scheme=theme)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, theme)
        page.locator(".row.selected").screenshot(path=str(shots / f"{name}-{width}-{theme}.png"))


# Each row is opened once and looked at in both themes (it was once a run per theme, the same
# rows opened twice).
def test_screenshots_of_opened_rows(app, tmp_path) -> None:
    shots = Path(os.environ.get("RELAYSCOPE_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    page = app.page
    uses, _ = tool_blocks(SAMPLE)
    try:
        app.open_files([SAMPLE])
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 1800})  # the timeline is 72vh: room for an opened row
            for tool in ("Edit", "MultiEdit", "Bash", "TodoWrite", "Task"):
                call = [b for b in uses.values() if b["name"] == tool][-1]
                detail = open_call(app, SAMPLE, call["id"])
                assert detail.locator('[data-testid="tool-detail"]').count() == 1
                detail.scroll_into_view_if_needed()
                shoot_in_each_theme(page, width, tool.lower(), shots)
            app.testid("filter").fill("")
        app.open_files([FASTHOOKS])  # assistant text with a code block, and a command that failed
        failed = next(b for b in tool_blocks(FASTHOOKS)[0].values() if b["name"] == "Bash" and "cat " in b["input"]["command"])
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 1800})
            open_call(app, FASTHOOKS, failed["id"]).scroll_into_view_if_needed()
            shoot_in_each_theme(page, width, "bash-exit", shots)
            app.testid("filter").fill("```")
            page.locator('.row[data-type="text_delta"] .summary').first.click()
            prose = page.locator('.row.selected [data-testid="row-content"]')
            assert prose.locator("pre.code").count() >= 1 and prose.locator("p").count() >= 1
            shoot_in_each_theme(page, width, "text", shots)
            app.testid("filter").fill("")
    finally:
        page.set_viewport_size({"width": 1400, "height": 900})
        page.emulate_media(color_scheme="no-preference")
        app.testid("filter").fill("")
