"""Hostile reproducers, one test each (core and web model), and one test per row of the reset
table (translator.py). Every relay produced is checked against docs/relay-events.md."""

from __future__ import annotations

import base64
import json
import re
import zlib
from typing import Any

import pytest
from _schema import check_relays

import relayscope.formats as formats
from relayscope import relay as R
from relayscope._bounded import Recent, RecentMap
from relayscope.analysis import Analyzer, analyze
from relayscope.audit import inventory
from relayscope.emitter import ERRORS_KEPT
from relayscope.formats.session import SessionTranslator
from relayscope.formats.sse import RESETS as SSE_RESETS
from relayscope.formats.sse import FleetTranslator
from relayscope.multifile import audit_input, audit_lines
from relayscope.translator import MAX_BLOCK_INDEX, RESETS, STRATEGIES, Translator
from relayscope.web import loading
from relayscope.web.model import SHARE_MAX_BYTES, Workspace, decode_share, encode_share
from relayscope.wire import decode_line

DEEP = "[" * 1000 + "]" * 1000


def run(lines: list[Any], strategy: str = "lineage", fmt: str = "auto") -> Analyzer:
    a = Analyzer(strategy, fmt, trace=True)
    for line in lines:
        a.feed_line(line)
    a.finish()
    check_relays(a.relays)
    return a


def kinds(a: Analyzer) -> list[str]:
    return [r.type for r in a.relays if r.type != "lane_start"]


def assistant(text: str, mid: str = "m", **extra: Any) -> str:
    return json.dumps({"type": "assistant", "message": {"id": mid, "content": [{"type": "text", "text": text}]},
                       **extra})


# --- bad text keeps its line ---------------------------------------------------------------------


def test_a_bad_byte_in_a_string_keeps_the_line_with_a_warning() -> None:
    line = b'{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"caf\xe9"}]}}'
    a = run([b'{"type":"system","subtype":"init","session_id":"s"}', line])
    warning, text = [r for r in a.relays if isinstance(r, R.Warning | R.TextDelta)]
    assert isinstance(warning, R.Warning) and warning.line == 2 and "not UTF-8" in warning.message
    assert isinstance(text, R.TextDelta) and text.text == "caf\ufffd" and text.line == 2
    assert a.warnings == [(2, warning.message)] and not a.errors


def test_a_bad_byte_outside_strings_is_repaired_too() -> None:
    """msgspec skips keys it does not know without reading them: their bytes are checked too."""
    a = run([b'{"\x80type":"rate_limit_event","type":"rate_limit_event"}'])
    assert kinds(a) == ["warning", "passthrough"]
    bytes(a.relays[-1].data).decode("utf-8")  # type: ignore[attr-defined]  # valid UTF-8 out


def test_a_line_that_is_a_bad_string_is_an_error_not_a_crash() -> None:
    a = run([b'"\x80"', assistant("next")])
    assert kinds(a) == ["error", "text_delta"] and a.errors[0][0] == 1


def test_a_lone_surrogate_keeps_its_block() -> None:
    line = '{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"cut \\ud83d"}]}}'
    for given in (line, line.encode()):
        a = run([given])
        assert kinds(a) == ["warning", "text_delta"]
        assert a.relays[-1].text == "cut \ufffd"  # type: ignore[attr-defined]
        assert "surrogate" in a.relays[-2].message  # type: ignore[attr-defined]


def test_a_valid_surrogate_pair_and_an_escaped_backslash_are_left_alone() -> None:
    frame = decode_line('{"type":"x","subtype":"\\ud83d\\ude00 \\\\ud83d"}', 1)
    assert frame.warning is None and frame.event is not None and frame.event.subtype == "\U0001f600 \\ud83d"


def test_str_holding_lone_surrogates_is_repaired() -> None:
    """What a browser may hand over: a str with an unpaired surrogate in it."""
    a = run([assistant("x\udc80y")])
    assert kinds(a) == ["warning", "text_delta"] and a.relays[-1].text == "x\ufffdy"  # type: ignore[attr-defined]


# --- wrong types are reported, never silently blanked ----------------------------------------------


def test_an_unhashable_type_in_auto_detect() -> None:
    a = run([b'{"type":{}}'])
    assert a.format == "stream-json" and kinds(a) == ["warning", "passthrough"]
    assert "$.type" in a.relays[-2].message  # type: ignore[attr-defined]


def test_a_number_where_text_belongs_is_reported() -> None:
    line = '{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":12345}]}}'
    a = run([line])
    assert kinds(a) == ["warning", "text_delta"]
    assert "$.message.content[0].text" in a.relays[-2].message  # type: ignore[attr-defined]
    assert a.warnings and a.warnings[0][0] == 1
    # a top-level line of that shape is an unknown event, passed through whole
    b = run(['{"type":"text","text":12345}'], fmt="stream-json")
    assert kinds(b) == ["passthrough"] and json.loads(bytes(b.relays[-1].data))["text"] == 12345  # type: ignore[attr-defined]


# --- deep nesting ----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_deep_nesting_anywhere_in_stream_json(strategy: str) -> None:
    lines = ['{"type":"assistant","message":{"content":' + DEEP + "}}",
             '{"type":"user","x":' + DEEP + "}", '{"type":"result","usage":' + DEEP + "}", assistant("after")]
    a = run(lines, strategy)
    assert [line for line, _ in a.errors] == [1, 2, 3] and "nested too deeply" in a.errors[0][1]
    assert a.relays[-1].type == "text_delta"


def test_deep_nesting_in_auto_detect_sse_session_and_audit() -> None:
    assert formats.sniff_line(DEEP) is None
    sse = run(["event: text", "data: " + DEEP, "", "event: text", 'data: {"delta":"ok"}', ""])
    assert sse.format == "sse" and "nested too deeply" in sse.errors[0][1] and sse.relays[-1].text == "ok"  # type: ignore[attr-defined]
    t = SessionTranslator(trace=True)
    relays = t.feed_line('{"type":"user","parentUuid":null,"isSidechain":false,"x":' + DEEP + "}") + t.finish()
    assert [r.type for r in relays if r.type != "lane_start"] == ["error"]
    assert inventory([DEEP.encode(), assistant("a").encode()])
    assert audit_lines([DEEP, assistant("a")])[0].blocks == 1


# --- stream indexes --------------------------------------------------------------------------------


def stream(event: dict[str, Any]) -> str:
    return json.dumps({"type": "stream_event", "event": event})


@pytest.mark.parametrize("index", [-1, -3, MAX_BLOCK_INDEX, 50_000_000])
def test_stream_indexes_out_of_range_are_reported_not_padded(index: int) -> None:
    t = Translator(trace=True)
    lines = [stream({"type": "message_start", "message": {"id": "m1"}}),
             stream({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": "x"}}),
             stream({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": "y"}}),
             stream({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "ok"}})]
    relays = [r for line in lines for r in t.feed_line(line)] + t.finish()
    check_relays(relays)
    assert [r.type for r in relays if r.type != "lane_start"] == ["warning", "warning", "text_delta"]
    assert all(len(m.blocks) <= 1 for m in t.strategy.msgs.values())  # type: ignore[attr-defined]


# --- the audit on wrong types ----------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    {"type": "stream_event", "event": {"type": "message_start", "message": "a string"}},
    {"type": "assistant", "message": {"id": "m", "content": [{"type": "tool_use", "id": ["a", "list"], "name": "X"}]}},
    {"type": "assistant", "message": {"id": {"an": "object"}, "content": [{"type": "text", "text": "t"}]}},
    {"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": ["a", "list"]}},
    {"type": "stream_event", "parent_tool_use_id": {"x": 1}, "event": {"type": "message_start"}},
    {"type": "stream_event", "event": {"type": "content_block_start", "index": [0], "content_block": "x"}},
])
def test_audit_survives_wrong_types(line: dict[str, Any]) -> None:
    lines = [stream({"type": "message_start", "message": {"id": "m0"}}), json.dumps(line), assistant("after")]
    for a in audit_lines(lines):
        assert a.unmatched == 0 or a.strategy != "lineage"
    assert audit_input("\n".join(lines))[0].audits


# --- Arbiter SSE -----------------------------------------------------------------------------------


def sse(*events: tuple[str, dict[str, Any], str | None]) -> Analyzer:
    lines: list[str] = []
    for name, data, event_id in events:
        if event_id is not None:
            lines.append(f"id: {event_id}")
        lines += [f"event: {name}", "data: " + json.dumps(data), ""]
    return run(lines, fmt="sse")


def test_sse_ids_that_are_not_plain_numbers() -> None:
    a = sse(("text", {"delta": "a"}, "\u00b2"), ("text", {"delta": "b"}, "9" * 5000), ("text", {"delta": "c"}, "1"))
    assert [r.text for r in a.relays if isinstance(r, R.TextDelta)] == ["a", "b"]  # "1" is a replay after 99...9
    skipped = [s for s in a.trace if s.decision == "skip"]
    assert len(skipped) == 1 and len(skipped[0].reason) < 100


def test_sse_two_requests_whose_ids_restart_both_come_out() -> None:
    request = [("request_received", {"request_id": "r", "message": "hi"}, "1"),
               ("stream_start", {"stream_id": 1, "agent": "x", "depth": 1}, "2"),
               ("text", {"stream_id": 1, "delta": "t"}, "3"),
               ("done", {"ok": True, "content": "c", "duration_ms": 5}, "4")]
    a = sse(*request, *request)
    assert [r.type for r in a.relays].count("turn_complete") == 2
    assert [r.lane for r in a.relays if isinstance(r, R.LaneStart)] == ["stream-1"] * 2
    assert not [s for s in a.trace if s.decision == "skip"]


def test_sse_message_object_is_json_and_wrong_numbers_keep_the_schema() -> None:
    a = sse(("request_received", {"request_id": "r", "message": {"a": 1}}, None),
            ("done", {"ok": True, "content": "c", "duration_ms": "slow", "input_tokens": "many"}, None))
    user = next(r for r in a.relays if isinstance(r, R.UserMessage))
    assert user.text == '{"a":1}'
    done = next(r for r in a.relays if isinstance(r, R.TurnComplete))
    assert done.duration_ms is None and done.usage is None
    warnings = [r.message for r in a.relays if isinstance(r, R.Warning)]
    assert any("message" in w for w in warnings) and any("duration_ms" in w and "input_tokens" in w for w in warnings)


def test_sse_bad_bytes_and_lone_surrogates_keep_the_event() -> None:
    a = run([b"event: text", b'data: {"delta":"caf\xe9"}', b"", b"event: text", b'data: {"delta":"\\ud83d"}', b""],
            fmt="sse")
    assert [r.text for r in a.relays if isinstance(r, R.TextDelta)] == ["caf\ufffd", "\ufffd"]
    assert len([r for r in a.relays if isinstance(r, R.Warning)]) == 2


# --- the reset table -------------------------------------------------------------------------------


def test_the_reset_table_in_the_header_is_the_table_in_code() -> None:
    import relayscope.translator as translator

    doc = translator.__doc__ or ""
    table = doc.split("The reset table", 1)[1]
    rows = {m.group(1): m.group(2).split() for m in re.finditer(r"^``([a-z/_]+)``\s{2,}((?:reset|-)\s.*)$", table, re.MULTILINE)}
    assert set(rows) == set(RESETS)
    for event, row in RESETS.items():
        cells = rows[event]
        assert (cells[0] == "reset") == row.strategy and (cells[1] == "reset") == row.lanes
        assert (cells[2] == "flushed") == row.usage
    sse_rows = {m.group(1) for m in re.finditer(r"^SSE ``([a-z_]+)``", table, re.MULTILINE)}
    assert sse_rows == set(SSE_RESETS)


KILLED_RUN = [
    json.dumps({"type": "system", "subtype": "init", "session_id": "s1"}),
    json.dumps({"type": "assistant", "message": {"id": "m1", "content": [
        {"type": "tool_use", "id": "toolu_T", "name": "Task", "input": {"description": "d", "prompt": "p"}}],
        "usage": {"input_tokens": 1, "output_tokens": 2}}}),
    json.dumps({"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "sub-agent at work"}],
                                                 "usage": {"input_tokens": 3, "output_tokens": 4}}}),
    # killed here: no tool_result, no result; the log goes on with a new run (tee -a)
]


@pytest.mark.parametrize("end", ["system/init", "result", "system/result"])
def test_reset_row_lanes_a_new_run_is_in_main(end: str) -> None:
    boundary = {"system/init": {"type": "system", "subtype": "init", "session_id": "s2"},
                "result": {"type": "result", "subtype": "success", "result": "r"},
                "system/result": {"type": "system", "subtype": "result"}}[end]
    lines = [*KILLED_RUN, json.dumps(boundary), assistant("new run, main agent", "m3")]
    a = run(lines)
    sub = next(r for r in a.relays if isinstance(r, R.TextDelta) and r.text == "sub-agent at work")
    assert sub.lane == "toolu_T"  # inferred into the open call, as before the boundary
    new = a.relays[-1]
    assert isinstance(new, R.TextDelta) and new.lane == "main"
    # usage row: flushed at the boundary, so the dead run's usage is written there
    usage = [r for r in a.relays if isinstance(r, R.Usage)]
    assert [(u.message_id, u.line) for u in usage][:2] == [("m1", 2), ("m2", 3)]
    assert all(u.seq < a.relays.index(new) for u in usage[:2])
    boundary_step = next(s for s in a.trace if s.line == 4)
    assert set(boundary_step.seqs) >= {u.seq for u in usage[:2]}


@pytest.mark.parametrize("end", ["system/init", "result", "system/result"])
@pytest.mark.parametrize("strategy", ["index", "fingerprint", "lineage"])
def test_reset_row_strategy_the_same_blocks_again_after_a_boundary(end: str, strategy: str) -> None:
    """After the boundary, the de-dup state is gone: the same content is a new run's, emitted."""
    boundary = {"system/init": {"type": "system", "subtype": "init", "session_id": "s"},
                "result": {"type": "result", "subtype": "success"},
                "system/result": {"type": "system", "subtype": "result"}}[end]
    lines = [assistant("hello", "m1"), json.dumps(boundary), assistant("hello", "m1")]
    a = run(lines, strategy)
    assert [r.line for r in a.relays if isinstance(r, R.TextDelta)] == [1, 3]
    assert any(s.reset == "turn_end" for s in a.trace if s.line == 2)


def test_reset_rows_sse_request_received_and_done() -> None:
    """request_received: ids restart and lanes open again. done: ids restart even when the next
    request's request_received is missing."""
    t = FleetTranslator(trace=True)
    lines = ["id: 5", "event: request_received", 'data: {"request_id":"a"}', "",
             "id: 6", "event: stream_start", 'data: {"stream_id":1,"depth":1}', "",
             "id: 7", "event: done", 'data: {"ok":true}', "",
             "id: 1", "event: stream_start", 'data: {"stream_id":1,"depth":1}', "",
             "id: 2", "event: text", 'data: {"stream_id":1,"delta":"x"}', ""]
    relays = [r for line in lines for r in t.feed_line(line)] + t.finish()
    check_relays(relays)
    assert [r.lane for r in relays if isinstance(r, R.LaneStart)] == ["stream-1", "stream-1"]
    assert relays[-1].type == "text_delta"


# --- hostile sizes ---------------------------------------------------------------------------------


def test_sniffing_reads_each_line_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    real = formats.sniff_line

    def counting(line: str | bytes) -> str | None:
        nonlocal calls
        calls += 1
        return real(line)

    monkeypatch.setattr(formats, "sniff_line", counting)
    n = 5000
    a = Analyzer()
    a.feed_text(b"\n" * n + assistant("x").encode() + b"\n")
    a.finish()
    assert a.format == "stream-json" and a.relays[-1].type == "text_delta"
    assert calls <= 2 * (n + 1)


def test_errors_are_counted_but_only_the_first_are_kept() -> None:
    t = Translator()
    relays = [r for i in range(ERRORS_KEPT + 300) for r in t.feed_line(f"garbage {i}")]
    assert len(relays) == ERRORS_KEPT + 300 + 1  # every line has its error relay (+ main's lane_start)
    assert len(t.errors) == ERRORS_KEPT and t.error_count == ERRORS_KEPT + 300
    assert t.errors[0] == (1, t.errors[0][1]) and t.internal_errors == 0


def test_session_maps_are_bounded() -> None:
    t = SessionTranslator()
    for m in (t._lane_of, t._prompts, t._spawn_seen, t._bound, t._sessions):
        m.limit = 50  # type: ignore[attr-defined]
    for i in range(300):
        record = {"type": "assistant", "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i else None,
                  "isSidechain": False, "sessionId": f"s{i}", "message": {"id": f"m{i}", "content": [
                      {"type": "tool_use", "id": f"t{i}", "name": "Task", "input": {"prompt": f"p{i}"}}]}}
        t.feed_line(json.dumps(record))
    t.finish()
    assert max(len(t._lane_of), len(t._prompts), len(t._spawn_seen), len(t._sessions)) <= 50
    assert not t._ctx.done


def test_bounded_maps_forget_their_oldest_entries_first_and_stay_in_step() -> None:
    ids: Recent[str] = Recent(limit=3)
    for key in "abcb":  # re-adding a member keeps its place
        ids.add(key)
    ids.add("d")
    assert list(ids) == ["a", "b", "c", "d"][1:]
    lanes: RecentMap[str, int] = RecentMap(limit=2)
    lanes["x"], lanes["y"], lanes["x"], lanes["z"] = 1, 2, 3, 4
    assert lanes == {"y": 2, "z": 4}
    for n in range(10_000):  # long past the limit: still the newest, in order
        ids.add(f"k{n}")
    assert list(ids) == ["k9997", "k9998", "k9999"] and list(ids._order) == list(ids)
    ids.clear()
    ids.add("again")
    assert list(ids) == ["again"] and list(ids._order) == ["again"]


def test_lineage_forgets_messages_past_its_window_oldest_first() -> None:
    t = Translator("lineage")
    window = t.strategy.WINDOW  # type: ignore[attr-defined]
    for n in range(window + 10):
        t.feed_line(assistant(f"block {n}", mid=f"m{n}"))
    msgs = t.strategy.msgs  # type: ignore[attr-defined]
    assert len(msgs) == window and next(iter(msgs)) == ("main", "m10")
    assert [r.type for r in t.feed_line(assistant("block 9", mid="m9"))] == ["text_delta"]  # forgotten
    assert t.feed_line(assistant(f"block {window + 9}", mid=f"m{window + 9}")) == []  # remembered


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_untraced_translation_keeps_nothing_per_line_in_its_scratch_step(strategy: str) -> None:
    """Without a trace one scratch step is reused; appending to its reason made ``index`` quadratic
    in the length of a turn (20,000 events: 12 s)."""
    t = Translator(strategy)
    for n in range(2000):
        t.feed_line(assistant(f"block {n}", mid=f"m{n}"))
    scratch = t._scratch
    assert len(scratch.reason) < 200 and not scratch.seqs and not scratch.blocks and not t.trace


def test_a_share_link_that_unpacks_too_far_is_refused_in_words() -> None:
    payload = json.dumps({"state": {}, "text": "a" * (SHARE_MAX_BYTES + 10)}).encode()
    packed = base64.urlsafe_b64encode(zlib.compress(payload, 9)).rstrip(b"=").decode()
    assert len(packed) < 100_000  # a link short enough to share
    with pytest.raises(ValueError, match="would unpack to more than 32 MB"):
        decode_share("v1." + packed)


def test_a_share_link_cut_short_says_so() -> None:
    fragment = encode_share("x" * 5000 + "".join(map(str, range(3000))), {})
    assert fragment is not None
    with pytest.raises(ValueError, match="damaged"):
        decode_share(fragment[: len(fragment) // 2])


def test_an_audit_that_fails_keeps_the_translation(monkeypatch: pytest.MonkeyPatch) -> None:
    ws = Workspace()
    for _ in ws.load(assistant("kept") + "\n"):
        pass
    relays = list(ws.relays)

    def broken(*args: Any, **kwargs: Any) -> Any:
        yield 0.5
        raise RuntimeError("boom")

    monkeypatch.setattr(loading, "audit_steps", broken)
    for _ in ws.run_audit():
        pass
    assert ws.relays == relays and ws.audit is None
    assert ws.audit_error is not None and "boom" in ws.audit_error and "translation" in ws.audit_error


def test_any_line_that_once_failed_by_chance() -> None:
    """The lines the randomized test_any_line_at_all_is_survived found (now deterministic)."""
    for line in (b"\x80", b'"\x80"', b'{"a":"\xe9"}', "\udc80", '{"a":"\\ud800"}', b"\xef\xbb\xbf\xff",
                 b'{"type": ["0\\u001f\\ud800\x80\\udc00"]}'):  # make fuzz: a bad byte among lone surrogates
        for name in STRATEGIES:
            t = Translator(name, trace=True)
            relays = t.feed_line(line) + t.finish()
            check_relays(relays)
            assert [s.line for s in t.trace] == [1]
    assert analyze(b"\xff\xfe\n").relays
