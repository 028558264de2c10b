"""The search: its grammar (free words, quoted phrases, the scoped terms tool:, lane:, is:) and
what it matches: what a row shows and its detail, said apart; never a file name no row shows."""

from __future__ import annotations

import json

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON, SEEDS

from relayscope.web.model import Workspace
from relayscope.web.search import Query, parse

SESSION = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log" / "test" / "test_data" / "real_projects" \
    / "-experiments-worktrees"


@pytest.mark.parametrize(("text", "query"), [
    ("", Query()),
    ("  Foo   bar ", Query(words=("foo", "bar"))),
    ('"exit code 2" x', Query(words=("exit code 2", "x"))),
    ("tool:Bash", Query(tools=("bash",))),
    ("TOOL:bash tool:Read", Query(tools=("bash", "read"))),
    ("lane:main", Query(lanes=("main",))),
    ('lane:"Explore: search"', Query(lanes=("explore: search",))),
    ("is:error", Query(flags=frozenset({"error"}))),
    ("is:lost is:ERROR", Query(flags=frozenset({"lost", "error"}))),
    ("tool:Bash pytest is:error", Query(words=("pytest",), tools=("bash",), flags=frozenset({"error"}))),
    # not a scoped term: searched for as text
    ("is:happy", Query(words=("is:happy",))),
    ("http://example.com", Query(words=("http://example.com",))),
    ("tool:", Query(words=("tool:",))),
    ('"unclosed phrase', Query(words=("unclosed phrase",))),
])
def test_the_grammar(text: str, query: Query) -> None:
    assert parse(text) == query


def session() -> Workspace:
    ws = Workspace()
    for _ in ws.load({str(p.relative_to(SESSION)): p.read_bytes() for p in SESSION.rglob("*.jsonl")}):
        pass
    return ws


def test_a_word_in_a_file_name_no_row_shows_matches_nothing() -> None:
    ws = session()
    sub = next(lane for lane in ws.lanes if lane.file)
    name = sub.file.rsplit("/", 1)[-1].removesuffix(".jsonl")  # agent-a4ca75…: only in the relays' file
    assert name.startswith("agent-")
    assert ws.filter(name) == []
    for seq in ws.filter("agent"):
        h = ws._search_index()[seq]
        assert "agent" in h.shown or "agent" in h.detail
        assert name not in h.shown + h.detail


def test_shown_or_detail_is_said() -> None:
    ws = session()
    q = parse("agent")
    where = {seq: ws.match_in(seq, q) for seq in ws.filter("agent")}
    assert {"row", "detail"} <= set(where.values())
    for seq, place in where.items():
        shown = ws.shown(ws.row(seq)).lower()
        assert ("agent" in shown or "agent" in ws.relays[seq].type) == (place == "row")


def test_scoped_terms_and_words_combine() -> None:
    ws = session()
    bash = ws.filter("tool:Bash")
    assert bash and {ws.relays[q].type for q in bash} == {"tool_use", "tool_result"}
    calls = [q for q in bash if ws.relays[q].type == "tool_use"]
    assert all(ws.relays[q].name == "Bash" for q in calls)  # type: ignore[attr-defined]
    sub = next(lane for lane in ws.lanes if lane.file)
    in_lane = ws.filter(f"lane:{sub.id[:10]}")
    assert in_lane and {ws.relays[q].lane for q in in_lane} == {sub.id}
    both = ws.filter(f"tool:bash lane:{sub.id[:10]}")
    assert set(both) == set(bash) & set(in_lane)
    word = ws.filter("tool:Bash git")
    assert word and set(word) < set(bash)


def test_is_error_and_is_lost() -> None:
    lines = [
        {"type": "assistant", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "false"}}]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True}]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "fine"}]}},
    ]
    ws = Workspace()
    for _ in ws.load("\n".join(map(json.dumps, lines)) + "\nnot json\n"):
        pass
    errors = ws.filter("is:error")
    assert {ws.relays[q].type for q in errors} == {"tool_result", "error"}
    assert ws.filter("is:error boom") == [q for q in errors if ws.relays[q].type == "tool_result"]
    assert ws.filter("is:lost") == []  # lost blocks are rows, not relays
    assert ws.lost_matching(parse("is:lost"), "") == set()  # no audit's fates: none lost
    assert ws.lost_matching(parse("tool:Bash"), "") == set()  # any other search keeps no lost row
    assert ws.lost_matching(parse(""), "") is None


def test_is_lost_keeps_the_lost_blocks_rows() -> None:
    ws = Workspace()
    for _ in ws.load((SEEDS / "index-bug.ndjson").read_bytes(), strategy="index"):
        pass
    for _ in ws.run_audit():
        pass
    assert ws.fates is not None and ws.fates.lost
    keep = ws.lost_matching(parse("is:lost"), "")
    assert keep == {b.row for b in ws.fates.lost}
    rows = ws.rows(ws.select("is:lost"), lost=keep)
    assert rows and all(q < 0 for q in rows)
    assert ws.lost_matching(parse("is:lost no-such-words"), "") == set()


def test_is_error_finds_a_refused_call_and_a_tool_id_finds_its_call_and_result() -> None:
    lines = [
        {"type": "assistant", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "toolu_01Push", "name": "Bash", "input": {"command": "git push"}}]}},
        {"type": "system", "subtype": "permission_denied", "tool_use_id": "toolu_01Push", "tool_name": "Bash",
         "message": "Permission to use Bash has been denied."},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Push", "content": "denied", "is_error": True}]}},
    ]
    ws = Workspace()
    for _ in ws.load("\n".join(map(json.dumps, lines)) + "\n"):
        pass
    types = [ws.relays[q].type for q in ws.filter("is:error")]
    assert "tool_result" in types and any(getattr(ws.relays[q], "subtype", "") == "permission_denied"
                                          for q in ws.filter("is:error"))
    assert {ws.relays[q].type for q in ws.filter("toolu_01Push")} >= {"tool_use", "tool_result"}


ERRORS = FIXTURE_STREAM_JSON / "ArturoKuang__sandbox_ai_compiler__.repomirror__claude_output.jsonl"


def grown(files: dict[str | None, bytes], lines_a_look: int = 3) -> Workspace:
    """A watched input, its search index made before any row came (a search typed first), then
    its files grown a few lines a look, round the files."""
    ws = Workspace()
    ws.start_live(None if None in files else "folder", folder=None not in files)
    for _ in ws.prepare_search():
        pass
    split = {k: v.splitlines(keepends=True) for k, v in files.items()}
    for at in range(0, max(len(v) for v in split.values()), lines_a_look):
        looks = {k: b"".join(v[at:at + lines_a_look]) for k, v in split.items()}
        ws.append(looks[None] if None in looks else {str(k): v for k, v in looks.items()})
    ws.finish_live()
    return ws


@pytest.mark.parametrize("files", [
    pytest.param({None: ERRORS.read_bytes()}, id="stream-json"),
    pytest.param({str(p.relative_to(SESSION)): p.read_bytes() for p in sorted(SESSION.rglob("*.jsonl"))},
                 id="session-folder"),
])
def test_a_search_made_before_the_rows_came_finds_them_as_a_search_made_after(files: dict[str | None, bytes]) -> None:
    """Rows that come later are indexed, and so are the rows they change: a call's line says how it
    ended once its result comes, a group of streamed fragments grows, a session row reads on."""
    ws = grown(files)
    assert ws.relays and ws._search_index() == [ws.searchable(q) for q in range(len(ws.relays))]


def test_a_late_result_is_found_in_its_call_s_line() -> None:
    ws = grown({None: ERRORS.read_bytes()}, lines_a_look=1)
    calls = [q for q in ws.filter('"→ error"') if ws.relays[q].type == "tool_use"]
    assert calls and all(ws.match_in(q, parse('"→ error"')) == "row" for q in calls)
