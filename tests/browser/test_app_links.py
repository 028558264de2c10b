"""Examples that open on their point, and links of any size."""

from __future__ import annotations

import base64
import json
import random

from _app import EXAMPLES_DIR, SETTLED_RUN
from conftest import (
    BOOT_TIMEOUT_MS,
    SELECTION,
    SETTLED,
    RequestLog,
    origin,
    page_without_clipboard,
    recorded_page,
)


def big_transcript(seed: int = 7, lines: int = 2500) -> bytes:
    """A transcript whose random text cannot be compressed into a link (~700 KB)."""
    rng = random.Random(seed)
    out = [json.dumps({"type": "system", "subtype": "init", "session_id": "s", "tools": []})]
    for i in range(lines):
        text = base64.b64encode(rng.randbytes(200)).decode()
        out.append(json.dumps({"type": "assistant", "message": {"id": f"m{i}", "role": "assistant",
                               "content": [{"type": "text", "text": text}]}}))
    return ("\n".join(out) + "\n").encode()


def by_id(page, name: str):
    return page.locator(f'[data-testid="{name}"]')


def fresh(browser, site, url: str, settled: str = SETTLED_RUN, **context_args):
    log = RequestLog(origin=origin(site.url))
    context, page = recorded_page(browser, log, **context_args)
    page.goto(url)
    page.wait_for_selector(settled, state="attached", timeout=BOOT_TIMEOUT_MS)
    return context, page, log


# -- examples -------------------------------------------------------------------------------------

def test_the_index_bug_card_opens_on_index_at_the_lost_block_with_the_audits_line(app) -> None:
    app.page.evaluate("document.getElementById('examples-box').open = true")
    app.page.click('[data-testid="example"][data-example="index-bug"]')
    app.settle()
    assert app.testid("strategy").input_value() == "index"
    assert app.step_position() == "4 / 6"
    facts = app.page.text_content('[data-testid="step-facts"] dd[data-fact="decision"]')
    assert "lost" in facts  # the step names the lost block, not a mere skip
    app.tab("audit")  # the audit's line is in its tab of the detail panel
    note = app.page.locator('[data-testid="audit-notes"] li.focus[data-strategy="index"][data-kind="lost"]')
    assert note.is_visible() and "Sub-agent B" in note.text_content()
    assert note.evaluate("e => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight }")
    assert not app.page.evaluate("document.getElementById('examples-box').open"), "the gallery closes"


def test_example_cards_speak_the_readers_language(app) -> None:
    text = app.testid("examples").text_content()
    assert "seeds/" not in text and "seeds" not in text.lower()


def test_the_app_links_to_the_tour(app) -> None:
    assert app.testid("tour-link").get_attribute("href") == "./static/tour.html"


def test_compare_with_lineage_and_back_keeps_the_step(app) -> None:
    app.page.evaluate("document.getElementById('examples-box').open = true")
    app.page.click('[data-testid="example"][data-example="index-bug"]')
    app.settle()
    toggle = app.testid("compare-lineage")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    app.settle()
    assert app.testid("strategy").input_value() == "lineage"
    assert app.step_position() == "4 / 6"
    assert toggle.get_attribute("aria-pressed") == "true" and "index" in toggle.text_content()
    decision = app.page.text_content('[data-testid="step-facts"] dd[data-fact="decision"]')
    assert decision == "emitted"  # lineage keeps B's block
    toggle.click()
    app.settle()
    assert app.testid("strategy").input_value() == "index" and app.step_position() == "4 / 6"


def test_cumulative_example_opens_on_its_first_repeat(app) -> None:
    app.page.evaluate("document.getElementById('examples-box').open = true")
    app.page.click('[data-testid="example"][data-example="cumulative-dedup"]')
    app.settle()
    assert app.testid("strategy").input_value() == "none"
    assert app.step_position() != "1 / 7"
    app.tab("audit")
    assert app.page.locator('[data-testid="audit-notes"] li.focus[data-kind="duplicated"]').is_visible()


# -- links ----------------------------------------------------------------------------------------

def test_a_link_to_a_hosted_transcript_follows_the_view(app, browser, site) -> None:
    app.example("index-bug", strategy="index")
    app.tab("share")
    app.testid("share").click()
    link = app.testid("share-link")
    assert link.get_attribute("data-kind") == "url"
    assert "example=index-bug" in link.get_attribute("href") and "#" not in link.get_attribute("href")
    app.testid("timeline").focus()
    app.page.keyboard.press("ArrowLeft")  # the step-through's key; the share tab stays shown
    href = link.get_attribute("href")
    assert link.is_visible() and "step=3" in href, "the link follows view changes"
    context, page, _ = fresh(browser, site, href)
    try:
        assert by_id(page, "step-position").text_content() == "3 / 6"
        assert by_id(page, "strategy").input_value() == "index"
    finally:
        context.close()


def test_a_small_transcript_travels_in_the_link_and_the_view_follows(app, browser, site) -> None:
    app.paste((EXAMPLES_DIR / "interleaved-subagents.ndjson").read_text())
    app.strategy("fingerprint")
    app.tab("share")
    app.testid("share").click()
    link = app.testid("share-link")
    assert link.get_attribute("data-kind") == "inline" and "#v1." in link.get_attribute("href")
    app.testid("timeline").focus()
    app.page.keyboard.press("ArrowRight")  # the step-through's keys; the share tab stays shown
    app.page.keyboard.press("ArrowRight")
    href = link.get_attribute("href")
    assert "step=3" in href and "#v1." in href
    context, page, _ = fresh(browser, site, href)
    try:
        assert page.get_attribute("html", "data-app-state") == "done"
        assert by_id(page, "step-position").text_content().startswith("3 /")
        assert by_id(page, "strategy").input_value() == "fingerprint"
    finally:
        context.close()


def test_a_large_transcript_link_carries_a_fingerprint_and_applies_the_view_to_the_same_file(
        app, browser, site) -> None:
    data = big_transcript()
    payload = {"name": "big.jsonl", "mimeType": "application/x-ndjson", "buffer": data}
    app.open_files([payload], strategy="index")
    app.page.eval_on_selector('[data-testid="step-slider"]',
                              "s => { s.value = '9'; s.dispatchEvent(new Event('input')) }")
    app.tab("share")
    app.testid("share").click()
    link = app.testid("share-link")
    href = link.get_attribute("href")
    assert link.get_attribute("data-kind") == "fingerprint", app.testid("share-note").text_content()
    assert f"#file={len(data)}&sha256=" in href and "step=10" in href and "strategy=index" in href
    assert len(href) < 500
    assert app.testid("download-source").is_visible()

    context, page, _ = fresh(browser, site, href, settled=SETTLED)
    try:
        assert page.get_attribute("html", "data-app-state") == "ready"
        opening = by_id(page, "pending-view").text_content()
        # the file the sender was told to send, and the fingerprint's two parts told apart
        assert "“big.relayscope.zip”" in opening and "open that file" not in opening.lower(), opening
        assert f"{len(data):,}".replace(",", "\u202f") + " bytes · SHA-256 " in opening, opening
        by_id(page, "file-input").set_input_files([payload])
        page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        assert by_id(page, "step-position").text_content().startswith("10 /")
        assert by_id(page, "strategy").input_value() == "index"
        assert "the link was made from: showing its view" in by_id(page, "message").text_content()
    finally:
        context.close()

    context, page, _ = fresh(browser, site, href, settled=SETTLED)
    try:
        other = {**payload, "buffer": big_transcript(seed=8)}
        by_id(page, "file-input").set_input_files([other])
        page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        assert "not the transcript the link was made from" in by_id(page, "message").text_content()
        assert by_id(page, "step-position").text_content().startswith("1 /")
    finally:
        context.close()


def test_copy_falls_back_to_selecting_the_link_without_a_clipboard_api(browser, site) -> None:
    with page_without_clipboard(browser, site, "?example=index-bug") as (page, log):
        assert page.evaluate("navigator.clipboard") is None
        page.locator("#tab-share").click()
        by_id(page, "share").click()
        by_id(page, "copy-link").click()
        field = by_id(page, "share-link-text")
        assert field.is_visible()
        selected = page.evaluate(SELECTION)
        assert selected == ["share-link-text", by_id(page, "share-link").get_attribute("href")]
        assert "Ctrl+C" in by_id(page, "copy-link").text_content()
        assert not [c for c in log.console if "pageerror" in c or "AttributeError" in c], log.console


def test_broken_links_say_so_in_the_readers_words(browser, site) -> None:
    for fragment in ("#v1.eNqrVkrLz1eyUirKzEvPT9dRyixRslJKzs8rSc0rUaoFAN", "#file=12&sha256=zz"):
        context, page, _ = fresh(browser, site, site.url + fragment, settled=SETTLED_RUN)
        try:
            assert page.get_attribute("html", "data-app-state") == "error"
            message = by_id(page, "message").text_content()
            assert "damaged" in message and "zlib" not in message and "Error -" not in message, message
        finally:
            context.close()
