"""static/pyscript.html: relayscope in a PyScript page, for docs authors. Served by a
plain `python -m http.server` (no special headers, so no SharedArrayBuffer), it reaches "done"
with nothing fetched from another origin, shows what the CLI gives on the same text, and follows
the reader's edits and strategy."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _app import SETTLED_RUN
from conftest import BOOT_TIMEOUT_MS, ROOT, RequestLog, origin, recorded_page

CSP_PROBE = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
             "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI))")


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """The repo root (as `make site` leaves it) served by `python -m http.server`."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(ROOT)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def pyscript_page(browser, http_server):
    log = RequestLog(origin=origin(http_server))
    context, page = recorded_page(browser, log, viewport={"width": 1100, "height": 900})
    page.add_init_script(CSP_PROBE)
    page.goto(http_server + "static/pyscript.html")
    page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
    yield page, log
    context.close()


def count(page) -> int:
    return int(page.text_content('[data-testid="relay-count"]'))


def shown(page, text: str | None = None, strategy: str | None = None) -> None:
    """Edit the transcript and/or the strategy as a reader does, and wait for the relays."""
    if text is not None:
        page.fill('[data-testid="ps-input"]', text)
    if strategy is not None:
        page.select_option('[data-testid="ps-strategy"]', strategy)
    # the edit's ticket is taken as it is made; the page says "done" for that edit's answer alone
    edit = page.get_attribute("html", "data-edits")
    page.wait_for_selector(f'html[data-shown="{edit}"], html[data-app-state=error]', state="attached",
                           timeout=BOOT_TIMEOUT_MS)
    assert page.get_attribute("html", "data-app-state") == "done"


def test_the_pyscript_page_runs_relayscope_from_its_own_origin(pyscript_page, cli_count, tmp_path: Path) -> None:
    page, log = pyscript_page
    assert page.get_attribute("html", "data-app-state") == "done", log.report()
    log.assert_same_origin()
    log.assert_all_succeeded()
    assert page.evaluate("window.__csp") == [], "the page runs under its own CSP"
    paths = log.paths()
    # PyScript from the vendored npm package, on the vendored Pyodide, our wheel through micropip
    for wanted in ("static/vendor/pyscript/core.js", "static/vendor/pyodide/pyodide.mjs",
                   "static/vendor/pyodide/pyodide-lock.json", "static/vendor/wheels/micropip-",
                   "static/vendor/wheels/msgspec-", "static/vendor/wheels/relayscope-"):
        assert any(p.startswith(wanted) for p in paths), (wanted, paths)
    text = page.input_value('[data-testid="ps-input"]')
    strategy = page.input_value('[data-testid="ps-strategy"]')
    source = tmp_path / "shown.ndjson"
    source.write_text(text, encoding="utf-8")
    assert count(page) == cli_count(source, strategy=strategy) > 0
    # every input line has its decision, drawn as text
    steps = page.locator('[data-testid="ps-steps"] tr')
    assert steps.count() == len(text.splitlines())
    assert page.locator('[data-testid="ps-relays"] li').count() == count(page)
    # the index bug: the page opens on index, which loses sub-agent B's block
    assert "Sub-agent B" not in page.text_content('[data-testid="ps-relays"]')


def test_editing_the_transcript_and_strategy_updates_the_relays(pyscript_page, cli_count, tmp_path: Path) -> None:
    page, _ = pyscript_page
    source = tmp_path / "edited.ndjson"
    original = page.input_value('[data-testid="ps-input"]')
    shown(page, strategy="lineage")
    source.write_text(original, encoding="utf-8")
    assert count(page) == cli_count(source, strategy="lineage")
    assert "Sub-agent B" in page.text_content('[data-testid="ps-relays"]')
    # one more text block, and a line that is not JSON: the relays follow the edit
    extra = ('{"type": "assistant", "message": {"id": "m9", "role": "assistant", "content": '
             '[{"type": "text", "text": "<script>window.pwned = 1</script> one more"}]}}\n{not json\n')
    edited = original + extra
    before = count(page)
    shown(page, text=edited)
    source.write_text(edited, encoding="utf-8")
    assert count(page) == cli_count(source, strategy="lineage") > before
    assert "<script>window.pwned = 1</script> one more" in page.text_content('[data-testid="ps-relays"]')
    assert page.evaluate("window.pwned") is None  # transcript text is data
    last = page.locator('[data-testid="ps-steps"] tr').last
    assert last.get_attribute("data-decision") == "error"
    shown(page, text=original, strategy="index")
    source.write_text(original, encoding="utf-8")
    assert count(page) == cli_count(source, strategy="index")
