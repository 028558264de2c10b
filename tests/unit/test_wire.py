"""wire: one line -> one frame, never an exception; the gotchas of seeds/003."""

from __future__ import annotations

import msgspec
import pytest
from msgspec import UNSET, Raw

from relayscope import relay as R
from relayscope.analysis import analyze
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
    # the wrong-typed field is reported (issue 7), the rest of the line kept
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
