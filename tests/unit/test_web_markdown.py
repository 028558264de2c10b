"""A message's Markdown as the page draws it (web/markdown_view.py, on the worker's mirror of the
DOM): headings, lists, tables, code with its language, links; and what must never come of it:
markup from the text, a script, an image fetched, a link that is not http(s)."""

from __future__ import annotations

from test_web_detail_view import text, tree

from relayscope.web import markdown_view
from relayscope.web.remote import Node

MESSAGE = """# Findings

Two issues, **one** of them *serious*:

1. The loop is `unbounded`.
2. See [the PR](https://github.com/acme/app/pull/7) and [this](javascript:alert(1)).

| file | lines |
|:-----|------:|
| a.go | 12 |

```go
for {}
```

> quoted

![diagram](https://example.com/d.png) ![local](file:///etc/passwd)

<script>window.__pwned=1</script> <b>raw</b> <img src=x onerror=alert(1)>

<div onclick="x()">block html</div>
"""


def drawn(src: str = MESSAGE) -> Node:
    return markdown_view.draw(src)


def tags(node: Node) -> list[str]:
    return [n.tagName for n in tree(node)]


def test_headings_lists_tables_and_code_are_drawn_as_elements() -> None:
    root = drawn()
    assert root.getAttribute("data-format") == "markdown"
    (h3,) = [n for n in tree(root) if n.tagName == "H3"]  # a message's h1, under the page's own headings
    assert text(h3) == "Findings"
    (ol,) = [n for n in tree(root) if n.tagName == "OL"]
    # a javascript: link is no link at all (markdown-it refuses it): its Markdown stays, as text
    assert [text(li) for li in ol.children] == ["The loop is unbounded.", "See the PR and [this](javascript:alert(1))."]
    assert "STRONG" in tags(root) and "EM" in tags(root) and "CODE" in tags(root)
    (table,) = [n for n in tree(root) if n.tagName == "TABLE"]
    cells = [(n.tagName, text(n), n.getAttribute("class")) for n in tree(table) if n.tagName in ("TH", "TD")]
    assert cells == [("TH", "file", "align-left"), ("TH", "lines", "align-right"),
                     ("TD", "a.go", "align-left"), ("TD", "12", "align-right")]
    (pre,) = [n for n in tree(root) if n.tagName == "PRE"]
    assert pre.getAttribute("data-lang") == "go" and text(pre) == "for {}"
    assert "BLOCKQUOTE" in tags(root)


def test_links_are_http_only_and_open_apart() -> None:
    links = [n for n in tree(drawn()) if n.tagName == "A"]
    assert [(text(a), a.getAttribute("href")) for a in links] == [
        ("the PR", "https://github.com/acme/app/pull/7"),
        ("[image: diagram]", "https://example.com/d.png")]
    for a in links:
        assert a.getAttribute("rel") == "noopener noreferrer" and a.getAttribute("target") == "_blank"
    assert markdown_view.safe_url(" JavaScript:alert(1)") is None
    assert markdown_view.safe_url("data:text/html,x") is None


def test_markup_in_the_text_stays_text_and_no_image_is_fetched() -> None:
    root = drawn()
    for node in tree(root):
        assert node.tagName not in ("SCRIPT", "IMG", "IFRAME", "STYLE", "B", "DIV") or node is root
        assert not [a for a in node.attrs if a.startswith("on") or a in ("src", "style")]
        assert "innerHTML" not in node.props
    words = text(root)
    assert "<script>window.__pwned=1</script>" in words and "<b>raw</b>" in words
    assert '<div onclick="x()">block html</div>' in words
    assert "![local](file:///etc/passwd)" in words  # a file: image is refused as a link: its text


def test_an_inline_image_is_its_alt_text_only() -> None:
    root = drawn("![chart](data:image/png;base64,iVBORw0KGgo=)")
    assert text(root) == "[image: chart]" and "A" not in tags(root)


def test_any_text_draws() -> None:
    for src in ("", "plain", "*", "```", "| a |\n|-|", "- [ ] x\n- [x] y", "<", "&amp; &#0; \x00", "#" * 10 + " x"):
        markdown_view.draw(src)
