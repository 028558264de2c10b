"""The shareable file, its link and the snapshot in the browser's Python (Pyodide, as the page's
worker loads it from the built site): zipfile and zlib work there; a file packed by the CLI
opens there with every file, and one packed there opens here; a cut-short file gives what it
holds; a link made here decodes there; and the snapshot made there is the CLI's, byte for byte,
so the page can offer the same download."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
from conftest import BOOT_TIMEOUT_MS

from relayscope import sharefile, snapshot

ROOT = Path(__file__).resolve().parents[2]
FOLDER = (ROOT / "tests/fixtures/real/session-jsonl/handgemacht-ai__claude-code-log/test/test_data/real_projects"
          / "-experiments-worktrees")
SESSION = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
PROBE = "__share_probe.html"

# Runs in Pyodide; its last expression is what the page shows (JSON).
CHECKS = r"""
import base64, hashlib, json, zlib
from relayscope import sharefile, snapshot
given = json.loads(INPUT)
files = {k: base64.b64decode(v) for k, v in given["files"].items()}
packed_here = base64.b64decode(given["packed"])
opened = sharefile.unpack(packed_here)
mine = sharefile.pack(files, {"row": "12"})
cut = sharefile.unpack(mine[: len(mine) * 2 // 3])
link_files, link_view = sharefile.decode_link(given["link"])
json.dumps({
    "zlib": zlib.ZLIB_RUNTIME_VERSION,
    "opened": opened.files == files and not opened.issues and opened.view == {"strategy": "index"},
    "mine": base64.b64encode(mine).decode(),
    "cut_whole": [p for p in files if cut.files.get(p) == files[p]],
    "cut_missing": cut.missing,
    "link": link_files == files and link_view == {"row": "3"},
    "snapshot": hashlib.sha256(snapshot.render(files).encode()).hexdigest(),
})
"""


def session_files() -> dict[str, bytes]:
    paths = [FOLDER / f"{SESSION}.jsonl", *sorted((FOLDER / SESSION / "subagents").glob("agent-*.jsonl"))]
    return {str(p.relative_to(FOLDER)): p.read_bytes() for p in paths}


@pytest.fixture(scope="module")
def results(browser, site) -> dict:
    files = session_files()
    given = json.dumps({"files": {k: base64.b64encode(v).decode() for k, v in files.items()},
                        "packed": base64.b64encode(sharefile.pack(files, {"strategy": "index"})).decode(),
                        "link": sharefile.encode_link({k: v for k, v in files.items()}, {"row": "3"}, limit=10**7)})
    page_html = (
        '<!doctype html><meta charset="utf-8"><pre id="out"></pre><script type="module">\n'
        'import { loadPyodide } from "./static/js/pyodide-local.mjs";\n'
        'const py = await loadPyodide({ packages: ["relayscope"] });\n'
        f"py.globals.set('INPUT', {json.dumps(given)});\n"
        f"const out = py.runPython({json.dumps(CHECKS)});\n"
        'document.getElementById("out").textContent = out;\n'
        'document.documentElement.dataset.done = "1";\n</script>')
    context = browser.new_context()
    context.route(site.url + PROBE, lambda r: r.fulfill(body=page_html, content_type="text/html"))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site.url + PROBE)
    try:
        page.wait_for_selector("html[data-done]", state="attached", timeout=BOOT_TIMEOUT_MS)
    except Exception:
        pytest.fail(f"Pyodide did not finish: {errors}")
    out = json.loads(page.text_content("#out") or "{}")
    context.close()
    return out


def test_a_file_packed_by_the_cli_opens_in_the_browser_with_every_file_and_its_view(results: dict) -> None:
    assert results["zlib"] and results["opened"] is True


def test_a_file_packed_in_the_browser_opens_here(results: dict) -> None:
    opened = sharefile.unpack(base64.b64decode(results["mine"]))
    assert opened.issues == [] and opened.files == session_files() and opened.view == {"row": "12"}


def test_a_file_cut_short_gives_what_it_holds_in_the_browser_too(results: dict) -> None:
    files = session_files()
    mine = base64.b64decode(results["mine"])
    here = sharefile.unpack(mine[: len(mine) * 2 // 3])  # the same bytes, read here
    assert results["cut_whole"] == [p for p in files if here.files.get(p) == files[p]] == list(files)[:len(results["cut_whole"])]
    assert results["cut_whole"] and results["cut_missing"] == here.missing


def test_a_link_made_here_opens_in_the_browser(results: dict) -> None:
    assert results["link"] is True


def test_the_browser_makes_the_same_snapshot_as_the_cli(results: dict) -> None:
    assert results["snapshot"] == hashlib.sha256(snapshot.render(session_files()).encode()).hexdigest()
