// "Watch…": the page's side of watching a file or folder that grows.
//
// watch(handle, {intervalMs}) starts watching a FileSystemFileHandle or a
// FileSystemDirectoryHandle: what the Watch buttons call with the picker's handle, and what
// scripts and tests call, importing this module (e.g. with a handle from
// navigator.storage.getDirectory(), which every Chromium has even where the pickers are
// missing). ui.mjs sends each to the worker (message watch), which keeps those that come while
// Python boots until it is ready.
//
// The buttons' pickers run here, in the click (a picker needs the reader's gesture, which the
// worker Python runs in never has); a picker the browser refuses is sent as {error}. Python, in
// the worker, reads the bytes itself (File.slice) and lists folders with fs-list.mjs.
// Must not: read the files.
const early = []; // requests before ui.mjs listens (it does as it starts)
let deliver = null;

const send = (request) => (deliver ? deliver(request) : early.push(request));

export function watch(handle, options = {}) {
  if (!handle || (handle.kind !== "file" && handle.kind !== "directory")) {
    throw new TypeError("watch needs a FileSystemFileHandle or FileSystemDirectoryHandle");
  }
  send({ handle, options });
}

export function connectWatch(fn) {
  deliver = fn;
  while (early.length) deliver(early.shift());
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
export function support() {
  if (!window.isSecureContext) return "the page is not served over https or from localhost";
  if (crossSiteFrame()) return "this page runs in a frame of another site, where browsers show no file pickers";
  if (typeof window.showOpenFilePicker !== "function" || typeof window.showDirectoryPicker !== "function") {
    return "this browser does not have it (no showOpenFilePicker / showDirectoryPicker)";
  }
  return "";
}

async function pick(folder) {
  let handle;
  try {
    handle = folder ? await window.showDirectoryPicker() : (await window.showOpenFilePicker())[0];
  } catch (error) {
    // the reader closed the picker (AbortError): nothing to say
    if (error?.name !== "AbortError") send({ error: String(error?.message ?? error) });
    return;
  }
  watch(handle);
}

document.getElementById("watch-file")?.addEventListener("click", () => pick(false));
document.getElementById("watch-folder")?.addEventListener("click", () => pick(true));
