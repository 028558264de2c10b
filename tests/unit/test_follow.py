"""``relayscope translate --follow`` / ``trace --follow``: a transcript written while
the CLI follows it gives the output of translating the finished file.

Each test writes a real capture from a background thread (line by line, or in odd chunks that
split lines and UTF-8 characters) while the CLI runs in a subprocess with ``--idle-exit``, then
compares with the one-shot command on the finished file. Folders are written in the order the
records were made (their timestamps), so sub-agent files appear while the main file grows.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _corpus import FIXTURE_SESSIONS, ROOT, SHARED_SESSIONS, sweep, with_shared
from test_session import nested_session

from relayscope.live import LiveFiles
from relayscope.multifile import translate_files

EXAMPLES = ROOT / "static" / "examples"
# Seconds with nothing new before the follower exits. The writers pause far less; a run whose
# writer paused for half of it anyway (a busy machine stalled it) may have let the follower stop
# before the end, so it is run again with PATIENT (what a stall would need, then, is ten seconds).
IDLE = 0.5
PATIENT = 10.0
RESTART_IDLE = "1.5"  # the restart tests: the test writes as soon as it reads what the follower said
GAP = 0.001  # the writer's pause between chunks
PAUSES = 1000  # at most this many pauses per run: a long run's chunks are written a few per pause
POLL = "0.005"  # the follower's look interval: many looks, each landing at whatever cut the writer is at


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "relayscope", *args]


def one_shot(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(cli(*args), capture_output=True, timeout=120)


def odd_chunks(data: bytes) -> Iterator[bytes]:
    """Chunks of 1 to ~1500 bytes, cut at every kind of place: inside lines, right after a
    newline, and inside multi-byte UTF-8 characters when there are any."""
    splits = [i for i in range(1, len(data)) if data[i] & 0xC0 == 0x80][::97]  # continuation bytes
    cuts = sorted({*splits, *range(0, len(data), 1499), *(i + 1 for i in range(0, len(data), 3001)
                                                            if data.find(b"\n", i) >= 0)})
    at, n = 0, 1
    for cut in [*cuts, len(data)]:
        while at < cut:
            step = min(n, cut - at)
            yield data[at:at + step]
            at += step
            n = n * 7 % 257 + 1


def by_line(data: bytes) -> Iterator[bytes]:
    yield from data.splitlines(keepends=True)


class Writer(threading.Thread):
    """Appends each (file, chunk) in order, flushing and pausing between them (every few chunks
    when there are more than PAUSES). ``longest``: the longest stretch, in seconds, between the
    start of one write and the end of the next: longer than any quiet the follower could see."""

    def __init__(self, events: list[tuple[Path, bytes]], started: threading.Event) -> None:
        super().__init__(daemon=True)
        self.events, self.started, self.longest = events, started, 0.0

    def run(self) -> None:
        every = max(1, len(self.events) // PAUSES)
        before = None
        for i, (path, chunk) in enumerate(self.events):
            start = time.monotonic()
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("ab") as stream:
                stream.write(chunk)
            if before is not None:
                self.longest = max(self.longest, time.monotonic() - before)
            before = start
            if i == 0:
                self.started.set()
            if i % every == every - 1:
                time.sleep(GAP)


def follow(target: Path, events: list[tuple[Path, bytes]], *args: str, command: str = "translate"
           ) -> subprocess.CompletedProcess[bytes]:
    """Run ``command --follow target`` while the events are written; it ends after IDLE quiet
    seconds, or, when the writer paused for half of that (it may then have stopped early), the
    whole run again with PATIENT ones."""
    for idle in (IDLE, PATIENT):
        if idle == PATIENT:  # again from nothing
            for path in target.iterdir() if target.is_dir() else [target]:
                shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
        first = threading.Event()
        writer = Writer(events, first)
        writer.start()
        first.wait(10)
        done = subprocess.run(cli(command, "--follow", str(target), "--idle-exit", str(idle), "--poll-interval",
                                  POLL, *args), capture_output=True, timeout=300)
        writer.join()
        if writer.longest < idle / 2:
            break
    return done


# --- one file -----------------------------------------------------------------------------------


CAPTURES = ["real-session.jsonl", "real-streaming.jsonl", "real-subagents.jsonl", "fleet-parallel.sse",
            "index-bug.ndjson"]


@pytest.mark.parametrize("pieces", [by_line, odd_chunks], ids=["by-line", "odd-chunks"])
@pytest.mark.parametrize("name", CAPTURES)
def test_following_a_file_as_it_is_written_equals_translating_it_finished(
        tmp_path: Path, name: str, pieces: Any) -> None:
    data = (EXAMPLES / name).read_bytes()
    target = tmp_path / name
    got = follow(target, [(target, c) for c in pieces(data)])
    want = one_shot("translate", str(target))
    assert got.returncode == want.returncode == 0, got.stderr.decode()
    assert got.stdout == want.stdout
    assert got.stderr == want.stderr == b""


@pytest.mark.parametrize("args", [("-f", "json"), ("-f", "text", "-s", "index")], ids=["json", "text"])
def test_other_output_formats_and_strategies_follow_too(tmp_path: Path, args: tuple[str, ...]) -> None:
    data = (EXAMPLES / "real-session.jsonl").read_bytes()
    target = tmp_path / "s.jsonl"
    got = follow(target, [(target, c) for c in odd_chunks(data)], *args)
    assert got.stdout == one_shot("translate", str(target), *args).stdout


@pytest.mark.parametrize("args", [(), ("--json",)], ids=["table", "json"])
def test_trace_follow_equals_the_trace_of_the_finished_file(tmp_path: Path, args: tuple[str, ...]) -> None:
    data = (EXAMPLES / "real-streaming.jsonl").read_bytes()
    target = tmp_path / "s.jsonl"
    got = follow(target, [(target, c) for c in odd_chunks(data)], *args, command="trace")
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == one_shot("trace", str(target), *args).stdout


def test_bad_lines_are_reported_with_their_line_number_and_the_rest_goes_on(tmp_path: Path) -> None:
    data = (EXAMPLES / "index-bug.ndjson").read_bytes()
    lines = data.splitlines(keepends=True)
    broken = b"".join([*lines[:2], b"{not json\n", *lines[2:]])
    target = tmp_path / "b.ndjson"
    got = follow(target, [(target, c) for c in by_line(broken)])
    want = one_shot("translate", str(target))
    assert got.returncode == want.returncode == 1
    assert (got.stdout, got.stderr) == (want.stdout, want.stderr)
    assert f"{target}:3:".encode() in got.stderr


def test_a_last_line_without_newline_waits_and_is_translated_at_the_end(tmp_path: Path) -> None:
    data = (EXAMPLES / "index-bug.ndjson").read_bytes().rstrip(b"\n")
    target = tmp_path / "n.ndjson"
    got = follow(target, [(target, c) for c in odd_chunks(data)])
    assert got.stdout == one_shot("translate", str(target)).stdout


# --- restarts, Ctrl-C, usage ----------------------------------------------------------------------


def start_following(target: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(cli("translate", "--follow", str(target), "--poll-interval", "0.02", *args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """The rest of stdout and stderr (read through the same buffered readers as readline, which
    ``communicate`` would bypass), once the process ends."""
    assert proc.stdout is not None and proc.stderr is not None
    out = proc.stdout.read()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    return out, err


def read_records(proc: subprocess.Popen[bytes], count: int) -> list[dict[str, Any]]:
    assert proc.stdout is not None
    return [json.loads(proc.stdout.readline()) for _ in range(count)]


def test_a_truncated_file_is_reported_and_followed_from_its_new_start(tmp_path: Path) -> None:
    first = (EXAMPLES / "index-bug.ndjson").read_bytes()
    second = (EXAMPLES / "cumulative-dedup.ndjson").read_bytes()
    target = tmp_path / "t.ndjson"
    target.write_bytes(first)
    n_first = len(one_shot("translate", str(target)).stdout.splitlines())
    proc = start_following(target, "--idle-exit", RESTART_IDLE)
    got_first = read_records(proc, n_first - 1)  # all but what only the end settles
    target.write_bytes(second[:40])  # shorter: truncated; the rest appended once it is noticed
    assert proc.stderr is not None
    said = proc.stderr.readline()
    assert b"truncated" in said and b"following it from its new start" in said
    with target.open("ab") as stream:
        stream.write(second[40:])
    out, err = finish(proc)
    assert proc.returncode == 0, err.decode()
    rest = [json.loads(x) for x in out.splitlines()]
    seqs = [r["seq"] for r in got_first + rest]
    assert seqs == list(range(len(seqs)))  # one seq space across the restart
    target.write_bytes(second)
    want_second = [json.loads(x) for x in one_shot("translate", str(target)).stdout.splitlines()]
    tail = [{k: v for k, v in r.items() if k != "seq"} for r in rest[-len(want_second):]]
    assert tail == [{k: v for k, v in r.items() if k != "seq"} for r in want_second]


def test_a_replaced_file_is_reported_and_read_from_its_start(tmp_path: Path) -> None:
    target = tmp_path / "r.ndjson"
    target.write_bytes((EXAMPLES / "index-bug.ndjson").read_bytes())
    proc = start_following(target, "--idle-exit", RESTART_IDLE)
    read_records(proc, 1)
    new = tmp_path / "new.ndjson"
    new.write_bytes((EXAMPLES / "gotchas.ndjson").read_bytes() * 2)  # longer than the old one
    os.replace(new, target)
    _, err = finish(proc)
    assert b"replaced by another file" in err
    assert proc.returncode == 0


def test_ctrl_c_ends_cleanly_and_a_json_array_is_still_closed(tmp_path: Path) -> None:
    data = (EXAMPLES / "index-bug.ndjson").read_bytes()
    target = tmp_path / "c.ndjson"
    target.write_bytes(data)
    proc = start_following(target, "-f", "json")
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"[\n"  # it is running and has written
    proc.send_signal(signal.SIGINT)
    out, err = finish(proc)
    assert proc.returncode == 130
    assert b"Traceback" not in err
    relays = json.loads(b"[\n" + out)
    assert relays == json.loads(one_shot("translate", str(target), "-f", "json").stdout)


@pytest.mark.parametrize("args", [("a", "b"), ("-",), ()], ids=["two", "stdin", "none"])
def test_follow_takes_one_file_or_folder(tmp_path: Path, args: tuple[str, ...]) -> None:
    got = one_shot("translate", "--follow", *args)
    assert got.returncode == 2
    assert b"--follow takes one FILE or DIR" in got.stderr


def test_following_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    got = one_shot("translate", "--follow", str(tmp_path / "nope.jsonl"), "--idle-exit", "0")
    assert got.returncode == 2 and b"No such file" in got.stderr


# --- folders --------------------------------------------------------------------------------------


def per_file(ndjson: bytes) -> dict[str, list[dict[str, Any]]]:
    """Relays by file, in order, without seq (a folder's files interleave as they are written)."""
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for raw in ndjson.splitlines():
        r = json.loads(raw)
        r.pop("seq")
        out[r["file"]].append(r)
    return dict(out)


def nested_session_events(root: Path, link: str = "prompt") -> list[tuple[Path, bytes]]:
    """tests/unit/test_session.py's nested session (main spawns a1, which spawns a2), written in
    the order the agents run: each sub-agent file appears after its spawning call. ``link``:
    what ties a sub-agent file to its call: its first prompt (CLI 2.0/2.1 files), an
    ``agent-<id>.meta.json`` written at the spawn (2.1.x), or only the ``agentId`` in the
    spawn's result, written after the sub-agent's last line."""
    files = nested_session(meta_only=link == "meta", same_prompt=link == "prompt")
    lines = {name: content.split(b"\n") for name, content in files.items() if name.endswith(".jsonl")}
    names = ("s1.jsonl", "s1/subagents/agent-a1.jsonl", "s1/subagents/agent-a2.jsonl")
    main, a1, a2 = (root / n for n in names)
    m, x, y = (lines[n] for n in names)
    order = [(main, m[0]), (main, m[1]), (a1, x[0]), (a1, x[1]), (a2, y[0]), (a2, y[1]),
             (a1, x[2]), (a1, x[3]), (main, m[2]), (main, m[3])]
    events = [(path, line + b"\n") for path, line in order]
    if link == "meta":
        for at, agent in ((2, "a1"), (5, "a2")):  # each right after its spawning call
            name = f"s1/subagents/agent-{agent}.meta.json"
            events.insert(at, (root / name, files[name]))
    return events


@pytest.mark.parametrize("link", ["prompt", "meta", "agentId"])
def test_a_session_folder_followed_as_its_agents_run(tmp_path: Path, link: str) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    got = follow(root, nested_session_events(root, link))
    want = one_shot("translate", str(root))
    assert got.returncode == want.returncode == 0, got.stderr.decode()
    assert per_file(got.stdout) == per_file(want.stdout)
    relays = [json.loads(x) for x in got.stdout.splitlines()]
    assert [r["seq"] for r in relays] == list(range(len(relays)))
    starts = [(r["lane"], r["depth"]) for r in relays if r["type"] == "lane_start"]
    assert starts == [("main", 0), ("toolu_T1", 1), ("toolu_T2", 2)]  # the sub-agent files joined as lanes
    # as they ran: the deepest agent's text first, each lane's end before its parent goes on
    order = [(r["type"], r["lane"]) for r in relays if r["type"] in ("text_delta", "lane_end")]
    assert order == [("text_delta", "toolu_T2"), ("lane_end", "toolu_T2"), ("text_delta", "toolu_T1"),
                     ("lane_end", "toolu_T1"), ("text_delta", "main")]


def timestamp_order(files: dict[Path, Path]) -> list[tuple[Path, bytes]]:
    """Every line of the files ``{source: where to write it}``, in timestamp order (a line
    without one goes with the line before it in its file)."""
    lines = []
    for source, target in files.items():
        last = ""
        for i, raw in enumerate(source.read_bytes().splitlines(keepends=True)):
            with contextlib.suppress(ValueError):
                last = json.loads(raw).get("timestamp") or last
            lines.append((last, str(source), i, target, raw))
    lines.sort(key=lambda x: x[:3])
    return [(target, raw) for *_, target, raw in lines]


# a session's folder (``<session>/subagents/``): the fixtures' two, then the shared corpus's others
SESSION_FOLDERS = [p.parent for p in with_shared(FIXTURE_SESSIONS, SHARED_SESSIONS, "**/subagents")]


@pytest.mark.parametrize("session", sweep(SESSION_FOLDERS, ids=lambda p: p.name[:12]))
def test_real_session_folders_replayed_in_time_order(tmp_path: Path, session: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    main = session.parent / f"{session.name}.jsonl"
    files = {p: root / p.relative_to(session.parent) for p in sorted(session.rglob("*.jsonl"))}
    if main.is_file():
        files[main] = root / main.name
    got = follow(root, timestamp_order(files))
    want = one_shot("translate", str(root))
    assert got.returncode == want.returncode, got.stderr.decode()
    assert per_file(got.stdout) == per_file(want.stdout)


# --- the sans-IO core, without processes ----------------------------------------------------------


def test_live_files_take_bytes_in_any_interleaving() -> None:
    events = nested_session_events(Path("f"))
    live = LiveFiles(trace=True)
    files = nested_session(meta_only=False, same_prompt=True)
    relays = []
    for path, chunk in events:
        for i in range(0, len(chunk), 5):  # five bytes at a time
            relays.extend(live.feed(str(path), chunk[i:i + 5]))
    relays.extend(live.finish())
    assert [r.seq for r in relays] == list(range(len(relays)))
    assert sorted(q for s in live.trace for q in s.seqs) == list(range(len(relays)))
    (result,) = translate_files({f"f/{k}": v for k, v in files.items()})

    def plain(rs: list[Any]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = defaultdict(list)
        for r in rs:
            out[r.file].append((type(r).__name__, r.lane, r.line))
        return dict(out)

    assert plain(relays) == plain(result.relays)


def test_a_session_folder_written_before_the_follow_starts_gives_the_one_shot_output(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    for name, content in nested_session(meta_only=True).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        # each line ended, as Claude Code writes them (a last line without one waits to the end)
        (root / name).write_bytes(content + b"\n" if name.endswith(".jsonl") else content)
    got = one_shot("translate", "--follow", str(root), "--idle-exit", "0")
    want = one_shot("translate", str(root))
    assert got.returncode == want.returncode == 0
    assert got.stdout == want.stdout  # the whole backlog in one look: sub-agent files right after their spawn


def test_following_a_pipe_is_a_usage_error_and_a_fifo_in_a_folder_is_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "proj" / "pipe.jsonl"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    got = one_shot("translate", "--follow", str(fifo), "--idle-exit", "0")
    assert got.returncode == 2 and b"regular file or a folder" in got.stderr
    data = (EXAMPLES / "index-bug.ndjson").read_bytes()
    (fifo.parent / "run.ndjson").write_bytes(data)
    got = one_shot("translate", "--follow", str(fifo.parent), "--idle-exit", "0")  # would hang on the FIFO
    assert got.returncode == 0
    relays = [json.loads(x) for x in got.stdout.splitlines()]
    assert {r.pop("file") for r in relays} == {str(fifo.parent / "run.ndjson")}
    assert relays == [json.loads(x) for x in one_shot("translate", str(fifo.parent / "run.ndjson")).stdout.splitlines()]
