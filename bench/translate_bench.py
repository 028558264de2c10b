"""Translator throughput as a ratio to ``json.loads`` of the same lines, in the same run.

The real stream-json corpus is repeated to about 40 MB (each copy of a file is its own
stream: a fresh translator, as a new ``claude -p`` run would get). For each strategy the
whole pipeline is timed - decode, translate, encode NDJSON into memory - and compared with
``json.loads`` of every line alone. Best of N runs each, interleaved, so drift affects both.

Two more rows say where lineage's time goes, in the same run: ``wire.decode_line`` of every line
alone (msgspec's typed decode and the UTF-8 check of the bytes it skips: the floor of any
translation) and lineage without the NDJSON encoding. Their differences are the translator's own
Python work and the encoding. The last row is the command itself, ``relayscope translate`` on the
same streams written as files (one per stream, all named on its command line: each is streamed
with its own translator), run in this process with stdout on /dev/null: reading and writing
included. Then the whole process, as a user runs it: `python -m relayscope translate FILE` on
all the streams in one file against `python` running a bare `json.loads` loop over the same
file's lines, CPU time (user + system) of each, start-up included: each round's ratio, then their
median and spread. Both processes run a Python with msgspec alone installed (``_inputs.plain_python``,
as a user's install has it: the checkout's .venv holds the dev tools, which msgspec's import picks up). ``--against DIR`` adds, in the same rounds, the whole process of the package
under DIR (another commit's ``py/``, exported with ``git archive``): a before and after.

    python bench/translate_bench.py [--mb 40] [--runs 3] [--corpus DIR] [--against DIR]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

import msgspec
from _inputs import plain_python, stream_json_dir

from relayscope import cli
from relayscope.translator import STRATEGIES, Translator
from relayscope.wire import decode_line


def load(corpus: Path, mb: float) -> list[list[bytes]]:
    files = [p.read_bytes().splitlines() for p in sorted(corpus.glob("*.jsonl"))]
    size = sum(len(line) for f in files for line in f)
    copies = max(1, round(mb * 1e6 / size))
    return [f for _ in range(copies) for f in files]


def baseline(streams: list[list[bytes]]) -> float:
    loads = json.loads
    t0 = time.perf_counter()
    for lines in streams:
        for line in lines:
            loads(line)
    return time.perf_counter() - t0


def decode_only(streams: list[list[bytes]]) -> float:
    t0 = time.perf_counter()
    for lines in streams:
        for n, line in enumerate(lines, 1):
            decode_line(line, n)
    return time.perf_counter() - t0


def translate_only(streams: list[list[bytes]], strategy: str) -> float:
    t0 = time.perf_counter()
    for lines in streams:
        t = Translator(strategy)
        feed = t.feed_line
        for line in lines:
            feed(line)
        t.finish()
    return time.perf_counter() - t0


def command(paths: list[str]) -> float:
    """``relayscope translate PATHS...`` in this process, its stdout on /dev/null."""
    saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    sys.stdout.flush()
    os.dup2(devnull, 1)
    try:
        t0 = time.perf_counter()
        code = cli.main(["translate", *paths])
        sys.stdout.flush()
        elapsed = time.perf_counter() - t0
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    if code != 0:
        raise SystemExit(f"relayscope translate exited {code}")
    return elapsed


LOADS_LOOP = """
import json, sys
loads = json.loads
with open(sys.argv[1], "rb", buffering=1 << 20) as f:
    for line in f:
        loads(line)
"""


def process_cpu(argv: list[str], py: Path = ROOT / "py") -> float:
    """CPU seconds (user + system) of one whole process, its output on /dev/null."""
    env = {**os.environ, "PYTHONPATH": str(py)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped above
    return usage.ru_utime + usage.ru_stime


def pipeline(streams: list[list[bytes]], strategy: str) -> tuple[float, int]:
    encode_lines = msgspec.json.Encoder().encode_lines
    out: list[bytes] = []
    t0 = time.perf_counter()
    for lines in streams:
        t = Translator(strategy)
        feed = t.feed_line
        for line in lines:
            relays = feed(line)
            if relays:
                out.append(encode_lines(relays))
        tail = t.finish()
        if tail:
            out.append(encode_lines(tail))
    elapsed = time.perf_counter() - t0
    return elapsed, sum(map(len, out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=40)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--corpus", type=Path, default=None, help="default: the shared corpus, else the fixtures")
    ap.add_argument("--against", type=Path, default=None, help="another package folder: its whole process too")
    args = ap.parse_args()
    streams = load(args.corpus or stream_json_dir(), args.mb)
    nbytes = sum(len(line) for f in streams for line in f)
    nlines = sum(len(f) for f in streams)
    print(f"input: {nbytes / 1e6:.1f} MB, {nlines} lines, {len(streams)} streams; Python {sys.version.split()[0]}")
    folder = tempfile.TemporaryDirectory(prefix="translate-bench-")
    paths = []
    for i, lines in enumerate(streams):
        path = os.path.join(folder.name, f"{i:04}.jsonl")
        with open(path, "wb") as f:
            f.writelines(line + b"\n" for line in lines)
        paths.append(path)
    whole = os.path.join(folder.name, "all.jsonl")
    with open(whole, "wb") as f:
        f.writelines(line + b"\n" for lines in streams for line in lines)
    python = str(plain_python())
    translate_argv = [python, "-m", "relayscope", "translate", whole]
    loads_argv = [python, "-c", LOADS_LOOP, whole]
    process_cpu(translate_argv)  # bytecode written, file cached
    if args.against is not None:
        process_cpu(translate_argv, args.against)
    rounds: list[tuple[float, float]] = []  # each round's whole translate process over the loop's (this, against)
    base = decoded = translated = cli_time = float("inf")
    best = {s: float("inf") for s in STRATEGIES}
    out_size = {}
    for _ in range(args.runs):
        gc.collect()
        base = min(base, baseline(streams))
        for s in STRATEGIES:
            gc.collect()
            elapsed, size = pipeline(streams, s)
            best[s] = min(best[s], elapsed)
            out_size[s] = size
        gc.collect()
        decoded = min(decoded, decode_only(streams))
        gc.collect()
        translated = min(translated, translate_only(streams, "lineage"))
        gc.collect()
        cli_time = min(cli_time, command(paths))
        proc_loads = process_cpu(loads_argv)
        proc_translate = process_cpu(translate_argv)
        against = process_cpu(translate_argv, args.against) if args.against is not None else 0.0
        rounds.append((proc_translate / proc_loads, against / proc_loads))
    folder.cleanup()
    print(f"{'json.loads (baseline)':<24} {base:7.3f} s  {nbytes / 1e6 / base:7.1f} MB/s  1.00x")
    for s in STRATEGIES:
        print(f"{s + ' + NDJSON':<24} {best[s]:7.3f} s  {nbytes / 1e6 / best[s]:7.1f} MB/s  "
              f"{best[s] / base:.2f}x   ({out_size[s] / 1e6:.1f} MB out)")
    print("where lineage's time goes:")
    print(f"{'  decode_line only':<24} {decoded:7.3f} s  {nbytes / 1e6 / decoded:7.1f} MB/s  {decoded / base:.2f}x")
    print(f"{'  lineage, no encoding':<24} {translated:7.3f} s  {nbytes / 1e6 / translated:7.1f} MB/s  "
          f"{translated / base:.2f}x")
    print(f"{'relayscope translate':<24} {cli_time:7.3f} s  {nbytes / 1e6 / cli_time:7.1f} MB/s  "
          f"{cli_time / base:.2f}x   (the command: {len(paths)} files, lineage, NDJSON to /dev/null)")
    mine = [r for r, _ in rounds]
    print(f"whole processes (CPU, start-up included), relayscope translate over the json.loads loop, "
          f"{len(rounds)} round(s): median {statistics.median(mine):.2f}x [{min(mine):.2f}-{max(mine):.2f}] "
          f"(target 1.00x -> {'met' if statistics.median(mine) <= 1 else 'NOT met'})")
    if args.against is not None:
        theirs = [r for _, r in rounds]
        print(f"  against {args.against}: median {statistics.median(theirs):.2f}x "
              f"[{min(theirs):.2f}-{max(theirs):.2f}]")
    print(f"target: lineage <= 0.50x json.loads -> {'met' if best['lineage'] / base <= 0.5 else 'NOT met'}")


if __name__ == "__main__":
    main()
