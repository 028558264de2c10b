"""Transcript text is data on a terminal too (``termsafe``): every writer of text for people
(``translate -f text``, ``trace``, ``stats``, ``audit``, ``redact --list``, every message on stderr)
shows control characters as visible escapes and never writes one, whatever the input and the
file names hold; a newline in a name never forges a row. JSON output to a terminal escapes the
characters JSON allows raw but terminals obey, and stays the same JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _cli import main

from relayscope.termsafe import json_safe, safe

# OSC window title and hyperlink, CSI clear screen and hidden text, backspaces over text, a bell,
# NUL, DEL, C1 CSI, a right-to-left override, a line separator, a carriage return
HOSTILE = ("\x1b]0;pwned\x07 \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ \x1b[2J\x1b[8mhidden\x1b[0m "
           "safe\x08\x08\x08\x08evil \x00 \x7f \x9b31m \u202egnp.exe \u2028 \rOVERWRITE")
# what a terminal obeys: C0 but the newline, DEL, C1, bidi controls, line/paragraph separators
OBEYED = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def obeyed(text: str) -> list[str]:
    return OBEYED.findall(text)


@pytest.mark.parametrize(("char", "shown"), [
    ("\x1b", "\\x1b"), ("\x07", "\\x07"), ("\x08", "\\x08"), ("\x00", "\\x00"), ("\x7f", "\\x7f"),
    ("\x9b", "\\x9b"), ("\x85", "\\x85"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"), ("\u202e", "\\u202e"),
    ("\u2066", "\\u2066"), ("\u200f", "\\u200f"), ("\u2028", "\\u2028"), ("\udcff", "\\udcff")])
def test_each_control_character_is_shown_not_obeyed(char: str, shown: str) -> None:
    assert safe(f"a{char}b") == f"a{shown}b"


def test_everything_else_is_left_as_it_is() -> None:
    text = "C:\\Users\\x café 日本語 🎉 ‹quotes› — 'a' \"b\" ~!@#$%^&*()"
    assert safe(text) is text
    assert obeyed(safe(HOSTILE)) == []


def test_json_output_escapes_what_terminals_obey_and_stays_the_same_json() -> None:
    data = json.dumps({"t": HOSTILE}, ensure_ascii=False).encode()
    out = json_safe(data)
    assert json.loads(out) == json.loads(data)
    assert obeyed(out.decode()) == []


def transcript() -> bytes:
    """A stream with hostile text everywhere a person reads it: a text, a tool's name and input, a
    sub-agent's description (its lane's label), a result, a model name, a line that is no JSON."""
    lines = [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "claude\x1b[31m", "tools": []},
        {"type": "assistant", "session_id": "s", "message": {"id": "m1", "model": "m\x1b]0;x\x07", "content": [
            {"type": "text", "text": HOSTILE},
            {"type": "tool_use", "id": "toolu_1", "name": "Task", "input": {
                "description": "evil\nforged row\x1b[2J", "subagent_type": "gen\x9beral", "prompt": HOSTILE}},
            {"type": "tool_use", "id": "toolu_2", "name": "Ba\x1b[8msh", "input": {"command": HOSTILE}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}},
        {"type": "assistant", "session_id": "s", "parent_tool_use_id": "toolu_1",
         "message": {"id": "m2", "content": [{"type": "text", "text": HOSTILE}]}},
        {"type": "user", "session_id": "s", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": HOSTILE}]}},
        {"type": "result", "subtype": "success", "session_id": "s", "result": HOSTILE},
    ]
    return "\n".join(json.dumps(x) for x in lines).encode() + b"\nnot json \x1b]0;pwned\x07\x9b\n"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """The transcript under a name holding an escape sequence and a newline."""
    path = tmp_path / "run\x1b]0;title\x07\nforged.jsonl"
    path.write_bytes(transcript())
    return path


WRITERS = [["translate", "-f", "text"], ["trace"], ["stats"], ["audit"], ["translate", "-f", "text", "-s", "index"]]


@pytest.mark.parametrize("command", WRITERS, ids=" ".join)
def test_text_for_people_shows_every_control_and_forges_no_row(command: list[str], hostile: Path) -> None:
    for named in ([str(hostile)], [str(hostile), str(hostile.parent / "other.jsonl")]):
        if len(named) > 1:
            Path(named[1]).write_bytes(transcript())
        code, out, err = main(*command, "--color", "never", *named, tty=True) if command[0] not in ("stats", "audit") \
            else main(*command, *named, tty=True)
        text = out.decode()
        assert code == 1, err
        assert obeyed(text) == [] and obeyed(err) == [], (command, [c for c in obeyed(text + err)])
        assert "\\x1b" in text + err  # shown, visibly
        # every message is one line, naming the file with its newline shown
        assert all(line.startswith(("run\\x1b]0;title\\x07\\nforged.jsonl", "relayscope:", str(hostile.parent)))
                   or "forged" not in line for line in err.splitlines()), err
        assert not any(line.startswith("forged") for line in (text + err).splitlines())


def test_json_output_of_every_command_to_a_terminal_carries_no_control_it_obeys(hostile: Path) -> None:
    """To a terminal; to a file or pipe the JSON is as encoded (every C0 control escaped already)."""
    for command in (["translate"], ["translate", "-f", "json"], ["trace", "--json"], ["audit", "--json"],
                    ["stats", "--json"], ["export", "--format", "otlp"], ["export", "--format", "chrome-trace"]):
        _, out, err = main(*command, str(hostile), tty=True)
        assert obeyed(out.decode()) == [], command
        assert obeyed(err) == [], command
        assert "\\u001b" in out.decode() or "\\\\x1b" in out.decode() or command[0] in ("stats", "audit"), command


def test_redact_list_and_messages_are_safe(tmp_path: Path) -> None:
    path = tmp_path / "k\x1b[2J.jsonl"
    path.write_bytes(b'{"t":"password=\x1b[31mAbc123\x07xyz"}\n' + b"bad \x1b]0;x\x07 line\n")
    code, out, err = main("redact", "--list", str(path))
    assert code == 1 and obeyed(out.decode()) == [] and obeyed(err) == []
    assert "k\\x1b[2J.jsonl:2: not valid JSON" in err
