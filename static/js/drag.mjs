// A separator dragged by a pointer, a finger or a pen (split.mjs's between the rows and the
// detail panel, grip.mjs's under the swimlanes): the pointer captured from its press to its
// release, the element marked "dragging" meanwhile, and the caller told of each step.
// Must not: decide what a drag means (the callers size what they size).

export function onDrag(el, { start = () => {}, move, end = () => {} }) {
  let dragging = false;
  el.addEventListener("pointerdown", (event) => {
    dragging = true;
    start(event);
    el.setPointerCapture(event.pointerId);
    el.classList.add("dragging");
    event.preventDefault();
  });
  el.addEventListener("pointermove", (event) => {
    if (dragging) move(event);
  });
  const stop = (event) => {
    if (!dragging) return;
    dragging = false;
    el.classList.remove("dragging");
    end(event);
  };
  el.addEventListener("pointerup", stop);
  el.addEventListener("pointercancel", stop);
}
