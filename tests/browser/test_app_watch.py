"""Watching a file or folder while it grows, in a real browser.

The app is handed handles from the origin-private file system (``navigator.storage.
getDirectory()``) as a script hands them: ``watch(handle, {intervalMs})`` of static/js/watch.mjs;
the test appends to those files (``createWritable`` with ``keepExistingData``, then ``seek``)
and waits on ``<html data-watch-bytes>`` / ``data-app-state`` / ``data-watch-ticks``, never
sleeps. What the page shows is checked against the CLI and the web model in this process.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from _app import EXAMPLES_DIR, cli_ndjson, wait_js

from relayscope.web.model import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))  # test_session's fixtures
import test_app_embed
from test_session import nested_session

cross_site = test_app_embed.cross_site  # the fixture: the app in a frame of another site
SESSION = EXAMPLES_DIR / "real-session.jsonl"
INTERVAL_MS = 150

# window.__watch: handles by name, so Python can name them across evaluate() calls
OPFS_WRITE = """async ({path, b64, fresh}) => {
  window.__watch = window.__watch || {};
  let dir = await navigator.storage.getDirectory();
  const parts = path.split("/");
  for (const part of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(part, {create: true});
  const handle = await dir.getFileHandle(parts[parts.length - 1], {create: true});
  const writable = await handle.createWritable({keepExistingData: !fresh});
  if (!fresh) await writable.seek((await handle.getFile()).size);
  await writable.write(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  await writable.close();
  window.__watch[path] = handle;
}"""
OPFS_DIR = """async (path) => {
  let dir = await navigator.storage.getDirectory();
  for (const part of path.split("/")) dir = await dir.getDirectoryHandle(part, {create: true});
  window.__watch = window.__watch || {};
  window.__watch[path] = dir;
}"""


WATCH = """([p, ms]) => import("./static/js/watch.mjs").then((m) => m.watch(window.__watch[p], {intervalMs: ms}))"""


def write(page, path: str, data: bytes, fresh: bool = False) -> None:
    page.evaluate(OPFS_WRITE, {"path": path, "b64": base64.b64encode(data).decode(), "fresh": fresh})


def watch(page, path: str) -> None:
    page.evaluate(WATCH, [path, INTERVAL_MS])


def read_up_to(page, total: int) -> None:
    """Wait until the app has read `total` bytes and shown them."""
    page.wait_for_selector(f'html[data-watch-bytes="{total}"][data-app-state="done"]', state="attached",
                           timeout=60_000)


def ticks(page) -> int:
    return int(page.get_attribute("html", "data-watch-ticks") or 0)


def model_after(data: bytes) -> Workspace:
    """The web model fed the same bytes: what the page must show before the watch ends."""
    ws = Workspace()
    ws.start_live("x")
    ws.append(data)
    return ws


def shown(app) -> dict:
    page = app.page
    return {
        "count": app.relay_count(),
        "total": int(page.get_attribute('[data-testid="relay-count"]', "data-total")),
        "lanes": app.lanes(),
        "step": app.step_position(),
    }


def test_a_watched_file_grows_rows_lanes_counts_and_steps_as_lines_land(app) -> None:
    page = app.page
    data = SESSION.read_bytes()
    lines = data.splitlines(keepends=True)
    third = len(lines) // 3
    first = b"".join(lines[:third])
    at = len(b"".join(lines[:2 * third]))
    cut = next(i for i in range(at, len(data)) if data[i] & 0xC0 == 0x80)  # inside a line and a UTF-8 character
    name = "w1/session.jsonl"
    write(page, name, first, fresh=True)
    watch(page, name)
    read_up_to(page, len(first))
    assert page.get_attribute("html", "data-watch") == "watching"
    ws = model_after(first)
    assert shown(app) == {"count": len(ws.relays), "total": len(ws.relays), "lanes": [v.id for v in ws.lanes],
                          "step": f"{ws.step_count()} / {ws.step_count()}"}
    before = shown(app)

    write(page, name, data[len(first):cut])
    read_up_to(page, cut)
    ws = model_after(data[:cut])
    now = shown(app)
    assert now["count"] == len(ws.relays) > before["count"]
    assert now["lanes"] == [v.id for v in ws.lanes] and len(now["lanes"]) > len(before["lanes"])
    assert now["step"] == f"{ws.step_count()} / {ws.step_count()}"  # the step-through keeps to the newest
    last = len(ws.relays) - 1
    assert page.locator(f'[data-testid="timeline"] .row[data-seq="{last}"]').count() == 1  # newest row in view
    assert page.get_attribute('[data-testid="watch-bar"]', "data-following") == "true"

    write(page, name, data[cut:])
    read_up_to(page, len(data))
    page.click('[data-testid="watch-stop"]')
    page.wait_for_selector('html[data-watch="stopped"][data-app-state="done"]', state="attached")
    source = app.testid("source").text_content()
    assert "watching" not in source and "watch stopped" in source, source  # not stale
    cli = [json.loads(x) for x in cli_ndjson(SESSION).splitlines()]
    assert app.relay_count() == len(cli)  # stopped: the same as translating the finished file
    assert app.lanes() == list(dict.fromkeys(r["lane"] for r in cli))


def test_the_view_stays_where_the_reader_scrolled_to(app) -> None:
    page = app.page
    lines = SESSION.read_bytes().splitlines(keepends=True)
    head, more = b"".join(lines[:35]), b"".join(lines[35:45])  # 49 rows, more than the timeline shows
    name = "w2/session.jsonl"
    write(page, name, head, fresh=True)
    watch(page, name)
    read_up_to(page, len(head))
    step = app.step_position()
    page.eval_on_selector('[data-testid="timeline"]', "el => { el.scrollTop = 0; el.dispatchEvent(new Event('scroll')); }")
    app.tab("stepper")  # the step-through is a tab of the detail panel
    page.click('[data-testid="step-first"]')
    write(page, name, more)
    read_up_to(page, len(head) + len(more))
    assert page.eval_on_selector('[data-testid="timeline"]', "el => el.scrollTop") == 0
    assert page.get_attribute('[data-testid="watch-bar"]', "data-following") == "false"
    ws = model_after(head + more)
    assert app.relay_count() == len(ws.relays) > len(model_after(head).relays)
    assert app.step_position() == f"1 / {ws.step_count()}" and step != f"1 / {ws.step_count()}"


def test_pause_stops_reading_and_resume_catches_up(app) -> None:
    page = app.page
    lines = SESSION.read_bytes().splitlines(keepends=True)
    head, more = b"".join(lines[:20]), b"".join(lines[20:40])
    name = "w3/session.jsonl"
    write(page, name, head, fresh=True)
    watch(page, name)
    read_up_to(page, len(head))
    count = app.relay_count()
    page.click('[data-testid="watch-pause"]')
    assert page.get_attribute("html", "data-watch") == "paused"
    assert page.text_content('[data-testid="watch-pause"]') == "Resume"
    write(page, name, more)
    seen = ticks(page)
    wait_js(page, f"Number(document.documentElement.dataset.watchTicks) >= {seen + 3}")
    assert page.get_attribute("html", "data-watch-bytes") == str(len(head))  # nothing read while paused
    assert app.relay_count() == count
    page.click('[data-testid="watch-pause"]')
    read_up_to(page, len(head) + len(more))
    assert page.get_attribute("html", "data-watch") == "watching"
    assert app.relay_count() == len(model_after(head + more).relays) > count


def test_a_file_that_shrinks_is_read_again_from_its_start(app) -> None:
    page = app.page
    big = SESSION.read_bytes()[:20_000]
    big = big[:big.rfind(b"\n") + 1]
    small = (EXAMPLES_DIR / "index-bug.ndjson").read_bytes()
    name = "w4/run.jsonl"
    write(page, name, big, fresh=True)
    watch(page, name)
    read_up_to(page, len(big))
    write(page, name, small, fresh=True)
    read_up_to(page, len(small))
    assert "shrank" in page.text_content('[data-testid="watch-status"]')
    assert app.relay_count() == len(model_after(small).relays)


def test_a_watched_folder_joins_sub_agent_files_as_lanes(app) -> None:
    page = app.page
    files = nested_session(meta_only=False, same_prompt=True)
    main, a1, a2 = (files[n].split(b"\n") for n in ("s1.jsonl", "s1/subagents/agent-a1.jsonl",
                                                      "s1/subagents/agent-a2.jsonl"))
    page.evaluate(OPFS_DIR, "w5")
    write(page, "w5/s1.jsonl", main[0] + b"\n" + main[1] + b"\n", fresh=True)
    page.evaluate(WATCH, ["w5", INTERVAL_MS])
    total = len(main[0]) + len(main[1]) + 2
    read_up_to(page, total)
    assert app.lanes() == ["main"]
    chunk = a1[0] + b"\n" + a1[1] + b"\n"
    write(page, "w5/s1/subagents/agent-a1.jsonl", chunk, fresh=True)
    total += len(chunk)
    read_up_to(page, total)
    assert app.lanes() == ["main", "toolu_T1"]
    for path, chunk in (("w5/s1/subagents/agent-a2.jsonl", b"\n".join(a2) + b"\n"),
                        ("w5/s1/subagents/agent-a1.jsonl", b"\n".join(a1[2:]) + b"\n"),
                        ("w5/s1.jsonl", b"\n".join(main[2:]) + b"\n")):
        write(page, path, chunk, fresh=path.endswith("agent-a2.jsonl"))
        total += len(chunk)
    read_up_to(page, total)
    assert app.lanes() == ["main", "toolu_T1", "toolu_T2"]
    depths = page.eval_on_selector_all('[data-testid="lane"]', "els => els.map(e => e.dataset.depth)")
    assert depths == ["0", "1", "2"]


def test_loading_another_input_ends_the_watch(app) -> None:
    page = app.page
    name = "w6/run.ndjson"
    write(page, name, (EXAMPLES_DIR / "index-bug.ndjson").read_bytes(), fresh=True)
    watch(page, name)
    read_up_to(page, len((EXAMPLES_DIR / "index-bug.ndjson").read_bytes()))
    app.example("gotchas")
    assert page.get_attribute("html", "data-watch") == "stopped"  # at once, not at the watch's next look
    assert not page.is_visible('[data-testid="watch-bar"]')


def test_the_watch_buttons_are_there_where_the_browser_has_the_pickers(app) -> None:
    assert app.testid("watch").is_enabled() and app.testid("watch-folder").is_enabled()
    assert not app.testid("watch-unsupported").is_visible()


@pytest.fixture
def no_pickers_page(page):
    page.add_init_script("delete window.showOpenFilePicker; delete window.showDirectoryPicker;"
                         "delete Window.prototype.showOpenFilePicker; delete Window.prototype.showDirectoryPicker;")
    return page


def test_without_the_api_the_action_explains_why(no_pickers_page, site, open_app) -> None:
    page = open_app(site)
    assert page.evaluate("typeof window.showOpenFilePicker") == "undefined"
    assert page.is_visible('[data-testid="watch"]') and page.is_disabled('[data-testid="watch"]')
    note = page.locator('[data-testid="watch-unsupported"]')
    assert note.is_visible()
    assert "File System Access API" in note.text_content()
    assert "relayscope translate --follow" in note.text_content()
    # the hook still takes a handle from the origin-private file system
    write(page, "w7/run.ndjson", (EXAMPLES_DIR / "index-bug.ndjson").read_bytes(), fresh=True)
    watch(page, "w7/run.ndjson")
    read_up_to(page, len((EXAMPLES_DIR / "index-bug.ndjson").read_bytes()))
    assert int(page.text_content('[data-testid="relay-count"]')) > 0


def test_a_long_file_is_read_a_slice_at_a_time_and_ends_as_the_whole(app) -> None:
    page = app.page
    data = (EXAMPLES_DIR / "real-subagents.jsonl").read_bytes()
    data = data + data  # over the 1 MB read per look
    name = "w8/big.jsonl"
    write(page, name, data, fresh=True)
    watch(page, name)
    read_up_to(page, len(data))
    ws = model_after(data)
    assert app.relay_count() == len(ws.relays)
    assert app.lanes() == [v.id for v in ws.lanes]


def test_another_strategy_while_watching_goes_on_from_what_was_read(app) -> None:
    page = app.page
    lines = (EXAMPLES_DIR / "real-subagents.jsonl").read_bytes().splitlines(keepends=True)
    head, more = b"".join(lines[:60]), b"".join(lines[60:120])
    name = "w9/run.jsonl"
    write(page, name, head, fresh=True)
    watch(page, name)
    read_up_to(page, len(head))
    app.strategy("index")
    write(page, name, more)
    read_up_to(page, len(head) + len(more))
    ws = Workspace()
    ws.start_live("x", strategy="index")
    ws.append(head + more)
    assert app.relay_count() == len(ws.relays)
    assert app.testid("strategy").input_value() == "index"
    assert page.get_attribute("html", "data-watch") == "watching"


def test_in_a_frame_of_another_site_the_note_says_why(cross_site) -> None:
    _, frame, _ = cross_site("?example=index-bug")
    assert frame.locator('[data-testid="watch"]').is_disabled()
    note = frame.locator('[data-testid="watch-unsupported"]')
    assert note.is_visible() and "frame of another site" in note.text_content()


def test_a_search_typed_while_watching_finds_the_rows_and_results_that_come_later(app) -> None:
    """A search made before a call's result came finds that call once it has (its line now says
    how it ended), and finds the rows that come after, as a search made at the end would."""
    from test_app_search import search

    page = app.page
    data = (Path(__file__).resolve().parents[1] / "fixtures" / "real" / "stream-json"
            / "ArturoKuang__sandbox_ai_compiler__.repomirror__claude_output.jsonl").read_bytes()
    lines = data.splitlines(keepends=True)
    text = '"→ error"'
    at_once = Workspace()
    for _ in at_once.load(data):
        pass
    found = at_once.filter(text)
    call = next(q for q in found if at_once.relays[q].type == "tool_use" and found.index(q) > 2)
    line = at_once.relays[call].line  # the call's line is read before its result's
    first = b"".join(lines[:line])
    name = "w-search/run.jsonl"
    write(page, name, first, fresh=True)
    watch(page, name)
    read_up_to(page, len(first))
    app.strategy("lineage")  # the page keeps the strategy an earlier test chose
    _, before = search(app, text)
    assert 0 < before < len(found)
    write(page, name, data[len(first):])
    read_up_to(page, len(data))
    page.wait_for_selector(f'[data-testid="relay-count"]:text-is("{len(found)}")', state="attached")
    assert app.relay_count() == len(found)
    assert page.locator(f'[data-testid="timeline"] .row[data-seq="{call}"]').count() == 1


def test_a_watched_folder_ties_a_workflow_runs_agents_to_its_call(app) -> None:
    """tests/fixtures/shapes/workflow/ (a run built from its documented shapes, see its README),
    written as Claude Code writes it: the Workflow call and its result naming the run first, then
    the run's agents' meta files and transcripts, then its journal."""
    page = app.page
    shop = Path(__file__).resolve().parents[1] / "fixtures" / "shapes" / "workflow" / "-Users-dev-shop"
    files = {str(p.relative_to(shop)): p.read_bytes() for p in sorted(shop.rglob("*")) if p.is_file()}
    main_name = next(k for k in files if "/" not in k)
    main = files.pop(main_name).splitlines(keepends=True)
    page.evaluate(OPFS_DIR, "w20")
    write(page, f"w20/{main_name}", b"".join(main[:3]), fresh=True)  # the call, its result (runId)
    page.evaluate(WATCH, ["w20", INTERVAL_MS])
    total = sum(map(len, main[:3]))
    read_up_to(page, total)
    assert app.lanes() == ["main"]
    journal = next(k for k in files if k.endswith("journal.jsonl"))
    for name in sorted(files, key=lambda k: (k == journal, k)):  # the agents, then what they returned
        write(page, f"w20/{name}", files[name], fresh=True)
        total += len(files[name])
    write(page, f"w20/{main_name}", b"".join(main[3:]))
    total += sum(map(len, main[3:]))
    read_up_to(page, total)
    run = "wf_3a1b2c3d-4e5"
    assert app.lanes() == ["main", f"{run}/a3f1c2d4e5b6a7980", f"{run}/a9e8d7c6b5a4f3e21"]
    label = page.locator(f'[data-testid=lane][data-lane="{run}/a3f1c2d4e5b6a7980"] [data-testid=lane-label]')
    assert label.text_content() == f"Review src/parser.py for bugs: workflow run {run}"
    call = page.locator('[data-testid="timeline"] .row[data-type="tool_use"]').filter(has_text="Workflow review")
    assert call.locator('[data-testid="opens-lane"]').get_attribute("data-target") == f"{run}/a3f1c2d4e5b6a7980"
    ends = page.locator('[data-testid="timeline"] .row[data-type="lane_end"]').filter(has_text="returned")
    assert ends.count() == 2  # each ended with what the journal says it returned, while watched
