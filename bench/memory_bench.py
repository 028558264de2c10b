"""Peak memory of ``relayscope translate`` as the input grows: constant, not proportional.

Writes the real stream-json corpus N times over (ids made unique per copy, so the de-dup
state really has new ids to remember) for N in 1, 4, 8, runs the CLI on each in a fresh
process and prints its peak RSS next to the input size.

    python bench/memory_bench.py [--copies 5]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from _inputs import stream_json_dir


def peak_rss_kib(path: Path, command: tuple[str, ...] = ("translate",)) -> int:
    """Peak RSS of one CLI run, from that child's own rusage."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
    proc = subprocess.Popen([sys.executable, "-m", "relayscope", *command, str(path)],
                            stdout=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped above
    return usage.ru_maxrss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=5, help="corpus copies per unit of input (default 5)")
    ap.add_argument("--export", action="store_true", help="export and stats on 100 and 400 MB instead")
    args = ap.parse_args()
    if args.export:
        export_and_stats()
        return
    corpus = b"".join(p.read_bytes() for p in sorted(stream_json_dir().glob("*.jsonl")))
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'input':>10}  {'peak RSS':>10}")
        for n in (1, 4, 8):
            path = Path(tmp) / f"input{n}.jsonl"
            with path.open("wb") as out:
                for k in range(n * args.copies):
                    out.write(re.sub(rb"(toolu_|msg_)", lambda m, k=k: m.group(1) + b"c%d" % k, corpus))
            print(f"{path.stat().st_size / 1e6:8.0f} MB  {peak_rss_kib(path) / 1024:8.1f} MB")


EXPORT_COMMANDS = (("export", "--format", "otlp"), ("export", "--format", "chrome-trace"), ("stats", "--json"))


def export_and_stats() -> None:
    """Peak RSS of ``export`` (both formats) and ``stats`` on about 100 and 400 MB: flat when they
    hold only what is open."""
    corpus = b"".join(p.read_bytes() for p in sorted(stream_json_dir().glob("*.jsonl")))
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'input':>10}  {'command':<28} {'peak RSS':>10}")
        for target in (100e6, 400e6):
            path = Path(tmp) / f"input{int(target / 1e6)}.jsonl"
            with path.open("wb") as out:
                for k in range(int(target // len(corpus)) + 1):
                    out.write(re.sub(rb"(toolu_|msg_)", lambda m, k=k: m.group(1) + b"c%d" % k, corpus))
            for command in EXPORT_COMMANDS:
                rss = peak_rss_kib(path, command)
                print(f"{path.stat().st_size / 1e6:8.0f} MB  {' '.join(command):<28} {rss / 1024:8.1f} MB")
            path.unlink()


if __name__ == "__main__":
    main()
