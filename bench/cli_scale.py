"""The command line on hostile sizes: time at N and at 4N, as a ratio (linear ~4, quadratic ~16).

Each shape is written to a temporary folder and given to ``relayscope translate`` in a fresh
process (output to /dev/null), timed inside it around ``cli.main``; best of --runs. At the default
N: 1M blank lines, 100k garbage lines, 2,000 files, a 10 MB line (and four times each). Shapes: blank lines before the first event (the
format is sniffed), garbage lines (every one an error on stderr), a folder of many small files,
many files named on the command line, one line of many megabytes read from a pipe.

    python bench/cli_scale.py [--n 20000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVENT = b'{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"hi"}]}}\n'


def blank_lines(folder: Path, n: int) -> list[str]:
    path = folder / "blank.jsonl"
    path.write_bytes(b"\n" * (n * 50) + EVENT)
    return [str(path)]


def garbage_lines(folder: Path, n: int) -> list[str]:
    path = folder / "garbage.jsonl"
    path.write_bytes(b"not json at all\n" * (n * 5))
    return [str(path)]


def folder_of_files(folder: Path, n: int) -> list[str]:
    sub = folder / "many"
    sub.mkdir()
    for i in range(n // 10):
        (sub / f"f{i:06}.jsonl").write_bytes(EVENT)
    return [str(sub)]


def named_files(folder: Path, n: int) -> list[str]:
    names = []
    for i in range(n // 10):
        path = folder / f"n{i:06}.jsonl"
        path.write_bytes(EVENT)
        names.append(str(path))
    return names


def one_long_line(folder: Path, n: int) -> list[str]:
    path = folder / "long.jsonl"
    path.write_bytes(b'{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"'
                     + b"x" * (n * 500) + b'"}]}}\n')
    return ["-", str(path)]  # read through stdin: a pipe, a line at a time


SHAPES: dict[str, Callable[[Path, int], list[str]]] = {
    "blank lines before the first event": blank_lines,
    "garbage lines": garbage_lines,
    "a folder of small files": folder_of_files,
    "files named on the command line": named_files,
    "one long line through a pipe": one_long_line,
}


TIMED = """
import sys, time
from relayscope import cli
t0 = time.perf_counter()
cli.main(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write(str(time.perf_counter() - t0))
"""


def timed(args: list[str], runs: int, folder: Path) -> float:
    """Best wall time of ``cli.main`` in a fresh process, start-up and imports not counted."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
    stdin_path = None
    if args and args[0] == "-":
        stdin_path, args = args[1], ["-"]
    clock = folder / "elapsed"
    best = float("inf")
    for _ in range(runs):
        with open(stdin_path or os.devnull, "rb") as stdin:
            subprocess.run([sys.executable, "-c", TIMED, str(clock), "translate", *args], stdin=stdin,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
        best = min(best, float(clock.read_text()))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"N = {args.n}; seconds in cli.main (start-up not counted), best of {args.runs}")
    print(f"{'shape':<38} {'N':>8} {'4N':>8} {'ratio':>6}")
    for label, make in SHAPES.items():
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "small").mkdir()
            (Path(tmp) / "big").mkdir()
            small = make(Path(tmp) / "small", args.n)
            big = make(Path(tmp) / "big", args.n * 4)
            t1 = timed(small, args.runs, Path(tmp))
            t4 = timed(big, args.runs, Path(tmp))
            print(f"{label:<38} {t1:8.3f} {t4:8.3f} {t4 / t1:6.1f}")

if __name__ == "__main__":
    main()
