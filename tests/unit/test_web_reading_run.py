"""The run reading of a real session with sub-agents (tests/fixtures/spill/, cut from the shared
corpus: see its SOURCES.tsv): tokens on the message they count, chapters, spilled output."""

from __future__ import annotations

from pathlib import Path

from relayscope import relay as R
from relayscope.web.model import Workspace

SPILL = Path(__file__).resolve().parents[1] / "fixtures" / "spill"


def session_files(with_spill: bool = True) -> dict[str, bytes]:
    files = {str(p.relative_to(SPILL)): p.read_bytes() for p in sorted(SPILL.rglob("*"))
             if p.is_file() and p.suffix in (".jsonl", ".json", ".txt")}
    return {k: v for k, v in files.items() if with_spill or "tool-results" not in k}


def loaded(files: dict[str, bytes] | None = None) -> Workspace:
    ws = Workspace()
    for _ in ws.load(files if files is not None else session_files(), strategy="lineage"):
        pass
    return ws


def test_each_usage_is_folded_into_the_last_row_of_the_message_it_counts() -> None:
    ws = loaded()
    usages = [r for r in ws.relays if isinstance(r, R.Usage)]
    assert usages
    for u in usages:
        row = ws.folded_into(u.seq)
        assert row is not None, u
        host = ws.relays[row]
        assert host.lane == u.lane and getattr(host, "message_id", None) == u.message_id and row < u.seq
        later = [r for r in ws.relays[row + 1:u.seq] if r.lane == u.lane and getattr(r, "message_id", None) == u.message_id]
        assert not later  # the message's last row
        assert ws.usage_of(row) == u


def test_the_run_reading_shows_no_usage_row_and_keeps_each_usage_s_chip_with_its_row() -> None:
    ws = loaded()
    groups: list[str] = []
    from relayscope.web.reading import Reading  # the chips as the page counts them
    from relayscope.web.view import Shown
    shown = Shown(ws=ws)
    reader = Reading.__new__(Reading)
    reader.shown = shown
    groups = reader.groups()
    for r in ws.relays:
        if isinstance(r, R.Usage) and (row := ws.folded_into(r.seq)) is not None:
            assert groups[r.seq] == groups[row] != "lifecycle"


def spilled_row(ws: Workspace) -> tuple[int, int]:
    """The Bash call whose result was spilled to tool-results/b8oz93j98.txt, and that result."""
    (result,) = [r for r in ws.relays if isinstance(r, R.ToolResult) and r.text.startswith("<persisted-output>")]
    call = ws.folded_into(result.seq)
    assert call is not None
    return call, result.seq


def test_a_spilled_result_s_detail_shows_the_file_the_input_holds() -> None:
    from relayscope.web import remote
    from relayscope.web.detail_view import content
    ws = loaded()
    call, _ = spilled_row(ws)
    remote.DOCUMENT.__init__()
    box = remote.DOCUMENT.createElement("div")
    content(box, ws, ws.row(call), {})
    (pre,) = box.querySelectorAll('[data-testid="spill-content"]')
    whole = (SPILL / "230240ea-0a87-449e-afca-cff76f0fdc8a" / "tool-results" / "b8oz93j98.txt").read_text()
    assert pre.textContent == whole and pre.getAttribute("data-file").endswith("tool-results/b8oz93j98.txt")
    assert not box.querySelectorAll('[data-testid="spill-missing"]')
    assert "tool-results/b8oz93j98.txt" in ws.shown(ws.row(call))


def test_a_spilled_result_whose_file_is_not_given_says_so() -> None:
    from relayscope.web import remote
    from relayscope.web.detail_view import content
    ws = loaded(session_files(with_spill=False))
    call, _ = spilled_row(ws)
    remote.DOCUMENT.__init__()
    box = remote.DOCUMENT.createElement("div")
    content(box, ws, ws.row(call), {})
    assert not box.querySelectorAll('[data-testid="spill-content"]')
    (note,) = box.querySelectorAll('[data-testid="spill-missing"]')
    assert "230240ea-0a87-449e-afca-cff76f0fdc8a/tool-results/b8oz93j98.txt, which is not in the input" in note.textContent


def test_a_spilled_file_is_shown_bounded_at_a_line_end() -> None:
    from relayscope import spill
    data = b"".join(b"line %d\n" % k for k in range(20000))
    text, left = spill.shown(data, 1000)
    assert text.endswith("\n") and len(text) <= 1000 and left == len(data) - len(text)
    assert spill.shown(b"short", 1000) == ("short", 0)


def test_chapters_start_at_each_real_user_prompt_and_count_what_was_done_for_it() -> None:
    from relayscope import chapters as C
    from relayscope.web.chapters import chapter_at, chapters
    ws = loaded()
    found = chapters(ws)
    # line 2's caveat and line 3's /clear are the CLI's own text; line 6 is what the person typed
    assert [(c.seq, c.title) for c in found] == [(7, "go scrutinise the pr we have open rn (draft)")]
    (c,) = found
    assert c.time == "2026-06-02T14:21:34.561Z" and c.seconds is not None and c.seconds > 0
    assert c.tools == sum(isinstance(r, R.ToolUse) for r in ws.relays)
    assert c.errors == sum(isinstance(r, R.ToolResult) and r.is_error for r in ws.relays) > 0
    assert c.facts.startswith("14:21:34 · 5m 26s · 10 tools · ")
    assert chapter_at(found, 3) is None and chapter_at(found, 7) == chapter_at(found, len(ws.relays) - 1) == 0
    prompt = R.UserMessage(seq=0, line=1, lane="main", text="fix it")
    assert C.is_start(prompt)
    for text in ("<command-name>/clear</command-name>", "[Request interrupted by user for tool use]", "  "):
        assert not C.is_start(R.UserMessage(seq=0, line=1, lane="main", text=text))
    assert not C.is_start(R.UserMessage(seq=0, line=1, lane="toolu_1", text="find the tests"))  # a sub-agent's prompt
    assert not C.is_start(R.UserMessage(seq=0, line=1, lane="main", text="fix it", replay=True))


def test_translate_text_marks_each_chapter_start_and_names_a_spilled_output_s_file() -> None:
    from _cli import main
    code, out, _ = main("translate", "-f", "text", str(SPILL))
    assert code == 0
    text = out.decode()
    lines = text.splitlines()
    (k,) = [i for i, line in enumerate(lines) if line.startswith("── chapter")]
    assert lines[k] == "── chapter 1 · go scrutinise the pr we have open rn (draft) ──"
    assert "user_message" in lines[k + 1] and "go scrutinise" in lines[k + 1]
    (spilled,) = [line for line in lines if "output too large" in line]
    assert "whole in tool-results/b8oz93j98.txt · its file is in the input" in spilled
    lone = SPILL / "230240ea-0a87-449e-afca-cff76f0fdc8a" / "subagents" / "agent-a49ee8045afef3b66.jsonl"
    _, out, _ = main("translate", "-f", "text", str(lone))
    assert "tool-results/b8oz93j98.txt · its file is not in the input" in out.decode()
    _, out, _ = main("trace", str(SPILL))
    assert "output in 230240ea-0a87-449e-afca-cff76f0fdc8a/tool-results/b8oz93j98.txt, in the input" in out.decode()


def test_a_message_row_carries_its_tokens_in_the_run_reading_only() -> None:
    from relayscope.web import detail_view, remote
    from relayscope.web.rowdraw import RowDraw
    from relayscope.web.view import Shown, ViewState
    sys_path_helpers = __import__("test_web_rowdraw")  # its Drawn: the timeline as a row sees it
    ws = loaded()
    u = next(r for r in ws.relays if isinstance(r, R.Usage) and r.lane == "main")
    row = ws.folded_into(u.seq)
    assert row is not None
    for reading, figures in (("run", 1), ("protocol", 0)):
        remote.DOCUMENT.__init__()
        tl = sys_path_helpers.Drawn()
        tl.selected, tl.expanded = row, True
        el = RowDraw(tl, Shown(ws=ws), ViewState(reading=reading), detail_view.content).row(ws, row)
        got = el.querySelectorAll('[data-testid="row-usage"]')
        assert len(got) == figures
        if figures:
            assert got[0].textContent == "22.1k in · 769 out"  # 3 + 22 099 cached: what it read
        (detail,) = el.querySelectorAll('[data-testid="detail-usage"]')
        assert detail.textContent == "tokens: 3 in · 769 out · 22099 cache"


def test_rows_show_times_only_where_the_run_is_on_the_clock() -> None:
    partly = (Path(__file__).resolve().parents[1] / "fixtures" / "real" / "stream-json"
              / "DavidMarom__fb2-b__.ralph__logs__claude_output_2026-05-27_00-08-50_stream.log")
    ws = Workspace()
    for _ in ws.load(partly.read_bytes(), strategy="lineage"):
        pass
    stamped = [r.seq for r in ws.relays if ws.line_time(r.file, r.line)]
    assert stamped and not ws.on_clock()  # only its tool results carry a timestamp
    assert [q for q in range(len(ws.relays)) if ws.row_time(q)] == []
    session = loaded()
    assert session.on_clock() and session.row_time(7) == "2026-06-02T14:21:34.561Z"
