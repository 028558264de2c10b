"""The web view model fed as a watched file grows: ``Workspace.start_live``,
``append`` and ``finish_live`` give what ``load`` gives for the finished input, and ``append``
translates only what is new."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _corpus import ROOT
from test_session import nested_session

from relayscope.web.model import Workspace

EXAMPLES = ROOT / "static" / "examples"


def chunks(data: bytes, sizes: tuple[int, ...] = (1, 7, 300, 4096, 13)) -> list[bytes]:
    out, at, k = [], 0, 0
    while at < len(data):
        n = sizes[k % len(sizes)]
        out.append(data[at:at + n])
        at += n
        k += 1
    return out


def view(ws: Workspace) -> dict[str, Any]:
    """What the page shows: rows, lanes, steps, errors."""
    return {
        "rows": [(r.seq, r.type, r.lane, r.line, r.summary, r.pair, r.opens_lane, r.back_to)
                 for r in (ws.row(i) for i in range(len(ws.relays)))],
        "lanes": [(v.id, v.label, v.depth, v.parent, v.relay_count, v.output_tokens, v.spawn_seq, v.result_seq,
                   v.end_seq) for v in ws.lanes],
        "steps": [(s.line, s.kind, s.decision, s.seqs, s.raw) for s in (ws.step(i) for i in range(ws.step_count()))],
        "errors": ws.errors, "format": ws.format, "lines": ws.lines_total,
    }


@pytest.mark.parametrize("name", ["real-subagents.jsonl", "real-session.jsonl", "fleet-parallel.sse",
                                  "gotchas.ndjson"])
def test_appending_a_file_in_pieces_shows_what_loading_it_shows(name: str) -> None:
    data = (EXAMPLES / name).read_bytes()
    whole = Workspace()
    for _ in whole.load(data, name=name):
        pass
    live = Workspace()
    live.start_live(name)
    seen = 0
    for piece in chunks(data):
        new = live.append(piece)
        assert new.start == seen  # the new rows follow the old ones
        seen = new.stop
    live.finish_live()
    assert view(live) == view(whole)
    assert live.source_bytes() == whole.source_bytes() == data


def test_each_append_translates_only_the_new_lines() -> None:
    lines = (EXAMPLES / "real-session.jsonl").read_bytes().splitlines(keepends=True)
    ws = Workspace()
    ws.start_live("s")
    ws.append(b"".join(lines[:10]))
    steps, relays = ws.step_count(), list(ws.relays)
    ws.append(lines[10])
    assert ws.relays[:len(relays)] == relays  # the rows shown before stay as they were
    assert ws.step_count() == steps + 1  # one new step: one new line, nothing re-read
    ws.append(lines[11][:5])
    assert ws.step_count() == steps + 1  # a partial line waits for its newline


def test_a_folder_appended_file_by_file_joins_sub_agents_as_lanes() -> None:
    files = nested_session(meta_only=False, same_prompt=True)
    ws = Workspace()
    ws.start_live("s1/", folder=True)
    main, a1, a2 = (files[n].split(b"\n") for n in ("s1.jsonl", "s1/subagents/agent-a1.jsonl",
                                                      "s1/subagents/agent-a2.jsonl"))
    ws.append({"s1.jsonl": main[0] + b"\n" + main[1] + b"\n"})
    assert [v.id for v in ws.lanes] == ["main"]
    ws.append({"s1/subagents/agent-a1.jsonl": a1[0] + b"\n" + a1[1] + b"\n"})
    assert [v.id for v in ws.lanes] == ["main", "toolu_T1"]
    ws.append({"s1/subagents/agent-a2.jsonl": b"\n".join(a2) + b"\n",
               "s1/subagents/agent-a1.jsonl": b"\n".join(a1[2:]) + b"\n",
               "s1.jsonl": b"\n".join(main[2:])})
    ws.finish_live()
    assert {v.id: v.depth for v in ws.lanes} == {"main": 0, "toolu_T1": 1, "toolu_T2": 2}
    assert ws.format == "session"
    end = next(r for r in ws.relays if r.type == "lane_end" and r.lane == "toolu_T1")
    assert end.file == "s1.jsonl"
    assert ws.row(end.seq).back_to is not None


def test_another_strategy_while_watching_goes_on_from_what_was_read() -> None:
    data = (EXAMPLES / "index-bug.ndjson").read_bytes()
    lines = data.splitlines(keepends=True)
    ws = Workspace()
    ws.start_live("i")
    ws.append(b"".join(lines[:3]))
    for _ in ws.rerun("index"):
        pass
    ws.append(b"".join(lines[3:]))
    ws.finish_live()
    whole = Workspace()
    for _ in whole.load(data, strategy="index"):
        pass
    assert ws.ndjson() == whole.ndjson()
    assert view(ws) == view(whole)


def test_append_needs_start_live(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="start_live"):
        Workspace().append(b"{}\n")


def test_a_last_line_without_newline_is_shown_when_the_watch_stops() -> None:
    data = (EXAMPLES / "index-bug.ndjson").read_bytes().rstrip(b"\n")
    ws = Workspace()
    ws.start_live("i")
    ws.append(data)
    before = ws.step_count()
    new = ws.finish_live()
    assert ws.step_count() == before + 1 and len(new) > 0  # the last line, then the end of input
    whole = Workspace()
    for _ in whole.load(data):
        pass
    assert view(ws) == view(whole)
    assert ws.source_bytes() == whole.source_bytes()
