"""The command line: output formats, stdin, exit codes, errors on stderr with line numbers."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from _corpus import ROOT, SEEDS

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "py")}


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "relayscope", *args], input=stdin, capture_output=True,
                          env=ENV, timeout=60, check=False)


def test_translate_writes_ndjson_by_default() -> None:
    p = run("translate", str(SEEDS / "interleaved-subagents.ndjson"))
    assert p.returncode == 0 and p.stderr == b""
    relays = [json.loads(line) for line in p.stdout.splitlines()]
    assert [r["seq"] for r in relays] == list(range(len(relays)))
    assert {"type", "seq", "line", "lane"} <= set(relays[0])


def test_json_and_text_formats() -> None:
    p = run("translate", "-f", "json", "-s", "fingerprint", str(SEEDS / "interleaved-subagents.ndjson"))
    assert [r["type"] for r in json.loads(p.stdout)][:2] == ["session_meta", "thinking_delta"]
    p = run("translate", "-f", "text", str(SEEDS / "interleaved-subagents.ndjson"))
    assert b"Both done." in p.stdout and p.returncode == 0


def test_stdin_with_dash_and_errors_with_line_numbers() -> None:
    data = (SEEDS / "gotchas.ndjson").read_bytes() + b"garbage line\n" + b'{"type":"x_new"}\n'
    p = run("translate", "-", stdin=data)
    assert p.returncode == 1
    assert p.stderr.decode().startswith("<stdin>:10: not valid JSON")
    types = [json.loads(line)["type"] for line in p.stdout.splitlines()]
    assert types[-3:] == ["turn_complete", "error", "passthrough"]  # everything else still printed


def test_usage_errors_exit_2() -> None:
    assert run("translate", "/nonexistent/file.jsonl").returncode == 2
    assert run("translate", "-s", "bogus", "x").returncode == 2
    assert run("frobnicate").returncode == 2


@pytest.mark.parametrize("command", ["translate", "trace", "audit"])
def test_help_on_every_command(command: str) -> None:
    p = run(command, "--help")
    assert p.returncode == 0 and b"usage: relayscope " + command.encode() in p.stdout


def test_trace_table_and_json() -> None:
    p = run("trace", "-s", "index", str(SEEDS / "index-bug.ndjson"))
    assert p.returncode == 0 and b"shrink" in p.stdout
    steps = json.loads(run("trace", "--json", "-s", "index", str(SEEDS / "index-bug.ndjson")).stdout)
    assert [s["line"] for s in steps] == [1, 2, 3, 4, 5, 6]
    assert steps[3]["decision"] == "skip"


def test_audit_table_and_json() -> None:
    p = run("audit", str(SEEDS / "index-bug.ndjson"))
    assert b"first lost block at line 4" in p.stdout
    results = json.loads(run("audit", "--json", str(SEEDS / "index-bug.ndjson")).stdout)
    assert {r["strategy"]: r["lost"] for r in results} == {"none": 0, "index": 1, "fingerprint": 0, "lineage": 0}


def test_sse_is_detected_and_forced_formats_obey() -> None:
    p = run("translate", str(SEEDS / "fleet-parallel.sse"))
    assert json.loads(p.stdout.splitlines()[0])["source"] == "request_received"
    p = run("translate", "-i", "stream-json", str(SEEDS / "fleet-parallel.sse"))
    assert p.returncode == 1 and b"fleet-parallel.sse:1: not valid JSON" in p.stderr


def test_live_stdin_emits_before_input_ends() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "relayscope", "translate", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=ENV)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"type":"system","subtype":"init","session_id":"live"}\n')
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())  # arrives while stdin is still open
    assert first["type"] in ("lane_start", "session_meta")
    proc.stdin.close()
    proc.wait(timeout=30)
    assert proc.returncode == 0
