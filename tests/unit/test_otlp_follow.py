"""``relayscope export --follow --otlp-endpoint``: a followed run lands as the finished files would
(the same traces, span ids and times), a session's sub-agent files beside it (the 2.0.x layout)
in its trace, and lost blocks looked for while following.

A small OTLP/HTTP receiver runs in the test (the reference schema, ``opentelemetry-proto``, reads
what arrives); expectations come from ``export --format otlp`` of the same files and the audit."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON

from relayscope.multifile import audit_lines
from relayscope.wire import split_lines

pb = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")

SESSION = next(FIXTURE_SESSIONS.rglob("ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"))
AGENTS = FIXTURE_STREAM_JSON / "DragonelRoland__self-agents__.agent__claude_output.jsonl"


@pytest.fixture
def collector() -> Iterator[tuple[str, list[Any]]]:
    """A receiver on a free port: every span POSTed to /v1/traces, as the schema reads it."""
    got: list[Any] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            req = pb.ExportTraceServiceRequest()
            req.ParseFromString(self.rfile.read(int(self.headers["Content-Length"])))
            got.extend(s for rs in req.resource_spans for ss in rs.scope_spans for s in ss.spans)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: Any) -> None:
            pass
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", got
    finally:
        server.shutdown()
        server.server_close()


def _cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "relayscope", "export", *args], capture_output=True, timeout=120)


def _follow(url: str, path: Path, *extra: str) -> subprocess.CompletedProcess[bytes]:
    got = _cli("--follow", "--idle-exit", "1", "--poll-interval", "0.1", "--otlp-endpoint", url, *extra, str(path))
    assert got.returncode == 0, got.stderr
    return got


def _finished(path: Path, *extra: str) -> dict[str, dict[str, Any]]:
    """The spans ``export --format otlp`` writes for the finished files, by span id."""
    got = _cli("--format", "otlp", *extra, str(path))
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    return {s["spanId"]: s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]}


def _same(received: list[Any], want: dict[str, dict[str, Any]]) -> None:
    by_id = {s.span_id.hex(): s for s in received}
    assert set(by_id) == set(want) and len(received) == len(want)
    for sid, s in by_id.items():
        w = want[sid]
        assert s.trace_id.hex() == w["traceId"]
        assert s.parent_span_id.hex() == w.get("parentSpanId", "")
        assert (s.start_time_unix_nano, s.end_time_unix_nano) == (int(w["startTimeUnixNano"]),
                                                                  int(w["endTimeUnixNano"])), s.name


def test_a_followed_session_file_lands_with_the_ids_and_times_of_the_finished_file(
        collector: tuple[str, list[Any]], tmp_path: Path) -> None:
    url, received = collector
    path = tmp_path / SESSION.name
    path.write_bytes(SESSION.read_bytes())
    _follow(url, path)
    _same(received, _finished(path))


def test_sub_agent_files_beside_the_session_2_0_layout_are_followed_into_its_trace(
        collector: tuple[str, list[Any]], tmp_path: Path) -> None:
    url, received = collector
    main = json.loads(split_lines(SESSION.read_bytes())[1])
    sid = main["sessionId"]
    (tmp_path / f"{sid}.jsonl").write_bytes(SESSION.read_bytes())
    for p in sorted(SESSION.with_suffix("").glob("subagents/agent-*.jsonl")):  # as 2.0.x wrote them
        recs = [{**json.loads(line), "sessionId": sid} for line in split_lines(p.read_bytes())]
        (tmp_path / p.name).write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in recs))
    want = _finished(tmp_path)
    assert len({s["traceId"] for s in want.values()}) == 1 and len(want) > 100
    _follow(url, tmp_path)
    assert len({s.trace_id for s in received}) == 1
    _same(received, want)


def test_lost_blocks_are_looked_for_while_following(collector: tuple[str, list[Any]], tmp_path: Path) -> None:
    url, received = collector
    path = tmp_path / AGENTS.name
    path.write_bytes(AGENTS.read_bytes())
    (audit,) = audit_lines(split_lines(AGENTS.read_bytes()), ["index"])
    _follow(url, path, "--strategy", "index", "--untimed-start", "1780000000")
    lost = sorted(next(a.value.string_value for a in e.attributes if a.key == "relayscope.text")
                  for s in received for e in s.events if e.name == "lost block")
    assert lost == sorted(audit.lost_keys) and len(lost) > 10
