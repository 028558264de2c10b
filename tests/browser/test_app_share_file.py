"""The page's shareable file and snapshot, against the built site: a real session (the 3-file
sub-agent session in tests/fixtures/real/) and a 16 MB input made here are saved with "Redact
secrets" on, opened in a fresh browser by dropping the file (the same relays, strategy, step and
open row; no planted secret in the file), audited by the CLI as the folder is, and shown as a
snapshot with every request blocked; ?src= restores a hosted one; damaged and foreign files say
what is wrong and open what they hold; links carry several files; the embed builder points at a
hosted shareable file."""

from __future__ import annotations

import base64
import html
import io
import json
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from _app import CORPUS, SETTLED_RUN, AppDriver
from conftest import BOOT_TIMEOUT_MS, SETTLED, RequestLog, origin, recorded_page

from relayscope import sharefile

SESSION_DIR = (CORPUS / "session-jsonl" / "handgemacht-ai__claude-code-log" / "test" / "test_data"
               / "real_projects" / "-experiments-worktrees")
SESSION = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
ANTHROPIC = "sk-ant-api03-" + "Q7x2Lm9Kp4Rt8Vw3Yz6Bn1Cd5Fg0Hj" * 3 + "Ab1"  # 93 characters after the prefix
AWS = "AKIAQ3EGRZ7XKWLM5TN4"
PLANTED = (ANTHROPIC, AWS)


def plant(text: str, every: int) -> str:
    """``text`` with the two secrets put into every ``every``-th line's working folder (a value
    redaction reads; an id-like key's value it leaves alone, by design)."""
    out = []
    for k, line in enumerate(text.splitlines(keepends=True)):
        if k % every == 1 and '"cwd":"' in line:
            key_end = line.index('"cwd":"') + 7
            line = f"{line[:key_end]}key {ANTHROPIC} and {AWS} {line[key_end:]}"
        out.append(line)
    return "".join(out)


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> list[Path]:
    """The session's main file and its sub-agents' files, secrets planted in each."""
    root = tmp_path_factory.mktemp("session")
    out = []
    sources = [SESSION_DIR / f"{SESSION}.jsonl", *sorted((SESSION_DIR / SESSION / "subagents").glob("agent-*.jsonl"))]
    for source in sources:
        target = root / source.name
        target.write_text(plant(source.read_text(encoding="utf-8"), 40), encoding="utf-8")
        out.append(target)
    return out


def by_id(page, name: str):
    return page.locator(f'[data-testid="{name}"]')


def settle(page, expect: str = "done") -> None:
    page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
    state = page.get_attribute("html", "data-app-state")
    assert state == expect, f"{state}: {by_id(page, 'status').text_content()} {by_id(page, 'message').text_content()}"


def fresh_page(browser, site, query: str = ""):
    """A fresh browser context (empty cache and storage) with the app booted at ``query``."""
    log = RequestLog(origin=origin(site.url))
    context, page = recorded_page(browser, log, viewport={"width": 1400, "height": 900})
    page.goto(site.url + query)
    page.wait_for_selector(SETTLED if not query else SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
    return context, page


def drop(page, name: str, data: bytes) -> None:
    """Drop one file on the page, as a drag from the desktop does (a DataTransfer with a File)."""
    handle = page.evaluate_handle(
        """([name, b64]) => { const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
            const dt = new DataTransfer(); dt.items.add(new File([bytes], name)); return dt; }""",
        [name, base64.b64encode(data).decode()])
    page.dispatch_event("body", "drop", {"dataTransfer": handle})


def drop_from_disk(page, path: Path) -> None:
    """Drop a big file: its bytes reach the page through a file input (a base64 string of 16 MB
    would not), then travel in a DataTransfer to the page's drop handler."""
    page.evaluate("""() => { const i = document.createElement('input'); i.type = 'file'; i.id = 'drop-src';
                             i.hidden = true; document.body.append(i); }""")
    page.set_input_files("#drop-src", str(path))
    page.evaluate("""() => { const f = document.getElementById('drop-src').files[0];
        const dt = new DataTransfer(); dt.items.add(f);
        document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true})); }""")


def share_tab(page) -> None:
    """The detail panel's Share tab, where the share section lives."""
    tab = page.locator('[data-testid="detail-tab"][data-tab="share"]')
    if tab.get_attribute("aria-selected") != "true":
        tab.click()


def save(page, testid: str, to: Path) -> tuple[Path, float]:
    """Click ``testid`` and keep what it downloads; the seconds from the click to the file."""
    share_tab(page)
    start = time.perf_counter()
    with page.expect_download(timeout=BOOT_TIMEOUT_MS) as got:
        by_id(page, testid).click()
    got.value.save_as(to)
    return to, time.perf_counter() - start


def view_of(page) -> dict[str, object]:
    selected = page.locator(".row.selected")
    return {
        "relays": by_id(page, "relay-count").get_attribute("data-total"),
        "shown": by_id(page, "relay-count").text_content(),
        "strategy": by_id(page, "strategy").input_value(),
        "step": by_id(page, "step-position").text_content(),
        "row": selected.get_attribute("data-seq") if selected.count() else None,
        "lanes": page.eval_on_selector_all('[data-testid="lane"]', "els => els.map(e => e.dataset.lane)"),
    }


def set_view(app: AppDriver, strategy: str, step: int) -> dict[str, object]:
    """Strategy, step and an open row, as a reader leaves them before saving."""
    app.strategy(strategy)
    app.page.eval_on_selector('[data-testid="step-slider"]',
                              f"s => {{ s.value = '{step - 1}'; s.dispatchEvent(new Event('input')) }}")
    # the step shown (and its rows scrolled to) before a row is clicked: a click while the rows
    # still move could land on whatever row is drawn there next
    app.page.wait_for_selector(f'[data-testid="step-position"][data-step="{step - 1}"]', state="attached")
    seq = app.page.locator(".row").nth(3).get_attribute("data-seq")
    app.page.locator(f'.row[data-seq="{seq}"]').click()
    # selected (the step's line may since have scrolled the rows: the row need not be in view)
    app.page.wait_for_selector(f'.row.selected[data-seq="{seq}"]', state="attached")
    return view_of(app.page)


def redact_on(page) -> None:
    share_tab(page)
    if by_id(page, "redact-switch").get_attribute("aria-checked") != "true":
        by_id(page, "redact-switch").click()
    page.wait_for_selector('[data-testid="redact-switch"][aria-checked="true"]')


def unzipped(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return b"".join(z.read(name) for name in z.namelist())


def no_secret_in(data: bytes) -> None:
    for secret in PLANTED:
        assert secret.encode() not in data


def cli_audit(*paths: Path) -> list[object]:
    """``relayscope audit --json`` of ``paths``, the files named relative to the shareable file
    or the folder they are in (the rest is compared whole)."""
    run = subprocess.run([sys.executable, "-m", "relayscope", "audit", "--json", *map(str, paths)],
                         capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    out = run.stdout
    for path in paths:
        out = out.replace(f"{path}/" if path.suffix == ".zip" else f"{path.parent}/", "")
    return json.loads(out)


def redacted_copy(paths: list[Path], into: Path) -> list[Path]:
    """The files as ``pack --redact`` redacts them: what the audit of the redacted file is of."""
    run = subprocess.run([sys.executable, "-m", "relayscope", "pack", "--redact", "-o", str(into / "cli.relayscope.zip"),
                          *map(str, paths)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return [into / "cli.relayscope.zip"]


# -- the real session ---------------------------------------------------------------------------------

def test_a_session_saved_redacted_opens_by_drop_in_a_fresh_browser_at_the_same_view(
        app, browser, site, session, tmp_path) -> None:
    app.open_files(session)
    before = set_view(app, "index", 12)
    assert len(before["lanes"]) == 3 and before["row"] is not None
    redact_on(app.page)
    times: dict[str, float] = {}
    saved, times["save the shareable file"] = save(app.page, "share-file", tmp_path / "saved.relayscope.zip")
    assert saved.name.endswith(sharefile.SUFFIX)
    data = saved.read_bytes()
    no_secret_in(data)
    no_secret_in(unzipped(data))
    opened = sharefile.unpack(data)
    assert not opened.issues and len(opened.files) == 3 and opened.view["strategy"] == "index"
    # the two secrets planted, and the user name the session's own paths and ls -l columns show
    assert opened.redacted and opened.redacted["secrets"] == 3 and opened.redacted["kinds"].get("user") == 1

    context, page = fresh_page(browser, site)
    try:
        start = time.perf_counter()
        drop(page, "saved.relayscope.zip", data)
        settle(page)
        times["open the shareable file"] = time.perf_counter() - start
        assert view_of(page) == before
    finally:
        context.close()
    print(f"\nthe session: shareable file {len(data)} bytes; seconds {({k: round(v, 2) for k, v in times.items()})}")
    # the CLI reads the page's file as it reads the folder (redacted as `pack --redact` redacts it)
    assert cli_audit(saved) == cli_audit(*redacted_copy(session, tmp_path))
    assert cli_audit(saved) == cli_audit(*session)


def test_the_shareable_file_opened_with_the_open_button_and_from_src_restores_the_view(
        app, browser, site, session, tmp_path) -> None:
    app.open_files(session)
    before = set_view(app, "none", 30)
    data = save(app.page, "share-file", tmp_path / "s.relayscope.zip")[0].read_bytes()

    context, page = fresh_page(browser, site)
    try:
        by_id(page, "file-input").set_input_files(
            [{"name": "s.relayscope.zip", "mimeType": "application/zip", "buffer": data}])
        settle(page)
        assert view_of(page) == before
    finally:
        context.close()

    log = RequestLog(origin=origin(site.url))
    context, page = recorded_page(browser, log, viewport={"width": 1400, "height": 900})
    try:  # hosted beside the site
        page.route("**/hosted/s.relayscope.zip", lambda route: route.fulfill(
            status=200, body=data, headers={"content-type": "application/zip"}))
        page.goto(site.url + "?src=hosted/s.relayscope.zip")
        settle(page)
        assert view_of(page) == before
        assert "s.relayscope.zip" in by_id(page, "source").text_content()
    finally:
        context.close()


def test_the_snapshot_shows_the_same_rows_with_every_request_blocked(app, browser, site, session, tmp_path) -> None:
    app.open_files(session)
    set_view(app, "lineage", 1)
    redact_on(app.page)
    saved, seconds = save(app.page, "share-html", tmp_path / "snap.html")
    print(f"\nthe session's snapshot: {saved.stat().st_size} bytes, saved in {seconds:.2f} s")
    assert saved.name.endswith(".html")
    data = saved.read_bytes()
    no_secret_in(data)
    assert_snapshot_rows(browser, saved, int(view_of(app.page)["relays"]))


def assert_snapshot_rows(browser, saved: Path, total: int) -> None:
    """The snapshot, opened from disk with every request but file: ones refused, holds a row for
    each of the ``total`` relays, in order, and asked for nothing."""
    context = browser.new_context()
    requests: list[str] = []
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                  else (requests.append(route.request.url), route.abort()))
    try:
        page = context.new_page()
        page.goto(saved.as_uri(), timeout=BOOT_TIMEOUT_MS)
        spans = page.eval_on_selector_all('[data-testid="rows"] [data-seq]',
                                          "rs => rs.map(r => [+r.dataset.seq, +r.dataset.last])")
        assert sum(last - first + 1 for first, last in spans) == total  # a row holds a run of fragments
        assert [first for first, _ in spans] == sorted(first for first, _ in spans)
        assert requests == []
    finally:
        context.close()


# -- bad files -------------------------------------------------------------------------------------

def test_a_truncated_file_opens_what_it_holds_and_names_what_is_missing(app, session, tmp_path) -> None:
    app.open_files(session)
    data = save(app.page, "share-file", tmp_path / "t.relayscope.zip")[0].read_bytes()
    cut = data[:len(data) * 2 // 3]
    app.open_files([{"name": "cut.relayscope.zip", "mimeType": "application/zip", "buffer": cut}], expect="done")
    message = app.testid("message")
    text = message.text_content()
    assert "cut.relayscope.zip" in text and "cut short" in text and "Missing or incomplete" in text, text
    assert message.get_attribute("class") and "error" in message.get_attribute("class")
    assert app.total() > 0


def test_a_foreign_zip_says_it_is_not_a_shareable_file(app) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("photo.png", b"\x89PNG")
    app.open_files([{"name": "holiday.zip", "mimeType": "application/zip", "buffer": buffer.getvalue()}],
                   expect="error")
    text = app.testid("message").text_content()
    assert "holiday.zip" in text and "another tool" in text and "no transcript" in text, text


# -- links and embeds ---------------------------------------------------------------------------------

def test_a_session_travels_in_a_link_with_its_sub_agents(app, browser, site, session) -> None:
    small = {p.name: "".join(p.read_text(encoding="utf-8").splitlines(keepends=True)[:60]) for p in session}
    app.open_files([{"name": k, "mimeType": "application/x-ndjson", "buffer": v.encode()} for k, v in small.items()])
    before = set_view(app, "index", 5)
    share_tab(app.page)
    app.testid("share").click()
    link = app.testid("share-link")
    href = link.get_attribute("href")
    assert link.get_attribute("data-kind") == "inline" and "#v2." in href
    files, _ = sharefile.decode_link(urlsplit(href).fragment)
    assert len(files) == 3
    context, page = fresh_page(browser, site, href.removeprefix(site.url))
    try:
        settle(page)
        assert view_of(page) == before
    finally:
        context.close()


def test_a_damaged_link_of_several_files_says_so(browser, site) -> None:
    context, page = fresh_page(browser, site, "#v2.eNqrVkrLz1eyUirKzEvPT9dRyixRslJKzs8rSc0rUaoFAN")
    try:
        settle(page, expect="error")
        message = by_id(page, "message").text_content()
        assert "damaged" in message and "zlib" not in message, message
    finally:
        context.close()


def test_too_large_for_a_link_names_the_file_to_send_and_the_embed_points_at_it(
        app, browser, site, session, tmp_path) -> None:
    app.open_files(session)
    before = set_view(app, "index", 12)
    step = str(before["step"]).split(" /")[0]  # opening a row steps to it
    share_tab(app.page)
    app.testid("share").click()
    assert app.testid("share-link").get_attribute("data-kind") == "fingerprint"
    note = app.testid("share-note").text_content()
    name = f"{session[0].stem}.relayscope.zip"
    assert name in note and "KiB" in note and f"strategy index, step {step}, row {before['row']} open" in note, note
    assert "send the file along with it" not in note
    data = save(app.page, "share-file", tmp_path / "e.relayscope.zip")[0].read_bytes()
    with app.page.expect_download() as got:  # the same file, from the box that says what to send
        app.testid("share-file-large").click()
    assert got.value.suggested_filename == name and Path(got.value.path()).read_bytes() == data

    app.testid("embed-view").click()
    snippet = app.testid("embed-snippet").input_value()
    src = html.unescape(re.search(r'src="([^"]*)"', snippet).group(1))
    assert f"src={name}" in src and "embed=1" in src and "#" not in src, snippet
    preview = app.page.frame_locator('[data-testid="embed-preview"]')
    # the preview loads the file from beside the site: serve it there for the page's frame
    app.page.route(f"**/{name}", lambda route: route.fulfill(status=200, body=data,
                                                           headers={"content-type": "application/zip"}))
    try:
        app.testid("embed-src").fill(f"./{name}")
        app.page.wait_for_selector('[data-testid="embed-preview"]:not([hidden])')
        frame = app.page.frame_locator('[data-testid="embed-preview"]')
        frame.locator("html[data-app-state=done]").wait_for(state="attached", timeout=BOOT_TIMEOUT_MS)
        assert frame.locator('[data-testid="step-position"]').text_content() == before["step"]
        assert preview.locator('[data-testid="strategy"]').input_value() == "index"
    finally:
        app.page.unroute(f"**/{name}")


# -- a big input -------------------------------------------------------------------------------------

# Big enough to pass every size the page and the files treat otherwise: the snapshot's rows lose
# their content past 10 MB (snapshot.page.FULL_UP_TO), the page reads and translates 4 MiB at a
# time (web.loads.READ_BYTES: four slices), checkpoints every 2 MiB, the redaction reads 256 KiB
# blocks. (It was 50 MB, as the benchmarks are: 100 s of the browser tests' 540 for the same
# checks; bench/share_bench.py measures 50 MB.)
BIG_BYTES = 16 << 20


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """16 MiB of the real session's lines, repeated, secrets planted every 40 lines."""
    text = plant((SESSION_DIR / f"{SESSION}.jsonl").read_text(encoding="utf-8"), 40)
    path = tmp_path_factory.mktemp("big") / "big-session.jsonl"
    path.write_text(text * (BIG_BYTES // len(text.encode()) + 1), encoding="utf-8")
    return path


def test_a_16_mb_input_saved_redacted_opens_by_drop_at_the_same_view(app, browser, site, big, tmp_path) -> None:
    times: dict[str, float] = {}
    start = time.perf_counter()
    app.open_files([big], strategy="index")
    times["open the input"] = time.perf_counter() - start
    before = set_view(app, "index", 40)
    start = time.perf_counter()
    redact_on(app.page)
    times["redact"] = time.perf_counter() - start
    saved, times["save the shareable file"] = save(app.page, "share-file", tmp_path / "big.relayscope.zip")
    snap, times["save the snapshot"] = save(app.page, "share-html", tmp_path / "big.relayscope.html")
    data = saved.read_bytes()
    no_secret_in(data)
    no_secret_in(unzipped(data))
    no_secret_in(snap.read_bytes())
    start = time.perf_counter()
    assert_snapshot_rows(browser, snap, int(str(before["relays"])))
    times["open the snapshot, offline"] = time.perf_counter() - start

    context, page = fresh_page(browser, site)
    try:
        start = time.perf_counter()
        drop_from_disk(page, saved)
        settle(page)
        times["open the shareable file"] = time.perf_counter() - start
        assert view_of(page) == before
    finally:
        context.close()
    sizes = {"input": big.stat().st_size, "shareable file": len(data), "snapshot": snap.stat().st_size}
    print(f"\n{BIG_BYTES >> 20} MiB input: sizes {sizes}; seconds {({k: round(v, 1) for k, v in times.items()})}")
    (packed,) = cli_audit(saved)  # audited as a folder is: one entry per session, places named by file
    assert packed["name"] == big.name
    assert unnamed(packed["audit"], big.name) == cli_audit(big)


def unnamed(value: object, name: str) -> object:
    """An audit with the file name of each place left out (one file's audit names none: null)."""
    if isinstance(value, dict):
        return {k: None if k == "file" and v == name else unnamed(v, name) for k, v in value.items()}
    if isinstance(value, list):
        return [unnamed(v, name) for v in value]
    return value
