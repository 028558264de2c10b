"""The idle gaps of real sessions, from which ``folds.THRESHOLD_S`` is chosen, and what folding
does to one session's axis at "Fit".

    .venv/bin/python tools/idle_gaps.py                      # the distribution over every session
    .venv/bin/python tools/idle_gaps.py --fit LAF-US__IDAHO-VAULT --width 1200

A gap is what ``folds`` folds: a stretch of a run with nothing in flight in any lane and no record
in it (``folds.idle_gaps`` with no threshold). Sessions: every session folder and file under
tests/fixtures/real/session-jsonl/ and ../shared/corpus/real/session-jsonl/ (when present), each
translated as the CLI translates a folder (its sub-agent files with it); a session in both is
counted once. Reads files, prints text; changes nothing.
"""

from __future__ import annotations

import argparse
import bisect
import statistics
import sys
from pathlib import Path

from relayscope import folds as F
from relayscope import spans as S
from relayscope.export import Run, runs

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "real" / "session-jsonl"
SHARED = [p / "corpus" / "real" / "session-jsonl" for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared")]


def sessions() -> dict[str, Path]:
    """Repository folder name -> its folder (the shared corpus's copy when it has one)."""
    found = {p.name: p for p in sorted(FIXTURES.iterdir()) if p.is_dir()}
    for root in SHARED:
        if root.is_dir():
            found.update({p.name: p for p in sorted(root.iterdir()) if p.is_dir()})
            break
    return found


def runs_of(folder: Path) -> list[Run]:
    files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    return [r for r in runs(files) if r.timeline.axis == S.TIME]


def gaps_of(run: Run) -> list[float]:
    tl = run.timeline
    xs = S.positions(run.relays, tl.axis, run.stamps)
    points = [*xs, *(m.at for m in tl.marks), *(s.start for s in tl.spans), *(s.end for s in tl.spans)]
    return [b - a for a, b in F.idle_gaps(points, S.busy(tl, run.relays, xs), tl.start, tl.end, 0.0)]


def distribution() -> None:
    gaps: list[float] = []
    walls = idle = 0.0
    for name, folder in sessions().items():
        for run in runs_of(folder):
            g = gaps_of(run)
            gaps += g
            walls += run.timeline.end - run.timeline.start
            idle += sum(g)
            print(f"{name[:34]:34} {(run.name or '')[-28:]:28} wall {S.duration_words(run.timeline.end - run.timeline.start, S.TIME):>8}"
                  f"  {len(g):4} gaps, longest {S.duration_words(max(g, default=0), S.TIME)}")
    gaps.sort()
    total = sum(gaps)
    print(f"\n{len(gaps)} idle gaps, {S.duration_words(total, S.TIME)} in all, of {S.duration_words(walls, S.TIME)} wall")
    q = statistics.quantiles(gaps, n=100)
    print("percentiles: " + ", ".join(f"p{p} {S.duration_words(q[p - 1], S.TIME)}" for p in (50, 75, 90, 95, 99)))
    print("threshold  gaps longer   share of gaps   share of idle time")
    for t in (10, 30, 60, 120, 300, 600, 1800, 3600):
        k = len(gaps) - bisect.bisect_right(gaps, t)
        above = sum(gaps[len(gaps) - k:])
        print(f"{S.duration_words(t, S.TIME):>9}  {k:11}   {100 * k / len(gaps):12.2f}%   {100 * above / total:17.2f}%")


def fit(name: str, width: float) -> None:
    """The share of the axis work gets at "Fit", and each sub-agent span's width in px, before and after."""
    for run in runs_of(sessions()[name]):
        tl = run.timeline
        fold = F.of_run(tl, run.relays, run.stamps)
        before, after = tl.end - tl.start, fold.axis_end
        work = before - sum(b.end - b.start for b in fold.breaks)
        print(f"{run.name}: wall {S.duration_words(before, S.TIME)}, {len(fold.breaks)} breaks "
              f"({', '.join(b.label for b in fold.breaks)})")
        print(f"  work {S.duration_words(work, S.TIME)}: {100 * work / before:.2f}% of the axis unfolded, "
              f"{100 * work / after:.1f}% folded; each break {width * fold.breaks[0].width / after:.1f} px"
              if fold.breaks else "  nothing folds")
        for s in tl.spans:
            if s.kind == "agent" and s.lane != "main":
                w0 = width * s.duration / before
                w1 = width * (fold.to_axis(s.end) - fold.to_axis(s.start)) / after
                print(f"  {s.name[:48]:48} {S.duration_words(s.duration, S.TIME):>8}: {w0:7.2f} px -> {w1:7.1f} px")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fit", metavar="SESSION", help="a session folder's name: its axis before and after folding")
    p.add_argument("--width", type=float, default=1200.0, help="the axis' width in px at Fit (default 1200)")
    args = p.parse_args()
    if args.fit:
        fit(args.fit, args.width)
    else:
        distribution()
    return 0


if __name__ == "__main__":
    sys.exit(main())
