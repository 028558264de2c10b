"""The strategies' catalogue (translator.STRATEGIES): every list of strategies is made from it,
and a name is checked once where it comes in (``strategy_named``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from relayscope import cli
from relayscope.translator import DEFAULT_STRATEGY, STRATEGIES, STRATEGY_NAMES, strategy_named


def test_the_names_are_the_catalogue_s_each_with_a_line_for_people() -> None:
    assert tuple(STRATEGIES) == STRATEGY_NAMES and DEFAULT_STRATEGY in STRATEGY_NAMES
    for name in STRATEGY_NAMES:
        assert STRATEGIES[name].name == name and STRATEGIES[name].summary.endswith(".")


def test_a_name_is_checked_once_where_it_comes_in() -> None:
    assert [strategy_named(n) for n in STRATEGY_NAMES] == list(STRATEGY_NAMES)
    for bad in ("", "Lineage", "bogus", None, 3):
        with pytest.raises(ValueError, match="choose from " + ", ".join(STRATEGY_NAMES)):
            strategy_named(bad)


def test_the_cli_offers_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["translate", "-s", "bogus", "-"])
    err = capsys.readouterr().err
    assert all(f"'{name}'" in err for name in STRATEGY_NAMES)


def test_the_pages_type_no_strategy_names_the_catalogue_fills_their_selects() -> None:
    root = Path(__file__).resolve().parents[2]
    for page in (root / "index.html", root / "static" / "pyscript.html"):
        html = page.read_text()
        for name in STRATEGY_NAMES:
            assert f'<option value="{name}"' not in html, f"{page.name} types the strategy {name}"
    assert "none, index, fingerprint, lineage" not in (root / "index.html").read_text()
