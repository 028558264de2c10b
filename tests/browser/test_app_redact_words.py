"""The "Redact" switch's words box and its counts, against the built site. Words of the reader's
own (a company, a client), typed several at once, are replaced wherever they are words in the
share link, the shareable file (its members and their names), the snapshot and every download;
each says how many places it took, and the preview lists each secret once with its places, as
``relayscope redact --list --redact-word`` does. Taken out again, a word is back in the link."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

from relayscope.web.model import decode_share

SESSION = "5b0c9d2e-1f3a-4b5c-8d7e-6f5a4b3c2d1e"
LINES = [
    {"type": "system", "subtype": "init", "session_id": SESSION, "cwd": "/srv/initech-billing",
     "model": "claude-sonnet-4-5", "tools": ["Bash"]},
    {"type": "assistant", "session_id": SESSION, "message": {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Initech's invoices for Globex are late; INITECH owes them."},
                    {"type": "tool_use", "id": "toolu_01", "name": "Bash",
                     "input": {"command": "ls /srv/initech-billing"}}]}},
    {"type": "user", "session_id": SESSION, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "initech.csv\nREADME"}]}},
    {"type": "result", "subtype": "success", "session_id": SESSION, "is_error": False, "result": "Initech: done"},
]
TEXT = "\n".join(json.dumps(line) for line in LINES) + "\n"
WORDS = ("Initech", "Globex")
AS_WORD = r"(?i)(?<![a-z0-9]){}(?![a-z0-9])"


def places(word: str) -> int:
    """Where ``word`` stands as a word in the input (no id holds it here)."""
    return len(re.findall(AS_WORD.format(word), TEXT))


def left(data: bytes | str, words: tuple[str, ...] = WORDS) -> list[str]:
    text = (data.decode("utf-8", "replace") if isinstance(data, bytes) else data).lower()
    return [w for w in words if w.lower() in text]


def download(app, testid: str, hidden: bool = False) -> tuple[str, bytes]:
    with app.page.expect_download() as got:
        if hidden:  # shown only for an input too large for a link; the same handler
            app.page.evaluate(f"document.querySelector('[data-testid=\"{testid}\"]').click()")
        else:
            app.testid(testid).click()
    return got.value.suggested_filename, Path(got.value.path()).read_bytes()


def rows(app, selector: str) -> list[list[str]]:
    return app.page.eval_on_selector_all(selector, "trs => trs.map(t => [...t.cells].map(c => c.textContent))")


def chips(app) -> list[tuple[str, str]]:
    return [tuple(x) for x in app.page.eval_on_selector_all(
        '[data-testid="redact-word"]',
        "ls => ls.map(l => [l.querySelector('.redact-word-text').textContent,"
        " l.querySelector('.redact-word-places').textContent])")]


def cli_tally(path: Path, words: tuple[str, ...]) -> list[list[str]]:
    """The second table of ``relayscope redact --list``: places, kind, placeholder, masked."""
    run = subprocess.run([sys.executable, "-m", "relayscope", "redact", "--list",
                          *[a for w in words for a in ("--redact-word", w)], str(path)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    table = run.stdout.split("\n\n", 1)[1].splitlines()[1:]
    return [re.split(r"\s+", line.strip(), maxsplit=3) for line in table if line.strip()]


def test_words_of_my_own_leave_the_link_the_file_the_snapshot_and_the_downloads(app, tmp_path) -> None:
    app.paste(TEXT)
    app.tab("share")
    assert not app.testid("redact-words-box").is_visible()
    app.testid("redact-switch").click()
    app.page.wait_for_selector('[data-testid="redact-switch"][aria-checked="true"]')
    assert app.testid("redact-words-box").is_visible()
    field = app.testid("redact-word-input")
    field.fill("Initech, Globex,  , x")
    field.press("Enter")  # the box's form: Enter adds, as the Add button does
    app.page.wait_for_selector('[data-testid="redact-word"]:nth-child(2)')
    assert chips(app) == [("Initech", f"{places('Initech')} places"), ("Globex", "1 place")]
    assert places("Initech") == 6
    note = app.testid("redact-word-note")
    assert note.is_visible() and "“x”" in note.text_content() and field.input_value() == "x"

    # each secret once with its places: the page's count is the CLI's
    tally = rows(app, "#redact-tally-rows tr")
    assert ["word", "[redacted:word:1]", "I… (7 chars)", "6"] in tally, tally
    assert ["word", "[redacted:word:2]", "G… (6 chars)", "1"] in tally, tally
    path = tmp_path / "session.jsonl"
    path.write_text(TEXT)
    assert sorted([t[3], t[0], t[1], t[2]] for t in tally) == sorted(cli_tally(path, WORDS))
    assert left(app.testid("redact-preview").text_content() + app.testid("redact-tally").text_content()) == []

    app.testid("share").click()
    href = app.testid("share-link").get_attribute("href")
    carried, _ = decode_share(urlsplit(href).fragment)
    assert left(href) == [] and left(carried) == [] and "[redacted:word:1]" in carried
    name, data = download(app, "share-file")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {n: z.read(n) for n in z.namelist()}
    assert left(name) == [] and left(" ".join(members)) == []
    assert all(left(v) == [] for v in members.values()) and any(b"[redacted:word:1]" in v for v in members.values())
    for testid, hidden in (("share-html", False), ("export-ndjson", False), ("export-trace", False),
                           ("export-chrome-trace", False), ("export-otlp", False), ("download-source", True)):
        name, data = download(app, testid, hidden)
        assert data and left(name) == [] and left(data) == [], testid

    # a word taken out is in the link again; the other stays out
    app.page.click('[data-testid="redact-word-remove"][data-word="Initech"]')
    app.page.wait_for_selector('[data-testid="redact-word"]:nth-child(2)', state="detached")
    assert chips(app) == [("Globex", "1 place")]
    carried, _ = decode_share(urlsplit(app.testid("share-link").get_attribute("href")).fragment)
    assert left(carried) == ["Initech"]
    assert ["word", "[redacted:word:1]", "G… (6 chars)", "1"] in rows(app, "#redact-tally-rows tr")


def test_a_word_of_my_own_that_is_not_in_the_input_says_so_and_the_words_stay_for_the_next_input(app) -> None:
    app.paste(TEXT)
    app.tab("share")
    if app.testid("redact-switch").get_attribute("aria-checked") != "true":
        app.testid("redact-switch").click()
    app.page.wait_for_selector('[data-testid="redact-switch"][aria-checked="true"]')
    for word in [w for w, _ in chips(app)]:  # what an earlier test left
        app.page.click(f'[data-testid="redact-word-remove"][data-word="{word}"]')
    app.page.wait_for_selector('[data-testid="redact-word"]', state="detached")
    app.testid("redact-word-input").fill("Umbrella Corp")
    app.testid("redact-word-add").click()
    app.page.wait_for_selector('[data-testid="redact-word"]')
    assert chips(app) == [("Umbrella Corp", "not found")]
    app.paste(TEXT.replace("Globex", "Umbrella Corp"))
    app.tab("share")
    app.page.wait_for_selector('[data-testid="redact-word"][data-places="1"]')
    assert chips(app) == [("Umbrella Corp", "1 place")]
