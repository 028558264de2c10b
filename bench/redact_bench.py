"""Redaction throughput (``redact.redact_bytes``) as a ratio to ``json.loads`` of the same lines and
to lineage's translation of them, in the same run: what ``--redact`` adds to a command, and what
the page's "Redact" switch costs on an input (the browser runs the same Python, slower).

The real stream-json captures are repeated to about ``--mb`` MB. Best of ``--runs``, interleaved.

    python bench/redact_bench.py [--mb 20] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from _inputs import stream_json_dir

from relayscope.redact import Redactor, redact_bytes
from relayscope.translator import Translator


def corpus(mb: float) -> list[bytes]:
    files = [p.read_bytes() for p in sorted(stream_json_dir().glob("*.jsonl"))]
    out: list[bytes] = []
    while sum(map(len, out)) < mb * 1e6:
        out.extend(files)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=20)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    streams = corpus(args.mb)
    size = sum(map(len, streams))

    def loads() -> None:
        for data in streams:
            for line in data.split(b"\n"):
                if line:
                    json.loads(line)

    def redact() -> None:
        for data in streams:
            redact_bytes(data, Redactor())

    def translate() -> None:
        for data in streams:
            t = Translator("lineage")
            for line in data.split(b"\n"):
                t.feed_line(line)
            t.finish()

    jobs: dict[str, Callable[[], None]] = {"json.loads": loads, "translate (lineage)": translate, "redact": redact}
    best = {name: float("inf") for name in jobs}
    for _ in range(args.runs):
        for name, job in jobs.items():
            start = time.perf_counter()
            job()
            best[name] = min(best[name], time.perf_counter() - start)
    base = best["json.loads"]
    print(f"{size / 1e6:.1f} MB of real stream-json, best of {args.runs}")
    for name, seconds in best.items():
        print(f"{name:<22} {seconds:7.2f} s  {seconds / base:5.2f}x json.loads  "
              f"{seconds / best['translate (lineage)']:5.2f}x translate  {size / 1e6 / seconds:6.1f} MB/s")


if __name__ == "__main__":
    main()
