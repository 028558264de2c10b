"""rowcells: the cells of a timeline row that read only the row itself: its time and the gap since
its lane's previous row, its ``file:line``, its line with a search's words marked, and its line
without the address a link beside it shows.

Must not: put transcript text anywhere but textContent and title attributes (a ``<mark>`` holds
text, never markup), or know the timeline (rowdraw.py puts the cells in a row).
"""

from __future__ import annotations

from . import rowinfo
from .dom import Element, h
from .rowtext import RowView


def time(r: RowView) -> list[Element]:
    """The row's time where its input line has one, and the gap since its lane's previous row."""
    stamp = r.time
    if stamp is None:
        return []
    gap = r.gap
    since = f" · {rowinfo.gap(gap)} since the previous row of this lane" if gap is not None else ""
    cells = [h("span", rowinfo.clock(stamp), cls="time", attrs={
        "data-testid": "row-time", "data-time": stamp, "title": stamp + since})]
    if gap is not None:  # its own cell where the row has room for it (app.css)
        cells.append(h("span", rowinfo.gap(gap), cls="gap", attrs={
            "data-testid": "row-gap", "title": "since the previous row of this lane"}))
    return cells


def where(file: str | None, number: int) -> Element:
    """``file:line`` with the line number always shown; a long file name is shortened."""
    title = f"input line {number}" + (f" of {file}" if file else "")
    cell = h("span", cls="where", attrs={"title": title})
    if file:
        name = file.rsplit("/", 1)[-1]
        stem, dot, _ = name.rpartition(".")
        stem = stem if dot else name
        short = stem if len(stem) <= 14 else f"{stem[:6]}…{stem[-4:]}"
        cell.append(h("span", short, cls="file"))
        cell.append(h("span", f":{number}", cls="ln"))
    else:
        cell.append(h("span", f"L{number}", cls="ln"))
    return cell


def without_link(text: str, url: str | None) -> str:
    """A row's line without the address its link shows at its end (the link says it once)."""
    if url is None or not text.endswith(url):
        return text
    return text[: -len(url)].removesuffix(" · ") or text


def marked(text: str, words: tuple[str, ...]) -> list[Element]:
    """``text`` in pieces, each place a word is found (any case) a ``<mark>``: elements holding
    text only (``textContent``), never markup."""
    low = text.lower()
    if len(low) != len(text):  # a letter whose lower case is longer ("İ"): no place to mark
        return [h("span", text)]
    spans: list[tuple[int, int]] = []
    for w in words:
        at = low.find(w)
        while w and at >= 0:
            spans.append((at, at + len(w)))
            at = low.find(w, at + len(w))
    out: list[Element] = []
    pos = 0
    for a, b in sorted(spans):
        if b <= pos:
            continue
        a = max(a, pos)
        if a > pos:
            out.append(h("span", text[pos:a]))
        out.append(h("mark", text[a:b]))
        pos = b
    if pos < len(text) or not out:
        out.append(h("span", text[pos:]))
    return out
