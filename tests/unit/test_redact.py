"""Redaction for sharing (``redact.py``, ``relayscope redact``, ``--redact``).

A transcript with a planted secret of every kind (tests/fixtures/redact/planted.jsonl; the
secrets in planted-secrets.json) comes out with none of them, every line still JSON of the same
shape with the same ids; the same secret gets the same placeholder. On every real capture the
redacted input translates and audits exactly as the original (relay for relay, block for block),
and nothing that is an id, a uuid, a hash or a signature is ever taken for a secret. detect-secrets
(a maintained rule set, CPython only) checks our output independently. What lines that are no JSON,
keys, escapes and Claude Code's project folder names hold is redacted too."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURES, REAL_FILES, ROOT, SESSION_FILES, SHARED_REAL, sweep

from relayscope.multifile import audit_input, translate_files
from relayscope.redact import Redactor, redact_bytes, redact_text

PLANTED = FIXTURES.parent / "redact" / "planted.jsonl"
SECRETS: dict[str, str] = json.loads((FIXTURES.parent / "redact" / "planted-secrets.json").read_text())
ENV = {"PYTHONPATH": str(ROOT / "py"), "PATH": "/usr/bin:/bin"}
PLACEHOLDER = re.compile(r"\[redacted:([a-z-]+):(\d+)\]")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
ID_LIKE = re.compile(r"^(?:[0-9a-fA-F-]{16,}|toolu_\w+|msg_\w+|call_\w+|req_\w+|agent-\w+|[A-Za-z0-9+/=]{60,})$")


def run(*args: str, stdin: bytes | None = None, code: int = 0) -> subprocess.CompletedProcess[bytes]:
    p = subprocess.run([sys.executable, "-m", "relayscope", *args], capture_output=True, env=ENV, timeout=60,
                       check=False, input=stdin)
    assert p.returncode == code, p.stderr.decode()
    return p


def leftovers(text: str) -> list[str]:
    return [kind for kind, secret in SECRETS.items() if secret in text]


def same_shape(a: Any, b: Any, path: str = "$") -> None:
    """The same JSON but for strings that hold placeholders; ids untouched."""
    assert type(a) is type(b), path
    if isinstance(a, dict):
        assert len(a) == len(b), path
        for (k, v), (k2, v2) in zip(a.items(), b.items(), strict=True):
            assert k == k2 or PLACEHOLDER.search(k2), (path, k, k2)  # a key holding a secret (a path) has it replaced
            same_shape(v, v2, f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same_shape(x, y, f"{path}[{i}]")
    elif a != b:  # a placeholder, or a piece of a streamed text that held part of one
        assert isinstance(b, str) and (PLACEHOLDER.search(b) or path.endswith(("delta.text", "delta.thinking"))), path
        assert not re.search(r"(?:^|\.)(?:id|uuid|tool_use_id|session_id|signature)$", path), path


def test_every_planted_secret_is_gone_and_every_line_keeps_its_shape() -> None:
    original = PLANTED.read_text()
    assert len(leftovers(original)) == len(SECRETS)
    r = Redactor()
    out = redact_text(original, r)
    assert leftovers(out) == []
    for before, after in zip(original.splitlines(), out.splitlines(), strict=True):
        same_shape(json.loads(before), json.loads(after))
    kinds = {k for k, _ in r.numbers}
    assert kinds == {"anthropic-key", "openai-key", "aws-key", "github-token", "gitlab-token", "slack-token",
                     "google-key", "stripe-key", "jwt", "private-key", "secret", "url-credentials", "email", "user"}


def test_the_same_secret_gets_the_same_placeholder_everywhere() -> None:
    out = redact_text(PLANTED.read_text())
    assert out.count("[redacted:aws-key:1]") == 3 and "[redacted:aws-key:2]" not in out
    # the user name of /Users/NAME/ is also hidden in Claude Code's project folder names
    assert "/Users/[redacted:user:1]/" in out and "-Users-[redacted:user:1]-projects" in out
    assert "C:\\\\Users\\\\[redacted:user:3]\\\\Documents" in out  # a Windows path, JSON-escaped
    assert out.count("[redacted:email:1]") == 2


def test_a_secret_cut_across_streamed_deltas_is_redacted_and_the_pieces_still_join_up() -> None:
    """A model streams a key a few characters a delta: no delta holds it whole. The block's pieces
    are held until it ends, redacted as one text, and cut back: joined, they are the redacted
    final message's text, so lineage still sees the message it streamed."""
    original = [json.loads(line) for line in PLANTED.read_text().splitlines()]
    pieces = [o["event"]["delta"]["text"] for o in original[3:6]]
    assert SECRETS["aws-key"] in "".join(pieces) and not any(SECRETS["aws-key"] in p for p in pieces)  # cut in two
    out = [json.loads(line) for line in redact_text(PLANTED.read_text()).splitlines()]
    redacted = [o["event"]["delta"]["text"] for o in out[3:6]]
    assert redacted == ["Found the key [redacted:aws-key:1]",
                        " in /home/[redacted:user:2]/.aws/credentials; mail [redacted:email:1]", "."]
    assert "".join(redacted) == out[7]["message"]["content"][1]["text"]
    # the same through the CLI's filter, a line at a time from a pipe
    p = subprocess.run([sys.executable, "-m", "relayscope", "redact", "-"], input=PLANTED.read_bytes(),
                       capture_output=True, env=ENV, timeout=60, check=False)
    assert p.stdout == redact_bytes(PLANTED.read_bytes())


def test_ids_uuids_and_signatures_are_never_touched() -> None:
    original = [json.loads(line) for line in PLANTED.read_text().splitlines()]
    out = [json.loads(line) for line in redact_text(PLANTED.read_text()).splitlines()]
    sig = original[7]["message"]["content"][0]["signature"]
    assert "AKIA" in sig and "sk-ant-" in sig and out[7]["message"]["content"][0]["signature"] == sig
    assert [o.get("uuid") for o in out] == [o.get("uuid") for o in original]
    assert out[7]["message"]["content"][2]["id"] == "toolu_01QwErTyUiOpAsDfGhJkLzXc"


def test_escapes_bytes_and_lines_that_are_no_json() -> None:
    r = Redactor()
    line = '{"t":"caf\\u00e9 \\/Users\\/bob\\/x \\"AKIAQ3EGRZ7XKWLM5TN4\\" \\ud83d"}'
    out = r.line(line)
    assert json.loads(out)["t"] == json.loads(line)["t"].replace("bob", "[redacted:user:1]").replace(
        "AKIAQ3EGRZ7XKWLM5TN4", "[redacted:aws-key:1]")
    raw = b'{"t":"caf\xe9 jane@acme.io"}\n'
    assert r.line(raw) == b'{"t":"caf\xe9 [redacted:email:1]"}\n'  # bytes that are not UTF-8 kept as they were
    assert r.line("event: x jane@acme.io") == "event: x [redacted:email:1]"  # SSE and plain lines too
    # a JWT in an id-like value is left (and listed); an address is one anywhere, a key too
    jwt = SECRETS["jwt"]
    assert r.line(f'{{"id":"{jwt}","{jwt}":1}}') == f'{{"id":"{jwt}","[redacted:jwt:1]":1}}'
    assert r.line('{"id":"jane@acme.io","jane@acme.io":1}') == '{"id":"[redacted:email:1]","[redacted:email:1]":1}'
    assert redact_bytes(b"a\nb\n") == b"a\nb\n"


def test_redact_command_translate_and_trace_leave_no_secret() -> None:
    p = run("redact", str(PLANTED))
    assert leftovers(p.stdout.decode()) == [] and b"redacted 23 secrets" in p.stderr
    assert p.stdout == redact_bytes(PLANTED.read_bytes())
    for args in (["translate"], ["translate", "-f", "text"], ["translate", "-f", "json"], ["trace"], ["trace", "--json"]):
        p = run(*args, "--redact", str(PLANTED))
        assert leftovers(p.stdout.decode()) == [], args
        assert b"[redacted:aws-key:1]" in p.stdout
    assert run("audit", "--redact", "--json", str(PLANTED)).stdout == run("audit", "--json", str(PLANTED)).stdout
    followed = subprocess.run([sys.executable, "-m", "relayscope", "translate", "--follow", "--redact", str(PLANTED)],
                              capture_output=True, env=ENV, timeout=60, check=False)
    assert followed.returncode == 2 and followed.stdout == b""  # never an unredacted output
    listed = run("redact", "--list", str(PLANTED)).stdout.decode()
    assert leftovers(listed) == [] and "sk-ant-… (108 chars)" in listed


def test_redact_a_folder_into_another(tmp_path: Path) -> None:
    folder = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log" / "test" / "test_data" / "real_projects"
    run("redact", str(folder), "-o", str(tmp_path / "out"))
    written = sorted(p.relative_to(tmp_path / "out") for p in (tmp_path / "out").rglob("*.jsonl"))
    assert written == sorted(p.relative_to(folder) for p in folder.rglob("*.jsonl"))
    before = translate_files({str(p): p.read_bytes() for p in folder.rglob("*.jsonl")})
    after = translate_files({str(p): p.read_bytes() for p in (tmp_path / "out").rglob("*.jsonl")})
    assert [len(r.relays) for r in before] == [len(r.relays) for r in after]


def _numbers(audits: list[Any]) -> list[tuple[Any, ...]]:
    return [(a.strategy, a.relays, a.blocks, a.emitted, a.lost, a.duplicated, a.extra_emissions, a.unmatched,
             (a.first_lost or {}).get("line"), (a.first_duplicated or {}).get("seqs")) for a in audits]


def _relays(groups: list[Any]) -> list[tuple[Any, ...]]:
    return [(r.type, r.seq, r.line, r.lane, getattr(r, "id", None), getattr(r, "message_id", None))
            for g in groups for r in g.relays]


def _check_same_translation(files: dict[str, bytes]) -> Redactor:
    r = Redactor()
    redacted = {name: redact_bytes(data, r) for name, data in files.items()}
    assert _numbers([a for g in audit_input(redacted) for a in g.audits]) == \
        _numbers([a for g in audit_input(files) for a in g.audits])
    assert _relays(translate_files(redacted)) == _relays(translate_files(files))
    for name, data in redacted.items():
        for before, after in zip(files[name].split(b"\n"), data.split(b"\n"), strict=True):
            if before != after:
                same_shape(json.loads(before), json.loads(after))
    for (kind, secret) in r.numbers:
        assert not UUID.match(secret) and not ID_LIKE.match(secret), (kind, secret)
    return r


def test_the_planted_transcript_translates_and_audits_as_before() -> None:
    _check_same_translation({"planted.jsonl": PLANTED.read_bytes()})


@pytest.mark.parametrize("path", sweep(REAL_FILES + SESSION_FILES, lambda p: p.name[:50]))
def test_redacted_captures_translate_and_audit_as_the_originals(path: Path | None) -> None:
    assert path is not None
    r = _check_same_translation({str(path): path.read_bytes()})
    assert_witnessed(r.numbers, path.read_text(errors="replace"))


def test_what_a_maintained_rule_set_finds_is_gone() -> None:
    """detect-secrets' own plugins (not its entropy or keyword guesses, which flag ids) find the
    planted keys in the original and nothing in our output."""
    scan = pytest.importorskip("detect_secrets.core.scan")
    settings = pytest.importorskip("detect_secrets.settings")

    def found(text: str) -> set[str]:
        out = set()
        with settings.default_settings():
            for line in text.splitlines():
                for s in scan.scan_line(line):
                    if "Entropy" not in s.type and s.type != "Secret Keyword":
                        out.add(s.type)
        return out

    before = found(PLANTED.read_text())
    assert len(before) >= 8, before
    assert found(redact_text(PLANTED.read_text())) == set()


# What a finding on a real capture must stand beside in the raw text for its kind to be right,
# read off the capture itself (not off the rules): a home folder's user name after /Users/,
# /home/, C:\\Users\\ or a project folder's -Users-, an ls -l listing's owner or a prompt's NAME@HOST;
# an e-mail address; URL credentials between
# "://" and "@" (one carried capture, CLI 2.1.146, really leaks a database password that way); a
# secret as the value of a NAME=, password=, password: or Bearer whose name says it is one (a .env
# line in a session, even a 1Password reference such as KEY=op://...; a test's password: "secret123").
_WITNESS = {
    "user": lambda s: (rf"(?:/Users/|/home/|Users\\\\|-Users-|-home-|[-dlcbps][-rwxsStT]{{9}}[@+.]? +[0-9]+ +(?:\S+ +)?)"
                       rf"{re.escape(s)}|{re.escape(s)}@"),  # a home path, an ls -l owner, a prompt
    "host": lambda s: rf"@{re.escape(s)}",
    "email": lambda s: rf"(?<![A-Za-z0-9._%+-]){re.escape(s)}" if re.fullmatch(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}", s) else "(?!)",
    "url-credentials": lambda s: rf"://{re.escape(s)}@",
    "secret": lambda s: rf"(?i)(?:(?:password|passwd|secret|token|key|credentials?)(?:[ \t]*=|\\?['\"]?:)[ \t]*\\?['\"]?"
                        rf"|bearer[ \t]+){re.escape(s)}",
}


def assert_witnessed(numbers: list[tuple[str, str]], text: str) -> None:
    """Every finding stands in the raw text where its kind says, and is no id, uuid or hash."""
    for kind, secret in numbers:
        assert kind in _WITNESS, (kind, secret)  # a provider's key in a public capture: look at it
        assert re.search(_WITNESS[kind](secret), text), (kind, secret)
        assert not UUID.match(secret) and not ID_LIKE.match(secret), (kind, secret)


def test_a_real_capture_leaking_a_database_url_has_it_redacted() -> None:
    path = next(FIXTURES.rglob("DavidMarom*"))
    text = path.read_text()
    secret = re.search(r"postgresql://([^@\s\\\"]+)@", text)
    assert secret is not None
    out = redact_text(text)
    assert secret.group(1) not in out and "postgresql://[redacted:url-credentials:1]@" in out


def test_false_positives_on_every_real_capture() -> None:
    """Every finding on the real captures (carried and shared) is a home-folder user name, an
    e-mail address or the one real leaked database URL, never an id, uuid, hash or signature."""
    files = sorted({*FIXTURES.rglob("*.jsonl"), *(SHARED_REAL.rglob("*.jsonl") if SHARED_REAL.is_dir() else [])})
    found = 0
    for path in files:
        r = Redactor()
        redact_bytes(path.read_bytes(), r)
        assert_witnessed(r.numbers, path.read_text(errors="replace"))
        found += len(r.numbers)
    assert found > 0  # the carried captures hold user names and one leaked URL


def test_damaged_input_never_raises_and_keeps_its_lines() -> None:
    """Bad input is data: cut, doubled, unbalanced or undecodable lines are redacted where they
    can be and otherwise passed on; the number of lines never changes (deterministic mutations)."""
    rng = random.Random(22)
    data = PLANTED.read_bytes() + (FIXTURES / "stream-json" /
                                   "foksa__open-claude-agent-sdk__tests__snapshots__streaming-haiku.jsonl").read_bytes()
    for _ in range(300):
        b = bytearray(data)
        for _ in range(rng.randint(1, 12)):
            pos = rng.randrange(len(b))
            op = rng.random()
            if op < 0.4:
                b[pos] = rng.randrange(256)
            elif op < 0.7:
                del b[pos:pos + rng.randint(1, 30)]
            else:
                b[pos:pos] = rng.choice([b'"', b"\\", b"{", b"[" * 50, b"\\u12", b"\xff", b"@a.io", b"/Users/x/", b"\n"])
        out = redact_bytes(bytes(b))
        assert out.count(b"\n") == b.count(b"\n")
    assert redact_bytes(b'{"type":"stream_event","event":' * 3000) == b'{"type":"stream_event","event":' * 3000


def test_exports_and_stats_take_redact_too() -> None:
    """The run as a trace carries tool inputs (a command, a path) in its span names and attributes:
    with --redact none of the planted secrets is left in it, and the spans are the same."""
    for args in (["export", "--format", "chrome-trace"], ["export", "--format", "otlp"], ["stats", "--json"]):
        plain = run(*args, str(PLANTED))
        redacted = run(*args, "--redact", str(PLANTED))
        assert plain.returncode == redacted.returncode == 0, (args, redacted.stderr)
        assert leftovers(redacted.stdout.decode()) == [], args
        assert b"redacted" in redacted.stderr
    plain_spans = json.loads(run("export", "--format", "chrome-trace", str(PLANTED)).stdout)
    red_spans = json.loads(run("export", "--format", "chrome-trace", "--redact", str(PLANTED)).stdout)
    shape = [(e.get("ph"), e.get("ts"), e.get("dur"), e.get("tid")) for e in plain_spans["traceEvents"]]
    assert shape == [(e.get("ph"), e.get("ts"), e.get("dur"), e.get("tid")) for e in red_spans["traceEvents"]]
    assert leftovers(json.dumps(plain_spans))  # the check above can fail: unredacted, the trace leaks


def test_a_line_cut_mid_way_or_no_json_is_redacted_as_text_and_not_repeated_in_the_error() -> None:
    """A run killed mid-line leaves a last line that stops inside a string; a line may be no JSON
    at all. Both are redacted as text, so the error relay that carries the line carries no secret."""
    key = SECRETS["anthropic-key"]
    cut = '{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"the key is ' + key[:60]
    garbage = f"export ANTHROPIC_API_KEY={key} # mail jane@acme.io, /home/jdoe42/x"
    data = (PLANTED.read_text().splitlines()[0] + "\n" + garbage + "\n" + cut).encode()
    out = redact_bytes(data)
    assert SECRETS["anthropic-key"][:60] not in out.decode() and b"jane@acme.io" not in out and b"jdoe42" not in out
    assert out.count(b"\n") == data.count(b"\n")
    p = run("translate", "--redact", "-", stdin=data, code=1)
    errors = [json.loads(line) for line in p.stdout.splitlines() if b'"error"' in line]
    assert [e["line"] for e in errors] == [2, 3]
    assert all(key[:20] not in e["raw"] and "jdoe42" not in e["raw"] for e in errors), errors
    assert key[:20].encode() not in p.stderr and b"jdoe42" not in p.stderr


def test_a_project_folder_name_is_redacted_before_any_home_path_is_seen() -> None:
    r = Redactor()
    for raw, user in (('{"f":"~/.claude/projects/-Users-alice-code-app/x.jsonl"}', "alice"),
                      ('{"f":"/root/.claude/projects/-home-bob-src/1.jsonl"}', "bob"),
                      ('{"cwd":"C--Users-carol-Documents"}', "carol")):
        out = r.line(raw)
        assert user not in out and "[redacted:user:" in out, out
    # a name with a dot, once seen in a path, is taken whole in the folder's form (dot made a dash)
    r = Redactor()
    r.line('{"cwd":"/Users/john.doe/app"}')
    assert r.line('{"f":"-Users-john-doe-app/1.jsonl"}') == '{"f":"-Users-[redacted:user:1]-app/1.jsonl"}'


def test_json_inside_a_string_with_escaped_slashes_is_redacted() -> None:
    inner = json.dumps({"path": "/Users/janedoe/.aws", "url": "https://admin:Sup3rS3cret@db.io/x",
                        "key": SECRETS["aws-key"]}).replace("/", "\\/")
    line = json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "content": inner}]}})
    assert "\\\\/Users\\\\/janedoe" in line  # a slash escaped twice over: JSON in a JSON string
    out = Redactor().line(line)
    assert "janedoe" not in out and "Sup3rS3cret" not in out and SECRETS["aws-key"] not in out
    assert json.loads(json.loads(out)["message"]["content"][0]["content"].replace("\\/", "/"))["path"] == \
        "/Users/[redacted:user:1]/.aws"


def test_a_secret_used_as_an_object_key_is_redacted() -> None:
    line = json.dumps({"trackedFileBackups": {"/Users/janedoe/notes.md": {"version": 1}},
                       SECRETS["github-token"]: "x", "id": SECRETS["jwt"]})
    out = Redactor().line(line)
    assert "janedoe" not in out and SECRETS["github-token"] not in out
    assert json.loads(out)["id"] == SECRETS["jwt"]  # a JWT in an id-like value is left
    assert list(json.loads(out)) == ["trackedFileBackups", "[redacted:github-token:1]", "id"]


def test_redacting_twice_is_redacting_once() -> None:
    """A token inside URL credentials goes with them: nothing of it is left for a second pass."""
    token = SECRETS["github-token"]
    for text in (f"git push https://x:{token}@github.com/acme/app", f"postgres://admin:{token}@db:5432",
                 f"{SECRETS['aws-key']}{SECRETS['google-key']}", f"password={SECRETS['password']}/Users/janedoe/x"):
        once = Redactor().line(json.dumps({"t": text}))
        assert Redactor().line(once) == once, once
        assert token not in once
    out = redact_text(PLANTED.read_text())
    assert redact_text(out) == out


def test_a_megabyte_line_of_near_secrets_is_redacted() -> None:
    """Lines that make a rule try at every start (tens of thousands of look-alikes: before, one
    rule rescanned from each, and such a line did not finish in minutes) are redacted in full:
    each anchor is matched where it is. The time per megabyte, flat in the line's length, is
    bench/redact_bench.py's."""
    for unit in ("password=password=", "-Users-", "a@b.", "sk-ant-", "AKIA" * 4 + "-", "/home/", "x=" * 3,
                 '"api_key": "ab', "\npassword: a1b2c3", "\\u0041KIA", "/Users/a-b/-Users-a-b-"):
        line = json.dumps({"t": unit * (1_000_000 // len(unit)) + " " + SECRETS["aws-key"]})
        out = Redactor().line(line)
        assert json.loads(out)["t"].endswith(" [redacted:aws-key:1]"), unit


# name=value: a password word ending the name (any case, a digit in the value), or a .env line's
# NAME in capitals holding KEY, TOKEN, SECRET, PASSWORD/PASSWD or CREDENTIAL(S) (any value); and
# names that only look like one (the rule reads the word before "=" only when one of these can be it)
ASSIGNMENTS = [
    ("password=hunter2x9", True), ("db_passwd = s3cretvalue1", True), ("client-secret=abc123xyz", True),
    ("api_key=abcd1234ef", True), ("apikey=abcd1234ef", True), ("access-key=abcd1234ef", True),
    ("my_token=tok3n4567", True), ("Token=tok3n4567", True), ("secret=value99xx", True),
    ("\nexport AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI", True), ("\nGITHUB_TOKEN=ghx1234", True),
    ("\nDB_PASSWORD=hunter", True), ("\nSMTP_PASSWD=hunter", True), ("\nSTRIPE_API_KEY=abcd", True),
    ("\nOPENAI_APIKEY=abcd", True), ("\nGOOGLE_CREDENTIALS=abcd", True), ("\nGCP_CREDENTIAL=abcd", True),
    ("\nSSH_PRIVATE_KEY=abcd", True), ("\nMY_ACCESSKEY=abcd", True), ("\nTOKENS=abcd", True),
    ("\nKEYCHAIN=abcd", False), ("key={index}", False), ("monkey=banana123", False), ("turkey=abc12345", False),
    ("\nDONKEY=abcd", False), ("tokenizer=abc12345", False), ("x=1", False), ("\nPATH=/usr/bin", False),
    ("passwordless=abc12345", False), ("\nNOT A KEY=abcd", False),
]


@pytest.mark.parametrize(("text", "secret"), ASSIGNMENTS, ids=[t.strip() for t, _ in ASSIGNMENTS])
def test_an_assignment_is_redacted_by_its_name(text: str, secret: bool) -> None:
    value = text.rsplit("=", 1)[1].strip()
    out = json.loads(Redactor().line(json.dumps({"t": text})))["t"]
    assert out == (text.replace(value, "[redacted:secret:1]") if secret else text)


@pytest.mark.parametrize("argv", [["redact", "a.jsonl"], ["redact"], ["redact", "-"], ["redact", "a", "-", "b"]],
                         ids=lambda argv: " ".join(argv))
def test_a_plain_redact_is_read_as_argparse_reads_it(argv: list[str]) -> None:
    from relayscope import cli
    from relayscope.cli import parser as cliargs

    plain = cli._plain_redact(argv)
    assert plain is not None
    assert vars(plain) == vars(cliargs.build_parser(argv).parse_args(argv))


@pytest.mark.parametrize("argv", [["redact", "--list", "a"], ["redact", "a", "-o", "d"], ["redact", "--"],
                                  ["redact", "-h"], ["translate", "a"], ["red", "a"], []], ids=lambda argv: " ".join(argv))
def test_a_redact_with_an_option_is_left_to_argparse(argv: list[str]) -> None:
    from relayscope import cli

    assert cli._plain_redact(argv) is None


def test_a_plain_redact_loads_no_argparse(tmp_path: Path) -> None:
    session = tmp_path / "run.jsonl"
    session.write_text('{"type":"user","cwd":"/Users/jane/app","t":"key AKIAQ3EGRZ7XKWLM5TN4"}\n')
    code = ("import sys, runpy; sys.argv = ['relayscope', 'redact', sys.argv[1]]\n"
            "try: runpy.run_module('relayscope', run_name='__main__')\n"
            "except SystemExit: pass\n"
            "sys.stderr.write(' '.join(sorted(sys.modules)))")
    p = subprocess.run([sys.executable, "-c", code, str(session)], capture_output=True, env=ENV, timeout=60, check=False)
    loaded = set(p.stderr.decode().split("\n")[-1].split())
    assert b"[redacted:" in p.stdout and "relayscope.redact" in loaded
    assert "argparse" not in loaded
