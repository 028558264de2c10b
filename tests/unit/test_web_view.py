"""view: the view <-> its query string. What a copied address or a share link carries."""

from __future__ import annotations

from urllib.parse import urlencode

from relayscope.translator import StrategyName
from relayscope.web.view import Asked, Source, ViewState, query_dict, query_of, view_from


def test_the_default_view_has_an_empty_query() -> None:
    assert query_of(ViewState(), {}) == {}


def test_a_view_read_back_from_its_query_is_the_same_view() -> None:
    st = ViewState(strategy=StrategyName("index"), step=3, row=7, text="a b&c", types={"tool_use", "text_delta"},
                   xtypes={"usage"}, lane="toolu_1", bookkeeping=True)
    query = "?" + urlencode(query_of(st, {}))
    assert view_from(query_dict(query)) == Asked(strategy=StrategyName("index"), step=4, row=7, text="a b&c",
                                                 types=["text_delta", "tool_use", "-usage"], lane="toolu_1",
                                                 bookkeeping=True)


def test_the_source_comes_first_and_how_the_page_is_shown_stays() -> None:
    st = ViewState(step=1, source=Source("example", example="cumulative-dedup"))
    here = {"embed": "1", "theme": "dark", "panels": "timeline", "row": "99"}  # row is the view's, not kept
    assert list(query_of(st, here).items()) == [("example", "cumulative-dedup"), ("step", "2"), ("embed", "1"),
                                                ("theme", "dark"), ("panels", "timeline")]
    assert query_of(ViewState(source=Source("src", src="https://x/y.jsonl")), {}) == {"src": "https://x/y.jsonl"}
    assert query_of(ViewState(source=Source("paste")), {}) == {}  # pasted text has no address


def test_what_is_not_valid_is_left_out() -> None:
    assert view_from(query_dict("strategy=bogus&step=-1&row=x&types=&lane=&bookkeeping=yes")) == Asked()
    assert view_from(query_dict("?step=2&step=5")) == Asked(step=5)  # the last value wins


def test_the_detail_panel_its_tab_size_and_fold_and_the_step_scope_are_remembered() -> None:
    st = ViewState(tab="audit", size=42, detail_open=False, step_scope="shown")
    query = query_of(st, {})
    assert query == {"tab": "audit", "size": "42", "detail": "closed", "scope": "shown"}
    assert view_from(query_dict("?" + urlencode(query))) == Asked(tab="audit", size=42, detail_open=False,
                                                                  scope="shown")
    assert query_of(ViewState(), {}) == {}  # the reading's tab, the layout's size, open: the defaults
    # a tab not known, a size out of bounds or not a number, any other fold: nothing asked
    assert view_from(query_dict("tab=bogus&size=5&detail=open&scope=all")) == Asked()
    assert view_from(query_dict("size=81")) == Asked()
    assert view_from(query_dict("size=4x")) == Asked()
    assert view_from(query_dict("size=80&tab=row")) == Asked(tab="row", size=80)


def test_a_view_asked_for_wins_over_the_one_it_is_laid_over() -> None:
    link = Asked(strategy=StrategyName("none"), step=9, text="x")
    address = Asked(step=2)
    assert address.over(link) == Asked(strategy=StrategyName("none"), step=2, text="x")


def test_the_reading_the_rows_order_and_the_fold_are_remembered() -> None:
    st = ViewState(reading="run", order="lane", fold=False)
    query = query_of(st, {})
    assert query == {"reading": "run", "order": "lane", "fold": "off"}
    assert view_from(query_dict("?" + urlencode(query))) == Asked(reading="run", order="lane", fold=False)
    assert query_of(ViewState(reading="protocol"), {}) == {"reading": "protocol"}  # chosen, so kept
    assert view_from(query_dict("reading=bogus&order=time&fold=on")) == Asked()  # defaults and nonsense: nothing
