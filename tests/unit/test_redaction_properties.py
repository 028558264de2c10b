"""Redaction's properties, over random inputs (deterministic in ``make test``, the "ci" hypothesis
profile; long and random in ``make fuzz``):

- for any split of a secret into streamed pieces (a text, thinking or tool-input delta, an Arbiter
  ``text`` event), interleaved with other lines, no output of any command run with ``--redact``
  (``translate`` in each format, ``trace``, ``audit``, ``export`` in both formats, ``stats``) nor of
  ``redact`` holds it, on stdout or stderr;
- the pieces of a streamed field join into the redaction of its whole text;
- redacting twice is redacting once, and a line that was JSON stays JSON of the same shape;
- the rules' gate finds the anchors its plain form finds (each anchor's byte, then its
  look-arounds), on any text and any part of it, and on every line of the captures;
- where the gate passes over an ``=`` or ``@`` that was an anchor before (after one capital or a
  bare ``key``; after a blank, quote or slash), the rows find no secret."""

from __future__ import annotations

import json
import re
import string
import tempfile
from pathlib import Path
from typing import Any

import pytest
from _cli import main
from _corpus import FIXTURES, REAL_FILES, SESSION_FILES, sweep
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from relayscope import redact_rules as rules
from relayscope.redact import Redactor

B64URL = string.ascii_letters + string.digits + "_-"
UPPER_DIGITS = string.ascii_uppercase + string.digits


KINDS = ["anthropic", "aws", "github", "email", "user", "password", "jwt", "url", "password-json", "password-yaml",
         "folder"]
CWD = "/tmp/work"  # the session's working folder, unless a secret's kind says where it is


@st.composite
def secrets(draw: st.DrawFn, kinds: list[str] = KINDS) -> tuple[str, str, str]:
    """A secret of one of the kinds, as text holds it, the part that must not be left, and the
    session's working folder (``cwd``)."""
    text, secret, *cwd = draw(_secrets(kinds))
    return text, secret, cwd[0] if cwd else CWD


@st.composite
def _secrets(draw: st.DrawFn, kinds: list[str]) -> tuple[str, ...]:
    kind = draw(st.sampled_from(kinds))
    def run(alphabet: str, n: int) -> str:
        return draw(st.text(alphabet, min_size=n, max_size=n))
    name = draw(st.from_regex(r"[a-z][a-z0-9]{7,11}", fullmatch=True))
    if kind == "password-json":  # a JSON object's key, in the text as JSON is
        value = run(string.ascii_letters + string.digits + " _-", 8)
        return json.dumps({"user": "x", "password": value}), value
    if kind == "password-yaml":  # a YAML line
        value = run(string.ascii_letters, 6) + run(string.digits, 3)
        return f"\ndb:\n  password: {value}\n", value
    if kind == "folder":  # a dashed user name in a project folder's name: the cwd says where it ends
        last = draw(st.from_regex(r"[a-z]{8,10}", fullmatch=True))
        return f"~/.claude/projects/-Users-{name}-{last}-app/1.jsonl", last, f"/Users/{name}-{last}/app"
    if kind == "anthropic":
        s = f"sk-ant-api03-{run(B64URL, 93)}AA"
        return s, s
    if kind == "aws":
        s = "AKIA" + run(UPPER_DIGITS, 16)
        return s, s
    if kind == "github":
        s = "ghp_" + run(string.ascii_letters + string.digits, 36)
        return s, s
    if kind == "email":
        s = f"{name}@{run(string.ascii_lowercase, 6)}.io"
        return s, s
    if kind == "user":
        return f"/Users/{name}/code", name
    if kind == "password":
        value = run(string.ascii_letters, 6) + run(string.digits, 3)
        return f"password={value}", value
    if kind == "jwt":
        s = f"eyJ{run(B64URL, 20)}.eyJ{run(B64URL, 30)}.{run(B64URL, 40)}"
        return s, s
    value = run(string.ascii_letters, 5) + run(string.digits, 4)
    return f"postgres://admin:{value}@db.example.io/app", value


def stream_line(event: dict[str, Any], lane: str | None) -> str:
    return json.dumps({"type": "stream_event", "event": event, "parent_tool_use_id": lane, "session_id": "s"})


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % len(text) for c in cuts} - {0}) if len(text) > 1 else []
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


OTHER = [
    json.dumps({"type": "assistant", "parent_tool_use_id": "toolu_01Sub", "session_id": "s",
                "message": {"id": "msg_sub", "content": [{"type": "text", "text": "the sub-agent works"}]}}),
    json.dumps({"type": "user", "session_id": "s", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "toolu_01X", "content": "ok: /tmp/x"}]}}),
    stream_line({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "other lane"}},
                "toolu_01Sub"),
    "not json at all",
]


def u_escaped(text: str, every: int) -> str:
    """JSON string content with every ``every``-th letter or digit written as a ``\\u`` escape (as
    JSON may write any character), other escapes kept whole; 0: as it is."""
    if not every:
        return text
    out, i, n = [], 0, 0
    while i < len(text):
        if text[i] == "\\":
            width = 6 if text[i + 1] == "u" else 2
            out.append(text[i:i + width])
            i += width
            continue
        n += text[i].isalnum()
        out.append(f"\\u{ord(text[i]):04x}" if text[i].isalnum() and n % every == 0 else text[i])
        i += 1
    return "".join(out)


def delta_line(field: str, name: str, piece: str, every: int) -> str:
    """A delta's line, its piece's letters ``\\u``-escaped every ``every``-th."""
    line = stream_line({"type": "content_block_delta", "index": 0, "delta": {"type": field, name: "@PIECE@"}}, None)
    return line.replace('"@PIECE@"', '"' + u_escaped(json.dumps(piece)[1:-1], every) + '"')


def decoded(out: bytes) -> str:
    """The output's text with JSON's escapes read (a secret left escaped is still there)."""
    lines = []
    for line in out.decode().splitlines():
        try:
            lines.append(json.dumps(json.loads(line), ensure_ascii=False))
        except ValueError:
            lines.append(line)
    return "\n".join(lines)


def twin(secret: str) -> str:
    """The secret with every letter and digit changed, keeping its shape (case, letters, digits):
    the same run with it in the secret's place is what the output looks like when the secret is gone."""
    return "".join(chr((ord(c) - 97 + 13) % 26 + 97) if "a" <= c <= "z" else
                   chr((ord(c) - 65 + 13) % 26 + 65) if "A" <= c <= "Z" else
                   chr((ord(c) - 48 + 5) % 10 + 48) if "0" <= c <= "9" else c for c in secret)


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[str], str, list[str]]:
    """A stream-json run whose field holds the secret cut into pieces, other lines between them;
    the pieces' letters may be written as ``\\u`` escapes. Also the same run with the secret's
    twin in its place (``no_output_holds``'s control)."""
    text, secret, cwd = draw(secrets())
    every = draw(st.sampled_from([0, 0, 1, 2, 3]))
    field = draw(st.sampled_from(["text_delta", "thinking_delta", "input_json_delta"]))
    before, after = draw(st.text(string.ascii_letters + " .:,\n", max_size=30)), draw(st.text(" .\n", max_size=5))
    assume((before + " " + text + " " + after).count(secret) == text.count(secret))  # no secret but the text's
    cuts = draw(st.lists(st.integers(1, 10_000), max_size=30))
    between = [draw(st.lists(st.sampled_from(OTHER), max_size=2)) for _ in range(len(cuts) + 1)]
    name = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}[field]
    block = {"text_delta": {"type": "text", "text": ""}, "thinking_delta": {"type": "thinking", "thinking": ""},
             "input_json_delta": {"type": "tool_use", "id": "toolu_01A", "name": "Bash", "input": {}}}[field]

    def run(text: str, cwd: str) -> list[str]:
        whole = before + " " + text + " " + after
        if field == "input_json_delta":
            whole = json.dumps({"command": whole})
        lines = [json.dumps({"type": "system", "subtype": "init", "session_id": "s", "model": "claude-sonnet-4-5",
                             "cwd": cwd}),
                 stream_line({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}},
                             None),
                 stream_line({"type": "content_block_start", "index": 0, "content_block": block}, None)]
        for piece, others in zip(split(whole, cuts), between, strict=False):
            lines.append(delta_line(field, name, piece, every))
            lines += others
        return [*lines, stream_line({"type": "content_block_stop", "index": 0}, None),
                stream_line({"type": "message_stop"}, None),
                json.dumps({"type": "result", "subtype": "success", "session_id": "s"})]

    other = twin(secret)
    return run(text, cwd), secret, run(text.replace(secret, other), cwd.replace(secret, other))


@st.composite
def fleets(draw: st.DrawFn) -> tuple[list[str], str, list[str]]:
    """An Arbiter stream whose agent's text events hold the secret in pieces, another stream's
    between; and the same with the secret's twin in its place."""
    text, secret, _ = draw(secrets([k for k in KINDS if k != "folder"]))  # an Arbiter stream has no cwd
    cuts = draw(st.lists(st.integers(1, 10_000), max_size=20))
    meanwhile = [draw(st.booleans()) for _ in range(len(cuts) + 1)]

    def run(text: str) -> list[str]:
        lines = ["event: request_received", 'data: {"request_id":"r1","agent":"lead"}', ""]
        for piece, other in zip(split("see " + text + " now", cuts), meanwhile, strict=False):
            lines += ["event: text", "data: " + json.dumps({"stream_id": 1, "agent": "a", "delta": piece}), ""]
            if other:
                lines += ["event: text", 'data: {"stream_id":2,"agent":"b","delta":"meanwhile"}', ""]
        return [*lines, "event: stream_end", 'data: {"stream_id":1,"ok":true}', "", "event: done", 'data: {"ok":true}',
                ""]

    return run(text), secret, run(text.replace(secret, twin(secret)))


COMMANDS = [["translate"], ["translate", "-f", "text"], ["translate", "-f", "json"], ["trace"], ["trace", "--json"],
            ["audit", "--json"], ["export", "--format", "otlp"], ["export", "--format", "chrome-trace"], ["stats"],
            ["stats", "--json"]]


def streamed_text(relays: list[dict[str, Any]]) -> list[str]:
    """What a reader joining a run's deltas reads: each lane's text and thinking, joined."""
    lanes: dict[str, str] = {}
    for r in relays:
        if r.get("type") in ("text_delta", "thinking_delta"):
            lanes[r["lane"]] = lanes.get(r["lane"], "") + r.get("text", "")
    return list(lanes.values())


def no_output_holds(lines: list[str], secret: str, commands: list[list[str]], control: list[str]) -> None:
    """Neither any output as it is, nor the deltas of its relays joined, hold the secret more often
    than the same command's output on ``control`` (the run with the secret's twin in its place) does:
    there, a secret that is also one of the output's own words (a key such as ``segments``) is
    counted where no secret was."""
    with tempfile.TemporaryDirectory() as tmp:
        path, twin_path = Path(tmp) / "run.jsonl", Path(tmp) / "twin.jsonl"
        path.write_text("\n".join(lines) + "\n")
        twin_path.write_text("\n".join(control) + "\n")

        def left(*command: str) -> None:
            code, out, err = main(*command, str(path))
            assert code in (0, 1), (command, err)
            found = decoded(out).count(secret) + err.count(secret)
            if found:  # the control is run only then: most examples hold no word of the output's
                _, twin_out, twin_err = main(*command, str(twin_path))
                assert found <= decoded(twin_out).count(secret) + twin_err.count(secret), (command, secret)
            if command[0] == "redact":
                (Path(tmp) / "redacted.jsonl").write_bytes(out)
            if command == ("translate", "--redact"):
                assert not any(secret in text for text in streamed_text([json.loads(x) for x in out.splitlines()]))

        left("redact")
        _, out, _ = main("translate", str(Path(tmp) / "redacted.jsonl"))
        assert not any(secret in text for text in streamed_text([json.loads(x) for x in out.splitlines()]))
        for command in commands:
            left(*command, "--redact")


@given(streams())
def test_no_command_with_redact_prints_a_secret_streamed_in_pieces(case: tuple[list[str], str, list[str]]) -> None:
    lines, secret, control = case
    no_output_holds(lines, secret, COMMANDS, control)


def test_a_secret_that_is_one_of_the_outputs_own_words_is_told_from_a_leak() -> None:
    """``stats --json`` has a key ``segments``: a password ``segments`` redacted everywhere is no leak,
    a word no rule catches (left in the text, as a secret would be that slipped through) is."""
    def run(text: str) -> list[str]:
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}
        return [json.dumps({"type": "system", "subtype": "init", "session_id": "s", "model": "m", "cwd": CWD}),
                stream_line({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}},
                            None),
                stream_line({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                            None),
                stream_line(delta, None), stream_line({"type": "content_block_stop", "index": 0}, None),
                json.dumps({"type": "result", "subtype": "success", "session_id": "s"})]
    word = json.dumps({"user": "x", "password": "segments"})
    no_output_holds(run(word), "segments", [["stats", "--json"]], run(word.replace("segments", twin("segments"))))
    with pytest.raises(AssertionError):
        no_output_holds(run("the word bananas"), "bananas", [["stats", "--json"]], run("the word onanan"))


@given(fleets())
def test_no_command_with_redact_prints_a_secret_an_arbiter_stream_sent_in_pieces(
    case: tuple[list[str], str, list[str]],
) -> None:
    lines, secret, control = case
    no_output_holds(lines, secret, [c for c in COMMANDS if c[0] != "audit"], control)  # audit compares no SSE


@given(streams())
def test_the_pieces_of_a_streamed_field_join_into_its_whole_redacted(case: tuple[list[str], str, list[str]]) -> None:
    lines, _, _ = case
    out = Redactor().lines(lines)
    def field(ls: list[str]) -> str:
        text = ""
        for line in ls:
            obj = json.loads(line) if line.startswith("{") else {}
            delta = obj.get("event", {}).get("delta") if obj.get("parent_tool_use_id") is None else None
            if isinstance(delta, dict):
                text += next(v for k, v in delta.items() if k != "type")
        return text
    whole = Redactor()
    whole.line(lines[0])  # the session's start: its cwd, as the streamed run had it
    assert field(out) == json.loads(whole.line(json.dumps({"t": field(lines)})))["t"]


ATOMS = ["sk-ant-api03-", "AKIAQ3EGRZ7XKWLM5TN4", "ghp_" + "a1" * 18, "bob@acme.io", "@", "=", "password=", "PASSWORD=",
         "token=abc123def", "/Users/", "/home/", "C:\\Users\\", "-Users-", "-home-", "jane", "x", "1", " ", "\n", "\t",
         "\"", "'", "\\", "\\/", ":", "//", "https://", "user:pass@", "Bearer ", "eyJhbGciOi", ".", "eyJ", "[", "]",
         "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", "[redacted:user:1]", "a" * 30, "A" * 20, "_", "-",
         "é", "export ", "SECRET_KEY=", "xoxb-", "AIza", "glpat-", "sk_live_", "whsec_", "ya29.", "%", "+",
         "hooks.slack.com/services/", "\\u0041", "\\u0061", "\\u0022", "\\u0041KIAQ3EGRZ7XKWLM5TN4", '"password": "',
         "password: ", "x1y2z3", "\\\"token\\\": \\\"", "'secret': '"]


@settings(max_examples=max(600, settings().max_examples))  # cheap examples: more of them in make test too
@given(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=16), st.lists(st.integers(1, 10_000), max_size=8))
def test_redacting_twice_is_redacting_once_and_json_keeps_its_shape(atoms: list[str], cuts: list[int]) -> None:
    text = "".join(atoms)
    line = json.dumps({"t": text, text[:40]: [text]})
    once = Redactor().line(line)
    assert Redactor().line(once) == once
    value = json.loads(once)
    assert next(iter(value)) == "t" and len(value) == len(json.loads(line))
    assert Redactor().text(Redactor().text(text)) == Redactor().text(text)
    pieces = [stream_line({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}, None)
              for p in split(text, cuts)] + [stream_line({"type": "content_block_stop", "index": 0}, None)]
    streamed = Redactor().lines(pieces)
    assert Redactor().lines(streamed) == streamed
    assert all(re.fullmatch(r"\{.*\}", s) and json.loads(s) for s in streamed)


# The gate as first written: each anchor's byte, then its look-arounds, then its literal; "=" and ":"
# as the plain union of their forms (the gate tests the literal first, which Python's matcher does
# with fewer jumps, and turns most "=" and ":" away with one look-behind of byte classes).
PLAIN_GATE = re.compile(b"|".join([
    rb"B(?:EGIN(?<=-----BEGIN)|(?i:earer)" + rules._SPACE + rb")",
    rb"b(?i:earer)" + rules._SPACE,
    rb"k(?<=[sr]k)" + rules._left(2) + rb"[-_]",
    rb"A" + rules._left(1, rb"A-Za-z0-9+/") + rb"(?:KIA|SIA|BIA|CCA|3T[A-Z0-9]|Iza)",
    rb"g" + rules._left(1) + rb"(?:h[pousr]_|ithub_pat_|l(?:pat|ptt|dt|rt|soat|cbt|imt|oas)-)",
    rb"x" + rules._left(1) + rb"ox[abposre]-",
    rb"G" + rules._left(1) + rb"OCSPX-",
    rb"9\.(?<=ya29\.)",
    rb"w" + rules._left(1) + rb"hsec_",
    rb"J(?<=eyJ)" + rules._left(3),
    rb"@(?<![\s/?#@\"'<>\[\]\\]@)(?=[A-Za-z0-9-])",
    rb"=(?:" + b"|".join([rb"(?<=(?i:%s)%s=)" % (k, blank) for blank in (b"", rb"[ \t]") for k in rules._KEYWORDS]
                         + [rb"(?<=[A-Z0-9_]{3}=)", rb"(?<=[A-Z0-9_]{3}[ \t]=)"]) + rb")",
    rb":(?:" + b"|".join(rb"(?<=%s%s:)" % (rules._COLON_END, quote) for quote in (b"", b"[\"']", rb'\\"', rb'\\\\\\"'))
    + rb")",
    rb"U(?=sers)(?<=[/\\-]U)",
    rb"h(?:(?=ome)(?<=[/\\-]h)|ooks\.slack\.com)",
]))
GATE_ATOMS = ["sk-", "rk_", "sk_", "k-", "xk_", "AKIA", "ASIA", "ABIA", "ACCA", "A3TZ", "A3T", "AIza", "ghp_", "gho_",
              "github_pat_", "glpat-", "gldt-", "glrt-", "glsoat-", "glcbt-", "xoxb-", "xox", "GOCSPX-", "ya29.", "a29.",
              "whsec_", "eyJ", "@", "a@b", "=", "password=", "Passwd =", "TOKEN\t=", "key=", "K=", "x=", "/Users",
              "-Users", "\\Users", "Users", "/home", "-home", "\\home", "home", "hooks.slack.com", "Bearer ", "bEaReR\\t",
              "BEARER", "-----BEGIN", "-----", "BEGIN", "\\n", "\\", "\\t", "x", "A", "B", "U", "G", "J", "/", "-", "_",
              " ", "\t", "\"", "9", "Z", "h", "g", "k", "s", "r", "w", "o", "\n", "é", ":", "password:", "token\":",
              "Key':", "\\\"secret\\\":", "passwd \\\\\\\":", "rd:", "et:", "wD", "eY", "En", "ed", "rt", "d", "t",
              "n", "y", "D", "1", "'", "\\\"", "\\\\\\\"", "=", "pAsSwOrD", "Secret", "tokeN", "KEY"]


def _anchors(gate: re.Pattern[bytes], text: bytes, start: int, stop: int) -> list[tuple[int, int]]:
    return [m.span() for m in gate.finditer(text, start, stop)]


@settings(max_examples=max(2000, settings().max_examples))  # cheap examples: more of them in make test too
@given(st.lists(st.sampled_from(GATE_ATOMS), min_size=1, max_size=14), st.integers(0, 120), st.integers(0, 120))
def test_the_gate_finds_the_anchors_of_its_plain_form(atoms: list[str], a: int, b: int) -> None:
    text = "".join(atoms).encode()
    start, stop = min(a, b, len(text)), min(max(a, b), len(text))
    found = [s for s, _ in _anchors(rules._GATE, text, start, stop)]
    assert found == [s for s, _ in _anchors(PLAIN_GATE, text, start, stop)]
    assert rules.anchored(text, start, stop) == bool(found)


def test_the_gate_finds_the_anchors_of_its_plain_form_on_the_captures() -> None:
    lines = [line for path in sorted(FIXTURES.rglob("*.jsonl")) for line in path.read_bytes().split(b"\n")]
    found = [[s for s, _ in _anchors(rules._GATE, line, 0, len(line))] for line in lines]
    assert found == [[s for s, _ in _anchors(PLAIN_GATE, line, 0, len(line))] for line in lines]
    assert sum(map(len, found)) > 1000  # the captures have anchors to find


# An "=" after one capital, digit or _, or after "key", was an anchor before; the gate now wants
# three capitals (a .env name is longer: TOKEN is its shortest word) and a key's whole word
# (api_key ...). An "@" after a blank, quote or slash was one too (no e-mail address or password
# ends so). What the gate passes over, the rows find nothing at.
ONE_CAPITAL_EQ = re.compile(rb"=(?:" + b"|".join([rb"(?<=(?i:%s)%s=)" % (k, blank) for blank in (b"", rb"[ \t]")
                                                for k in (b"password", b"passwd", b"secret", b"token", b"key")]
                                               + [rb"(?<=[A-Z0-9_]=)", rb"(?<=[A-Z0-9_][ \t]=)"]) + rb")")
ANY_AT = re.compile(rb"@(?=[A-Za-z0-9-])")
EQ_AT_ATOMS = ["=", " ", "\t", "\\n", "\n", "\"", "export ", "KEY", "API_KEY", "MY_TOKEN", "TOKEN", "ID", "2", "SECRET", "PASSWORD", "PASSWD",
            "key", "api_", "api-", "Api", "access", "_", "-", "monkey", "client_secret", "@", "a", "jane.doe", "acme.io",
            "https://", "user:pw", "/", "#", "<", "[", "\\", "'", "%", "+",
            "CREDENTIALS", "A", "1", "_", "x", "p1", "Ab", "key", "Token", "hunter2", "s3cr3t-v4lue", "${X}", "'"]


def _passed_over(text: bytes, before: re.Pattern[bytes]) -> list[int]:
    gated = {m.start() for m in rules._GATE.finditer(text)}
    return [m.start() for m in before.finditer(text) if m.start() not in gated]


def _found_at(text: bytes, at: int) -> bool:
    return bool(rules._assignment(text, at, len(text)) if text[at] == 0x3D else rules._at(text, at, len(text), ()))


@settings(max_examples=max(2000, settings().max_examples))
@given(st.lists(st.sampled_from(EQ_AT_ATOMS), min_size=1, max_size=16))
@example(["TOKEN", "2", "=", "s3cr3t-v4lue"])  # .env names of five and more that end in no word
@example(["\\n", "TOKEN", "ID", " ", "=", "hunter2"])
@example(["export ", "MY_TOKEN", "_", "=", "hunter2"])
@example(["\"", "SECRET", "2", "=", "${X}", "s3cr3t-v4lue"])
@example(["Api", "_", "key", "=", "s3cr3t-v4lue"])  # a key's word in any case, and an e-mail or URL's password
@example(["monkey", "=", "s3cr3t-v4lue", " ", "jane.doe", "@", "acme.io", " ", "https://", "user:pw", "@", "a"])
def test_an_equals_sign_or_at_sign_the_gate_passes_over_holds_no_secret(atoms: list[str]) -> None:
    text = "".join(atoms).encode()
    for at in _passed_over(text, ONE_CAPITAL_EQ) + _passed_over(text, ANY_AT):
        assert not _found_at(text, at), (text, at)


def test_an_equals_sign_or_at_sign_the_gate_passes_over_holds_no_secret_on_the_captures() -> None:
    passed = {b"=": 0, b"@": 0}
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        for line in path.read_bytes().split(b"\n"):
            for at in _passed_over(line, ONE_CAPITAL_EQ) + _passed_over(line, ANY_AT):
                passed[line[at:at + 1]] += 1
                assert not _found_at(line, at), (path.name, at)
    assert min(passed.values()) > 50, passed  # the captures have such (code: "p1 = a", "key={i}", " * @param")


@pytest.mark.parametrize("path", sweep(REAL_FILES + SESSION_FILES, lambda p: p.name[:50]))
def test_the_gate_finds_its_plain_forms_anchors_and_no_secret_where_it_passes_over_on_every_capture(
        path: Path | None) -> None:
    assert path is not None
    for line in path.read_bytes().split(b"\n"):
        assert [s for s, _ in _anchors(rules._GATE, line, 0, len(line))] == \
            [s for s, _ in _anchors(PLAIN_GATE, line, 0, len(line))]
        for at in _passed_over(line, ONE_CAPITAL_EQ) + _passed_over(line, ANY_AT):
            assert not _found_at(line, at), at
