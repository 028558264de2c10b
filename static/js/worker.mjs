// The web worker Python runs in (started by ui.mjs). Loading Pyodide, translating and drawing
// (as ops for the page: py/relayscope/web/remote.py) all happen here, so the page's own thread
// never holds more than a few milliseconds of work: the page paints at once, and what is typed,
// pasted or dropped while Python boots is echoed at once and analyzed when it is ready.
//
// Why a plain module worker, not a PyScript one: PyScript's worker (a blob: URL) reaches back to
// the page only through SharedArrayBuffer, i.e. cross-origin isolation headers that static
// hosts do not send; without them the page can call the worker but the worker cannot tell the
// page anything (progress, a watched file that grew), and its bundled IndexedDB cache fails to
// start in a frame on another site. A module worker from our own origin posts messages both
// ways, needs no header, no blob: in the CSP and no storage. The runtime is the same vendored
// Pyodide with our lock and precompiled bytecode (pyodide-local.mjs).
//
// Messages that come while Pyodide loads wait in order: the page's state first, then what the
// reader did meanwhile; Python applies them all before the app starts (and keeps drops and watch
// requests until the app takes them). Python gets the worker's own helpers (listing a folder
// handle, reading a file ahead, reading parts of files) as arguments of bind(), never through globals.
// Must not: touch anything but messages (there is no DOM here).
import { list } from "./fs-list.mjs";
import { POST } from "./protocol.mjs";
import { loadPyodide } from "./pyodide-local.mjs";
import { readAhead, startReader } from "./read-ahead.mjs";
import { readRange } from "./read-pool.mjs";

const inbox = [];
let deliver = null;
self.onmessage = (event) => (deliver ? deliver(event.data) : inbox.push(event.data));

const fatal = (error) => postMessage({ kind: POST.FATAL, message: String(error?.message ?? error) });

startReader(); // the file reader's own worker, ready before any file is picked

try {
  // markdown-it-py: a message's Markdown (web/markdown_view.py imports it when a message is opened)
  const pyodide = await loadPyodide({ packages: ["relayscope", "markdown-it-py"] });
  // Pyodide logs a wheel it could not load and goes on: say which, in the reader's words.
  const missing = ["msgspec", "relayscope"].filter((name) => !(name in pyodide.loadedPackages));
  if (missing.length) {
    throw new Error(
      `No module named '${missing.at(-1)}': its wheel was not loaded. A wheel that cannot be ` +
        "fetched, or whose sha256 is not the one pyodide-lock.json gives, is refused (the console says which).",
    );
  }
  const main = pyodide.pyimport("relayscope.web.main");
  main.bind({ list, readAhead, readRange });
  // A message Python fails on is a bug of ours: logged, and the next one is taken.
  deliver = (message) => {
    try {
      main.receive(message);
    } catch (error) {
      console.error(error);
    }
  };
  while (inbox.length) deliver(inbox.shift());
  main.run();
} catch (error) {
  console.error(error);
  fatal(error);
}
