// The swimlanes' tracks (swimlanes.mjs says what the swimlanes are): each track's data read from
// the worker's parts into typed arrays (in idle time, the tracks in sight first), the density
// they are drawn at, and the frame: the ruler, then each track in sight on its canvas.

import { DENSITIES, FULL_HEAD_H, MAX_ROWS, MIN_SUB_PX, NARROW, RUN_HEAD_H, S, TRACK_CHROME, lowerBound, round, schedule, section, tracksBox } from "./swimlanes-state.mjs";
import { drawBreaks, drawRuler, fmtDur, sizeCanvas, toAxis, toTime, writeGapLabels } from "./swimlanes-axis.mjs";

// A track as the worker built it, before its data is read (see readPart).
export function shell(track) {
  const box = track.querySelector(".sl-lane");
  let canvas = box.querySelector("canvas");
  if (!canvas) {
    canvas = document.createElement("canvas");
    box.append(canvas);
  }
  const data = S.incoming.get(track.dataset.lane);
  const rowsUsed = Math.min(Number(data?.spans.rows ?? 1) - 1, MAX_ROWS);
  const height = heightAt(S.geo, rowsUsed);
  box.style.height = `${height}px`;
  return { track, box, canvas, height, rowsUsed, id: track.dataset.lane, parsed: false, meta: null, visible: false, color: "",
    label: data?.spans.label ?? "", data, minPx: track.dataset.parent ? MIN_SUB_PX : 0 };
}

// A track's canvas height at a density: its agent bar and its rows of calls.
const heightAt = (g, rowsUsed) => g.agentH + g.gap + Math.max(1, Math.min(rowsUsed, g.rows)) * (g.rowH + g.gap);

// Full if every track fits the tracks' box drawn full (their box's own height where the layout
// gives it one: the workspace; else the most it may grow to), else compact. Said as the
// section's data-density (swimlanes.css lays the lane heads out by it).
export function fitDensity() {
  if (!S.lanes.length || section.hidden) return;
  fitHeight();
  const cs = getComputedStyle(tracksBox);
  const room = cs.maxHeight !== "none" ? parseFloat(cs.maxHeight) : tracksBox.clientHeight;
  if (!room) return; // folded, or not laid out yet
  const need = S.lanes.reduce((n, l) => n + Math.max(heightAt(DENSITIES.full, l.rowsUsed), FULL_HEAD_H) + TRACK_CHROME, 0)
    + tracksBox.querySelectorAll(".sl-run-head").length * RUN_HEAD_H;
  // a phone (swimlanes.css's narrow layout) keeps them compact at any height: drawn full there a
  // label goes above its track and a missing sub-agent's card wraps, which this sum does not count
  const next = need <= room + 1 && !NARROW.matches ? DENSITIES.full : DENSITIES.compact;
  section.dataset.density = next === DENSITIES.full ? "full" : "compact";
  if (next === S.geo) return;
  S.geo = next;
  for (const lane of S.lanes) {
    lane.height = heightAt(S.geo, lane.rowsUsed);
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

export function get(li) {
  const lane = S.lanes[li];
  while (lane && !lane.parsed) readPart(lane);
  return lane;
}

function idle(run, deadline) {
  if (run !== S.idleRun) return;
  const todo = S.lanes.filter((l) => !l.parsed).sort((a, b) => b.visible - a.visible);
  for (const lane of todo) {
    while (!lane.parsed && deadline.timeRemaining() > 4) readPart(lane);
    if (!lane.parsed) break;
    if (lane.visible) schedule();
  }
  if (S.lanes.some((l) => !l.parsed)) later(run);
}
export const later = (run) => (window.requestIdleCallback
  ? requestIdleCallback((d) => idle(run, d), { timeout: 500 })
  : setTimeout(() => idle(run, { timeRemaining: () => 10 }), 16));

export const seen = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const lane = S.lanes.find((l) => l.box === entry.target);
    if (lane) lane.visible = entry.isIntersecting;
  }
  schedule();
}, { root: tracksBox, rootMargin: "200px 0px" });

// -- drawing --------------------------------------------------------------------------------

// The theme's colours, read once per theme (a read of computed style each frame would make the
// browser recompute the page's styles in the frame whenever anything changed).
function readColors() {
  const cs = getComputedStyle(section);
  const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  S.colors = { fg: v("--fg", "#1f2328"), muted: v("--muted", "#59636e"), border: v("--border", "#d1d9e0"),
    error: v("--error", "#cf222e"), bg: v("--bg", "#fff"), accent: v("--accent", "#0969da"),
    brush: v("--accent-soft", "#ddf4ff"), lanes: [] };
  for (let c = 0; c < 8; c++) S.colors.lanes.push(v(`--lane-${c}`, S.colors.accent));
}

const laneColor = (lane) => S.colors.lanes[Number(/lane-c(\d+)/.exec(lane.track.className)?.[1] ?? 0) % 8];

export function draw() {
  S.frame = 0;
  if (section.hidden || !S.lanes.length) return;
  const t = performance.now();
  if (!S.colors.lanes) readColors();
  const w = S.lanes[0].box.clientWidth; // every track is as wide: read once, before any canvas is sized
  drawRuler();
  let slowest = [0, -1];
  for (let li = 0; li < S.lanes.length; li++) {
    if (!S.lanes[li].visible || !S.lanes[li].parsed) continue;
    const t1 = performance.now();
    drawLane(li, w);
    if (performance.now() - t1 > slowest[0]) slowest = [performance.now() - t1, li];
  }
  writeGapLabels(); // the frame's writes to elements, after its canvases (see placeGapLabels)
  section.dataset.view = `${round(S.view[0])} ${round(S.view[1])}`;
  // the last frame's cost, and its slowest track (bench/swimlanes_bench.py)
  section.dataset.drawMs = (performance.now() - t).toFixed(1);
  section.dataset.drawSlowest = `${slowest[1]}:${slowest[0].toFixed(1)}`;
}

// Where a row of a track is drawn (the rows past the density's last share it), and how high.
export function rowY(r) {
  return r === 0 ? 0 : S.geo.agentH + S.geo.gap + (Math.min(r, S.geo.rows) - 1) * (S.geo.rowH + S.geo.gap);
}
export const rowH = (r) => (r === 0 ? S.geo.agentH : S.geo.rowH);

// Where span i is drawn, in px from the canvas' left: its true extent, at least a pixel column;
// a sub-agent's at least lane.minPx from its true start (ending at the view's right edge, rather
// than past it, when its start is that close to it).
export function extent(lane, i, u0, k, w) {
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
  const [u0, u1] = S.view; // on the axis
  const [t0, t1] = [toTime(u0), toTime(u1)]; // the true times in view: what the searches compare
  const k = w / (u1 - u0);
  const px = (t) => (toAxis(t) - u0) * k;
  const color = lane.color || (lane.color = laneColor(lane));
  if (S.brush) {
    ctx.fillStyle = S.colors.brush;
    const a = px(S.brush[0]);
    ctx.fillRect(a, 0, px(S.brush[1]) - a, lane.height);
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
      if (S.geo.names && r > 0 && x1 - x0 > 40) labels.push(i, x0, x1, y + h / 2 + 0.5);
    }
    for (const runs of [agent, ok, open, bad]) runs.flush(); // runs never join across rows
  });
  agent.fill(ctx, color, 0.35);
  open.fill(ctx, color, 0.45);
  ok.fill(ctx, color, 0.85);
  bad.fill(ctx, S.colors.error, 0.85);
  ctx.globalAlpha = 1;
  if (labels.length) {
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    ctx.fillStyle = S.colors.bg;
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
    if (kind === 0) turns.add(x, x + 1, 0, S.geo.agentH); // a model turn: a tick on the agent bar
    else lost.add(x - (kind === 2 ? 1 : 0), x + (kind === 2 ? 2 : 2), 0, lane.height); // lost: red; error: wider
  }
  turns.fill(ctx, S.colors.fg, 1);
  lost.fill(ctx, S.colors.error, 1);
  for (const [which, style] of [[S.picked, S.colors.fg], [S.cursor, S.colors.accent]]) {
    if (!which || which.lane !== li) continue;
    const i = which.i;
    const [x0, e] = extent(lane, i, u0, k, w);
    const x1 = Math.max(e, x0 + 2);
    ctx.strokeStyle = style;
    ctx.lineWidth = S.geo.rowH < 8 ? 1 : 2;
    const r = lane.row[i];
    ctx.strokeRect(x0 - 1, rowY(r) + 0.5, x1 - x0 + 2, rowH(r) - 1);
  }
}
