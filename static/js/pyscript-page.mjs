// static/pyscript.html: starts relayscope in PyScript's worker (PyWorker, with the config in
// static/py/pyscript.json), fills the strategy select from its exported strategies() and draws
// what its exported translate() returns, with text nodes
// only (transcript text is data). The page's main thread never runs Python: a translation is
// a message to the worker, so typing stays responsive however long the worker takes.
// Must not: build markup from strings, or fetch anything but this site's files.
import { PyWorker } from "../vendor/pyscript/core.js";

const root = document.documentElement;
const $ = (id) => document.getElementById(id);
const input = $("ps-input");
const strategy = $("ps-strategy");
const status = $("ps-status");

// The longest main-thread task once painted (Long Tasks API), for the page's responsiveness claim.
let longest = 0;
try {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longest = Math.max(longest, entry.duration);
    root.dataset.longestTaskMs = String(Math.round(longest));
  }).observe({ type: "longtask", buffered: true });
} catch {
  // no Long Tasks API: nothing to report
}

const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

function draw(result) {
  const relays = $("ps-relays");
  relays.replaceChildren(
    ...result.relays.map((r) => {
      const li = el("li", `t-${r.type}`);
      li.dataset.seq = String(r.seq);
      li.append(el("span", "seq", `#${r.seq}`), el("span", "type", r.type),
        el("span", "lane", r.lane), el("span", "summary", r.summary));
      return li;
    }),
  );
  $("relay-count").textContent = String(result.relays.length);
  const steps = $("ps-steps");
  steps.replaceChildren(
    ...result.steps.map((s) => {
      const tr = el("tr", `d-${s.decision}`);
      tr.dataset.line = String(s.line);
      tr.dataset.decision = s.decision;
      tr.append(el("td", "", String(s.line)), el("td", "decision", s.label),
        el("td", "", s.reason), el("td", "", s.seqs.map((n) => `#${n}`).join(" ")));
      return tr;
    }),
  );
  const errors = result.errors.length ? `, ${result.errors.length} unreadable lines` : "";
  status.textContent = `${result.relays.length} relays from ${result.steps.length} lines under '${result.strategy}'${errors}.`;
}

let worker = null;
// Each edit takes the next ticket (data-edits); an answer is drawn only for the newest edit, and
// data-shown then names it, so an older answer that lands late never shows or says "done".
let edits = 0;
async function run() {
  const ticket = edits;
  root.dataset.appState = "analyzing";
  if (!worker) return; // the boot runs it once ready
  const text = await worker.sync.translate(input.value, strategy.value);
  if (ticket !== edits) return;
  draw(JSON.parse(text));
  root.dataset.shown = String(ticket);
  root.dataset.appState = "done";
}

let timer = 0;
const soon = () => {
  root.dataset.edits = String(++edits);
  root.dataset.appState = "analyzing";
  clearTimeout(timer);
  timer = setTimeout(() => run().catch(fail), 150);
};
function fail(error) {
  root.dataset.appState = "error";
  status.textContent = `Python failed: ${error?.message ?? error}`;
  console.error(error);
}

input.addEventListener("input", soon);
strategy.addEventListener("change", soon);

try {
  const here = (path) => new URL(path, import.meta.url).href;
  worker = await PyWorker(here("../py/relayscope_pyscript.py"), {
    config: here("../py/pyscript.json"),
    // the interpreter: a URL instead of a version, so PyScript imports our vendored Pyodide
    // rather than the CDN's (in a worker, PyScript reads this option, not the config's)
    version: here("../vendor/pyodide/pyodide.mjs"),
  });
  // the core's strategies (relayscope_pyscript.strategies), and the one this page opens on
  const { names, shown } = JSON.parse(await worker.sync.strategies());
  strategy.replaceChildren(...names.map((name) => el("option", "", name)));
  strategy.value = shown;
  status.textContent = "Python is ready.";
  await run();
} catch (error) {
  fail(error);
}
