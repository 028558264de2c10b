"""web/embed.py's pure parts: the embed builder's snippet and height field."""

from __future__ import annotations

from relayscope.web.embed import HEIGHT, HEIGHTS, SANDBOX, clamp_height, snippet


def test_the_builders_snippet_carries_title_lazy_loading_and_only_the_sandbox_it_needs() -> None:
    text = snippet('http://h/?a=1&b="2"', 'x"><script>', 360)
    assert text.startswith('<iframe src="http://h/?a=1&amp;b=&quot;2&quot;" ')
    assert 'title="x&quot;&gt;&lt;script&gt;"' in text and "<script>" not in text
    assert 'height="360"' in text and 'loading="lazy"' in text
    assert f'sandbox="{SANDBOX}"' in text and " allow=" not in text
    assert set(SANDBOX.split()) == {"allow-scripts", "allow-same-origin", "allow-popups",
                                    "allow-popups-to-escape-sandbox"}


def test_the_height_field_is_read_as_bounded_pixels() -> None:
    assert clamp_height("600") == 600
    assert clamp_height("612.7") == 612
    assert clamp_height("") == clamp_height("tall") == clamp_height("nan") == clamp_height("inf") == HEIGHT
    assert clamp_height("5") == HEIGHTS[0] and clamp_height("99999") == HEIGHTS[1]
