"""Every step's reason says what the strategy did and why in words a newcomer follows: no
"1 item(s)", no "turn end" on a session's first line, and a ``fingerprint`` reset between two
events of one message (real output: one block per assistant event) says the message did not
change, and what lineage does there."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from relayscope import trace as T
from relayscope.analysis import analyze
from relayscope.textout import TraceText

REAL = (Path(__file__).parents[1] / "fixtures/real/stream-json"
        / "ArturoKuang__sandbox_ai_compiler__.repomirror__claude_output.jsonl")


@pytest.fixture(scope="module")
def text() -> str:
    return REAL.read_text(encoding="utf-8")


@pytest.mark.parametrize("strategy", ["none", "index", "fingerprint", "lineage"])
def test_every_reason_is_a_sentence_not_a_count(text: str, strategy: str) -> None:
    steps = analyze(text, strategy).trace
    assert steps
    for s in steps:
        assert s.reason, s
        assert "(s)" not in s.reason, s.reason
        assert not re.fullmatch(r"\d+ \w+", s.reason), s.reason
        assert ".." not in s.reason, s.reason  # "blocks 0..3" reads as code


@pytest.mark.parametrize("strategy", ["index", "fingerprint", "lineage"])
def test_a_session_start_is_not_called_a_turn_end(text: str, strategy: str) -> None:
    init = next(s for s in analyze(text, strategy).trace if s.kind == "system/init")
    assert init.reset == T.TURN_END  # the state it applies is the turn end's
    words = T.reset_words(init.reset, init.kind)
    assert "turn end" not in words and "start" in words
    row = TraceText(200, False).step(init)
    assert "turn end" not in row and "session starts" in row


def test_a_fingerprint_reset_inside_one_message_says_so(text: str) -> None:
    lines = text.splitlines()

    def mid(line: int) -> str | None:
        return json.loads(lines[line - 1]).get("message", {}).get("id")

    steps = [s for s in analyze(text, "fingerprint").trace if s.kind == "assistant"]
    inside = switch = 0
    for prev, s in itertools.pairwise(steps):
        if s.reset != T.CONTEXT_SWITCH:
            continue
        if mid(s.line) == mid(prev.line):
            inside += 1
            assert T.FP_SAME_MESSAGE in s.reason and "lineage" in s.reason and mid(s.line) in s.reason, s.reason
        else:
            switch += 1
            assert T.FP_SAME_MESSAGE not in s.reason and "new context" in s.reason, s.reason
    assert inside and switch  # the capture has both


def test_a_user_line_names_what_it_carried(text: str) -> None:
    users = [s for s in analyze(text, "lineage").trace if s.kind == "user" and s.decision == T.EMIT]
    assert users and all("tool result" in s.reason or "user message" in s.reason for s in users)
    assert all("item" not in s.reason for s in users)
