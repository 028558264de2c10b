"""The snapshot (``relayscope html``) in Chromium with every network request blocked: it asks for
nothing and breaks no rule of its own CSP, shows a row for every relay of the CLI's translation
(bookkeeping behind its toggle), opens a row on a click and goes to a row from its swimlane bar,
shows a planted ``<script>`` as text without running it, fits a 390 px screen and follows the
dark colour scheme."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = (ROOT / "tests/fixtures/real/session-jsonl/handgemacht-ai__claude-code-log/test/test_data/real_projects"
          / "-experiments-worktrees")
URL = "http://snapshot.invalid/run.html"  # never resolved: the route below answers it
CSP_PROBE = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
             "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI))")
ROWS = "els => els.map(e => [Number(e.dataset.seq), e.dataset.type, e.checkVisibility()])"


def cli(*args: str) -> bytes:
    p = subprocess.run([sys.executable, "-m", "relayscope", *args], capture_output=True, timeout=120, check=False)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout


@contextmanager
def opened(browser, page_html: bytes, **context_args) -> Iterator[tuple]:
    """The page at URL, every other request aborted: (page, requests made, requests blocked)."""
    made: list[str] = []
    blocked: list[str] = []
    context = browser.new_context(**context_args)

    def route(r) -> None:
        made.append(r.request.url)
        if r.request.url == URL:
            r.fulfill(body=page_html, content_type="text/html; charset=utf-8")
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.add_init_script(CSP_PROBE)
    try:
        page.goto(URL)
        page.wait_for_selector("details.row")
        yield page, made, blocked
    finally:
        context.close()


@pytest.fixture(scope="module")
def session_page() -> bytes:
    return cli("html", str(FOLDER))


def test_it_opens_offline_asking_for_nothing_and_shows_the_rows_of_the_cli(browser, session_page: bytes) -> None:
    relays = [json.loads(line) for line in cli("translate", str(FOLDER)).splitlines()]
    with opened(browser, session_page) as (page, made, blocked):
        rows = page.locator("details.row[data-seq]").evaluate_all(ROWS)
        assert made == [URL] and blocked == []
        assert page.evaluate("window.__csp") == []
        assert [(q, t) for q, t, _ in rows] == [(r["seq"], r["type"]) for r in relays]
        hidden = [q for q, _, seen in rows if not seen]
        assert len(hidden) == 22 and all(page.locator(f'[data-seq="{q}"]').get_attribute("class").endswith(" bk")
                                         for q in hidden)
        page.click("label[for=book]")
        assert all(seen for _, _, seen in page.locator("details.row[data-seq]").evaluate_all(ROWS))
        assert page.locator(".track").count() == 3  # main and its two sub-agents


def test_a_click_opens_a_row_and_a_swimlane_bar_leads_to_its_row(browser, session_page: bytes) -> None:
    with opened(browser, session_page, viewport={"width": 1280, "height": 800}) as (page, _, blocked):
        row = page.locator('details.row[data-seq="106"]')
        row.locator("summary").click()
        assert row.get_attribute("open") == ""
        assert row.locator("table.diff").is_visible()
        bar = page.locator('.track svg a[href="#s1-98"]').first  # the Write call's span
        bar.click()
        assert page.evaluate("location.hash") == "#s1-98"
        assert page.locator('details.row[data-seq="98"]').evaluate("e => e.matches(':target')")
        assert blocked == []


def test_a_planted_script_is_text_and_never_runs(browser, tmp_path: Path) -> None:
    path = tmp_path / "hostile.jsonl"
    text = "<script>window.__pwned=1</script><img src=https://example.com/x.png onerror=window.__pwned=2>"
    path.write_text("\n".join(json.dumps(x) for x in [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "m", "tools": []},
        {"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": text}]}},
    ]) + "\n")
    with opened(browser, cli("html", str(path))) as (page, made, blocked):
        assert page.evaluate("window.__pwned") is None
        assert made == [URL] and blocked == []
        assert text in page.locator("details.row .sum").all_inner_texts()[-1]


def test_it_fits_a_phone_and_follows_the_dark_scheme(browser, session_page: bytes) -> None:
    with opened(browser, session_page, viewport={"width": 390, "height": 800}, color_scheme="dark") as (page, _, _b):
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(13, 17, 23)"
        page.locator('details.row[data-seq="59"] summary').click()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # an opened row wraps too
