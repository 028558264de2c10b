"""What the drift report costs: ``relayscope translate`` on the real stream-json corpus repeated to
about N MB (each copy of a capture its own file, named on the command line), with the drift count (``drift.Drift.add``: one msgspec decode of each line's top-level
keys) and with it replaced by a no-op, in the same run, best of R each, interleaved. Prints the ratio.

    python bench/drift_bench.py [--mb 25] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from _inputs import stream_json_dir

from relayscope import cli, drift


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=25)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    captures = [p.read_bytes() for p in sorted(stream_json_dir().glob("*.jsonl"))]
    copies = max(1, round(args.mb * 1e6 / sum(map(len, captures))))
    with tempfile.TemporaryDirectory() as tmp:
        names = []  # each copy of a capture its own file: its own stream, as a new run would be
        for k in range(copies):
            for i, capture in enumerate(captures):
                names.append(str(Path(tmp) / f"{k}-{i}.jsonl"))
                Path(names[-1]).write_bytes(capture)
        size = copies * sum(map(len, captures))
        real = drift.Drift.add
        best: dict[str, float] = {}
        for _ in range(args.runs):
            for label in ("with drift", "without"):
                drift.Drift.add = real if label == "with drift" else (lambda self, *a, **k: False)  # type: ignore[method-assign]
                saved_out, saved_err = os.dup(1), os.dup(2)
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
                try:
                    start = time.perf_counter()
                    cli.main(["translate", *names])
                    took = time.perf_counter() - start
                finally:
                    os.dup2(saved_out, 1)
                    os.dup2(saved_err, 2)
                    os.close(null)
                best[label] = min(best.get(label, took), took)
        drift.Drift.add = real  # type: ignore[method-assign]
    print(f"{size / 1e6:.1f} MB: translate {best['without']:.3f} s without drift, "
          f"{best['with drift']:.3f} s with it: {best['with drift'] / best['without']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
