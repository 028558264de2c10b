// "Watch…" (issue 12): the browser side of watching a file or folder that grows.
//
// window.relayscopeWatch(handle, {intervalMs}) starts watching a FileSystemFileHandle or a
// FileSystemDirectoryHandle: what the Watch buttons call with the picker's handle, and the
// documented hook for scripts and tests (e.g. a handle from navigator.storage.getDirectory(),
// which every Chromium has even where the pickers are missing). Calls made before Python is
// ready wait in a queue, as drops do (files.mjs).
//
// The buttons' pickers run here, in the click (a picker needs the reader's gesture, which the
// worker Python runs in never has); a picker the browser refuses is reported to Python as
// {error}. Python, in the worker, reads the bytes itself (File.slice) and lists folders with
// fs-list.mjs.
import { list } from "./fs-list.mjs";

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

async function pick(folder) {
  let handle;
  try {
    handle = folder ? await window.showDirectoryPicker() : (await window.showOpenFilePicker())[0];
  } catch (error) {
    // the reader closed the picker (AbortError): nothing to say
    if (error?.name !== "AbortError") {
      const request = { error: String(error?.message ?? error) };
      if (handler) handler(request);
      else queue.push(request);
    }
    return;
  }
  relayscopeWatch(handle);
}

document.getElementById("watch-file")?.addEventListener("click", () => pick(false));
document.getElementById("watch-folder")?.addEventListener("click", () => pick(true));

globalThis.relayscopeWatch = relayscopeWatch;
globalThis.relayscopeWatchFiles = { list, setWatchHandler, support };
