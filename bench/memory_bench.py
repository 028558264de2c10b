"""Peak memory and time of every command as the input grows: flat, not proportional.

Writes the real stream-json captures over and over into one file of about 100 MB and one of about
400 MB (each copy's ``toolu_`` and ``msg_`` ids made its own, so de-dup state and inventories really
have new blocks to remember), runs each command on each in a fresh process with its output on
/dev/null, and prints its peak RSS (the child's own rusage) and time. In the same run: the floor
(the interpreter with the CLI imported), each command's time per MB as a ratio to ``translate``'s,
and its peak at the large input as a ratio to its peak at the small one (1.00x: constant memory).

    python bench/memory_bench.py [--mb 100 400] [--only trace audit ...] [--py DIR]
    python bench/memory_bench.py --folders [--py DIR]   # export and stats on session folders

``--folders``: peak RSS of ``export`` and ``stats`` on folders of many sessions (about 100 and 400
MB of copies of one session with its sub-agent files: flat, a session is held at a time) and on
one session of 10 and 40 MB (its records repeated: what one session costs per MB, held whole to
link its files).

``--py DIR`` measures the package under DIR instead of this checkout's (another commit's ``py/``,
exported with ``git archive``): a before and after on the same inputs.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
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
    ap.add_argument("--folders", action="store_true", help="export and stats on session folders instead")
    args = ap.parse_args()
    if args.folders:
        folders(args.py)
        return
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



SESSIONS = ROOT / "tests" / "fixtures" / "real" / "session-jsonl"
FAMILY = "ef958aa1-0e93-49f0-bb71-150f63befcd1"  # a session with two sub-agent files


def _unique(data: bytes, k: int) -> bytes:
    """A copy of session records whose record, call and message ids are its own."""
    data = re.sub(rb'"(uuid|parentUuid|promptId)":"([0-9a-f-]{32})([0-9a-f]{4})"',
                  lambda m: b'"%s":"%s%04x"' % (m.group(1), m.group(2), k % 65536), data)
    return re.sub(rb"(toolu_|msg_)", lambda m: m.group(1) + b"c%d" % k, data)


def folders(py: Path) -> None:
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
            _report(root, f"{target / 1e6:.0f} MB, {int(target // size) + 1} sessions", commands, py)
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
            _report(root, f"one session, {target / 1e6:.0f} MB", commands, py)
            shutil.rmtree(root)


def _report(root: Path, what: str, commands: tuple[tuple[str, ...], ...], py: Path) -> None:
    mb = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 1e6
    for command in commands:
        peak, _, _, _ = measure(["-m", "relayscope", *command, str(root)], py)
        print(f"{what + f' ({mb:.0f} MB)':>34}  {' '.join(command):<22} {peak:8.1f} MB")


if __name__ == "__main__":
    main()
