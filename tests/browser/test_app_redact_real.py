"""A real session shared with "Redact secrets" on names its user nowhere, against the built site:
not in the link (its files and their names), the shareable file (every member and member name,
and its own name), the snapshot, the embed snippet, nor any download (relays, trace, Chrome trace,
OTLP spans). Two real sessions of tests/fixtures/real, each opened as the folder it is: one whose
project folder, ``cwd`` and home paths name the user (``-Users-NAME-...``, two sub-agents), one
whose sub-agent's ``ls -l`` has the user in its owner and group columns, though no path names them.
The preview says how many places the name took, as ``relayscope redact --list`` does."""

from __future__ import annotations

import html
import io
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from _app import CORPUS, SUBAGENT_SESSION

from relayscope import sharefile

SESSIONS = {
    "dumitruvulpe": (CORPUS / "session-jsonl" / "JamesTiberiusKirk__dotsv2__cut" / ".claude" / "projects"
                     / "-Users-dumitruvulpe-uw-telecom-mobile"),
    "cboos": SUBAGENT_SESSION,
}
DOWNLOADS = ("share-file", "share-html", "export-ndjson", "export-trace", "export-chrome-trace", "export-otlp")


def download(app, testid: str) -> tuple[str, bytes]:
    with app.page.expect_download(timeout=120_000) as got:
        app.testid(testid).click()
    return got.value.suggested_filename, Path(got.value.path()).read_bytes()


def cli_places(folder: Path) -> list[list[str]]:
    """``relayscope redact --list`` of the folder: each secret with its places (places, kind,
    placeholder, masked)."""
    run = subprocess.run([sys.executable, "-m", "relayscope", "redact", "--list", f"./{folder.name}"],
                         capture_output=True, text=True, cwd=folder.parent)
    assert run.returncode == 0, run.stderr
    table = run.stdout.split("\n\n", 1)[1].splitlines()[1:]
    return [re.split(r"\s+", line.strip(), maxsplit=3) for line in table if line.strip()]


@pytest.mark.parametrize("user", sorted(SESSIONS))
def test_a_real_session_shared_redacted_names_its_user_nowhere(app, user: str) -> None:
    folder = SESSIONS[user]
    assert any(user.encode() in p.read_bytes().lower() for p in folder.rglob("*") if p.is_file())
    app.open_folder(folder)
    app.tab("share")
    if app.testid("redact-switch").get_attribute("aria-checked") != "true":
        app.testid("redact-switch").click()
    app.page.wait_for_selector('[data-testid="redact-switch"][aria-checked="true"]')
    app.page.wait_for_selector('#redact-tally-rows tr[data-kind="user"]')

    # the preview: the name once, with the places it took, as the CLI counts them
    tally = app.page.eval_on_selector_all("#redact-tally-rows tr", "trs => trs.map(t => [...t.cells].map(c => c.textContent))")
    users = [row for row in tally if row[0] == "user"]
    assert len(users) == 1 and int(users[0][3]) > 1, tally
    assert sorted([t[3], t[0], t[1], t[2]] for t in tally) == sorted(cli_places(folder))
    said = {"preview": app.testid("redact-box").text_content() or ""}

    app.testid("share").click()
    href = app.testid("share-link").get_attribute("href")
    said["link"] = unquote(href)
    if app.testid("share-link").get_attribute("data-kind") == "inline":
        files, _ = sharefile.decode_link(urlsplit(href).fragment)
        said |= {f"link file {name}": data.decode("utf-8", "replace") for name, data in files.items()}
        said["link file names"] = " ".join(files)
    else:  # too large for a link: the note names the shareable file to send
        said["note"] = app.testid("share-note").text_content() or ""
    app.testid("embed-view").click()
    snippet = app.testid("embed-snippet").input_value()
    said["embed"] = unquote(html.unescape(snippet))

    saved: dict[str, bytes] = {}
    for testid in DOWNLOADS:
        name, data = download(app, testid)
        saved[f"{testid} {name}"] = data
        said[f"{testid} file name"] = name
    with zipfile.ZipFile(io.BytesIO(next(v for k, v in saved.items() if k.startswith("share-file")))) as z:
        names = z.namelist()
        assert len(names) >= 3
        said["share-file member names"] = " ".join(names)
        saved |= {f"share-file member {n}": z.read(n) for n in names}

    leaks = [what for what, text in said.items() if user in text.lower()]
    leaks += [what for what, data in saved.items() if user.encode() in data.lower()]
    assert leaks == [], leaks
    assert any(b"[redacted:user:1]" in data for data in saved.values())
