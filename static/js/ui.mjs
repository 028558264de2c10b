// The page's thread: it owns the DOM; Python runs in a web worker (worker.mjs) and draws by
// sending ops. The protocol both ways is declared in protocol.mjs (the worker's side in
// py/relayscope/web/protocol.py says what each message and op carries). This module
//   * starts the worker and sends it the page's state (elements with an id, the address, the
//     theme stored, what the browser can do), then keeps it current: values typed, <details>
//     opened, the timeline scrolled or resized, files picked;
//   * hands the worker what the reader does elsewhere: drops (files.mjs), files or folders to
//     watch (watch.mjs), spans picked and ranges dragged on the swimlanes (swimlanes.mjs);
//   * applies the worker's ops (one switch, apply): elements built with createElement, text set
//     as textContent, attributes and properties set one by one (never markup, never
//     event-handler attributes, never a javascript: URL), listeners that forward events, focus
//     and scrolling, the address (history.replaceState), the theme stored, the clipboard,
//     downloads, the swimlanes' data;
//   * decides at once what only the event's own task can, as the worker said when it asked for
//     the event (op listen's options): preventDefault for the keys its key table takes, and
//     <html data-app-state="analyzing"> in the very handler that starts work (Python answers a
//     few milliseconds later; a script that waits for "done" after acting must not see the
//     previous run's).
// Must not: parse markup, or wait for the worker (nothing here blocks on an answer).
import { listenForDrops } from "./files.mjs";
import "./grip.mjs";
import { KEY_WHEN, MSG, OP, POST, WORK } from "./protocol.mjs";
import * as split from "./split.mjs";
import * as swimlanes from "./swimlanes.mjs";
import { connectWatch, support as watchSupport } from "./watch.mjs";

const root = document.documentElement;
// A window as narrow as a phone's when the page opens (workspace.css's narrow layout, up to 700
// px): the worker starts the swimlanes folded and the detail panel closed, so the rows get the screen.
if (matchMedia("(max-width: 700px)").matches) root.dataset.narrow = "start";
const worker = new Worker(new URL("./worker.mjs", import.meta.url), { type: "module" });
const post = (message) => worker.postMessage(message);

// What the reader did (events, drops, watch handles, picks) is numbered; the worker acknowledges
// each once handled, after the ops it made. <html data-inflight>: how many are not yet; "0" when
// the page shows everything the reader's actions did so far (jobs they started excepted: those
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
const workspace = document.getElementById("workspace");
// Every scroll of the timeline is sent (remote.py's SCROLL_SYNCED: its mirror is trusted to
// know when it is at the top).
const geometry = () => ({
  scrollTop: timeline.scrollTop,
  clientHeight: timeline.clientHeight,
  scrollHeight: timeline.scrollHeight,
  clientWidth: timeline.clientWidth, // a narrow timeline has taller rows (rowdraw.NARROW_W)
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
    watchSupport: watchSupport(),
  };
}

const files = (input) => Array.from(input.files ?? [], (file) => ({ path: file.webkitRelativePath || file.name, file }));

function sync(el) {
  const rid = rids.get(el);
  if (rid === undefined) return;
  if (el === timeline) return post({ kind: MSG.SYNC, rid, props: geometry() });
  if (el.dataset?.syncScroll !== undefined) return post({ kind: MSG.SYNC, rid, props: { scrollTop: el.scrollTop } });
  if (el.tagName === "DETAILS") return post({ kind: MSG.SYNC, rid, props: { open: el.open } });
  if (!FORM.has(el.tagName)) return;
  if (el.type === "file") return post({ kind: MSG.SYNC, rid, props: {}, files: files(el) });
  post({ kind: MSG.SYNC, rid, props: { value: el.value } });
}

// A file picked or dropped while Python boots waits for it: say so at once.
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
document.addEventListener("change", (event) => {
  if (event.target?.type === "file") queued(files(event.target).map((f) => f.path));
}, { capture: true });

inflight();
post({ kind: MSG.START, snapshot: snapshot() });
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

// What the reader does elsewhere on the page, handed to the worker (which keeps what comes
// before Python is ready until it is).
listenForDrops((drop) => {
  queued(drop.files.map((item) => item.path));
  act({ kind: MSG.DROP, files: drop.files, error: drop.error });
});
connectWatch((request) => act({ kind: MSG.WATCH, ...request }));
split.connect((size) => act({ kind: MSG.SIZE, size }));
swimlanes.connect({
  pick: (relay, line, lane) => act({ kind: MSG.PICK, relay, line, lane }),
  range: (range) => act({ kind: MSG.RANGE, from: range?.[0] ?? null, to: range?.[1] ?? null }),
});

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

// The conditions of the worker's key table, as the page can tell them in the key's own event.
const WHEN = {
  field: (t) => FORM.has(t?.tagName ?? "") || Boolean(t?.isContentEditable),
  "typing-ok": (t) => !WHEN.field(t),
  plain: (t, event) => !(event.ctrlKey || event.metaKey || event.altKey),
  group: (t) => Boolean(t?.closest?.(".gallery, .chips, [role=tablist]")),
  view: () => !workspace.hidden && root.dataset.appState !== "analyzing",
  "not-body": (t) => (t?.tagName ?? "") !== "BODY",
  "not-button": (t) => !["BUTTON", "A", "SUMMARY"].includes(t?.tagName ?? ""),
  "row-selected": () => Boolean(timeline.querySelector(".row.selected")),
  "row-open": () => Boolean(timeline.querySelector(".row.open")),
  search: (t) => t?.id === "filter",
  searching: () => (document.getElementById("filter")?.value ?? "").trim() !== "",
  shift: (t, event) => event.shiftKey,
  "menu-open": () => root.dataset.menu === "open",
};
for (const name of KEY_WHEN) if (!WHEN[name]) throw new Error(`no test for the key condition ${name}`);

// Whether the first rule of the table that takes this key prevents its default.
function keyPrevented(event, keys) {
  const rule = keys.find((r) => r.keys.includes(event.key) && r.when.every((c) => WHEN[c](event.target, event)));
  return Boolean(rule?.prevent);
}

// Whether this event may start work (op listen's options.work): then "analyzing" now (the
// worker puts the state back if it started nothing).
function startsWork(work, el, event) {
  if (work === WORK.ALWAYS) return true;
  if (work === WORK.VALUE) return el.value.trim() !== "";
  if (work === WORK.FILES) return el.files.length > 0;
  const action = work?.actions && event.target?.closest?.("[data-action]");
  return Boolean(action && work.actions.includes(action.dataset.action));
}

function listen(rid, type, lid, options) {
  const target = refs.get(rid);
  if (!target) return;
  const fn = (event) => {
    if (options.keys && keyPrevented(event, options.keys)) event.preventDefault();
    if (options.prevent) event.preventDefault();
    const flipped = Boolean(options.work) && startsWork(options.work, target, event);
    if (flipped && root.dataset.appState !== "loading") root.dataset.appState = "analyzing";
    act({ kind: MSG.EVENT, lid, e: describe(event), flipped });
  };
  target.addEventListener(type, fn);
  listeners.set(lid, [target, type, fn]);
}

// A synthetic event for the worker's listeners on a target (the timeline resized: as a resize).
function fire(target, type) {
  for (const [lid, [t, kind]] of listeners) {
    if (t === target && kind === type) act({ kind: MSG.EVENT, lid, e: { type, rid: null, self: false }, flipped: false });
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
  const reply = (ok) => act({ kind: MSG.REPLY, id, ok });
  if (!navigator.clipboard) return reply(false);
  navigator.clipboard.writeText(text).then(() => reply(true), () => reply(false));
}

// The address first, before the batch's DOM changes: Chromium recomputes the page's style when
// the URL changes, and a replaceState after the rows of a screen were built styled them all once
// more (measured: 30-40 ms of the page's time at the end of a 50 MB load, 1-10 ms first).
// Nothing in a batch reads the address, so only the last one given is set.
function address(ops) {
  let url = null;
  for (const op of ops) if (op[0] === OP.HISTORY) url = op[1];
  if (url !== null) history.replaceState(null, "", url);
}

function apply(ops) {
  const measure = [];
  address(ops);
  for (const op of ops) {
    const el = refs.get(op[1]);
    switch (op[0]) {
      case OP.SET:
        if (el) setProp(el, op[2], op[3]);
        break;
      case OP.ATTR:
        if (el) setAttr(el, op[2], op[3]);
        break;
      case OP.STYLE:
        el?.style.setProperty(op[2], op[3]);
        break;
      case OP.CLASS:
        el?.classList.toggle(op[2], op[3]);
        break;
      case OP.APPEND:
      case OP.BEFORE:
      case OP.AFTER:
        el?.[op[0]](...op[2].map(build));
        break;
      case OP.REPLACE:
        if (el) {
          for (const child of el.children) forget(child);
          el.replaceChildren(...op[2].map(build));
        }
        break;
      case OP.REMOVE:
        if (el) {
          forget(el);
          el.remove();
        }
        break;
      case OP.CALL:
        if (el && CALLS.has(op[2])) el[op[2]](...op[3]);
        break;
      case OP.LISTEN:
        listen(op[1], op[2], op[3], op[4] ?? {});
        break;
      case OP.UNLISTEN: {
        const entry = listeners.get(op[1]);
        if (entry) entry[0].removeEventListener(entry[1], entry[2]);
        listeners.delete(op[1]);
        break;
      }
      case OP.MEASURE:
        measure.push(op[1]);
        break;
      case OP.HISTORY:
        break; // set before the batch (address)
      case OP.STORE:
        try {
          localStorage.setItem(op[1], op[2]);
        } catch {
          // storage denied: the choice lasts this visit
        }
        break;
      case OP.COPY:
        copy(op[1], op[2]);
        break;
      case OP.ACK:
        acked = Math.max(acked, op[1]);
        inflight();
        break;
      case OP.LANES:
        swimlanes.begin(op[1]);
        break;
      case OP.LANE_META:
        swimlanes.meta(op[1], op[2], op[3]);
        break;
      case OP.LANE_PART:
        swimlanes.part(op[1], op[2], op[3], op[4]);
        break;
      case OP.LANES_READY:
        swimlanes.ready();
        break;
      case OP.LANE_SELECT:
        swimlanes.select(op[1], op[2]);
        break;
      default:
        console.error("relayscope: an op the page does not know", op[0]);
    }
  }
  if (measure.length) {
    const sizes = measure.filter((rid) => refs.has(rid)).map((rid) => [rid, refs.get(rid).offsetHeight]);
    if (sizes.length) act({ kind: MSG.MEASURED, sizes });
  }
}

worker.onmessage = (event) => {
  const data = event.data;
  if (typeof data === "string") return apply(JSON.parse(data));
  if (data.kind === POST.DOWNLOAD) return download(data);
  if (data.kind === POST.FATAL) {
    root.dataset.appState = "error";
    document.getElementById("status").textContent = `Could not load: ${data.message}`;
  }
};
worker.onerror = (event) => {
  if (root.dataset.appState !== "loading") return;
  root.dataset.appState = "error";
  document.getElementById("status").textContent = `Could not load: ${event.message ?? "the worker failed"}`;
};
