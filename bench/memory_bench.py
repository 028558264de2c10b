"""Peak memory of ``relayscope translate`` as the input grows: constant, not proportional.

Writes the real stream-json corpus N times over (ids made unique per copy, so the de-dup
state really has new ids to remember) for N in 1, 4, 8, runs the CLI on each in a fresh
process and prints its peak RSS next to the input size.

    python bench/memory_bench.py [--copies 5]
    python bench/memory_bench.py --export    # export (both formats) and stats on 100 and 400 MB
    python bench/memory_bench.py --folders   # export and stats on folders: many sessions, one big one
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
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
    ap.add_argument("--folders", action="store_true", help="export and stats on session folders instead")
    args = ap.parse_args()
    if args.export:
        export_and_stats()
        return
    if args.folders:
        folders()
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



SESSIONS = ROOT / "tests" / "fixtures" / "real" / "session-jsonl"
FAMILY = "ef958aa1-0e93-49f0-bb71-150f63befcd1"  # a session with two sub-agent files


def _unique(data: bytes, k: int) -> bytes:
    """A copy of session records whose record, call and message ids are its own."""
    data = re.sub(rb'"(uuid|parentUuid|promptId)":"([0-9a-f-]{32})([0-9a-f]{4})"',
                  lambda m: b'"%s":"%s%04x"' % (m.group(1), m.group(2), k % 65536), data)
    return re.sub(rb"(toolu_|msg_)", lambda m: m.group(1) + b"c%d" % k, data)


def folders() -> None:
    """Peak RSS of ``export`` and ``stats`` on folders: many sessions (about 100 and 400 MB of copies
    of one session with its sub-agents: flat, a session is held at a time) and one session of 10
    and 40 MB (its records repeated: what one session costs per MB, held whole to link its files)."""
    main = next(SESSIONS.rglob(f"{FAMILY}.jsonl"))
    family = [main, *sorted(main.with_suffix("").glob("subagents/*"))]
    size = sum(p.stat().st_size for p in family)
    commands = (("export", "--format", "otlp"), ("stats", "--json"))
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'input':>34}  {'command':<22} {'peak RSS':>10}")
        for target in (100e6, 400e6):
            root = Path(tmp) / f"many{int(target / 1e6)}"
            for k in range(int(target // size) + 1):
                for p in family:
                    rel = p.relative_to(main.parent)
                    out = root / str(rel).replace(FAMILY, f"c{k}-{FAMILY}")
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(_unique(p.read_bytes(), k))
            _report(root, f"{target / 1e6:.0f} MB, {int(target // size) + 1} sessions", commands)
            shutil.rmtree(root)
        for target in (10e6, 40e6):
            root = Path(tmp) / f"one{int(target / 1e6)}"
            (root / f"{FAMILY}" / "subagents").mkdir(parents=True)
            body = main.read_bytes()
            with (root / main.name).open("wb") as out:
                for k in range(int(target // len(body)) + 1):
                    out.write(_unique(body, k))
            for p in family[1:]:
                (root / FAMILY / "subagents" / p.name).write_bytes(p.read_bytes())
            _report(root, f"one session, {target / 1e6:.0f} MB", commands)
            shutil.rmtree(root)


def _report(root: Path, what: str, commands: tuple[tuple[str, ...], ...]) -> None:
    mb = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 1e6
    for command in commands:
        rss = peak_rss_kib(root, command)
        print(f"{what + f' ({mb:.0f} MB)':>34}  {' '.join(command):<22} {rss / 1024:8.1f} MB")


if __name__ == "__main__":
    main()
