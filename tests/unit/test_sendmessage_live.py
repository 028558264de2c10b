"""A session followed while it is written (``translate --follow``, the page's watch: ``live.LiveFiles``)
gives what reading its finished files at once gives, also where a sub-agent's work goes on after a
``SendMessage`` (its lane's second span) and where a background agent's work ends (not at its
launch result). The sessions are tests/fixtures/shapes/sendmessage/ (a returned agent resumed)
and sendmessage-running/ (a background agent, a message queued while it runs, then a resume),
written record by record in the order the records were made (their timestamps), in pieces that
split lines, or read in one look.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _corpus import ROOT

from relayscope import relay as R
from relayscope.intake import read_in_folder
from relayscope.live import LiveFiles
from relayscope.multifile import translate_files
from relayscope.spans import build, stamps_of

SHAPES = ROOT / "tests" / "fixtures" / "shapes"
FOLDERS = {"returned": SHAPES / "sendmessage" / "-Users-dev-shop",
           "running": SHAPES / "sendmessage-running" / "-Users-dev-shop"}
SPAWN = "toolu_01SpawnReviewer000001"


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and read_in_folder(str(p.relative_to(folder)))}


def in_time_order(files: dict[str, bytes]) -> list[tuple[str, bytes]]:
    """Every line of the transcripts, in the order its record was made (a meta file first)."""
    lines: list[tuple[str, str, int, bytes]] = []
    for name, content in files.items():
        if not name.endswith(".jsonl"):
            continue
        for i, raw in enumerate(content.splitlines(keepends=True)):
            lines.append((json.loads(raw)["timestamp"], name, i, raw))
    lines.sort()
    metas = [(name, content) for name, content in files.items() if name.endswith(".meta.json")]
    return metas + [(name, raw) for _, name, _, raw in lines]


def by_record(files: dict[str, bytes]) -> Iterator[dict[str, bytes]]:
    for name, raw in in_time_order(files):
        yield {name: raw}


def in_pieces(files: dict[str, bytes]) -> Iterator[dict[str, bytes]]:
    """Seven bytes at a time, record after record: lines split anywhere."""
    for name, raw in in_time_order(files):
        for i in range(0, len(raw), 7):
            yield {name: raw[i:i + 7]}


def in_one_look(files: dict[str, bytes]) -> Iterator[dict[str, bytes]]:
    yield dict(files)


WAYS: dict[str, Callable[[dict[str, bytes]], Iterator[dict[str, bytes]]]] = {
    "by-record": by_record, "in-pieces": in_pieces, "in-one-look": in_one_look}


def followed(files: dict[str, bytes], way: str) -> list[R.Relay]:
    live = LiveFiles()
    relays: list[R.Relay] = []
    for change in WAYS[way](files):
        relays.extend(live.feed_many(change))
    relays.extend(live.finish())
    assert [r.seq for r in relays] == list(range(len(relays)))
    return relays


def per_file(relays: list[R.Relay]) -> dict[str | None, list[dict[str, Any]]]:
    """Each file's relays in order, without seq (files interleave as they are written)."""
    out: dict[str | None, list[dict[str, Any]]] = defaultdict(list)
    for r in relays:
        d = R.to_dict(r)
        d.pop("seq")
        out[r.file].append(d)
    return dict(out)


@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize("session", list(FOLDERS))
def test_a_session_followed_as_it_grows_gives_what_its_finished_files_give(session: str, way: str) -> None:
    files = files_of(FOLDERS[session])
    [whole] = translate_files(files)
    live = followed(files, way)
    assert per_file(live) == per_file(whole.relays)


@pytest.mark.parametrize("session", list(FOLDERS))
def test_followed_the_agents_lane_has_its_second_span_and_its_time_counted_once(session: str) -> None:
    files = files_of(FOLDERS[session])
    [whole] = translate_files(files)
    stamps = stamps_of({k: v.splitlines() for k, v in files.items()})
    live = followed(files, "by-record")
    starts = [r for r in live if isinstance(r, R.LaneStart) and r.lane == SPAWN]
    assert len(starts) == 2 and starts[0].resumed_by is None and starts[1].resumed_by
    assert len([r for r in live if isinstance(r, R.LaneEnd) and r.lane == SPAWN]) == 2
    want = build(whole.relays, stamps, several=True)
    got = build(live, stamps, several=True)
    track = next(t for t in got.tracks if t.id == SPAWN)
    assert [s.tool_id for s in track.resumed] == [starts[1].resumed_by]
    wall = {f["lane"]: f["wall"] for f in want.figures["lanes"]}
    assert {f["lane"]: f["wall"] for f in got.figures["lanes"]} == wall
    first, second = next(t for t in want.tracks if t.id == SPAWN).agent, track.resumed[0]
    assert first is not None and wall[SPAWN] == (first.end - first.start) + (second.end - second.start)


@pytest.mark.parametrize("session", list(FOLDERS))
def test_translate_follow_of_the_folder_written_as_it_ran_gives_the_one_shot_output(tmp_path: Path, session: str) -> None:
    """The CLI's ``translate --follow DIR`` while the session's files are appended to, record by
    record in time order (test_follow's writer), against ``translate DIR`` of the finished folder."""
    from test_follow import follow, one_shot
    from test_follow import per_file as ndjson_per_file

    root = tmp_path / "proj"
    root.mkdir()
    events = [(root / name, raw) for name, raw in in_time_order(files_of(FOLDERS[session]))]
    got = follow(root, events)
    want = one_shot("translate", str(root))
    assert got.returncode == want.returncode == 0, got.stderr.decode()
    assert ndjson_per_file(got.stdout) == ndjson_per_file(want.stdout)
    assert got.stdout.count(b'"resumed_by"') == 1


@pytest.mark.parametrize("session", list(FOLDERS))
def test_the_pages_watch_links_the_message_and_the_second_span_as_a_load_does(session: str) -> None:
    """The page's "Watch folder" (``Workspace.start_live``, ``append`` per look) against its load of
    the finished folder: the same relays by file, and the same links between the message's row and
    the lane's second start."""
    from relayscope.web.model import Workspace

    files = files_of(FOLDERS[session])
    whole = Workspace()
    for _ in whole.load(files):
        pass
    ws = Workspace()
    ws.start_live("-Users-dev-shop/", folder=True)
    for change in by_record(files):
        ws.append(change)
    ws.finish_live()
    assert per_file(list(ws.relays)) == per_file(list(whole.relays))

    def links(w: Workspace) -> tuple[list[Any], list[Any]]:
        rows = [w.row(i) for i in range(len(w.relays))]
        calls = [(r.relay.id, r.opens_lane) for r in rows if isinstance(r.relay, R.ToolUse) and r.opens_lane]
        backs = [(r.relay.resumed_by, rows[r.back_to].relay.id if r.back_to is not None else None)
                 for r in rows if isinstance(r.relay, R.LaneStart) and r.relay.resumed_by]
        return calls, backs

    calls, backs = links(ws)
    assert (calls, backs) == links(whole)
    assert len(backs) == 1 and backs[0][0] == backs[0][1]  # the second span leads back to its call


def test_a_background_agent_followed_is_running_after_its_launch_and_completed_at_its_notification() -> None:
    """Its launch result (the main file's line 3) ends neither its state nor its lane: it runs
    until the notification (line 7), where its first span ends at its last record (line 5)."""
    from relayscope.subagents import LaneStates

    files = files_of(FOLDERS["running"])
    live, states = LiveFiles(), LaneStates()
    seen: list[R.Relay] = []
    checked = 0
    for change in by_record(files):
        new = live.feed_many(change)
        states.feed(new)
        seen.extend(new)
        [(name, line)] = change.items()
        if "subagents" in name or not name.endswith(".jsonl"):
            continue
        if b"async_launched" in line:
            checked += 1
            assert states.lanes[SPAWN].state == "running"
            assert not any(isinstance(r, R.LaneEnd) and r.lane == SPAWN for r in seen)
        if b"<task-notification>" in line and SPAWN.encode() in line:
            ends = [r for r in seen if isinstance(r, R.LaneEnd) and r.lane == SPAWN]
            assert [r.line for r in ends] == [5] and ends[0].file and ends[0].file.endswith(".jsonl")
            assert "subagents" in ends[0].file and states.lanes[SPAWN].state == "completed"
            checked += 1
    assert checked == 2
