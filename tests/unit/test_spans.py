"""The run in time (spans.py) and as a trace other tools open (export.py).

Expectations are computed from the raw records with the standard library's ``json`` and
``datetime``, not from our code: a tool span runs from its ``tool_use`` record's ``timestamp`` to
its ``tool_result`` record's, an agent span from its spawning call's record to that call's result.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from _corpus import FIXTURE_SESSIONS, REAL_FILES, SEEDS, SESSION_FILES, session_rel, sweep

from relayscope import cli, export, spans
from relayscope.lanes import MAIN


def _families() -> list[list[Path]]:
    """Each session's main file with its sub-agent files (``<session>/subagents/*.jsonl``)."""
    mains = [p for p in SESSION_FILES if "subagents" not in p.parts]
    return [[m, *sorted(m.with_suffix("").glob("subagents/*.jsonl"))] for m in mains]


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _raw_times(paths: list[Path]) -> tuple[dict[str, float], dict[str, float]]:
    """tool_use id -> its first record's timestamp; tool_use id -> its first result's."""
    uses: dict[str, float] = {}
    results: dict[str, float] = {}
    for p in paths:
        for raw in p.read_bytes().split(b"\n"):
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(rec, dict) or not isinstance(rec.get("timestamp"), str):
                continue
            msg = rec.get("message")
            content = msg.get("content") if isinstance(msg, dict) else None
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use" and rec.get("type") == "assistant":
                    uses.setdefault(block["id"], _seconds(rec["timestamp"]))
                elif block.get("type") == "tool_result" and rec.get("type") == "user":
                    results.setdefault(block["tool_use_id"], _seconds(rec["timestamp"]))
    return uses, results


def _runs_of(paths: list[Path]) -> list[export.Run]:
    return export.runs({session_rel(p): p.read_bytes() for p in paths})


FAMILIES = _families()
WITH_AGENTS = [f for f in FAMILIES if any(t.id != MAIN and t.agent and t.agent.tool_id
                                          for r in _runs_of(f) for t in r.timeline.tracks)]


def test_the_fixtures_hold_session_families_with_sub_agents() -> None:
    carried = [f for f in WITH_AGENTS if f[0].is_relative_to(FIXTURE_SESSIONS)]
    assert len(carried) >= 3, [session_rel(f[0]) for f in carried]


@pytest.mark.parametrize("family", sweep(WITH_AGENTS, ids=lambda f: session_rel(f[0])))
def test_spans_start_and_end_at_their_records_timestamps(family: list[Path]) -> None:
    uses, results = _raw_times(family)
    (run,) = _runs_of(family)
    tl = run.timeline
    assert tl.axis == spans.TIME
    agents = [s for s in tl.spans if s.kind == "agent" and s.tool_id]
    assert agents
    for s in agents:  # each sub-agent: from its spawning tool_use to that call's tool_result
        assert s.start == uses[s.tool_id], s.label
        if s.tool_id in results:
            assert s.end == results[s.tool_id], s.label
            assert not s.open
    tools = [s for s in tl.spans if s.kind == "tool"]
    assert {s.tool_id for s in tools} == set(uses)
    for s in tools:
        assert s.start == uses[s.tool_id], s.label
        if s.tool_id in results:
            assert s.end == results[s.tool_id], s.label
        else:
            assert s.open and s.end >= s.start


def _overlap(a: spans.Span, b: spans.Span) -> bool:
    return a.start < b.end and b.start < a.end


def test_a_stream_json_capture_with_parallel_sub_agents_overlaps() -> None:
    # seeds/000 written out: two Task calls in one message, their sub-agents interleaved on stdout
    (run,) = export.runs((SEEDS / "interleaved-subagents.ndjson").read_bytes(), "lineage")
    tl = run.timeline
    assert tl.axis == spans.LINE
    agents = [s for s in tl.spans if s.kind == "agent" and s.lane != MAIN]
    assert [s.tool_id for s in agents] == ["toolu_A", "toolu_B"]
    a, b = agents
    assert _overlap(a, b)
    assert (a.start, a.end) == (2.0, 8.0)  # the Task call's line to its result's line
    # their tool calls sit on their own tracks, nested by depth under main
    assert [t.depth for t in tl.tracks] == [0, 1, 1]
    lanes = {s.tool_id: s.lane for s in tl.spans if s.kind == "tool"}
    assert lanes["toolu_grep"] == "toolu_A" and lanes["toolu_bash"] == "toolu_B"


def test_parallel_fleet_streams_overlap() -> None:
    (run,) = export.runs((SEEDS / "fleet-parallel.sse").read_bytes())
    streams = [s for s in run.timeline.spans if s.kind == "agent" and s.lane != MAIN]
    assert len(streams) >= 2
    assert any(_overlap(a, b) for i, a in enumerate(streams) for b in streams[i + 1:])


def test_a_session_with_parallel_sub_agents_overlaps() -> None:
    fam = next(f for f in FAMILIES if f[0].name == "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
    (run,) = _runs_of(fam)
    calls = [s for s in run.timeline.spans if s.kind == "tool" and s.name == "Agent"]
    assert any(_overlap(a, b) for i, a in enumerate(calls) for b in calls[i + 1:])
    main = run.timeline.track(MAIN)
    assert main is not None and main.rows >= 2  # overlapping calls take rows of their own


def test_lost_blocks_under_a_lossy_strategy_are_marks_on_their_lane() -> None:
    data = (SEEDS / "index-bug.ndjson").read_bytes()
    (lossy,) = export.runs(data, "index")
    (kept,) = export.runs(data, "lineage")
    lost = [m for m in lossy.timeline.marks if m.kind == "lost"]
    assert lost and not [m for m in kept.timeline.marks if m.kind == "lost"]
    assert all(m.seq is None and m.line >= 1 for m in lost)


def test_errors_are_marks() -> None:
    data = b'{"type":"system","subtype":"init","session_id":"s"}\n{not json\n'
    (run,) = export.runs(data)
    errors = [m for m in run.timeline.marks if m.kind == "error"]
    assert [m.line for m in errors] == [2]


def test_figures_add_up() -> None:
    fam = next(f for f in FAMILIES if f[0].name == "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
    (fig,) = export.figures(_runs_of(fam))
    assert fig["unit"] == "s" and fig["axis"] == "time"
    run = fig["run"]
    assert run["agents"] == 2 and run["tool_calls"] == 71
    for lane in fig["lanes"]:
        assert lane["tools"] + lane["model_wait"] + lane["idle"] >= lane["wall"] - 0.01
        assert lane["idle"] >= 0 and lane["tools"] <= lane["wall"] + 0.01
        assert 0 <= lane["longest_idle"] <= lane["idle"] + 0.01
    assert fig["lanes"][0]["longest_idle"] > 60  # main waited on its user for minutes at a time
    assert run["by_tool"][0]["tool"] == "Agent"  # the sub-agents are where the time went
    assert sum(lane["tokens"]["output_tokens"] for lane in fig["lanes"]) == run["tokens"]["output_tokens"]
    assert run["wall"] == pytest.approx(fig["lanes"][0]["wall"], abs=0.01)
    assert 0 < run["tools"] <= run["wall"]  # calls in parallel count once


def test_stream_json_figures_are_in_lines_with_the_reported_durations_beside() -> None:
    (fig,) = export.figures(export.runs((SEEDS / "interleaved-subagents.ndjson").read_bytes()))
    assert fig["unit"] == "lines" and fig["axis_words"] == "input line order"
    assert fig["lanes"][0]["reported_ms"] == 1234


# -- the exports ----------------------------------------------------------------------------

def _chrome_rules(doc: dict[str, Any]) -> None:
    """The rules every viewer needs: threads named; ts an integer, never 0 (the DevTools engine
    leaves such events out of the trace's bounds); per thread (in time order, as viewers sort
    them) events nest or follow, never cross; and a tool call nests in nothing but its agent
    span (two calls on one thread would read as parent and child)."""
    events = doc["traceEvents"]
    named = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    procs = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    by_thread: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for e in events:
        if e["ph"] == "M":
            continue
        key = (e["pid"], e["tid"])
        assert key in named and e["pid"] in procs, e  # every thread named
        assert isinstance(e["ts"], int) and e["ts"] > 0, e
        if e["ph"] == "X":
            assert {"ts", "dur", "pid", "tid", "name"} <= e.keys() and e["dur"] >= 0
            by_thread.setdefault(key, []).append(e)
        else:
            assert e["ph"] == "i" and e["s"] in "tpg"
    for got in by_thread.values():
        stack: list[dict[str, Any]] = []
        for e in sorted(got, key=lambda e: (e["ts"], -e["dur"], e["cat"] != "agent")):
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
                stack.pop()
            if stack:
                outer = stack[-1]
                assert e["ts"] + e["dur"] <= outer["ts"] + outer["dur"], (outer, e)  # nested or after, never across
                assert outer["cat"] == "agent" or (outer["dur"] == 0 or e["dur"] == 0), (outer, e)  # siblings apart
            stack.append(e)


INPUTS = [pytest.param(f, id=session_rel(f[0])) for f in FAMILIES]


@pytest.mark.parametrize("family", INPUTS)
def test_chrome_trace_keeps_the_format_rules(family: list[Path]) -> None:
    out = export.chrome_trace(_runs_of(family))
    doc = json.loads(out)
    _chrome_rules(doc)
    x = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert {e["cat"] for e in x} <= {"agent", "tool", "model"} and any(e["cat"] == "agent" for e in x)


@pytest.mark.parametrize("name", ["interleaved-subagents.ndjson", "index-bug.ndjson", "fleet-parallel.sse"])
def test_chrome_trace_of_untimed_input(name: str) -> None:
    doc = json.loads(export.chrome_trace(export.runs((SEEDS / name).read_bytes(), "index")))
    _chrome_rules(doc)
    assert "input line" in doc["otherData"]["untimed_unit"]


def _parse_otlp(out: bytes) -> Any:
    trace_service_pb2 = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    json_format = pytest.importorskip("google.protobuf.json_format")
    doc = json.loads(out)
    # OTLP/JSON writes ids as hex (the spec's one departure from protobuf's JSON mapping, which
    # wants base64): turn them back as a collector does, then parse with the reference schema.
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for sp in ss["spans"]:
                for k in ("traceId", "spanId", "parentSpanId"):
                    if k in sp:
                        sp[k] = base64.b64encode(bytes.fromhex(sp[k])).decode()
    return json_format.Parse(json.dumps(doc), trace_service_pb2.ExportTraceServiceRequest())


@pytest.mark.parametrize("family", INPUTS)
def test_otlp_parses_as_an_export_trace_service_request(family: list[Path]) -> None:
    all_runs = _runs_of(family)
    out = export.otlp(all_runs)
    assert out == export.otlp(_runs_of(family))  # ids from the input: the same bytes every time
    req = _parse_otlp(out)
    assert len(req.resource_spans) == len(all_runs)
    for rs, run in zip(req.resource_spans, all_runs, strict=True):
        got = list(rs.scope_spans[0].spans)
        assert len(got) == len(run.timeline.spans) + len(run.timeline.calls)
        ids = {s.span_id for s in got}
        assert len(ids) == len(got) and all(len(s.span_id) == 8 and len(s.trace_id) == 16 for s in got)
        assert len({s.trace_id for s in got}) == 1  # one trace per session
        roots = [s for s in got if not s.parent_span_id]
        assert len(roots) == 1 and roots[0].name == "invoke_agent main agent"
        assert all(s.parent_span_id in ids for s in got if s.parent_span_id)
        for s in got:
            attrs = {a.key: a.value for a in s.attributes}
            op = attrs["gen_ai.operation.name"].string_value
            assert op in ("invoke_agent", "execute_tool", "chat")
            if op == "execute_tool":
                assert attrs["gen_ai.tool.name"].string_value
            assert s.end_time_unix_nano >= s.start_time_unix_nano


@pytest.mark.parametrize("path", sweep(REAL_FILES, ids=lambda p: p.name))
def test_every_stream_json_capture_exports_and_has_figures(path: Path) -> None:
    all_runs = export.runs(path.read_bytes())
    _chrome_rules(json.loads(export.chrome_trace(all_runs)))
    req = _parse_otlp(export.otlp(all_runs))
    assert sum(len(rs.scope_spans[0].spans) for rs in req.resource_spans) == sum(
        len(r.timeline.spans) + len(r.timeline.calls) for r in all_runs)
    for fig in export.figures(all_runs):
        assert fig["run"]["wall"] >= fig["run"]["tools"] >= 0
        assert all(lane["idle"] >= 0 for lane in fig["lanes"])


def test_otlp_agent_span_is_a_child_of_its_spawning_call_with_genai_attributes() -> None:
    fam = next(f for f in FAMILIES if f[0].name == "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
    req = _parse_otlp(export.otlp(_runs_of(fam)))
    got = list(req.resource_spans[0].scope_spans[0].spans)
    by_id = {s.span_id: s for s in got}
    agents = [s for s in got if s.name.startswith("invoke_agent") and s.parent_span_id]
    assert len(agents) == 2
    for a in agents:
        parent = by_id[a.parent_span_id]
        assert parent.name == "execute_tool Agent"
        assert parent.start_time_unix_nano == a.start_time_unix_nano
        attrs = {x.key: x.value for x in a.attributes}
        assert attrs["gen_ai.request.model"].string_value.startswith("claude")
        assert attrs["relayscope.usage.output_tokens"].int_value > 0  # the lane's sum: not gen_ai (counted twice)
        calls = [s for s in got if s.parent_span_id == a.span_id and s.name.startswith("chat")]
        assert calls and all({x.key for x in c.attributes} >= {"gen_ai.usage.input_tokens", "llm.token_count.total"}
                             for c in calls)


def test_the_exports_do_not_depend_on_a_last_newline_or_the_folder_names() -> None:
    # the page holds a folder's files as lines and names them by their relative path
    fam = next(f for f in FAMILIES if f[0].name == "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
    as_cli = {str(p): p.read_bytes() for p in fam}
    as_page = {"x/" + p.name if p == fam[0] else f"x/{fam[0].stem}/subagents/{p.name}": p.read_bytes().rstrip(b"\n")
               for p in fam}
    for fmt in export.FORMATS:
        assert export.export(export.runs(as_cli), fmt) == export.export(export.runs(as_page), fmt)


def test_otlp_of_another_input_has_other_ids() -> None:
    # the seeds share a session id and a first line (hand-written): two real captures do not
    one, two = sorted(REAL_FILES)[:2]
    a = json.loads(export.otlp(export.runs(one.read_bytes())))
    b = json.loads(export.otlp(export.runs(two.read_bytes())))
    ta = a["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    tb = b["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    assert ta != tb


# -- the command line -----------------------------------------------------------------------

def test_cli_export_writes_what_the_core_writes(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    fam = next(f for f in FAMILIES if f[0].name == "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
    for fmt in export.FORMATS:
        assert cli.main(["export", "--format", fmt, *map(str, fam)]) == 0
        out = capsysbinary.readouterr().out
        assert out == export.export(export.runs({str(p): p.read_bytes() for p in fam}), fmt)
    src = SEEDS / "interleaved-subagents.ndjson"
    assert cli.main(["export", "--format", "chrome-trace", str(src)]) == 0
    assert capsysbinary.readouterr().out == export.chrome_trace(export.runs(src.read_bytes()))


def test_cli_stats(capsys: pytest.CaptureFixture[str]) -> None:
    src = SEEDS / "interleaved-subagents.ndjson"
    assert cli.main(["stats", str(src)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("axis: input line order · session sess-demo-1")
    assert "\n  Explore: Search for usages: wall 6 lines" in text and "main agent: wall 9 lines" in text
    assert " · 2 sub-agents\n" in text  # counted in words, not "2 sub-agent(s)"
    assert cli.main(["stats", "--json", str(src)]) == 0
    (fig,) = json.loads(capsys.readouterr().out)
    assert fig["run"]["agents"] == 2 and fig["lanes"][0]["lane"] == MAIN


def test_cli_export_says_bad_lines_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"type":"system","subtype":"init","session_id":"s"}\n{not json\n')
    assert cli.main(["export", "--format", "otlp", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:2:" in err


def test_build_steps_yields_a_slice_at_a_time_and_gives_what_build_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spans.timeline, "SLICE_RELAYS", 50)  # the page's worker answers the reader between slices
    fam = next(f for f in FAMILIES if f[0].name == "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
    (run,) = _runs_of(fam)
    steps = spans.build_steps(run.relays, run.stamps)
    slices = 0
    while True:
        try:
            next(steps)
            slices += 1
        except StopIteration as done:
            tl = done.value
            break
    assert slices >= len(run.relays) // 50
    assert tl.spans == run.timeline.spans and tl.marks == run.timeline.marks


def test_a_model_call_carries_its_usage_and_else_its_lanes_model() -> None:
    """Each model call is made once its usage is known: the model and tokens the usage reports;
    a usage that names no model, or none at all (the run ends first), the model its lane ran."""
    from relayscope import relay as R

    def text(seq: int, mid: str) -> R.TextDelta:
        return R.TextDelta(seq=seq, line=seq + 1, lane=MAIN, text="x", message_id=mid, block_index=0)

    def usage(seq: int, mid: str, model: str | None, tokens: int) -> R.Usage:
        return R.Usage(seq=seq, line=seq + 1, lane=MAIN, message_id=mid, model=model, input_tokens=tokens,
                       output_tokens=tokens + 1)

    relays = [R.SessionMeta(seq=0, line=1, lane=MAIN, session_id="s", model="lane-model", tools=[]),
              text(1, "a"), usage(2, "a", None, 10),
              R.UserMessage(seq=3, line=4, lane=MAIN, text="go on"),
              text(4, "b"), usage(5, "b", "usage-model", 20),
              R.UserMessage(seq=6, line=7, lane=MAIN, text="and on"),
              text(7, "c")]
    tl = spans.build(relays, lambda file, line: None)
    calls = {c.message_id: c for c in tl.calls}
    assert (calls["a"].model, calls["a"].input_tokens, calls["a"].output_tokens, calls["a"].usage) == (
        "lane-model", 10, 11, True)
    assert (calls["b"].model, calls["b"].input_tokens, calls["b"].output_tokens, calls["b"].usage) == (
        "usage-model", 20, 21, True)
    assert (calls["c"].model, calls["c"].input_tokens, calls["c"].usage) == ("lane-model", 0, False)
    assert [m.text for m in tl.marks if m.kind == "model"] == ["lane-model", "usage-model", "lane-model"]
