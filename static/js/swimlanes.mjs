// The swimlanes' page side (issue 20): draws the tracks the worker wrote (web/swimlanes.py puts
// each lane's spans and marks in data attributes of its [data-testid=swimlane-track]) on one
// canvas per track, and owns what must answer at once: zoom (wheel, pinch, + / - keys, buttons),
// pan (shift+wheel, horizontal wheel, dragging the ruler, one finger), hover (name and duration),
// the keyboard (each track is a Tab stop; ← → move between its spans, ↑ ↓ between tracks, Enter
// selects, Home/End), and dragging a range. What the reader picks goes to the worker through two
// hidden inputs (#swimlanes-pick, #swimlanes-range) and the change events ui.mjs already forwards.
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
const pick = document.getElementById("swimlanes-pick");
const rangeInput = document.getElementById("swimlanes-range");
const clearRange = document.getElementById("swimlanes-clear-range");
const tip = section.querySelector(".sl-tip");
const ruler = section.querySelector(".sl-ruler canvas");

const AGENT_H = 8;
const ROW_H = 14;
const GAP = 2;
const MAX_ROWS = 6; // tool rows drawn per track; calls past them share the last row
const MIN_SPAN = 1e-9;

let lanes = [];
let full = [0, 1];
let view = [0, 1];
let unit = "s";
let frame = 0;
let cursor = null; // {lane, k}: the span the keyboard is on (k in lane.order)
let picked = null; // {lane, k}
let brush = null; // [a, b] in x, the range the timeline is filtered to
let colors = {};

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

function parseLane(track) {
  const box = track.querySelector(".sl-lane");
  const spans = JSON.parse(box.dataset.spans || '{"names":[],"d":[],"labels":[]}');
  const marks = JSON.parse(box.dataset.marks || '{"d":[],"texts":[]}');
  const n = spans.d.length / 6;
  const s = new Float64Array(n);
  const e = new Float64Array(n);
  const row = new Int32Array(n);
  const flags = new Int32Array(n);
  const seq = new Int32Array(n);
  const name = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * 6;
    s[i] = spans.d[o];
    e[i] = spans.d[o + 1];
    row[i] = Math.min(spans.d[o + 2], MAX_ROWS);
    flags[i] = spans.d[o + 3];
    seq[i] = spans.d[o + 4];
    name[i] = spans.d[o + 5];
  }
  const rowsUsed = Math.min(Number(track.dataset.rows || 1) - 1, MAX_ROWS);
  // per row: span indices sorted by start (a row's calls never overlap, so ends sort too)
  const rows = [];
  for (let r = 0; r <= rowsUsed; r++) rows.push([]);
  for (let i = 0; i < n; i++) rows[row[i]]?.push(i);
  const byRow = rows.map((ids) => {
    ids.sort((a, b) => s[a] - s[b] || a - b);
    const idx = Int32Array.from(ids);
    const ends = new Float64Array(ids.length);
    let top = -Infinity; // a running max: the last row holds what overflowed, which may overlap
    ids.forEach((i, k) => (ends[k] = top = Math.max(top, e[i])));
    return { idx, ends };
  });
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => s[a] - s[b] || row[a] - row[b]);
  const m = marks.d.length / 4;
  const mat = new Float64Array(m);
  const mkind = new Int32Array(m);
  const mseq = new Int32Array(m);
  const mline = new Int32Array(m);
  for (let i = 0; i < m; i++) {
    mat[i] = marks.d[i * 4];
    mkind[i] = marks.d[i * 4 + 1];
    mseq[i] = marks.d[i * 4 + 2];
    mline[i] = marks.d[i * 4 + 3];
  }
  let canvas = box.querySelector("canvas");
  if (!canvas) {
    canvas = document.createElement("canvas");
    box.append(canvas);
  }
  const height = AGENT_H + GAP + Math.max(1, rowsUsed) * (ROW_H + GAP);
  box.style.height = `${height}px`;
  return {
    track, box, canvas, height, id: track.dataset.lane, label: track.querySelector(".sl-label")?.textContent ?? "",
    s, e, row, flags, seq, name, names: spans.names, labels: spans.labels, byRow, order,
    mat, mkind, mseq, mline, mtexts: marks.texts,
  };
}

function load() {
  unit = section.dataset.unit || "s";
  const span = Math.max(Number(section.dataset.span || 0), MIN_SPAN);
  full = [0, span];
  view = [0, span];
  brush = null;
  cursor = picked = null;
  lanes = Array.from(tracksBox.querySelectorAll("[data-testid=swimlane-track]"), parseLane);
  lanes.forEach((lane, li) => {
    lane.box.addEventListener("keydown", (ev) => onKey(ev, li));
    lane.box.addEventListener("focus", () => {
      if (!cursor || cursor.lane !== li) moveTo(li, nearest(lanes[li], (view[0] + view[1]) / 2));
    });
  });
  schedule();
}

// -- drawing --------------------------------------------------------------------------------

function readColors() {
  const cs = getComputedStyle(section);
  const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  colors = { fg: v("--fg", "#1f2328"), muted: v("--muted", "#59636e"), border: v("--border", "#d1d9e0"),
    error: v("--error", "#cf222e"), bg: v("--bg", "#fff"), accent: v("--accent", "#0969da"),
    brush: v("--accent-soft", "#ddf4ff") };
}

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
    canvas.style.width = `${cssW}px`;
    canvas.style.height = `${cssH}px`;
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

function draw() {
  frame = 0;
  if (section.hidden || !lanes.length) return;
  const t = performance.now();
  readColors();
  drawRuler();
  for (let li = 0; li < lanes.length; li++) drawLane(li);
  section.dataset.view = `${round(view[0])} ${round(view[1])}`;
  section.dataset.drawMs = (performance.now() - t).toFixed(1); // the last frame's cost (bench/swimlanes_bench.py)
}

const round = (x) => Math.round(x * 1000) / 1000;

function rowY(r) {
  return r === 0 ? 0 : AGENT_H + GAP + (r - 1) * (ROW_H + GAP);
}

function drawLane(li) {
  const lane = lanes[li];
  const w = lane.box.clientWidth;
  if (!w) return;
  const ctx = sizeCanvas(lane.canvas, w, lane.height);
  ctx.clearRect(0, 0, w, lane.height);
  const [t0, t1] = view;
  const k = w / (t1 - t0);
  const color = getComputedStyle(lane.track).getPropertyValue("--c").trim() || colors.accent;
  if (brush) {
    ctx.fillStyle = colors.brush;
    const a = (brush[0] - t0) * k;
    ctx.fillRect(a, 0, (brush[1] - t0) * k - a, lane.height);
  }
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  lane.byRow.forEach(({ idx, ends }, r) => {
    const y = rowY(r);
    const h = r === 0 ? AGENT_H : ROW_H;
    let lastCol = -2;
    for (let j = lowerBound(ends, t0, idx.length); j < idx.length; j++) {
      const i = idx[j];
      if (lane.s[i] > t1) break;
      const x0 = (lane.s[i] - t0) * k;
      const x1 = (lane.e[i] - t0) * k;
      const err = lane.flags[i] & 2;
      const open = lane.flags[i] & 4;
      if (x1 - x0 < 1) {
        // narrower than a pixel: one pixel column for all of them, never dropped from sight
        const col = Math.floor(x0);
        if (col === lastCol) continue;
        lastCol = col;
        ctx.globalAlpha = 1;
        ctx.fillStyle = err ? colors.error : color;
        ctx.fillRect(col, y, 1, h);
        continue;
      }
      ctx.globalAlpha = r === 0 ? 0.35 : open ? 0.45 : 0.85;
      ctx.fillStyle = err ? colors.error : color;
      const xa = Math.max(x0, -2);
      const xb = Math.min(x1, w + 2);
      ctx.fillRect(xa, y, xb - xa, h);
      ctx.globalAlpha = 1;
      if (r > 0 && xb - xa > 36) {
        ctx.save();
        ctx.beginPath();
        ctx.rect(xa, y, xb - xa - 2, h);
        ctx.clip();
        ctx.fillStyle = colors.bg;
        ctx.fillText(`${lane.names[lane.name[i]]} ${fmtDur(lane.e[i] - lane.s[i])}`, xa + 3, y + h / 2 + 0.5);
        ctx.restore();
      }
    }
  });
  ctx.globalAlpha = 1;
  let lastCol = -2;
  for (let j = lowerBound(lane.mat, t0, lane.mat.length); j < lane.mat.length && lane.mat[j] <= t1; j++) {
    const x = Math.floor((lane.mat[j] - t0) * k);
    const kind = lane.mkind[j];
    if (kind === 0) {
      if (x === lastCol) continue;
      lastCol = x;
      ctx.fillStyle = colors.fg;
      ctx.fillRect(x, 0, 1, AGENT_H); // a model turn: a tick on the agent bar
    } else {
      ctx.fillStyle = colors.error;
      ctx.fillRect(x - (kind === 2 ? 1 : 0), 0, kind === 2 ? 3 : 2, lane.height); // lost: red tick; error: wider
    }
  }
  for (const [which, style] of [[picked, colors.fg], [cursor, colors.accent]]) {
    if (!which || which.lane !== li) continue;
    const i = lane.order[which.k];
    if (i === undefined) continue;
    const x0 = (lane.s[i] - t0) * k;
    const x1 = Math.max((lane.e[i] - t0) * k, x0 + 2);
    ctx.strokeStyle = style;
    ctx.lineWidth = 2;
    const r = lane.row[i];
    ctx.strokeRect(x0 - 1, rowY(r) + 1, x1 - x0 + 2, (r === 0 ? AGENT_H : ROW_H) - 2);
  }
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
  const [t0, t1] = view;
  const k = w / (t1 - t0);
  let step = niceStep(t1 - t0, w);
  if (unit !== "s") step = Math.max(1, Math.round(step));
  ctx.fillStyle = colors.muted;
  ctx.strokeStyle = colors.border;
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "top";
  ctx.fillRect(0, 17, w, 1);
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
    const x = Math.round((t - t0) * k) + 0.5;
    ctx.fillRect(x, 11, 1, 6);
    ctx.fillText(unit === "s" ? fmtDur(t, true) : `${unit} ${Math.round(t) + (unit === "line" ? 0 : 0)}`, x + 2, 1);
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
    brush = [Math.min(drag.a, x), Math.max(drag.a, x)];
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
    rangeInput.value = `${round(brush[0])} ${round(brush[1])}`;
    rangeInput.dispatchEvent(new Event("change", { bubbles: true }));
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

// the worker cleared the range (its "Clear range" button hides itself): unshade it
new MutationObserver(() => {
  if (clearRange.hidden && brush) {
    brush = null;
    schedule();
  }
}).observe(clearRange, { attributes: true, attributeFilter: ["hidden"] });

// -- hover, click, keyboard -------------------------------------------------------------------

function hit(li, ev) {
  const lane = lanes[li];
  const r = lane.box.getBoundingClientRect();
  const y = ev.clientY - r.top;
  const x = xAt(lane.box, ev.clientX);
  const slack = (3 / Math.max(1, r.width)) * (view[1] - view[0]);
  // marks first (lost blocks and errors are thin: give them the slack)
  for (let j = lowerBound(lane.mat, x - slack, lane.mat.length); j < lane.mat.length && lane.mat[j] <= x + slack; j++) {
    if (lane.mkind[j] !== 0 || y < AGENT_H) return { mark: j };
  }
  const row = y < AGENT_H + GAP / 2 ? 0 : Math.min(Math.floor((y - AGENT_H - GAP) / (ROW_H + GAP)) + 1, lane.byRow.length - 1);
  const rowData = lane.byRow[row];
  if (!rowData) return null;
  const { idx, ends } = rowData;
  let best = null;
  for (let j = lowerBound(ends, x - slack, idx.length); j < idx.length; j++) {
    const i = idx[j];
    if (lane.s[i] > x + slack) break;
    if (lane.e[i] >= x - slack) {
      best = i;
      if (lane.s[i] <= x && lane.e[i] >= x) break;
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
  return { kind, text: bits.join(" — ") };
}

function describeMark(lane, j) {
  const kind = ["model turn", "lost block", "error"][lane.mkind[j]];
  return `${kind}: ${lane.mtexts[j]} (line ${lane.mline[j]})`;
}

function showTip(text, clientX, clientY) {
  tip.textContent = text;
  tip.hidden = false;
  const r = section.getBoundingClientRect();
  const x = Math.min(Math.max(0, clientX - r.left + 12), Math.max(0, r.width - tip.offsetWidth - 4));
  tip.style.left = `${x}px`;
  tip.style.top = `${clientY - r.top + 14}px`;
}

function hover(ev) {
  const li = laneAt(ev.target);
  if (li < 0) return;
  const h = hit(li, ev);
  if (!h) {
    tip.hidden = true;
    return;
  }
  const lane = lanes[li];
  showTip(h.span !== undefined ? describe(lane, h.span).text : describeMark(lane, h.mark), ev.clientX, ev.clientY);
}

function send(seq, line, laneId) {
  pick.value = JSON.stringify([seq, line, laneId]);
  pick.dispatchEvent(new Event("change", { bubbles: true }));
}

function clickAt(li, ev) {
  const h = hit(li, ev);
  if (!h) return;
  const lane = lanes[li];
  if (h.span !== undefined) {
    picked = { lane: li, k: lane.order.indexOf(h.span) };
    cursor = { ...picked };
    lane.box.focus({ preventScroll: true });
    send(lane.seq[h.span], null, lane.id);
  } else {
    const j = h.mark;
    send(lane.mseq[j] >= 0 ? lane.mseq[j] : null, lane.mline[j], lane.id);
  }
  schedule();
}

function nearest(lane, x) {
  let best = 0;
  let d = Infinity;
  lane.order.forEach((i, k) => {
    const dd = Math.abs((lane.s[i] + lane.e[i]) / 2 - x) + (lane.row[i] === 0 && lane.order.length > 1 ? 1e-9 : 0);
    if (dd < d) {
      d = dd;
      best = k;
    }
  });
  return best;
}

function moveTo(li, k) {
  const lane = lanes[li];
  if (!lane || !lane.order.length) return;
  k = Math.max(0, Math.min(k, lane.order.length - 1));
  cursor = { lane: li, k };
  const i = lane.order[k];
  const [a, b] = view;
  if (lane.e[i] < a || lane.s[i] > b) {
    const w = b - a;
    setView(lane.s[i] - w / 3, lane.s[i] + (2 * w) / 3);
  }
  const r = lane.box.getBoundingClientRect();
  const x = r.left + ((Math.max(lane.s[i], view[0]) - view[0]) / (view[1] - view[0])) * r.width;
  const d = describe(lane, i);
  lane.box.setAttribute("aria-description", `${d.kind}: ${d.text}`);
  showTip(`${d.text}`, x, r.top + rowY(lane.row[i]));
  schedule();
}

function onKey(ev, li) {
  const lane = lanes[li];
  const k = cursor && cursor.lane === li ? cursor.k : nearest(lane, (view[0] + view[1]) / 2);
  const keys = {
    ArrowRight: () => moveTo(li, k + 1),
    ArrowLeft: () => moveTo(li, k - 1),
    Home: () => moveTo(li, 0),
    End: () => moveTo(li, lane.order.length - 1),
    ArrowDown: () => lanes[li + 1]?.box.focus(),
    ArrowUp: () => lanes[li - 1]?.box.focus(),
    Enter: () => {
      const i = lane.order[k];
      if (i === undefined) return;
      picked = { lane: li, k };
      send(lane.seq[i], null, lane.id);
      schedule();
    },
    "+": () => zoom(0.5, lane.s[lane.order[k]]),
    "=": () => zoom(0.5, lane.s[lane.order[k]]),
    "-": () => zoom(2),
    0: () => setView(full[0], full[1]),
    Escape: () => {
      tip.hidden = true;
      cursor = null;
      schedule();
    },
  };
  const act = keys[ev.key];
  if (!act || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  ev.preventDefault();
  ev.stopPropagation(); // the page's own keys (← → step, ↑ ↓ rows) are not for this track
  if (ev.key === " ") return;
  act();
}

new ResizeObserver(schedule).observe(tracksBox);
new MutationObserver(schedule).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
window.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", schedule);
new MutationObserver(() => load()).observe(section, { attributes: true, attributeFilter: ["data-version"] });
new MutationObserver(schedule).observe(section, { attributes: true, attributeFilter: ["hidden"] });
if (section.dataset.version) load();
