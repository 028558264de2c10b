"""The folded time axis (``folds``): idle gaps longer than the threshold become breaks of a narrow
width; the map between true time and the axis is monotone, continuous and round-trips; ``stats``
lists the folded gaps with their true times (text and JSON); spans keep their true times.

Long sessions: the carried session with parallel sub-agents (handgemacht-ai, ``ef958aa1``: two
real idle gaps of 7 minutes) and a five-day input derived from it by shifting every timestamp
after one of its idle gaps by four days (the repository carries no session of days; the shared
corpus's ``LAF-US__IDAHO-VAULT``, five days with parallel sub-agents, is swept when present).
Expectations are computed here from the raw records' timestamps, not from relayscope's spans."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from _corpus import FIXTURE_SESSIONS, HAVE_SHARED, NO_SHARED, SHARED_SESSIONS
from hypothesis import given
from hypothesis import strategies as st

from relayscope import folds as F
from relayscope import spans as S
from relayscope.export import figures, runs

WORKTREES = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees"
IDAHO = SHARED_SESSIONS / "LAF-US__IDAHO-VAULT"
STAMP = re.compile(rb'"timestamp":"([0-9T:.\-]+Z)"')
SHIFT = timedelta(days=4)


def _t(stamp: str | bytes) -> float:
    text = stamp.decode() if isinstance(stamp, bytes) else stamp
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _folder(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --- the map -------------------------------------------------------------------------------------

@st.composite
def runs_with_gaps(draw: st.DrawFn) -> tuple[list[tuple[float, float]], float, float]:
    start = draw(st.floats(1.6e9, 1.8e9))
    cuts = sorted(draw(st.lists(st.floats(0, 500_000), min_size=0, max_size=12, unique=True)))
    end = start + (cuts[-1] if cuts else 0) + draw(st.floats(1, 5000))
    pairs = [(start + a, start + b) for a, b in zip(cuts[::2], cuts[1::2], strict=False) if b - a > 1]
    return pairs, start, end


@given(runs_with_gaps(), st.lists(st.floats(-1e5, 6e5), min_size=1, max_size=20))
def test_the_map_is_monotone_continuous_and_round_trips(case: tuple[list[tuple[float, float]], float, float],
                                                        offsets: list[float]) -> None:
    gaps, start, end = case
    fold = F.fold(gaps, start, end, threshold=0.0)
    ts = sorted(start + o for o in offsets)
    xs = [fold.to_axis(t) for t in ts]
    assert xs == sorted(xs)
    for t, x in zip(ts, xs, strict=True):
        assert fold.to_time(x) == pytest.approx(t, abs=1e-6)
    assert fold.to_axis(start) == 0
    # the segments tile the run on both axes, with no jump between them
    segs = fold.segments
    assert segs[0][0] == start and segs[0][2] == 0 and segs[-1][1] == end
    assert all(a[1] == b[0] and a[3] == pytest.approx(b[2]) for a, b in itertools.pairwise(segs))
    for b in fold.breaks:
        assert fold.to_axis(b.start) == pytest.approx(b.at) and fold.to_axis(b.end) == pytest.approx(b.at + b.width)
        assert 0 < b.width < b.end - b.start


def test_breaks_keep_a_share_of_the_work_and_work_keeps_its_length() -> None:
    start = 1_775_000_000.0
    gaps = [(start + 100, start + 100 + 4 * 3600), (start + 4 * 3600 + 400, start + 30 * 3600)]
    end = start + 30 * 3600 + 500
    fold = F.fold(gaps, start, end)
    work = 100 + 300 + 500
    assert [b.width for b in fold.breaks] == [pytest.approx(work * F.BREAK_SHARE)] * 2
    assert fold.axis_end == pytest.approx(work * (1 + 2 * F.BREAK_SHARE))
    assert [b.label for b in fold.breaks] == ["4h 00m idle", "25h 53m idle"]
    assert [b.folded_ms for b in fold.breaks] == [4 * 3600 * 1000, (26 * 3600 - 400) * 1000]
    # work keeps its length: a stretch of work between the breaks is as long on the axis as in time
    assert fold.to_axis(start + 4 * 3600 + 300) - fold.to_axis(start + 4 * 3600 + 200) == pytest.approx(100)
    # many gaps: all breaks together keep at most BREAKS_SHARE of the work
    many = [(start + 1000 * k + 10, start + 1000 * k + 990) for k in range(40)]
    fold = F.fold(many, start, start + 40_000)
    assert sum(b.width for b in fold.breaks) == pytest.approx(F.BREAKS_SHARE * 40 * 20)
    assert F.fold([], start, end).to_axis(start + 5) == 5


def test_idle_gaps_skip_points_and_flights_and_short_stretches() -> None:
    points = [0, 10, 1000, 1005, 5000]
    flights = [(1005, 2000), (4000, 4100)]
    assert F.idle_gaps(points, flights, 0, 5000, 300) == [(10, 1000), (2000, 4000), (4100, 5000)]
    assert F.idle_gaps(points, [], 0, 5000, 300) == [(10, 1000), (1005, 5000)]
    assert F.idle_gaps(points, [(0, 5000)], 0, 5000, 300) == []


def test_a_stream_without_timestamps_has_nothing_to_fold() -> None:
    (run,) = runs((FIXTURE_SESSIONS.parent / "stream-json" / "foksa__open-claude-agent-sdk__tests__snapshots__"
                   "multi-turn.jsonl").read_bytes())
    assert run.timeline.axis != S.TIME
    fold = F.of_run(run.timeline, run.relays, run.stamps)
    assert fold.breaks == () and fold.to_axis(run.timeline.start + 12.0) == 12.0


# --- the carried session and a five-day one made from it ---------------------------------------------

def _raw_stamps(files: dict[str, bytes]) -> list[float]:
    """Every record's top-level timestamp, over all the files, in order."""
    found = []
    for name, data in files.items():
        for line in data.splitlines() if name.endswith(".jsonl") else []:
            rec = json.loads(line)
            if isinstance(rec, dict) and isinstance(rec.get("timestamp"), str):
                found.append(_t(rec["timestamp"]))
    return sorted(found)


def _five_days(files: dict[str, bytes], cutoff: float) -> dict[str, bytes]:
    """Every timestamp at or after ``cutoff`` (in every file) four days later."""
    def later(m: re.Match[bytes]) -> bytes:
        t = _t(m.group(1))
        if t < cutoff:
            return m.group(0)
        moved = datetime.fromtimestamp(t, UTC) + SHIFT
        return b'"timestamp":"' + moved.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3].encode() + b'Z"'
    return {k: STAMP.sub(later, v) if k.endswith(".jsonl") else v for k, v in files.items()}


def test_the_carried_sessions_idle_gaps_are_folded_between_its_records() -> None:
    files = _folder(WORKTREES)
    (run,) = runs(files)
    fold = F.of_run(run.timeline, run.relays, run.stamps)
    stamps = _raw_stamps(files)
    raw_gaps = [(a, b) for a, b in itertools.pairwise(stamps) if b - a > F.THRESHOLD_S]
    # the last: from the last record before the /exit (13:53:43) to it (15:09:30): the run ends there
    assert [b.label for b in fold.breaks] == ["7m 51s idle", "7m 10s idle", "1h 15m idle"]
    for b in fold.breaks:  # each is a stretch between two records with none between them
        assert (b.start, b.end) in [(pytest.approx(a), pytest.approx(z)) for a, z in raw_gaps]


def test_stats_of_a_five_day_session_lists_its_folded_gaps_with_their_true_times() -> None:
    files = _folder(WORKTREES)
    (run,) = runs(files)
    second = F.of_run(run.timeline, run.relays, run.stamps).breaks[1]
    long = _five_days(files, second.end)
    stamps = _raw_stamps(long)
    last_before = max(t for t in stamps if t <= second.start)
    first_after = min(t for t in stamps if t >= second.end + SHIFT.total_seconds())
    (fig,) = figures(runs(long))
    folds = fig["folds"]
    assert [b["label"] for b in folds["breaks"]] == ["7m 51s idle", "96h 07m idle", "1h 15m idle"]
    days = folds["breaks"][1]
    assert (days["start"], days["end"]) == (pytest.approx(last_before), pytest.approx(first_after))
    assert days["folded_ms"] == pytest.approx((first_after - last_before) * 1000, abs=1)
    segs = folds["segments"]
    assert segs[0][0] == folds["start"] and segs[-1][1] == folds["end"] and segs[-1][3] == folds["axis_end"]
    # at Fit, the work gets nearly all of the axis; unfolded it got a sliver
    work = fig["run"]["wall"] - sum(b["folded_ms"] for b in folds["breaks"]) / 1000
    assert work / folds["axis_end"] > 0.9 > 0.01 > work / fig["run"]["wall"]


def test_stats_text_and_json_through_the_cli(tmp_path: Path) -> None:
    files = _folder(WORKTREES)
    (run,) = runs(files)
    second = F.of_run(run.timeline, run.relays, run.stamps).breaks[1]
    for name, data in _five_days(files, second.end).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    out = subprocess.run([sys.executable, "-m", "relayscope", "stats", str(tmp_path)], capture_output=True,
                         check=True).stdout.decode()
    start = datetime.fromtimestamp(second.start, UTC).strftime("%Y-%m-%d %H:%M:%S")
    end = datetime.fromtimestamp(second.end + SHIFT.total_seconds(), UTC).strftime("%Y-%m-%d %H:%M:%S")
    assert "folded: 3 idle gaps over 5m 00s, 97h 30m in all" in out
    assert f"     {start} → {end} UTC  96h 07m idle" in out
    data = json.loads(subprocess.run([sys.executable, "-m", "relayscope", "stats", "--json", str(tmp_path)],
                                     capture_output=True, check=True).stdout)
    assert [b["label"] for b in data[0]["folds"]["breaks"]] == ["7m 51s idle", "96h 07m idle", "1h 15m idle"]


def test_spans_keep_their_true_times() -> None:
    files = _folder(WORKTREES)
    (run,) = runs(files)
    before = [(s.start, s.end) for s in run.timeline.spans]
    F.of_run(run.timeline, run.relays, run.stamps)
    assert [(s.start, s.end) for s in run.timeline.spans] == before
    raw = _raw_stamps(files)
    assert all(min(raw) <= s.start <= s.end <= max(raw) for s in run.timeline.spans)


# --- the five-day session of the shared corpus ----------------------------------------------------

def _tool_calls(files: dict[str, bytes]) -> list[tuple[float, float]]:
    """Each tool call from its tool_use record to its tool_result record, by the raw timestamps."""
    used: dict[str, float] = {}
    done: dict[str, float] = {}
    for data in files.values():
        for line in data.splitlines():
            rec: Any = json.loads(line)
            msg = rec.get("message") if isinstance(rec, dict) else None
            content = msg.get("content") if isinstance(msg, dict) else None
            if not isinstance(content, list) or not isinstance(rec.get("timestamp"), str):
                continue
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    used.setdefault(b["id"], _t(rec["timestamp"]))
                elif isinstance(b, dict) and b.get("type") == "tool_result":
                    done.setdefault(b["tool_use_id"], _t(rec["timestamp"]))
    return [(used[k], done[k]) for k in used if k in done]


@pytest.mark.skipif(not HAVE_SHARED, reason=NO_SHARED)
def test_the_five_day_corpus_session_folds_its_days_and_its_sub_agents_get_the_width() -> None:
    files = _folder(IDAHO)
    (run,) = runs(files)
    tl = run.timeline
    fold = F.of_run(tl, run.relays, run.stamps)
    stamps = _raw_stamps(files)
    raw_gaps = [(a, b) for a, b in itertools.pairwise(stamps) if b - a > F.THRESHOLD_S]
    calls = _tool_calls(files)
    for b in fold.breaks:  # between two records, longer than the threshold, no tool call across it
        assert any(a - 1e-3 <= b.start < b.end <= z + 1e-3 for a, z in raw_gaps), b
        assert b.end - b.start > F.THRESHOLD_S
        assert not [c for c in calls if c[0] < b.start and c[1] > b.end]
    days = [(a, z) for a, z in raw_gaps if z - a > 3600]
    assert sum(b.end - b.start for b in fold.breaks) >= 0.99 * sum(z - a for a, z in days)
    axis = fold.axis_end
    agents = [s for s in tl.spans if s.kind == "agent" and s.lane != "main"]
    assert len(agents) == 3
    for s in agents:
        assert s.duration / (tl.end - tl.start) < 0.001  # under a pixel of 1280 unfolded
        assert (fold.to_axis(s.end) - fold.to_axis(s.start)) / axis > 0.01  # over 12 px folded
    first, second = sorted(agents, key=lambda s: s.start)[:2]  # the two that ran in parallel
    assert fold.to_axis(second.start) < fold.to_axis(first.end)
