"""The share section's "Redact" switch, against the built site. With it on, the share
link (decoded here with ``decode_share``), the embed snippet's link and every download carry no
planted secret, and the preview lists what is removed (line, kind, masked excerpt) without any
secret in it; off again, the link carries the transcript as it was."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

from _app import ROOT

from relayscope.redact import redact_bytes
from relayscope.web.model import decode_share

PLANTED = ROOT / "tests" / "fixtures" / "redact" / "planted.jsonl"
SECRETS: dict[str, str] = json.loads((PLANTED.parent / "planted-secrets.json").read_text())


def leftovers(text: str) -> list[str]:
    return [kind for kind, secret in SECRETS.items() if secret in text]


def carried(href: str) -> str:
    """The transcript a share link carries in its fragment."""
    text, _state = decode_share(urlsplit(href).fragment)
    return text


def download(app, testid: str, hidden: bool = False) -> bytes:
    with app.page.expect_download() as got:
        if hidden:  # shown only for a transcript too large for a link; the same handler
            app.page.evaluate(f"document.querySelector('[data-testid=\"{testid}\"]').click()")
        else:
            app.testid(testid).click()
    return Path(got.value.path()).read_bytes()


def test_redact_switch_cleans_the_link_the_embed_and_the_downloads_and_previews_what_it_removes(app) -> None:
    app.paste(PLANTED.read_text())
    app.tab("share")  # the link, the embed, the downloads and the switch: the detail panel's Share tab
    switch = app.testid("redact-switch")
    assert switch.get_attribute("aria-checked") == "false" and not app.testid("redact-preview").is_visible()
    app.testid("share").click()
    assert len(leftovers(carried(app.testid("share-link").get_attribute("href")))) == len(SECRETS)

    switch.click()
    app.page.wait_for_selector('[data-testid="redact-switch"][aria-checked="true"]')
    summary = app.testid("redact-summary").text_content()
    assert "23 secrets in 30 places" in summary, summary
    preview = app.testid("redact-preview")
    assert preview.is_visible()
    rows = app.page.eval_on_selector_all("#redact-rows tr", "trs => trs.map(t => [...t.cells].map(c => c.textContent))")
    assert len(rows) == 30 and leftovers(preview.text_content()) == []
    assert ["4", "aws-key", "AKIA… (20 chars)"] in rows
    assert {kind for _, kind, _ in rows} >= {"anthropic-key", "openai-key", "aws-key", "github-token", "gitlab-token",
                                            "slack-token", "google-key", "stripe-key", "jwt", "private-key",
                                            "secret", "url-credentials", "email", "user"}

    # the link shown was made again, redacted; the decoded transcript is the CLI's `redact`
    href = app.testid("share-link").get_attribute("href")
    text = carried(href)
    assert leftovers(text) == [] and "[redacted:aws-key:1]" in text
    assert text.encode() == redact_bytes(PLANTED.read_bytes())

    app.testid("embed-view").click()
    snippet = app.testid("embed-snippet").input_value()
    src = html.unescape(re.search(r'src="([^"]+)"', snippet).group(1))
    assert "embed=1" in src and leftovers(carried(src)) == [] and leftovers(snippet) == []

    for testid, hidden in (("export-ndjson", False), ("export-trace", False), ("download-source", True)):
        data = download(app, testid, hidden).decode()
        assert data and leftovers(data) == [], testid
        assert "[redacted:aws-key:1]" in data, testid

    switch.click()  # off: the link carries the transcript as it is again
    app.page.wait_for_selector('[data-testid="redact-switch"][aria-checked="false"]')
    assert not app.testid("redact-preview").is_visible()
    assert len(leftovers(carried(app.testid("share-link").get_attribute("href")))) == len(SECRETS)
    assert len(leftovers(download(app, "export-ndjson").decode())) > 0
