"""Peak memory and time of every command as the input grows: flat, not proportional.

Writes the real stream-json captures over and over into one file of about 100 MB and one of about
400 MB (each copy's ``toolu_`` and ``msg_`` ids made its own, so de-dup state and inventories really
have new blocks to remember), runs each command on each in a fresh process with its output on
/dev/null, and prints its peak RSS (the child's own rusage) and time. In the same run: the floor
(the interpreter with the CLI imported), each command's time per MB as a ratio to ``translate``'s,
and its peak at the large input as a ratio to its peak at the small one (1.00x: constant memory).

    python bench/memory_bench.py [--mb 100 400] [--only trace audit ...] [--py DIR]

``--py DIR`` measures the package under DIR instead of this checkout's (another commit's ``py/``,
exported with ``git archive``): a before and after on the same inputs.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from _inputs import stream_json_dir

COMMANDS: dict[str, list[str]] = {
    "translate": ["translate"],
    "translate -f text": ["translate", "-f", "text"],
    "trace": ["trace"],
    "trace --json": ["trace", "--json"],
    "audit": ["audit"],
    "audit --json": ["audit", "--json"],
    "stats --json": ["stats", "--json"],
    "export chrome-trace": ["export", "--format", "chrome-trace"],
    "export otlp": ["export", "--format", "otlp"],
    "redact": ["redact"],
}


def measure(argv: list[str], py: Path) -> tuple[float, float, float, int]:
    """(peak RSS in MB, wall s, CPU s, exit code) of one run in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(py)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped above
    return usage.ru_maxrss / 1024, wall, usage.ru_utime + usage.ru_stime, proc.returncode


def write_input(path: Path, corpus: bytes, mb: float) -> None:
    with path.open("wb") as out:
        k = 0
        while out.tell() < mb * 1e6:
            out.write(re.sub(rb"(toolu_|msg_)", lambda m, k=k: m.group(1) + b"c%d" % k, corpus))
            k += 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, nargs="+", default=[100, 400], help="input sizes (default 100 400)")
    ap.add_argument("--only", nargs="+", default=None, metavar="WORD",
                    help="only the commands whose name holds one of these words")
    ap.add_argument("--py", type=Path, default=ROOT / "py", help="the package folder to run (default: this one)")
    args = ap.parse_args()
    commands = {name: argv for name, argv in COMMANDS.items()
                if args.only is None or any(w in name for w in args.only)}
    if "translate" not in commands:
        commands = {"translate": COMMANDS["translate"], **commands}  # the time ratios' baseline
    corpus = b"".join(p.read_bytes() for p in sorted(stream_json_dir().glob("*.jsonl")))
    print(f"package: {args.py}; Python {sys.version.split()[0]}")
    floor, _, _, _ = measure(["-c", "import relayscope.cli"], args.py)
    print(f"floor (python with the CLI imported): {floor:.1f} MB")
    results: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in commands}
    sizes: list[float] = []
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as tmp:
        for mb in args.mb:
            path = Path(tmp) / f"input-{mb:.0f}.jsonl"
            write_input(path, corpus, mb)
            sizes.append(path.stat().st_size / 1e6)
            for name, argv in commands.items():
                results[name].append(measure(["-m", "relayscope", *argv, str(path)], args.py))
            path.unlink()
    head = "".join(f"  {f'{s:.0f} MB: peak':>13} {'time':>7} {'MB/s':>6}" for s in sizes)
    print(f"{'command':<20}{head}  {'s/MB vs translate':>18}  {'peak ratio':>10}")
    base = [wall / size for (_, wall, _, _), size in zip(results["translate"], sizes, strict=True)]
    for name, runs in results.items():
        cells = "".join(f"  {peak:10.1f} MB {wall:6.1f}s {size / wall:6.1f}" + ("!" if code not in (0, 1) else " ")
                        for (peak, wall, _, code), size in zip(runs, sizes, strict=True))
        ratio = max(wall / size / b for (_, wall, _, _), size, b in zip(runs, sizes, base, strict=True))
        growth = runs[-1][0] / runs[0][0]
        print(f"{name:<20}{cells}  {ratio:17.2f}x  {growth:9.2f}x")
    print("(! after a time: the command failed; peak ratio: the peak at the largest input over the smallest)")


if __name__ == "__main__":
    main()
