// The swimlanes' time axis (swimlanes.mjs says what the swimlanes are): the folded axis' map,
// true time <-> a place on the axis, each way (toAxis, toTime); the header's folds made into it
// (refold); the view on it, zoomed and panned (setView, zoom); the ruler, with its ticks and the
// breaks' labels; the breaks drawn on a track; durations in words.

import { MIN_SPAN, RULER_LABEL_H, S, gapLayer, ruler, schedule, section } from "./swimlanes-state.mjs";

// -- the folded axis: true time (seconds from the run's start) <-> a place on the axis ---------

// A true time's place on the axis: linear within its segment, slope 1 off the ends (folds.py's
// Fold.to_axis); the identity when the axis is to scale.
export function toAxis(t) {
  return S.segs ? along(t, 0, 2) : t;
}

// The true time at a place on the axis (Fold.to_time): the inverse of toAxis.
export function toTime(x) {
  return S.segs ? along(x, 2, 0) : x;
}

function along(v, src, dst) {
  let lo = 0;
  let hi = S.segs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (S.segs[mid][src] <= v) lo = mid;
    else hi = mid - 1;
  }
  const g = S.segs[lo];
  const [a, b, oa, ob] = [g[src], g[src + 1], g[dst], g[dst + 1]];
  if (v <= a || b === a) return oa + (v - a);
  if (v >= b) return ob + (v - b);
  return oa + ((v - a) * (ob - oa)) / (b - a);
}

// The map of the header's folds, when the section says to fold (and there is a break); the
// breaks' labels on the ruler. The view keeps the same stretch of true time (or the whole run).
export function refold() {
  const folds = S.header.folds;
  const start = Number(folds?.start ?? 0);
  const on = section.dataset.fold !== "off" && folds?.breaks?.length > 0;
  const fitted = S.view[0] <= S.full[0] && S.view[1] >= S.full[1];
  const shown = [toTime(S.view[0]), toTime(S.view[1])];
  S.segs = on ? folds.segments.map(([t0, t1, x0, x1]) => [t0 - start, t1 - start, x0, x1]) : null;
  gapLayer.replaceChildren();
  S.breaks = !on ? [] : folds.breaks.map((b) => {
    const el = document.createElement("span");
    el.className = "sl-gap";
    el.dataset.testid = "axis-gap";
    el.dataset.ms = String(b.folded_ms);
    el.textContent = b.label; // words of ours (folds.py), set as text all the same
    el.title = `${b.label}: ${clock(b.start)} → ${clock(b.end)}`;
    gapLayer.append(el);
    return { t0: b.start - start, t1: b.end - start, x0: b.at, x1: b.at + b.width, ms: b.folded_ms, label: b.label, el };
  });
  section.dataset.breaks = String(S.breaks.length);
  S.full = [0, Math.max(toAxis(Math.max(Number(S.header.span || 0), MIN_SPAN)), MIN_SPAN)];
  if (fitted) S.view = S.full.slice();
  else setView(toAxis(shown[0]), toAxis(shown[1]));
  schedule();
}

const clock = (seconds) => `${new Date(seconds * 1000).toISOString().slice(0, 19).replace("T", " ")} UTC`;

export function sizeCanvas(canvas, cssW, cssH) {
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

// The breaks in view, on a track or the ruler: a band the colour of the borders, a zigzag at
// each edge (the axis is cut there). All bands in one colour, all zigzags in one path and one
// stroke: a stroke per break, on every track, cost a frame at Fit many times the spans' drawing
// (bench/swimlanes_bench.py --folded).
export function drawBreaks(ctx, u0, k, height, top = 0) {
  const w = ctx.canvas.width;
  const shown = [];
  for (const b of S.breaks) {
    const a = (b.x0 - u0) * k;
    const z = Math.max((b.x1 - u0) * k, a + 3);
    if (z >= -4 && a <= w + 4) shown.push(a, z);
  }
  if (!shown.length) return;
  ctx.globalAlpha = 0.45;
  ctx.fillStyle = S.colors.border;
  for (let q = 0; q < shown.length; q += 2) ctx.fillRect(shown[q], top, shown[q + 1] - shown[q], height - top);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = S.colors.muted;
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

export function drawRuler() {
  const w = ruler.parentElement.clientWidth;
  const ctx = sizeCanvas(ruler, w, 18);
  ctx.clearRect(0, 0, w, 18);
  const [u0, u1] = S.view;
  const k = w / (u1 - u0);
  let step = niceStep(u1 - u0, w); // the work keeps its scale on the axis: one step for every piece of it
  if (S.unit !== "s") step = Math.max(1, Math.round(step));
  // on the ruler a break's mark keeps to the ticks' band, under the line its label is on (RULER_LABEL_H)
  drawBreaks(ctx, u0, k, 18, RULER_LABEL_H);
  const taken = placeGapLabels(u0, k, w); // [a, b] px of each break's label shown
  ctx.fillStyle = S.colors.muted;
  ctx.strokeStyle = S.colors.border;
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "top";
  ctx.fillRect(0, 17, w, 1);
  let free = -Infinity; // where the last tick's label ends
  // the ticks of each piece of work in view, at its true times (a break has none)
  for (const [a, b] of pieces(toTime(u0), toTime(u1))) {
    for (let t = Math.ceil(a / step) * step; t <= b; t += step) {
      const x = Math.round((toAxis(t) - u0) * k) + 0.5;
      // time: from the run's start (the axis caption says when that was); lines: the input's own numbers
      const text = S.unit === "s" ? fmtDur(t, true) : `${S.unit} ${Math.round(t + S.origin)}`;
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
  for (const g of S.breaks) {
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
  for (const b of S.breaks) {
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
export function writeGapLabels() {
  for (const b of S.breaks) {
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

export function fmtDur(x, at = false) {
  if (S.unit !== "s") {
    const n = Math.round(x);
    return `${n} ${S.unit}${n === 1 ? "" : "s"}`;
  }
  if (x < 0.1 && !at) return `${Math.round(x * 1000)} ms`;
  if (x < 10) return `${(Math.round(x * 10) / 10).toString()} s`;
  const s = Math.round(x);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

// -- zoom and pan ---------------------------------------------------------------------------

export function setView(a, b) {
  const total = S.full[1] - S.full[0];
  let w = Math.min(Math.max(b - a, Math.max(total * 1e-6, S.unit === "s" ? 0.001 : 2)), total);
  a = Math.max(S.full[0], Math.min(a, S.full[1] - w));
  S.view = [a, a + w];
  schedule();
}

export function zoom(factor, at) {
  const [a, b] = S.view;
  const x = at ?? (a + b) / 2;
  setView(x - (x - a) * factor, x + (b - x) * factor);
}

// The place on the axis under the pointer (toTime gives its true time).
export const xAt = (box, clientX) => {
  const r = box.getBoundingClientRect();
  return S.view[0] + ((clientX - r.left) / Math.max(1, r.width)) * (S.view[1] - S.view[0]);
};
