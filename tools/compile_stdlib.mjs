// Compile Pyodide's standard library zip to bytecode, with Pyodide's own Python, under Node.
//
//   node tools/compile_stdlib.mjs PYODIDE_DIR IN_ZIP OUT_ZIP
//
// Why: npm's python_stdlib.zip holds only .py files, so every page load compiles each module
// Python imports while it boots (importlib, os, asyncio, pyodide, ...) from source, in wasm, on
// the main thread: about half of a bare Pyodide boot (bench/web_load.py --breakdown). A .pyc
// must come from the same Python version as the runtime (its magic number), and this machine
// may have no CPython of that version: Pyodide itself has it, so it compiles its own library.
// The .pyc are unchecked-hash (PEP 552): zipimport loads them without looking for the source,
// and the source is left out (Pyodide's own `pyodide py-compile` does the same), so a traceback
// through the standard library shows file and line but not the line's text.
// Must not: change anything but .py -> .pyc; depend on when it runs (fixed zip timestamps).
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const [pyodideDir, inZip, outZip] = process.argv.slice(2);
if (!outZip) {
  console.error("usage: node tools/compile_stdlib.mjs PYODIDE_DIR IN_ZIP OUT_ZIP");
  process.exit(2);
}
const indexURL = resolve(pyodideDir) + "/";
const { loadPyodide } = await import(indexURL + "pyodide.mjs");
const py = await loadPyodide({ indexURL });
py.FS.writeFile("/tmp/in.zip", readFileSync(inZip));
py.runPython(`
import importlib.util, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

# The path zipimport gives the modules when the zip is mounted where Pyodide mounts it, so
# code objects carry the file name a source import would have given them.
PREFIX = "/lib/python%d%d.zip/" % __import__("sys").version_info[:2]
with zipfile.ZipFile("/tmp/in.zip") as src, zipfile.ZipFile(
    "/tmp/out.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9
) as out:
    for info in src.infolist():
        data = src.read(info)
        name = info.filename
        if name.endswith(".py"):
            code = compile(data, PREFIX + name, "exec", dont_inherit=True)
            data = bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
            name += "c"
        out.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data,
                     compress_type=zipfile.ZIP_STORED if name.endswith("/") else zipfile.ZIP_DEFLATED)
`);
writeFileSync(outZip, py.FS.readFile("/tmp/out.zip"));
