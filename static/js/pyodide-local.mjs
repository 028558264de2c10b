// The "interpreter" module PyScript imports (see the config in index.html): the vendored
// Pyodide, loaded with our lock.
//
// Why it exists: PyScript 0.7 (polyscript 0.20) calls loadPyodide() with an indexURL derived
// from the interpreter's URL and, with packages_cache "passthrough", the package names; it has no
// setting for lockFileURL, so Pyodide would read static/vendor/pyodide/pyodide-lock.json. This
// module re-exports Pyodide and pins both: the runtime from static/vendor/pyodide/, the packages
// from the committed top-level pyodide-lock.json, whose relative file_name entries resolve
// against the site root. URLs are relative to this file, so the site works under any path.
import {
  loadPyodide as loadVendoredPyodide,
  version,
} from "../vendor/pyodide/pyodide.mjs";

const indexURL = new URL("../vendor/pyodide/", import.meta.url).href;
const lockFileURL = new URL("../../pyodide-lock.json", import.meta.url).href;

export { version };

export const loadPyodide = (options = {}) => {
  // Our lock always wins: a lock PyScript cached in IndexedDB must not replace it.
  const { lockFileContents, lockFileURL: _, ...rest } = options;
  return loadVendoredPyodide({ ...rest, indexURL, lockFileURL });
};
