"""Redaction of streamed fields (``redact_stream``): a secret a model streams a few characters a
delta is redacted over the field's whole text, whatever lines come between its pieces and however
long the field is, and the pieces still join into the redacted whole. Each shape a stream takes
gets its test: a text, thinking and tool-input delta (``input_json_delta``), a sub-agent's record
between two pieces, a field longer than the settle window, an Arbiter SSE stream's ``text`` events
and a relay export's partial deltas; and the memory bound (a forced cut) leaves no secret. The
command line redacts a file's lines a batch ahead and a pipe's as they come, with the same lines."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from relayscope.multifile import translate_files
from relayscope.redact import Redactor
from relayscope.redact_stream import WINDOW

KEY = "sk-ant-api03-" + "Zq7_xW2-" * 11 + "AA"  # an Anthropic key's shape, 103 characters
AWS = "AKIAQ3EGRZ7XKWLM5TN4"
SECRETS = (KEY, AWS, "jane.doe@acme-corp.io", "janedoe")
NUMBER = re.compile(r":[0-9]+\]")


def stream(event: dict[str, Any], lane: str | None = None) -> str:
    return json.dumps({"type": "stream_event", "event": event, "parent_tool_use_id": lane, "session_id": "s"})


def delta(text: str, index: int = 0, kind: str = "text_delta", lane: str | None = None) -> str:
    name = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}[kind]
    return stream({"type": "content_block_delta", "index": index, "delta": {"type": kind, name: text}}, lane)


def stop(index: int = 0, lane: str | None = None) -> str:
    return stream({"type": "content_block_stop", "index": index}, lane)


def sub_agent_record(n: int) -> str:
    return json.dumps({"type": "assistant", "parent_tool_use_id": "toolu_01Sub", "session_id": "s",
                       "message": {"id": f"msg_sub{n}", "content": [{"type": "text", "text": f"sub-agent {n}"}]}})


def cut(text: str, rng: random.Random, pieces: int) -> list[str]:
    points = sorted(rng.sample(range(1, len(text)), min(pieces - 1, len(text) - 1)))
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def pieces_of(lines: list[str], name: str = "text") -> str:
    """The streamed field's text: its pieces joined."""
    out = []
    for line in lines:
        obj = json.loads(line)
        if obj.get("type") == "stream_event" and obj["event"]["type"] == "content_block_delta":
            out.append(obj["event"]["delta"][name])
    return "".join(out)


def whole(text: str) -> str:
    """The text redacted as one string (what the final message carries)."""
    return json.loads(Redactor().line(json.dumps({"text": text})))["text"]


def left(output: str) -> list[str]:
    return [s for s in SECRETS if s in output]


TEXT = f"Found {KEY} and {AWS}; mail jane.doe@acme-corp.io, see /Users/janedoe/app."


@pytest.mark.parametrize("kind", ["text_delta", "thinking_delta"])
def test_a_secret_cut_into_deltas_is_redacted_and_the_pieces_join_into_the_whole(kind: str) -> None:
    rng = random.Random(5)
    name = "text" if kind == "text_delta" else "thinking"
    for _ in range(40):
        lines = [delta(p, kind=kind) for p in cut(TEXT, rng, rng.randint(2, 30))] + [stop()]
        out = Redactor().lines(lines)
        assert left("\n".join(out)) == [] and len(out) == len(lines)
        assert pieces_of(out, name) == whole(TEXT)


def test_a_tool_input_streamed_as_json_fragments_is_redacted_in_the_relay_the_export_and_the_pieces() -> None:
    tool_input = json.dumps({"command": f"curl -H 'x-api-key: {KEY}' https://api.anthropic.com", "path": "/Users/janedoe/x"})
    rng = random.Random(7)
    head = [json.dumps({"type": "system", "subtype": "init", "session_id": "s"}),
            stream({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}}),
            stream({"type": "content_block_start", "index": 0,
                    "content_block": {"type": "tool_use", "id": "toolu_01A", "name": "Bash", "input": {}}})]
    for _ in range(20):
        lines = head + [delta(p, kind="input_json_delta") for p in cut(tool_input, rng, rng.randint(2, 25))]
        lines += [stop(), stream({"type": "message_stop"})]
        out = Redactor().lines(lines)
        assert left("\n".join(out)) == []
        joined = pieces_of(out, "partial_json")
        assert json.loads(joined)["path"] == "/Users/[redacted:user:1]/x"  # the pieces join into JSON still
        relays = translate_files({"run.jsonl": "\n".join(out).encode()})[0].relays
        tool = next(r for r in relays if r.type == "tool_use")
        assert left(bytes(tool.input).decode()) == [] and "[redacted:anthropic-key:1]" in bytes(tool.input).decode()


def test_a_sub_agents_records_between_two_pieces_do_not_split_the_field() -> None:
    rng = random.Random(11)
    for _ in range(40):
        lines: list[str] = []
        for n, piece in enumerate(cut(TEXT, rng, rng.randint(2, 20))):
            lines.append(delta(piece))
            lines += [sub_agent_record(n)] * rng.randint(0, 3)
        lines.append(stop())
        out = Redactor().lines(lines)
        assert left("\n".join(out)) == []
        assert [json.loads(a)["type"] for a in out] == [json.loads(b)["type"] for b in lines]  # nothing reordered
        assert pieces_of(out) == whole(TEXT)


def test_two_blocks_of_two_lanes_streamed_at_once_are_each_redacted_whole() -> None:
    rng = random.Random(13)
    a, b = cut(TEXT, rng, 12), cut(TEXT.replace("janedoe", "jdoe42"), rng, 9)
    lines = []
    while a or b:
        if a and (not b or rng.random() < 0.5):
            lines.append(delta(a.pop(0), lane=None))
        else:
            lines.append(delta(b.pop(0), lane="toolu_01Sub"))
    lines += [stop(lane=None), stop(lane="toolu_01Sub")]
    out = Redactor().lines(lines)
    assert left("\n".join(out)) == [] and "jdoe42" not in "\n".join(out)


def test_a_field_longer_than_the_window_is_redacted_whole_across_every_piece() -> None:
    """Secrets near the start, cut across a piece boundary far past the window, and at the end."""
    filler = "lorem ipsum dolor sit amet " * (3 * WINDOW // 27)
    text = f"{KEY} {filler}{AWS} {filler} mail jane.doe@acme-corp.io {filler}{KEY}"
    rng = random.Random(17)
    for _ in range(10):
        lines = [delta(p) for p in cut(text, rng, rng.randint(50, 400))] + [stop()]
        out = Redactor().lines(lines)
        assert left("\n".join(out)) == [] and pieces_of(out) == whole(text)
    # a piece is written once the window is settled, not held to the field's end
    lines = [delta(p) for p in cut(text, rng, 300)]
    r = Redactor()
    ready = [line for raw in lines for line in r.feed(raw)]
    assert 0 < len(ready) < len(lines)


def test_a_key_whose_run_goes_on_past_the_window_is_held_until_it_ends() -> None:
    text = "token: sk-ant-api03-" + "x" * (5 * WINDOW) + " done"
    lines = [delta(p) for p in cut(text, random.Random(19), 200)] + [stop()]
    out = Redactor().lines(lines)
    assert pieces_of(out) == "token: [redacted:anthropic-key:1] done"


def test_arbiter_text_events_are_redacted_across_events_and_streams() -> None:
    rng = random.Random(23)
    a, b = cut(TEXT, rng, 15), cut(TEXT, rng, 11)
    lines = ["event: request_received", 'data: {"request_id":"r1","agent":"lead"}', ""]
    while a or b:
        sid = 0 if (a and (not b or rng.random() < 0.5)) else 1
        text = (a if sid == 0 else b).pop(0)
        lines += ["event: text", "data: " + json.dumps({"stream_id": sid, "agent": "x", "delta": text}), ""]
    lines += ["event: stream_end", 'data: {"stream_id":1,"ok":true}', "", "event: done", 'data: {"ok":true}', ""]
    out = Redactor().lines(lines)
    assert left("\n".join(out)) == [] and len(out) == len(lines)
    for sid in (0, 1):
        joined = "".join(json.loads(line[6:])["delta"] for line in out
                         if line.startswith("data: ") and '"delta"' in line and json.loads(line[6:])["stream_id"] == sid)
        assert NUMBER.sub(":#]", joined) == NUMBER.sub(":#]", whole(TEXT))


def test_a_relay_exports_partial_deltas_are_redacted_whole() -> None:
    rng = random.Random(29)
    lines = [json.dumps({"type": "text_delta", "seq": n, "line": n, "lane": "main", "text": p, "message_id": "m",
                         "block_index": 0, "partial": True}) for n, p in enumerate(cut(TEXT, rng, 20))]
    lines.append(json.dumps({"type": "turn_complete", "seq": 99, "line": 99, "lane": "main", "subtype": "success"}))
    out = Redactor().lines(lines)
    assert left("\n".join(out)) == []
    assert "".join(json.loads(line)["text"] for line in out[:-1]) == whole(TEXT)


@pytest.mark.parametrize("hold", [300, 4000, 50_000])
def test_the_memory_bound_cuts_a_field_and_leaves_no_secret(hold: int) -> None:
    """A field left open while other lines pile up past ``hold_bytes`` is cut where it stands:
    a secret running across the cut is still redacted on both sides."""
    rng = random.Random(hold)
    for _ in range(30):
        lines: list[str] = []
        for n, piece in enumerate(cut(TEXT * 3, rng, rng.randint(5, 60))):
            lines.append(delta(piece))
            lines += [sub_agent_record(n)] * rng.randint(0, 6)
        lines.append(stop())
        r = Redactor(hold_bytes=hold)
        held = 0
        out: list[str] = []
        for raw in lines:
            out += r.feed(raw)
            held = max(held, sum(len(x) for x in lines[:lines.index(raw) + 1]) - sum(len(x) for x in out))
        out += r.flush()
        assert left("\n".join(out)) == [] and len(out) == len(lines)
        assert held <= hold + 2 * max(len(x) for x in lines)  # never much more than the bound held


def test_the_same_secret_in_a_stream_and_its_final_message_gets_the_same_placeholder() -> None:
    lines = [delta(p) for p in cut(TEXT, random.Random(31), 9)] + [stop()]
    lines.append(json.dumps({"type": "assistant", "session_id": "s",
                             "message": {"id": "m", "content": [{"type": "text", "text": TEXT}]}}))
    out = Redactor().lines(lines)
    assert json.loads(out[-1])["message"]["content"][0]["text"] == pieces_of(out)  # numbers and all
    assert Redactor().lines(out) == out  # nothing more to redact


def _lines_with_secrets(count: int) -> list[bytes]:
    rng = random.Random(7)
    out = [delta(p).encode() + b"\n" for p in cut(f"the key {KEY} and {AWS} ", rng, 9)] + [stop().encode() + b"\n"]
    out += [json.dumps({"type": "user", "n": n, "cwd": f"/Users/janedoe/app{n}", "to": "jane.doe@acme-corp.io"}).encode()
            + b"\n" for n in range(count)]
    return out


def test_a_file_redacted_a_batch_ahead_gives_the_lines_a_line_at_a_time_gives() -> None:
    from relayscope.cli.redacting import REDACT_AHEAD, _redacted

    lines = _lines_with_secrets(REDACT_AHEAD // 60)  # several batches
    alone = list(_redacted(Redactor(), iter(lines), live=True))
    assert list(_redacted(Redactor(), iter(lines), live=False)) == alone
    assert len(alone) == len(lines) and not any(s.encode() in b"".join(alone) for s in SECRETS)


def test_a_pipes_lines_are_redacted_as_they_come_and_a_files_a_batch_ahead() -> None:
    from relayscope.cli.redacting import REDACT_AHEAD, _redacted

    lines = _lines_with_secrets(REDACT_AHEAD // 60)
    read = 0

    def source() -> Any:
        nonlocal read
        for line in lines:
            read += 1
            yield line

    piped = _redacted(Redactor(), source(), live=True)
    next(piped)  # the first line is out once the streamed block that holds it has ended (its 10 lines)
    assert read == 10
    read = 0
    ahead = _redacted(Redactor(), source(), live=False)
    next(ahead)
    assert sum(map(len, lines[:read - 1])) < REDACT_AHEAD <= sum(map(len, lines[:read]))


def test_a_read_that_fails_in_a_batch_gives_every_line_before_it_then_the_error() -> None:
    from relayscope.cli.redacting import _redacted

    lines = _lines_with_secrets(50)

    def failing() -> Any:
        yield from lines[:30]
        raise OSError(5, "Input/output error")

    got: list[bytes] = []
    with pytest.raises(OSError):
        for line in _redacted(Redactor(), failing(), live=False):
            got.append(line)
    assert got == list(_redacted(Redactor(), iter(lines[:30]), live=True))[:len(got)] and len(got) == 30
