// Pyodide for the app's worker (worker.mjs imports this module): the vendored runtime, loaded
// with our lock.
//
// Why it exists: loadPyodide() reads static/vendor/pyodide/pyodide-lock.json unless told
// otherwise; this module pins both: the runtime from static/vendor/pyodide/, the packages from
// the committed top-level pyodide-lock.json, whose relative file_name entries resolve against
// the site root. URLs are relative to this file, so the site works under any path.
//
// It also puts the wheels' bytecode (static/vendor/wheels/site-packages.pyc.zip, built by
// tools/compile_bytecode.mjs) beside their installed sources before Python imports anything
// from them, so the boot does not compile msgspec's and our modules from source. Each
// __pycache__ goes only into a folder that exists: a package that was not installed (a wheel
// refused) must stay missing, not turn into an empty namespace package. The .pyc are
// checked-hash: one that does not match its installed source is ignored. If the zip cannot be
// had at all, the page boots as before, only slower.
// Must not: make that zip a condition of booting.
import {
  loadPyodide as loadVendoredPyodide,
  version,
} from "../vendor/pyodide/pyodide.mjs";

const indexURL = new URL("../vendor/pyodide/", import.meta.url).href;
const lockFileURL = new URL("../../pyodide-lock.json", import.meta.url).href;
const bytecodeURL = new URL("../vendor/wheels/site-packages.pyc.zip", import.meta.url).href;

export { version };

// Fetched while Pyodide downloads and boots; null when it cannot be had.
const fetchBytecode = () =>
  fetch(bytecodeURL)
    .then((response) => (response.ok ? response.arrayBuffer() : null))
    .catch(() => null);

export const loadPyodide = async (options = {}) => {
  const bytecode = fetchBytecode();
  const pyodide = await loadVendoredPyodide({ ...options, indexURL, lockFileURL });
  const zip = await bytecode;
  if (zip) {
    try {
      addBytecode(pyodide, zip);
    } catch (error) {
      console.warn("relayscope: no bytecode, Python compiles from source:", error);
    }
  }
  return pyodide;
};

// The zip holds paths from the root (lib/python3.x/site-packages/...): unpacked aside, then
// each __pycache__ moved to its folder, walking only folders that exist on both sides.
function addBytecode(pyodide, zip) {
  const { FS } = pyodide;
  const stage = "/tmp/site-packages-pyc";
  pyodide.unpackArchive(zip, "zip", { extractDir: stage });
  const exists = (path) => FS.analyzePath(path).exists;
  const place = (from, to) => {
    for (const name of FS.readdir(from)) {
      const src = `${from}/${name}`;
      const dst = `${to}/${name}`;
      if (name === "." || name === ".." || !FS.isDir(FS.stat(src).mode)) continue;
      if (name === "__pycache__") {
        if (!exists(dst)) FS.rename(src, dst);
      } else if (exists(dst)) {
        place(src, dst);
      }
    }
  };
  place(stage, "");
}
