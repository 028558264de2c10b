"""Golden outputs: record what the CLI and the web model produce for every known input, and
compare a later run byte for byte. A refactoring that claims "no change in behaviour" proves it
with this (the directory lives outside git: the corpus is not ours to commit).

    python tools/golden.py record /tmp/golden-before
    python tools/golden.py compare /tmp/golden-before     # exit 1 and a list on any difference

Inputs: every file of ../shared/corpus (real stream-json, session transcripts, seed examples),
each session folder of the corpus as a directory, the whole session corpus at once,
tests/fixtures/seed-examples and static/examples. For each input and each strategy:
``translate -f ndjson`` and ``trace --json``; once per input: ``audit --json`` and ``audit``.
Also the web model (``Workspace``): NDJSON, trace, lanes and audit of each input, per strategy.
Each output file holds stdout, then stderr and the exit code, so error reporting is pinned too;
paths inside the checkout are written relative to it, so two checkouts' outputs compare.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from relayscope import cli  # noqa: E402
from relayscope.intake import read_in_folder  # noqa: E402
from relayscope.translator import STRATEGY_NAMES, StrategyName  # noqa: E402
from relayscope.web import model  # noqa: E402

SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared") if (p / "corpus").is_dir()),
              ROOT.parent / "shared")


def inputs() -> Iterator[tuple[str, list[Path]]]:
    """(id, paths) for every input: one file, or one directory (a session or project folder)."""
    corpus = SHARED / "corpus"
    files = sorted(corpus.rglob("*.jsonl")) + sorted(corpus.rglob("*.ndjson")) + sorted(corpus.rglob("*.sse"))
    files += sorted((ROOT / "tests" / "fixtures" / "seed-examples").glob("*.*"))
    files += sorted((ROOT / "static" / "examples").glob("*.*"))
    for f in files:
        if f.suffix in (".jsonl", ".ndjson", ".sse"):
            yield _id(f), [f]
    sessions = corpus / "real" / "session-jsonl"
    if sessions.is_dir():
        for folder in sorted(p for p in sessions.iterdir() if p.is_dir()):
            yield _id(folder), [folder]
        for folder in sorted({p.parent for p in sessions.rglob("subagents")}):
            yield _id(folder), [folder]
        yield "all-sessions", [sessions]


def _id(path: Path) -> str:
    for base in (SHARED, ROOT):
        if path.is_relative_to(base):
            return str(path.relative_to(base)).replace("/", "__")
    return str(path).replace("/", "__")


def run_cli(argv: list[str]) -> bytes:
    out, err = io.BytesIO(), io.StringIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    stdout.flush()
    text = out.getvalue() + b"\n--- stderr\n" + err.getvalue().encode() + f"--- exit {code}\n".encode()
    return text.replace(f"{ROOT}/".encode(), b"")  # the same outputs from any checkout


def run_web(paths: list[Path], strategy: StrategyName) -> bytes:
    w = model.Workspace()
    if len(paths) == 1 and paths[0].is_file():
        data: bytes | dict[str, bytes] = paths[0].read_bytes()
    else:
        data = {str(p.relative_to(paths[0])): p.read_bytes() for p in sorted(paths[0].rglob("*"))
                if p.is_file() and read_in_folder(p.name)}
    for _ in w.load(data, strategy=strategy):
        pass
    parts = [w.ndjson(), w.trace_json(), repr(w.format).encode(), repr(w.errors).encode(),
             repr([(v.id, v.label, v.agent_type, v.description, v.depth, v.parent, v.inferred, v.spawn_seq,
                    v.result_seq, v.end_seq, v.relay_count, v.input_tokens, v.output_tokens, v.file)
                   for v in w.lanes]).encode()]
    if strategy == "lineage":
        for _ in w.run_audit():
            pass
        parts.append(repr(w.audit).encode())
    return b"\n--- part\n".join(parts) + b"\n"


def record(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for ident, paths in inputs():
        names = [str(p) for p in paths]
        jobs: list[tuple[str, bytes]] = []
        for s in STRATEGY_NAMES:
            jobs.append((f"{ident}.translate.{s}", run_cli(["translate", "-f", "ndjson", "-s", s, *names])))
            jobs.append((f"{ident}.trace.{s}", run_cli(["trace", "--json", "-s", s, *names])))
            jobs.append((f"{ident}.web.{s}", run_web(paths, s)))
        jobs.append((f"{ident}.audit.json", run_cli(["audit", "--json", *names])))
        jobs.append((f"{ident}.audit.txt", run_cli(["audit", *names])))
        for name, data in jobs:
            (out / name).write_bytes(data)
            count += 1
    print(f"{count} outputs in {out}", file=sys.stderr)
    return count


def compare(before: Path, after: Path) -> int:
    record(after)
    old = {p.name for p in before.iterdir()}
    new = {p.name for p in after.iterdir()}
    differ = sorted(n for n in old & new if (before / n).read_bytes() != (after / n).read_bytes())
    for n in sorted(old - new):
        print(f"missing now: {n}")
    for n in sorted(new - old):
        print(f"new: {n}")
    for n in differ:
        print(f"differs: {n}")
    same = len(old & new) - len(differ)
    print(f"{same} identical, {len(differ)} differ, {len(old - new)} missing, {len(new - old)} new")
    return 0 if not differ and old == new else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("dir", type=Path)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("--after", type=Path, default=Path("/tmp/golden-after"))
    args = p.parse_args()
    if args.cmd == "record":
        record(args.dir)
        return 0
    if args.after.exists():
        for f in args.after.iterdir():
            f.unlink()
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
