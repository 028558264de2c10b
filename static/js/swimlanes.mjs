// The swimlanes' page side: draws the tracks the worker built (web/swimlanes.py makes each
// [data-testid=swimlane-track] and sends each lane's spans and marks as ops: lanes, lane-meta,
// lane-part, lanes-ready, which ui.mjs hands to begin, meta, part and ready here) on one
// canvas per track, and owns what must answer at once: zoom (wheel, pinch, + / - keys, buttons),
// pan (shift+wheel, horizontal wheel, dragging the ruler, one finger), hover (name and duration),
// the keyboard (the tracks are the view's one Tab stop; ← → move between a track's spans, ↑ ↓ between
// tracks, Enter selects, Home/End, + / − / 0 zoom and fit, Esc clears the range: declared on each track
// with aria-keyshortcuts and said in its aria-description, so the zoom buttons are for the pointer
// and no Tab stops of their own), and dragging a range. What the reader picks and the range dragged
// (or cleared) go to the worker as messages (pick, range), through the functions ui.mjs connects.
// The other way, the row selected anywhere comes as op lane-select (select here): its span is
// outlined, the view moved to it if it is out of it, and its track scrolled into the tracks' box.
// The section's data-version, data-axis, data-unit, data-span, data-origin, data-view, data-load-ms
// and data-draw-ms are set here for scripts and tests; nothing reads them back.
//
// The folded axis: the worker sends the run's folds with the header (folds.py's to_json: the idle
// gaps that fold into narrow breaks, and the segments mapping true time onto the axis), and says
// with the section's data-fold ("off": to scale) whether to use them. The spans, marks and the
// range dragged keep their true times (seconds from the run's start); the view, zoom and pan are
// places on the axis. toAxis and toTime are the one map between the two, each way: everything
// that draws or points goes through them. Each break is drawn on every track and on the ruler,
// where a [data-testid=axis-gap] element (its folded time in data-ms) says "4h 07m idle".
//
// Why a canvas: a 600 MB run has ~10^5 spans; as elements (SVG or DOM) every zoom step would
// relayout them all. The canvas is redrawn per animation frame from typed arrays, walking only
// the spans in view (a binary search per row) and merging those narrower than a pixel into one
// pixel column, so a frame costs the spans in view, never more than the width in rectangles
// (bench/swimlanes_bench.py measures the longest task while zooming).
// The parts: swimlanes-state.mjs (the section's elements, the constants, the state they share, the
// frame asked for), swimlanes-axis.mjs (the folded axis, the view, zoom and pan, the ruler),
// swimlanes-tracks.mjs (each track's data read, the density, the frame drawn) and
// swimlanes-interaction.mjs (pointer, wheel, hover, click, keyboard); this module is the entry
// point: the worker's data in, a load, the observers, and what ui.mjs and the tests call.
// Must not: set markup (labels are transcript text: only fillText and textContent), eval, or
// wait for the worker.

import { KEYSHORTCUTS, KEYS_SAID, S, onFrame, round, schedule, section, tracksBox } from "./swimlanes-state.mjs";
import { refold, toAxis, toTime } from "./swimlanes-axis.mjs";
import { draw, fitDensity, get, later, rowH, rowY, seen, shell } from "./swimlanes-tracks.mjs";
import { moveTo, nearest, onKey, reveal } from "./swimlanes-interaction.mjs";

export { toAxis, toTime }; // the folded axis' map, each way (swimlanes-axis.mjs)
onFrame(draw);

export function connect(to) {
  S.hooks = to;
}

// -- the worker's data: a timeline begins, each lane's names and parts come, then it is ready --

export function begin(head) {
  S.header = head;
  S.incoming = new Map();
}

export function meta(lane, spans, marks) {
  S.incoming.set(lane, { spans, marks, parts: { spans: [], marks: [] } });
}

export function part(lane, stem, k, text) {
  const data = S.incoming.get(lane);
  if (data) data.parts[stem][k] = text;
}

export function ready() {
  for (const [name, value] of Object.entries(S.header)) if (typeof value !== "object") section.dataset[name] = String(value);
  load();
}

function load() {
  const t = performance.now();
  S.unit = S.header.unit || "s";
  S.origin = Number(S.header.origin || 0);
  S.segs = null;
  S.full = [0, 1];
  S.view = S.full.slice();
  S.brush = null;
  refold(); // the axis, folded or to scale, at Fit
  S.cursor = S.picked = null;
  seen.disconnect();
  S.wanted = null; // the worker says the selection again once the data is drawn
  S.lanes = Array.from(tracksBox.querySelectorAll("[data-testid=swimlane-track]"), shell);
  fitDensity();
  S.lanes.forEach((lane, li) => {
    seen.observe(lane.box);
    // one Tab stop for all the tracks (a roving tabindex): ↑ ↓ go from track to track
    lane.box.tabIndex = li === 0 ? 0 : -1;
    lane.box.setAttribute("aria-keyshortcuts", KEYSHORTCUTS);
    lane.box.setAttribute("aria-description", KEYS_SAID);
    lane.box.addEventListener("keydown", (ev) => onKey(ev, li));
    lane.box.addEventListener("focus", () => {
      for (const other of S.lanes) other.box.tabIndex = other === lane ? 0 : -1;
      // from the keyboard: the span nearest the view's middle; from a press (drag is set on
      // pointerdown, before the focus), what the pointer picks and says
      if (!S.drag && (!S.cursor || S.cursor.lane !== li)) moveTo(li, nearest(get(li), toTime((S.view[0] + S.view[1]) / 2)));
    });
  });
  section.dataset.loadMs = (performance.now() - t).toFixed(1);
  later(++S.idleRun);
  schedule();
}

// section's data-fold, and the axis follows.
new MutationObserver(() => S.lanes.length && refold()).observe(section, { attributes: true, attributeFilter: ["data-fold"] });

new ResizeObserver(() => {
  fitDensity();
  schedule();
}).observe(tracksBox);
const recolor = () => {
  S.colors = {};
  for (const lane of S.lanes) lane.color = "";
  schedule();
};
new MutationObserver(recolor).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
window.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", recolor);
new MutationObserver(schedule).observe(section, { attributes: true, attributeFilter: ["hidden"] });

// The selected row's span (op lane-select): outlined, and brought into view when out of it.
export function select(laneId, seq) {
  S.wanted = laneId == null ? null : [laneId, seq];
  const li = S.wanted ? S.lanes.findIndex((l) => l.id === laneId) : -1;
  const lane = li < 0 ? null : get(li);
  for (const l of S.lanes) delete l.track.dataset.selected;
  const i = lane ? lane.seq.indexOf(seq) : -1;
  S.picked = i < 0 ? null : { lane: li, i };
  if (S.picked) {
    lane.track.dataset.selected = String(seq);
    reveal(lane, i);
    const box = lane.track.getBoundingClientRect();
    const room = tracksBox.getBoundingClientRect();
    if (box.top < room.top || box.bottom > room.bottom) tracksBox.scrollTop += box.top - room.top - 4;
  }
  schedule();
}

// For scripts and tests: a track's spans as the page holds them, and the range dragged.
export function spansOf(laneId) {
  const li = S.lanes.findIndex((l) => l.id === laneId);
  const lane = li < 0 ? null : get(li);
  if (!lane) return [];
  return Array.from(lane.s, (start, i) => ({ start, end: lane.e[i], row: lane.row[i], flags: lane.flags[i],
    seq: lane.seq[i], name: lane.names[lane.name[i]] }));
}

// The range is in true time from the run's start, as the worker gets it.
export const range = () => (S.brush ? [round(S.brush[0]), round(S.brush[1])] : null);

// For scripts and tests: where row r of a track is drawn at the current density, [top, height] in px.
export const rowBox = (r) => [rowY(r), rowH(r)];

// For scripts and benchmarks: how many spans and marks the tracks hold.
export function counts() {
  let spans = 0;
  let marks = 0;
  for (let li = 0; li < S.lanes.length; li++) {
    const lane = get(li);
    spans += lane.s.length;
    marks += lane.mat.length;
  }
  return { spans, marks };
}
