"""The worker's swimlanes (web/swimlanes.py) are made a slice at a time: a track's numbers come
from a generator that pauses every ``TRACK_SLICE`` spans or marks (its caller hands the thread
back whenever the slice's budget has passed), and what it makes does not depend on the slices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from relayscope import spans as S
from relayscope.web import swimlanes
from relayscope.web.model import Workspace
from relayscope.web.view import LaneLayout, Shown

# a capture with tool calls and model calls enough for many slices
CAPTURE = (Path(__file__).resolve().parents[1] / "fixtures" / "real" / "stream-json"
           / "ArturoKuang__sandbox_ai_compiler__.repomirror__claude_output.jsonl")


def _timeline() -> tuple[S.Timeline, swimlanes.Swimlanes]:
    """The capture's timeline, and a Swimlanes that only makes tracks."""
    path = CAPTURE
    ws = Workspace()
    for _ in ws.load(path.read_bytes(), name=path.name):
        pass

    def stamps(file: str | None, line: int) -> float | None:
        stamp = ws.line_time(file, line)
        return S.parse(stamp) if stamp else None

    lanes = object.__new__(swimlanes.Swimlanes)  # no page: _track reads only what the lanes are shown as
    lanes.shown = Shown(ws=ws, layout=LaneLayout([lane.id for lane in ws.lanes]))
    return S.build(ws.relays, stamps), lanes


def _made(lanes: swimlanes.Swimlanes, tl: S.Timeline, tr: S.Track) -> tuple[int, swimlanes.Track]:
    """The track's generator run to its end: how many pauses it made, and the track."""
    own = [s for s in tl.spans if s.lane == tr.id]
    marks = [m for m in tl.marks if m.lane == tr.id]
    steps = lanes._track(tr, tl, S.figures(tl), own, marks)
    pauses = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return pauses, done.value
        pauses += 1


def _numbers(t: swimlanes.Track) -> tuple[Any, ...]:
    return t.spans, t.marks, t.spans_meta, t.marks_meta


def test_a_track_is_made_a_slice_at_a_time_and_the_same_whatever_the_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    tl, lanes = _timeline()
    tr = max(tl.tracks, key=lambda t: sum(1 for s in tl.spans if s.lane == t.id))
    n_spans = sum(1 for s in tl.spans if s.lane == tr.id)
    n_marks = sum(1 for m in tl.marks if m.lane == tr.id)
    assert n_spans > 20 and n_marks > 20  # enough for many slices of 3
    whole = _made(lanes, tl, tr)[1]
    monkeypatch.setattr(swimlanes, "TRACK_SLICE", 3)
    pauses, sliced = _made(lanes, tl, tr)
    assert pauses >= n_spans // 3 + n_marks // 3 - 1
    assert _numbers(sliced) == _numbers(whole)


def test_a_tracks_spans_go_by_row_then_start_then_seq_its_agent_bar_first() -> None:
    tl, lanes = _timeline()
    for tr in tl.tracks:
        track = _made(lanes, tl, tr)[1]
        rows = [track.spans[k:k + 6] for k in range(0, len(track.spans), 6)]  # start, end, row, flags, seq, name
        assert rows, tr.id
        agents = [r for r in rows if r[3] & 1 == 0]  # kind 0: the agent's bar
        assert rows[:len(agents)] == agents and len(agents) <= 1
        calls = rows[len(agents):]
        assert calls == sorted(calls, key=lambda r: (r[2], r[0], r[4]))
