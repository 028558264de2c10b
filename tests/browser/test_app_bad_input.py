"""A loaded session survives bad input: a PNG dropped, an empty or binary file opened, a paste
that is no transcript, a shareable file holding nothing, over a session shown: that session stays
as it was (its rows, the row selected, its lanes, the address) and a notice says why, naming what
was refused."""

from __future__ import annotations

import io
import zipfile

from _app import SUBAGENT_SESSION, AppDriver

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40


def loaded(app: AppDriver) -> dict[str, object]:
    """What the reader sees of the session shown."""
    page = app.page
    return {
        "source": app.testid("source").text_content(),
        "total": app.total(),
        "shown": app.relay_count(),
        "lanes": app.lanes(),
        "selected": page.locator("[data-testid=timeline] .row.selected").get_attribute("data-seq"),
        "url": page.url,
        "first row": page.locator("[data-testid=timeline] .row").first.get_attribute("data-seq"),
        "workspace": app.testid("workspace").is_visible(),
        "tracks": page.locator("[data-testid=swimlane-track]").count(),
    }


def open_session_and_select(app: AppDriver) -> dict[str, object]:
    app.open_folder(SUBAGENT_SESSION)
    row = app.page.locator("[data-testid=timeline] .row").nth(3)
    row.click()
    app.page.wait_for_selector("[data-testid=timeline] .row.selected", state="attached")
    before = loaded(app)
    assert before["selected"] is not None and len(before["lanes"]) > 1 and before["workspace"]
    return before


def refused(app: AppDriver, name: str, before: dict[str, object], why: str, expect: str = "done") -> None:
    app.page.wait_for_selector("html[data-app-state=done], html[data-app-state=error]", state="attached")
    assert app.page.get_attribute("html", "data-app-state") == expect
    message = app.testid("message")
    assert message.is_visible()
    text = message.text_content()
    assert name in text and why in text, text
    assert "Still shown, as it was" in text
    assert loaded(app) == before


def drop_bytes(app: AppDriver, name: str, data: bytes, mime: str = "") -> None:
    app.page.evaluate(
        """([name, bytes, mime]) => {
            const dt = new DataTransfer();
            dt.items.add(new File([new Uint8Array(bytes)], name, {type: mime}));
            document.body.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
        }""",
        [name, list(data), mime],
    )


def test_a_png_dropped_over_a_session_leaves_it_as_it_was(app) -> None:
    before = open_session_and_select(app)
    drop_bytes(app, "photo.png", PNG, "image/png")
    refused(app, "photo.png", before, "binary")


def test_an_empty_file_opened_over_a_session_leaves_it_as_it_was(app) -> None:
    before = open_session_and_select(app)
    app.testid("file-input").set_input_files([{"name": "empty.jsonl", "mimeType": "text/plain", "buffer": b""}])
    refused(app, "empty.jsonl", before, "empty")
    app.testid("file-input").set_input_files([{"name": "blank.jsonl", "mimeType": "text/plain", "buffer": b"\n \n"}])
    refused(app, "blank.jsonl", before, "empty")


def test_a_paste_that_is_no_transcript_leaves_the_session_as_it_was(app) -> None:
    before = open_session_and_select(app)
    app.testid("paste-input").fill("just some words\nand another line")
    refused(app, "pasted text", before, "does not look like a transcript")


def test_a_shareable_file_holding_nothing_leaves_the_session_as_it_was(app) -> None:
    before = open_session_and_select(app)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("photo.png", PNG)
    app.testid("file-input").set_input_files([{"name": "other.zip", "mimeType": "application/zip",
                                               "buffer": buf.getvalue()}])
    refused(app, "other.zip", before, "other.zip", expect="error")


def test_a_good_file_after_a_refused_one_is_opened(app, cli_count) -> None:
    open_session_and_select(app)
    drop_bytes(app, "photo.png", PNG, "image/png")
    app.settle()
    seed = b'{"type":"system","subtype":"init","session_id":"s1","model":"m","tools":[],"cwd":"/tmp"}\n'
    app.open_files([{"name": "next.jsonl", "mimeType": "text/plain", "buffer": seed}])
    assert app.testid("source").text_content().startswith("next.jsonl")
    assert "Still shown" not in (app.testid("message").text_content() or "")


def test_a_png_on_an_empty_page_still_says_why_and_shows_nothing(page, open_app, site, request_log) -> None:
    open_app(site)
    fresh = AppDriver(page, request_log, site)
    drop_bytes(fresh, "photo.png", PNG, "image/png")
    fresh.settle()
    text = fresh.testid("message").text_content()
    assert "photo.png" in text and "binary" in text and "Still shown" not in text
    assert page.locator("[data-testid=timeline] .row").count() == 0
