// Dropped files and folders, handed on as {files: [{path, file}], error} (File objects, paths
// relative to what was dropped: "session/subagents/agent-1.jsonl"); ui.mjs sends them to the
// worker (message drop), which keeps those that come while Python boots until it is ready.
//
// Why JS, not Python: a dropped folder can only be read through
// DataTransferItem.webkitGetAsEntry(), whose entries must be taken synchronously inside the drop
// event and whose readers are callback-based; and a drop can come while Python is still booting
// (seconds), when only JS can stop the browser from navigating to the dropped file. Python reads
// the bytes itself. handleDrop is exported for what the tests do with a fake folder (no browser
// lets a script build a real folder drop): import this module and call it.
// Must not: read the files' bytes.
const root = document.documentElement;
const early = []; // drops before ui.mjs listens (it does as it starts)
let deliver = null;

const readAll = (reader) =>
  new Promise((resolve, reject) => {
    const out = [];
    const next = () =>
      reader.readEntries((batch) => {
        if (!batch.length) return resolve(out);
        out.push(...batch);
        next(); // readEntries returns at most 100 entries a call
      }, reject);
    next();
  });

const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));

async function walk(entry, out) {
  const path = entry.fullPath.replace(/^\/+/, "");
  if (entry.isFile) {
    out.push({ path, file: await fileOf(entry) });
  } else if (entry.isDirectory) {
    const children = await readAll(entry.createReader());
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) await walk(child, out);
  }
}

export async function collect(dataTransfer) {
  const items = Array.from(dataTransfer.items ?? []).filter((i) => i.kind === "file");
  // Entries first, synchronously: the DataTransfer is emptied once the event returns.
  const entries = items.map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
  const files = Array.from(dataTransfer.files ?? []);
  const out = [];
  for (let k = 0; k < Math.max(entries.length, files.length); k++) {
    const entry = entries[k];
    if (entry) await walk(entry, out);
    else if (files[k]) out.push({ path: files[k].name, file: files[k] });
  }
  return out;
}

export function listenForDrops(fn) {
  deliver = fn;
  while (early.length) deliver(early.shift());
}

const hasFiles = (event) => Array.from(event.dataTransfer?.types ?? []).includes("Files");

addEventListener("dragover", (event) => {
  if (!hasFiles(event)) return;
  event.preventDefault();
  event.dataTransfer.dropEffect = "copy";
  root.classList.add("dragging");
});
addEventListener("dragleave", (event) => {
  if (event.relatedTarget === null) root.classList.remove("dragging");
});
// A drop: read it, then hand it on. The app state turns to "analyzing" at once, as Python's
// own handlers do, so that nobody waiting for "done" mistakes the previous run's for this one.
export function handleDrop(dataTransfer) {
  if (root.dataset.appState !== "loading") root.dataset.appState = "analyzing";
  collect(dataTransfer)
    .then(
      (files) => ({ files, error: null }),
      (error) => ({ files: [], error: String(error?.message ?? error) }),
    )
    .then((drop) => (deliver ? deliver(drop) : early.push(drop)));
}

addEventListener("drop", (event) => {
  root.classList.remove("dragging");
  if (!hasFiles(event)) return;
  event.preventDefault();
  handleDrop(event.dataTransfer);
});
