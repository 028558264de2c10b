"""What watching costs, as ratios to translating the finished input in the same run.

* ``cli``: ``relayscope translate --follow FILE --idle-exit 0`` against ``relayscope translate
  FILE`` on the same file (the real stream-json corpus concatenated to about --mb MB): the
  polling I/O on a backlog, wall time of each process.
* ``chunks``: ``Analyzer.feed_text`` given the file in CHUNK-byte pieces (what a follower reads
  while lines land) against the whole file at once, in process.
* ``web``: ``Workspace.start_live`` + ``append`` in 64 KB pieces (the browser's looks) +
  ``finish_live`` against ``Workspace.load`` of the whole, in CPython.

Best of N runs each, interleaved.

    python bench/follow_bench.py [--mb 20] [--runs 3] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from relayscope.analysis import Analyzer
from relayscope.web.model import Workspace

DEFAULT_CORPUS = next((p / "corpus" / "real" / "stream-json" for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared")
                       if (p / "corpus").is_dir()), ROOT.parent / "shared" / "corpus" / "real" / "stream-json")
CHUNK = 4096
WEB_CHUNK = 64 * 1024


def corpus_bytes(corpus: Path, mb: float) -> bytes:
    files = [p.read_bytes() for p in sorted(corpus.glob("*.jsonl"))]
    if not files:
        sys.exit(f"no corpus at {corpus}: give --corpus")
    one = b"".join(f if f.endswith(b"\n") else f + b"\n" for f in files)
    return one * max(1, round(mb * 1e6 / len(one)))


def best(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = ap.parse_args()
    data = corpus_bytes(args.corpus, args.mb)
    lines = data.count(b"\n")
    print(f"input: {len(data) / 1e6:.1f} MB, {lines} lines; best of {args.runs}")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.jsonl"
        path.write_bytes(data)
        cmd = [sys.executable, "-m", "relayscope", "translate", str(path)]

        def once() -> None:
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)

        def follow() -> None:
            subprocess.run([*cmd, "--follow", "--idle-exit", "0"], stdout=subprocess.DEVNULL, check=True)

        base, followed = best(once, args.runs), best(follow, args.runs)
        print(f"cli     translate {base:6.2f} s   --follow {followed:6.2f} s   ratio {followed / base:5.2f}")

    def whole() -> None:
        a = Analyzer(keep=False)
        a.feed_text(data)
        a.finish()

    def pieces() -> None:
        a = Analyzer(keep=False)
        for i in range(0, len(data), CHUNK):
            a.feed_text(data[i:i + CHUNK])
        a.finish()

    base, chunked = best(whole, args.runs), best(pieces, args.runs)
    print(f"chunks  whole     {base:6.2f} s   {CHUNK} B     {chunked:6.2f} s   ratio {chunked / base:5.2f}")

    def load() -> None:
        for _ in Workspace().load(data):
            pass

    def live() -> None:
        ws = Workspace()
        ws.start_live("run")
        for i in range(0, len(data), WEB_CHUNK):
            ws.append(data[i:i + WEB_CHUNK])
        ws.finish_live()

    base, grown = best(load, args.runs), best(live, args.runs)
    print(f"web     load      {base:6.2f} s   append    {grown:6.2f} s   ratio {grown / base:5.2f}")


if __name__ == "__main__":
    main()
