"""``relayscope export`` (both formats) and ``stats`` as ratios to ``relayscope translate`` of the
same input, in the same run; with ``--against DIR``, also to the same command of another checkout
(its ``py/`` folder: the code before a change), run in turn, pair by pair.

The real stream-json corpus is written about ``--mb`` MB over (ids made unique per copy, as
``memory_bench.py`` does) into one file; each command runs in a fresh process with stdout on
/dev/null, and its CPU time (user + system, the child's own rusage) and wall time are taken. The
commands run in turn, ``--runs`` rounds, so a machine that slows down slows them all; the median
and the spread of each ratio are printed.

    python bench/export_bench.py [--mb 100] [--runs 3] [--against ../main/py]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from _inputs import stream_json_dir

COMMANDS = (("export", "--format", "chrome-trace"), ("export", "--format", "otlp"), ("stats", "--json"))
BASE = ("translate",)


def timed(py: Path, command: tuple[str, ...], path: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of the CLI from ``py``."""
    env = {**os.environ, "PYTHONPATH": str(py)}
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen([sys.executable, "-m", "relayscope", *command, str(path)], stdout=null, env=env)
        _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped above
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - t0


def spread(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):5.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--against", type=Path, default=None, help="another checkout's py/ folder: its same commands")
    args = ap.parse_args()
    corpus = b"".join(p.read_bytes() for p in sorted(stream_json_dir().glob("*.jsonl")))
    mine = ROOT / "py"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "input.jsonl"
        with path.open("wb") as out:
            for k in range(max(1, round(args.mb * 1e6 / len(corpus)))):
                out.write(re.sub(rb"(toolu_|msg_)", lambda m, k=k: m.group(1) + b"c%d" % k, corpus))
        print(f"input {path.stat().st_size / 1e6:.0f} MB, {args.runs} round(s); ratio: median (min-max)")
        rows: dict[tuple[str, ...], dict[str, list[float]]] = {c: {} for c in COMMANDS}
        for _ in range(args.runs):
            base_cpu, base_wall = timed(mine, BASE, path)
            for command in COMMANDS:
                cpu, wall = timed(mine, command, path)
                got = rows[command]
                got.setdefault("cpu s", []).append(cpu)
                got.setdefault("cpu/translate", []).append(cpu / base_cpu)
                got.setdefault("wall/translate", []).append(wall / base_wall)
                if args.against is not None:
                    other_cpu, other_wall = timed(args.against, command, path)
                    got.setdefault("cpu/against", []).append(cpu / other_cpu)
                    got.setdefault("wall/against", []).append(wall / other_wall)
        heads = list(next(iter(rows.values())))
        print(f"{'command':<28}" + "".join(f"{h:>22}" for h in heads))
        for command, got in rows.items():
            print(f"{' '.join(command):<28}" + "".join(f"{spread(got[h]):>22}" for h in heads))


if __name__ == "__main__":
    main()
