// The separator between the rows and the detail panel (index.html's #detail-resizer, a window
// splitter in ARIA's words): dragged, or focused and moved with the arrow keys, Home and End, it
// sizes the panel at once (--detail-size on #panes), and once let go it hands the size, in % of
// the workspace, to connect()'s callback: ui.mjs sends it to the worker (message size), which
// keeps it (chrome.py's Panels, the address's size=). Beside the rows (a wide screen) the size is
// a width, under them a height.
// Must not: decide what the size means elsewhere (the worker clamps it and writes the address).

import { onDrag } from "./drag.mjs";

const MIN = 10;
const MAX = 80;
const STEP = 5;

const resizer = document.getElementById("detail-resizer");
const panes = document.getElementById("panes");
let send = () => {}; // until ui.mjs connects
export const connect = (fn) => {
  send = fn;
};

const beside = () => getComputedStyle(resizer).cursor !== "row-resize";
const clamp = (pct) => Math.round(Math.min(MAX, Math.max(MIN, pct)));

function current() {
  const box = panes.getBoundingClientRect();
  const side = document.getElementById("side").getBoundingClientRect();
  return beside() ? (side.width / box.width) * 100 : (side.height / box.height) * 100;
}

function show(pct) {
  panes.style.setProperty("--detail-size", `${pct}%`);
  resizer.setAttribute("aria-valuenow", String(pct));
}

const commit = (pct) => send(pct);

function atPointer(event) {
  const box = panes.getBoundingClientRect();
  return beside()
    ? clamp(((box.right - event.clientX) / box.width) * 100)
    : clamp(((box.bottom - event.clientY) / box.height) * 100);
}

if (resizer && panes) {
  onDrag(resizer, {
    move: (event) => show(atPointer(event)),
    end: (event) => {
      const pct = atPointer(event);
      show(pct);
      commit(pct);
    },
  });
  resizer.addEventListener("keydown", (event) => {
    const grow = beside() ? "ArrowLeft" : "ArrowUp";
    const shrink = beside() ? "ArrowRight" : "ArrowDown";
    const now = clamp(current());
    const pct = { [grow]: now + STEP, [shrink]: now - STEP, Home: MIN, End: MAX }[event.key];
    if (pct === undefined) return;
    event.preventDefault();
    event.stopPropagation(); // the page's own arrow keys (the step-through, the rows) are not these
    show(clamp(pct));
    commit(clamp(pct));
  });
  new ResizeObserver(() => {
    resizer.setAttribute("aria-orientation", beside() ? "vertical" : "horizontal");
  }).observe(panes);
}
