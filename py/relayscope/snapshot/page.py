"""snapshot.page: the swimlanes as inline SVG, the style and its policy, and the whole page.

:func:`render` translates the input (``export.runs``), and writes one section per session: its
figures, its swimlanes (one track per lane, main first: the agent span, tool calls in rows,
errors and lost blocks as ticks, each linking to its row) and its rows (``snapshot.rows``),
under a header and a CSP (:func:`csp`: nothing may load or run; the one style element allowed
by its hash). ``FULL_UP_TO`` is the input size past which the rows keep their summaries only.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from typing import Final

from .. import __version__
from .. import spans as S
from ..analysis import AUTO
from ..export import runs
from ..translator import STRATEGIES
from ..wire import split_lines
from .axis import Axis, AxisOf, folded
from .escape import DETAIL_CHARS, esc
from .rows import _lost_row, _row, _Session, groups, is_bookkeeping, lost_after

# Rows keep their content for inputs up to this size; past it, summaries only (unless asked), so
# the page stays small enough to mail and quick to open: 10 MB of sessions make a 13 MB page that
# Chromium opens in about 2 s; 50 MB make 64-95 MB with content (14-19 s to open) and 12-18 MB
# without (4-8 s). Measured by bench/share_bench.py --open.
FULL_UP_TO: Final = 10_000_000
TRACK_ROWS: Final = 6  # tool-call rows drawn per track; calls past them share the last
WIDTH: Final = 1000  # the SVG's user units across; it is drawn at the page's width


# -- swimlanes --------------------------------------------------------------------------------


def _lanes(s: _Session, axis: Axis) -> str:
    tl = s.run.timeline
    if not tl.tracks:
        return ""
    tools: dict[str, list[S.Span]] = {}
    for span in tl.spans:
        if span.kind == "tool":
            tools.setdefault(span.lane, []).append(span)
    marks: dict[str, list[S.Mark]] = {}
    for m in tl.marks:
        if m.kind in ("error", "lost"):
            marks.setdefault(m.lane, []).append(m)

    def words(seconds: float) -> str:
        return S.duration_words(seconds, tl.axis)

    out = ['<div class="lanes" role="group" aria-label="swimlanes: the agents in time">']
    for tr in tl.tracks:
        label, color = s.lane(tr.id)
        rows = min(max(tr.rows, 1), TRACK_ROWS)
        height = 8 + rows * 8
        shapes = [f'<rect class="fold" x="{a * WIDTH:.1f}" y="0" width="{max((b - a) * WIDTH, 1.5):.1f}" '
                  f'height="{height}"><title>{esc(text)}</title></rect>' for a, b, text in axis.breaks()]
        if tr.agent is not None:
            shapes.append(_bar(s, axis, tr.agent, 1, 5, "agent", f"{label} · {words(tr.agent.duration)}"))
        for span in tools.get(tr.id, []):
            y = 8 + min(span.row, rows - 1) * 8
            shapes.append(_bar(s, axis, span, y, 6, "tool" + (" bad" if span.error else ""),
                               f"{span.label} · {words(span.duration)}"))
        for m in marks.get(tr.id, []):
            x = round(axis.x(m.at) * WIDTH, 1)
            where = s.anchor(m.seq) if m.seq is not None else s.lost_id.get(id(m))
            target = f' href="#{where}"' if where else ""
            shapes.append(f'<a{target}><rect class="mark {m.kind}" x="{x}" y="0" width="2" height="{height}">'
                          f"<title>{esc(m.kind)}: {esc(m.text)}</title></rect></a>")
        out.append(f'<div class="track d{min(tr.depth, 4)}" id="{s.lane_anchor(tr.id)}">')
        out.append(f'<span class="tl l{color}" title="{esc(label)}">{esc(label)}</span>'
                   f'<svg class="l{color}" viewBox="0 0 {WIDTH} {height}" preserveAspectRatio="none" '
                   f'height="{height * 2}" role="img" aria-label="{esc(label)}">{"".join(shapes)}</svg></div>')
    ticks = "".join(f"<span>{esc(text)}</span>" for _, text in axis.labels())
    out.append(f'<div class="axis"><span class="tl">{esc(tl.axis_words)}</span><div class="ticks">{ticks}</div></div>')
    folds = [text for _, _, text in axis.breaks()]
    if folds:
        out.append(f'<p class="folds">{len(folds)} idle gap(s) folded (the shaded bands): {esc("; ".join(folds))}</p>')
    out.append("</div>")
    return "\n".join(out)


def _bar(s: _Session, axis: Axis, span: S.Span, y: int, h: int, cls: str, title: str) -> str:
    x0, x1 = axis.x(span.start) * WIDTH, axis.x(span.end) * WIDTH
    w = max(x1 - x0, 1.5)
    return (f'<a href="#{s.anchor(span.seq)}"><rect class="{cls}" x="{x0:.1f}" y="{y}" width="{w:.1f}" '
            f'height="{h}"><title>{esc(title)}</title></rect></a>')


# -- the page ---------------------------------------------------------------------------------


STYLE: Final = """
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;
--add:#dafbe1;--del:#ffebe9;--bad:#cf222e;--ok:#1a7f37;--warn:#9a6700;
--c0:#0969da;--c1:#8250df;--c2:#bf3989;--c3:#1a7f37;--c4:#bc4c00;--c5:#0a7b83;--c6:#6e7781;--c7:#9a6700}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--soft:#151b23;
--add:#12261e;--del:#25171c;--bad:#f85149;--ok:#3fb950;--warn:#d29922;
--c0:#4493f8;--c1:#ab7df8;--c2:#f778ba;--c3:#3fb950;--c4:#f0883e;--c5:#39c5cf;--c6:#9198a1;--c7:#d29922}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
header,main,.bar{max-width:1400px;margin:0 auto;padding:0 16px}
header{padding-top:16px}h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 6px}
h4{font-size:12px;margin:10px 0 4px;color:var(--muted);font-weight:600}
.muted,.facts-line,.where,.pair{color:var(--muted);font-size:12px}
a{color:var(--c0)}
pre,code,.seq,.time,.diff{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);border:1px solid var(--line);
border-radius:6px;padding:8px;margin:4px 0;max-height:60vh;overflow:auto}
.para{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.bk{display:none}#book:checked~main .bk{display:block}
#book{position:absolute;opacity:0;width:1px;height:1px}
.toggle{display:inline-block;margin:6px 0;padding:2px 8px;border:1px solid var(--line);border-radius:6px;
cursor:pointer;font-size:12px}
.toggle::before{content:"☐ "}#book:checked~header .toggle::before{content:"☑ "}
#book:focus-visible~header .toggle{outline:2px solid var(--c0);outline-offset:1px}
.figures{font-size:12px;max-height:none}
.lanes{border:1px solid var(--line);border-radius:6px;padding:6px;margin:8px 0}
.track{display:grid;grid-template-columns:minmax(90px,180px) 1fr;gap:8px;align-items:center;
border-bottom:1px dashed var(--line)}
.track:last-of-type{border-bottom:0}
.track svg{width:100%;display:block}
.d1 .tl{padding-left:10px}.d2 .tl{padding-left:20px}.d3 .tl,.d4 .tl{padding-left:30px}
.tl{font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.axis{display:grid;grid-template-columns:minmax(90px,180px) 1fr;gap:8px;font-size:11px;color:var(--muted)}
.ticks{display:flex;justify-content:space-between}
svg a{color:inherit}rect.agent{fill:currentColor;opacity:.35}rect.tool{fill:currentColor}rect.tool.bad{fill:var(--bad)}
rect.mark.error{fill:var(--bad)}rect.mark.lost{fill:var(--warn)}
rect.fold{fill:var(--muted);opacity:.25}
.folds{font-size:11px;color:var(--muted);margin:4px 0 0}
.l0{color:var(--c0)}.l1{color:var(--c1)}.l2{color:var(--c2)}.l3{color:var(--c3)}
.l4{color:var(--c4)}.l5{color:var(--c5)}.l6{color:var(--c6)}.l7{color:var(--c7)}
.rows{border-top:1px solid var(--line)}
details.row{border-bottom:1px solid var(--line);color:var(--fg);content-visibility:auto;contain-intrinsic-size:auto 30px}
details.row>summary{display:grid;grid-template-columns:5.5em 5.5em minmax(60px,9em) 8.5em 1fr;gap:8px;
padding:4px 6px;cursor:pointer;list-style:none;align-items:baseline}
details.row>summary::-webkit-details-marker{display:none}
details.row>summary:hover,details.row:target>summary{background:var(--soft)}
details.row[open]>summary{background:var(--soft);font-weight:600}
details.row>*:not(summary){margin-left:12px;margin-right:6px}
.seq,.time,.type{color:var(--muted);font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.lane{font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.row.l0 .lane{color:var(--c0)}.row.l1 .lane{color:var(--c1)}.row.l2 .lane{color:var(--c2)}.row.l3 .lane{color:var(--c3)}
.row.l4 .lane{color:var(--c4)}.row.l5 .lane{color:var(--c5)}.row.l6 .lane{color:var(--c6)}.row.l7 .lane{color:var(--c7)}
.sum{overflow-wrap:anywhere}
.row.err .sum,.status.bad{color:var(--bad)}.row.lost .sum,.row.lost .seq{color:var(--warn)}.status.ok{color:var(--ok)}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:4px 0;font-size:13px}
.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}
.scroll{overflow-x:auto}
table.diff{border-collapse:collapse;width:100%}
.diff td{padding:0 6px;white-space:pre-wrap;vertical-align:top}
.diff td:nth-child(-n+3){color:var(--muted);text-align:right;white-space:nowrap;width:1%}
.diff tr.add{background:var(--add)}.diff tr.del{background:var(--del)}
.diff tr.hunk td{color:var(--muted);background:var(--soft);text-align:left}
.diffhead .add{color:var(--ok)}.diffhead .del{color:var(--bad)}
ul.todos{padding-left:18px}
footer{max-width:1400px;margin:24px auto;padding:0 16px 24px;color:var(--muted);font-size:12px}
@media (max-width:700px){
details.row>summary{grid-template-columns:auto auto 1fr;grid-template-areas:"seq time lane" "sum sum sum"}
details.row>summary .seq{grid-area:seq}details.row>summary .time{grid-area:time}
details.row>summary .lane{grid-area:lane}details.row>summary .type{display:none}
details.row>summary .sum{grid-area:sum}
.track,.axis{grid-template-columns:80px 1fr}}
"""


def csp(style: str = STYLE) -> str:
    """The page's policy: nothing may load or run; the one style element, by its hash."""
    digest = base64.b64encode(hashlib.sha256(style.encode("utf-8")).digest()).decode()
    return f"default-src 'none'; style-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"


def _section(s: _Session, axis_of: AxisOf, open_seq: int | None, several: bool) -> str:
    run = s.run
    tl = run.timeline
    title = f"session {tl.session_id}" if tl.session_id else (run.name or "transcript")
    files = sorted({r.file for r in run.relays if r.file})
    counts = (f"{len(run.relays):,} relays · {len(tl.tracks)} lane(s)"
              + (f" · {len(files)} file(s)" if files else "")
              + f" · {sum(1 for r in run.relays if is_bookkeeping(r)):,} bookkeeping")
    figures = S.render_figures(S.figures(tl, run.relays, run.stamps)) if tl.tracks else ""
    lost = lost_after(run.relays, s.lost)
    rows = "".join(_lost_row(s, m) for m in lost.get(-1, []))
    for a, b in groups(run.relays):
        rows += _row(s, a, b, open_seq) + "".join(_lost_row(s, m) for n in range(a, b + 1) for m in lost.get(n, []))
    return (f'<section class="run" id="s{s.k}" data-relays="{len(run.relays)}">'
            f'<h2>{esc(title)}</h2><p class="muted">{esc(counts)}</p>'
            + (f"<details><summary>files</summary><pre>{esc(chr(10).join(files))}</pre></details>" if files and several
               else "")
            + (f'<details class="figs"><summary>where the time went</summary><pre class="figures">{esc(figures)}</pre>'
               "</details>" if figures else "")
            + _lanes(s, axis_of(run))
            + f'<div class="rows" data-testid="rows">\n{rows}</div></section>\n')


def render(source: bytes | Mapping[str, bytes], *, strategy: str | None = None, fmt: str = AUTO,
           name: str | None = None, view: Mapping[str, str] | None = None, redacted: str | None = None,
           axis: AxisOf = folded, detail_chars: int | None = None) -> str:
    """The snapshot of ``source`` (one transcript's bytes, or ``{relative path: bytes}`` as
    ``sharefile`` holds them), translated under ``strategy`` (else the view's), as one HTML
    document. ``name`` titles it; ``view`` may open a row (``row``, a relay's seq);
    ``redacted`` says what was replaced (the caller redacts ``source``; this only reports it).
    ``detail_chars`` bounds each row's content (0: the rows' summaries only); None: DETAIL_CHARS
    for an input up to FULL_UP_TO bytes, else 0, so that the page of a large input still opens
    in seconds (docs/share-format.md has sizes and opening times)."""
    view = view or {}
    strategy = strategy or (view["strategy"] if view.get("strategy") in STRATEGIES else "lineage")
    row = view.get("row", "")
    open_seq = int(row) if row.isdigit() else None
    found = runs(source, strategy, fmt)
    split: dict[str | None, list[bytes]] = (
        {None: split_lines(bytes(source))} if isinstance(source, bytes | bytearray)
        else {k: split_lines(v) for k, v in source.items()})
    size = sum(len(line) + 1 for lines in split.values() for line in lines)
    auto = detail_chars is None
    limit = (DETAIL_CHARS if size <= FULL_UP_TO else 0) if detail_chars is None else detail_chars
    sessions = [_Session(run, split, k, limit, strategy) for k, run in enumerate(found, 1)]
    relays = sum(len(r.relays) for r in found)
    book = sum(1 for r in found for x in r.relays if is_bookkeeping(x))
    title = name or (found[0].name if found and found[0].name else "transcript")
    facts = (f"{relays:,} relays in {len(found)} session(s) · strategy {strategy}"
             + (f" · redacted: {redacted}" if redacted else "") + f" · made by relayscope {__version__}")
    left_out = ("" if limit else
                f'<p class="note">The rows\' content is left out{f" (the input is {size / 1e6:.0f} MB)" if auto else ""}: '
                "each row has its summary and where it came from; the transcript, or its shareable file, "
                "has the rest (relayscope html --detail-chars N keeps N characters of each).</p>")
    toc = ("<nav><ol>" + "".join(f'<li><a href="#s{s.k}">{esc(s.run.name or "transcript")}</a> '
                                 f'<span class="muted">{len(s.run.relays):,} relays</span></li>' for s in sessions)
           + "</ol></nav>") if len(sessions) > 1 else ""
    body = "".join(_section(s, axis, open_seq if k == 0 else None, len(sessions) > 1) for k, s in enumerate(sessions))
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{csp()}">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer">'
        f"<title>{esc(title)} · Relayscope snapshot</title><style>{STYLE}</style></head>\n<body>"
        '<input type="checkbox" id="book">'
        f'<header><h1>{esc(title)}</h1><p class="muted">Relayscope snapshot · {esc(facts)}. '
        "This page runs no script and loads nothing: open a row to read it whole; a bar in the "
        "swimlanes leads to its row.</p>" + left_out + toc
        + f'<label class="toggle" for="book">show {book:,} bookkeeping record(s)</label></header>\n'
        f"<main>{body}</main>"
        f"<footer>Made by relayscope {__version__} (relayscope html). The rows are the relays of the "
        "translation; the raw input lines are not in this page: the transcript or its shareable "
        "file has them.</footer></body></html>\n"
    )
