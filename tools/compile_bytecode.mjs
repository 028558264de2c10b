// Compile Python to bytecode ahead of time, with Pyodide's own Python, under Node.
//
//   node tools/compile_bytecode.mjs stdlib PYODIDE_DIR IN_ZIP OUT_ZIP
//   node tools/compile_bytecode.mjs site-packages PYODIDE_DIR STDLIB_ZIP OUT_ZIP WHEEL...
//
// Why: npm's python_stdlib.zip and the wheels hold only .py files, so every page load compiles
// each module Python imports while it boots (importlib, os, asyncio, pyodide, msgspec, ours)
// from source, in wasm, on the main thread: about half of a bare Pyodide boot
// (bench/web_load.py). A .pyc must come from the runtime's exact Python version (its magic
// number), which this machine may not have: Pyodide has it, so it compiles for itself.
//   stdlib         the zip with each .py replaced by its .pyc (unchecked-hash, PEP 552: zipimport
//                  loads it without the source, as Pyodide's own `pyodide py-compile` leaves it;
//                  a traceback through the standard library shows file and line, not the text).
//   site-packages  a zip of __pycache__/*.pyc for the wheels' .py files, at their installed
//                  paths, for the page to unpack over site-packages. Checked-hash: Python uses
//                  a .pyc only while its source hash matches the installed file, so a stale
//                  or mismatched overlay costs time, never correctness.
// Must not: change anything but bytecode; depend on when it runs (fixed zip timestamps).
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const [mode, pyodideDir, inZip, outZip, ...wheels] = process.argv.slice(2);
if (!["stdlib", "site-packages"].includes(mode) || !outZip) {
  console.error("usage: node tools/compile_bytecode.mjs stdlib|site-packages PYODIDE_DIR ZIP OUT [WHEEL...]");
  process.exit(2);
}
const indexURL = resolve(pyodideDir) + "/";
const { loadPyodide } = await import(indexURL + "pyodide.mjs");
// site-packages: boot on the compiled stdlib (the inZip), which is quicker.
const py = await loadPyodide({ indexURL, ...(mode === "site-packages" ? { stdLibURL: resolve(inZip) } : {}) });
if (mode === "stdlib") py.FS.writeFile("/tmp/in.zip", readFileSync(inZip));
wheels.forEach((wheel, k) => py.FS.writeFile(`/tmp/wheel-${k}.whl`, readFileSync(wheel)));
py.globals.set("MODE", mode);
py.globals.set("WHEELS", wheels.map((_, k) => `/tmp/wheel-${k}.whl`));
py.runPython(`
import importlib.util, site, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

def pyc(source, filename, checked):
    code = compile(source, filename, "exec", dont_inherit=True)
    return bytes(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=checked))

def entry(name):
    return zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))

with zipfile.ZipFile("/tmp/out.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
    if MODE == "stdlib":
        # where Pyodide mounts the zip: code objects get the file names a source import gives
        prefix = "/lib/python%d%d.zip/" % sys.version_info[:2]
        with zipfile.ZipFile("/tmp/in.zip") as src:
            for info in src.infolist():
                data, name = src.read(info), info.filename
                if name.endswith(".py"):
                    data, name = pyc(data, prefix + name, checked=False), name + "c"
                out.writestr(entry(name), data, compress_type=zipfile.ZIP_STORED if name.endswith("/") else zipfile.ZIP_DEFLATED)
    else:
        root = site.getsitepackages()[0]
        for wheel in WHEELS.to_py():
            with zipfile.ZipFile(wheel) as src:
                for name in sorted(src.namelist()):
                    if name.endswith(".py"):
                        cached = importlib.util.cache_from_source(root + "/" + name)
                        out.writestr(entry(cached.lstrip("/")), pyc(src.read(name), root + "/" + name, checked=True),
                                     compress_type=zipfile.ZIP_DEFLATED)
`);
writeFileSync(outZip, py.FS.readFile("/tmp/out.zip"));
