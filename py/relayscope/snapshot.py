"""snapshot: a run as one self-contained HTML page anyone can read, offline, in any browser.

What the page's timeline shows, without the app. Per session (``export.runs``: the CLI's and the
page's translation of the same bytes): the figures (where the time went, ``spans.figures``), the
swimlanes as inline SVG (one track per lane, main first, each sub-agent under its parent: the
agent span, tool calls in rows, errors and lost blocks as ticks; a span links to its row), and
the rows: one per relay (a run of partial deltas of one block as one row, as the page groups
them), its summary in words (``describe`` with the call's result, else ``present``), and its
detail in a ``<details>``: a tool call as a diff, a command with its status, a search, a todo
list or a sub-agent's prompt, then its whole input or result; text as prose and code blocks;
any other relay as JSON. The row of the view's ``row`` is open.

The page runs no script and asks for nothing: its CSP (a meta tag: ``default-src 'none'``, the
one style element allowed by its hash) makes the browser enforce that. Bookkeeping records are
in the page, hidden until a checkbox shows them (CSS only). Light and dark follow
``prefers-color-scheme``.

Transcript text is data: every string goes through :func:`esc` (``html.escape``, control
characters as their visible pictures, ␛ for ESC, lone surrogates as U+FFFD) and nothing from a
transcript becomes markup or an unescaped attribute.

The swimlanes' time axis is an :class:`Axis`: by default :func:`folded`, the page's folded axis
(``folds``: idle gaps over 5 minutes drawn narrow, as shaded bands whose titles, and a line
under the lanes, give their true times); :func:`linear` is true time; any other plugs in through
``axis=``.

Pure: no I/O and no clock: the same input gives the same bytes, in the CLI and the page's worker.
Must not: emit script, event handler attributes or any URL outside the page; import the web layer.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Protocol

import msgspec

from . import __version__
from . import describe as D
from . import relay as R
from . import spans as S
from .analysis import AUTO
from .export import Run, runs
from .folds import Fold, of_run
from .lanes import MAIN
from .meaning import BOOKKEEPING
from .present import summary
from .translator import STRATEGIES
from .wire import split_lines
from .words import first_model, lane_name, session_of

DETAIL_CHARS: Final = 20_000  # of one row's content, by default; past it, a note saying how much more
# Rows keep their content for inputs up to this size; past it, summaries only (unless asked), so
# the page stays small enough to mail and quick to open: 10 MB of sessions make a 13 MB page that
# Chromium opens in about 2 s; 50 MB make 64-95 MB with content (14-19 s to open) and 12-18 MB
# without (4-8 s). Measured by bench/share_bench.py --open.
FULL_UP_TO: Final = 10_000_000
SUMMARY_CHARS: Final = D.WIDTH  # of a row's one line, as on the page (its detail has the rest)
TRACK_ROWS: Final = 6  # tool-call rows drawn per track; calls past them share the last
LANE_COLORS: Final = 8
WIDTH: Final = 1000  # the SVG's user units across; it is drawn at the page's width
TEXT_TYPES: Final = (R.TextDelta, R.ThinkingDelta, R.UserMessage, R.SubAgentResponse)
SIGN: Final = {"context": " ", "del": "-", "add": "+"}
TODO_MARK: Final = {"completed": "☑", "in_progress": "◐", "pending": "☐"}
_any: Final = msgspec.json.Decoder()
# C0 controls (but tab and newline) and DEL as their visible pictures (␛ for ESC), C1 controls and
# lone surrogates (valid JSON, no UTF-8) as U+FFFD: a transcript never puts a raw control
# character on the reader's screen. Looked for first: most strings have none.
_CONTROL: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _picture(m: re.Match[str]) -> str:
    c = ord(m.group())
    return chr(0x2400 + c) if c < 32 else "\u2421" if c == 0x7F else "\ufffd"


def esc(text: str) -> str:
    """Transcript text as HTML text: escaped, control characters made visible."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if _CONTROL.search(text):
        text = _CONTROL.sub(_picture, text)
    return html.escape(text, quote=True)


def _clip(text: str, limit: int = DETAIL_CHARS) -> str:
    if len(text) <= limit:
        return esc(text)
    return (esc(text[:limit]) + f"\n… {len(text) - limit:,} more characters not shown here "
            "(the transcript, or its shareable file, has them all)")


# -- the time axis ----------------------------------------------------------------------------


class Axis(Protocol):
    """Where a time falls across the swimlanes (0 to 1), the labels under them, and the breaks
    (from, to, in 0 to 1, and what each stands for)."""

    def x(self, t: float) -> float: ...

    def labels(self) -> list[tuple[float, str]]: ...

    def breaks(self) -> list[tuple[float, float, str]]: ...


@dataclass(frozen=True, slots=True)
class Linear:
    start: float
    end: float
    axis: str

    def x(self, t: float) -> float:
        return (t - self.start) / (self.end - self.start) if self.end > self.start else 0.0

    def labels(self) -> list[tuple[float, str]]:
        if self.axis != S.TIME:
            unit = "line" if self.axis == S.LINE else "relay"
            return [(0.0, f"{unit} {self.start:g}"), (1.0, f"{unit} {self.end:g}")]
        return [(0.0, _clock(self.start)), (1.0, _clock(self.end))]

    def breaks(self) -> list[tuple[float, float, str]]:
        return []


@dataclass(frozen=True, slots=True)
class Folded:
    fold: Fold

    def x(self, t: float) -> float:
        end = self.fold.axis_end
        return self.fold.to_axis(t) / end if end > 0 else 0.0

    def labels(self) -> list[tuple[float, str]]:
        return [(0.0, _clock(self.fold.start)), (1.0, _clock(self.fold.end))]

    def breaks(self) -> list[tuple[float, float, str]]:
        end = self.fold.axis_end
        return [(b.at / end, (b.at + b.width) / end, f"{b.label}: {_clock(b.start)} to {_clock(b.end)} UTC")
                for b in self.fold.breaks] if end > 0 else []


def linear(run: Run) -> Axis:
    """True time (or line order) from the run's first span to its last."""
    tl = run.timeline
    return Linear(tl.start, tl.end, tl.axis)


def folded(run: Run) -> Axis:
    """The page's folded axis (``folds.of_run``) on wall-clock time; else :func:`linear`."""
    if run.timeline.axis != S.TIME:
        return linear(run)
    return Folded(of_run(run.timeline, run.relays, run.stamps))


AxisOf = Callable[[Run], Axis]


def _clock(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%H:%M:%S")


# -- rows -------------------------------------------------------------------------------------


def groups(relays: Sequence[R.Relay]) -> list[tuple[int, int]]:
    """The rows: (first, last) index of each, a run of partial deltas of one block as one."""
    out: list[tuple[int, int]] = []
    slot: tuple[Any, ...] | None = None
    for k, r in enumerate(relays):
        here = (type(r), r.lane, r.message_id, r.block_index) if isinstance(r, R.TextDelta | R.ThinkingDelta) else None
        if here is not None and here == slot and getattr(r, "partial", False):
            out[-1] = (out[-1][0], k)
            continue
        slot = here
        out.append((k, k))
    return out


def is_bookkeeping(r: R.Relay) -> bool:
    return (isinstance(r, R.Passthrough) and r.event_type in BOOKKEEPING) or (
        isinstance(r, R.System) and r.subtype in BOOKKEEPING)


def pretty(raw: msgspec.Raw | bytes) -> str:
    try:
        return json.dumps(_any.decode(raw), indent=2, ensure_ascii=False) if raw else "{}"
    except (msgspec.DecodeError, RecursionError, ValueError):
        return bytes(raw).decode("utf-8", "replace")


def content(r: R.Relay) -> str:
    """A relay's whole content as plain text (what an opened row shows under its detail)."""
    if isinstance(r, R.TextDelta | R.ThinkingDelta | R.UserMessage):
        return r.text
    if isinstance(r, R.SubAgentResponse):
        return r.content or ""
    if isinstance(r, R.ToolUse):
        return f"{r.name} ({r.id})\n{pretty(r.input)}"
    if isinstance(r, R.ToolResult):
        extra = f"; attachments: {', '.join(r.attachments)}" if r.attachments else ""
        return f"{'error result' if r.is_error else 'result'} for {r.tool_use_id}{extra}\n{r.text}"
    return json.dumps(R.to_dict(r), indent=2, ensure_ascii=False)


class _Session:
    """One run's lookups: tool calls and results by id, lane labels and colours, raw lines."""

    def __init__(self, run: Run, lines: Mapping[str | None, Sequence[bytes]], k: int, limit: int,
                 strategy: str) -> None:
        self.run, self.lines, self.k, self.limit, self.strategy = run, lines, k, limit, strategy
        self.uses = {r.id: r for r in run.relays if isinstance(r, R.ToolUse)}
        self.results = {r.tool_use_id: r for r in run.relays if isinstance(r, R.ToolResult)}
        tracks = run.timeline.tracks
        self.label = {t.id: lane_name(t.id, t.label, run.lanes) for t in tracks}
        self.color = {t.id: n % LANE_COLORS for n, t in enumerate(tracks)}
        self.lanes_opened = {t.id for t in tracks if t.id != MAIN}
        self.lost = [m for m in run.timeline.marks if m.kind == "lost"]
        self.lost_id = {id(m): f"s{k}-lost-{n}" for n, m in enumerate(self.lost, 1)}

    def anchor(self, seq: int) -> str:
        return f"s{self.k}-{seq}"

    def lane_anchor(self, lane: str) -> str:
        return esc(f"s{self.k}-lane-{lane}")

    def lane(self, lane: str) -> tuple[str, int]:
        return self.label.get(lane, lane), self.color.setdefault(lane, len(self.color) % LANE_COLORS)

    def raw(self, r: R.Relay) -> bytes | None:
        lines = self.lines.get(r.file if r.file in self.lines else None)
        return lines[r.line - 1] if lines and 0 < r.line <= len(lines) else None

    def pair(self, r: R.Relay) -> tuple[R.ToolUse, R.ToolResult | None] | None:
        if isinstance(r, R.ToolUse):
            return r, self.results.get(r.id)
        if isinstance(r, R.ToolResult) and r.tool_use_id in self.uses:
            return self.uses[r.tool_use_id], r
        return None

    def summary(self, r: R.Relay, joined: str | None) -> str:
        if joined is not None:
            return D.clip(joined) or "(empty)"
        pair = self.pair(r)
        if pair is not None:
            use, result = pair
            said = D.result_summary(use, result) if isinstance(r, R.ToolResult) and result is not None \
                else D.summary(use, result)
            if said:
                return said
        if isinstance(r, R.SessionMeta):
            lines = self.lines.get(r.file if r.file in self.lines else None) or ()
            return session_of(r, None if r.model else first_model(self.run.relays[r.seq:], r.lane),
                              lambda n: lines[n - 1] if 0 < n <= len(lines) else None)
        return summary(r)


# -- markup -----------------------------------------------------------------------------------


def _row(s: _Session, first: int, last: int, open_seq: int | None) -> str:
    relays = s.run.relays
    r = relays[first]
    joined = "".join(getattr(x, "text", "") for x in relays[first:last + 1]) if last > first else None
    label, color = s.lane(r.lane)
    stamp = s.run.stamps(r.file, r.line) if s.run.timeline.axis == S.TIME else None
    where = f"{r.file}:{r.line}" if r.file else f"line {r.line}"
    cls = f"row l{color}" + (" bk" if is_bookkeeping(r) else "") + (" err" if isinstance(r, R.Error) else "")
    seqs = f"#{r.seq}" + (f"–{relays[last].seq}" if last > first else "")
    head = (f'<details id="{s.anchor(r.seq)}" class="{cls}" data-seq="{r.seq}" data-last="{relays[last].seq}" '
            f'data-type="{esc(r.type)}" data-lane="{esc(r.lane)}"{" open" if open_seq in range(r.seq, relays[last].seq + 1) else ""}>'
            f'<summary><span class="seq">{seqs}</span><span class="time">{_clock(stamp) if stamp is not None else ""}</span>'
            f'<span class="lane">{esc(label)}</span><span class="type">{esc(r.type)}</span>'
            f'<span class="sum">{esc(D.clip(s.summary(r, joined), SUMMARY_CHARS))}</span></summary>')
    body = [f'<p class="where">{esc(where)} · lane {esc(label)}'
            + (f" · {len(range(first, last + 1))} fragments" if joined is not None else "") + "</p>"]
    if s.limit > 0:
        body.append(_detail(s, r, joined))
    return head + "".join(body) + "</details>\n"


def lost_after(relays: Sequence[R.Relay], lost: Sequence[S.Mark]) -> dict[int, list[S.Mark]]:
    """Where each lost block's row goes: after the relay (its index) that comes last among those
    of its file at or before its line, as ``spans`` places its mark (-1: before every row)."""
    last: dict[tuple[str | None, int], int] = {}
    for n, r in enumerate(relays):
        last[(r.file, r.line)] = n
    by_file: dict[str | None, tuple[list[int], list[int]]] = {}  # lines in order; the latest relay up to each
    for (file, line), n in sorted(last.items(), key=lambda kv: (kv[0][0] or "", kv[0][1])):
        lines, latest = by_file.setdefault(file, ([], []))
        lines.append(line)
        latest.append(max(n, latest[-1]) if latest else n)
    out: dict[int, list[S.Mark]] = {}
    for m in lost:
        lines, latest = by_file.get(m.file) or by_file.get(None) or ([], [])
        k = bisect.bisect_right(lines, m.line) - 1
        out.setdefault(latest[k] if k >= 0 else -1, []).append(m)
    return out


def _lost_row(s: _Session, m: S.Mark) -> str:
    label, color = s.lane(m.lane)
    where = f"{m.file}:{m.line}" if m.file else f"line {m.line}"
    return (f'<details id="{s.lost_id[id(m)]}" class="row lost l{color}" data-type="lost" data-lane="{esc(m.lane)}">'
            f'<summary><span class="seq">lost</span><span class="time"></span><span class="lane">{esc(label)}</span>'
            f'<span class="type">lost block</span><span class="sum">{esc(D.clip(m.text, SUMMARY_CHARS))}</span></summary>'
            f'<p class="where">{esc(where)} · lane {esc(label)}</p><p>This block is in the input and in no relay of '
            f"the {esc(s.strategy)} strategy: the audit counts it as lost.</p></details>\n")


def _detail(s: _Session, r: R.Relay, joined: str | None) -> str:
    if joined is not None or isinstance(r, TEXT_TYPES):
        return _prose(joined if joined is not None else content(r), s.limit)
    pair = s.pair(r)
    if pair is None:
        return f"<pre>{_clip(content(r), s.limit)}</pre>"
    use, result = pair
    out = []
    if isinstance(r, R.ToolUse) and result is not None:
        out.append(f'<p class="pair">result: <a href="#{s.anchor(result.seq)}">#{result.seq}</a></p>')
    elif isinstance(r, R.ToolResult):
        out.append(f'<p class="pair">call: <a href="#{s.anchor(use.seq)}">#{use.seq}</a></p>')
    raw = s.raw(result) if result is not None else None
    detail = D.tool_call(use, result, raw)
    if detail is not None:
        out.append(f'<h4>{esc(use.name)}: {"what it did" if result is not None else "what it asks"}</h4>')
        out.append(_tool(s, detail))
    out.append(f'<h4>{"Input (JSON)" if isinstance(r, R.ToolUse) else "Result, whole"}</h4>'
               f"<pre>{_clip(content(r), s.limit)}</pre>")
    return "".join(out)


def _prose(text: str, limit: int) -> str:
    parts = []
    budget = limit
    for seg in D.prose(text):
        piece = _clip(seg.text, max(budget, 0))
        budget -= len(seg.text)
        parts.append(f"<pre>{piece}</pre>" if seg.kind == "code" else f'<div class="para">{piece}</div>')
        if budget < 0:
            break
    return f'<div class="prose">{"".join(parts)}</div>'


def _tool(s: _Session, d: D.Detail) -> str:
    if isinstance(d, D.FileDiff):
        return _diff(d)
    if isinstance(d, D.Command):
        status = d.status or "no result yet"
        good = status in ("ok", "exit 0")
        return ((f'<p class="note">{esc(d.description)}</p>' if d.description else "")
                + f"<pre>{_clip(d.command)}</pre>"
                + f'<p class="status {"ok" if good else "bad" if d.status else ""}">{esc(status)}</p>'
                + _facts(d.facts, None) + _outputs(d.outputs))
    if isinstance(d, D.Facts):
        return _facts(d.fields, d.count) + _outputs(d.outputs)
    if isinstance(d, D.Todos):
        items = "".join(f'<li>{TODO_MARK.get(t.status, "·")} {esc(t.content)} <span class="muted">'
                        f'{esc(t.status.replace("_", " "))}</span></li>' for t in d.items)
        return f'<ul class="todos">{items}</ul>'
    fields = (("type", d.agent_type or "(none given)"), ("description", d.description or "(none)"), *d.facts)
    out = _facts(tuple(fields), None)
    if d.status is not None:
        out += f'<p class="status {"bad" if d.status == "error" else "ok"}">{esc(d.status)}</p>'
    if d.lane in s.lanes_opened:
        out += f'<p>lane: <a href="#{s.lane_anchor(d.lane)}">{esc(s.lane(d.lane)[0])}</a></p>'
    if d.prompt:
        more = f" (the first {len(d.prompt) - 1} of {d.prompt_chars} characters)" if d.prompt_chars > len(d.prompt) else ""
        out += f'<h4>prompt{more}</h4><div class="para">{esc(d.prompt)}</div>'
    return out


def _diff(d: D.FileDiff) -> str:
    notes = list(d.notes)
    if d.numbering == "snippet":
        notes.append("line numbers count from the edited text's first line")
    rows = []
    for hunk in d.hunks:
        rows.append(f'<tr class="hunk"><td colspan="4">{esc(hunk.header)}</td></tr>')
        rows += [f'<tr class="{line.kind}"><td>{"" if line.old is None else line.old}</td>'
                 f'<td>{"" if line.new is None else line.new}</td><td>{SIGN.get(line.kind, " ")}</td>'
                 f"<td>{esc(line.text)}</td></tr>" for line in hunk.lines]
    return (f'<p class="diffhead"><b>{esc(d.path)}</b> <span class="del">−{d.removed}</span> '
            f'<span class="add">+{d.added}</span></p>'
            + "".join(f'<p class="note">{esc(n)}</p>' for n in notes)
            + f'<div class="scroll"><table class="diff">{"".join(rows)}</table></div>')


def _facts(fields: tuple[tuple[str, str], ...], count: str | None) -> str:
    out = ""
    if fields:
        out += '<dl class="facts">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in fields) + "</dl>"
    if count is not None:
        out += f'<p class="status">→ {esc(count)}</p>'
    return out


def _outputs(outputs: tuple[D.Output, ...]) -> str:
    out = ""
    for o in outputs:
        more = o.lines - len(o.head)
        out += (f"<h4>{esc(o.label)}{f' (first {len(o.head)} of {o.lines} lines)' if more > 0 else ''}</h4>"
                f"<pre>{_clip(chr(10).join(o.head))}</pre>")
    return out


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
