"""panels: the page's panels drawn from the view model: lanes, the step-through, the audit,
the examples gallery, the list of unreadable lines.

Each function empties its container and fills it again from model views (plain text only);
buttons carry ``data-action`` and ``data-target`` and are handled by one delegated listener
per panel (actions.py), so no proxy is made per element.
Must not: hold state, or decide what happens on a click (the controllers do).
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import fates as F
from .. import present
from .. import trace as T
from .. import usage as prices
from . import rowinfo
from .dom import Element, clear, fmt_int, h
from .model import AuditView, ErrorView, Example, LaneView, RowView, StepView, Workspace
from .newest import LanesFacts, MissingAgent, placed

DECISIONS = T.DECISION_LABELS
RESETS = T.RESET_LABELS
MAX_ERRORS_LISTED = 200


def button(text: str, action: str, target: object = "", *, cls: str = "link",
           testid: str | None = None, title: str | None = None) -> Element:
    return h("button", text, cls=cls, attrs={
        "type": "button", "data-action": action, "data-target": target,
        "data-testid": testid, "title": title,
    })


# -- examples ---------------------------------------------------------------------------------

def examples(container: Element, items: Sequence[Example]) -> None:
    """The gallery: one Tab stop, arrows move between the cards (``Keyboard.rove``)."""
    clear(container)
    for k, ex in enumerate(items):
        first, _, second = ex.blurb.partition("\n")
        card = h("button", cls="example", attrs={
            "type": "button", "data-action": "example", "data-target": ex.id,
            "data-testid": "example", "data-example": ex.id, "tabindex": "0" if k == 0 else "-1",
        })
        card.append(h("strong", ex.title))
        card.append(h("span", first, cls="blurb"))
        if second:
            card.append(h("span", second, cls="blurb"))
        container.append(h("li", children=[card]))


# -- lanes ------------------------------------------------------------------------------------

def lanes(container: Element, views: list[LaneView], colors: dict[str, int], active: str,
          facts: LanesFacts | None = None) -> None:
    """The lane cards (main first), what the CLI counted against them, and a card for each
    sub-agent whose transcript the input lacks, under the lane that started it."""
    clear(container)
    facts = facts or LanesFacts()
    if facts.words:
        said = h("li", cls="lane-check", attrs={"data-testid": "subagent-check"})
        for sentence in facts.words:
            said.append(h("p", sentence[:1].upper() + sentence[1:] + "."))
        container.append(said)
    by_id = {lane.id: lane for lane in views}
    for item in placed([(v.id, v.depth, v.spawn_seq) for v in views], facts.missing):
        if isinstance(item, MissingAgent):
            container.append(missing_card(item))
            continue
        lane = by_id[item]
        card = h("li", cls=f"lane lane-c{colors.get(lane.id, 0)}" + (" active" if lane.id == active else ""),
                 attrs={"data-testid": "lane", "data-lane": lane.id, "data-depth": lane.depth})
        card.style.setProperty("--depth", str(min(lane.depth, 6)))  # CSSOM: the page's CSP bars style attributes
        head = h("div", cls="lane-head")
        head.append(h("span", cls="swatch", attrs={"aria-hidden": "true"}))
        head.append(h("strong", lane.label, cls="lane-label", attrs={"data-testid": "lane-label"}))
        card.append(head)
        tags = h("p", cls="tags")
        tags.append(h("span", "main agent" if lane.depth == 0 else f"depth {lane.depth}", cls="badge"))
        if lane.agent_type:
            tags.append(h("span", lane.agent_type, cls="badge", attrs={"data-testid": "lane-agent-type"}))
        if lane.state:  # running / completed / failed, "running, 30 s" after a heartbeat (subagents)
            tags.append(h("span", lane.status or lane.state, cls=f"badge lane-state {lane.state}",
                          attrs={"data-testid": "lane-state", "data-state": lane.state}))
        if lane.inferred:
            tags.append(h("span", "inferred", cls="badge", attrs={
                "title": "no parent_tool_use_id: told apart by its first-block fingerprint"}))
        card.append(tags)
        if lane.description and lane.description not in lane.label:
            card.append(h("p", lane.description, cls="lane-desc"))
        stats = f"{fmt_int(lane.relay_count)} relays"
        card.append(h("p", stats, cls="lane-stats", attrs={"data-testid": "lane-relays"}))
        tokens = lane.input_tokens + lane.output_tokens + lane.cache_read_tokens + lane.cache_creation_tokens
        if tokens:
            usage = (f"tokens: {fmt_int(lane.input_tokens)} in · {fmt_int(lane.output_tokens)} out"
                     f" · {fmt_int(lane.cache_read_tokens)} cache read"
                     f" · {fmt_int(lane.cache_creation_tokens)} cache write")
            card.append(h("p", usage, cls="lane-stats", attrs={"data-testid": "lane-tokens"}))
        if lane.model:
            card.append(h("p", lane.model, cls="lane-stats lane-model", attrs={"data-testid": "lane-model"}))
        if lane.wall_s is not None:
            card.append(h("p", f"wall time {rowinfo.duration(lane.wall_s)}", cls="lane-stats",
                          attrs={"data-testid": "lane-wall"}))
        if lane.id == "main" and facts.timing:  # what the results report: request sent, first token, ...
            card.append(h("p", f"timing: {facts.timing}", cls="lane-stats", attrs={"data-testid": "lane-timing"}))
        if lane.cost_usd is not None:
            card.append(h("p", f"cost: ${lane.cost_usd:.4f}", cls="lane-stats", attrs={
                "data-testid": "lane-cost", "data-estimated": "false"}))
        elif lane.est_cost_usd is not None:
            card.append(h("p", f"cost: ≈ ${lane.est_cost_usd:.4f} (estimated)", cls="lane-stats estimated", attrs={
                "data-testid": "lane-cost", "data-estimated": "true",
                "title": f"from the token counts at list prices of {prices.PRICES_DATE} ({prices.PRICES_SOURCE}); "
                         "the input gives no cost for this lane"}))
        if lane.unpriced and lane.cost_usd is None:  # never a borrowed price
            models = ", ".join(lane.unpriced)
            card.append(h("p", f"the estimate leaves out {models}: no known price" if lane.est_cost_usd is not None
                          else f"cost: unknown (no known price for {models})",
                          cls="lane-stats estimated", attrs={"data-testid": "lane-unpriced"}))
        if lane.file:
            card.append(h("p", f"file: {lane.file}", cls="lane-stats lane-file", attrs={"title": lane.file}))
        if lane.id != "main":
            card.append(h("p", lane.id, cls="lane-id muted", attrs={"title": "lane id"}))
        links = h("p", cls="lane-links")
        if lane.spawn_seq is not None:
            links.append(button(f"spawned by #{lane.spawn_seq}", "goto", lane.spawn_seq, testid="lane-spawn"))
        if lane.end_seq is not None:
            links.append(button(f"ends #{lane.end_seq}", "goto", lane.end_seq, testid="lane-end"))
        if lane.result_seq is not None:
            links.append(button(f"result #{lane.result_seq}", "goto", lane.result_seq, testid="lane-result"))
        only = "show all lanes" if lane.id == active else "only this lane"
        links.append(button(only, "lane-only", lane.id, testid="lane-only"))
        card.append(links)
        container.append(card)
    run_total(container, views)


def missing_card(m: MissingAgent) -> Element:
    """A sub-agent a call started whose transcript is not in the input: the file to look for."""
    card = h("li", cls="lane lane-missing", attrs={"data-testid": "missing-agent", "data-lane": m.lane,
                                                   "data-file": m.file, "data-depth": m.depth})
    card.style.setProperty("--depth", str(min(m.depth, 6)))
    head = h("div", cls="lane-head")
    head.append(h("span", cls="swatch", attrs={"aria-hidden": "true"}))
    head.append(h("strong", m.label, cls="lane-label"))
    card.append(head)
    tags = h("p", cls="tags")
    tags.append(h("span", f"depth {m.depth}", cls="badge"))
    tags.append(h("span", "transcript not in the input", cls="badge lane-state missing"))
    card.append(tags)
    card.append(h("p", f"look for {m.file}", cls="lane-stats lane-look-for", attrs={"title": m.file}))
    links = h("p", cls="lane-links")
    if m.spawn_seq is not None:
        links.append(button(f"spawned by #{m.spawn_seq}", "goto", m.spawn_seq, testid="lane-spawn"))
    if m.result_seq is not None:
        links.append(button(f"result #{m.result_seq}", "goto", m.result_seq, testid="lane-result"))
    card.append(links)
    return card


def run_total(container: Element, views: list[LaneView]) -> None:
    """The whole run's tokens under the lane cards, when several lanes used some: the sum of the
    cards (each counted once per API message by usage.Tally), with the estimate's gaps."""
    used = [v for v in views if v.input_tokens + v.output_tokens + v.cache_read_tokens + v.cache_creation_tokens]
    main = views[0] if views else None
    reported, note = (main.reported, main.usage_note) if main is not None else (None, None)
    if len(used) < 2 and note is None:
        return
    def total(name: str) -> int:
        return sum(int(getattr(v, name)) for v in used)
    text = (f"whole run: {fmt_int(total('input_tokens'))} in · {fmt_int(total('output_tokens'))} out · "
            f"{fmt_int(total('cache_read_tokens'))} cache read · {fmt_int(total('cache_creation_tokens'))} cache write")
    given = [v.cost_usd for v in views if v.cost_usd is not None]  # a result's total_cost_usd: the run's
    if given:
        text += f" · cost: ${sum(given):.4f} (the input's own)"
    else:
        estimates = [v.est_cost_usd for v in used if v.est_cost_usd is not None]
        unpriced = sorted({m for v in used for m in v.unpriced})
        if estimates:
            text += f" · cost: ≈ ${sum(estimates):.4f} (estimated)"
        if unpriced:
            text += f" · no known price for {', '.join(unpriced)}"
    item = h("li", text, cls="lane-total lane-stats", attrs={"data-testid": "run-tokens"})
    if reported is not None and note is not None:
        item.append(h("p", f"the results report: {fmt_int(reported.input_tokens)} in · {fmt_int(reported.output_tokens)}"
                      f" out · {fmt_int(reported.cache_read_input_tokens)} cache read · "
                      f"{fmt_int(reported.cache_creation_input_tokens)} cache write", attrs={"data-testid": "run-reported"}))
        item.append(h("p", "the lanes' counts are lower bounds: this stream writes each message with its first "
                      "output count; the results' totals are right", cls="muted", attrs={"data-testid": "run-note",
                                                                                         "title": note}))
    container.append(item)


# -- the row tab -----------------------------------------------------------------------------

def row_facts(container: Element, empty: Element, ws: Workspace, r: RowView | None, labels: dict[str, str]) -> None:
    """The selected row in the detail panel: what it is, whose, when, from which input line, the
    links to its pair, its step and its place in the rows; its raw input line."""
    clear(container)
    empty.hidden = r is not None
    if r is None:
        return
    container.append(h("p", ws.shown(r), cls="row-panel-summary"))
    facts = h("dl", cls="facts")

    def fact(name: str, value: str) -> None:
        facts.append(h("dt", name))
        facts.append(h("dd", value, attrs={"data-fact": name}))

    fact("event", f"#{r.seq} · {r.type}")
    fact("lane", labels.get(r.lane, r.lane))
    if r.time is not None:
        fact("time", r.time)
    fact("input", f"line {r.line}" + (f" of {r.file}" if r.file else ""))
    if r.fp:
        fact("fingerprint", r.fp)
    usage = ws.usage_of(r.seq)
    if usage is not None:
        fact("tokens", present.summary(usage))
    container.append(facts)
    links = h("p", cls="lane-links")
    links.append(button("show in the rows, opened", "goto", r.seq))
    if r.pair is not None:
        links.append(button(f"{'its result' if r.type == 'tool_use' else 'its call'} #{r.pair}", "goto", r.pair))
    links.append(button("its step", "step-of", r.seq))
    container.append(links)
    container.append(h("pre", r.raw, cls="raw-line", attrs={"tabindex": "0", "aria-label": "raw input line"}))


# -- step-through -----------------------------------------------------------------------------

def _fp_line(label: str, fp: str | None, mark: tuple[int, str] | None) -> Element:
    row = h("div", cls="fp-row")
    row.append(h("span", label, cls="fp-label"))
    if mark is not None:
        row.append(h("span", mark[1], cls=f"fp fp-{mark[0]}" + (" numbered" if mark[1] != "●" else ""),
                     attrs={"data-testid": "fp-badge"}))
    else:
        row.append(h("span", "●" if fp else "–", cls="fp none"))
    row.append(h("code", fp if fp else "(none)"))
    return row


def step(els: dict[str, Element], s: StepView, count: int, lane_label: str) -> None:
    els["step-position"].textContent = f"{s.index + 1} / {count}"
    els["step-position"].title = f"input line {s.line}" + (f" of {s.file}" if s.file else "")
    els["step-position"].dataset.step = str(s.index)
    els["step-position"].dataset.line = str(s.line)
    slider = els["step-slider"]
    slider.max = str(max(0, count - 1))
    slider.value = str(s.index)

    facts = els["step-facts"]
    clear(facts)

    def fact(name: str, value: str, cls: str = "") -> None:
        facts.append(h("dt", name))
        facts.append(h("dd", value, cls=cls or None, attrs={"data-fact": name}))

    fact("line", f"{s.line}" + (f" of {s.file}" if s.file else ""))
    fact("kind", s.kind)
    if s.lane is not None:
        fact("lane", lane_label)
    verdict, verdict_cls = _verdict(s)
    fact("decision", verdict, verdict_cls)
    lost = [f.words for f in s.fates if f.fate == "lost"]
    if lost:
        fact("lost", "; ".join(lost), "d-lost")
    if s.reason:
        fact("reason", s.reason)
    if s.reset:
        fact("reset", T.reset_words(s.reset, s.kind), "mark")
    if s.note:
        fact("note", s.note)

    compare = els["fp-compare"]
    clear(compare)
    if s.fp is None and s.prev_fp is None:
        compare.append(h("p", "No first-block fingerprint: not an assistant event.", cls="muted"))
    else:
        compare.append(_fp_line("previous", s.prev_fp, s.prev_fp_mark))
        compare.append(_fp_line("this event", s.fp, s.fp_mark))
        if s.fp_changed and T.FP_SAME_MESSAGE in s.reason:
            verdict = ("changed, though the message did not (same message.id): 'fingerprint' resets the "
                       "index here all the same, 'index' does not, 'lineage' looks the block up in its message")
        elif s.fp_changed:
            verdict = "changed: a new context ('fingerprint' resets the index here, 'index' does not)"
        elif s.prev_fp is None:
            verdict = "first fingerprint seen"
        else:
            verdict = "same context"
        compare.append(h("p", verdict, cls="fp-verdict" + (" changed" if s.fp_changed else ""),
                         attrs={"data-testid": "fp-verdict"}))

    index = els["dedup-index"]
    index.dataset.before = "" if s.pointer_before is None else str(s.pointer_before)
    index.dataset.after = "" if s.pointer_after is None else str(s.pointer_after)
    if s.pointer_before is not None or s.pointer_after is not None:
        index.textContent = f"index {_num(s.pointer_before)} → {_num(s.pointer_after)}"
    elif isinstance(s.before, list) or isinstance(s.after, list):
        before = len(s.before or [])
        after = len(s.after or [])
        index.textContent = f"known blocks of this message: {before} → {after}"
    else:
        index.textContent = "no de-dup state on this line"

    _content(els["content-array"], s)

    emitted = els["step-emitted"]
    clear(emitted)
    if s.seqs:
        emitted.append(h("span", f"emitted {len(s.seqs)} relay{'s' if len(s.seqs) != 1 else ''}: "))
        for seq in s.seqs[:50]:
            emitted.append(button(f"#{seq}", "goto", seq))
        if len(s.seqs) > 50:
            emitted.append(h("span", f" … and {len(s.seqs) - 50} more"))
    else:
        emitted.append(h("span", "emitted nothing", cls="muted"))
    els["step-raw"].textContent = s.raw


def _num(value: int | None) -> str:
    return "–" if value is None else str(value)


def _content(container: Element, s: StepView) -> None:
    """The event's content array with the de-dup index before and after the line. A reset
    (context switch, shrink) sends the index to 0 before the blocks are read, so "below the
    index" is measured from where the index was when the blocks were looked at."""
    clear(container)
    actions = {b[0]: (b[2], b[3]) for b in s.blocks}
    fates = {f.index: f for f in s.fates}
    known_before = set(s.before) if isinstance(s.before, list) else set()
    pb, pa = s.pointer_before, s.pointer_after
    reset_to_zero = pb is not None and s.reset in ("context_switch", "shrink")
    looked_at = 0 if reset_to_zero else pb
    n = len(s.content)
    last = max(n - 1, pb if pb is not None else -1, pa if pa is not None else -1)
    if n == 0 and pb is None and pa is None:
        container.append(h("li", "(no content array)", cls="muted"))
        return
    pointed = {pb, pa}
    i = -1
    while i < last:
        i += 1
        if i >= n and i not in pointed:  # past the array's end: a run of such places is one item
            run = next((j for j in range(i, last + 1) if j in pointed), last + 1) - i
            if run > 1:
                container.append(h("li", f"(end of the array) × {run}", cls="block end muted", attrs={
                    "data-index": i, "data-count": run, "value": i,
                    "title": f"places {i} to {i + run - 1}: past the end of this event's content array"}))
                i += run - 1
                continue
        item = h("li", cls="block", attrs={"data-index": i, "value": i})
        if i < n:
            key = s.content[i]
            item.append(h("code", key, cls="key"))
            action, reason = actions.get(i, ("", ""))
            if action:
                item.append(h("span", action, cls=f"badge a-{action}", attrs={"title": reason or action}))
            fate = fates.get(i)
            if fate is not None:
                item.append(_fate(fate))
                item.classList.add(f"fate-{fate.fate}")
            if action == "dup" or (not action and looked_at is not None and i < looked_at):
                item.classList.add("below")
            if key in known_before:
                item.classList.add("known")
        else:
            item.append(h("span", "(end of the array)", cls="muted"))
            item.classList.add("end")
        if i == pb:
            item.append(h("span", "◀ index before", cls="pointer before", attrs={"data-testid": "pointer-before"}))
        if reset_to_zero and i == 0:
            item.append(h("span", "◀ reset to 0", cls="pointer reset"))
        if i == pa:
            item.append(h("span", "◀ index after", cls="pointer after", attrs={"data-testid": "pointer-after"}))
        container.append(item)


# -- audit ------------------------------------------------------------------------------------

def audit(els: dict[str, Element], views: list[AuditView] | None, current: str, fmt: str | None) -> None:
    body, notes = els["audit-body"], els["audit-notes"]
    clear(body)
    clear(notes)
    els["audit-table"].hidden = not views
    els["run-audit"].hidden = views is not None
    if views is None:
        return
    if not views:
        notes.append(h("li", "An Arbiter SSE stream carries no repeated content: there is nothing to compare."
                       if fmt == "sse" else "Nothing to audit.", cls="muted"))
        return
    for a in views:
        tr = h("tr", cls="current" if a.strategy == current else None, attrs={"data-strategy": a.strategy})
        tr.append(h("th", a.strategy, attrs={"scope": "row"}))
        for col in ("blocks", "emitted", "lost", "duplicated"):
            value = getattr(a, col)
            bad = col in ("lost", "duplicated") and value > 0
            tr.append(h("td", fmt_int(value), cls="bad" if bad else None, attrs={"data-col": col}))
        body.append(tr)
    for a in views:
        if a.retracted and a.strategy == current:
            notes.append(h("li", f"{fmt_int(a.retracted)} block(s) withdrawn by the model (model_refusal_fallback): "
                           "retracted, neither lost nor emitted", attrs={"data-kind": "retracted",
                                                                         "data-testid": "audit-retracted"}))
        if a.first_lost_line is not None:
            li = h("li", attrs={"data-strategy": a.strategy, "data-kind": "lost"})
            li.append(h("strong", f"{a.strategy}: "))
            where = f"line {a.first_lost_line}" + (f" of {a.first_lost_file}" if a.first_lost_file else "")
            li.append(h("span", f"first lost block: {a.first_lost_block or '?'} "))
            li.append(button(f"see {where}", "audit-lost", a.strategy, testid="audit-first-lost"))
            notes.append(li)
        if a.first_dup_seqs:
            li = h("li", attrs={"data-strategy": a.strategy, "data-kind": "duplicated"})
            li.append(h("strong", f"{a.strategy}: "))
            seqs = ", ".join(f"#{q}" for q in a.first_dup_seqs)
            li.append(h("span", f"first duplicated block: {a.first_dup_block or '?'} (relays {seqs}) "))
            li.append(button("see them", "audit-dup", a.strategy, testid="audit-first-dup"))
            notes.append(li)


# -- unreadable lines -------------------------------------------------------------------------

def errors(els: dict[str, Element], views: list[ErrorView], summary: str | None) -> None:
    box, listing = els["errors"], els["error-list"]
    clear(listing)
    box.hidden = not views
    els["error-summary"].textContent = summary or ""
    for k, e in enumerate(views[:MAX_ERRORS_LISTED]):
        where = f"{e.file}:{e.line}" if e.file else f"line {e.line}"
        li = h("li", attrs={"data-line": e.line})
        li.append(button(where, "error", k, testid="error-line"))
        li.append(h("span", f" {e.message}"))
        listing.append(li)
    if len(views) > MAX_ERRORS_LISTED:
        listing.append(h("li", f"… and {len(views) - MAX_ERRORS_LISTED} more", cls="muted"))


# -- what became of a block that was not emitted -------------------------------------------------

def _verdict(s: StepView) -> tuple[str, str]:
    """The decision in words (``fates.decision_words``), telling a lost block from a duplicate."""
    lost = any(f.fate == F.LOST for f in s.fates)
    return F.decision_words(s.decision, s.fates), "decision d-lost" if lost else f"decision d-{s.decision}"


def _fate(f: F.BlockFate) -> Element:
    if f.fate == "lost":
        return h("span", "lost", cls="badge a-lost", attrs={"title": f.words, "data-testid": "block-lost"})
    if f.fate == "streamed":
        return button(f"already streamed as #{f.seq}", "goto", f.seq, testid="streamed-as", title=f.words)
    return button(f"duplicate of #{f.seq}", "goto", f.seq, testid="dup-of", title=f.words)
