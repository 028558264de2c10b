"""``relayscope export --otlp-endpoint`` into a real OTLP receiver: Arize Phoenix (installed by
``make test`` in tools/phoenix/.venv), started on a free port with a fresh database, the spans
read back over its REST API: counts, parents, times, token attributes; sent again, not doubled.

Expectations come from the export's own OTLP/JSON file of the same input (what the receiver must
hold) and the raw records' usage, not from the sender."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON

ROOT = Path(__file__).resolve().parents[2]
PHOENIX = ROOT / "tools" / "phoenix" / ".venv" / "bin" / "phoenix"
SESSION = next(FIXTURE_SESSIONS.rglob("ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"))
# another session with a sub-agent, followed: none of its spans is in the receiver before
FOLLOWED = next(FIXTURE_SESSIONS.rglob("29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl"))
# another run, sent after a repeat as a barrier (its spans have other ids)
LATER = FIXTURE_STREAM_JSON / "GuhyupLee__waifu-agent__tests__fixtures__claude-multiturn.jsonl"
STARTUP = 120.0  # seconds; about 10 on this machine


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not PHOENIX.exists():
        pytest.skip("Arize Phoenix is not installed (make tools/phoenix/.venv/.stamp)")
    work = tmp_path_factory.mktemp("phoenix")
    port, grpc = _port(), _port()
    env = {**os.environ, "PHOENIX_WORKING_DIR": str(work), "PHOENIX_PORT": str(port), "PHOENIX_HOST": "127.0.0.1",
           "PHOENIX_GRPC_PORT": str(grpc), "PHOENIX_TELEMETRY_ENABLED": "false", "DO_NOT_TRACK": "1"}
    log = (work / "server.log").open("wb")
    proc = subprocess.Popen([str(PHOENIX), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Phoenix did not start: {(work / 'server.log').read_text()[-2000:]}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _spans(url: str, want: int) -> list[dict[str, Any]]:
    """The default project's spans, once ``want`` are there (Phoenix writes them a moment later)."""
    deadline = time.monotonic() + 30
    while True:
        with urllib.request.urlopen(f"{url}/v1/projects/default/spans?limit=1000", timeout=10) as r:
            got: list[dict[str, Any]] = json.load(r)["data"]
        if len(got) >= want or time.monotonic() > deadline:
            return got
        time.sleep(0.3)


def _export(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "relayscope", "export", *args], capture_output=True, timeout=120)


def _family(tmp_path: Path, session: Path = SESSION) -> Path:
    folder = tmp_path / "project"
    (folder / session.stem / "subagents").mkdir(parents=True)
    (folder / session.name).write_bytes(session.read_bytes())
    for p in sorted(session.with_suffix("").glob("subagents/*")):
        (folder / session.stem / "subagents" / p.name).write_bytes(p.read_bytes())
    return folder


def test_a_run_lands_in_phoenix_as_exported_and_a_second_send_adds_nothing(phoenix: str, tmp_path: Path) -> None:
    folder = _family(tmp_path)
    expected = json.loads(_export("--format", "otlp", str(folder)).stdout)
    want = {s["spanId"]: s for rs in expected["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]}
    sent = _export("--otlp-endpoint", phoenix, str(folder))
    assert sent.returncode == 0, sent.stderr
    assert f"sent {len(want)} span(s)".encode() in sent.stderr
    got = _spans(phoenix, len(want))
    assert len(got) == len(want) > 100
    for s in got:
        mine = want[s["context"]["span_id"]]
        assert s["context"]["trace_id"] == mine["traceId"]
        assert (s["parent_id"] or None) == mine.get("parentSpanId")
        start = int(mine["startTimeUnixNano"]) / 1e9
        assert abs(_seconds(s["start_time"]) - start) < 1e-5
        assert abs(_seconds(s["end_time"]) - int(mine["endTimeUnixNano"]) / 1e9) < 1e-5
    kinds = {s["span_kind"] for s in got}
    assert kinds == {"AGENT", "TOOL", "LLM"}
    llm = [s for s in got if s["span_kind"] == "LLM"]
    assert sum(int(s["attributes"]["llm.token_count.prompt"]) for s in llm) == sum(
        int(a["value"]["intValue"]) for m in want.values() for a in m["attributes"]
        if a["key"] == "gen_ai.usage.input_tokens")
    assert all("gen_ai.usage.cache_read.input_tokens" in s["attributes"] for s in llm)
    again = _export("--otlp-endpoint", phoenix, str(folder))  # the same ids: nothing new
    assert again.returncode == 0, again.stderr
    # Phoenix stores what it receives in the order it came (one queue, one batch at a time): once
    # a run sent after the repeat is stored, whatever the repeat added would be stored too. (Waiting
    # for a span that must never come would wait out the whole deadline.)
    later = _ids(json.loads(_export("--format", "otlp", str(LATER)).stdout))
    assert later and not later & want.keys()
    assert _export("--otlp-endpoint", phoenix, str(LATER)).returncode == 0
    stored = _spans(phoenix, len(want) + len(later))
    assert later <= {s["context"]["span_id"] for s in stored}
    assert len(stored) == len(want) + len(later)


def _ids(otlp: dict[str, Any]) -> set[str]:
    return {s["spanId"] for rs in otlp["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]}


def _seconds(stamp: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(stamp).timestamp()


def test_a_followed_session_lands_with_the_ids_of_the_finished_files(phoenix: str, tmp_path: Path) -> None:
    folder = _family(tmp_path, FOLLOWED)
    before = {s["context"]["span_id"] for s in _spans(phoenix, 0)}
    got = subprocess.run([sys.executable, "-m", "relayscope", "export", "--follow", "--idle-exit", "1",
                          "--poll-interval", "0.1", "--otlp-endpoint", phoenix, str(folder)],
                         capture_output=True, timeout=120)
    assert got.returncode == 0, got.stderr
    expected = json.loads(_export("--format", "otlp", str(folder)).stdout)
    ids = _ids(expected)
    assert ids and not ids & before  # a session the receiver has not seen: only following can send it
    after = {s["context"]["span_id"] for s in _spans(phoenix, len(before) + len(ids))}
    assert after - before == ids  # every span the finished files give arrived while following, nothing else
