// Embed mode (?embed=1) and ?theme=, applied before Python boots, so that a frame never shows
// the full app for the seconds that takes. Only attributes on <html>: embed.css does the layout
// (html[data-embed="1"], html[data-panels~="audit"]); Python reads data-embed for behaviour.
// Runs after app-state.mjs, so a theme in the URL wins over the one remembered.
//
// In a frame, embed mode tells the parent page how high its content is, each time that changes:
//   parent.postMessage({type: "relayscope:height", height: <CSS px, an integer>}, "*")
// A host page may size the frame from it (docs/embedding.md, "The frame's height"); the message carries nothing but
// the number, so any origin may read it.
const root = document.documentElement;
const params = new URLSearchParams(location.search);
export const PANELS = ["stepper", "timeline", "lanes", "audit", "toolbar"];
export const DEFAULT_PANELS = ["stepper", "timeline"];

if (["1", "true", "yes"].includes(params.get("embed") ?? "")) {
  root.dataset.embed = "1";
  const wanted = (params.get("panels") ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => PANELS.includes(p));
  root.dataset.panels = (wanted.length ? wanted : DEFAULT_PANELS).join(" ");
}
const theme = params.get("theme");
if (theme === "light" || theme === "dark") root.dataset.theme = theme;

export const HEIGHT_MESSAGE = "relayscope:height";

if (root.dataset.embed === "1" && window.parent !== window) {
  let last = -1;
  const post = () => {
    const height = Math.ceil(root.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: HEIGHT_MESSAGE, height }, "*");
  };
  const observe = () => new ResizeObserver(post).observe(document.body);
  if (document.body) observe();
  else document.addEventListener("DOMContentLoaded", observe, { once: true });
}
