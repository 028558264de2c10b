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
// Must not: set markup (labels are transcript text: only fillText and textContent), eval, or
// wait for the worker.

const section = document.getElementById("swimlanes");
const tracksBox = document.getElementById("swimlanes-tracks");
const clearRange = document.getElementById("swimlanes-clear-range");
const tip = section.querySelector(".sl-tip");
const ruler = section.querySelector(".sl-ruler canvas");
const foldButton = document.getElementById("swimlanes-fold-idle");
const gapLayer = document.createElement("div"); // the breaks' labels, over the ruler
gapLayer.className = "sl-gaps";
ruler.parentElement.append(gapLayer);

const MAX_ROWS = 6; // tool rows kept per track; calls past them share the last row
// Two densities of drawing. Full: bars tall enough to hold their names, up to MAX_ROWS rows of
// calls. Compact: thin bars, the calls past the second row sharing it, one-line lane heads, so
// that main and the first sub-agents fit the swimlanes' default height over the rows. The tracks
// are drawn full when all of them fit the tracks' box so (fitDensity), else compact; dragging the
// box taller brings the full drawing back.
const DENSITIES = {
  full: { agentH: 8, rowH: 14, gap: 2, rows: MAX_ROWS, names: true },
  compact: { agentH: 6, rowH: 5, gap: 1, rows: 2, names: false },
};
const NARROW = matchMedia("(max-width: 640px)"); // swimlanes.css's narrow layout
const RULER_LABEL_H = 11; // the ruler's top line: the ticks' and the breaks' labels (px; .sl-gap's line-height)
const FULL_HEAD_H = 30; // a full track's head: its label over its figures (px, swimlanes.css)
const TRACK_CHROME = 7; // a full track's border and padding (px, swimlanes.css)
const RUN_HEAD_H = 19; // a Workflow run's header over its tracks, with its border (px, swimlanes.css)
// A sub-agent's spans are drawn at least this wide (px), from their true start, so that a short
// agent stays in sight and clickable at any zoom; its tooltip says its true duration, and that it
// is drawn wider than its time. Main's spans are drawn to scale (at least a pixel column): its
// many calls would otherwise cover each other.
const MIN_SUB_PX = 8;
let geo = DENSITIES.full;
const MIN_SPAN = 1e-9;
// What the focused track answers to (onKey), declared to assistive technology and said to the reader.
const KEYSHORTCUTS = "ArrowLeft ArrowRight ArrowUp ArrowDown Home End Enter Shift+= = - 0 f Escape";
const KEYS_SAID = "Keys: ← → move between spans, ↑ ↓ between tracks, Home End the first and last, "
  + "Enter selects the span's row, + and − zoom, 0 shows the whole run, F folds or unfolds the idle time, "
  + "Esc clears a dragged range.";

let lanes = [];
let full = [0, 1];
let view = [0, 1];
let unit = "s";
let origin = 0; // x of the run's start, in the input's own unit
let frame = 0;
let cursor = null; // {lane, i}: the span the keyboard is on
let picked = null; // {lane, i}: the span last picked, or the selected row's
let wanted = null; // [lane id, seq]: the selected row's span, as the worker last said it
let brush = null; // [a, b] in true time, the range the timeline is filtered to
let segs = null; // the folded axis' segments [t0, t1, x0, x1] (true time from the run's start -> axis); null: to scale
let breaks = []; // [{t0, t1, x0, x1, ms, label, el}] of the folded axis
let colors = {};
let header = { version: 0, axis: "", unit: "s", span: 0, origin: 0 }; // of the timeline coming or shown
let incoming = new Map(); // lane id -> {spans, marks, parts: {spans: [], marks: []}}: the data as it comes
let hooks = { pick: () => {}, range: () => {} }; // to the worker (ui.mjs connects them)

export function connect(to) {
  hooks = to;
}

// -- the worker's data: a timeline begins, each lane's names and parts come, then it is ready --

export function begin(head) {
  header = head;
  incoming = new Map();
}

export function meta(lane, spans, marks) {
  incoming.set(lane, { spans, marks, parts: { spans: [], marks: [] } });
}

export function part(lane, stem, k, text) {
  const data = incoming.get(lane);
  if (data) data.parts[stem][k] = text;
}

export function ready() {
  for (const [name, value] of Object.entries(header)) if (typeof value !== "object") section.dataset[name] = String(value);
  load();
}

// -- the folded axis: true time (seconds from the run's start) <-> a place on the axis ---------

// A true time's place on the axis: linear within its segment, slope 1 off the ends (folds.py's
// Fold.to_axis); the identity when the axis is to scale.
export function toAxis(t) {
  return segs ? along(t, 0, 2) : t;
}

// The true time at a place on the axis (Fold.to_time): the inverse of toAxis.
export function toTime(x) {
  return segs ? along(x, 2, 0) : x;
}

function along(v, src, dst) {
  let lo = 0;
  let hi = segs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segs[mid][src] <= v) lo = mid;
    else hi = mid - 1;
  }
  const g = segs[lo];
  const [a, b, oa, ob] = [g[src], g[src + 1], g[dst], g[dst + 1]];
  if (v <= a || b === a) return oa + (v - a);
  if (v >= b) return ob + (v - b);
  return oa + ((v - a) * (ob - oa)) / (b - a);
}

// The map of the header's folds, when the section says to fold (and there is a break); the
// breaks' labels on the ruler. The view keeps the same stretch of true time (or the whole run).
function refold() {
  const folds = header.folds;
  const start = Number(folds?.start ?? 0);
  const on = section.dataset.fold !== "off" && folds?.breaks?.length > 0;
  const fitted = view[0] <= full[0] && view[1] >= full[1];
  const shown = [toTime(view[0]), toTime(view[1])];
  segs = on ? folds.segments.map(([t0, t1, x0, x1]) => [t0 - start, t1 - start, x0, x1]) : null;
  gapLayer.replaceChildren();
  breaks = !on ? [] : folds.breaks.map((b) => {
    const el = document.createElement("span");
    el.className = "sl-gap";
    el.dataset.testid = "axis-gap";
    el.dataset.ms = String(b.folded_ms);
    el.textContent = b.label; // words of ours (folds.py), set as text all the same
    el.title = `${b.label}: ${clock(b.start)} → ${clock(b.end)}`;
    gapLayer.append(el);
    return { t0: b.start - start, t1: b.end - start, x0: b.at, x1: b.at + b.width, ms: b.folded_ms, label: b.label, el };
  });
  section.dataset.breaks = String(breaks.length);
  full = [0, Math.max(toAxis(Math.max(Number(header.span || 0), MIN_SPAN)), MIN_SPAN)];
  if (fitted) view = full.slice();
  else setView(toAxis(shown[0]), toAxis(shown[1]));
  schedule();
}

const clock = (seconds) => `${new Date(seconds * 1000).toISOString().slice(0, 19).replace("T", " ")} UTC`;

const lowerBound = (arr, x, n) => {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (arr[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

// A track as the worker built it, before its data is read (see readPart).
function shell(track) {
  const box = track.querySelector(".sl-lane");
  let canvas = box.querySelector("canvas");
  if (!canvas) {
    canvas = document.createElement("canvas");
    box.append(canvas);
  }
  const data = incoming.get(track.dataset.lane);
  const rowsUsed = Math.min(Number(data?.spans.rows ?? 1) - 1, MAX_ROWS);
  const height = heightAt(geo, rowsUsed);
  box.style.height = `${height}px`;
  return { track, box, canvas, height, rowsUsed, id: track.dataset.lane, parsed: false, meta: null, visible: false, color: "",
    label: data?.spans.label ?? "", data, minPx: track.dataset.parent ? MIN_SUB_PX : 0 };
}

// A track's canvas height at a density: its agent bar and its rows of calls.
const heightAt = (g, rowsUsed) => g.agentH + g.gap + Math.max(1, Math.min(rowsUsed, g.rows)) * (g.rowH + g.gap);

// Full if every track fits the tracks' box drawn full (their box's own height where the layout
// gives it one: the workspace; else the most it may grow to), else compact. Said as the
// section's data-density (swimlanes.css lays the lane heads out by it).
function fitDensity() {
  if (!lanes.length || section.hidden) return;
  fitHeight();
  const cs = getComputedStyle(tracksBox);
  const room = cs.maxHeight !== "none" ? parseFloat(cs.maxHeight) : tracksBox.clientHeight;
  if (!room) return; // folded, or not laid out yet
  const need = lanes.reduce((n, l) => n + Math.max(heightAt(DENSITIES.full, l.rowsUsed), FULL_HEAD_H) + TRACK_CHROME, 0)
    + tracksBox.querySelectorAll(".sl-run-head").length * RUN_HEAD_H;
  // a phone (swimlanes.css's narrow layout) keeps them compact at any height: drawn full there a
  // label goes above its track and a missing sub-agent's card wraps, which this sum does not count
  const next = need <= room + 1 && !NARROW.matches ? DENSITIES.full : DENSITIES.compact;
  section.dataset.density = next === DENSITIES.full ? "full" : "compact";
  if (next === geo) return;
  geo = next;
  for (const lane of lanes) {
    lane.height = heightAt(geo, lane.rowsUsed);
    lane.box.style.height = `${lane.height}px`;
  }
  schedule();
}

// On a phone (swimlanes.css's narrow layout) the section's default height holds its first
// FIT_ENTRIES entries (tracks and missing sub-agents' cards, drawn compact there), not a fixed
// height that cut the third in half: said as --sl-fit-h, which workspace.css's phone height
// reads, at most FIT_SHARE of the column (the rows keep the rest). Not once the reader set a
// height (grip.mjs writes the section's style.height), nor while folded.
const FIT_ENTRIES = 6;
const FIT_SHARE = 0.45;
function fitHeight() {
  if (!NARROW.matches || section.style.height || section.classList.contains("folded")) return;
  const entries = tracksBox.children;
  const box = tracksBox.getBoundingClientRect();
  if (!entries.length || !box.height) return;
  const last = entries[Math.min(entries.length, FIT_ENTRIES) - 1].getBoundingClientRect();
  const rect = section.getBoundingClientRect();
  const need = rect.height - box.height + (last.bottom - box.top + tracksBox.scrollTop) + 2;
  const column = section.parentElement.getBoundingClientRect().height;
  const want = Math.ceil(Math.min(need, column * FIT_SHARE));
  if (Math.abs(want - rect.height) >= 1) section.style.setProperty("--sl-fit-h", `${want}px`);
}

// A track's data is read a part at a time: in idle time after a load (the tracks in sight
// first), or all at once when it is first drawn or reached before that.
function open(lane) {
  const meta = lane.data?.spans ?? { names: [], labels: [], n: 0, parts: 0 };
  const mmeta = lane.data?.marks ?? { texts: [], n: 0, parts: 0 };
  const n = meta.n;
  const m = mmeta.n;
  Object.assign(lane, {
    meta, mmeta, part: 0, filled: 0, mfilled: 0,
    s: new Float64Array(n), e: new Float64Array(n), row: new Int32Array(n), flags: new Int32Array(n),
    seq: new Int32Array(n), name: new Int32Array(n), names: meta.names, labels: meta.labels,
    mat: new Float64Array(m), mkind: new Int32Array(m), mseq: new Int32Array(m), mline: new Int32Array(m),
    mtext: new Int32Array(m), mtexts: mmeta.texts,
  });
}

function readPart(lane) {
  if (!lane.meta) open(lane);
  const p = lane.part++;
  if (p < lane.meta.parts) {
    const d = JSON.parse(lane.data?.parts.spans[p] || "[]");
    let i = lane.filled;
    for (let o = 0; o + 5 < d.length; o += 6, i++) {
      lane.s[i] = d[o];
      lane.e[i] = d[o + 1];
      lane.row[i] = Math.min(d[o + 2], MAX_ROWS);
      lane.flags[i] = d[o + 3];
      lane.seq[i] = d[o + 4];
      lane.name[i] = d[o + 5];
    }
    lane.filled = i;
  } else if (p < lane.meta.parts + lane.mmeta.parts) {
    const d = JSON.parse(lane.data?.parts.marks[p - lane.meta.parts] || "[]");
    let j = lane.mfilled;
    for (let o = 0; o + 4 < d.length; o += 5, j++) {
      lane.mat[j] = d[o];
      lane.mkind[j] = d[o + 1];
      lane.mseq[j] = d[o + 2];
      lane.mline[j] = d[o + 3];
      lane.mtext[j] = d[o + 4];
    }
    lane.mfilled = j;
  }
  if (lane.part >= lane.meta.parts + lane.mmeta.parts) {
    lane.data = null; // parsed: the text goes
    finish(lane);
  }
}

function finish(lane) {
  // the worker sent the spans by row, then start: a row's calls never overlap, so its ends sort
  // too (the last row also holds what overflowed the rows drawn: a running max keeps it right)
  const { s, e, row } = lane;
  const n = s.length;
  const byRow = [];
  for (let r = 0; r <= lane.rowsUsed; r++) {
    const ids = [];
    for (let j = 0; j < n; j++) if (row[j] === r) ids.push(j);
    if (r === lane.rowsUsed) ids.sort((a, b) => s[a] - s[b] || a - b); // the merged last row
    const idx = Int32Array.from(ids);
    const ends = new Float64Array(ids.length);
    let top = -Infinity;
    for (let k = 0; k < ids.length; k++) ends[k] = top = Math.max(top, e[ids[k]]);
    byRow.push({ idx, ends });
  }
  lane.byRow = byRow;
  lane.parsed = true;
}

function get(li) {
  const lane = lanes[li];
  while (lane && !lane.parsed) readPart(lane);
  return lane;
}

let idleRun = 0;
function idle(run, deadline) {
  if (run !== idleRun) return;
  const todo = lanes.filter((l) => !l.parsed).sort((a, b) => b.visible - a.visible);
  for (const lane of todo) {
    while (!lane.parsed && deadline.timeRemaining() > 4) readPart(lane);
    if (!lane.parsed) break;
    if (lane.visible) schedule();
  }
  if (lanes.some((l) => !l.parsed)) later(run);
}
const later = (run) => (window.requestIdleCallback
  ? requestIdleCallback((d) => idle(run, d), { timeout: 500 })
  : setTimeout(() => idle(run, { timeRemaining: () => 10 }), 16));

const seen = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const lane = lanes.find((l) => l.box === entry.target);
    if (lane) lane.visible = entry.isIntersecting;
  }
  schedule();
}, { root: tracksBox, rootMargin: "200px 0px" });

function load() {
  const t = performance.now();
  unit = header.unit || "s";
  origin = Number(header.origin || 0);
  segs = null;
  full = [0, 1];
  view = full.slice();
  brush = null;
  refold(); // the axis, folded or to scale, at Fit
  cursor = picked = null;
  seen.disconnect();
  wanted = null; // the worker says the selection again once the data is drawn
  lanes = Array.from(tracksBox.querySelectorAll("[data-testid=swimlane-track]"), shell);
  fitDensity();
  lanes.forEach((lane, li) => {
    seen.observe(lane.box);
    // one Tab stop for all the tracks (a roving tabindex): ↑ ↓ go from track to track
    lane.box.tabIndex = li === 0 ? 0 : -1;
    lane.box.setAttribute("aria-keyshortcuts", KEYSHORTCUTS);
    lane.box.setAttribute("aria-description", KEYS_SAID);
    lane.box.addEventListener("keydown", (ev) => onKey(ev, li));
    lane.box.addEventListener("focus", () => {
      for (const other of lanes) other.box.tabIndex = other === lane ? 0 : -1;
      // from the keyboard: the span nearest the view's middle; from a press (drag is set on
      // pointerdown, before the focus), what the pointer picks and says
      if (!drag && (!cursor || cursor.lane !== li)) moveTo(li, nearest(get(li), toTime((view[0] + view[1]) / 2)));
    });
  });
  section.dataset.loadMs = (performance.now() - t).toFixed(1);
  later(++idleRun);
  schedule();
}

// -- drawing --------------------------------------------------------------------------------

// The theme's colours, read once per theme (a read of computed style each frame would make the
// browser recompute the page's styles in the frame whenever anything changed).
function readColors() {
  const cs = getComputedStyle(section);
  const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  colors = { fg: v("--fg", "#1f2328"), muted: v("--muted", "#59636e"), border: v("--border", "#d1d9e0"),
    error: v("--error", "#cf222e"), bg: v("--bg", "#fff"), accent: v("--accent", "#0969da"),
    brush: v("--accent-soft", "#ddf4ff"), lanes: [] };
  for (let c = 0; c < 8; c++) colors.lanes.push(v(`--lane-${c}`, colors.accent));
}

const laneColor = (lane) => colors.lanes[Number(/lane-c(\d+)/.exec(lane.track.className)?.[1] ?? 0) % 8];

function schedule() {
  if (!frame) frame = requestAnimationFrame(draw);
}

function sizeCanvas(canvas, cssW, cssH) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(cssW * dpr));
  const h = Math.max(1, Math.round(cssH * dpr));
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
    canvas.style.height = `${cssH}px`; // its width is the CSS's 100%: a narrower window never waits for a frame
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

function draw() {
  frame = 0;
  if (section.hidden || !lanes.length) return;
  const t = performance.now();
  if (!colors.lanes) readColors();
  const w = lanes[0].box.clientWidth; // every track is as wide: read once, before any canvas is sized
  drawRuler();
  let slowest = [0, -1];
  for (let li = 0; li < lanes.length; li++) {
    if (!lanes[li].visible || !lanes[li].parsed) continue;
    const t1 = performance.now();
    drawLane(li, w);
    if (performance.now() - t1 > slowest[0]) slowest = [performance.now() - t1, li];
  }
  writeGapLabels(); // the frame's writes to elements, after its canvases (see placeGapLabels)
  section.dataset.view = `${round(view[0])} ${round(view[1])}`;
  // the last frame's cost, and its slowest track (bench/swimlanes_bench.py)
  section.dataset.drawMs = (performance.now() - t).toFixed(1);
  section.dataset.drawSlowest = `${slowest[1]}:${slowest[0].toFixed(1)}`;
}

const round = (x) => Math.round(x * 1000) / 1000;

// Where a row of a track is drawn (the rows past the density's last share it), and how high.
function rowY(r) {
  return r === 0 ? 0 : geo.agentH + geo.gap + (Math.min(r, geo.rows) - 1) * (geo.rowH + geo.gap);
}
const rowH = (r) => (r === 0 ? geo.agentH : geo.rowH);

// Where span i is drawn, in px from the canvas' left: its true extent, at least a pixel column;
// a sub-agent's at least lane.minPx from its true start (ending at the view's right edge, rather
// than past it, when its start is that close to it).
function extent(lane, i, u0, k, w) {
  let x0 = Math.floor((toAxis(lane.s[i]) - u0) * k);
  let x1 = Math.max((toAxis(lane.e[i]) - u0) * k, x0 + 1);
  if (x1 - x0 < lane.minPx) {
    x1 = x0 + lane.minPx;
    if (x1 > w && x0 < w) {
      x0 = Math.max(0, w - lane.minPx);
      x1 = x0 + lane.minPx;
    }
  }
  return [Math.max(x0, -2), Math.min(x1, w + 2)];
}

// Rectangles of one colour, with neighbouring pixel columns merged into one run, each filled
// with fillRect once the colour is set, once: a colour set per bar, or one Path2D of thousands of
// rectangles, costs a frame more than the spans in view (bench/swimlanes_bench.py).
class Runs {
  constructor() {
    this.rects = [];
    this.a = -9;
    this.b = -9;
    this.y = 0;
    this.h = 0;
  }

  add(x0, x1, y, h) {
    if (y === this.y && h === this.h && x0 <= this.b) {
      this.b = Math.max(this.b, x1);
      return;
    }
    this.flush();
    this.a = x0;
    this.b = x1;
    this.y = y;
    this.h = h;
  }

  flush() {
    if (this.b > this.a) this.rects.push(this.a, this.y, this.b - this.a, this.h);
    this.a = this.b = -9;
  }

  fill(ctx, style, alpha) {
    this.flush();
    if (!this.rects.length) return;
    ctx.globalAlpha = alpha;
    ctx.fillStyle = style;
    const r = this.rects;
    for (let q = 0; q < r.length; q += 4) ctx.fillRect(r[q], r[q + 1], r[q + 2], r[q + 3]);
  }
}

function drawLane(li, w) {
  const lane = get(li);
  if (!w) return;
  const ctx = sizeCanvas(lane.canvas, w, lane.height);
  ctx.clearRect(0, 0, w, lane.height);
  const [u0, u1] = view; // on the axis
  const [t0, t1] = [toTime(u0), toTime(u1)]; // the true times in view: what the searches compare
  const k = w / (u1 - u0);
  const px = (t) => (toAxis(t) - u0) * k;
  const color = lane.color || (lane.color = laneColor(lane));
  if (brush) {
    ctx.fillStyle = colors.brush;
    const a = px(brush[0]);
    ctx.fillRect(a, 0, px(brush[1]) - a, lane.height);
  }
  drawBreaks(ctx, u0, k, lane.height);
  const agent = new Runs();
  const ok = new Runs();
  const open = new Runs();
  const bad = new Runs();
  const labels = [];
  // a sub-agent's span drawn wider than its time reaches into the view from before it
  const from = lane.minPx ? toTime(u0 - lane.minPx / k) : t0;
  lane.byRow.forEach(({ idx, ends }, r) => {
    const y = rowY(r);
    const h = rowH(r);
    for (let j = lowerBound(ends, from, idx.length); j < idx.length; j++) {
      const i = idx[j];
      if (lane.s[i] > t1) break;
      // narrower than a pixel: a pixel column, merged with its neighbours; never dropped from sight
      let [x0, x1] = extent(lane, i, u0, k, w);
      if (x1 - x0 > Math.max(3, lane.minPx)) x1 -= 1; // a gap between bars that meet (not off a minimum width)
      const f = lane.flags[i];
      (f & 2 ? bad : r === 0 ? agent : f & 4 ? open : ok).add(x0, x1, y, h);
      if (geo.names && r > 0 && x1 - x0 > 40) labels.push(i, x0, x1, y + h / 2 + 0.5);
    }
    for (const runs of [agent, ok, open, bad]) runs.flush(); // runs never join across rows
  });
  agent.fill(ctx, color, 0.35);
  open.fill(ctx, color, 0.45);
  ok.fill(ctx, color, 0.85);
  bad.fill(ctx, colors.error, 0.85);
  ctx.globalAlpha = 1;
  if (labels.length) {
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    ctx.fillStyle = colors.bg;
    for (let q = 0; q < labels.length; q += 4) {
      // a label cut to its bar by characters (no clip region: a save/clip/restore per bar costs)
      const [i, xa, xb, y] = [labels[q], labels[q + 1], labels[q + 2], labels[q + 3]];
      const text = `${lane.names[lane.name[i]]} ${fmtDur(lane.e[i] - lane.s[i])}`;
      const fits = Math.floor((xb - xa - 6) / 6.2);
      ctx.fillText(text.length > fits ? `${text.slice(0, Math.max(1, fits - 1))}…` : text, xa + 3, y);
    }
  }
  const turns = new Runs();
  const lost = new Runs();
  for (let j = lowerBound(lane.mat, t0, lane.mat.length); j < lane.mat.length && lane.mat[j] <= t1; j++) {
    const x = Math.floor(px(lane.mat[j]));
    const kind = lane.mkind[j];
    if (kind === 0) turns.add(x, x + 1, 0, geo.agentH); // a model turn: a tick on the agent bar
    else lost.add(x - (kind === 2 ? 1 : 0), x + (kind === 2 ? 2 : 2), 0, lane.height); // lost: red; error: wider
  }
  turns.fill(ctx, colors.fg, 1);
  lost.fill(ctx, colors.error, 1);
  for (const [which, style] of [[picked, colors.fg], [cursor, colors.accent]]) {
    if (!which || which.lane !== li) continue;
    const i = which.i;
    const [x0, e] = extent(lane, i, u0, k, w);
    const x1 = Math.max(e, x0 + 2);
    ctx.strokeStyle = style;
    ctx.lineWidth = geo.rowH < 8 ? 1 : 2;
    const r = lane.row[i];
    ctx.strokeRect(x0 - 1, rowY(r) + 0.5, x1 - x0 + 2, rowH(r) - 1);
  }
}

// The breaks in view, on a track or the ruler: a band the colour of the borders, a zigzag at
// each edge (the axis is cut there). All bands in one colour, all zigzags in one path and one
// stroke: a stroke per break, on every track, cost a frame at Fit many times the spans' drawing
// (bench/swimlanes_bench.py --folded).
function drawBreaks(ctx, u0, k, height, top = 0) {
  const w = ctx.canvas.width;
  const shown = [];
  for (const b of breaks) {
    const a = (b.x0 - u0) * k;
    const z = Math.max((b.x1 - u0) * k, a + 3);
    if (z >= -4 && a <= w + 4) shown.push(a, z);
  }
  if (!shown.length) return;
  ctx.globalAlpha = 0.45;
  ctx.fillStyle = colors.border;
  for (let q = 0; q < shown.length; q += 2) ctx.fillRect(shown[q], top, shown[q + 1] - shown[q], height - top);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = colors.muted;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (const x of shown) {
    for (let y = top; y <= height; y += 4) {
      const dx = ((y - top) / 4) % 2 ? 1.5 : -1.5;
      if (y === top) ctx.moveTo(x + dx, y);
      else ctx.lineTo(x + dx, y);
    }
  }
  ctx.stroke();
}

function niceStep(range, px) {
  const want = range / Math.max(2, px / 90);
  const mag = 10 ** Math.floor(Math.log10(want));
  for (const m of [1, 2, 5, 10]) if (m * mag >= want) return m * mag;
  return 10 * mag;
}

function drawRuler() {
  const w = ruler.parentElement.clientWidth;
  const ctx = sizeCanvas(ruler, w, 18);
  ctx.clearRect(0, 0, w, 18);
  const [u0, u1] = view;
  const k = w / (u1 - u0);
  let step = niceStep(u1 - u0, w); // the work keeps its scale on the axis: one step for every piece of it
  if (unit !== "s") step = Math.max(1, Math.round(step));
  // on the ruler a break's mark keeps to the ticks' band, under the line its label is on (RULER_LABEL_H)
  drawBreaks(ctx, u0, k, 18, RULER_LABEL_H);
  const taken = placeGapLabels(u0, k, w); // [a, b] px of each break's label shown
  ctx.fillStyle = colors.muted;
  ctx.strokeStyle = colors.border;
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "top";
  ctx.fillRect(0, 17, w, 1);
  let free = -Infinity; // where the last tick's label ends
  // the ticks of each piece of work in view, at its true times (a break has none)
  for (const [a, b] of pieces(toTime(u0), toTime(u1))) {
    for (let t = Math.ceil(a / step) * step; t <= b; t += step) {
      const x = Math.round((toAxis(t) - u0) * k) + 0.5;
      // time: from the run's start (the axis caption says when that was); lines: the input's own numbers
      const text = unit === "s" ? fmtDur(t, true) : `${unit} ${Math.round(t + origin)}`;
      const end = x + 2 + text.length * 5.5;
      ctx.fillRect(x, 11, 1, 6);
      if (x < free + 4 || taken.some(([p, q]) => end > p && x < q)) continue; // no label on another
      ctx.fillText(text, x + 2, 1);
      free = end;
    }
  }
}

// The stretches of true time in [a, b] outside the breaks.
function pieces(a, b) {
  const out = [];
  let at = a;
  for (const g of breaks) {
    if (g.t1 <= at || g.t0 >= b) continue;
    if (g.t0 > at) out.push([at, g.t0]);
    at = g.t1;
  }
  if (b > at) out.push([at, b]);
  return out;
}

// Each break's label on the ruler, over its break, where it fits beside the one before; else
// shortened to the time ("4h 07m"), else only its title says it. Returns where the shown ones are.
// Placed here, written to the elements by writeGapLabels once the frame's canvases are drawn: a
// canvas' font set after a write to the page's elements makes the browser compute the page's
// styles then and there, which cost a folded frame ten times its drawing (bench/swimlanes_bench.py --folded).
function placeGapLabels(u0, k, w) {
  const taken = [];
  let free = -Infinity;
  for (const b of breaks) {
    const a = (b.x0 - u0) * k;
    const z = (b.x1 - u0) * k;
    const visible = z >= 0 && a <= w;
    if (!visible) {
      b.next = null;
      continue;
    }
    const mid = (a + z) / 2;
    const short = b.label.replace(/ idle$/, "");
    const fit = [b.label, short].find((text) => mid - (text.length * 5.5 + 6) / 2 >= free + 2);
    b.next = { text: fit ?? short, quiet: fit === undefined, left: `${a}px`, width: `${Math.max(z - a, 3)}px` };
    if (fit !== undefined) {
      const half = (fit.length * 5.5 + 6) / 2;
      taken.push([mid - half, mid + half]);
      free = mid + half;
    }
  }
  return taken;
}

// The breaks' labels as placed, written where they changed (none, a frame that only redraws).
function writeGapLabels() {
  for (const b of breaks) {
    const n = b.next;
    const o = b.shown;
    if (o === n || (o && n && o.text === n.text && o.quiet === n.quiet && o.left === n.left && o.width === n.width)) continue;
    b.shown = n;
    b.el.hidden = !n;
    if (!n) continue;
    b.el.textContent = n.text;
    b.el.classList.toggle("sl-gap-quiet", n.quiet);
    b.el.style.left = n.left;
    b.el.style.width = n.width;
  }
}

function fmtDur(x, at = false) {
  if (unit !== "s") {
    const n = Math.round(x);
    return `${n} ${unit}${n === 1 ? "" : "s"}`;
  }
  if (x < 0.1 && !at) return `${Math.round(x * 1000)} ms`;
  if (x < 10) return `${(Math.round(x * 10) / 10).toString()} s`;
  const s = Math.round(x);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

// -- zoom and pan ---------------------------------------------------------------------------

function setView(a, b) {
  const total = full[1] - full[0];
  let w = Math.min(Math.max(b - a, Math.max(total * 1e-6, unit === "s" ? 0.001 : 2)), total);
  a = Math.max(full[0], Math.min(a, full[1] - w));
  view = [a, a + w];
  schedule();
}

function zoom(factor, at) {
  const [a, b] = view;
  const x = at ?? (a + b) / 2;
  setView(x - (x - a) * factor, x + (b - x) * factor);
}

// The place on the axis under the pointer (toTime gives its true time).
const xAt = (box, clientX) => {
  const r = box.getBoundingClientRect();
  return view[0] + ((clientX - r.left) / Math.max(1, r.width)) * (view[1] - view[0]);
};

section.addEventListener("click", (ev) => {
  const b = ev.target.closest("[data-zoom]");
  if (!b) return;
  if (b.dataset.zoom === "in") zoom(0.5);
  else if (b.dataset.zoom === "out") zoom(2);
  else setView(full[0], full[1]);
});
// The fold toggle is the worker's (the view keeps it, the address says it): it answers with the
// section's data-fold, and the axis follows.
new MutationObserver(() => lanes.length && refold()).observe(section, { attributes: true, attributeFilter: ["data-fold"] });

function onWheel(ev) {
  if (!lanes.length) return;
  const box = ev.currentTarget;
  const horizontal = Math.abs(ev.deltaX) > Math.abs(ev.deltaY);
  if (ev.shiftKey || horizontal) {
    ev.preventDefault();
    const d = horizontal ? ev.deltaX : ev.deltaY;
    const [a, b] = view;
    const shift = (d / Math.max(1, box.clientWidth)) * (b - a);
    setView(a + shift, b + shift);
    return;
  }
  ev.preventDefault(); // wheel and pinch (a wheel event with ctrlKey) zoom where the pointer is
  const area = lanes[0]?.box ?? box;
  zoom(Math.exp(ev.deltaY * (ev.ctrlKey ? 0.01 : 0.002)), xAt(area, ev.clientX));
}
tracksBox.addEventListener("wheel", onWheel, { passive: false });
ruler.parentElement.addEventListener("wheel", onWheel, { passive: false });

// pointer: a mouse drag over the tracks is a range; over the ruler, or with shift, or a finger, a pan;
// two fingers pinch
const pointers = new Map();
let drag = null;

function laneAt(target) {
  const box = target.closest?.(".sl-lane");
  return box ? lanes.findIndex((l) => l.box === box) : -1;
}

tracksBox.addEventListener("pointerdown", (ev) => startDrag(ev, false));
ruler.parentElement.addEventListener("pointerdown", (ev) => startDrag(ev, true));

function startDrag(ev, onRuler) {
  if (!lanes.length || ev.button > 0) return;
  if (ev.target.closest?.("button, a")) return; // a card's link (a missing sub-agent's): a click, not a drag
  const area = lanes[0].box;
  pointers.set(ev.pointerId, ev.clientX);
  const pan = onRuler || ev.shiftKey || ev.pointerType === "touch";
  drag = { x0: ev.clientX, v0: view.slice(), a: xAt(area, ev.clientX), pan, moved: false, li: laneAt(ev.target),
    pinch: pointers.size === 2 ? { d0: Math.abs([...pointers.values()][0] - [...pointers.values()][1]), v0: view.slice() } : null };
  ev.currentTarget.setPointerCapture?.(ev.pointerId);
}

function onMove(ev) {
  if (!drag) return hover(ev);
  const area = lanes[0].box;
  pointers.set(ev.pointerId, ev.clientX);
  if (Math.abs(ev.clientX - drag.x0) > 3) drag.moved = true;
  if (drag.pinch && pointers.size === 2) {
    const [p, q] = [...pointers.values()];
    const d = Math.max(10, Math.abs(p - q));
    const mid = xAt(area, (p + q) / 2);
    const [a, b] = drag.pinch.v0;
    const f = drag.pinch.d0 / d;
    setView(mid - (mid - a) * f, mid + (b - mid) * f);
    return;
  }
  if (drag.pan) {
    const [a, b] = drag.v0;
    const shift = ((drag.x0 - ev.clientX) / Math.max(1, area.clientWidth)) * (b - a);
    setView(a + shift, b + shift);
  } else if (drag.moved) {
    const x = xAt(area, ev.clientX);
    brush = [toTime(Math.min(drag.a, x)), toTime(Math.max(drag.a, x))]; // across a break: both sides
    schedule();
  }
}

function onUp(ev) {
  pointers.delete(ev.pointerId);
  if (!drag) return;
  const d = drag;
  drag = pointers.size ? drag : null;
  if (d.pan || d.pinch) return;
  if (d.moved && brush) {
    hooks.range([round(brush[0]), round(brush[1])]);
    return;
  }
  if (d.li >= 0) clickAt(d.li, ev); // the lane pressed on (the pointer is captured: the target is the box)
}

tracksBox.addEventListener("pointermove", onMove);
ruler.parentElement.addEventListener("pointermove", onMove);
tracksBox.addEventListener("pointerup", onUp);
ruler.parentElement.addEventListener("pointerup", onUp);
tracksBox.addEventListener("pointercancel", (ev) => {
  pointers.delete(ev.pointerId);
  drag = null;
});
tracksBox.addEventListener("pointerleave", () => {
  if (!drag && !cursor) tip.hidden = true;
});

// "Clear range" (or Esc on a track): every row again (the worker hides the button)
function unbrush() {
  brush = null;
  hooks.range(null);
  schedule();
}
clearRange.addEventListener("click", unbrush);

// -- hover, click, keyboard -------------------------------------------------------------------

// What is under the pointer on track li: a mark, or the span drawn there (as extent draws it,
// with 3 px of slack), the one drawn under the pointer itself first.
function hit(li, ev) {
  const lane = get(li);
  const r = lane.box.getBoundingClientRect();
  const y = ev.clientY - r.top;
  const p = ev.clientX - r.left;
  const k = Math.max(1, r.width) / (view[1] - view[0]); // px per unit of the axis
  const u = view[0] + p / k;
  const slack = 3 / k; // 3 px, on the axis
  const [lo, hi] = [toTime(u - slack), toTime(u + slack)];
  // a sub-agent drawn wider than its time: its bar is the target, not the model turns squeezed on it
  const agentI = lane.byRow[0]?.idx[0];
  const squeezed = lane.minPx > 0 && agentI !== undefined && (toAxis(lane.e[agentI]) - toAxis(lane.s[agentI])) * k < lane.minPx;
  // marks first (lost blocks and errors are thin: give them the slack)
  for (let j = lowerBound(lane.mat, lo, lane.mat.length); j < lane.mat.length && lane.mat[j] <= hi; j++) {
    if (lane.mkind[j] !== 0 || (y < geo.agentH && !squeezed)) return { mark: j };
  }
  const band = y < geo.agentH + geo.gap / 2 ? 0 : Math.min(Math.floor((y - geo.agentH - geo.gap) / (geo.rowH + geo.gap)) + 1, geo.rows);
  const last = band < geo.rows ? band : lane.byRow.length - 1; // the density's last row holds the rest
  const from = toTime(u - slack - lane.minPx / k);
  let best = null;
  let off = Infinity;
  for (let row = band; row <= last; row++) {
    const { idx, ends } = lane.byRow[row] ?? { idx: [], ends: [] };
    for (let j = lowerBound(ends, from, idx.length); j < idx.length; j++) {
      const i = idx[j];
      if (lane.s[i] > hi) break;
      const [x0, x1] = extent(lane, i, view[0], k, r.width);
      const d = p < x0 ? x0 - p : p > x1 ? p - x1 : 0;
      if (d > 3) continue;
      // spans drawn wider than their time may cover each other: the one truly nearest wins
      const [a, b] = [(toAxis(lane.s[i]) - view[0]) * k, (toAxis(lane.e[i]) - view[0]) * k];
      const score = d * 1e6 + (p < a ? a - p : p > b ? p - b : 0);
      if (score < off) [best, off] = [i, score];
    }
  }
  return best === null ? null : { span: best };
}

function describe(lane, i) {
  const kind = lane.flags[i] & 1 ? "tool call" : "agent";
  const name = lane.flags[i] & 1 ? lane.names[lane.name[i]] : lane.label;
  const label = lane.labels[i];
  const bits = [`${name} · ${fmtDur(lane.e[i] - lane.s[i])}`];
  if (label && label !== name) bits.push(label);
  if (lane.flags[i] & 2) bits.push("error");
  if (lane.flags[i] & 4) bits.push("no result: runs to the lane's last event");
  const k = lane.box.clientWidth / (view[1] - view[0]);
  if (lane.minPx && (toAxis(lane.e[i]) - toAxis(lane.s[i])) * k < lane.minPx) {
    bits.push(`drawn ${lane.minPx} px wide from its start to stay clickable: shorter than drawn at this zoom`);
  }
  return { kind, text: bits.join(" — ") };
}

function describeMark(lane, j) {
  const kind = ["model turn", "lost block", "error"][lane.mkind[j]];
  return `${kind}: ${lane.mtexts[lane.mtext[j]]} (line ${lane.mline[j]})`;
}

function showTip(text, clientX, clientY) {
  tip.textContent = text;
  tip.hidden = false;
  // fixed to the window (the swimlanes' own box is a few lines high and would cut it off), placed
  // without measuring it (a read of its size would lay the page out again): on the pointer's right
  // in the left half of the window, on its left in the right half; under it, over it near the bottom
  const left = clientX < innerWidth / 2;
  tip.style.left = left ? `${Math.max(0, clientX + 12)}px` : "auto";
  tip.style.right = left ? "auto" : `${Math.max(0, innerWidth - clientX + 12)}px`;
  const low = clientY > innerHeight - 120;
  tip.style.top = low ? "auto" : `${clientY + 14}px`;
  tip.style.bottom = low ? `${innerHeight - clientY + 10}px` : "auto";
}

function hover(ev) {
  const li = laneAt(ev.target);
  if (li < 0) return;
  const h = hit(li, ev);
  if (!h) {
    const u = xAt(lanes[li].box, ev.clientX);
    const gap = breaks.find((b) => b.x0 <= u && u <= b.x1);
    if (gap) showTip(`${gap.label} (folded; the button "Fold idle" or F shows it to scale)`, ev.clientX, ev.clientY);
    else tip.hidden = true;
    return;
  }
  const lane = get(li);
  showTip(h.span !== undefined ? describe(lane, h.span).text : describeMark(lane, h.mark), ev.clientX, ev.clientY);
}

const send = (seq, line, laneId) => hooks.pick(seq, line, laneId);

function clickAt(li, ev) {
  const h = hit(li, ev);
  if (!h) return;
  const lane = get(li);
  if (h.span !== undefined) {
    picked = { lane: li, i: h.span };
    cursor = { ...picked };
    lane.box.focus({ preventScroll: true });
    send(lane.seq[h.span], null, lane.id);
  } else {
    const j = h.mark;
    send(lane.mseq[j] >= 0 ? lane.mseq[j] : null, lane.mline[j], lane.id);
  }
  schedule();
}

// The keyboard's order: by start, then row, then index. Each move is one scan of the track's
// typed arrays (no sorted copy to make first: 10^5 spans scan in well under a millisecond).
const before = (lane, a, b) => lane.s[a] < lane.s[b] || (lane.s[a] === lane.s[b] &&
  (lane.row[a] < lane.row[b] || (lane.row[a] === lane.row[b] && a < b)));

function neighbour(lane, i, dir) {
  let best = -1;
  for (let j = 0; j < lane.s.length; j++) {
    if (j === i || (dir > 0 ? !before(lane, i, j) : !before(lane, j, i))) continue;
    if (best < 0 || (dir > 0 ? before(lane, j, best) : before(lane, best, j))) best = j;
  }
  return best < 0 ? i : best;
}

function end(lane, dir) {
  let best = -1;
  for (let j = 0; j < lane.s.length; j++) if (best < 0 || (dir > 0 ? before(lane, best, j) : before(lane, j, best))) best = j;
  return best;
}

function nearest(lane, x) {
  let best = -1;
  let d = Infinity;
  for (let i = 0; i < lane.s.length; i++) {
    const dd = Math.abs((lane.s[i] + lane.e[i]) / 2 - x) + (lane.row[i] === 0 && lane.s.length > 1 ? 1e-9 : 0);
    if (dd < d) {
      d = dd;
      best = i;
    }
  }
  return best;
}

function moveTo(li, i) {
  const lane = get(li);
  if (!lane || i < 0 || i >= lane.s.length) return;
  cursor = { lane: li, i };
  const s = reveal(lane, i);
  const r = lane.box.getBoundingClientRect();
  const x = r.left + ((Math.max(s, view[0]) - view[0]) / (view[1] - view[0])) * r.width;
  const d = describe(lane, i);
  lane.box.setAttribute("aria-description", `${d.kind}: ${d.text}. ${KEYS_SAID}`);
  showTip(`${d.text}`, x, r.top + rowY(lane.row[i]));
  schedule();
}

// A span off the view (past a break, maybe) brought into it at the same zoom; its start on the axis.
function reveal(lane, i) {
  const [a, b] = view;
  const [s, e] = [toAxis(lane.s[i]), toAxis(lane.e[i])];
  if (e < a || s > b) setView(s - (b - a) / 3, s + (2 * (b - a)) / 3);
  return s;
}

function onKey(ev, li) {
  const lane = get(li);
  const i = cursor && cursor.lane === li ? cursor.i : nearest(lane, toTime((view[0] + view[1]) / 2));
  const keys = {
    ArrowRight: () => moveTo(li, neighbour(lane, i, 1)),
    ArrowLeft: () => moveTo(li, neighbour(lane, i, -1)),
    Home: () => moveTo(li, end(lane, -1)),
    End: () => moveTo(li, end(lane, 1)),
    ArrowDown: () => lanes[li + 1]?.box.focus(),
    ArrowUp: () => lanes[li - 1]?.box.focus(),
    Enter: () => {
      if (i < 0) return;
      picked = { lane: li, i };
      send(lane.seq[i], null, lane.id);
      schedule();
    },
    "+": () => zoom(0.5, i >= 0 ? toAxis(lane.s[i]) : undefined),
    "=": () => zoom(0.5, i >= 0 ? toAxis(lane.s[i]) : undefined),
    "-": () => zoom(2),
    0: () => setView(full[0], full[1]),
    f: () => !foldButton.hidden && foldButton.click(), // the worker keeps the choice (and the address)
    F: () => !foldButton.hidden && foldButton.click(),
    Escape: () => {
      if (!clearRange.hidden) {
        unbrush();
        return;
      }
      tip.hidden = true;
      cursor = null;
      schedule();
    },
  };
  const act = keys[ev.key];
  if (!act || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  ev.preventDefault();
  ev.stopPropagation(); // the page's own keys (← → step, ↑ ↓ rows) are not for this track
  act();
}

new ResizeObserver(() => {
  fitDensity();
  schedule();
}).observe(tracksBox);
const recolor = () => {
  colors = {};
  for (const lane of lanes) lane.color = "";
  schedule();
};
new MutationObserver(recolor).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
window.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", recolor);
new MutationObserver(schedule).observe(section, { attributes: true, attributeFilter: ["hidden"] });

// The selected row's span (op lane-select): outlined, and brought into view when out of it.
export function select(laneId, seq) {
  wanted = laneId == null ? null : [laneId, seq];
  const li = wanted ? lanes.findIndex((l) => l.id === laneId) : -1;
  const lane = li < 0 ? null : get(li);
  for (const l of lanes) delete l.track.dataset.selected;
  const i = lane ? lane.seq.indexOf(seq) : -1;
  picked = i < 0 ? null : { lane: li, i };
  if (picked) {
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
  const li = lanes.findIndex((l) => l.id === laneId);
  const lane = li < 0 ? null : get(li);
  if (!lane) return [];
  return Array.from(lane.s, (start, i) => ({ start, end: lane.e[i], row: lane.row[i], flags: lane.flags[i],
    seq: lane.seq[i], name: lane.names[lane.name[i]] }));
}

// The range is in true time from the run's start, as the worker gets it.
export const range = () => (brush ? [round(brush[0]), round(brush[1])] : null);

// For scripts and tests: where row r of a track is drawn at the current density, [top, height] in px.
export const rowBox = (r) => [rowY(r), rowH(r)];

// For scripts and benchmarks: how many spans and marks the tracks hold.
export function counts() {
  let spans = 0;
  let marks = 0;
  for (let li = 0; li < lanes.length; li++) {
    const lane = get(li);
    spans += lane.s.length;
    marks += lane.mat.length;
  }
  return { spans, marks };
}
