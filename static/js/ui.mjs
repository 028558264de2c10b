// The page's thread: it owns the DOM; Python runs in a web worker (worker.mjs) and draws by
// sending ops (py/relayscope/web/remote.py says what each means). This module
//   * starts the worker and sends it the page's state (elements with an id, the address, the
//     theme stored, what the browser can do), then keeps it current: values typed, <details>
//     opened, the timeline scrolled or resized, files picked;
//   * applies the worker's ops: elements built with createElement, text set as textContent,
//     attributes and properties set one by one (never markup, never event-handler attributes,
//     never a javascript: URL), listeners that forward events, focus and scrolling, the address
//     (history.replaceState), the theme stored, the clipboard, downloads;
//   * decides at once what only the event's own task can: preventDefault for the keys the app
//     uses, and <html data-app-state="analyzing"> in the very handler that starts work (Python
//     answers a few milliseconds later; a script that waits for "done" after acting must not
//     see the previous run's).
// Must not: parse markup, or wait for the worker (nothing here blocks on an answer).

const root = document.documentElement;
const worker = new Worker(new URL("./worker.mjs", import.meta.url), { type: "module" });
const post = (message) => worker.postMessage(message);

// What the reader did (events, drops, watch handles) is numbered; the worker acknowledges each
// once handled, after the ops it made. <html data-inflight>: how many are not yet; "0" when the
// page shows everything the reader's actions did so far (jobs they started excepted: those
// are data-app-state's). Scripts and tests wait on it after acting.
let sent = 0;
let acked = 0;
const inflight = () => (root.dataset.inflight = String(sent - acked));
const act = (message) => {
  message.seq = ++sent;
  inflight();
  post(message);
};

const refs = new Map(); // rid -> element: the page's own by id, the worker's by number
const rids = new WeakMap(); // element -> rid
const listeners = new Map(); // lid -> [target, type, fn]

const remember = (rid, el) => {
  refs.set(rid, el);
  rids.set(el, rid);
};
for (const el of document.querySelectorAll("[id]")) remember(el.id, el);
remember("root", root);
remember("body", document.body);
refs.set("document", document);
refs.set("window", window);

const FORM = new Set(["INPUT", "TEXTAREA", "SELECT"]);
const timeline = document.getElementById("timeline");
const geometry = () => ({
  scrollTop: timeline.scrollTop,
  clientHeight: timeline.clientHeight,
  scrollHeight: timeline.scrollHeight,
});

function storage() {
  try {
    const out = {};
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key.startsWith("relayscope")) out[key] = localStorage.getItem(key);
    }
    return out;
  } catch {
    return null; // denied (a frame on another site): Python says so where it matters
  }
}

function snapshot() {
  const elements = {};
  for (const el of document.querySelectorAll("[id]")) {
    const attrs = {};
    for (const a of el.attributes) attrs[a.name] = a.value;
    const props = {};
    if (FORM.has(el.tagName) && el.type !== "file") props.value = el.value;
    elements[el.id] = { tag: el.tagName.toLowerCase(), attrs, props };
  }
  Object.assign(elements.timeline.props, geometry());
  const rootAttrs = {};
  for (const a of root.attributes) rootAttrs[a.name] = a.value;
  return {
    elements,
    rootAttrs,
    href: location.href,
    storage: storage(),
    clipboard: Boolean(navigator.clipboard),
    watchSupport: globalThis.relayscopeWatchFiles?.support() ?? "",
    timeOrigin: performance.timeOrigin,
  };
}

const files = (input) => Array.from(input.files ?? [], (file) => ({ path: file.webkitRelativePath || file.name, file }));

function sync(el) {
  const rid = rids.get(el);
  if (rid === undefined) return;
  if (el === timeline) return post({ kind: "sync", rid, props: geometry() });
  if (el.tagName === "DETAILS") return post({ kind: "sync", rid, props: { open: el.open } });
  if (!FORM.has(el.tagName)) return;
  if (el.type === "file") return post({ kind: "sync", rid, props: {}, files: files(el) });
  post({ kind: "sync", rid, props: { value: el.value } });
}

// A file picked or dropped while Python boots waits for it: say so at once (issue 18).
function queued(paths) {
  if (root.dataset.appState !== "loading" || !paths.length) return;
  const tops = new Set(paths.map((p) => p.split("/")[0]));
  const what = paths.length > 1 && tops.size === 1 && paths[0].includes("/")
    ? `${[...tops][0]}/ (${paths.length} files)`
    : paths.slice(0, 3).join(", ") + (paths.length > 3 ? ` … (${paths.length} files)` : "");
  const status = document.getElementById("status");
  status.textContent = `Loading Python… queued: ${what}`;
  status.dataset.queued = what;
}
globalThis.relayscopeQueued = queued;
document.addEventListener("change", (event) => {
  if (event.target?.type === "file") queued(files(event.target).map((f) => f.path));
}, { capture: true });

inflight();
post({ kind: "start", snapshot: snapshot() });
for (const id of ["file-input", "folder-input"]) {
  const input = document.getElementById(id);
  if (input?.files?.length) sync(input); // picked before this module ran (a restored form)
}
// Capturing, so that the worker has the new value before the event it may handle.
for (const type of ["input", "change", "toggle", "scroll"]) {
  document.addEventListener(type, (event) => sync(event.target), { capture: true });
}
new ResizeObserver(() => {
  sync(timeline);
  fire(window, "resize");
}).observe(timeline);

// -- events: forwarded to the worker's handlers --------------------------------------------

function describe(event) {
  const t = event.target;
  let near = t;
  while (near && !rids.has(near)) near = near.parentNode;
  return {
    type: event.type,
    key: event.key ?? "",
    ctrlKey: Boolean(event.ctrlKey),
    metaKey: Boolean(event.metaKey),
    altKey: Boolean(event.altKey),
    shiftKey: Boolean(event.shiftKey),
    rid: near ? rids.get(near) : null,
    self: near === t,
    tag: t?.tagName ?? "",
    id: t?.id ?? "",
    editable: Boolean(t?.isContentEditable),
  };
}

// The keys app.py's on_key acts on, as far as the page can tell: the page cannot wait for
// Python to say whether it did.
function keyHandled(event) {
  const t = event.target;
  const tag = t?.tagName ?? "";
  if (FORM.has(tag) || t?.isContentEditable) return false;
  if (event.ctrlKey || event.metaKey || event.altKey) return false;
  // the chips and the gallery: arrows, Home and End move between their buttons (app.py's rove)
  const ROVE = ["ArrowRight", "ArrowLeft", "ArrowDown", "ArrowUp", "Home", "End"];
  if (ROVE.includes(event.key) && t?.closest?.(".gallery, .chips")) return true;
  if (document.getElementById("workspace").hidden || root.dataset.appState === "analyzing") return false;
  const onButton = ["BUTTON", "A", "SUMMARY"].includes(tag);
  const key = event.key;
  if (["ArrowRight", "l", "n", "ArrowLeft", "h", "p", "ArrowDown", "j", "ArrowUp", "k", "/"].includes(key)) return true;
  if (key === "Enter") return !onButton && Boolean(timeline.querySelector(".row.selected"));
  if (key === "Escape") return Boolean(timeline.querySelector(".row.open"));
  if (key === "Home" || key === "End") return tag !== "BODY";
  if (key === "PageDown" || key === "PageUp") return tag !== "BODY" && !onButton;
  return false;
}

const WORK_CLICKS = new Set(["analyze", "run-audit", "compare-lineage", "src-confirm"]);
const WORK_ACTIONS = new Set(["example", "audit-lost", "audit-dup"]);

// Whether this event may start work: then "analyzing" now (the worker puts the state back if
// it started nothing).
function startsWork(el, type, event) {
  const id = el.id ?? "";
  if (type === "input" && id === "paste-input") return el.value.trim() !== "";
  if (type === "change" && (id === "file-input" || id === "folder-input")) return el.files.length > 0;
  if (type === "change" && id === "strategy") return true;
  if (type !== "click") return false;
  if (WORK_CLICKS.has(id)) return true;
  const action = event.target?.closest?.("[data-action]");
  return Boolean(action && WORK_ACTIONS.has(action.dataset.action));
}

function listen(rid, type, lid) {
  const target = refs.get(rid);
  if (!target) return;
  const fn = (event) => {
    if (type === "keydown" && keyHandled(event)) event.preventDefault();
    if (type === "click" && (target.id === "skip-to-stepper" || target.id === "skip-to-timeline")) event.preventDefault();
    const flipped = target !== window && target !== document && startsWork(target, type, event);
    if (flipped && root.dataset.appState !== "loading") root.dataset.appState = "analyzing";
    act({ kind: "event", lid, e: describe(event), flipped });
  };
  target.addEventListener(type, fn);
  listeners.set(lid, [target, type, fn]);
}

// A synthetic event for the worker's listeners on a target (the timeline resized: as a resize).
function fire(target, type) {
  for (const [lid, [t, kind]] of listeners) {
    if (t === target && kind === type) act({ kind: "event", lid, e: { type, rid: null, self: false }, flipped: false });
  }
}

// -- ops from the worker ------------------------------------------------------------------------

const BAD_NAME = /^(on|innerhtml$|outerhtml$|srcdoc$)/i;
const BAD_URL = /^\s*(javascript|data|vbscript):/i;
const CALLS = new Set(["focus", "blur", "select", "scrollIntoView"]);

function setAttr(el, name, value) {
  if (BAD_NAME.test(name) || name === "style") return;
  if (value === null) return el.removeAttribute(name);
  if ((name === "href" || name === "src") && BAD_URL.test(value)) return;
  el.setAttribute(name, value);
}

function setProp(el, name, value) {
  if (BAD_NAME.test(name)) return;
  if ((name === "href" || name === "src") && BAD_URL.test(value)) return;
  el[name] = value;
}

function build(spec) {
  if (!Array.isArray(spec)) return refs.get(spec);
  const [rid, tag, attrs, props, children, style] = spec;
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) setAttr(el, name, value);
  for (const [name, value] of Object.entries(props)) setProp(el, name, value);
  for (const child of children) el.append(build(child));
  for (const [name, value] of Object.entries(style)) el.style.setProperty(name, value);
  remember(rid, el);
  return el;
}

// Elements the worker made and no longer shows: forgotten (the page's own keep their id).
function forget(el) {
  for (const node of [el, ...el.querySelectorAll("*")]) {
    const rid = rids.get(node);
    if (typeof rid === "number") refs.delete(rid);
  }
}

function download({ name, mime, data }) {
  const url = URL.createObjectURL(new Blob([data], { type: mime }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function copy(text, id) {
  const reply = (ok) => act({ kind: "reply", id, ok });
  if (!navigator.clipboard) return reply(false);
  navigator.clipboard.writeText(text).then(() => reply(true), () => reply(false));
}

function apply(ops) {
  const measure = [];
  for (const op of ops) {
    const el = refs.get(op[1]);
    switch (op[0]) {
      case "set":
        if (el) setProp(el, op[2], op[3]);
        break;
      case "attr":
        if (el) setAttr(el, op[2], op[3]);
        break;
      case "style":
        el?.style.setProperty(op[2], op[3]);
        break;
      case "class":
        el?.classList.toggle(op[2], op[3]);
        break;
      case "append":
      case "before":
      case "after":
        el?.[op[0]](...op[2].map(build));
        break;
      case "replace":
        if (el) {
          for (const child of el.children) forget(child);
          el.replaceChildren(...op[2].map(build));
        }
        break;
      case "remove":
        if (el) {
          forget(el);
          el.remove();
        }
        break;
      case "call":
        if (el && CALLS.has(op[2])) el[op[2]](...op[3]);
        break;
      case "listen":
        listen(op[1], op[2], op[3]);
        break;
      case "unlisten": {
        const entry = listeners.get(op[1]);
        if (entry) entry[0].removeEventListener(entry[1], entry[2]);
        listeners.delete(op[1]);
        break;
      }
      case "measure":
        measure.push(op[1]);
        break;
      case "history":
        history.replaceState(null, "", op[1]);
        break;
      case "store":
        try {
          localStorage.setItem(op[1], op[2]);
        } catch {
          // storage denied: the choice lasts this visit
        }
        break;
      case "copy":
        copy(op[1], op[2]);
        break;
      case "drops":
        globalThis.relayscopeFiles.setDropHandler((result) => act({ kind: "drop", result }));
        break;
      case "watches":
        globalThis.relayscopeWatchFiles.setWatchHandler((request) => act({ kind: "watch", request }));
        break;
      case "ack":
        acked = Math.max(acked, op[1]);
        inflight();
        break;
    }
  }
  if (measure.length) {
    const sizes = measure.filter((rid) => refs.has(rid)).map((rid) => [rid, refs.get(rid).offsetHeight]);
    if (sizes.length) act({ kind: "measured", sizes });
  }
}

worker.onmessage = (event) => {
  const data = event.data;
  if (typeof data === "string") return apply(JSON.parse(data));
  if (data.kind === "download") return download(data);
  if (data.kind === "fatal") {
    root.dataset.appState = "error";
    document.getElementById("status").textContent = `Could not load: ${data.message}`;
  }
};
worker.onerror = (event) => {
  if (root.dataset.appState !== "loading") return;
  root.dataset.appState = "error";
  document.getElementById("status").textContent = `Could not load: ${event.message ?? "the worker failed"}`;
};
