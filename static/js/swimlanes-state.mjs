// The swimlanes' shared state (swimlanes.mjs says what the swimlanes are): the section's elements,
// the drawing's constants, and S, what the axis, the tracks and the interaction all read and set
// (the tracks, the view on the axis, the range dragged, the span picked). The frame is asked for
// here (schedule), drawn by the function the entry point gives (onFrame).

export const section = document.getElementById("swimlanes");
export const tracksBox = document.getElementById("swimlanes-tracks");
export const clearRange = document.getElementById("swimlanes-clear-range");
export const tip = section.querySelector(".sl-tip");
export const ruler = section.querySelector(".sl-ruler canvas");
export const foldButton = document.getElementById("swimlanes-fold-idle");
export const gapLayer = document.createElement("div"); // the breaks' labels, over the ruler
gapLayer.className = "sl-gaps";
ruler.parentElement.append(gapLayer);

export const MAX_ROWS = 6; // tool rows kept per track; calls past them share the last row
// Two densities of drawing. Full: bars tall enough to hold their names, up to MAX_ROWS rows of
// calls. Compact: thin bars, the calls past the second row sharing it, one-line lane heads, so
// that main and the first sub-agents fit the swimlanes' default height over the rows. The tracks
// are drawn full when all of them fit the tracks' box so (fitDensity), else compact; dragging the
// box taller brings the full drawing back.
export const DENSITIES = {
  full: { agentH: 8, rowH: 14, gap: 2, rows: MAX_ROWS, names: true },
  compact: { agentH: 6, rowH: 5, gap: 1, rows: 2, names: false },
};
export const NARROW = matchMedia("(max-width: 640px)"); // swimlanes.css's narrow layout
export const RULER_LABEL_H = 11; // the ruler's top line: the ticks' and the breaks' labels (px; .sl-gap's line-height)
export const FULL_HEAD_H = 30; // a full track's head: its label over its figures (px, swimlanes.css)
export const TRACK_CHROME = 7; // a full track's border and padding (px, swimlanes.css)
export const RUN_HEAD_H = 19; // a Workflow run's header over its tracks, with its border (px, swimlanes.css)
// A sub-agent's spans are drawn at least this wide (px), from their true start, so that a short
// agent stays in sight and clickable at any zoom; its tooltip says its true duration, and that it
// is drawn wider than its time. Main's spans are drawn to scale (at least a pixel column): its
// many calls would otherwise cover each other.
export const MIN_SUB_PX = 8;
export const MIN_SPAN = 1e-9;
// What the focused track answers to (onKey), declared to assistive technology and said to the reader.
export const KEYSHORTCUTS = "ArrowLeft ArrowRight ArrowUp ArrowDown Home End Enter Shift+= = - 0 f Escape";
export const KEYS_SAID = "Keys: ← → move between spans, ↑ ↓ between tracks, Home End the first and last, "
  + "Enter selects the span's row, + and − zoom, 0 shows the whole run, F folds or unfolds the idle time, "
  + "Esc clears a dragged range.";

export const S = {
  lanes: [],
  full: [0, 1],
  view: [0, 1],
  unit: "s",
  origin: 0, // x of the run's start, in the input's own unit
  frame: 0,
  draw: () => {}, // the frame's drawing (onFrame)
  cursor: null, // {lane, i}: the span the keyboard is on
  picked: null, // {lane, i}: the span last picked, or the selected row's
  wanted: null, // [lane id, seq]: the selected row's span, as the worker last said it
  brush: null, // [a, b] in true time, the range the timeline is filtered to
  segs: null, // the folded axis' segments [t0, t1, x0, x1] (true time from the run's start -> axis); null: to scale
  breaks: [], // [{t0, t1, x0, x1, ms, label, el}] of the folded axis
  colors: {},
  header: { version: 0, axis: "", unit: "s", span: 0, origin: 0 }, // of the timeline coming or shown
  incoming: new Map(), // lane id -> {spans, marks, parts: {spans: [], marks: []}}: the data as it comes
  hooks: { pick: () => {}, range: () => {} }, // to the worker (ui.mjs connects them)
  idleRun: 0,
  drag: null, // the pointer's drag under way (swimlanes-interaction.mjs)
  geo: null, // the density drawn (DENSITIES), set below
};
S.geo = DENSITIES.full;

export function onFrame(draw) {
  S.draw = draw;
}

export function schedule() {
  if (!S.frame) S.frame = requestAnimationFrame(() => S.draw());
}

export const round = (x) => Math.round(x * 1000) / 1000;

export const lowerBound = (arr, x, n) => {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (arr[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};
