// The swimlanes' interaction (swimlanes.mjs says what the swimlanes are): the zoom buttons, the
// wheel and pinch, dragging (a range over the tracks, a pan over the ruler or with a finger), the
// hover's tooltip, a click that picks a span, and the keyboard on a track.

import { KEYS_SAID, S, clearRange, foldButton, lowerBound, round, ruler, schedule, section, tip, tracksBox } from "./swimlanes-state.mjs";
import { fmtDur, setView, toAxis, toTime, xAt, zoom } from "./swimlanes-axis.mjs";
import { extent, get, rowY } from "./swimlanes-tracks.mjs";

section.addEventListener("click", (ev) => {
  const b = ev.target.closest("[data-zoom]");
  if (!b) return;
  if (b.dataset.zoom === "in") zoom(0.5);
  else if (b.dataset.zoom === "out") zoom(2);
  else setView(S.full[0], S.full[1]);
});
// The fold toggle is the worker's (the view keeps it, the address says it): it answers with the

function onWheel(ev) {
  if (!S.lanes.length) return;
  const box = ev.currentTarget;
  const horizontal = Math.abs(ev.deltaX) > Math.abs(ev.deltaY);
  if (ev.shiftKey || horizontal) {
    ev.preventDefault();
    const d = horizontal ? ev.deltaX : ev.deltaY;
    const [a, b] = S.view;
    const shift = (d / Math.max(1, box.clientWidth)) * (b - a);
    setView(a + shift, b + shift);
    return;
  }
  ev.preventDefault(); // wheel and pinch (a wheel event with ctrlKey) zoom where the pointer is
  const area = S.lanes[0]?.box ?? box;
  zoom(Math.exp(ev.deltaY * (ev.ctrlKey ? 0.01 : 0.002)), xAt(area, ev.clientX));
}
tracksBox.addEventListener("wheel", onWheel, { passive: false });
ruler.parentElement.addEventListener("wheel", onWheel, { passive: false });

// pointer: a mouse drag over the tracks is a range; over the ruler, or with shift, or a finger, a pan;
// two fingers pinch
const pointers = new Map();

function laneAt(target) {
  const box = target.closest?.(".sl-lane");
  return box ? S.lanes.findIndex((l) => l.box === box) : -1;
}

tracksBox.addEventListener("pointerdown", (ev) => startDrag(ev, false));
ruler.parentElement.addEventListener("pointerdown", (ev) => startDrag(ev, true));

function startDrag(ev, onRuler) {
  if (!S.lanes.length || ev.button > 0) return;
  if (ev.target.closest?.("button, a")) return; // a card's link (a missing sub-agent's): a click, not a drag
  const area = S.lanes[0].box;
  pointers.set(ev.pointerId, ev.clientX);
  const pan = onRuler || ev.shiftKey || ev.pointerType === "touch";
  S.drag = { x0: ev.clientX, v0: S.view.slice(), a: xAt(area, ev.clientX), pan, moved: false, li: laneAt(ev.target),
    pinch: pointers.size === 2 ? { d0: Math.abs([...pointers.values()][0] - [...pointers.values()][1]), v0: S.view.slice() } : null };
  ev.currentTarget.setPointerCapture?.(ev.pointerId);
}

function onMove(ev) {
  if (!S.drag) return hover(ev);
  const area = S.lanes[0].box;
  pointers.set(ev.pointerId, ev.clientX);
  if (Math.abs(ev.clientX - S.drag.x0) > 3) S.drag.moved = true;
  if (S.drag.pinch && pointers.size === 2) {
    const [p, q] = [...pointers.values()];
    const d = Math.max(10, Math.abs(p - q));
    const mid = xAt(area, (p + q) / 2);
    const [a, b] = S.drag.pinch.v0;
    const f = S.drag.pinch.d0 / d;
    setView(mid - (mid - a) * f, mid + (b - mid) * f);
    return;
  }
  if (S.drag.pan) {
    const [a, b] = S.drag.v0;
    const shift = ((S.drag.x0 - ev.clientX) / Math.max(1, area.clientWidth)) * (b - a);
    setView(a + shift, b + shift);
  } else if (S.drag.moved) {
    const x = xAt(area, ev.clientX);
    S.brush = [toTime(Math.min(S.drag.a, x)), toTime(Math.max(S.drag.a, x))]; // across a break: both sides
    schedule();
  }
}

function onUp(ev) {
  pointers.delete(ev.pointerId);
  if (!S.drag) return;
  const d = S.drag;
  S.drag = pointers.size ? S.drag : null;
  if (d.pan || d.pinch) return;
  if (d.moved && S.brush) {
    S.hooks.range([round(S.brush[0]), round(S.brush[1])]);
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
  S.drag = null;
});
tracksBox.addEventListener("pointerleave", () => {
  if (!S.drag && !S.cursor) tip.hidden = true;
});

// "Clear range" (or Esc on a track): every row again (the worker hides the button)
function unbrush() {
  S.brush = null;
  S.hooks.range(null);
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
  const k = Math.max(1, r.width) / (S.view[1] - S.view[0]); // px per unit of the axis
  const u = S.view[0] + p / k;
  const slack = 3 / k; // 3 px, on the axis
  const [lo, hi] = [toTime(u - slack), toTime(u + slack)];
  // a sub-agent drawn wider than its time: its bar is the target, not the model turns squeezed on it
  const agentI = lane.byRow[0]?.idx[0];
  const squeezed = lane.minPx > 0 && agentI !== undefined && (toAxis(lane.e[agentI]) - toAxis(lane.s[agentI])) * k < lane.minPx;
  // marks first (lost blocks and errors are thin: give them the slack)
  for (let j = lowerBound(lane.mat, lo, lane.mat.length); j < lane.mat.length && lane.mat[j] <= hi; j++) {
    if (lane.mkind[j] !== 0 || (y < S.geo.agentH && !squeezed)) return { mark: j };
  }
  const band = y < S.geo.agentH + S.geo.gap / 2 ? 0 : Math.min(Math.floor((y - S.geo.agentH - S.geo.gap) / (S.geo.rowH + S.geo.gap)) + 1, S.geo.rows);
  const last = band < S.geo.rows ? band : lane.byRow.length - 1; // the density's last row holds the rest
  const from = toTime(u - slack - lane.minPx / k);
  let best = null;
  let off = Infinity;
  for (let row = band; row <= last; row++) {
    const { idx, ends } = lane.byRow[row] ?? { idx: [], ends: [] };
    for (let j = lowerBound(ends, from, idx.length); j < idx.length; j++) {
      const i = idx[j];
      if (lane.s[i] > hi) break;
      const [x0, x1] = extent(lane, i, S.view[0], k, r.width);
      const d = p < x0 ? x0 - p : p > x1 ? p - x1 : 0;
      if (d > 3) continue;
      // spans drawn wider than their time may cover each other: the one truly nearest wins
      const [a, b] = [(toAxis(lane.s[i]) - S.view[0]) * k, (toAxis(lane.e[i]) - S.view[0]) * k];
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
  const k = lane.box.clientWidth / (S.view[1] - S.view[0]);
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
    const u = xAt(S.lanes[li].box, ev.clientX);
    const gap = S.breaks.find((b) => b.x0 <= u && u <= b.x1);
    if (gap) showTip(`${gap.label} (folded; the button "Fold idle" or F shows it to scale)`, ev.clientX, ev.clientY);
    else tip.hidden = true;
    return;
  }
  const lane = get(li);
  showTip(h.span !== undefined ? describe(lane, h.span).text : describeMark(lane, h.mark), ev.clientX, ev.clientY);
}

const send = (seq, line, laneId) => S.hooks.pick(seq, line, laneId);

function clickAt(li, ev) {
  const h = hit(li, ev);
  if (!h) return;
  const lane = get(li);
  if (h.span !== undefined) {
    S.picked = { lane: li, i: h.span };
    S.cursor = { ...S.picked };
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

export function nearest(lane, x) {
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

export function moveTo(li, i) {
  const lane = get(li);
  if (!lane || i < 0 || i >= lane.s.length) return;
  S.cursor = { lane: li, i };
  const s = reveal(lane, i);
  const r = lane.box.getBoundingClientRect();
  const x = r.left + ((Math.max(s, S.view[0]) - S.view[0]) / (S.view[1] - S.view[0])) * r.width;
  const d = describe(lane, i);
  lane.box.setAttribute("aria-description", `${d.kind}: ${d.text}. ${KEYS_SAID}`);
  showTip(`${d.text}`, x, r.top + rowY(lane.row[i]));
  schedule();
}

// A span off the view (past a break, maybe) brought into it at the same zoom; its start on the axis.
export function reveal(lane, i) {
  const [a, b] = S.view;
  const [s, e] = [toAxis(lane.s[i]), toAxis(lane.e[i])];
  if (e < a || s > b) setView(s - (b - a) / 3, s + (2 * (b - a)) / 3);
  return s;
}

export function onKey(ev, li) {
  const lane = get(li);
  const i = S.cursor && S.cursor.lane === li ? S.cursor.i : nearest(lane, toTime((S.view[0] + S.view[1]) / 2));
  const keys = {
    ArrowRight: () => moveTo(li, neighbour(lane, i, 1)),
    ArrowLeft: () => moveTo(li, neighbour(lane, i, -1)),
    Home: () => moveTo(li, end(lane, -1)),
    End: () => moveTo(li, end(lane, 1)),
    ArrowDown: () => S.lanes[li + 1]?.box.focus(),
    ArrowUp: () => S.lanes[li - 1]?.box.focus(),
    Enter: () => {
      if (i < 0) return;
      S.picked = { lane: li, i };
      send(lane.seq[i], null, lane.id);
      schedule();
    },
    "+": () => zoom(0.5, i >= 0 ? toAxis(lane.s[i]) : undefined),
    "=": () => zoom(0.5, i >= 0 ? toAxis(lane.s[i]) : undefined),
    "-": () => zoom(2),
    0: () => setView(S.full[0], S.full[1]),
    f: () => !foldButton.hidden && foldButton.click(), // the worker keeps the choice (and the address)
    F: () => !foldButton.hidden && foldButton.click(),
    Escape: () => {
      if (!clearRange.hidden) {
        unbrush();
        return;
      }
      tip.hidden = true;
      S.cursor = null;
      schedule();
    },
  };
  const act = keys[ev.key];
  if (!act || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  ev.preventDefault();
  ev.stopPropagation(); // the page's own keys (← → step, ↑ ↓ rows) are not for this track
  act();
}
