"""How much slower the page's Python engine (Pyodide: CPython compiled to WebAssembly) runs the
same work than the CLI's (native CPython), part by part, on the same file in the same run.

    .venv/bin/python bench/engine_gap.py [--mb 50] [--runs 3]

bench/_engine_parts.py is timed here, then under Pyodide in Node (node bench/pyodide_model.mjs
FILE --engine, after `make site`), best of --runs each. The ratio column is Pyodide over CPython.
It bounds what the page can reach against the CLI: the page runs these parts (the last row is its
whole load) on the slower engine, the CLI on the faster one, so a faster translator speeds both
alike and leaves the page's ratio to the CLI where it was. The last line divides the page's load
alone under Pyodide by the CLI as bench/web_scale.py times it (a process, reading and writing
included): the least the page's ratio can be, before reading the file and drawing. The input is
bench/web_scale.py's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "bench"))

from _engine_parts import measure
from web_scale import cli_seconds, make_input


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not (ROOT / "static" / "vendor" / "wheels").is_dir():
        raise SystemExit("static/vendor/ is empty: run `make site` first")
    path = make_input(args.mb)
    cli_seconds(path)  # writes the bytecode, warms the file cache
    cli = min(cli_seconds(path) for _ in range(args.runs)) * 1000
    native = measure(str(path), args.runs)
    out = subprocess.run(["node", str(ROOT / "bench" / "pyodide_model.mjs"), str(path), "--engine", "--runs",
                          str(args.runs)], check=True, capture_output=True, text=True).stdout
    wasm = json.loads(out.strip().splitlines()[-1])
    print(f"{path.name}: {path.stat().st_size / 2**20:.1f} MB; best of {args.runs}; "
          f"CPython {sys.version.split()[0]} native, Pyodide {wasm['python']} in Node {_node_version()}")
    print(f"  {'part':<30} {'CPython':>9} {'Pyodide':>9}  ratio")
    for name, ms in native.items():
        print(f"  {name:<30} {ms:7.0f} ms {wasm['ms'][name]:6.0f} ms  {wasm['ms'][name] / ms:.2f}x")
    load = wasm["ms"]["Workspace.load (the page's)"]
    print(f"  the CLI (web_scale's measure: relayscope translate -s lineage FILE > /dev/null) {cli:.0f} ms;")
    print(f"  the page's load alone under Pyodide, with no reading, drawing or app: {load / cli:.2f}x the CLI")


def _node_version() -> str:
    return subprocess.run(["node", "--version"], check=True, capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
