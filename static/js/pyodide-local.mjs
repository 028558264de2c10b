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
//
// A visit after the first starts from a memory snapshot of the booted interpreter (Pyodide's
// _makeSnapshot / _loadSnapshot): the first visit boots as always, copies Python's memory right
// after the boot, before any package is loaded (a snapshot cannot hold a C extension such as
// msgspec's, whose code is not in that memory), and keeps it in this origin's Cache Storage
// under the runtime's id (static/vendor/pyodide/runtime-id.json, written by tools/build_site.py:
// a new runtime or standard library is a new id, and entries of other ids are dropped). A
// visit that finds one restores it (about a quarter of the boot) and loads the packages on it.
// The session that makes a snapshot gets the plain `js` module back at once (while snapshots
// are made, Pyodide hands Python a recording proxy of the globals instead). No snapshot (no
// Cache Storage, no id, one that fails to restore) is only a slower boot, never an error.
// Must not: make that zip or a snapshot a condition of booting.
import {
  loadPyodide as loadVendoredPyodide,
  version,
} from "../vendor/pyodide/pyodide.mjs";

const indexURL = new URL("../vendor/pyodide/", import.meta.url).href;
const lockFileURL = new URL("../../pyodide-lock.json", import.meta.url).href;
const bytecodeURL = new URL("../vendor/wheels/site-packages.pyc.zip", import.meta.url).href;
const runtimeIdURL = new URL("../vendor/pyodide/runtime-id.json", import.meta.url).href;
const SNAPSHOTS = "relayscope-boot"; // the Cache Storage cache they are kept in
let forgotten = Promise.resolve(); // a snapshot that did not restore, being dropped

export { version };

// How the last loadPyodide() booted: "snapshot" (restored), "scratch" (and a snapshot was made
// when `snapshot` says "kept"), for the tests and bench/web_load.py; the app does not read it.
export const boot = { from: null, snapshot: null };

// Fetched while Pyodide downloads and boots; null when it cannot be had.
const fetchBytecode = () =>
  fetch(bytecodeURL)
    .then((response) => (response.ok ? response.arrayBuffer() : null))
    .catch(() => null);

export const loadPyodide = async ({ packages = [], ...options } = {}) => {
  const bytecode = fetchBytecode();
  const key = await snapshotKey();
  const saved = key && (await readSnapshot(key));
  let pyodide = null;
  if (saved) {
    try {
      pyodide = await loadVendoredPyodide({ ...options, indexURL, lockFileURL, packages, _loadSnapshot: saved });
      boot.from = "snapshot";
    } catch (error) {
      console.warn("relayscope: the boot snapshot did not restore; booting from scratch:", error);
      forgetSnapshots();
    }
  }
  if (!pyodide) {
    pyodide = await loadVendoredPyodide({ ...options, indexURL, lockFileURL, _makeSnapshot: Boolean(key) });
    boot.from = "scratch";
    if (key) {
      boot.snapshot = keepSnapshot(key, pyodide);
      pyodide.registerJsModule("js", globalThis); // not the recording proxy snapshots need
    }
    await pyodide.loadPackage(packages);
  }
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

// The Cache Storage key of this runtime's snapshot (a URL of ours that is never fetched), or
// null: no Cache Storage here (an insecure origin), or no runtime id.
async function snapshotKey() {
  if (!globalThis.caches) return null;
  try {
    const response = await fetch(runtimeIdURL);
    const { id } = response.ok ? await response.json() : {};
    return typeof id === "string" && id ? new URL(`boot-${version}-${id}.snapshot`, indexURL).href : null;
  } catch {
    return null;
  }
}

async function readSnapshot(key) {
  try {
    const found = await (await caches.open(SNAPSHOTS)).match(key);
    return found ? new Uint8Array(await found.arrayBuffer()) : null;
  } catch {
    return null;
  }
}

// Copied now (Python's memory as the boot left it), stored while the packages load.
// Returns a promise of "kept" or "not kept" (never rejected).
function keepSnapshot(key, pyodide) {
  let snapshot;
  try {
    // Standard modules the app imports that Pyodide's boot does not (all built into the runtime,
    // none a dynamic library): in the snapshot, they are imported once for every later visit.
    pyodide.runPython("import datetime, decimal, difflib, hashlib, html, ipaddress, urllib.parse, uuid");
    snapshot = pyodide.makeMemorySnapshot();
  } catch (error) {
    console.warn("relayscope: no boot snapshot:", error);
    return Promise.resolve("not kept");
  }
  return forgotten
    .then(() => caches.open(SNAPSHOTS))
    .then(async (cache) => {
      await cache.put(key, new Response(snapshot));
      for (const old of await cache.keys()) if (old.url !== key) await cache.delete(old);
      return "kept";
    })
    .catch((error) => {
      console.warn("relayscope: the boot snapshot was not kept:", error);
      return "not kept";
    });
}

function forgetSnapshots() {
  forgotten = caches.delete(SNAPSHOTS).catch(() => {});
}

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
