"""The snapshot (relayscope.snapshot, ``relayscope html``): one HTML page with a row for every
relay of the CLI's translation, transcript text always escaped (``<script>``, event handlers,
control characters, lone surrogates), nothing but same-page links and no script (a CSP whose
style hash matches), the view's row open, content bounded for large inputs, the same bytes for
the same input (so the page's worker makes the CLI's page), and a time axis that can be swapped."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _corpus import FIXTURE_STREAM_JSON
from test_sharefile import ENV, FOLDER, PLANTED, SECRETS, SESSION, run, session_files

from relayscope import snapshot
from relayscope.export import Run, runs
from relayscope.folds import of_run

STREAMED = FIXTURE_STREAM_JSON / "foksa__open-claude-agent-sdk__tests__snapshots__streaming-haiku.jsonl"
LANE = 'toolu_1" onfocus="alert(5)'
HOSTILE = "<script>window.__pwned=1</script><img src=x onerror=alert(1)> \x1b[2J\x1b]0;title\x07 \x00 \u0085"
# The markup the page is made of: a transcript that smuggled in any other tag fails the test.
TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h4", "p", "input", "label", "main",
        "section", "details", "summary", "span", "div", "pre", "a", "svg", "rect", "nav", "ol", "li", "footer",
        "table", "tr", "td", "dl", "dt", "dd", "b", "ul"}


class Page(HTMLParser):
    """The page as the browser's parser sees it: tags, attributes, text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.style = ""
        self._in_style = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style += data
        else:
            self.text.append(data)

    def rows(self, lost: bool = False) -> list[dict[str, str | None]]:
        """The relays' rows (with ``lost``: the lost blocks' rows instead)."""
        return [a for t, a in self.tags if t == "details" and "row" in (a.get("class") or "")
                and ("data-seq" not in a) == lost]


def cli_relays(*args: str) -> list[dict]:
    p = subprocess.run([sys.executable, "-m", "relayscope", "translate", *args], capture_output=True, env=ENV,
                       timeout=120, check=False)
    return [json.loads(line) for line in p.stdout.splitlines()]


def covered(rows: list[dict[str, str | None]]) -> list[tuple[int, str]]:
    """(seq, type) of every relay the rows stand for, in page order (a grouped row: its first
    relay's type for each of its seqs)."""
    out = []
    for r in rows:
        first, last = int(r["data-seq"] or -1), int(r["data-last"] or -1)
        out += [(q, str(r["data-type"])) for q in range(first, last + 1)]
    return out


def test_a_row_for_every_relay_of_the_clis_translation_of_a_session() -> None:
    page = Page(snapshot.render(session_files()))
    relays = cli_relays(str(FOLDER))
    assert [(q, t) for q, t in covered(page.rows())] == [(r["seq"], r["type"]) for r in relays]
    assert all(r["data-seq"] == r["data-last"] for r in page.rows())  # a session file streams no partial deltas


def test_partial_deltas_of_one_block_are_one_row_and_every_relay_is_still_accounted_for() -> None:
    page = Page(snapshot.render(STREAMED.read_bytes()))
    relays = cli_relays(str(STREAMED))
    seqs = [q for q, _ in covered(page.rows())]
    assert seqs == [r["seq"] for r in relays]
    grouped = [r for r in page.rows() if r["data-seq"] != r["data-last"]]
    assert grouped and all(r["data-type"] in ("text_delta", "thinking_delta") for r in grouped)
    assert len(page.rows()) < len(relays)


def hostile_transcript() -> bytes:
    lines = [
        {"type": "system", "subtype": "init", "session_id": "s<b>1</b>", "model": "m\x1b[31m", "tools": ["Bash"]},
        {"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "text", "text": HOSTILE + " \ud83d"},
            {"type": "tool_use", "id": "t1\"><script>x</script>", "name": "Bash<svg onload=alert(1)>",
             "input": {"command": "echo '<script>alert(2)</script>'", "description": HOSTILE}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1\"><script>x</script>", "content": HOSTILE}]}},
        {"type": "assistant", "message": {"id": "m2", "role": "assistant", "content": [
            {"type": "tool_use", "id": LANE, "name": "Task",
             "input": {"description": "d\" onmouseover=\"alert(4)", "subagent_type": "<b>x</b>", "prompt": HOSTILE}}]}},
        {"type": "assistant", "parent_tool_use_id": LANE, "message": {"id": "m3", "role": "assistant", "content": [
            {"type": "text", "text": "inside the lane"}]}},
    ]
    return b"\n".join(json.dumps(x).encode() for x in lines) + b"\nnot json <script>alert(3)</script>\n"


def test_transcript_text_is_escaped_never_markup_nor_raw_control_characters() -> None:
    text = snapshot.render(hostile_transcript(), name="<i>name</i>")
    text.encode("utf-8")  # no lone surrogate reaches the page
    page = Page(text)
    assert {t for t, _ in page.tags} <= TAGS
    assert not [(t, k) for t, a in page.tags for k in a if k.startswith("on")]
    assert any(a.get("data-lane") == LANE for t, a in page.tags)  # an attribute value, whole
    assert "<script" not in text.lower().replace("&lt;script", "")
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
    body = "".join(page.text)
    assert "<script>window.__pwned=1</script>" in body  # shown as text, whole
    assert "␛[2J" in body and "␀" in body and "\ufffd" in body


def test_hostile_rows_still_match_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(hostile_transcript())
    page = Page(snapshot.render(path.read_bytes()))
    assert covered(page.rows()) == [(r["seq"], r["type"]) for r in cli_relays(str(path))]
    assert any(r["data-type"] == "error" for r in page.rows())  # the bad line is a row, as in the CLI


def test_nothing_loads_nothing_runs_and_the_csp_allows_exactly_the_page_style() -> None:
    text = snapshot.render(session_files())
    page = Page(text)
    (policy,) = [a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert policy is not None and "default-src 'none'" in policy and "script-src" not in policy
    digest = base64.b64encode(hashlib.sha256(page.style.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in policy
    assert [t for t, _ in page.tags].count("style") == 1
    links = [a.get("href") for _, a in page.tags if "href" in a]
    assert links and all(h and h.startswith("#") for h in links)
    ids = {a.get("id") for _, a in page.tags}
    assert all(h[1:] in ids for h in links if h)  # every link lands on the page
    assert not [a for _, a in page.tags if "src" in a or "style" in a]


def test_the_views_row_is_open_and_its_strategy_used() -> None:
    files = session_files()
    page = Page(snapshot.render(files, view={"row": "106", "strategy": "index"}))
    opened = [r for r in page.rows() if "open" in r]
    assert [r["data-seq"] for r in opened] == ["106"]
    lineage, index = (Page(snapshot.render(files, strategy=s)) for s in ("lineage", "index"))
    count = lambda p: int(next(a["data-relays"] for t, a in p.tags if t == "section") or 0)  # noqa: E731
    assert count(page) == count(index) < count(lineage)
    assert "strategy index" in "".join(page.text)


def test_the_blocks_a_strategy_loses_are_rows_where_they_were_as_the_audit_counts_them() -> None:
    audit = json.loads(run("audit", "--json", str(FOLDER)).stdout)[0]["audit"]
    lost = {a["strategy"]: a["lost"] for a in audit}
    files = session_files()
    text = snapshot.render(files, strategy="index")
    page = Page(text)
    rows = page.rows(lost=True)
    assert len(rows) == lost["index"] > 0 and lost["lineage"] == 0
    assert Page(snapshot.render(files)).rows(lost=True) == []
    marks = [a for t, a in page.tags if t == "a" and (a.get("href") or "").startswith("#s1-lost-")]
    assert {(a["href"] or "")[1:] for a in marks} == {r["id"] for r in rows}  # every lost tick leads to its row
    # each sits after the last row (in the page's order) of its file's lines up to its own
    (relays,) = [r.relays for r in runs(files, "index")]
    order = [a.get("data-seq") or a.get("id") for t, a in page.tags if t == "details" and "row" in (a.get("class") or "")]
    for row in rows[:20]:
        cut = text[text.index(f'id="{row["id"]}"'):]
        file, line = re.search(r'<p class="where">(.+?):(\d+) ·', cut).groups()  # type: ignore[union-attr]
        before = [r.seq for r in relays if r.file == file and r.line <= int(line)]
        previous = next(x for x in reversed(order[: order.index(row["id"])]) if x and not x.startswith("s1-"))
        assert int(previous) == max(before)


def test_a_tool_call_shows_what_it_did_and_links_its_result() -> None:
    text = snapshot.render(session_files(), view={"row": "106"})
    row = text[text.index('id="s1-106"'):]
    row = row[: row.index("</details>")]
    assert 'class="diff"' in row and 'href="#s1-107"' in row and "Edit" in row


def test_bookkeeping_rows_are_there_and_hidden_until_asked_for() -> None:
    text = snapshot.render(session_files())
    page = Page(text)
    book = [r for r in page.rows() if " bk" in (r.get("class") or "")]
    assert len(book) == 22 and any(t == "input" and a.get("id") == "book" for t, a in page.tags)
    assert ".bk{display:none}#book:checked~main .bk{display:block}" in page.style


def test_the_same_input_makes_the_same_page() -> None:
    files = session_files()
    assert snapshot.render(files) == snapshot.render(dict(files))


def test_content_is_bounded_and_left_out_past_the_size_that_opens_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    long = json.dumps({"type": "assistant", "message": {"id": "m", "role": "assistant", "content": [
        {"type": "text", "text": "x" * 50_000}]}}).encode() + b"\n"
    clipped = snapshot.render(long, detail_chars=1000)
    assert "49,000 more characters not shown" in clipped and "x" * 1001 not in clipped
    assert "x" * 50_000 in snapshot.render(long, detail_chars=60_000)
    bare = snapshot.render(session_files(), detail_chars=0)
    rows = bare[bare.index('data-testid="rows"'):]
    assert "<pre>" not in rows and "<summary>" in rows and "content is left out:" in bare
    monkeypatch.setattr(snapshot.page, "FULL_UP_TO", 1000)  # where render reads it
    auto = snapshot.render(session_files())
    assert "content is left out (the input is 0 MB)" in auto and len(auto) < len(snapshot.render(session_files(), detail_chars=20_000)) / 2


def test_the_time_axis_is_a_seam_another_axis_plugs_into() -> None:
    class Middle:
        def x(self, t: float) -> float:
            return 0.5

        def labels(self) -> list[tuple[float, str]]:
            return [(0.0, "middle start"), (1.0, "middle end")]

        def breaks(self) -> list[tuple[float, float, str]]:
            return []

    def middle(run: Run) -> snapshot.Axis:
        return Middle()

    text = snapshot.render(session_files(), axis=middle)
    xs = {a["x"] for t, a in Page(text).tags if t == "rect" and "tool" in (a.get("class") or "")}
    assert xs == {"500.0"} and "middle start" in text and 'class="fold"' not in text
    default = {a["x"] for t, a in Page(snapshot.render(session_files())).tags if t == "rect"}
    assert len(default) > 10


def test_the_swimlanes_fold_idle_gaps_as_the_page_does_and_say_their_true_times() -> None:
    files = session_files()
    (run,) = runs(files)
    fold = of_run(run.timeline, run.relays, run.stamps)
    # the last: the wait before the /exit (the run ends at its last record)
    assert [b.label for b in fold.breaks] == ["7m 51s idle", "7m 10s idle", "1h 15m idle"]
    page = Page(snapshot.render(files))
    bands = [a for t, a in page.tags if t == "rect" and a.get("class") == "fold"]
    assert len(bands) == 3 * 3  # each break, across the three tracks
    for b in fold.breaks:
        x = f"{b.at / fold.axis_end * snapshot.WIDTH:.1f}"
        assert any(a["x"] == x for a in bands)
    text = "".join(page.text)
    assert "3 idle gap(s) folded" in text and "7m 51s idle: 13:" in text
    true = Page(snapshot.render(files, axis=snapshot.linear))
    assert not [a for t, a in true.tags if t == "rect" and a.get("class") == "fold"]

    def tool_width(p: Page) -> float:
        return sum(float(a["width"] or 0) for t, a in p.tags if t == "rect" and (a.get("class") or "").startswith("tool"))

    assert tool_width(page) > 1.2 * tool_width(true)  # the work gets the width the idle gaps had


# -- relayscope html --------------------------------------------------------------------------


def test_html_of_the_folder_and_of_its_shareable_file_are_the_same_page(tmp_path: Path) -> None:
    packed = tmp_path / "run.relayscope.zip"
    assert run("pack", str(FOLDER), "-o", str(packed)).returncode == 0
    a, b = run("html", str(FOLDER)), run("html", str(packed))
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout and a.stdout.startswith(b"<!doctype html>")
    assert a.stdout.decode() == snapshot.render(session_files())
    assert f"{SESSION}.jsonl".encode() in a.stdout and str(FOLDER).encode() not in a.stdout  # no machine path


def test_html_opens_the_shareable_files_view_and_writes_to_a_file(tmp_path: Path) -> None:
    packed = tmp_path / "run.relayscope.zip"
    assert run("pack", str(FOLDER), "-o", str(packed), "--view", "row=59").returncode == 0
    out = tmp_path / "run.html"
    p = run("html", str(packed), "-o", str(out))
    assert p.returncode == 0 and p.stdout == b""
    assert [r["data-seq"] for r in Page(out.read_text()).rows() if "open" in r] == ["59"]


def test_html_redact_leaves_no_planted_secret() -> None:
    p = run("html", "--redact", str(PLANTED))
    assert p.returncode == 0 and b"[redacted:" in p.stdout and b"relayscope: redacted" in p.stderr
    for kind in ("anthropic-key", "github-token", "aws-key"):
        assert SECRETS[kind].encode() not in p.stdout


def test_html_of_a_single_file_matches_translate_and_bad_options_are_usage_errors() -> None:
    p = run("html", str(STREAMED))
    assert covered(Page(p.stdout.decode()).rows()) == [(r["seq"], r["type"]) for r in cli_relays(str(STREAMED))]
    assert run("html", "--detail-chars", "-1", str(STREAMED)).returncode == 2
