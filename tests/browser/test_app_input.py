"""Every way in: paste (also while Python boots), files, a folder, a drop, ?src=; bad and hostile
input is reported or shown as text, never dropped silently and never run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import urlsplit

from _app import CORPUS, EXAMPLES_DIR, SETTLED_RUN, AppDriver, cli_ndjson

from relayscope.translator import STRATEGY_NAMES

SESSION_DIR = (CORPUS / "session-jsonl" / "handgemacht-ai__claude-code-log" / "test" / "test_data"
               / "real_projects" / "-experiments-worktrees")
SESSION_MAIN = SESSION_DIR / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
SESSION_AGENTS = sorted((SESSION_DIR / "ef958aa1-0e93-49f0-bb71-150f63befcd1" / "subagents").glob("agent-*.jsonl"))
SEED = (EXAMPLES_DIR / "index-bug.ndjson").read_text(encoding="utf-8")


def session_lanes_expected() -> int:
    return len({json.loads(line)["lane"] for line in cli_ndjson(SESSION_MAIN, *SESSION_AGENTS).splitlines()})


def test_a_paste_made_while_python_boots_is_analyzed_when_it_is_ready(page, site, request_log, cli_count) -> None:
    parts = urlsplit(site.url)
    request_log.origin = f"{parts.scheme}://{parts.netloc}"
    page.goto(site.url, wait_until="commit")
    page.locator('[data-testid="paste-input"]').fill(SEED)
    state_when_pasted = page.get_attribute("html", "data-app-state")
    page.wait_for_selector(SETTLED_RUN, state="attached", timeout=120_000)
    assert page.get_attribute("html", "data-app-state") == "done", request_log.report()
    assert int(page.text_content('[data-testid="relay-count"]')) == cli_count(EXAMPLES_DIR / "index-bug.ndjson")
    assert state_when_pasted in ("loading", "ready", "analyzing")
    request_log.assert_same_origin()


def test_a_paste_is_analyzed_without_a_click_and_the_button_reruns_it(app, cli_count) -> None:
    app.paste(SEED)
    assert app.relay_count() == cli_count(EXAMPLES_DIR / "index-bug.ndjson")
    assert app.testid("source").text_content().startswith("pasted text")
    app.testid("analyze").click()
    app.settle()
    assert app.relay_count() == cli_count(EXAMPLES_DIR / "index-bug.ndjson")


def test_opening_a_session_file_with_its_sub_agent_files_links_up_the_lanes(app, cli_count) -> None:
    app.open_files([SESSION_MAIN, *SESSION_AGENTS])
    assert app.total() == cli_count(SESSION_MAIN, *SESSION_AGENTS)
    lanes = app.lanes()
    assert len(lanes) == session_lanes_expected() == 1 + len(SESSION_AGENTS)
    assert lanes[0] == "main"
    files = app.page.locator(".lane-file").all_text_contents()
    assert sorted(f.rsplit("/", 1)[-1] for f in files) == sorted(f"file: {p.name}".rsplit("/", 1)[-1] for p in SESSION_AGENTS)


def test_the_folder_picker_reads_a_session_folder_and_names_what_it_skipped(app, tmp_path: Path, cli_count) -> None:
    folder = tmp_path / "-experiments-worktrees"
    shutil.copytree(SESSION_DIR, folder)
    (folder / "notes.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    app.testid("folder-input").set_input_files(folder)
    app.settle()
    assert app.total() == cli_count(SESSION_MAIN, *SESSION_AGENTS)
    assert len(app.lanes()) == 1 + len(SESSION_AGENTS)
    assert "notes.png" in app.testid("message").text_content()  # not silently discarded


def drop_files(app: AppDriver, files: dict[str, str]) -> None:
    app.page.evaluate(
        """files => {
            const dt = new DataTransfer();
            for (const [name, text] of Object.entries(files)) dt.items.add(new File([text], name));
            document.body.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
        }""",
        files,
    )
    app.settle()


def test_dropping_several_files_anywhere_on_the_page_loads_them_together(app, cli_count) -> None:
    files = {p.name: p.read_text(encoding="utf-8") for p in (SESSION_MAIN, *SESSION_AGENTS)}
    drop_files(app, files)
    assert app.total() == cli_count(SESSION_MAIN, *SESSION_AGENTS)
    assert len(app.lanes()) == 1 + len(SESSION_AGENTS)
    assert app.testid("source").text_content().startswith(f"{len(files)} files")


def test_a_dropped_folder_is_walked_through_its_entries(app, cli_count) -> None:
    # Browsers only build folder drops from real drags; this feeds the same code a fake folder
    # made of FileSystemEntry look-alikes.
    tree = {
        "project/" + SESSION_MAIN.name: SESSION_MAIN.read_text(encoding="utf-8"),
        **{f"project/{SESSION_MAIN.stem}/subagents/{p.name}": p.read_text(encoding="utf-8") for p in SESSION_AGENTS},
        "project/.DS_Store": "\x00\x01",
    }
    app.page.evaluate(
        """tree => {
            const root = {isFile: false, isDirectory: true, name: "project", fullPath: "/project", kids: new Map()};
            for (const [path, text] of Object.entries(tree)) {
                const parts = path.split("/");
                let dir = root;
                for (let k = 1; k < parts.length - 1; k++) {
                    const full = "/" + parts.slice(0, k + 1).join("/");
                    if (!dir.kids.has(parts[k])) dir.kids.set(parts[k], {isFile: false, isDirectory: true, name: parts[k], fullPath: full, kids: new Map()});
                    dir = dir.kids.get(parts[k]);
                }
                const name = parts[parts.length - 1];
                dir.kids.set(name, {isFile: true, isDirectory: false, name, fullPath: "/" + path,
                                    file: ok => ok(new File([text], name))});
            }
            const finish = (d) => {
                if (!d.isDirectory) return d;
                const kids = [...d.kids.values()].map(finish);
                d.createReader = () => { let sent = false; return {readEntries: ok => { const batch = sent ? [] : kids; sent = true; ok(batch); }}; };
                return d;
            };
            finish(root);
            // the page's drop handling, as a script reaches it: by importing its module
            import("./static/js/files.mjs").then((files) =>
                files.handleDrop({items: [{kind: "file", webkitGetAsEntry: () => root}], files: []}));
        }""",
        tree,
    )
    app.settle()
    assert app.total() == cli_count(SESSION_MAIN, *SESSION_AGENTS)
    assert len(app.lanes()) == 1 + len(SESSION_AGENTS)
    assert ".DS_Store" in app.testid("message").text_content()


def test_src_parameter_loads_a_same_origin_url(visit, site, request_log, cli_count) -> None:
    page = visit(site, "?src=static/examples/gotchas.ndjson")
    assert int(page.text_content('[data-testid="relay-count"]')) == cli_count(EXAMPLES_DIR / "gotchas.ndjson")
    assert "src=static" in page.url
    page = visit(site, "?src=static/examples/no-such-file.jsonl", expect="error")
    assert "HTTP 404" in page.text_content('[data-testid="message"]')
    request_log.assert_same_origin()


def test_unreadable_lines_are_listed_by_line_number_while_the_rest_is_shown(app, tmp_path, cli_count) -> None:
    lines = SEED.splitlines()
    lines.insert(1, "garbage {")
    lines.insert(4, "[1, 2")
    text = "\n".join(lines) + "\n"
    (tmp_path / "bad.ndjson").write_text(text, encoding="utf-8")
    app.paste(text)
    assert app.relay_count() == cli_count(tmp_path / "bad.ndjson")
    summary = app.testid("error-summary").text_content()
    assert summary.startswith("Could not parse 2 lines. First error at line 2")
    assert app.page.locator('[data-testid="error-line"]').all_text_contents() == ["line 2", "line 5"]
    assert "Sub-agent A" in app.testid("timeline").text_content()  # the rest is shown
    app.page.locator('[data-testid="error-line"]').nth(1).click()
    assert app.testid("step-position").get_attribute("data-line") == "5"
    assert app.page.locator('.row.selected[data-type="error"]').count() == 1


def test_a_file_that_is_not_a_transcript_gets_a_clear_message(app) -> None:
    app.open_files([{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"Dear diary,\nno JSON here.\n"}])
    message = app.testid("message")
    assert "does not look like a transcript" in message.text_content()
    assert "error" in message.get_attribute("class")
    assert app.testid("error-summary").text_content().startswith("Could not parse 2 lines")


PAYLOAD = """<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'"&amp;<b>"""


def hostile_transcript() -> str:
    p = PAYLOAD
    spawn = "toolu_x" + p
    events = [
        {"type": "system", "subtype": "init", "session_id": p, "model": p, "cwd": p, "tools": [p, "Task"]},
        {"type": "assistant", "message": {"id": p, "role": "assistant", "content": [
            {"type": "thinking", "thinking": p}, {"type": "text", "text": p},
            {"type": "tool_use", "id": spawn, "name": "Task",
             "input": {"description": p, "prompt": p, "subagent_type": p}}]}, "session_id": p},
        {"type": "assistant", "message": {"id": p + "2", "role": "assistant", "content": [
            {"type": "text", "text": p + " (sub-agent)"}]}, "parent_tool_use_id": spawn, "session_id": p},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": spawn, "content": p, "is_error": True}]}, "session_id": p},
        {"type": p, p: p},
        {"type": "system", "subtype": p, "data": p},
        {"type": "result", "subtype": p, "is_error": False, "result": p, "session_id": p,
         "total_cost_usd": 0.5, "usage": {p: p}},
    ]
    lines = [json.dumps(e) for e in events]
    lines.insert(5, "not json " + p)
    return "\n".join(lines) + "\n"


def test_hostile_text_in_every_field_is_shown_as_text_and_never_runs(app) -> None:
    page = app.page
    scripts = page.locator("script").count()
    name = '<img src=x onerror="window.__pwned=3">.jsonl'
    app.open_files([{"name": name, "mimeType": "application/x-ndjson", "buffer": hostile_transcript().encode()}])
    for strategy in STRATEGY_NAMES:
        app.strategy(strategy)
        rows = page.locator(".row")
        for k in range(rows.count()):  # open each row: full content and raw line
            rows.nth(k).locator(".summary").click()
        page.locator('[data-testid="step-raw"]').evaluate("el => el.closest('details').open = true")
        for _ in range(int(app.step_position().split(" / ")[1])):
            page.keyboard.press("ArrowRight")
    assert app.pwned() is None
    assert page.locator("img").count() == 0
    assert page.locator("b").count() == 0
    assert page.locator("script").count() == scripts
    assert PAYLOAD in app.testid("timeline").text_content()  # shown, as text
    assert any(PAYLOAD in label for label in page.locator('[data-testid="lane-label"]').all_text_contents())
    assert name in app.testid("source").text_content()
    assert app.testid("error-summary").text_content().startswith("Could not parse 1 line")
    app.log.assert_same_origin()
    assert not [p for p in app.log.paths() if p.rstrip("/").endswith("x")]


def test_a_big_file_is_read_in_slices_and_nothing_is_cut_where_they_meet(app, tmp_path: Path) -> None:
    """The page reads a file READ_BYTES at a time (loads.Loads), ahead of the translation in a
    worker of its own (static/js/read-ahead.mjs): a line across a slice boundary, with a two-byte
    character split by it, and a last line with no newline, come out whole."""
    from relayscope.web.loads import READ_BYTES

    filler = b"".join(p.read_bytes() for p in sorted((CORPUS / "stream-json").glob("*.jsonl")))

    def marker(n: int, pad: int) -> bytes:
        return json.dumps({"type": "assistant", "pad": "x" * pad, "message": {
            "id": f"msg_marker{n}", "role": "assistant", "content": [{"type": "text", "text": f"é-MARKER-{n}"}]}},
            ensure_ascii=False).encode()

    data = b""
    for n in (1, 2):  # the é of marker n straddles the end of slice n
        boundary = n * READ_BYTES
        while len(data) + len(filler) < boundary - 10_000:
            data += filler
        data += filler[: filler.rfind(b"\n", 0, boundary - 10_000 - len(data)) + 1]
        line = marker(n, 0)
        pad = boundary - 1 - (len(data) + line.index("é".encode()))
        data += marker(n, pad) + b"\n"
        assert data[boundary - 1:boundary + 1] == "é".encode()
    data += filler + marker(3, 10)  # no final newline
    path = tmp_path / "big.jsonl"
    path.write_bytes(data)
    app.open_files(str(path))
    assert app.total() == len(cli_ndjson(path).splitlines())
    app.testid("filter").fill("é-MARKER-")
    app.page.wait_for_selector('[data-testid="relay-count"]:text-is("3")', timeout=60_000)
    texts = app.testid("timeline").text_content()
    assert all(f"é-MARKER-{n}" in texts for n in (1, 2, 3)), texts[-500:]
