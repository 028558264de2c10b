"""Redaction's cost, as ratios measured in one run.

1. The command line, whole processes, on the real stream-json captures repeated to ``--mb`` MB:
   ``relayscope redact FILE`` and ``relayscope translate --redact FILE`` against
   ``relayscope translate FILE`` (output to /dev/null), CPU time (user + system, from the
   children's rusage) and wall time, runs interleaved, median and spread of the ratios. The aim:
   both at most 2x ``translate``. ``--against DIR`` runs the same three commands of the package
   under DIR (another commit's ``py/``, exported with ``git archive``) in the same rounds, each
   against its own ``translate``: a before and after. The processes run a Python with msgspec alone
   (``_inputs.plain_python``: a user's install, not the checkout's .venv).
2. In this process: ``redact.redact_bytes`` against a ``json.loads`` loop and lineage's
   translation of the same lines (what the page's "Redact" switch costs, in CPython).
3. Linear in line length: one JSON line of each hostile shape (look-alikes that made a rule try
   at every start, secrets back to back, plain text) at ``--line-mb`` and four times that; the
   time per MB at 4N over the time per MB at N is about 1 when linear (4 when quadratic).

    python bench/redact_bench.py [--mb 100] [--runs 3] [--line-mb 2] [--skip-cli] [--against DIR]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from _inputs import plain_python, stream_json_dir

from relayscope.redact import Redactor, redact_bytes
from relayscope.translator import Translator


def corpus(mb: float) -> list[bytes]:
    files = [p.read_bytes() for p in sorted(stream_json_dir().glob("*.jsonl"))]
    out: list[bytes] = []
    while sum(map(len, out)) < mb * 1e6:
        out.extend(files)
    return out


@functools.cache
def _python() -> Path:
    return plain_python()


def cli_run(args: list[str], py: Path = ROOT / "py") -> tuple[float, float]:
    """One whole process of the package under ``py``: (CPU seconds, wall seconds)."""
    env = {**os.environ, "PYTHONPATH": str(py)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as an install runs: its modules' bytecode written once, then read
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([str(_python()), "-m", "relayscope", *args], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def command_line(mb: float, runs: int, against: Path | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.jsonl"
        path.write_bytes(b"".join(corpus(mb)))
        size = path.stat().st_size / 1e6
        commands = {"translate": ["translate", str(path)], "redact": ["redact", str(path)],
                    "translate --redact": ["translate", "--redact", str(path)]}
        trees = {"": ROOT / "py"} | ({" (against)": against} if against is not None else {})
        runs_of = {name + tag: (args, py) for tag, py in trees.items() for name, args in commands.items()}
        for args, py in runs_of.values():  # warm the file cache and every command's bytecode
            cli_run(args, py)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs_of}
        for _ in range(runs):
            for name, (args, py) in runs_of.items():
                times[name].append(cli_run(args, py))
        print(f"\nthe command line on {size:.1f} MB of real stream-json, {runs} runs interleaved "
              "(ratio to translate in the same round: median [min-max])"
              + (f"; (against): the package under {against}, to its own translate" if against else ""))
        for tag in trees:
            base = times["translate" + tag]
            for name in commands:
                cpu = [t[0] for t in times[name + tag]]
                ratios = [c / t[0] for c, t in zip(cpu, base, strict=True)]
                wall = [w / t[1] for (_, w), t in zip(times[name + tag], base, strict=True)]
                print(f"  {name + tag:<30} cpu {statistics.median(cpu):6.2f} s  {statistics.median(ratios):5.2f}x "
                      f"[{min(ratios):.2f}-{max(ratios):.2f}]   wall {statistics.median(wall):5.2f}x "
                      f"[{min(wall):.2f}-{max(wall):.2f}]   {size / statistics.median(cpu):6.1f} MB/s")


def in_process(mb: float, runs: int) -> None:
    streams = corpus(mb)
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
    for _ in range(runs):
        for name, job in jobs.items():
            start = time.process_time()
            job()
            best[name] = min(best[name], time.process_time() - start)
    base = best["json.loads"]
    print(f"\nin this process, {size / 1e6:.1f} MB of real stream-json, CPU time, best of {runs}")
    for name, seconds in best.items():
        print(f"  {name:<22} {seconds:7.2f} s  {seconds / base:5.2f}x json.loads  "
              f"{seconds / best['translate (lineage)']:5.2f}x translate  {size / 1e6 / seconds:6.1f} MB/s")


SHAPES = {  # one unit, repeated to the line's length
    "password=password=": "password=password=",
    "password=1 (values)": "password=1",
    "-Users- folders": "-Users-",
    "@ domains": "a@b.",
    "AKIA look-alikes": "AKIAAKIAAKIAAKIA-",
    "/home/ paths": "/home/",
    "x= assignments": "x=x=x=",
    "Bearer": "Bearer ",
    "eyJ.": "eyJ.",
    "e-mails back to back": "jane@acme.io ",
    "home paths with names": "/Users/bob/",
    "prose": "The quick brown fox jumps over the lazy dog; ",
}


def line_lengths(mb: float, runs: int) -> None:
    print(f"\none JSON line of each shape at {mb:g} MB and {4 * mb:g} MB: CPU seconds per MB, best of {runs} "
          "(4N/N about 1: linear)")
    for name, unit in SHAPES.items():
        per_mb = []
        for size in (mb, 4 * mb):
            line = json.dumps({"t": unit * int(size * 1e6 / len(unit))}).encode()
            best = float("inf")
            for _ in range(runs):
                start = time.process_time()
                Redactor().line(line)
                best = min(best, time.process_time() - start)
            per_mb.append(best / size)
        print(f"  {name:<24} {per_mb[0]:6.3f} s/MB  {per_mb[1]:6.3f} s/MB   {per_mb[1] / per_mb[0]:4.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=100, help="input for the command line (default 100)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--line-mb", type=float, default=2, help="the shorter of the long lines (default 2)")
    ap.add_argument("--skip-cli", action="store_true", help="only the in-process figures")
    ap.add_argument("--against", type=Path, default=None, help="another package folder: its commands too")
    args = ap.parse_args()
    if not args.skip_cli:
        command_line(args.mb, args.runs, args.against)
    in_process(min(args.mb, 20), args.runs)
    line_lengths(args.line_mb, args.runs)


if __name__ == "__main__":
    main()
