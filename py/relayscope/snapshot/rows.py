"""snapshot.rows: each relay's row of the snapshot, its summary and its detail, in HTML.

A run of partial deltas of one block is one row (:func:`groups`); each row is a ``<details>``
whose summary line is the relay in words (``describe`` with the call's result, else
``present``) and whose body is its detail: a tool call as a diff, a command with its status, a
search, a todo list or a sub-agent's prompt, then its whole input or result; text as prose and
code blocks; any other relay as JSON. Lost blocks get rows of their own where ``spans`` puts
their marks (:func:`lost_after`). ``_Session`` holds one run's lookups for the rows and lanes.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from .. import describe as D
from .. import relay as R
from .. import spans as S
from ..describe.details import tool_call
from ..export import Run
from ..lanes import MAIN
from ..meaning import BOOKKEEPING
from ..present import summary
from ..words import first_model, lane_name, session_of
from .axis import _clock
from .escape import _clip, esc

SUMMARY_CHARS: Final = D.WIDTH  # of a row's one line, as on the page (its detail has the rest)
LANE_COLORS: Final = 8
TEXT_TYPES: Final = (R.TextDelta, R.ThinkingDelta, R.UserMessage, R.SubAgentResponse)
SIGN: Final = {"context": " ", "del": "-", "add": "+"}
TODO_MARK: Final = {"completed": "☑", "in_progress": "◐", "pending": "☐"}
_any: Final = msgspec.json.Decoder()


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
    detail = tool_call(use, result, raw)
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
