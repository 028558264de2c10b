"""present: a tool call's key input, read without decoding the rest of its input, says what the
whole decode says, on every real capture and on the edges no capture has."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from _corpus import REAL_FILES, SESSION_FILES, sweep

from relayscope import present
from relayscope import relay as R
from relayscope.analysis import Analyzer


def whole(raw: bytes, width: int = 100) -> str:
    """The summary from the whole input decoded (the expectation; msgspec's generic decode, which
    unlike the standard library's refuses a lone surrogate, as the page's decode always has)."""
    try:
        value = msgspec.json.decode(raw) if raw else {}
    except msgspec.DecodeError:
        return present.clip(raw.decode("utf-8", "replace"), width)
    if isinstance(value, dict):
        for key in present.KEY_INPUTS:
            if isinstance(value.get(key), str):
                return present.clip(f"{key}: {value[key]}", width)
    return present.clip(msgspec.json.encode(value).decode(), width)


def tool_inputs(path: Path) -> list[bytes]:
    a = Analyzer("lineage", keep=False)
    out: list[bytes] = []
    for line in path.read_bytes().splitlines():
        out += [bytes(r.input) for r in a.feed_line(line) if isinstance(r, R.ToolUse)]
    out += [bytes(r.input) for r in a.finish() if isinstance(r, R.ToolUse)]
    return out


@pytest.mark.parametrize("path", sweep(REAL_FILES + SESSION_FILES, ids=lambda p: p.name))
def test_every_tool_input_of_a_capture_is_summed_up_as_its_whole_decode_says(path: Path) -> None:
    inputs = tool_inputs(path)
    for raw in inputs:
        for width in (80, 100):
            assert present.tool_input_summary(msgspec.Raw(raw), width) == whole(raw, width), raw[:200]


@pytest.mark.parametrize("raw", [
    b'{"command": "ls", "description": 5}',  # a key input that is not text: the next one
    b'{"command": "a", "command": "b"}',  # a key twice: the last, as a dict keeps it
    b'{"command": "a", "command": 5}',
    b'{"path": null, "url": "https://example.com/x"}',
    b'{"content": "' + b"x" * 5000 + b'", "file_path": "/a/b.py"}',  # the key after a long text
    b'{"nested": {"command": "no"}, "n": [1, 2, {"a": "b"}]}',  # no key input: all of it as JSON
    b"[1, 2]", b'"a string"', b"12", b"null", b"", b"{}",
    b'{"command": "cut off', b'{"a": 1} trailing', b"not json",
    b'{"description": "\\ud800 lone surrogate"}', b'{"command": "<script>alert(1)</script>\\u001b[31m"}',
])
def test_inputs_no_capture_has_are_summed_up_as_their_whole_decode_says(raw: bytes) -> None:
    assert present.tool_input_summary(msgspec.Raw(raw), 100) == whole(raw, 100)
