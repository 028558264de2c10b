// The swimlanes' bottom edge on a narrow screen (index.html's #swimlanes-grip, a window splitter
// in ARIA's words): dragged with a finger or a pointer, or focused and moved with the arrow keys,
// Home and End, it sets the section's height, as the CSS resize handle does with a mouse on a
// wide screen (a finger cannot drag that handle). The tracks follow the height themselves
// (swimlanes.mjs watches their box: compact while they do not all fit, full once they do).
// Must not: draw the tracks or keep the height anywhere but the section's style.

import { onDrag } from "./drag.mjs";

const MIN = 32; // px: the head alone
const STEP = 24; // px a key moves the edge
const MAX_SHARE = 0.75; // of the column, as the section's CSS max-height says

const grip = document.getElementById("swimlanes-grip");
const section = document.getElementById("swimlanes");

const most = () => Math.max(MIN, section.parentElement.getBoundingClientRect().height * MAX_SHARE);

function set(px) {
  const top = most();
  const height = Math.round(Math.min(top, Math.max(MIN, px)));
  section.style.height = `${height}px`;
  grip.setAttribute("aria-valuenow", String(Math.round((height / top) * 100)));
}

if (grip && section) {
  let from = [0, 0]; // [pointer's y, section's height] when the drag began
  onDrag(grip, {
    start: (event) => {
      from = [event.clientY, section.getBoundingClientRect().height];
    },
    move: (event) => set(from[1] + event.clientY - from[0]),
  });
  grip.addEventListener("keydown", (event) => {
    const now = section.getBoundingClientRect().height;
    const px = { ArrowDown: now + STEP, ArrowUp: now - STEP, Home: MIN, End: most() }[event.key];
    if (px === undefined) return;
    event.preventDefault();
    event.stopPropagation(); // the page's own arrow keys (the step-through, the rows) are not these
    set(px);
  });
}
