// "Watch…" (issue 12): the browser side of watching a file or folder that grows.
//
// window.relayscopeWatch(handle, {intervalMs}) starts watching a FileSystemFileHandle or a
// FileSystemDirectoryHandle: what the Watch buttons call with the picker's handle, and the
// documented hook for scripts and tests (e.g. a handle from navigator.storage.getDirectory(),
// which every Chromium has even where the pickers are missing). Calls made before Python is
// ready wait in a queue, as drops do (files.mjs).
//
// Why JS: listing a directory handle means async iterators and recursion, which are plain here
// and awkward through Pyodide's proxies. Python reads the bytes itself (File.slice).
const queue = [];
let handler = null;

function relayscopeWatch(handle, options = {}) {
  if (!handle || (handle.kind !== "file" && handle.kind !== "directory")) {
    throw new TypeError("relayscopeWatch needs a FileSystemFileHandle or FileSystemDirectoryHandle");
  }
  if (handler) handler({ handle, options });
  else queue.push({ handle, options });
}

function setWatchHandler(fn) {
  handler = fn;
  while (queue.length) handler(queue.shift());
}

// Every file under a directory handle: [{path, handle}], paths relative to it, sorted.
async function list(dir, prefix = "") {
  const out = [];
  const entries = [];
  for await (const [name, entry] of dir.entries()) entries.push([name, entry]);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [name, entry] of entries) {
    const path = prefix + name;
    if (entry.kind === "file") out.push({ path, handle: entry });
    else out.push(...(await list(entry, path + "/")));
  }
  return out;
}

// Browsers show no file picker to a frame from another site.
function crossSiteFrame() {
  if (window.top === window) return false;
  try {
    return !window.top.location.href;
  } catch {
    return true;
  }
}

// The pickers, or why they cannot be used here.
function support() {
  if (!window.isSecureContext) return "the page is not served over https or from localhost";
  if (crossSiteFrame()) return "this page runs in a frame of another site, where browsers show no file pickers";
  if (typeof window.showOpenFilePicker !== "function" || typeof window.showDirectoryPicker !== "function") {
    return "this browser does not have it (no showOpenFilePicker / showDirectoryPicker)";
  }
  return "";
}

globalThis.relayscopeWatch = relayscopeWatch;
globalThis.relayscopeWatchFiles = { list, setWatchHandler, support };
