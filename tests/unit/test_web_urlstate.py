"""urlstate: the view <-> its query string. What a copied address or a share link carries."""

from __future__ import annotations

from urllib.parse import urlencode

from relayscope.web.sources import _main_elsewhere
from relayscope.web.urlstate import State, query_dict, query_of, view_from


def test_the_default_view_has_an_empty_query() -> None:
    assert query_of(State(), {}) == {}


def test_a_view_read_back_from_its_query_is_the_same_view() -> None:
    st = State(strategy="index", step=3, row=7, text="a b&c", types={"tool_use", "text_delta"},
               xtypes={"usage"}, lane="toolu_1", bookkeeping=True)
    query = "?" + urlencode(query_of(st, {}))
    view = view_from(query_dict(query))
    assert view == {"strategy": "index", "step": 4, "row": 7, "q": "a b&c", "types": ["text_delta", "tool_use", "-usage"],
                    "lane": "toolu_1", "bookkeeping": True}


def test_the_source_comes_first_and_how_the_page_is_shown_stays() -> None:
    st = State(step=1, source={"kind": "example", "example": "cumulative-dedup"})
    here = {"embed": "1", "theme": "dark", "panels": "timeline", "row": "99"}  # row is the view's, not kept
    assert list(query_of(st, here).items()) == [("example", "cumulative-dedup"), ("step", "2"), ("embed", "1"),
                                                ("theme", "dark"), ("panels", "timeline")]
    assert query_of(State(source={"kind": "src", "src": "https://x/y.jsonl"}), {}) == {"src": "https://x/y.jsonl"}
    assert query_of(State(source={"kind": "paste"}), {}) == {}  # pasted text has no address


def test_what_is_not_valid_is_left_out() -> None:
    assert view_from(query_dict("strategy=bogus&step=-1&row=x&types=&lane=&bookkeeping=yes")) == {}
    assert view_from(query_dict("?step=2&step=5")) == {"step": 5}  # the last value wins


def test_collapsed_panels_and_the_step_scope_are_remembered() -> None:
    """Issue 18: which panels are collapsed, and stepping through the shown rows only."""
    st = State(closed={"audit", "lanes"}, step_scope="shown")
    query = query_of(st, {})
    assert query == {"closed": "lanes,audit", "scope": "shown"}  # in the panels' order
    assert view_from(query_dict("?" + urlencode(query))) == {"closed": ["lanes", "audit"], "scope": "shown"}
    assert view_from(query_dict("closed=lanes,bogus,&scope=all")) == {"closed": ["lanes"]}
    assert view_from(query_dict("closed=")) == {}  # every panel open: the default


def test_a_folder_of_sub_agents_only_is_told_where_the_main_file_is() -> None:
    note = _main_elsewhere(["29cc/subagents/agent-a.jsonl", "29cc/subagents/agent-b.jsonl"])
    assert note is not None and "29cc.jsonl" in note and "29cc/subagents/" in note
    assert _main_elsewhere(["proj/29cc.jsonl", "proj/29cc/subagents/agent-a.jsonl"]) is None
    assert _main_elsewhere(["proj/29cc.jsonl"]) is None
    assert "two levels up" in (_main_elsewhere(["subagents/agent-a.jsonl"]) or "")
