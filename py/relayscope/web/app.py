"""app: the page's controller, run in the web worker (main.py) on remote.py's mirror of the
page's DOM. DOM references in one ``els`` map, view state in one ``State``, the view model
(``model.Workspace``) for every number and text shown.

Theory of operation
-------------------
Input (sources.py: paste, files, a folder, an example, ``?src=``, a share link) becomes one call
of :meth:`App.load` (one file: ``Workspace.start_load``, ``load_more`` per slice read,
``end_load``), then :meth:`App.show`; strategy changes call ``rerun``, the audit ``run_audit``.
Those are model generators, run by jobs.py a slice at a time with a yield to the worker's event
loop between slices: a newer job cancels a running one, and ``<html data-app-state>`` says where
we are. The page's own thread never waits for any of it. What is on screen is drawn here: the
lanes, filters, the timeline (timeline.py), the step-through and audit panels (panels.py).

The view state (strategy, step, selected row, filters, which example or URL; urlstate.py) is
mirrored into the query string with ``history.replaceState``; a share link (embed.py) carries the
transcript itself, compressed, in the fragment (never sent to any server) along with that state.

Must not: parse markup (see dom.py), fetch anything (sources.py does, what the user named), or
run longer than a slice without a yield.
"""

from __future__ import annotations

import asyncio
from bisect import bisect_left, bisect_right
from typing import Any
from urllib.parse import urlencode

from ..intake import binary_reason
from . import help_panel, legend, newest, panels
from .dom import Listeners, closest, download, fmt_int, js_object, show
from .embed import Links, save_theme, stored_theme, url_theme
from .jobs import Jobs
from .loading import as_bytes
from .model import EXAMPLES, Workspace
from .redact_switch import RedactSwitch
from .remote import DOCUMENT as document
from .remote import WINDOW as window
from .sources import FIRST_BYTES, READ_BYTES, Sources
from .swimlanes import Swimlanes
from .timeline import LaneLayout, Timeline
from .urlstate import PANELS, State, query_dict, query_of, view_from
from .watch import Watcher

AUTO_AUDIT_BYTES = 2_000_000  # inputs up to this size are audited right away; larger on request
FILTER_DELAY_MS = 150
THEMES = ("auto", "light", "dark")
ROVE_KEYS = ("ArrowRight", "ArrowLeft", "ArrowDown", "ArrowUp", "Home", "End")

IDS = (
    "status", "theme", "paste-input", "analyze", "file-input", "folder-input", "source", "progress",
    "message", "errors", "error-summary", "error-list", "examples-box", "examples", "workspace",
    "strategy", "filter", "lane-filter", "relay-count", "relay-count-of", "type-filter", "lanes",
    "timeline", "timeline-sizer", "stepper", "step-first", "step-prev", "step-position", "step-next",
    "step-last", "step-slider", "step-facts", "fp-compare", "dedup-index", "content-array",
    "step-emitted", "step-raw", "audit", "run-audit", "audit-table", "audit-body", "audit-notes",
    "share", "export-ndjson", "export-trace", "share-note", "share-row", "share-link", "copy-link",
    "share-too-large", "share-too-large-text", "download-source", "download-ndjson", "load-time",
)
VIEW_IDS = (  # issue 9: help, the filter's way back, the fingerprint legend, the skip link
    "help-toggle", "help", "filter-cleared", "filter-cleared-text", "filter-restore", "fp-legend-box", "drift-notice",
    "fp-legend-summary", "fp-legend", "skip-to-stepper",
)
PAGE_IDS = (  # issue 18: the panels and their toggles, the skip link, stepping in scope, first contact
    "toggle-stepper", "toggle-lanes", "toggle-audit", "lanes-panel", "skip-to-timeline", "step-scope",
    "step-hidden", "step-hidden-text", "step-show-hidden", "intro",
)


class App:
    def __init__(self) -> None:
        self.els = {name: document.getElementById(name) for name in IDS + VIEW_IDS + PAGE_IDS}
        self.root = document.documentElement
        self.state = State()
        self.ws: Workspace | None = None
        self.input_size = 0
        self.listeners = Listeners()
        self.jobs = Jobs(self.root, self.els["status"], self.els["progress"], self.els["timeline"], self.fail)
        self.sources = Sources(self)
        self.timeline = Timeline(self, self.els["timeline"], self.els["timeline-sizer"])
        self.lane_labels: dict[str, str] = {}
        self.lane_colors: dict[str, int] = {}
        self.type_counts: dict[str, int] = {}
        self.open_groups: set[int] = set()  # groups of partial deltas shown fragment by fragment
        self.saved_filter: tuple[str, set[str], set[str], str, bool] | None = None  # cleared by a link
        self.scoped_steps: list[int] | None = None  # the steps of the rows shown (step scope "shown")
        self.step_hidden: list[int] = []  # relays of the current step that the filter hides
        self.chip_focus = ""  # the chip that holds the chips' one Tab stop (App.chip_key)
        self.first_rows_run = 0  # the job whose first rows are drawn (data-first-rows-ms)
        self.links = Links(self)
        self.drift: newest.DriftView | None = None  # issue 19: the drift notice and its filter
        self.drift_only = False
        self.redaction = RedactSwitch(self)  # issue 22: "Redact" for links, embeds and downloads
        self.swimlanes = Swimlanes(self)  # issue 20: the agents in time, above the timeline

    # -- start --------------------------------------------------------------------------------

    def start(self) -> None:
        self.wire()
        self.links.wire()
        self.redaction.wire()
        panels.examples(self.els["examples"], EXAMPLES)
        help_panel.draw(self.els["help"])
        self.apply_theme(url_theme() or stored_theme(), save=False)
        first = view_from(query_dict(str(window.location.search)))
        self.state.closed = set(first.get("closed", ()))
        self.state.step_scope = first.get("scope", "all")
        self.draw_panels()
        load_ms = window.performance.now()
        self.root.dataset.loadMs = f"{load_ms:.0f}"
        self.els["load-time"].textContent = f"Python ready in {load_ms / 1000:.1f} s"
        self.jobs.status("Ready. Paste, drop or open a transcript, or pick an example.")
        self.jobs.set_state("ready")
        self.sources.initial_input()
        # drops made while Python was booting, then every later one
        window.relayscopeFiles.setDropHandler(self.jobs.safe(self.sources.on_drop))
        # issue 12: "Watch file…" / "Watch folder…" and window.relayscopeWatch (watch.py)
        self.watcher = Watcher(self)
        self.watcher.start()

    # -- wiring ---------------------------------------------------------------------------------

    def wire(self) -> None:
        e, jobs, sources = self.els, self.jobs, self.sources

        def on(target: Any, event: str, handler: Any) -> None:
            self.listeners.on(target, event, jobs.safe(handler))
        on(e["paste-input"], "input", sources.on_paste_input)
        on(e["analyze"], "click", lambda _: sources.on_analyze_paste())
        on(e["file-input"], "change", lambda _: sources.on_files("file-input"))
        on(e["folder-input"], "change", lambda _: sources.on_files("folder-input"))
        on(e["strategy"], "change", self.on_strategy)
        on(e["filter"], "input", lambda _: jobs.later("filter", FILTER_DELAY_MS, self.apply_filter))
        on(e["lane-filter"], "change", self.on_lane_filter)
        on(e["type-filter"], "click", self.on_type_chip)
        on(e["examples"], "click", self.on_click)
        on(e["lanes"], "click", self.on_click)
        on(e["timeline"], "click", self.on_timeline_click)
        on(e["timeline"], "scroll", lambda _: self.timeline.render())
        on(e["stepper"], "click", self.on_click)
        on(e["audit"], "click", self.on_click)
        on(e["errors"], "click", self.on_click)
        on(e["step-first"], "click", lambda _: self.go_step(self.step_by(0, first=True)))
        on(e["step-prev"], "click", lambda _: self.go_step(self.step_by(-1)))
        on(e["step-next"], "click", lambda _: self.go_step(self.step_by(1)))
        on(e["step-last"], "click", lambda _: self.go_step(self.step_by(0, last=True)))
        on(e["step-slider"], "input", lambda _: self.go_step(int(e["step-slider"].value)))
        on(e["run-audit"], "click", lambda _: jobs.start_work(self.audit_now()))
        on(e["share"], "click", lambda _: self.make_share())
        on(e["copy-link"], "click", lambda _: self.copy_link())
        on(e["export-ndjson"], "click", lambda _: self.export("ndjson"))
        on(e["export-trace"], "click", lambda _: self.export("trace"))
        on(e["download-ndjson"], "click", lambda _: self.export("ndjson"))
        on(e["download-source"], "click", lambda _: self.export("source"))
        on(e["theme"], "click", lambda _: self.apply_theme(
            THEMES[(THEMES.index(self.root.getAttribute("data-theme") or "auto") + 1) % len(THEMES)]))
        on(document, "keydown", self.on_key)
        on(e["help-toggle"], "click", lambda _: self.toggle_help())
        on(e["filter-restore"], "click", lambda _: self.restore_filter())
        on(e["drift-notice"], "click", self.on_drift_filter)
        on(e["skip-to-stepper"], "click", self.on_skip)
        on(e["skip-to-timeline"], "click", self.on_skip_to_timeline)
        for name in PANELS:
            on(e[f"toggle-{name}"], "click", self.on_panel_toggle)
        on(e["step-scope"], "change", self.on_step_scope)
        on(e["step-show-hidden"], "click", lambda _: self.show_step_hidden())
        on(e["fp-legend-box"], "toggle", lambda _: self.fill_legend())
        on(window, "resize", lambda _: self.timeline.render())
        self.swimlanes.wire(on)

    # -- failures and notices -----------------------------------------------------------------------

    def fail(self, text: str) -> None:
        """A job failed, or the input cannot be read: say so, and "error"."""
        self.jobs.stop()
        self.jobs.status(text)
        self.notice([text], error=True)
        self.jobs.set_state("error")
        self.timeline.render()

    def notice(self, lines: list[str], error: bool = False) -> None:
        box = self.els["message"]
        box.replaceChildren()
        for line in lines:
            p = document.createElement("p")
            p.textContent = line
            box.append(p)
        box.classList.toggle("error", error)
        show(box, bool(lines))

    # -- examples -----------------------------------------------------------------------------------

    def focus_example(self, example_id: str) -> None:
        """Open an example where it makes its point: the step of the first block its strategy
        loses (with the audit's line about it in view), or its first duplicated block."""
        ex = next((x for x in EXAMPLES if x.id == example_id), None)
        ws = self.ws
        if ex is None or ws is None or not ex.focus or not ws.audit:
            return
        a = next((x for x in ws.audit if x.strategy == ws.strategy), None)
        if a is None:
            return
        if ex.focus == "lost" and a.first_lost_line is not None:
            self.go_step(ws.step_of_line(a.first_lost_file, a.first_lost_line))
            kind = "lost"
        elif ex.focus == "dup" and a.first_dup_seqs:
            self.go_step(ws.step_of_seq(a.first_dup_seqs[-1]))
            self.timeline.set_highlight(set(a.first_dup_seqs))
            kind = "duplicated"
        else:
            return
        note = self.els["audit-notes"].querySelector(f'li[data-strategy="{ws.strategy}"][data-kind="{kind}"]')
        if note:
            note.classList.add("focus")
            if not self.links.embed:  # an embed shows it in place: its one scroll area stays at the top
                note.scrollIntoView(js_object({"block": "center"}))  # "nearest" can stop a fraction of a pixel short

    # -- analysis -----------------------------------------------------------------------------------

    async def load(self, data: Any, *, name: str, source: dict[str, str],
                   view: dict[str, Any] | None = None, notes: list[str] | None = None,
                   run: int | None = None) -> None:
        view = view or {}
        strategy = view.get("strategy", self.state.strategy)
        if run is None:
            run = self.jobs.begin(f"Reading {name}…")
        if isinstance(data, dict):
            binary = {k: None if isinstance(v, str) else binary_reason(k, v) for k, v in data.items()}
            kept = {k: v for k, v in data.items() if binary[k] is None}
            if kept and len(kept) < len(data):
                notes = [*(notes or []), "Skipped binary file(s): " + ", ".join(k for k in data if k not in kept)]
                data = kept
            reason = None if kept else next(iter(binary.values()), None)
        else:
            reason = None if isinstance(data, str) else binary_reason(name, data)
        if reason is not None:
            self.not_text(run, reason)
            return
        ws = Workspace()
        mark = self.jobs.mark()
        big = not isinstance(data, dict) and len(data) > READ_BYTES  # a big paste or URL: its first rows at once
        steps = self.load_first_rows(ws, data, name, strategy, run) if big else ws.load(data, name=name, strategy=strategy)
        if not await self.jobs.drive(steps, run, f"Translating {name}…"):
            return
        self.jobs.timed("translate", mark)  # with the lookups: one generator
        size = len(data) if not isinstance(data, dict) else sum(len(v) for v in data.values())
        await self.show(ws, run, name=name, size=size, source=source, view=view, notes=notes)

    async def show(self, ws: Workspace, run: int, *, name: str, size: int, source: dict[str, str],
                   view: dict[str, Any], notes: list[str] | None) -> None:
        """A translated input on screen (audited first if small): the end of every load."""
        mark = self.jobs.mark()
        if size <= AUTO_AUDIT_BYTES:
            if not await self.jobs.drive(ws.run_audit(), run, "Auditing every strategy…"):
                return
            mark = self.jobs.timed("audit", mark)
        self.ws, self.input_size = ws, size
        view, link_note = self.links.match_pending(ws, view)
        view = view or {}
        if link_note:
            notes = [*(notes or []), link_note]
        self.links.reset()
        self.redaction.reset()
        self.links.compare_from = ""  # "Back to 'index'" belonged to the last input
        self.watcher.drop()  # a watch of another input ends with it
        if source.get("kind") != "paste":  # the old paste is not what is shown any more
            self.els["paste-input"].value = ""
        st = self.state
        st.strategy, st.source = ws.strategy, source
        st.text, st.types, st.lane = view.get("q", ""), set(view.get("types", [])), view.get("lane", "")
        st.xtypes = {t[1:] for t in st.types if t.startswith("-")}
        st.types = {t for t in st.types if not t.startswith("-")}
        st.bookkeeping = bool(view.get("bookkeeping"))
        if "closed" in view:
            st.closed = set(view["closed"])
        if "scope" in view:
            st.step_scope = view["scope"]
        self.open_groups, self.saved_filter = set(), None
        show(self.els["filter-cleared"], False)
        st.row, st.expanded = None, False
        if source.get("kind") != "share" and str(window.location.hash):
            self.clear_hash()
        await asyncio.sleep(0)  # the model's last slice ends its task; the check below is a pass of its own
        not_transcript = ws.not_a_transcript()
        await asyncio.sleep(0)
        if run != self.jobs.run:
            return
        notes = [not_transcript, *(notes or [])] if not_transcript else list(notes or [])
        if ws.audit_error:
            notes.append(ws.audit_error)
        self.notice(notes, error=bool(not_transcript or ws.audit_error))
        fmt = "" if not_transcript else f" · {ws.format or '?'}"  # no format for what is not a transcript
        self.els["source"].textContent = f"{name} · {fmt_int(size)} bytes{fmt}"
        if source.get("kind") != "example":  # the gallery stays open for the next pick
            self.els["examples-box"].open = False
        if not await self.present(run, step=max(0, view.get("step", 1) - 1), row=view.get("row")):
            return
        if source.get("kind") == "example" and "step" not in view and "row" not in view:
            self.focus_example(source["example"])
        self.jobs.timed("draw", mark)  # the checks, the panels and the first screen of rows
        self.jobs.end(run, f"{fmt_int(len(ws.relays))} relay events from {fmt_int(ws.step_count())} lines")

    async def rerun(self, strategy: str, then: Any = None) -> None:
        ws = self.ws
        if ws is None:
            self.state.strategy = strategy
            self.jobs.set_state("ready")
            return
        run = self.jobs.begin(f"Re-translating with '{strategy}'…")
        mark = self.jobs.mark()
        if not await self.jobs.drive(ws.rerun(strategy), run, f"Re-translating with '{strategy}'…"):
            return
        mark = self.jobs.timed("translate", mark)
        self.state.strategy = strategy
        self.state.row, self.state.expanded = None, False
        if not await self.present(run, step=self.state.step, row=None):
            return
        if then is not None:
            then()
        self.jobs.timed("draw", mark)
        self.jobs.end(run, f"{fmt_int(len(ws.relays))} relay events with '{strategy}'")

    async def audit_now(self) -> None:
        ws = self.ws
        if ws is None:
            self.jobs.set_state("ready")
            return
        run = self.jobs.begin("Auditing every strategy…")
        if not await self.jobs.drive(ws.run_audit(), run, "Auditing every strategy…"):
            return
        self.jobs.busy = False
        panels.audit(self.els, ws.audit, self.state.strategy, ws.format)
        if ws.audit_error:
            self.notice([ws.audit_error], error=True)
        self.jobs.end(run, "Audit failed" if ws.audit_error else "Audit done")

    async def present(self, run: int, step: int, row: int | None) -> bool:
        """Draw everything from the workspace after a (re)translation, a slice at a time."""
        ws = self.ws
        assert ws is not None
        await asyncio.sleep(0)
        if run != self.jobs.run:
            return False
        types = ws.type_counts()
        order = [lane.id for lane in ws.lanes]
        layout = LaneLayout(ws.lane_spans(), order)
        self.lane_colors = layout.color
        self.lane_labels = {lane.id: lane.label for lane in ws.lanes}
        self.type_counts = types
        st = self.state
        if st.lane and st.lane not in self.lane_labels:
            st.lane = ""
        st.types &= set(types)
        st.xtypes &= set(types)
        self.jobs.busy = False
        e = self.els
        show(e["workspace"])
        show(e["skip-to-timeline"])
        show(e["skip-to-stepper"])
        self.draw_panels()
        e["step-scope"].value = st.step_scope
        e["strategy"].value = ws.strategy
        e["filter"].value = st.text
        self.draw_lane_filter()
        self.draw_type_chips()
        panels.lanes(e["lanes"], ws.lanes, self.lane_colors, st.lane)
        self.drift, self.drift_only = newest.drift_view(ws), False  # issue 19: drift made visible
        newest.draw_notice(e["drift-notice"], self.drift, False)
        await self.swimlanes.show(ws, self.lane_labels, self.lane_colors)
        panels.errors(e, ws.errors, ws.error_summary())
        panels.audit(e, ws.audit, ws.strategy, ws.format)
        legend.draw(e["fp-legend-box"], e["fp-legend-summary"], e["fp-legend"], ws.fp_legend())
        self.timeline.labels = self.lane_labels
        self.timeline.layout = layout
        self.timeline.preview_ws = None
        self.timeline.selected, self.timeline.expanded = None, False
        self.filter_rows(scroll_top=True)
        if row is not None and 0 <= row < len(ws.relays):
            self.select_row(row, expanded=True, follow_step=False)
        self.go_step(step, scroll=row is None)
        self.links.update_compare()
        self.first_rows_done(run)
        return True

    # -- filters --------------------------------------------------------------------------------------

    def draw_lane_filter(self) -> None:
        select = self.els["lane-filter"]
        select.replaceChildren()
        select.append(self.option("", "all lanes"))
        for lane in self.ws.lanes if self.ws else []:
            select.append(self.option(lane.id, ("  " * min(lane.depth, 4)) + lane.label))
        select.value = self.state.lane

    @staticmethod
    def option(value: str, text: str) -> Any:
        opt = document.createElement("option")
        opt.value = value
        opt.textContent = text
        return opt

    def draw_type_chips(self) -> None:
        box = self.els["type-filter"]
        box.replaceChildren()
        focused = self.chip_focus
        for kind, count in self.type_counts.items():
            chip = document.createElement("button")
            chip.type = "button"
            chip.className = f"chip t-{kind}"
            chip.dataset.type = kind
            chip.textContent = f"{kind} {fmt_int(count)}"
            not_chip = document.createElement("button")
            not_chip.type = "button"
            not_chip.className = "chip chip-not"
            not_chip.dataset.exclude = kind
            not_chip.textContent = "⊘"
            self.chip_mode(chip, not_chip, kind)
            pair = document.createElement("span")
            pair.className = "chip-pair"
            pair.append(chip, not_chip)
            box.append(pair)
        hidden = self.ws.bookkeeping_count if self.ws else 0
        if hidden:
            chip = document.createElement("button")
            chip.type = "button"
            chip.className = "chip hidden-chip"
            chip.dataset.bookkeeping = "1"
            chip.dataset.testid = "hidden-chip"
            chip.setAttribute("aria-pressed", "true" if self.state.bookkeeping else "false")
            chip.textContent = (f"{fmt_int(hidden)} bookkeeping shown · hide" if self.state.bookkeeping
                                else f"{fmt_int(hidden)} hidden · show")
            chip.title = "progress, file-history-snapshot, queue-operation, hook progress … records"
            box.append(chip)
        # one Tab stop: the chip last moved to (arrows move, App.rove), else the first
        buttons = box.querySelectorAll("button")
        keys = [self.chip_key(b) for b in buttons]
        current = keys.index(focused) if focused in keys else 0
        for k, b in enumerate(buttons):
            b.setAttribute("tabindex", "0" if k == current else "-1")

    def chip_mode(self, chip: Any, not_chip: Any, kind: str) -> None:
        """A type is neutral, included (its chip: only the types chosen) or excluded (its ⊘ button:
        every type but these)."""
        st = self.state
        mode = "include" if kind in st.types else "exclude" if kind in st.xtypes else None
        chip.setAttribute("aria-pressed", "true" if mode == "include" else "false")
        not_chip.setAttribute("aria-pressed", "true" if mode == "exclude" else "false")
        if mode:
            chip.dataset.mode = mode
        else:
            chip.removeAttribute("data-mode")
        chip.title = f"show only {kind} (with any other type chosen)"
        not_chip.title = f"hide {kind}"
        not_chip.setAttribute("aria-label", f"hide {kind}")

    def on_drift_filter(self, event: Any) -> None:
        """The drift notice's button: only the rows of records new to this version, or all again."""
        if closest(event, f'button[data-action="{newest.FILTER_ACTION}"]') is None or self.ws is None:
            return
        self.drift_only = not self.drift_only
        newest.draw_notice(self.els["drift-notice"], self.drift, self.drift_only)
        self.filter_rows(scroll_top=True)

    def on_type_chip(self, event: Any) -> None:
        if self.ws is None:
            return
        if closest(event, "button[data-bookkeeping]") is not None:
            self.state.bookkeeping = not self.state.bookkeeping
            self.forget_saved_filter()
            self.draw_type_chips()
            self.filter_rows()
            return
        chip = closest(event, "button[data-type], button[data-exclude]")
        if chip is None:
            return
        st = self.state
        excluding = chip.hasAttribute("data-exclude")
        kind = str(chip.dataset.exclude if excluding else chip.dataset.type)
        chosen, other = (st.xtypes, st.types) if excluding else (st.types, st.xtypes)
        chosen ^= {kind}
        other.discard(kind)
        pair = chip.parentElement
        self.chip_mode(pair.querySelector("[data-type]"), pair.querySelector("[data-exclude]"), kind)
        self.forget_saved_filter()
        self.filter_rows()

    def on_lane_filter(self, _event: Any) -> None:
        self.forget_saved_filter()
        self.set_lane_filter(str(self.els["lane-filter"].value))

    def set_lane_filter(self, lane: str) -> None:
        if self.ws is None:
            return
        self.state.lane = lane
        self.els["lane-filter"].value = lane
        panels.lanes(self.els["lanes"], self.ws.lanes, self.lane_colors, lane)
        self.filter_rows()

    def apply_filter(self) -> None:
        self.forget_saved_filter()
        self.state.text = str(self.els["filter"].value)
        ws = self.ws
        if ws is not None and not self.jobs.busy and self.state.text.strip() and not ws.search_ready:
            self.jobs.spawn(self.index_then_filter())  # the first text search builds its index in slices
            return
        self.filter_rows()

    async def index_then_filter(self) -> None:
        ws = self.ws
        assert ws is not None
        run = self.jobs.begin("Indexing the text for search…")
        if not await self.jobs.drive(ws.prepare_search(), run, "Indexing the text for search…"):
            return
        self.jobs.busy = False  # rows are drawn only when not busy: draw them now, not at the next scroll
        self.state.text = str(self.els["filter"].value)  # what was typed while the index was built
        self.filter_rows()
        self.jobs.end(run, f"{self.els['relay-count'].textContent} relay events match")

    def filter_rows(self, scroll_top: bool = False) -> None:
        ws = self.ws
        if ws is None:
            return
        st = self.state
        seqs = self.swimlanes.within(ws.select(st.text, st.types, st.xtypes, st.lane, st.bookkeeping or self.drift_only))
        if self.drift_only and self.drift is not None:  # the drift notice's one-click filter
            seqs = [q for q in seqs if q in self.drift.seqs]
        self.els["relay-count"].textContent = str(len(seqs))
        self.els["relay-count"].dataset.total = str(len(ws.relays))
        self.els["relay-count"].dataset.hidden = "0" if st.bookkeeping else str(ws.bookkeeping_count)
        filtered = len(seqs) != len(ws.relays)
        self.els["relay-count-of"].textContent = f"of {fmt_int(len(ws.relays))}" if filtered else ""
        if scroll_top:
            self.els["timeline"].scrollTop = 0
        no_lost = bool(st.text.strip() or st.types or st.xtypes)  # placeholders match no search
        self.timeline.set_rows(ws.rows(seqs, self.open_groups, lost=not no_lost, lane=st.lane))
        self.scoped_steps = None  # the steps of the rows shown: made again when stepping in scope
        if st.row is not None and st.row in self.timeline.index:
            self.timeline.scroll_to(st.row)
        self.sync_url()

    # -- rows ---------------------------------------------------------------------------------------

    def on_timeline_click(self, event: Any) -> None:
        if self.ws is None or self.jobs.busy:
            return
        if closest(event, "button[data-action]") is not None:
            self.on_click(event)
            return
        if closest(event, ".detail") is not None:
            return  # reading or selecting text in the open row
        row = closest(event, ".row[data-seq]")
        if row is None:
            return
        seq = int(row.dataset.seq)
        if seq < 0:  # a lost block's placeholder: show the line it was lost on
            block = self.ws.lost_block(seq)
            if block is not None:
                self.go_step(self.ws.step_of_line(block.file, block.line))
            return
        same = seq == self.state.row
        self.select_row(seq, expanded=not (same and self.state.expanded))
        self.els["timeline"].focus()

    def select_row(self, seq: int | None, expanded: bool | None = None,
                   follow_step: bool = True) -> None:
        st = self.state
        st.row = seq
        if expanded is not None:
            st.expanded = expanded
        if seq is not None and seq not in self.timeline.index and self.ws is not None:
            head = self.ws.group_of(seq)
            if head is not None and head in self.timeline.index:  # inside a folded group: unfold it
                self.open_groups.add(head)
                self.filter_rows()
        if seq is not None and seq not in self.timeline.index:
            # filtered out: show everything again rather than select an invisible row, and say so
            self.saved_filter = (st.text, set(st.types), set(st.xtypes), st.lane, st.bookkeeping)
            st.text, st.types, st.xtypes, st.lane = "", set(), set(), ""
            st.bookkeeping = st.bookkeeping or bool(self.ws and self.ws.is_bookkeeping(seq))
            self.els["filter"].value = ""
            self.draw_type_chips()
            self.set_lane_filter("")
            self.els["filter-cleared-text"].textContent = f"The filter was cleared to show #{seq}."
            show(self.els["filter-cleared"])
            head = self.ws.group_of(seq) if self.ws is not None else None
            if head is not None and seq not in self.timeline.index:
                self.open_groups.add(head)
                self.filter_rows()
        self.timeline.select(seq, st.expanded)
        # embed mode: the step the author chose stays until the reader uses the stepper
        if follow_step and not self.links.embed and seq is not None and self.ws is not None:
            self.go_step(self.ws.step_of_seq(seq), scroll=False)
        self.sync_url()

    def goto_lane(self, lane: str) -> None:
        ws = self.ws
        if ws is None:
            return
        card = self.els["lanes"].querySelector(f'[data-lane="{window.CSS.escape(lane)}"]')
        if card:  # JS null arrives as the falsy jsnull
            card.scrollIntoView(js_object({"block": "nearest"}))
            card.classList.add("flash")
            window.setTimeout(self._unflash(card), 1200)
        seqs = ws.lane_seqs(lane)
        if seqs:
            self.select_row(seqs[0], expanded=False)

    def _unflash(self, card: Any) -> Any:
        return lambda: card.classList.remove("flash")

    # -- clicks on buttons with data-action (delegated) ---------------------------------------------

    def on_click(self, event: Any) -> None:
        target = closest(event, "[data-action]")
        if target is None:
            return
        action, value = str(target.dataset.action), str(target.dataset.target)
        if action == "example":
            self.jobs.start_work(self.sources.load_example(value))
            return
        if self.ws is None or self.jobs.busy:
            return
        if action == "goto":
            self.select_row(int(value), expanded=True)
        elif action == "lane":
            self.goto_lane(value)
        elif action == "fragments":
            self.open_groups ^= {int(value)}
            self.filter_rows()
        elif action == "lane-only":
            self.set_lane_filter("" if self.state.lane == value else value)
        elif action == "step-of":
            self.go_step(self.ws.step_of_seq(int(value)))
        elif action == "error":
            err = self.ws.errors[int(value)]
            i = self.ws.step_of_line(err.file, err.line)
            self.go_step(i)
            seqs = self.ws.step(i).seqs
            if seqs:
                self.select_row(seqs[0], expanded=True, follow_step=False)
        elif action in ("audit-lost", "audit-dup"):
            self.follow_audit(action, value)

    def follow_audit(self, action: str, strategy: str) -> None:
        ws = self.ws
        assert ws is not None and ws.audit is not None
        a = next(x for x in ws.audit if x.strategy == strategy)

        def show_it() -> None:
            assert self.ws is not None
            if action == "audit-lost" and a.first_lost_line is not None:
                self.select_row(None, expanded=False)
                self.go_step(self.ws.step_of_line(a.first_lost_file, a.first_lost_line))
            elif a.first_dup_seqs:
                self.select_row(a.first_dup_seqs[-1], expanded=True)
                self.timeline.set_highlight(set(a.first_dup_seqs))

        if strategy != self.state.strategy:
            self.els["strategy"].value = strategy
            self.jobs.start_work(self.rerun(strategy, then=show_it))
        else:
            show_it()

    # -- strategy and step-through --------------------------------------------------------------------

    def on_strategy(self, _event: Any) -> None:
        strategy = str(self.els["strategy"].value)
        if self.ws is None:
            self.state.strategy = strategy
            return
        self.jobs.start_work(self.rerun(strategy))

    def step_count(self) -> int:
        return self.ws.step_count() if self.ws else 0

    def go_step(self, i: int, scroll: bool = True) -> None:
        ws = self.ws
        n = self.step_count()
        if ws is None or n == 0 or self.jobs.busy:
            if ws is not None and n == 0:
                self.els["step-position"].textContent = "0 / 0"
            return
        i = min(max(i, 0), n - 1)
        self.state.step = i
        s = ws.step(i)
        panels.step(self.els, s, n, self.lane_labels.get(s.lane or "", s.lane or ""))
        index = self.timeline.index
        # a relay inside a folded group of deltas is shown by the group's row; a lost block by its placeholder
        folded = [h for q in s.seqs[:50] if q not in index and (h := ws.group_of(q)) is not None and h in index]
        lost = ws.lost_rows_of_step(i)
        self.timeline.set_highlight(set(s.seqs) | set(folded) | lost)
        self.note_hidden(s.seqs, folded)
        if scroll and (s.seqs or lost):
            target = next((q for q in [*s.seqs[:1], *folded[:1], *sorted(lost)] if q in index), None)
            if target is not None:  # else the emitted rows are filtered out: leave the view be
                self.timeline.scroll_to(target)
        self.els["step-prev"].disabled = self.step_by(-1) == i
        self.els["step-first"].disabled = self.step_by(0, first=True) == i
        self.els["step-next"].disabled = self.step_by(1) == i
        self.els["step-last"].disabled = self.step_by(0, last=True) == i
        self.sync_url()

    # -- keyboard -----------------------------------------------------------------------------------

    def on_key(self, event: Any) -> None:
        target = event.target
        tag = str(getattr(target, "tagName", "") or "").upper()
        key = str(event.key)
        if tag in ("INPUT", "TEXTAREA", "SELECT") or getattr(target, "isContentEditable", False):
            if key == "Escape" and tag == "INPUT":
                if str(getattr(target, "id", "")) == "filter":
                    self.clear_text_filter()
                target.blur()
            return  # typing: arrows move the caret, not the view
        if event.ctrlKey or event.metaKey or event.altKey:
            return
        if self.ws is None and key in ROVE_KEYS and self.rove(event, key):  # the gallery, before a load
            event.preventDefault()
            return
        if self.ws is None or self.jobs.busy:
            return
        on_button = tag in ("BUTTON", "A", "SUMMARY")
        if key in ROVE_KEYS and self.rove(event, key):
            event.preventDefault()
            return
        handled = True
        if key in ("ArrowRight", "l", "n"):
            self.go_step(self.step_by(1))
        elif key in ("ArrowLeft", "h", "p"):
            self.go_step(self.step_by(-1))
        elif key in ("ArrowDown", "j"):
            self.select_row(self.timeline.neighbour(1), expanded=self.state.expanded)
        elif key in ("ArrowUp", "k"):
            self.select_row(self.timeline.neighbour(-1), expanded=self.state.expanded)
        elif key == "Enter" and not on_button and self.state.row is not None:
            self.select_row(self.state.row, expanded=not self.state.expanded, follow_step=False)
        elif key == "Escape" and self.state.expanded:
            self.select_row(self.state.row, expanded=False, follow_step=False)
        elif key == "/":
            self.els["filter"].focus()
        elif key == "Home" and tag != "BODY":
            self.select_row(self.timeline.neighbour(-len(self.timeline.seqs)), expanded=self.state.expanded)
        elif key == "End" and tag != "BODY":
            self.select_row(self.timeline.neighbour(len(self.timeline.seqs)), expanded=self.state.expanded)
        elif key in ("PageDown", "PageUp") and tag != "BODY" and not on_button:
            page = self.timeline.page_rows()
            self.select_row(self.timeline.neighbour(page if key == "PageDown" else -page), expanded=self.state.expanded)
        else:
            handled = False
        if handled:
            event.preventDefault()

    # -- URL, share, export ---------------------------------------------------------------------------

    def url_params(self) -> dict[str, str]:
        """The query string of the current view (and of how it is shown: embed, theme, panels)."""
        return query_of(self.state, query_dict(str(window.location.search)))

    def sync_url(self) -> None:
        if self.ws is None:
            return
        query = urlencode(self.url_params())
        url = str(window.location.pathname) + (f"?{query}" if query else "") + str(window.location.hash)
        window.history.replaceState(None, "", url)
        self.links.follow()  # the link, the snippet and "open in Relayscope" follow the view

    def clear_hash(self) -> None:
        window.history.replaceState(None, "", str(window.location.pathname) + str(window.location.search))

    def make_share(self) -> None:
        self.links.make()

    def copy_link(self) -> None:
        self.links.copy()

    def export(self, what: str) -> None:
        ws = self.ws
        if ws is None:
            return
        base = (ws.name or "relayscope").rstrip("/").rsplit("/", 1)[-1].split(" ", 1)[0] or "relayscope"
        stem = base.rsplit(".", 1)[0] if "." in base else base
        redacted = self.redaction.export  # the data itself unless "Redact" is on
        if what == "ndjson":
            download(f"{stem}.{ws.strategy}.relays.ndjson", redacted(ws.ndjson()), "application/x-ndjson")
        elif what == "trace":
            download(f"{stem}.{ws.strategy}.trace.json", redacted(ws.trace_json()), "application/json")
        elif what == "source":
            data = self.redaction.source_bytes(ws)
            if data is not None:
                download(base if "." in base else f"{base}.jsonl", data, "application/x-ndjson")

    # -- theme --------------------------------------------------------------------------------------

    def apply_theme(self, theme: str, save: bool = True) -> None:
        theme = theme if theme in THEMES else "auto"
        if theme == "auto":
            self.root.removeAttribute("data-theme")
        else:
            self.root.dataset.theme = theme
        self.els["theme"].textContent = f"Theme: {theme}"
        if save:
            save_theme(theme)

    # -- issue 9: filter's way back, help, skip link, input that is not text --------------------

    def clear_text_filter(self) -> None:
        """Esc in the filter: the text goes, and so does everything it did (count, rows, URL)."""
        self.jobs.cancel("filter")
        self.els["filter"].value = ""
        if self.state.text:
            self.state.text = ""
            self.filter_rows()

    def forget_saved_filter(self) -> None:
        self.saved_filter = None
        show(self.els["filter-cleared"], False)

    def restore_filter(self) -> None:
        """Put back the filter a link had to clear; the selected row stays if it still matches."""
        saved, self.saved_filter = self.saved_filter, None
        show(self.els["filter-cleared"], False)
        if saved is None or self.ws is None:
            return
        st = self.state
        st.text, st.types, st.xtypes, lane, st.bookkeeping = saved
        self.els["filter"].value = st.text
        self.draw_type_chips()
        self.set_lane_filter(lane)

    def toggle_help(self) -> None:
        box, button = self.els["help"], self.els["help-toggle"]
        show(box, bool(box.hidden))
        button.setAttribute("aria-expanded", "false" if box.hidden else "true")

    def fill_legend(self) -> None:
        if self.ws is not None and self.els["fp-legend-box"].open:
            legend.fill(self.els["fp-legend"], self.ws.fp_legend())

    def on_skip(self, event: Any) -> None:
        event.preventDefault()  # no #stepper in the address: the fragment carries share links
        self.els["stepper"].focus()
        self.els["stepper"].scrollIntoView(js_object({"block": "nearest"}))

    def not_text(self, run: int, reason: str) -> None:
        """Binary input: one message, no timeline, nothing of the previous input left on screen."""
        self.ws = None
        self.timeline.clear()
        show(self.els["workspace"], False)
        show(self.els["skip-to-timeline"], False)
        show(self.els["skip-to-stepper"], False)
        show(self.els["errors"], False)
        self.notice([reason], error=True)
        self.els["source"].textContent = ""
        self.state.source = {}
        window.history.replaceState(None, "", str(window.location.pathname))  # nothing to come back to
        self.jobs.end(run, "Nothing analyzed")

    # -- issue 18: panels, the skip link to the timeline, stepping in the filter's scope ----------

    def draw_panels(self) -> None:
        """Each panel open or collapsed as ``state.closed`` says (the URL's ``closed=``)."""
        sections = {"stepper": self.els["stepper"], "lanes": self.els["lanes-panel"], "audit": self.els["audit"]}
        for name, section in sections.items():
            closed = name in self.state.closed
            section.classList.toggle("collapsed", closed)
            self.els[f"toggle-{name}"].setAttribute("aria-expanded", "false" if closed else "true")

    def on_panel_toggle(self, event: Any) -> None:
        button = closest(event, "[data-panel]")
        if button is None:
            return
        self.state.closed ^= {str(button.dataset.panel)}
        self.draw_panels()
        self.sync_url()

    def on_skip_to_timeline(self, event: Any) -> None:
        event.preventDefault()  # no #timeline in the address: the fragment carries share links
        self.els["timeline"].focus()
        self.els["timeline"].scrollIntoView(js_object({"block": "nearest"}))

    def on_step_scope(self, _event: Any) -> None:
        self.state.step_scope = "shown" if str(self.els["step-scope"].value) == "shown" else "all"
        self.go_step(self.state.step, scroll=False)

    def step_by(self, delta: int, *, first: bool = False, last: bool = False) -> int:
        """The step ``delta`` away from the current one (or the first, or the last): any input
        line, or with the scope "shown" only lines that emitted a row shown (or of the lane chosen)."""
        n, here = self.step_count(), self.state.step
        if self.state.step_scope != "shown" or self.ws is None:
            return 0 if first else max(n - 1, 0) if last else min(max(here + delta, 0), max(n - 1, 0))
        if self.scoped_steps is None:
            self.scoped_steps = self.ws.steps_of([q for q in self.timeline.seqs if q >= 0], self.state.lane)
        steps = self.scoped_steps
        if not steps:
            return here
        if first or last:
            return steps[0] if first else steps[-1]
        if delta > 0:
            k = bisect_right(steps, here)
            return steps[k] if k < len(steps) else here
        k = bisect_left(steps, here) - 1
        return steps[k] if k >= 0 else here

    def note_hidden(self, seqs: list[int], folded: list[int]) -> None:
        """A step whose relays the filter hides says so, and offers to show them."""
        index = self.timeline.index
        hidden = [q for q in seqs if q not in index] if len(folded) < len(seqs) else []
        hidden = [q for q in hidden if (g := self.ws.group_of(q) if self.ws else None) is None or g not in index]
        self.step_hidden = hidden
        if hidden:
            shown = ", ".join(f"#{q}" for q in hidden[:5]) + (" …" if len(hidden) > 5 else "")
            n = len(hidden)
            self.els["step-hidden-text"].textContent = (
                f"{'All' if n == len(seqs) else n} of its relays {'are' if n != 1 else 'is'} not in the timeline "
                f"(the filter, the lane or the hidden chip leaves {'them' if n != 1 else 'it'} out: {shown}).")
        show(self.els["step-hidden"], bool(hidden))

    def show_step_hidden(self) -> None:
        hidden = self.step_hidden
        if hidden:
            self.select_row(hidden[0], expanded=False, follow_step=False)
            self.go_step(self.state.step)

    # -- issue 18: the chips and the gallery are one Tab stop each; arrows move within ----------

    @staticmethod
    def chip_key(button: Any) -> str:
        d = button.dataset
        return str(d.type or (f"-{d.exclude}" if d.exclude else "") or ("hidden" if d.bookkeeping else ""))

    def rove(self, event: Any, key: str) -> bool:
        """Arrow keys, Home and End on a chip or an example card: focus the next one, which takes
        the group's one Tab stop. False if the key was not on such a group."""
        target = event.target
        group = closest(event, ".chips") or closest(event, ".gallery")
        if group is None or not hasattr(target, "closest"):
            return False
        buttons = list(group.querySelectorAll("button"))
        here = target.closest("button")
        if here not in buttons:
            return False
        k = buttons.index(here)
        k = (0 if key == "Home" else len(buttons) - 1 if key == "End"
             else min(max(k + (1 if key in ("ArrowRight", "ArrowDown") else -1), 0), len(buttons) - 1))
        for i, b in enumerate(buttons):
            b.setAttribute("tabindex", "0" if i == k else "-1")
        buttons[k].focus()
        if group.classList.contains("chips"):
            self.chip_focus = self.chip_key(buttons[k])
        return True

    # -- issue 18: a big file's first rows while the rest is analyzed ---------------------------

    def first_rows(self, ws: Workspace, run: int) -> None:
        """The first screen of rows of an input still being translated (``ws`` is not the
        workspace shown yet: the rest of the page waits for the end, and says so)."""
        if run != self.jobs.run or not ws.so_far():
            return
        e = self.els
        show(e["workspace"])
        show(e["skip-to-timeline"])
        show(e["skip-to-stepper"])
        e["type-filter"].replaceChildren()
        e["lanes"].replaceChildren()
        e["relay-count"].textContent = f"{fmt_int(len(ws.relays))}+"
        e["relay-count-of"].textContent = "(so far)"
        e["step-position"].textContent = "–"
        e["examples-box"].open = False  # the rows, not the gallery, in the first screen
        for name in ("step-facts", "fp-compare", "content-array", "step-emitted", "audit-body", "audit-notes"):
            e[name].replaceChildren()  # nothing of the last input stays beside the new rows
        e["dedup-index"].textContent = ""
        show(e["step-hidden"], False)
        self.timeline.preview(ws, list(range(len(ws.relays))))
        self.first_rows_done(run)

    def load_first_rows(self, ws: Workspace, data: Any, name: str, strategy: str, run: int) -> Any:
        """``ws.load(data)`` of one big text, with its first rows drawn once its first FIRST_BYTES
        are translated (a file is read so by Sources.load_file; this is a paste or a URL's body)."""
        content = as_bytes(data)
        ws.start_load(name=name, strategy=strategy, size=len(content))
        yield from ws.load_more(content[:FIRST_BYTES])
        self.first_rows(ws, run)
        yield from ws.load_more(content[FIRST_BYTES:])
        yield from ws.end_load()

    def first_rows_done(self, run: int) -> None:
        """<html data-first-rows-ms>: the time from the job's start to its first rows on screen."""
        if run == self.jobs.run and self.first_rows_run != run:
            self.first_rows_run = run
            self.root.dataset.firstRowsMs = f"{self.jobs.elapsed_ms():.0f}"

