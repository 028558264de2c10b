"""The page's markup: every id in index.html is given once (the worker and the page's modules
find their elements by id, and a second element of the same id is silently never found)."""

from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "index.html", *sorted((ROOT / "static").glob("*.html"))]


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: Counter[str] = Counter()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids[value] += 1


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_id_is_given_once(page: Path) -> None:
    found = _Ids()
    found.feed(page.read_text(encoding="utf-8"))
    assert found.ids, f"{page.name}: no ids read"
    assert [i for i, n in found.ids.items() if n > 1] == []
