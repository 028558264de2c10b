"""The web page's view model, under CPython: lanes, rows, steps, filters, audit, sharing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON, ROOT, SEEDS

from relayscope import relay as R
from relayscope.multifile import audit_input
from relayscope.translator import STRATEGY_NAMES
from relayscope.web.model import (
    EXAMPLES,
    SHARE_LIMIT,
    Workspace,
    content_keys,
    decode_share,
    encode_share,
)


def loaded(data: bytes | str | dict[str, bytes | str], strategy: str = "lineage", **kw: object) -> Workspace:
    ws = Workspace()
    progress = list(ws.load(data, strategy=strategy, **kw))  # type: ignore[arg-type]
    assert progress[-1] == 1.0 and progress == sorted(progress)
    return ws


def seed(name: str) -> bytes:
    return (SEEDS / name).read_bytes()


def test_interleaved_seed_gets_lanes_with_labels_and_links() -> None:
    ws = loaded(seed("interleaved-subagents.ndjson"))
    assert [lane.id for lane in ws.lanes] == ["main", "toolu_A", "toolu_B"]
    a = ws.lanes[1]
    assert (a.label, a.agent_type, a.depth, a.parent, a.inferred) == (
        "Explore: Search for usages", "Explore", 1, "main", True)
    spawn = ws.row(a.spawn_seq)  # type: ignore[arg-type]
    assert spawn.type == "tool_use" and spawn.opens_lane == "toolu_A" and spawn.lane == "main"
    end = ws.row(a.end_seq)  # type: ignore[arg-type]
    assert end.type == "lane_end" and end.back_to == a.result_seq
    result = ws.row(a.result_seq)  # type: ignore[arg-type]
    assert result.pair == a.spawn_seq and spawn.pair == a.result_seq
    assert ws.lanes[0].cost_usd == pytest.approx(0.0123)


def test_rows_carry_fingerprints_marks_and_raw_lines() -> None:
    ws = loaded(seed("interleaved-subagents.ndjson"), "fingerprint")
    rows = [ws.row(i) for i in range(len(ws.relays))]
    agent_a = next(r for r in rows if r.summary == "Agent A searching...")
    assert agent_a.fp == "text:Agent A searching..." and (agent_a.fp_color, agent_a.fp_label) == ws.fp_mark(agent_a.fp)
    # colours in first-seen order: the legend lists each fingerprint once, each in its own colour
    legend = ws.fp_legend()
    assert [c for _, c, _ in legend] == list(range(len(legend))) and agent_a.fp in [fp for fp, _, _ in legend]
    assert agent_a.mark and agent_a.mark.startswith("context switch")
    assert json.loads(agent_a.raw)["message"]["content"][0]["text"] == "Agent A searching..."
    grep = next(r for r in rows if r.type == "tool_use" and "Grep" in r.summary)
    assert grep.mark is None and grep.fp == agent_a.fp  # same context: same colour, no reset
    done = rows[-1]
    assert done.type == "turn_complete" and done.mark and done.mark.startswith("turn end")


def test_index_bug_step_through_shows_the_pointer_and_the_skip() -> None:
    ws = loaded(seed("index-bug.ndjson"), "index")
    assert ws.step_count() == 6
    b = ws.step(3)
    assert (b.line, b.decision, b.pointer_before, b.pointer_after, b.seqs) == (4, "skip", 1, 1, [])
    assert b.content == ["text:Sub-agent B: running the tests"]
    a = ws.step(2)
    assert (a.reset, a.pointer_before, a.pointer_after) == ("shrink", 3, 1) and len(a.seqs) == 1
    assert ws.step_of_seq(a.seqs[0]) == 2 and ws.step_of_line(None, 4) == 3


def test_audit_per_strategy_with_links() -> None:
    ws = loaded(seed("index-bug.ndjson"))
    list(ws.run_audit())
    assert ws.audit is not None
    audit = {a.strategy: a for a in ws.audit}
    assert (audit["index"].lost, audit["index"].first_lost_line) == (1, 4)
    assert audit["index"].first_lost_block == "text 'Sub-agent B: running the tests'"
    assert (audit["lineage"].lost, audit["lineage"].duplicated) == (0, 0)
    ws2 = loaded(seed("interleaved-subagents.ndjson"))
    list(ws2.run_audit())
    none = next(a for a in ws2.audit or [] if a.strategy == "none")
    assert none.duplicated == 2 and len(none.first_dup_seqs) == 2


def test_rerun_keeps_the_input_and_matches_the_cli_count() -> None:
    ws = loaded(seed("interleaved-subagents.ndjson"))
    counts = {}
    for strategy in STRATEGY_NAMES:
        list(ws.rerun(strategy))
        counts[strategy] = len(ws.relays)
        assert [r.seq for r in ws.relays] == list(range(len(ws.relays)))
    assert counts == {"none": 17, "index": 15, "fingerprint": 15, "lineage": 20}


def test_filter_by_text_type_and_lane() -> None:
    ws = loaded(seed("interleaved-subagents.ndjson"))
    assert [ws.relays[s].type for s in ws.filter("pytest")] == ["tool_use"]
    assert {ws.relays[s].lane for s in ws.filter(lanes=["toolu_B"])} == {"toolu_B"}
    assert all(ws.relays[s].type == "tool_result" for s in ws.filter(types=["tool_result"]))
    assert ws.filter("12 PASSED") == ws.filter("passed 12")  # words, any order, any case
    assert ws.filter("no such words anywhere") == []


def test_bad_lines_are_summarised_and_the_rest_is_shown() -> None:
    text = seed("gotchas.ndjson").decode() + "not json\n[1]\n"
    ws = loaded(text)
    assert ws.error_summary() == "Could not parse 2 lines. First error at line 10: not valid JSON: " \
        "JSON is malformed: invalid character (byte 4)"
    assert ws.not_a_transcript() is None and any(r.type == "turn_complete" for r in ws.relays)


@pytest.mark.parametrize("text", ["hello\nworld\n", "<html><body>nope</body></html>", "[1,2,3]\n{}"])
def test_something_that_is_no_transcript_says_so(text: str) -> None:
    assert "does not look like a transcript" in (loaded(text).not_a_transcript() or "")


def test_empty_input() -> None:
    assert loaded("").not_a_transcript() == "The input is empty."


def test_real_capture_has_one_lane_per_agent_and_token_totals() -> None:
    path = next(FIXTURE_STREAM_JSON.glob("SimonErich*014042a4.jsonl"))
    ws = loaded(path.read_bytes())
    agents = {json.loads(x).get("parent_tool_use_id") for x in path.read_bytes().splitlines()} - {None}
    assert {lane.id for lane in ws.lanes} == agents | {"main"}
    usage: dict[str, int] = {}
    for r in ws.relays:
        if isinstance(r, R.Usage):
            usage[r.lane] = usage.get(r.lane, 0) + r.output_tokens
    assert {lane.id: lane.output_tokens for lane in ws.lanes} == {k: usage.get(k, 0) for k in usage | {"main": 0}}
    assert all(lane.agent_type and lane.description for lane in ws.lanes if lane.id != "main")


def test_a_session_folder_links_sub_agent_files() -> None:
    folder = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log" / "test" / "test_data" \
        / "real_projects" / "-experiments-worktrees"
    files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*.jsonl")}
    assert len(files) == 3
    ws = loaded(files)
    assert ws.format == "session" and not ws.errors
    sub = [lane for lane in ws.lanes if lane.file]
    assert len(sub) == 2 and all(lane.spawn_seq is not None for lane in sub)
    assert [r.seq for r in ws.relays] == list(range(len(ws.relays)))
    first = ws.row(ws.lane_seqs(sub[0].id)[1])
    assert first.raw and first.file == sub[0].file


def test_several_unrelated_files_share_one_seq_space() -> None:
    ws = loaded({"a.ndjson": seed("gotchas.ndjson"), "b.sse": seed("fleet-parallel.sse")})
    assert [r.seq for r in ws.relays] == list(range(len(ws.relays)))
    assert {r.file for r in ws.relays} == {"a.ndjson", "b.sse"} and ws.format == "mixed"
    assert all(s in range(len(ws.relays)) for st in ws.trace for s in st.seqs)


EXAMPLE_FILES = ("real-subagents.jsonl", "real-session.jsonl", "interleaved-subagents.ndjson")


def mixed_drop() -> dict[str, bytes]:
    return {name: (ROOT / "static" / "examples" / name).read_bytes() for name in EXAMPLE_FILES}


def test_a_mixed_drop_is_audited_file_by_file_as_it_is_shown() -> None:
    # each file is shown through its own format's translator; the audit used to send all of them
    # through the session translator. Now it must equal the files audited one by one.
    files = mixed_drop()
    ws = loaded(files)
    assert ws.format == "mixed"
    list(ws.run_audit())
    assert ws.audit is not None
    alone = [audit_input({name: content})[0].audits for name, content in files.items()]
    for k, view in enumerate(ws.audit):
        parts = [audits[k] for audits in alone]
        assert {a.strategy for a in parts} == {view.strategy}
        assert (view.blocks, view.emitted, view.lost, view.duplicated) == tuple(
            sum(getattr(a, f) for a in parts) for f in ("blocks", "emitted", "lost", "duplicated"))
    lineage = next(v for v in ws.audit if v.strategy == "lineage")
    assert lineage.lost == lineage.duplicated == 0 and lineage.blocks > 0


def test_lanes_of_every_file_of_a_mixed_drop_come_from_the_lanes_layer() -> None:
    # 'fingerprint' emits no lane_start: what the lanes show is what the translator's lanes knew
    ws = loaded(mixed_drop(), strategy="fingerprint")
    spawned = [lane for lane in ws.lanes if lane.spawn_seq is not None]
    assert spawned and all(lane.agent_type and lane.label.startswith(f"{lane.agent_type}: ") for lane in spawned)
    assert all(lane.depth == 1 and lane.parent == "main" for lane in spawned)


def test_share_round_trip_and_limit() -> None:
    text = seed("interleaved-subagents.ndjson").decode()
    state = {"strategy": "index", "step": 3, "row": 5}
    fragment = encode_share(text, state)
    assert fragment is not None and fragment.isascii() and "#" not in fragment and "&" not in fragment
    assert decode_share("#" + fragment) == (text, state)
    big = "".join(p.read_text() for p in sorted(FIXTURE_STREAM_JSON.glob("*.jsonl")))
    assert encode_share(big, state) is None and len(big) > SHARE_LIMIT
    with pytest.raises(ValueError):
        decode_share("v1.!!!not-base64")
    with pytest.raises(ValueError):
        decode_share("something-else")


def test_exports() -> None:
    ws = loaded(seed("index-bug.ndjson"), "index")
    lines = ws.ndjson().splitlines()
    assert [json.loads(x)["seq"] for x in lines] == list(range(len(ws.relays)))
    assert [s["line"] for s in json.loads(ws.trace_json())] == [1, 2, 3, 4, 5, 6]
    assert ws.source_text() == seed("index-bug.ndjson").decode()  # byte for byte, final newline too


def test_hostile_text_stays_text() -> None:
    evil = '<script>alert(1)</script><img src=x onerror="alert(2)">\'"'
    line = json.dumps({"type": "assistant", "message": {"id": evil, "content": [{"type": "text", "text": evil}]},
                       "parent_tool_use_id": None, "session_id": evil})
    ws = loaded(line)
    row = ws.row(next(r.seq for r in ws.relays if r.type == "text_delta"))
    assert row.summary == evil and row.detail == evil  # unchanged: escaping is the DOM's textContent's job


def test_content_keys_of_odd_lines() -> None:
    assert content_keys("") == [] and content_keys("nope") == [] and content_keys("[1]") == []
    assert content_keys('{"message":{"content":"hi"}}') == ["text:hi"]


def test_examples_exist_in_the_repo() -> None:
    for example in EXAMPLES:
        assert (ROOT / example.path).is_file(), example.path
        assert example.blurb.count("\n") == 1


def test_progress_is_reported_in_slices_on_big_input(monkeypatch: pytest.MonkeyPatch) -> None:
    import relayscope.web.loading as loading

    monkeypatch.setattr(loading, "SLICE_BYTES", 10_000)
    data = next(FIXTURE_STREAM_JSON.glob("ArturoKuang*.jsonl")).read_bytes()
    ws = Workspace()
    steps = list(ws.load(data))
    assert len(steps) > 10 and steps[-1] == 1.0


def _unused(_: Path) -> None:  # keep the Path import honest for type checkers
    pass


def test_source_bytes_are_given_back_exactly() -> None:
    for data in (seed("gotchas.ndjson"), seed("gotchas.ndjson").rstrip(b"\n"), "é\r\nx".encode()):
        ws = loaded(data)
        assert ws.source_bytes() == data


def test_filter_search_index_is_built_in_slices() -> None:
    ws = loaded(next(FIXTURE_STREAM_JSON.glob("ArturoKuang*.jsonl")).read_bytes())
    assert not ws.search_ready
    steps = list(ws.prepare_search())
    assert len(steps) >= 1 and ws.search_ready
    assert ws.filter("Bash") and ws.filter("Bash") == [s for s in ws.filter(types=[])
                                                if "bash" in (h := ws._search_index()[s]).shown + h.detail]


def _snapshot(ws: Workspace) -> tuple[object, ...]:
    steps = [ws.step(i) for i in range(ws.step_count())]
    return (msgspec_json(ws.relays), [(s.line, s.lane, s.decision, s.reason) for s in steps],
            [(e.file, e.line, e.message) for e in ws.errors], ws.lines_total, ws.format, ws.source_bytes(),
            [(lane.id, lane.relay_count, lane.label) for lane in ws.lanes])


def msgspec_json(relays: list[R.Relay]) -> bytes:
    import msgspec

    return msgspec.json.encode(relays)


@pytest.mark.parametrize("name", ["gotchas.ndjson", "interleaved-subagents.ndjson", "multi-turn"])
def test_a_text_given_in_slices_is_read_as_the_whole_text(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """What the page does with a big file (start_load, load_more per slice read, end_load) gives the
    same view as the whole text at once, wherever the slices cut: inside a line, on a newline, in a
    UTF-8 character, with or without a final newline, with slices smaller than the model's own."""
    import relayscope.web.loading as loading

    whole = seed(name) if name.endswith(".ndjson") else next(FIXTURE_STREAM_JSON.glob(f"*{name}.jsonl")).read_bytes()
    cases = [whole, whole.rstrip(b"\n"), whole + b"\n\n", b"\n" + whole, "é\n".encode() + whole + "ü".encode()]
    for data in cases:
        want = _snapshot(loaded(data))
        for size in (1, 2, 3, 64, 1000, len(data) or 1):
            monkeypatch.setattr(loading, "SLICE_BYTES", 50 if size < 64 else 1 << 20)
            ws = Workspace()
            ws.start_load(name="input", size=len(data))
            progress = []
            slot = bytearray(size)  # as the page reads a file: one buffer, filled again for each slice
            for at in range(0, len(data), size):
                piece = data[at:at + size]
                if size % 2 or len(piece) < size:
                    progress += list(ws.load_more(piece))
                else:
                    slot[:] = piece
                    progress += list(ws.load_more(slot))
                    slot[:] = b"\xff" * size  # what it held must not be kept
            progress += list(ws.end_load())
            assert progress == sorted(progress) and progress[-1] == 1.0, (name, size)
            assert _snapshot(ws) == want, (name, size, data[:20])
            assert ws._input is not None and all(type(line) is bytes for line in ws._input.lines)


@pytest.mark.parametrize("data", [b"", b"\n", b"a", b"a\n", b"a\nb", b"a\n\n", b"\n\nx\n\n"])
def test_slices_keep_the_lines_exactly(data: bytes) -> None:
    from relayscope.wire import split_lines

    for size in (1, 2, 5):
        ws = Workspace()
        ws.start_load(size=len(data))
        for at in range(0, len(data), size):
            list(ws.load_more(data[at:at + size]))
        list(ws.end_load())
        assert ws._input is not None
        assert ws._input.lines == split_lines(data) and ws.source_bytes() == data, (data, size)


def test_the_steps_of_the_rows_shown_and_of_a_lane() -> None:
    """Stepping in scope goes through the lines that emitted a row shown, and every
    line of the lane chosen (a line whose blocks were skipped included)."""
    ws = loaded(seed("interleaved-subagents.ndjson"), "lineage")
    lane = next(v.id for v in ws.lanes if v.id != "main") if len(ws.lanes) > 1 else "main"
    seqs = [r.seq for r in ws.relays if r.lane == lane]
    steps = ws.steps_of(seqs, lane)
    assert steps == sorted(set(steps)) and steps
    assert {ws.step_of_seq(q) for q in seqs} <= set(steps)
    assert all(ws.step(i).lane == lane or set(ws.step(i).seqs) & set(seqs) for i in steps)
    assert ws.steps_of([]) == []


def test_a_text_still_loading_shows_what_is_translated_so_far() -> None:
    """The first rows of a big file, drawn before the rest is translated."""
    data = seed("interleaved-subagents.ndjson")
    ws = Workspace()
    ws.start_load(name="big", size=len(data) * 2)
    list(ws.load_more(data))
    n = ws.so_far()
    assert n == len(ws.relays) > 0 and ws.row(0).summary
    list(ws.load_more(data))
    list(ws.end_load())
    assert len(ws.relays) > n and ws.relays[:n] == loaded(data).relays[:n]


def test_several_files_are_kept_as_given_and_split_into_lines_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder's files: each split into lines once to be translated (grouping and translating
    share the lines), never split, joined and split again; the input keeps each file's bytes."""
    import relayscope.multifile as multifile

    folder = next(p for p in FIXTURE_SESSIONS.rglob("subagents") if p.is_dir()).parent
    files = {str(p.relative_to(folder.parent)): p.read_bytes() for p in sorted(folder.rglob("*.jsonl"))}
    main = folder.with_suffix(".jsonl")
    if main.is_file():
        files[main.name] = main.read_bytes()
    assert len(files) > 1
    splits: list[bytes] = []
    real = multifile.scan.split_lines

    def counted(data: str | bytes) -> list[bytes]:
        splits.append(data if isinstance(data, bytes) else data.encode())
        return real(data)

    for part in (multifile.scan, multifile.session, multifile.audits):  # where the package splits lines
        monkeypatch.setattr(part, "split_lines", counted)
    ws = loaded(files)
    assert sorted(splits) == sorted(files.values())
    assert all(got is files[name] for name, got in ws.source_parts())
