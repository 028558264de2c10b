"""The session library at size: `sessions` and `search` on 2,000 sessions (about 500 MB).

Makes a library laid out as ``~/.claude/projects`` from the real session families of the shared
corpus (``real/session-jsonl``: every session with its sub-agent files, meta files and tool
results), each copy under a session id of its own (in its file names and its records), spread over
40 project folders; it is made once into ``--dir`` and reused. Then, each in a fresh process with
its output on /dev/null, timed against a baseline timed in the same run:

* ``sessions --json`` (the listing: the ends of each file) against a bare Python loop that reads
  the first and last 64 KB of each file (goal: 3x);
* a plain-text ``search`` against ``cat`` of the same files (goal: 2x);
* scoped searches (``tool:bash``, ``is:error``) against ``translate`` of the same folder (goal: 1.5x);
* the peak RSS of ``sessions`` and ``search`` (the child's own rusage; goal: under 64 MB).

    python bench/library_bench.py [--sessions 2000] [--dir /tmp/relayscope-library] [--runs 3]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "real" / "session-jsonl"
PEEK = 65536
BARE = f"""
import os, sys
for here, _dirs, names in os.walk(sys.argv[1]):
    for name in names:
        with open(os.path.join(here, name), "rb") as f:
            size = os.fstat(f.fileno()).st_size
            f.read({PEEK})
            if size > 2 * {PEEK}:
                f.seek(size - {PEEK})
                f.read({PEEK})
"""


def families() -> list[tuple[str, Path, Path | None]]:
    """(session id, main file, its session folder or None) of every real session transcript."""
    out = []
    for main in sorted(CORPUS.rglob("*.jsonl")):
        if main.name.startswith("agent-") or "subagents" in main.parts:
            continue
        head = main.read_bytes()[:200_000]
        sid = None
        for line in head.splitlines():
            at = line.find(b'"sessionId":"')
            if at >= 0:
                sid = line[at + 13:at + 49].decode()
                break
        if sid is None:
            continue
        folder = main.with_suffix("")
        out.append((sid, main, folder if folder.is_dir() else None))
    return out


def make(dest: Path, count: int) -> None:
    marker = dest.with_name(dest.name + ".made")  # beside the library: nothing in it but sessions
    if marker.exists() and marker.read_text() == str(count):
        return
    if dest.exists():
        shutil.rmtree(dest)
    fams = families()
    for k in range(count):
        sid, main, folder = fams[k % len(fams)]
        new = str(uuid.UUID(hashlib.md5(f"{k}".encode()).hexdigest()))
        project = dest / f"-home-bench-proj{k % 40}"
        project.mkdir(parents=True, exist_ok=True)
        old = sid.encode()
        (project / f"{new}.jsonl").write_bytes(main.read_bytes().replace(old, new.encode()))
        if folder is not None:
            for f in folder.rglob("*"):
                if f.is_file():
                    target = project / new / f.relative_to(folder)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(f.read_bytes().replace(old, new.encode()))
    marker.write_text(str(count))


# as an install runs: its modules' bytecode written once, then read (an environment that sets
# PYTHONDONTWRITEBYTECODE would compile every module at each start: 0.1-0.16 s of CPU here)
ENV: dict[str, str] = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(argv: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one run in a fresh process, output to /dev/null. The CPU
    time (the child's own user + system) says what the machine's other work does not."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, _status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--dir", default="/tmp/relayscope-library")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    lib = Path(args.dir)
    t0 = time.perf_counter()
    make(lib, args.sessions)
    files = [str(p) for p in sorted(lib.rglob("*")) if p.is_file()]
    transcripts = [f for f in files if f.endswith(".jsonl")]
    size = sum(os.path.getsize(f) for f in files)
    print(f"library: {args.sessions} sessions, {len(files)} files, {size / 2**20:.0f} MB "
          f"(made or found in {time.perf_counter() - t0:.1f} s) at {lib}")
    rs = [sys.executable, "-m", "relayscope"]
    cat_list = lib.with_name(lib.name + ".transcripts")  # beside the library, not in it
    cat_list.write_text("\0".join(transcripts))
    cases = [
        ("sessions --json", [*rs, "sessions", "--json", str(lib)],
         "bare loop, ends of each file", [sys.executable, "-c", BARE, str(lib)], 3.0),
        ("search phoenix (words)", [*rs, "search", str(lib), "phoenix"],
         "cat of the transcripts", ["sh", "-c", f"xargs -0 cat < {cat_list}"], 2.0),
        ('search "git status" (phrase)', [*rs, "search", str(lib), '"git status"'],
         "cat of the transcripts", ["sh", "-c", f"xargs -0 cat < {cat_list}"], 2.0),
        ("search tool:bash", [*rs, "search", str(lib), "tool:bash"],
         "translate of the folder", [*rs, "translate", str(lib)], 1.5),
        ("search is:error", [*rs, "search", str(lib), "is:error"],
         "translate of the folder", [*rs, "translate", str(lib)], 1.5),
    ]
    run([*rs, "--version"])  # its bytecode written, once

    def span(xs: list[float], unit: str = "") -> str:
        return f"{min(xs):.2f}-{max(xs):.2f}{unit}"

    for name, argv, base_name, base, goal in cases:
        walls, bases, cpus, base_cpus, peaks = [], [], [], [], []
        for _ in range(args.runs):
            b, bc, _ = run(base)
            w, c, peak = run(argv)
            walls.append(w)
            bases.append(b)
            cpus.append(c)
            base_cpus.append(bc)
            peaks.append(peak)
        wall_ratio = [w / b for w, b in zip(walls, bases, strict=True)]
        cpu_ratio = [c / max(b, 1e-3) for c, b in zip(cpus, base_cpus, strict=True)]
        print(f"{name}: {span(walls, ' s')} vs {base_name} {span(bases, ' s')}: wall {span(wall_ratio, 'x')} "
              f"(goal {goal}x); CPU {span(cpus, ' s')} vs {span(base_cpus, ' s')}: {span(cpu_ratio, 'x')}; "
              f"peak RSS {min(peaks):.0f}-{max(peaks):.0f} MB", flush=True)


if __name__ == "__main__":
    main()
