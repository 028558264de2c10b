"""Secrets written in the other forms a transcript has them in: as a JSON or YAML key's value
(``"password": "x"``, ``password: x``), with ``\\u`` escapes for plain letters, in a project
folder's name whose user name holds a dash, and planted in the value of an id-like key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from _corpus import ROOT

from relayscope.redact import LEFT, Redactor, redact_text

ENV = {"PYTHONPATH": str(ROOT / "py"), "PATH": "/usr/bin:/bin"}
ANTHROPIC = "sk-ant-api03-" + "Xy7_kLmN0pQrStUvWxYz-AbCdEfGhIjKlMnOpQrStUvWxYz" * 2 + "AA"
AWS = "AKIAQ3EGRZ7XKWLM5TN4"
GITHUB = "ghp_" + "R8nX2kP9vLq4Tz7WmY3bC6dF1gH5jK0sA2eN"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


def redacted(value: object) -> object:
    return json.loads(Redactor().line(json.dumps(value)))


# --- a secret-named key's value, in JSON and YAML ------------------------------------------------

def test_the_value_of_a_secret_named_json_key_is_redacted() -> None:
    value = {"password": "x", "passwd": "hunter2", "client_secret": "a b\"c", "api_key": "k-1", "db_token": "t",
             "access_key": "ak", "apiKey": "x9"}
    assert redacted(value) == {k: f"[redacted:secret:{n}]" for n, k in enumerate(value, 1)}
    # not a secret-named key, no string value, or no value yet: kept
    kept = {"passwords": "abc", "token_type": "bearer", "max_tokens": 5, "password_hint": "a pet", "key": "k1",
            "password": "", "secret": None, "token": "[redacted:secret:1]", "api_key": "YOUR_API_KEY"}
    assert redacted(kept) == kept


def test_a_secret_named_key_in_json_inside_a_string_or_a_python_dict() -> None:
    inner = json.dumps({"user": "bob", "password": "hunter2", "token": 'q"uo\\te'})
    out = redacted({"content": inner})
    assert isinstance(out, dict)
    assert json.loads(out["content"]) == {"user": "bob", "password": "[redacted:secret:1]", "token": "[redacted:secret:2]"}
    assert redacted({"t": "{'password': 'hunter2', 'user': 'bob'}"}) == \
        {"t": "{'password': '[redacted:secret:1]', 'user': 'bob'}"}


def test_a_yaml_line_gives_its_value_and_prose_keeps_its_words() -> None:
    """A YAML key is one at a line's start; its unquoted value is one word ending the line with a
    digit in it (quoted: any; a name in capitals: any), else the colon is prose's."""
    text = ("config:\n  password: hunter22\n  - db_password: 's3cret pw'\nDB_PASSWORD: abcd\n"
            "password: required\nthe password: is required\npassword: see the docs, 2 pages\n"
            "Your password: hunter22\n")
    out = redacted({"t": text})
    assert out == {"t": "config:\n  password: [redacted:secret:1]\n  - db_password: '[redacted:secret:2]'\n"
                        "DB_PASSWORD: [redacted:secret:3]\npassword: required\nthe password: is required\n"
                        "password: see the docs, 2 pages\nYour password: hunter22\n"}


def test_a_secret_named_key_streamed_in_pieces_is_redacted_whole() -> None:
    def delta(text: str) -> str:
        return json.dumps({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": text}}, "parent_tool_use_id": None})
    whole = json.dumps({"command": "login", "password": "hunter2-xyz"})
    pieces = [whole[i:i + 3] for i in range(0, len(whole), 3)]
    out = Redactor().lines([delta(p) for p in pieces] + [json.dumps(
        {"type": "stream_event", "event": {"type": "content_block_stop", "index": 0}, "parent_tool_use_id": None})])
    joined = "".join(json.loads(line)["event"]["delta"]["partial_json"] for line in out[:-1])
    assert json.loads(joined) == {"command": "login", "password": "[redacted:secret:1]"}


# --- a secret planted in an id-like value ----------------------------------------------------------

def test_a_key_with_a_provider_prefix_is_redacted_even_in_an_id_like_value() -> None:
    value = {"id": AWS, "tool_use_id": ANTHROPIC, "signature": GITHUB, "uuid": "5d1c2f4e-8b7a-4c3d-9e2f-1a0b9c8d7e6f",
             "message": {"id": "msg_01XFDUDYJgAACzvnptvVoYEL"}, "other_id": "toolu_01QwErTyUiOpAsDfGhJkLzXc"}
    assert redacted(value) == {**value, "id": "[redacted:aws-key:1]", "tool_use_id": "[redacted:anthropic-key:1]",
                               "signature": "[redacted:github-token:1]"}


def test_a_jwt_or_assignment_in_an_id_like_value_is_left_and_listed() -> None:
    r = Redactor()
    line = json.dumps({"request_id": JWT, "session_id": "password=hunter22", "text": "ok"})
    assert r.line(line) == line
    assert [(f.kind, f.placeholder) for f in r.findings] == [("jwt", LEFT), ("secret", LEFT)]
    assert all(f.masked.endswith(", " + LEFT) and JWT not in f.masked for f in r.findings)
    assert r.count == 0 and r.summary() == "0 secrets in 0 places; 2 left in id-like fields"


def test_redact_list_shows_what_is_left_in_an_id_like_value() -> None:
    data = json.dumps({"type": "user", "uuid": JWT, "message": {"content": "hi"}}) + "\n"
    p = subprocess.run([sys.executable, "-m", "relayscope", "redact", "--list", "-"], input=data.encode(),
                       capture_output=True, env=ENV, timeout=60, check=False)
    assert p.returncode == 0, p.stderr.decode()
    rows = p.stdout.decode().splitlines()
    assert len(rows) == 2 and "jwt" in rows[1] and LEFT in rows[1] and JWT not in p.stdout.decode()
    assert "1 left in id-like fields" in p.stderr.decode()
    assert redact_text(data) == data


# --- \u escapes of plain letters --------------------------------------------------------------------

def escaped(text: str, every: int = 2) -> str:
    """``text`` with every ``every``-th letter or digit written as a ``\\u`` escape (as JSON may)."""
    return "".join(f"\\u{ord(c):04x}" if c.isalnum() and i % every == 0 else c for i, c in enumerate(text))


def test_a_secret_written_with_u_escapes_is_redacted_whole_and_numbered_as_itself() -> None:
    r = Redactor()
    for raw in ('{"t":"key ' + escaped(ANTHROPIC, 5) + ' ok"}', '{"t":"' + escaped(AWS, 1) + '"}',
                '{"t":"mail \\u006aane@acme.io, \\u0022' + AWS + '\\u0022"}',
                '{"t":"/Users/\\u006aanedoe/x ' + escaped("password=hunter22") + ' Bearer ' + escaped(GITHUB, 3) + '"}'):
        out = r.line(raw)
        assert json.loads(out)["t"].count("[redacted:") >= 1 and r.line(out) == out, out
        decoded = json.loads(out)["t"]
        assert not any(s in decoded for s in (ANTHROPIC, AWS, "jane", "hunter22", GITHUB)), out
    assert [f.placeholder for f in r.findings if f.kind == "aws-key"] == ["[redacted:aws-key:1]"] * 2
    assert r.line('{"t":"' + AWS + '"}') == '{"t":"[redacted:aws-key:1]"}'  # the same key, escaped or not
    # escaped twice (JSON inside a JSON string): the same
    line = json.dumps({"content": json.dumps({"key": "x"}).replace('"x"', '"' + escaped(AWS, 3) + '"')})
    assert "\\\\u" in line and json.loads(json.loads(Redactor().line(line))["content"]) == {"key": "[redacted:aws-key:1]"}


def test_escapes_of_quotes_and_other_characters_are_kept_around_a_placeholder() -> None:
    line = '{"t":"caf\\u00e9 \\u001b[1m\\u003cb\\u003e \\u0022' + AWS + '\\u0022\\u005c"}'
    out = Redactor().line(line)
    assert out == line.replace(AWS, "[redacted:aws-key:1]") and json.loads(out)


def test_a_key_streamed_in_pieces_with_u_escapes_is_redacted() -> None:
    """The escapes may be cut between two deltas' raw text (JSON inside a tool input's pieces)."""
    whole = json.dumps({"command": "export K=" + escaped(ANTHROPIC, 4)})
    assert "\\u" in whole
    def delta(text: str) -> str:
        return json.dumps({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": text}}, "parent_tool_use_id": None})
    for step in (1, 4, 7):
        lines = [delta(whole[i:i + step]) for i in range(0, len(whole), step)]
        out = Redactor().lines([*lines, json.dumps({"type": "stream_event", "event": {
            "type": "content_block_stop", "index": 0}, "parent_tool_use_id": None})])
        joined = json.loads("".join(json.loads(line)["event"]["delta"]["partial_json"] for line in out[:-1]))
        assert joined == {"command": "export K=[redacted:anthropic-key:1]"}, step


# --- a dashed user name in a project folder's name ----------------------------------------------------

def test_a_dashed_user_name_in_a_project_folder_is_taken_whole_from_the_sessions_cwd() -> None:
    folder = '{"type":"user","message":{"content":"see ~/.claude/projects/-Users-jane-doe-src-app/1.jsonl"}}'
    cwd = '{"type":"user","cwd":"/Users/jane-doe/src/app","message":{"content":"hi"}}'
    # on the same line, before its cwd; on a line before the cwd's (a whole input learns it first)
    assert "doe" not in Redactor().line(folder[:-1] + ',"cwd":"/Users/jane-doe/src/app"}')
    out = redact_text(folder + "\n" + cwd)
    assert "jane" not in out and "doe" not in out and out.count("[redacted:user:1]") == 2, out
    assert "-Users-[redacted:user:1]-src-app" in out
    for home, path in (("-home-jane-doe-src", "/home/jane-doe/src"), ("C--Users-jane-doe-x", "C:\\\\Users\\\\jane-doe\\\\x"),
                       ("-Users-jane-doe-x", "/Users/jane.doe/x")):
        out = redact_text(json.dumps({"f": home}) + "\n" + f'{{"cwd":"{path}"}}')
        assert "doe" not in out, out
    # no cwd and no home path anywhere: Claude Code made the name's dash a separator, the name is cut
    assert Redactor().line(json.dumps({"f": "-Users-jane-doe-app"})) == '{"f": "-Users-[redacted:user:1]-doe-app"}'


def test_redact_o_names_a_dashed_users_project_folder_whole(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-Users-jane-doe-src-app"
    folder.mkdir(parents=True)
    (folder / "s.jsonl").write_text(json.dumps({"type": "user", "cwd": "/Users/jane-doe/src/app", "sessionId": "s",
                                                "uuid": "u1", "message": {"role": "user", "content": "hi"}}) + "\n")
    for args in (["redact", str(tmp_path / "projects"), "-o", str(tmp_path / "out")],
                 ["translate", "--redact", str(tmp_path / "projects")]):
        p = subprocess.run([sys.executable, "-m", "relayscope", *args], capture_output=True, env=ENV, timeout=60,
                           check=False)
        assert p.returncode == 0, p.stderr.decode()
        assert b"doe" not in p.stdout + p.stderr, p.stdout
    written = [q.relative_to(tmp_path / "out").as_posix() for q in (tmp_path / "out").rglob("*.jsonl")]
    assert written == ["-Users-[redacted:user:1]-src-app/s.jsonl"]
