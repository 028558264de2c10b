"""The far jumps the step-through benchmarks time (bench/jump_bench.py in CPython, bench/pyodide_model.mjs
--jumps under Pyodide): the last step, the middle one, then step 10 of a workspace just loaded.
Imports nothing but the standard library, so that Pyodide can load it from bench/ as it is."""

from __future__ import annotations

import time
from typing import Any


def far_jumps(ws: Any) -> str:
    """``ws.step`` to the last step, the middle one, then step 10, each timed; as one line."""
    n = ws.step_count()
    times = []
    for i in (n - 1, n // 2, 10):
        start = time.perf_counter()
        ws.step(i)
        times.append(f"step {i}: {(time.perf_counter() - start) * 1000:.0f} ms")
    return "; ".join(times)
