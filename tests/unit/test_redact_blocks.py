"""A file's lines redacted a block at a time (``Redactor.feed_lines``: one gate pass over a batch of
lines, only the lines with an anchor, an escape or a streamed piece handled one by one) give the
bytes, findings and summary that the lines fed one at a time (``Redactor.feed``) give: on every
real capture, at batch sizes that put secrets at a block's edge, and on hostile shapes (a secret
at a line's start or end, split across ``\\u`` escapes, streamed in pieces, CRLF, no final newline,
an SSE stream, a relay export, a 2 MB line)."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest
from _corpus import REAL_FILES, SESSION_FILES, sweep
from hypothesis import given, settings
from hypothesis import strategies as st

from relayscope import redact
from relayscope.multifile import READERS
from relayscope.redact import Redactor, redact_bytes
from relayscope.verdict import LineCheck

KEY = "sk-ant-api03-" + "Zq7_xW2-" * 11 + "AA"
AWS = "AKIAQ3EGRZ7XKWLM5TN4"


def one_at_a_time(lines: list[bytes]) -> tuple[list[bytes], Redactor]:
    r = Redactor()
    out = [line for n, raw in enumerate(lines, 1) for line in r.feed(raw, n)]
    return out + r.flush(), r


def in_blocks(lines: list[bytes], sizes: list[int], typed: bool = False) -> tuple[list[bytes], Redactor]:
    """The lines fed in batches of ``sizes`` lines in turn (the last size for the rest); ``typed``:
    with each line's type decoded where the check finds every line of the batch good (as
    ``relayscope redact`` gives them)."""
    r = Redactor()
    check = LineCheck("stream-json", readers=READERS)
    out: list[bytes] = []
    at, i = 0, 0
    while at < len(lines):
        size = sizes[min(i, len(sizes) - 1)]
        batch = lines[at:at + size]
        out += r.feed_lines(batch, at + 1, check.types(batch) if typed else None)
        at, i = at + size, i + 1
    return out + r.flush(), r


def same(lines: list[bytes], sizes: list[int], want: tuple[list[bytes], Redactor] | None = None,
         whole: bool = True) -> list[bytes]:
    """``lines`` in blocks of ``sizes``, untyped and typed, are ``want`` (the lines one at a time,
    computed when not given); ``whole``: and the whole input at once, in blocks of about 300 bytes."""
    want_lines, r1 = one_at_a_time(lines) if want is None else want
    for typed in (False, True):
        got, r2 = in_blocks(lines, sizes, typed)
        assert got == want_lines
        assert r2.findings == r1.findings and r2.summary() == r1.summary() and r2.numbers == r1.numbers
    if whole:
        with pytest.MonkeyPatch.context() as monkeypatch:
            same_bytes(b"".join(lines), 300, monkeypatch)
    return got


def whole_at_a_time(data: bytes) -> tuple[bytes, Redactor]:
    """The input's lines fed one at a time: what ``redact_bytes`` must give."""
    r1 = Redactor()
    r1.discover(data)
    return b"\n".join(r1.lines(data.split(b"\n"))), r1


def same_bytes(data: bytes, block: int, monkeypatch: pytest.MonkeyPatch,
               want: tuple[bytes, Redactor] | None = None) -> bytes:
    """``redact_bytes`` (blocks of about ``block`` bytes) is the input's lines fed one at a time
    (``want``, computed when not given)."""
    want_bytes, r1 = whole_at_a_time(data) if want is None else want
    monkeypatch.setattr(redact, "BLOCK", block)
    r2 = Redactor()
    assert redact_bytes(data, r2) == want_bytes
    assert r2.findings == r1.findings and r2.summary() == r1.summary()
    return want_bytes


@pytest.mark.parametrize("path", sweep(REAL_FILES + SESSION_FILES, lambda p: p.name[:50]))
def test_every_capture_redacted_in_blocks_is_the_capture_redacted_a_line_at_a_time(
        path: Path | None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert path is not None
    data = path.read_bytes()
    lines = data.split(b"\n")
    lines = [line + b"\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    # Each way is compared with the one redaction a line at a time, worked out once.
    want = one_at_a_time(lines)
    same(lines, [10**9], want, whole=False)  # one block
    same(lines, [7, 1, 3], want, whole=False)  # blocks' edges everywhere
    whole = whole_at_a_time(data)  # and the whole input, in blocks of about as many bytes:
    for block in (300, 1, 5000, 1 << 30):
        same_bytes(data, block, monkeypatch, whole)


def record(text: str, **more: Any) -> bytes:
    return json.dumps({"type": "user", "cwd": "/Users/jane-doe/app", "message": {"content": text}, **more}).encode()


def stream(event: dict[str, Any]) -> bytes:
    return json.dumps({"type": "stream_event", "event": event, "parent_tool_use_id": None}).encode()


def delta(text: str) -> bytes:
    return stream({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}})


def test_a_plain_block_handles_only_its_lines_with_an_anchor_one_by_one() -> None:
    handled: list[int] = []

    class Counting(Redactor):
        def redact_line(self, raw: bytes, number: int, *args: Any, **kwargs: Any) -> bytes:
            handled.append(number)
            return super().redact_line(raw, number, *args, **kwargs)

    lines = [json.dumps({"type": "user", "t": f"line {n}, nothing to see"}).encode() + b"\n" for n in range(100)]
    lines[10] = json.dumps({"t": f"the key {AWS} here"}).encode() + b"\n"
    lines[50] = json.dumps({"t": "mail jane@acme.io"}).encode() + b"\n"
    lines[99] = json.dumps({"t": "/home/bob/x"}).encode()  # the input's last line, no newline
    out = Counting().feed_lines(lines, 1)
    assert handled == [11, 51, 100]
    assert out == one_at_a_time(lines)[0] and out[0] is lines[0]
    assert AWS.encode() not in b"".join(out) and b"jane@acme.io" not in b"".join(out)


def test_a_block_of_lines_that_are_no_json_objects_goes_a_line_at_a_time() -> None:
    sse = [b"event: text\n", b'data: {"stream_id":1,"agent":"a","delta":"' + KEY[:30].encode() + b'"}\n', b"\n",
           b"event: text\n", b'data: {"stream_id":1,"agent":"a","delta":"' + KEY[30:].encode() + b'"}\n', b"\n",
           b"event: stream_end\n", b'data: {"stream_id":1}\n', b"\n"]
    for sizes in ([100], [1], [4, 2]):
        out = b"".join(same(sse, sizes))
        assert KEY[:30].encode() not in out and KEY[30:].encode() not in out
    starts = [b"@acme.io jane@acme.io\n", record("x").replace(b"{", b" {", 1) + b"\n", b"\n", b"{}\n", b"@x.io"]
    same(starts, [100])
    same(starts, [2])


def test_a_field_streamed_across_blocks_is_redacted_whole() -> None:
    pieces = [KEY[i:i + 9] for i in range(0, len(KEY), 9)]
    lines = [record("start") + b"\n",
             stream({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}) + b"\n"]
    for n, piece in enumerate(pieces):
        lines.append(delta(piece) + b"\n")
        lines.append(record(f"between {n} /Users/jane-doe/x {AWS}") + b"\n")
    lines += [stream({"type": "content_block_stop", "index": 0}) + b"\n", record("end " + KEY)]
    for sizes in ([10**9], [1], [2], [3, 5], [len(lines) // 2]):
        out = b"".join(same(lines, sizes))
        assert KEY.encode() not in out and AWS.encode() not in out and b"jane-doe" not in out


def test_a_relay_exports_partial_deltas_go_a_line_at_a_time() -> None:
    relay = [json.dumps({"type": "text_delta", "lane": "main", "message_id": "m1", "block_index": 0, "partial": True,
                         "text": KEY[i:i + 20]}).encode() + b"\n" for i in range(0, len(KEY), 20)]
    lines = [record("a") + b"\n", *relay, json.dumps({"type": "text", "lane": "main", "text": "done"}).encode() + b"\n"]
    for sizes in ([100], [1], [3]):
        assert KEY.encode() not in b"".join(same(lines, sizes))


def test_escapes_crlf_edges_and_a_long_line_redact_as_a_line_at_a_time() -> None:
    escaped = record("x").replace(b'"x"', b'"\\u0041KIAQ3EGRZ7XKWLM5TN4 and \\\\u0061@acme.io"')
    long_line = record("prose " * 350_000 + AWS + " /Users/bob/app " + "word " * 10) + b"\n"  # about 2 MB
    lines = [b'{"k":"' + AWS.encode() + b'"}\r\n', record(KEY) + b"\r\n", escaped + b"\r\n", long_line,
             b'{"a":"jane@acme.io"}']
    for sizes in ([100], [1], [2], [3, 1]):
        out = b"".join(same(lines, sizes))
        assert AWS.encode() not in out and b"jane@acme.io" not in out and b"KIAQ3EGRZ7XKWLM5TN4" not in out


ATOMS = ["sk-ant-api03-", AWS, "ghp_" + "a1" * 18, "bob@acme.io", "@", "=", "password=", "PASSWORD=", "token=abc123def",
         "/Users/", "/home/", "C:\\\\Users\\\\", "-Users-", "jane", "jane-doe", "x", "1", " ", "\\n", "\\t", "\\\"",
         "'", ":", "https://", "user:pass@", "Bearer ", "eyJhbGciOi", ".", "eyJ", "[redacted:user:1]", "a" * 30,
         "\\u0041", "\\u0041KIAQ3EGRZ7XKWLM5TN4", '\\"password\\": \\"', "password: ", "x1y2z3", "é", "\\r"]


@st.composite
def runs(draw: st.DrawFn) -> list[bytes]:
    """Lines of a run: records with text of the atoms (JSON, with their escapes), streamed pieces
    of a field between them, a line that is no JSON; CRLF or not, the last newline or not."""
    lines: list[bytes] = []
    for _ in range(draw(st.integers(1, 12))):
        text = "".join(draw(st.lists(st.sampled_from(ATOMS), max_size=10))).encode()
        shape = draw(st.sampled_from(["record", "record", "delta", "stop", "other"]))
        if shape == "record":
            line = b'{"type":"user","cwd":"/Users/jane-doe/app","t":"' + text + b'"}'
        elif shape == "delta":
            line = delta("@").replace(b'"@"', b'"' + text + b'"')
        elif shape == "stop":
            line = stream({"type": "content_block_stop", "index": 0})
        else:
            line = draw(st.sampled_from([b"", b"not json " + text, text]))
        lines.append(line + draw(st.sampled_from([b"\n", b"\r\n"])))
    if draw(st.booleans()):
        lines[-1] = lines[-1].rstrip(b"\r\n")
    return lines


@settings(max_examples=max(300, settings().max_examples))
@given(runs(), st.lists(st.integers(1, 5), min_size=1, max_size=4), st.integers(1, 400))
def test_any_run_redacted_in_blocks_is_the_run_redacted_a_line_at_a_time(lines: list[bytes], sizes: list[int],
                                                                       block: int) -> None:
    want = one_at_a_time(lines)
    same(lines, sizes, want)
    same(lines, [10**9], want, whole=False)  # (the same whole input as the line above's)
    with pytest.MonkeyPatch.context() as monkeypatch:
        same_bytes(b"".join(lines), block, monkeypatch)
        same_bytes(b"".join(lines) + b"\n", block, monkeypatch)


def test_the_command_lines_batches_are_read_as_blocks() -> None:
    from relayscope.cli.redacting import REDACT_AHEAD, _redacted

    lines = [record(f"{n} /Users/jane-doe/app {n}@acme.io " + string.ascii_letters * 20) + b"\n"
             for n in range(3 * REDACT_AHEAD // 1000)]
    blocks: list[int] = []

    class Counting(Redactor):
        def feed_lines(self, lines: list[bytes], first: int) -> list[bytes]:
            blocks.append(len(lines))
            return super().feed_lines(lines, first)

    out = list(_redacted(Counting(), iter(lines), live=False))
    assert out == one_at_a_time(lines)[0] and len(blocks) >= 3 and sum(blocks) == len(lines)


def test_the_check_gives_each_lines_type_only_when_it_finds_nothing_in_the_batch() -> None:
    check = LineCheck("stream-json", readers=READERS)
    good = [b'{"type":"user","a":1}\n', b' {"type":"stream_event"}\n', b'{"a":"\xff"}\n', b'{"type":1,"type":"x"}']
    assert check.types(good) == ["user", "stream_event", None, "x"]  # a key twice: the last, as every decoder reads it
    for bad in (b'{"type":"\xff"}\n', b"[1]\n", b"\n", b'{"a":1}{"b":2}\n', b"not json\n", b'{"a":' + b"[" * 5000):
        assert check.types([good[0], bad]) is None
    assert LineCheck(readers=READERS).types(good) is None  # the format not known yet: feed holds lines


def test_a_line_whose_decoded_type_is_a_stream_event_is_handled_as_feed_handles_it() -> None:
    odd = [b'{"type":"user","t":"x"}\n',
           b'{"type":"x","type":"stream_event","event":{"type":"content_block_delta","index":0,'
           b'"delta":{"type":"text_delta","text":"' + KEY[:20].encode() + b'"}}}\n',
           b'{"type":"stream_event","event":{"type":"content_block_delta","index":0,'
           b'"delta":{"type":"text_delta","text":"' + KEY[20:].encode() + b'"}}}\n',
           b'{"type":"stream\\u005fevent","event":{"type":"content_block_stop","index":0}}\n',
           b'{"type":"stream_event","event":{"type":"content_block_stop","index":0}}\n']
    for sizes in ([100], [1], [2]):
        out = b"".join(same(odd, sizes))
        assert KEY[:20].encode() not in out and KEY[20:].encode() not in out
