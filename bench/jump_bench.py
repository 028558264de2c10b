"""Far jumps in the web app's step-through, with and without the replay's checkpoints, in CPython.

Usage:

    .venv/bin/python bench/jump_bench.py [--mb 50] [--unique] [--runs 5] [--strategy lineage] [--memory] [--once]

A single stream-json input keeps no trace: the view model (relayscope.web.model.Workspace) makes a
step again by translating the input up to it (``Workspace._replay_around``), from the nearest
checkpoint of the translator taken during the load (``checkpoints.Checkpoints``) or, without checkpoints
(``checkpoint_bytes=0``, the baseline), from the first line. Measured in one process:
  load     Workspace.load's CPU time, median of --runs, alternating with and without checkpoints,
           and the time spent taking checkpoints (in Checkpoints.passed);
  jumps    on a workspace just loaded: the last step, the middle step, then step 10, each timed;
  size     how many checkpoints, their spacing, the bytes of the tuples they are made of (strings
           and lineage's messages are shared with the workspace and not counted), and (--memory)
           tracemalloc's count of the bytes the load leaves allocated, with checkpoints minus
           without, and of one checkpoint of the last state, with the time to take it and to
           restore it.
--once (for the 600 MB input: minutes and GBs) loads once, with checkpoints, times the jumps, then
the same jumps on the same workspace with its checkpoints dropped (the baseline), and prints the
time spent taking checkpoints instead of a load without them, and the process's peak RSS.
The input is bench/out/corpus-<mb>mb.jsonl (bench/web_scale.py's make_input: the real captures
repeated). --unique makes a worst case for the checkpoints' size instead, written once to
bench/out/corpus-<mb>mb-unique.jsonl: the same lines with the ids of every repetition made unique
and no line that ends a turn (result, system/init), so that the translator's id sets and lineage's
messages grow to their bounds. Must not: write anywhere but bench/out/ and stdout.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "bench"))
from _jumps import far_jumps
from web_scale import OUT, make_input

from relayscope.analysis import Analyzer
from relayscope.translator import Translator
from relayscope.web.checkpoints import CHECKPOINT_BYTES, Checkpoints
from relayscope.web.model import Workspace

_TURN_ENDS = re.compile(rb'^\{"type":"(result"|system","subtype":"init")')
_IDS = re.compile(rb'"(msg_|toolu_)')


def make_unique(mb: int) -> Path:
    path = OUT / f"corpus-{mb}mb-unique.jsonl"
    if path.is_file():
        return path
    base = [line for line in make_input(mb).read_bytes().split(b"\n") if line and not _TURN_ENDS.match(line)]
    one = b"\n".join(base[: len(base) // max(1, mb // 5)]) + b"\n"  # about 5 MB, repeated
    data = bytearray()
    rep = 0
    while len(data) < mb * 2**20:
        data += _IDS.sub(lambda m, r=rep: b'"' + m.group(1) + b"r%d_" % r, one)  # type: ignore[misc]
        rep += 1
    path.write_bytes(data)
    return path


def loaded(data: bytes, strategy: str, spacing: int) -> tuple[Workspace, float]:
    """A workspace loaded, and the load's CPU time (this process's: less disturbed than the wall
    clock by what else the machine runs)."""
    ws = Workspace(checkpoint_bytes=spacing)
    start = time.process_time()
    for _ in ws.load(data, name="x", strategy=strategy):
        pass
    return ws, time.process_time() - start


def tuple_bytes(obj: object) -> int:
    """Bytes of the tuples and frozensets a checkpoint is made of (not the strings, numbers and
    messages in them: those are the workspace's too)."""
    if isinstance(obj, (tuple, frozenset)):
        return sys.getsizeof(obj) + sum(map(tuple_bytes, obj))
    return 0


def describe(cps: Checkpoints | None) -> str:
    if cps is None:
        return "no checkpoints"
    own = sum(map(tuple_bytes, cps.states))
    return (f"{len(cps.lines)} checkpoints, spacing {cps.spacing / 2**20:.1f} MB, entries: {sum(cps.sizes)} in all, "
            f"{max(cps.sizes, default=0)} at most; their tuples {own / 2**20:.2f} MB "
            f"({own / max(1, len(cps.lines)) / 2**10:.0f} KB each)")


def once(data: bytes, strategy: str) -> None:
    import resource

    spent = [0.0]
    passed = Checkpoints.passed

    def timed(self: Checkpoints, analyzer: Analyzer, nbytes: int) -> None:
        start = time.perf_counter()
        passed(self, analyzer, nbytes)
        spent[0] += time.perf_counter() - start

    Checkpoints.passed = timed  # type: ignore[method-assign]
    ws, seconds = loaded(data, strategy, CHECKPOINT_BYTES)
    Checkpoints.passed = passed  # type: ignore[method-assign]
    print(f"  load with checkpoints {seconds * 1000:.0f} ms (CPU), of which taking them {spent[0] * 1000:.0f} ms "
          f"({spent[0] / (seconds - spent[0]):.2%} of the rest)")
    print(f"    {describe(ws._checkpoints)}")
    print(f"  jumps with    checkpoints: {far_jumps(ws)}")
    ws._checkpoints, ws._replay, ws._step_cache = None, None, {}
    print(f"  jumps without checkpoints: {far_jumps(ws)}")
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--unique", action="store_true", help="the worst case for the checkpoints' size")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--strategy", default="lineage")
    parser.add_argument("--memory", action="store_true", help="tracemalloc: what the checkpoints hold")
    parser.add_argument("--once", action="store_true", help="one load (the 600 MB input)")
    args = parser.parse_args()
    path = make_unique(args.mb) if args.unique else make_input(args.mb)
    data = path.read_bytes()
    if args.once:
        print(f"{path.name}: {len(data) / 2**20:.1f} MB, strategy {args.strategy}; one load")
        once(data, args.strategy)
        return
    configs = {"without": 0, "with": CHECKPOINT_BYTES}
    loads: dict[str, list[float]] = {k: [] for k in configs}
    passing: list[float] = []  # time in Checkpoints.passed, per load with checkpoints
    passed = Checkpoints.passed

    def timed(self: Checkpoints, analyzer: Analyzer, nbytes: int) -> None:
        start = time.perf_counter()
        passed(self, analyzer, nbytes)
        passing[-1] += time.perf_counter() - start

    Checkpoints.passed = timed  # type: ignore[method-assign]
    for _ in range(args.runs):
        for name, spacing in configs.items():
            passing.append(0.0)
            ws, seconds = loaded(data, args.strategy, spacing)
            loads[name].append(seconds)
            del ws
    Checkpoints.passed = passed  # type: ignore[method-assign]
    print(f"{path.name}: {len(data) / 2**20:.1f} MB, strategy {args.strategy}; load: median of {args.runs}")
    base, best = statistics.median(loads["without"]), min(loads["without"])
    for name in configs:
        med, low = statistics.median(loads[name]), min(loads[name])
        print(f"  load (CPU) {name:8} checkpoints: median {med * 1000:5.0f} ms x{med / base:.3f}, "
              f"best {low * 1000:5.0f} ms x{low / best:.3f}   (runs: {', '.join(f'{s * 1000:.0f}' for s in loads[name])})")
    spent = statistics.median(passing[1::2])
    print(f"  of which taking checkpoints: {spent * 1000:.1f} ms (median), {spent / base:.2%} of the load without")
    for name, spacing in configs.items():
        ws, _ = loaded(data, args.strategy, spacing)
        print(f"  jumps {name:8} checkpoints: {far_jumps(ws)}")
        if ws._checkpoints is not None:
            print(f"    {describe(ws._checkpoints)}")
    if args.memory:
        held = {}
        for name, spacing in configs.items():
            tracemalloc.start()
            ws, _ = loaded(data, args.strategy, spacing)
            held[name] = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            if spacing:
                kept = ws
            del ws
        print(f"  memory the load leaves: without {held['without'] / 2**20:.1f} MB, with "
              f"{held['with'] / 2**20:.1f} MB: checkpoints {(held['with'] - held['without']) / 2**20:.2f} MB")
        rp = kept._replay
        kept.step(kept.step_count() - 1)  # a translator at the end of input, as the load's last state
        rp = kept._replay
        assert rp is not None
        t = rp.translator
        start = time.perf_counter()
        state = t.checkpoint()
        took = time.perf_counter() - start
        start = time.perf_counter()
        Translator(args.strategy).restore(state)
        back = time.perf_counter() - start
        del state
        tracemalloc.start()
        state = t.checkpoint()
        one = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        print(f"  one checkpoint of the last state: {t.checkpoint_size()} entries, {one / 2**10:.0f} KB "
              f"({one / max(1, t.checkpoint_size()):.0f} bytes/entry), taken in {took * 1000:.2f} ms, "
              f"restored in {back * 1000:.2f} ms")


if __name__ == "__main__":
    main()
