"""wire: one line -> one frame, never an exception; the gotchas of seeds/003."""

from __future__ import annotations

import msgspec
import pytest
from msgspec import UNSET, Raw

from relayscope import relay as R
from relayscope.analysis import analyze
from relayscope.present import summary
from relayscope.translator import Translator
from relayscope.wire import Block, decode_line, tool_result_content, tool_result_text, unwrap_result


@pytest.mark.parametrize("text", ["", "   ", "\t\r\n", b"", b"\r\n"])
def test_blank_lines(text: str | bytes) -> None:
    assert decode_line(text, 7).kind == "blank"


@pytest.mark.parametrize("text", ['\ufeff{"type":"result"}\r\n', b'\xef\xbb\xbf{"type":"result"}\r\n'])
def test_bom_and_crlf_are_stripped(text: str | bytes) -> None:
    frame = decode_line(text, 1)
    assert frame.kind == "event" and frame.event is not None and frame.event.type == "result"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", "not valid JSON"),
        ('{"type": "assistant"', "not valid JSON"),
        ("[1, 2]", "not a JSON object (a array)"),
        ('"a string"', "not a JSON object (a string)"),
        ("42", "not a JSON object (a number)"),
        ("null", "not a JSON object (a null)"),
        (b"\xff\xfe{}", "not valid JSON"),
    ],
)
def test_bad_lines_become_errors_with_a_reason(text: str | bytes, reason: str) -> None:
    frame = decode_line(text, 3)
    assert frame.kind == "error" and frame.line == 3
    assert frame.error is not None and frame.error.startswith(reason)


def test_fields_present_with_null_are_accepted() -> None:
    frame = decode_line(
        '{"type":"assistant","message":{"id":null,"content":[{"type":"text","text":null}],"usage":null},'
        '"parent_tool_use_id":null,"session_id":null}', 1)
    assert frame.kind == "event" and frame.note is None
    assert frame.event is not None and frame.event.parent_tool_use_id is None


def test_absent_parent_differs_from_null() -> None:
    event = decode_line('{"type":"assistant"}', 1).event
    assert event is not None and event.parent_tool_use_id is UNSET


def test_odd_but_valid_lines_are_salvaged_not_lost() -> None:
    frame = decode_line('{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":5},'
                        '{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}', 9)
    assert frame.kind == "event" and frame.note and "$.message.content[0].text" in frame.note
    relays = Translator().feed(frame)
    # the wrong-typed field is reported, the rest of the line kept
    assert [r.type for r in relays if r.type != "lane_start"] == ["warning", "text_delta", "tool_use"]
    assert "$.message.content[0].text" in relays[1].message  # type: ignore[attr-defined]


def test_unknown_event_types_pass_through_whole() -> None:
    line = '{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"},"uuid":"u"}'
    (relay,) = Translator("index").feed_line(line)
    assert isinstance(relay, R.Passthrough) and relay.event_type == "rate_limit_event"
    assert bytes(relay.data) == line.encode()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'"\\"The actual text here\\""', "The actual text here"),  # double-encoded
        (b'"plain text"', "plain text"),
        (b'"\\"not closed"', '"not closed'),  # inner parse fails: keep the outer string
        (b'"[1, 2]"', "[1, 2]"),  # inner value not a string: keep the outer string
        (b'"\\"a\\" and \\"b\\""', '"a" and "b"'),  # looks quoted but is not one JSON string
        (b"null", None),
        (b"", None),
        (b'{"k": 1}', '{"k": 1}'),  # not a string at all: its JSON text
    ],
)
def test_result_unwrapping(raw: bytes, expected: str | None) -> None:
    assert unwrap_result(Raw(raw)) == expected


def content_of(raw: bytes) -> tuple[str, list[str]]:
    block = msgspec.json.decode(b'{"type":"tool_result","content":' + raw + b"}", type=Block)
    as_json, _ = tool_result_content(block.content)
    assert msgspec.json.decode(as_json) == tool_result_text(block.content)[0]
    return tool_result_text(block.content)


def test_tool_result_content_shapes() -> None:
    assert content_of(b'"s"') == ("s", [])
    assert content_of(b"null") == ("", [])
    assert tool_result_text(Block().content) == ("", [])
    text, others = content_of(
        b'[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png",'
        b'"data":"QUJD"}},{"type":"tool_reference","tool_name":"Read"},{"type":"text","text":"b"}]')
    assert text == "a\n[image: image/png, 4 base64 chars]\n[tool_reference: Read]\nb"
    assert others == ["image", "tool_reference"]


def test_image_results_are_summarised_in_the_relay() -> None:
    line = ('{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":'
            '[{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"xx"}}]}]}}')
    (relay,) = [r for r in Translator().feed_line(line) if isinstance(r, R.ToolResult)]
    assert relay.text.startswith("[image: image/jpeg") and relay.attachments == ("image",)


def test_a_final_line_without_newline_is_read() -> None:
    a = analyze('{"type":"system","subtype":"init","session_id":"s"}\n{"type":"result","subtype":"success"}')
    assert [r.type for r in a.relays][-1] == "turn_complete" and a.lines == 2


def test_every_line_kind_in_one_stream_keeps_its_number() -> None:
    text = '\n'.join(['{"type":"system","subtype":"init"}', "", "oops", '{"type":"new_thing"}', "[]"])
    a = analyze(text, "fingerprint")
    assert [(s.line, s.decision) for s in a.trace] == [(1, "emit"), (2, "ignore"), (3, "error"), (4, "emit"),
                                                      (5, "error")]
    assert [line for line, _ in a.errors] == [3, 5]


# PROTOCOL.md section 5: newer CLI versions add fields to init and result lines; none is lost.

INIT_2_1_259 = (
    '\ufeff{"type":"system","subtype":"init","cwd":"C:\\\\repo","session_id":"s1","tools":["Task"],'
    '"model":"claude-opus-4-5","claude_code_version":"2.1.259","permissionMode":"default",'
    '"plugin_errors":[],"memory_paths":{"user":"~/.claude/CLAUDE.md"},"capabilities":["x"],'
    '"messaging_socket_path":null,"uuid":"u1","_t":17}'
)
RESULT_2_1_259 = (
    '{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"num_turns":2,"result":"done",'
    '"session_id":"s1","total_cost_usd":0.5,"usage":{"input_tokens":3},"subagent_stats":{"count":1},'
    '"terminal_reason":"completed","ttft_ms":812,"queued_turn_count":0,"uuid":"u2"}'
)


def test_init_fields_without_a_field_of_their_own_ride_in_extra() -> None:
    t = Translator("lineage")
    meta = next(r for r in t.feed_line(INIT_2_1_259) if isinstance(r, R.SessionMeta))
    assert (meta.session_id, meta.model, meta.version, meta.cwd) == ("s1", "claude-opus-4-5", "2.1.259", "C:\\repo")
    assert meta.extra == {"permissionMode": "default", "plugin_errors": [], "memory_paths": {"user": "~/.claude/CLAUDE.md"},
                          "capabilities": ["x"], "messaging_socket_path": None, "uuid": "u1", "_t": 17}
    assert b'"extra":{"permissionMode"' in msgspec.json.encode(meta)


def test_result_fields_without_a_field_of_their_own_ride_in_extra() -> None:
    (done,) = [r for r in Translator("lineage").feed_line(RESULT_2_1_259) if isinstance(r, R.TurnComplete)]
    assert (done.result, done.cost_usd, done.usage, done.num_turns) == ("done", 0.5, {"input_tokens": 3}, 2)
    assert done.extra == {"subagent_stats": {"count": 1}, "terminal_reason": "completed", "ttft_ms": 812,
                          "queued_turn_count": 0, "uuid": "u2"}


@pytest.mark.parametrize(
    ("line", "cost", "extra"),
    [
        ('{"type":"result","total_cost_usd":1,"cost_usd":2}', 1, {"cost_usd": 2}),  # the one not carried
        ('{"type":"result","cost_usd":2}', 2, {}),
        ('{"type":"result","usage":"odd"}', None, {"usage": "odd"}),  # not an object: as it came
        ('{"type":"result","usage":null,"is_error":true}', None, {}),
    ],
)
def test_result_extra_holds_exactly_what_no_field_carries(line: str, cost: float | None, extra: dict) -> None:
    (done,) = [r for r in Translator("index").feed_line(line) if isinstance(r, R.TurnComplete)]
    assert done.cost_usd == cost and done.extra == extra
    if not extra:
        assert b"extra" not in msgspec.json.encode(done)  # left out when there is none


def test_replayed_user_input_is_marked() -> None:
    t = Translator("lineage")
    replayed, fresh = (
        t.feed_line('{"type":"user","isReplay":true,"message":{"role":"user","content":"hi"},"parent_tool_use_id":null}')
        + t.feed_line('{"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null}')
    )[-2:]
    assert isinstance(replayed, R.UserMessage) and replayed.replay and replayed.text == "hi"
    assert isinstance(fresh, R.UserMessage) and not fresh.replay
    assert summary(replayed) == "(replayed) hi" and summary(fresh) == "hi"
    assert b"replay" not in msgspec.json.encode(fresh)


def test_forwarded_sub_agent_frames_name_their_lane_when_no_spawn_call_did() -> None:
    t = Translator("lineage")
    frame = ('{"type":"assistant","message":{"id":"m9","role":"assistant","content":[{"type":"text","text":"x"}]},'
             '"parent_tool_use_id":"call_7","subagent_type":"Explore","task_description":"Find it"}')
    start = t.feed_line(frame)[0]
    assert isinstance(start, R.LaneStart) and start.lane == "call_7"
    assert (start.agent_type, start.description, start.parent_lane, start.depth) == ("Explore", "Find it", "main", 1)
    # the spawn call's own words win when it came first
    t = Translator("lineage")
    t.feed_line('{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use",'
                '"id":"call_7","name":"Task","input":{"subagent_type":"Plan","description":"Plan it"}}]},'
                '"parent_tool_use_id":null}')
    start = next(r for r in t.feed_line(frame) if isinstance(r, R.LaneStart))
    assert (start.agent_type, start.description) == ("Plan", "Plan it")
