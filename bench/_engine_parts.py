"""The same pieces of work, timed under whichever Python runs this module: CPython (what the CLI
runs on) or Pyodide (what the page runs on). bench/engine_gap.py runs it in both and divides.
Loaded from bench/ as it is by Pyodide too (bench/pyodide_model.mjs --engine): imports only the
standard library and relayscope."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable


def _py_loop() -> None:
    x = 0
    for i in range(3_000_000):
        x += i


def parts(data: bytes) -> dict[str, Callable[[], object]]:
    """Name -> work, from the plainest Python to the page's whole load."""
    from relayscope import trace as T
    from relayscope.translator import Translator
    from relayscope.web.model import Workspace
    from relayscope.wire import decode_line

    lines = data.split(b"\n")

    def split() -> object:
        return data.split(b"\n")

    def loads() -> None:
        for line in lines:
            if line:
                json.loads(line)

    def decode() -> None:
        for n, line in enumerate(lines, 1):
            decode_line(line, n)

    def translate() -> None:
        t = Translator("lineage")
        t.marks = T.Marks(None)  # as the page's load translates
        feed = t.feed_line
        for line in lines:
            feed(line)
        t.finish()

    def load() -> None:
        for _ in Workspace().load(data, name="input"):
            pass

    return {
        "Python loop (3M additions)": _py_loop,
        "bytes.split into lines": split,
        "json.loads of every line": loads,
        "wire.decode_line (msgspec)": decode,
        "translate (lineage, marks)": translate,
        "Workspace.load (the page's)": load,
    }


def measure(path: str, runs: int) -> dict[str, float]:
    """Best of ``runs`` for each part, in ms; the parts alternate so drift falls on all alike."""
    with open(path, "rb") as f:
        data = f.read()
    work = parts(data)
    best = dict.fromkeys(work, float("inf"))
    for _ in range(runs):
        for name, fn in work.items():
            gc.collect()
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], (time.perf_counter() - start) * 1000)
    return best
