"""The command line: output formats, stdin, exit codes, errors on stderr with line numbers; and
hostile reproducers on files: every input read once, folders with special files, odd names,
closed pipes, Ctrl-C, internal errors. Process-level behaviour runs the CLI as a subprocess."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON, ROOT, SEEDS

from relayscope import relay as R
from relayscope.cli.writers import Writer
from relayscope.textout import RelayText

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
    assert p.returncode == 0 and b"the content array shrank" in p.stdout
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



# --- the CLI on files ---------------------------------------------------------------

MULTI = FIXTURE_STREAM_JSON / "foksa__open-claude-agent-sdk__tests__snapshots__multi-turn.jsonl"
INTERRUPT = FIXTURE_STREAM_JSON / "foksa__open-claude-agent-sdk__tests__snapshots__interrupt.jsonl"
BIG = FIXTURE_STREAM_JSON / "ArturoKuang__sandbox_ai_compiler__.repomirror__claude_output.jsonl"
SESSION = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees"
SESSION_MAIN = SESSION / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
CMD = [sys.executable, "-m", "relayscope"]


def bash(script: str, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["bash", "-c", script], capture_output=True, env=ENV, timeout=timeout, check=False)


def sh_quote(*parts: object) -> str:
    return " ".join("'" + str(p).replace("'", "'\\\\''") + "'" for p in parts)


def relays_of(stdout: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_process_substitution_gives_the_relays_the_files_give() -> None:
    files = run("translate", str(MULTI), str(INTERRUPT))
    assert files.returncode == 0 and files.stdout
    substituted = bash(f"{sh_quote(*CMD)} translate <(cat {sh_quote(MULTI)}) <(cat {sh_quote(INTERRUPT)})")
    assert substituted.returncode == 0, substituted.stderr
    strip = [{k: v for k, v in r.items() if k != "file"} for r in relays_of(files.stdout)]
    assert [{k: v for k, v in r.items() if k != "file"} for r in relays_of(substituted.stdout)] == strip


@pytest.mark.parametrize("path", [MULTI, SESSION_MAIN], ids=["stream-json", "session"])
def test_a_pipe_gives_the_relays_the_file_gives(path: Path) -> None:
    piped = bash(f"cat {sh_quote(path)} | {sh_quote(*CMD)} translate -")
    substituted = bash(f"{sh_quote(*CMD)} translate <(cat {sh_quote(path)})")
    direct = run("translate", str(path))
    assert direct.returncode == 0 and direct.stdout
    assert piped.stdout == direct.stdout and substituted.stdout == direct.stdout


def test_a_session_in_process_substitutions_is_read_once() -> None:
    """Two inputs, one a session: the look at their first lines decides to read them together,
    and the lines looked at are not lost."""
    agent = SESSION / SESSION_MAIN.stem / "subagents" / "agent-a36efb2a1231c41e2.jsonl"
    p = bash(f"{sh_quote(*CMD)} translate <(cat {sh_quote(SESSION_MAIN)}) <(cat {sh_quote(agent)})")
    assert p.returncode == 0, p.stderr
    relays = relays_of(p.stdout)
    lines = {(r["file"], r["line"]) for r in relays}
    main_lines = len(SESSION_MAIN.read_bytes().splitlines())
    assert {line for f, line in lines if f == relays[0]["file"]} >= {1, 2, main_lines}


def hostile_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(MULTI.read_bytes())
    os.mkfifo(folder / "fifo.jsonl")  # opening it for reading would block forever
    os.symlink("loop.jsonl", folder / "loop.jsonl")
    os.symlink("nowhere.jsonl", folder / "dangling.jsonl")
    os.mkdir(folder / "sub")
    os.symlink("..", folder / "sub" / "up")  # a folder loop: never followed
    with open(os.fsencode(folder) + b"/bad\xff name.jsonl", "wb") as f:
        f.write(INTERRUPT.read_bytes() + b"garbage\n")
    return folder


def test_a_folder_with_special_files_reports_them_and_translates_the_rest(tmp_path: Path) -> None:
    folder = hostile_folder(tmp_path)
    p = run("translate", str(folder))
    assert p.returncode == 1
    err = p.stderr.decode()
    assert "Traceback" not in err
    assert f"{folder}/fifo.jsonl: a FIFO, not a transcript file; skipped" in err
    assert f"{folder}/loop.jsonl: symbolic link loop; skipped" in err
    assert f"{folder}/dangling.jsonl: No such file or directory; skipped" in err
    bad = f"{folder}/bad\\xff name.jsonl"
    assert f"{bad}:5: not valid JSON" in err  # the name escaped, the line numbered
    files = {r["file"] for r in relays_of(p.stdout)}
    assert files == {f"{folder}/a.jsonl", bad}
    assert sum(1 for r in relays_of(p.stdout) if r["type"] == "error") == 1


@pytest.mark.parametrize("command", [["trace", "--json"], ["audit", "--json"], ["translate", "-f", "json"]])
def test_trace_and_audit_of_such_a_folder_do_not_hang_either(tmp_path: Path, command: list[str]) -> None:
    folder = hostile_folder(tmp_path)
    p = run(*command, str(folder))
    assert p.returncode == 1 and b"fifo.jsonl: a FIFO" in p.stderr and b"Traceback" not in p.stderr
    assert json.loads(p.stdout)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_files_and_folders_are_reported_and_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    (folder / "closed").mkdir(parents=True)
    (folder / "a.jsonl").write_bytes(MULTI.read_bytes())
    (folder / "secret.jsonl").write_bytes(MULTI.read_bytes())
    (folder / "secret.jsonl").chmod(0)
    (folder / "closed").chmod(0)
    try:
        p = run("translate", str(folder))
    finally:
        (folder / "closed").chmod(0o700)
    assert p.returncode == 1
    assert b"secret.jsonl: Permission denied; skipped" in p.stderr
    assert b"closed: Permission denied; skipped" in p.stderr
    assert {r["file"] for r in relays_of(p.stdout)} == {f"{folder}/a.jsonl"}


def test_a_fifo_named_on_the_command_line_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as f:
            f.write(MULTI.read_bytes())

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    p = run("translate", str(fifo))
    writer.join(timeout=30)
    assert p.returncode == 0 and p.stdout == run("translate", str(MULTI)).stdout


def test_a_non_utf8_name_on_the_command_line_is_escaped(tmp_path: Path) -> None:
    path = os.fsencode(tmp_path) + b"/caf\xe9.jsonl"
    with open(path, "wb") as f:
        f.write(b"not json\n" + MULTI.read_bytes())
    p = subprocess.run([*CMD, "translate", path, MULTI], capture_output=True, env=ENV, timeout=60, check=False)
    assert p.returncode == 1
    assert p.stderr.decode().startswith(f"{tmp_path}/caf\\xe9.jsonl:1: not valid JSON")
    assert {r["file"] for r in relays_of(p.stdout)} == {f"{tmp_path}/caf\\xe9.jsonl", str(MULTI)}
    missing = subprocess.run([*CMD, "translate", os.fsencode(tmp_path) + b"/gone\xff.jsonl"],
                             capture_output=True, env=ENV, timeout=60, check=False)
    assert missing.returncode == 2 and b"gone\\xff.jsonl: No such file or directory" in missing.stderr


def test_a_meta_file_with_a_bad_byte_is_reported_not_a_crash(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    (folder / SESSION_MAIN.stem / "subagents").mkdir(parents=True)
    (folder / SESSION_MAIN.name).write_bytes(SESSION_MAIN.read_bytes())
    agent = SESSION / SESSION_MAIN.stem / "subagents" / "agent-a36efb2a1231c41e2.jsonl"
    (folder / SESSION_MAIN.stem / "subagents" / agent.name).write_bytes(agent.read_bytes())
    (folder / SESSION_MAIN.stem / "subagents" / "agent-a36efb2a1231c41e2.meta.json").write_bytes(b'{"agentType":"E\xff"}')
    p = run("translate", str(folder))
    assert p.returncode in (0, 1) and b"internal error" not in p.stderr
    assert len(relays_of(p.stdout)) > 100


def test_a_reader_that_goes_away_ends_the_run_quietly() -> None:
    for fmt in ("ndjson", "json", "text"):
        p = bash(f"{sh_quote(*CMD)} translate -f {fmt} {sh_quote(BIG)} {sh_quote(BIG)} | head -c 100 >/dev/null;"
                 " echo \"${PIPESTATUS[0]}\" >&2")
        assert p.stderr == b"0\n", (fmt, p.stderr)


def test_a_closed_stdin_is_empty_input() -> None:
    p = bash(f"{sh_quote(*CMD)} translate - <&-")
    assert (p.returncode, p.stdout, p.stderr) == (0, b"", b"")
    p = bash(f"{sh_quote(*CMD)} translate -f json <&-")
    assert (p.returncode, p.stdout, p.stderr) == (0, b"[]\n", b"")


def test_ctrl_c_exits_130_quietly_with_the_json_array_closed() -> None:
    proc = subprocess.Popen([*CMD, "translate", "-f", "json", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(MULTI.read_bytes())
    proc.stdin.flush()
    head = proc.stdout.readline() + proc.stdout.readline()  # "[" and a first relay: it is reading live
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    out, err = proc.stdout.read(), proc.stderr.read()  # not communicate(): it skips what readline buffered
    assert proc.returncode == 130 and err == b""
    relays = json.loads(head + out)
    assert relays and relays[0]["type"] in ("lane_start", "session_meta", "system")


CRASH = """
import sys
from relayscope import cli, translator
feed = translator.Translator.feed

def broken(self, frame):
    if frame.line == 3:
        raise KeyError("simulated bug")
    return feed(self, frame)

translator.Translator.feed = broken
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("fmt", ["ndjson", "json"])
def test_a_bug_exits_70_with_one_line_naming_the_input_line(fmt: str) -> None:
    p = subprocess.run([sys.executable, "-c", CRASH, "translate", "-f", fmt, str(MULTI)],
                       capture_output=True, env=ENV, timeout=60, check=False)
    assert p.returncode == 70
    (line,) = p.stderr.decode().splitlines()
    assert line.startswith(f"relayscope: internal error at {MULTI}:3: KeyError: 'simulated bug'"), line
    if fmt == "json":
        assert len(json.loads(p.stdout)) >= 1  # what came before, in a closed array
    else:  # what came before, though a file's output is written in large pieces (Writer.HOLD)
        relays = [json.loads(line) for line in p.stdout.splitlines()]
        assert relays and {r["line"] for r in relays} == {1, 2}


def test_a_bug_in_a_folder_names_the_file_and_line_too(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_bytes(MULTI.read_bytes())
    p = subprocess.run([sys.executable, "-c", CRASH, "translate", str(tmp_path)],
                       capture_output=True, env=ENV, timeout=60, check=False)
    assert p.returncode == 70
    (line,) = p.stderr.decode().splitlines()
    assert f"internal error at {tmp_path}/x.jsonl:3:" in line


def test_input_errors_still_close_the_json_array() -> None:
    p = run("translate", "-f", "json", "-", stdin=b"garbage\n" + MULTI.read_bytes() + b"{\n")
    assert p.returncode == 1 and [r["type"] for r in json.loads(p.stdout)].count("error") == 2
    first, last = p.stderr.decode().splitlines()
    assert first.startswith("<stdin>:1: ") and last.startswith(f"<stdin>:{len(MULTI.read_bytes().splitlines()) + 2}: ")


def test_thousands_of_files_never_run_out_of_descriptors(tmp_path: Path) -> None:
    names = []
    for i in range(600):
        path = tmp_path / f"f{i:04}.jsonl"
        path.write_bytes(b'{"type":"system","subtype":"init","session_id":"s%d"}\n' % i)
        names.append(str(path))

    def few_descriptors() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    p = subprocess.run([*CMD, "translate", *names], capture_output=True, env=ENV, timeout=120, check=False,
                       preexec_fn=few_descriptors)
    assert p.returncode == 0, p.stderr[-500:]
    assert {r["file"] for r in relays_of(p.stdout)} == set(names)


def test_relays_python_cannot_encode_as_utf8_are_written_escaped() -> None:
    import io

    r = R.TextDelta(seq=0, line=1, lane="main", text="cut emoji \ud83d", message_id="m", block_index=0)
    for fmt in ("ndjson", "json", "text"):
        out = io.BytesIO()
        w = Writer(out, fmt, live=False, text=RelayText(None, False) if fmt == "text" else None)
        w.write([r])
        w.close()
        data = out.getvalue()
        data.decode("utf-8")  # valid UTF-8
        if fmt == "ndjson":
            assert json.loads(data.splitlines()[0])["text"] == "cut emoji \ud83d"
        elif fmt == "json":
            assert json.loads(data)[0]["text"] == "cut emoji \ud83d"
        else:
            assert b"cut emoji \\ud83d" in data


def test_output_of_a_file_is_held_in_large_pieces_and_of_a_pipe_written_at_once() -> None:
    import io

    r = R.TextDelta(seq=0, line=1, lane="main", text="x" * 1000, message_id="m", block_index=0)
    out = io.BytesIO()
    w = Writer(out, "ndjson", live=False)
    w.write([r])
    assert out.getvalue() == b""  # held
    for _ in range(Writer.HOLD // 1000):
        w.write([r])
    assert len(out.getvalue()) >= Writer.HOLD  # a piece written once enough is held
    w.write([r])
    w.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == Writer.HOLD // 1000 + 2 and all(json.loads(line)["text"] == r.text for line in lines)
    live = Writer(io.BytesIO(), "ndjson", live=True)  # a pipe: each write goes out at once
    live.write([r])
    assert live.out.getvalue().count(b"\n") == 1  # type: ignore[attr-defined]


def test_ndjson_relays_held_unencoded_come_out_as_the_same_bytes_in_order() -> None:
    import io

    import msgspec

    bad = R.TextDelta(seq=0, line=1, lane="main", text="cut emoji \ud83d", message_id="m", block_index=0)
    relays = [R.TextDelta(seq=i, line=i, lane="main", text=f"t{i}", message_id="m", block_index=0)
              for i in range(1, 2 * Writer.RELAYS_HELD + 12)]
    relays[Writer.RELAYS_HELD + 1] = bad  # one relay only the slow way can write, inside a batch
    one_by_one = io.BytesIO()
    w = Writer(one_by_one, "ndjson", live=True)  # a pipe: each line's relays encoded at once
    for r in relays:
        w.write([r])
    w.close()
    out = io.BytesIO()
    held = Writer(out, "ndjson", live=False)
    for i in range(0, len(relays), 3):
        held.write_lines(relays[i:i + 3])
    assert held._relays and len(held._relays) < Writer.RELAYS_HELD  # the tail: not encoded yet
    held.write([relays[0]])  # written after the held ones, never before
    held.drain()  # what an interrupt or an error does: the held relays are written, in order
    assert not held._relays
    assert out.getvalue() == one_by_one.getvalue() + msgspec.json.encode(relays[0]) + b"\n"


def test_a_closed_stdout_still_reads_everything_and_says_whether_it_was_good() -> None:
    good = bash(f"{sh_quote(*CMD)} translate {sh_quote(MULTI)} >&-")
    assert (good.returncode, good.stderr) == (0, b"")
    bad = bash(f"printf 'x\\n' | {sh_quote(*CMD)} translate - >&-")
    assert bad.returncode == 1 and bad.stderr.startswith(b"<stdin>:1: not valid JSON")


def test_a_full_disk_is_one_line_and_exit_74() -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    p = bash(f"{sh_quote(*CMD)} translate {sh_quote(BIG)} >/dev/full")
    assert p.returncode == 74 and p.stderr == b"relayscope: <stdout>: No space left on device\n"


CORE_REPRODUCERS = {  # hostile one-liners piped into `relayscope translate -`
    "bad UTF-8 in a text": b'{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"caf\xe9"}]}}\n',
    "bad UTF-8 string": b'"\x80"\n',
    "type is an object": b'{"type":{}}\n',
    "1000 nested [": b'{"type":"assistant","message":' + b"[" * 1000 + b"]" * 1000 + b"}\n",
    "negative index": b'{"type":"stream_event","event":{"type":"content_block_start","index":-1,'
                      b'"content_block":{"type":"text","text":""}}}\n',
    "lone surrogate": b'{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"\\ud83d"}]}}\n',
}


@pytest.mark.parametrize("data", CORE_REPRODUCERS.values(), ids=CORE_REPRODUCERS.keys())
def test_whatever_the_core_does_the_cli_never_prints_a_traceback(data: bytes) -> None:
    p = run("translate", "-", stdin=data + MULTI.read_bytes())
    assert p.returncode in (0, 1, 70) and b"Traceback" not in p.stderr
    if p.returncode == 70:
        (line,) = p.stderr.decode().splitlines()
        assert line.startswith("relayscope: internal error at <stdin>:1: ")


@pytest.mark.parametrize("data", [pytest.param(data, id=name) for name, data in CORE_REPRODUCERS.items()])
def test_hostile_reproducers_through_the_cli_are_input_not_bugs(data: bytes) -> None:
    p = run("translate", "-", stdin=data + MULTI.read_bytes())
    assert p.returncode in (0, 1) and b"internal error" not in p.stderr
    assert len(p.stdout.splitlines()) > len(MULTI.read_bytes().splitlines())  # the good lines after it too


def test_lines_kept_with_a_repair_are_warned_about_on_stderr_without_failing() -> None:
    """A field of the wrong type is reported, never blanked in silence; a bad byte keeps
    its line. Both are warnings (stderr, and a warning relay), not errors: the exit code stays 0."""
    data = (b'{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":12345}]}}\n'
            b'{"type":"assistant","message":{"id":"n","content":[{"type":"text","text":"caf\xe9"}]}}\n')
    for args in (["translate", "-"], ["trace", "-"]):
        proc = run(*args, stdin=data)
        assert proc.returncode == 0, proc.stderr
        lines = proc.stderr.decode().splitlines()
        assert lines[0].startswith("<stdin>:1: warning: ") and "$.message.content[0].text" in lines[0]
        assert lines[1] == "<stdin>:2: warning: bytes that are not UTF-8 replaced with U+FFFD"
    out = relays_of(run("translate", "-", stdin=data).stdout)
    assert [r["type"] for r in out if r["type"] in ("warning", "text_delta")] == [
        "warning", "text_delta", "warning", "text_delta"]
    assert out[-1]["type"] == "text_delta" and out[-1]["text"] == "caf\ufffd"
