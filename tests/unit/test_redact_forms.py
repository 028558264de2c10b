"""Secrets written in the other forms a transcript has them in: as a JSON or YAML key's value
(``"password": "x"``, ``password: x``), with ``\\u`` escapes for plain letters, in a project
folder's name whose user name holds a dash, and planted in the value of an id-like key."""

from __future__ import annotations

import json
import subprocess
import sys

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
