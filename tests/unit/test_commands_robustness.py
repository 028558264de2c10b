"""Every command with hostile input (property tests; deterministic in ``make test``, randomized in
``make fuzz``): ``redact``, ``export`` in both formats, ``stats``, ``trace``, ``audit`` and
``translate -f text``, plain and with ``--redact``, on any stream or set of files ``_gen`` makes,
with control characters and escape sequences spliced into its text. None fails inside (exit 0 or
1; ``audit`` refuses an Arbiter stream with 2), each gives the verdict ``translate`` gives, JSON
output parses, text for people obeys no control character, and ``redact`` keeps every line."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import _gen
from _cli import main
from hypothesis import given, settings
from hypothesis import strategies as st

OBEYED = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
ESCAPES = [b"\x1b]0;title\x07", b"\x1b[2J", b"\x08\x08", b"\x00", b"\x7f", b"\xc2\x9b31m", b"\xe2\x80\xae",
           b"\\u001b[31m", b"\r", b"\\u202e"]
JSON_OUT = {("translate", "-f", "json"), ("trace", "--json"), ("audit", "--json"), ("stats", "--json"),
            ("export", "--format", "otlp"), ("export", "--format", "chrome-trace")}
TEXT_OUT = {("translate", "-f", "text"), ("trace",), ("audit",), ("stats",)}
COMMANDS = sorted(JSON_OUT | TEXT_OUT | {("translate",)})
REDACTED = [("translate",), ("trace",), ("audit", "--json"), ("stats",), ("export", "--format", "otlp")]
# each example runs the CLI a score of times: a quarter of the examples in make test, all in make fuzz
EXAMPLES = settings().max_examples // 4 if settings().derandomize else settings().max_examples


@st.composite
def hostile_lines(draw: st.DrawFn) -> list[bytes]:
    """A stream's lines, some with an escape sequence spliced in (in a string, or anywhere)."""
    lines = draw(st.one_of(_gen.streams(), _gen.sse_streams()))
    out = []
    for line in lines:
        if line and draw(st.integers(0, 3)) == 0:
            at = draw(st.integers(0, len(line)))
            line = line[:at] + draw(st.sampled_from(ESCAPES)) + line[at:]
        out.append(line)
    return out


def said(err: str) -> list[str]:
    """The errors said: not warnings, drift notes, redaction summaries, nor audit's note of a file
    it has nothing to compare in."""
    return sorted(line for line in err.splitlines() if ": warning: " not in line and " new to relayscope" not in line
                  and not line.startswith("relayscope: redacted ") and "no duplicates to compare" not in line)


def check(path: Path, folder: bool) -> None:
    base_code, _, base_err = main("translate", str(path))
    assert base_code in (0, 1) or "no .jsonl transcripts" in base_err, base_err  # a folder of none: usage
    for command, redact in [(c, []) for c in COMMANDS] + [(c, ["--redact"]) for c in REDACTED]:
        colour = ["--color", "never"] if command[0] in ("translate", "trace") else []  # only ours would be there
        code, out, err = main(*command, *colour, *redact, str(path), tty=True)
        assert "internal error" not in err and "Traceback" not in err, (command, err)
        assert OBEYED.search(err) is None, (command, err)
        if code == 2 and base_code != 2:
            assert command[0] == "audit" and "Arbiter SSE" in err, (command, err)
            continue
        assert code == base_code, (command, redact, err, base_err)
        if not redact:
            assert said(err) == said(base_err), command
        if command in JSON_OUT and code != 2:
            json.loads(out)
        if command == ("translate",):
            assert all(json.loads(line) for line in out.splitlines())  # one relay a line
        if command in TEXT_OUT or command in JSON_OUT:
            assert OBEYED.search(out.decode("utf-8", "replace").replace("\n", "")) is None, command
    out_dir = Path(tempfile.mkdtemp(dir=path.parent))
    code, out, err = main("redact", str(path), *(["-o", str(out_dir / "o")] if folder else []))
    _, _, redacted_err = main("translate", "--redact", str(path))  # redact names files as --redact does
    assert code == base_code and said(err) == said(redacted_err), (err, redacted_err)
    if not folder:
        assert out.count(b"\n") == path.read_bytes().count(b"\n")


@settings(max_examples=EXAMPLES)
@given(hostile_lines())
def test_every_command_survives_any_stream_with_escapes_in_it(lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.jsonl"
        path.write_bytes(b"\n".join(lines))
        check(path, folder=False)


FILE_NAMES = ["s.jsonl", "s/subagents/agent-u1.jsonl", "s/subagents/agent-u1.meta.json", "fleet.sse", "x.jsonl",
              "-Users-jane-app/t.jsonl"]


@settings(max_examples=EXAMPLES)
@given(st.lists(st.sampled_from(FILE_NAMES), min_size=1, max_size=4, unique=True), st.data())
def test_every_command_survives_any_folder(names: list[str], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "in"
        for name in names:
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if name.endswith(".meta.json"):
                path.write_bytes(data.draw(st.sampled_from([b'{"toolUseId":"toolu_A"}', b"\xff{", b"[]", b"{"])))
            else:
                path.write_bytes(b"\n".join(data.draw(hostile_lines())))
        check(root, folder=True)
