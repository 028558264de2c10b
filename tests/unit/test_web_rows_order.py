"""The rows' order in the view model: in time across lanes where the input has times, as given
by lane, and stream-json in the stream's order."""

from __future__ import annotations

from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON

from relayscope.spans import parse
from relayscope.web.model import Workspace

SESSION = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log" / "test" / "test_data" / "real_projects" \
    / "-experiments-worktrees"


def loaded(data: bytes | dict[str, bytes]) -> Workspace:
    ws = Workspace()
    for _ in ws.load(data, strategy="lineage"):
        pass
    return ws


def session() -> Workspace:
    return loaded({str(p.relative_to(SESSION)): p.read_bytes() for p in SESSION.rglob("*.jsonl")})


def test_time_order_puts_sub_agent_rows_among_main_s_by_their_times() -> None:
    ws = session()
    rows = ws.rows(ws.select())
    timed = ws.in_order(rows, "time")
    assert sorted(timed) == sorted(rows) and timed != rows
    stamps = [parse(t) for q in timed if (t := ws.row_time(q))]
    assert stamps == sorted(stamps)
    before = [parse(t) for q in rows if (t := ws.row_time(q))]
    assert before != sorted(before)  # seq order jumps back in time: a sub-agent ran while main waited


def test_by_lane_is_seq_order() -> None:
    ws = session()
    rows = ws.rows(ws.select())
    assert ws.in_order(rows, "lane") == rows == sorted(rows)


def test_a_row_with_no_time_stays_after_the_row_it_follows() -> None:
    ws = session()
    rows = ws.rows(ws.select())
    timed = ws.in_order(rows, "time")
    for q in rows:
        if ws.row_time(q) is None and q > 0 and ws.relays[q - 1].file == ws.relays[q].file:
            prev = ws.relays[q - 1]
            if prev.seq in timed:
                assert timed.index(q) > timed.index(prev.seq)


def test_stream_json_keeps_the_stream_order() -> None:
    path = next(FIXTURE_STREAM_JSON.glob("*.jsonl"))
    ws = loaded(path.read_bytes())
    rows = ws.rows(ws.select())
    assert ws.in_order(rows, "time") == rows


def test_rows_that_come_later_take_their_place_in_time() -> None:
    files = {str(p.relative_to(SESSION.parent)): p.read_bytes() for p in SESSION.rglob("*.jsonl")}
    main = next(n for n in files if "/subagents/" not in n)
    lines = files[main].split(b"\n")
    ws = Workspace()
    ws.start_live(SESSION.name + "/", folder=True)
    half = len(lines) // 2
    for part in ({main: b"\n".join(lines[:half]) + b"\n"},
                 {n: data for n, data in files.items() if n != main},  # the sub-agents' files, whole
                 {main: b"\n".join(lines[half:])}):
        ws.append(part)
        ws.in_order(ws.rows(ws.select()), "time")  # the times read so far are kept, and grown
    ws.finish_live()
    rows = ws.rows(ws.select())
    timed = ws.in_order(rows, "time")
    assert sorted(timed) == sorted(rows)
    stamps = [parse(t) for q in timed if (t := ws.row_time(q))]
    assert stamps == sorted(stamps) and len(stamps) > len(rows) // 2
    lanes = {ws.relays[q].lane for q in timed}
    assert len(lanes) == 3
    grown = list(ws._time_keys)
    ws._time_keys, ws._time_last = [], {}
    assert ws.time_keys() == grown  # as if read in one go
