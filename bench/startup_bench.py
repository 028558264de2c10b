"""Start-up of the command line as a user has it: `relayscope --version` and a one-session
`translate` (NDJSON and `-f text`), against a bare `python -c pass`, as whole processes, in the same run.

A regular install: a virtual environment under bench/out/startup-venv made once with pip (msgspec
from PyPI), into which this checkout is installed anew on every run (pip compiles the bytecode,
as it does for users), then each command is run in turn, A B C A B C ..., and timed from outside:
CPU (user + system, the child's own rusage: the figure the machine's load disturbs least) and
wall. Medians, and each command's ratio to `python -c pass`; also what `python -c "import msgspec"`
costs alone (the floor of any run that decodes).

    python bench/startup_bench.py [--runs 20] [--file FILE] [--against DIR]

``--against DIR`` installs another checkout (another commit, exported with ``git archive``) into a second
environment beside the first and times its two commands in the same rounds: a before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / "bench" / "out" / "startup-venv"
ONE_SESSION = ROOT / "tests" / "fixtures" / "real" / "stream-json" / (
    "GuhyupLee__waifu-agent__tests__fixtures__claude-multiturn.jsonl")


def install(root: Path = ROOT, venv: Path = VENV) -> tuple[Path, Path]:
    python, command = venv / "bin" / "python", venv / "bin" / "relayscope"
    quiet = ["--quiet", "--disable-pip-version-check"]
    if not python.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", *quiet, str(root)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", *quiet, "--no-deps", "--force-reinstall", str(root)],
                   check=True)
    return python, command


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU s, wall s) of one run, its output on /dev/null."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--file", type=Path, default=ONE_SESSION, help="the one session translated")
    ap.add_argument("--against", type=Path, default=None, help="another checkout, timed in the same rounds")
    args = ap.parse_args()
    python, command = install()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    cases = {
        "python -c pass": [str(python), "-c", "pass"],
        "python -c 'import msgspec'": [str(python), "-c", "import msgspec"],
        "relayscope --version": [str(command), "--version"],
        f"relayscope translate ({args.file.stat().st_size // 1000} KB)": [str(command), "translate", str(args.file)],
        "relayscope translate -f text": [str(command), "translate", "-f", "text", str(args.file)],
    }
    if args.against is not None:
        _, other = install(args.against, VENV.with_name("startup-venv-against"))
        cases["against: relayscope --version"] = [str(other), "--version"]
        cases["against: relayscope translate"] = [str(other), "translate", str(args.file)]
        cases["against: relayscope translate -f text"] = [str(other), "translate", "-f", "text", str(args.file)]
    for argv in cases.values():  # warm the file cache
        timed(argv, env)
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, argv in cases.items():
            got[name].append(timed(argv, env))
    base_cpu = statistics.median(c for c, _ in got["python -c pass"])
    base_wall = statistics.median(w for _, w in got["python -c pass"])
    print(f"whole processes, median of {args.runs} runs each, interleaved; Python {sys.version.split()[0]}")
    print(f"{'':<42}{'CPU ms':>8}{'x pass':>8}{'wall ms':>9}{'x pass':>8}   CPU ms min-max")
    for name, runs in got.items():
        cpu = [c for c, _ in runs]
        wall = statistics.median(w for _, w in runs)
        print(f"{name:<42}{statistics.median(cpu) * 1000:8.1f}{statistics.median(cpu) / base_cpu:8.2f}"
              f"{wall * 1000:9.1f}{wall / base_wall:8.2f}   {min(cpu) * 1000:.0f}-{max(cpu) * 1000:.0f}")


if __name__ == "__main__":
    main()
