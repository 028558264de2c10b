"""markdown_view: a message's Markdown drawn as the page's own elements: headings, paragraphs,
lists, block quotes, tables, code with its language, emphasis, inline code, links.

Parsed by markdown-it-py (the Python port of markdown-it: CommonMark, with GitHub's tables and
strikethrough; ``html`` off, so markup in the text stays text), then drawn token by token with
``dom.h``: every piece of the text is ``textContent``, nothing is ever parsed as HTML. A link is
kept only when it is ``http:`` or ``https:`` (opened in a new tab, ``rel="noopener noreferrer"``);
an image is never fetched: it is drawn as its alt text, with a link to its address when that is
http(s). Headings are drawn two levels down (a message's ``#`` is an ``h3`` here: the page's own
headings stay above it).

This module (with markdown-it-py) is imported when the first row is opened, not at boot (web.main
imports detail_view then, which imports it: nothing until a reader opens a row).
Must not: set ``innerHTML``, or an ``href`` that is not http(s); fetch anything.
"""

from __future__ import annotations

from typing import Any, Final

from markdown_it import MarkdownIt

from .dom import Element, h

_LEVELS: Final = 2  # a message's h1 is drawn as an h3
_BLOCKS: Final = {
    "paragraph": "p", "bullet_list": "ul", "ordered_list": "ol", "list_item": "li", "blockquote": "blockquote",
    "table": "table", "thead": "thead", "tbody": "tbody", "tr": "tr", "th": "th", "td": "td",
}
_INLINE: Final = {"strong": "strong", "em": "em", "s": "s"}
_ALIGN: Final = {"text-align:left": "left", "text-align:right": "right", "text-align:center": "center"}
_parser: MarkdownIt | None = None


def parser() -> MarkdownIt:
    global _parser
    if _parser is None:
        _parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        _parser.enable(["table", "strikethrough"])
    return _parser


def safe_url(url: str) -> str | None:
    """``url`` when it is http(s) (the only links a message keeps), else None."""
    u = url.strip()
    return u if u.lower().startswith(("http://", "https://")) else None


def draw(text: str) -> Element:
    """``text`` as Markdown, drawn (``[data-testid=row-content]``, ``data-format="markdown"``)."""
    root = h("div", cls="content markdown", attrs={"data-testid": "row-content", "data-format": "markdown"})
    stack: list[Element] = [root]
    for t in parser().parse(text):
        kind = t.type
        if kind.endswith("_open") and kind[:-5] in _BLOCKS:
            el = h(_BLOCKS[kind[:-5]], attrs=_block_attrs(t))
            stack[-1].append(el)
            stack.append(el)
        elif kind == "heading_open":
            level = min(int(t.tag[1:]) + _LEVELS, 6)
            el = h(f"h{level}", cls=f"md-h md-{t.tag}")
            stack[-1].append(el)
            stack.append(el)
        elif kind.endswith("_close") and len(stack) > 1:
            stack.pop()
        elif kind == "inline":
            _inline(stack[-1], t.children or [])
        elif kind in ("fence", "code_block"):
            lang = (t.info or "").strip().split(maxsplit=1)[0] if kind == "fence" and t.info.strip() else ""
            pre = h("pre", cls="code", attrs={"data-lang": lang or None, "tabindex": "0"})
            pre.append(h("code", t.content.removesuffix("\n"), cls=f"language-{lang}" if lang else None))
            stack[-1].append(pre)
        elif kind == "hr":
            stack[-1].append(h("hr"))
        elif t.content:  # a block this drawing does not know (html is off: none should come): its text
            stack[-1].append(h("p", t.content))
    return root


def _block_attrs(t: Any) -> dict[str, object]:
    attrs: dict[str, object] = {}
    align = _ALIGN.get(str(t.attrGet("style") or ""))
    if align:
        attrs["class"] = f"align-{align}"  # a class: the page's CSP allows no inline style
    start = t.attrGet("start")
    if t.type == "ordered_list_open" and start is not None:
        attrs["start"] = int(start)
    return attrs


def _inline(box: Element, tokens: list[Any]) -> None:
    stack: list[Element] = [box]
    for t in tokens:
        kind = t.type
        if kind == "text":
            stack[-1].append(h("span", t.content))
        elif kind == "softbreak":
            stack[-1].append(h("span", "\n"))
        elif kind == "hardbreak":
            stack[-1].append(h("br"))
        elif kind == "code_inline":
            stack[-1].append(h("code", t.content))
        elif kind.endswith("_open") and kind[:-5] in _INLINE:
            el = h(_INLINE[kind[:-5]])
            stack[-1].append(el)
            stack.append(el)
        elif kind == "link_open":
            url = safe_url(str(t.attrGet("href") or ""))
            el = h("a", attrs={"href": url, "rel": "noopener noreferrer", "target": "_blank",
                               "title": url}) if url else h("span", cls="md-link-dropped")
            stack[-1].append(el)
            stack.append(el)
        elif kind.endswith("_close") and len(stack) > 1:
            stack.pop()
        elif kind == "image":
            _image(stack[-1], t)
        elif t.content:
            stack[-1].append(h("span", t.content))


def _image(box: Element, t: Any) -> None:
    """An image as text, never fetched: "[image: ALT]", a link to it where it is http(s)."""
    alt = "".join(c.content for c in (t.children or [])) or t.content
    url = safe_url(str(t.attrGet("src") or ""))
    words = f"[image: {alt}]" if alt else "[image]"
    if url:
        box.append(h("a", words, cls="md-image", attrs={"href": url, "rel": "noopener noreferrer",
                                                        "target": "_blank", "title": f"the image, not loaded here: {url}"}))
    else:
        box.append(h("span", words, cls="md-image"))
