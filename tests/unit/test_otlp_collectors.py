"""Collectors that misbehave cost bounded time (otlp.Sender, ``export --otlp-endpoint``): one
deadline for sending (the give-up) that no answer stretches, a collector trickling its answer
included; a redirect is an error naming its target, never taken for delivery; a long
``Retry-After`` never waits past the give-up and the message gives the time it took; malformed
endpoints are usage errors at once; credentials in the URL are sent as basic auth and never
printed. Every collector is a local server made here (a thread, an ephemeral port)."""

from __future__ import annotations

import base64
import contextlib
import http.server
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from _cli import main
from _within import within as _within

from relayscope import export, otlp

SPAN = export.OSpan(b"t" * 16, b"s" * 8, None, "x", 1, 2, [])
RESOURCE: list[tuple[str, otlp.Value]] = [("service.name", "claude-code")]


@contextmanager
def collector(answer: Callable[[http.server.BaseHTTPRequestHandler], None]) -> Iterator[tuple[str, list[Any]]]:
    """A collector at http://127.0.0.1:PORT whose every request ``answer`` answers; the requests
    it saw (method, path, headers) are listed."""
    seen: list[Any] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_a: Any) -> None:
            pass

        def _any(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(size)
            seen.append((self.command, self.path, dict(self.headers)))
            with contextlib.suppress(OSError):  # the sender hung up: what it was told no longer matters
                answer(self)
        do_POST = do_GET = _any

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    return _within(seconds, fn, f"still sending after {seconds} s")


def sender(url: str, give_up: float | None, timeout: float = 10.0, said: list[str] | None = None) -> otlp.Sender:
    s = otlp.Sender(otlp.Settings(url + "/v1/traces", timeout=timeout), give_up=give_up,
                    say=(said if said is not None else []).append)
    s.add(RESOURCE, [SPAN])
    return s


def trickle(h: http.server.BaseHTTPRequestHandler) -> None:
    for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"x" * 100000:
        h.wfile.write(bytes([byte]))
        h.wfile.flush()
        time.sleep(0.05)


def test_a_collector_that_trickles_its_answer_cannot_keep_the_send_past_the_give_up() -> None:
    with collector(trickle) as (url, _):
        s = sender(url, give_up=1.0, timeout=10.0)
        began = time.monotonic()
        got = within(8, s.flush)
        took = time.monotonic() - began
    assert isinstance(got, otlp.SendError), got
    assert "no whole answer within" in str(got) and "gave up after" in str(got) and "1 span(s) not sent" in str(got)
    assert s.sent == 0 and took < 6


def test_the_timeout_bounds_one_request_whole_when_the_sender_never_gives_up() -> None:
    with collector(trickle) as (url, seen):
        s = sender(url, give_up=None, timeout=0.5)
        s.sleep = lambda _t: (_ for _ in ()).throw(otlp.SendError("stopped after the first retry"))  # type: ignore[assignment]
        got = within(6, s.flush)
    assert isinstance(got, otlp.SendError) and len(seen) == 1


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_is_an_error_naming_its_target_and_the_spans_are_not_sent(code: int) -> None:
    with collector(lambda h: (h.send_response(200), h.send_header("Content-Length", "0"), h.end_headers())) \
            as (elsewhere, landed):

        def redirect(h: http.server.BaseHTTPRequestHandler) -> None:
            h.send_response(code)
            h.send_header("Location", elsewhere + "/v1/traces")
            h.send_header("Content-Length", "0")
            h.end_headers()
        with collector(redirect) as (url, _):
            s = sender(url, give_up=5)
            got = within(8, s.flush)
    assert isinstance(got, otlp.SendError)
    assert f"a redirect to {elsewhere}/v1/traces" in str(got) and "not followed" in str(got)
    assert s.sent == 0 and not landed


def test_a_long_retry_after_never_waits_past_the_give_up_and_the_time_said_is_true() -> None:
    def busy(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(503)
        h.send_header("Retry-After", "3600")
        h.send_header("Content-Length", "0")
        h.end_headers()
    with collector(busy) as (url, seen):
        s = sender(url, give_up=2.0)
        began = time.monotonic()
        got = within(8, s.flush)
        took = time.monotonic() - began
    assert isinstance(got, otlp.SendError)
    text = str(got)
    assert "asked to wait 3600 s" in text and "--otlp-give-up 2" in text
    said = float(text.split("gave up after ")[1].split(" s")[0])
    assert abs(said - took) < 1.0 and took < 3
    assert len(seen) == 1


def test_retry_after_as_an_http_date_and_nonsense() -> None:
    from email.utils import formatdate
    assert 50 < otlp._retry_after(formatdate(time.time() + 60, usegmt=True)) <= 61
    for nonsense in ("soon", "-5", "nan", "inf", "1e999", ""):
        assert otlp._retry_after(nonsense) == 0.0


@pytest.mark.parametrize("endpoint", ["http://[::1", "http://127.0.0.1:99999/", "http://", "http:///v1/traces",
                                      "ftp://127.0.0.1/", "http://host name/", "http://127.0.0.1:0/",
                                      "http://127.0.0.1:port/", "http://h/\n", "localhost:4318"])
def test_a_malformed_endpoint_is_a_usage_error_at_once(endpoint: str, tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_text(json.dumps({"type": "system", "subtype": "init", "session_id": "s"}) + "\n")
    code, _, err = within(5, lambda: main("export", "--otlp-endpoint", endpoint, str(f)))
    assert code == 2, err
    assert "Traceback" not in err and "--otlp-endpoint" in err


@pytest.mark.parametrize("give_up", ["-1", "nan"])
def test_a_give_up_that_is_no_time_is_a_usage_error(give_up: str, tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_text("{}\n")
    code, _, err = main("export", "--otlp-endpoint", "http://127.0.0.1:9/", "--otlp-give-up", give_up, str(f))
    assert code == 2 and "--otlp-give-up" in err


def _session(tmp_path: Path) -> Path:
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "m"},
        {"type": "assistant", "session_id": "s", "message": {"id": "m1", "content": [{"type": "text", "text": "hi"}]}},
        {"type": "result", "subtype": "success", "session_id": "s"}]) + "\n")
    return f


def test_credentials_in_the_endpoint_are_sent_as_basic_auth_and_never_printed(tmp_path: Path) -> None:
    def ok(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", "0")
        h.end_headers()
    with collector(ok) as (url, seen):
        with_creds = url.replace("http://", "http://alice:s3cr%40t@") + "/"
        code, _, err = within(10, lambda: main("export", "--otlp-endpoint", with_creds, str(_session(tmp_path))))
    assert code == 0, err
    (method, path, headers), *_ = seen
    assert method == "POST" and path == "/v1/traces"
    assert headers["Authorization"] == "Basic " + base64.b64encode(b"alice:s3cr@t").decode()
    assert "s3cr" not in err and "alice" not in err and f"{url}/v1/traces" in err


def test_a_failure_with_credentials_never_prints_them(tmp_path: Path) -> None:
    port = socket.socket()
    port.bind(("127.0.0.1", 0))
    free = port.getsockname()[1]
    port.close()  # nobody listens there
    url = f"http://bob:hunter2@127.0.0.1:{free}/"
    code, _, err = within(10, lambda: main("export", "--otlp-endpoint", url, "--otlp-give-up", "0.3",
                                           str(_session(tmp_path))))
    assert code == 1 and "not reachable" in err and "gave up" in err
    assert "hunter2" not in err and "bob" not in err
    bad = "http://bob:hunter2@[::1"
    code, _, err = main("export", "--otlp-endpoint", bad, str(_session(tmp_path)))
    assert code == 2 and "hunter2" not in err


def test_a_refused_batch_says_what_was_not_sent_and_what_was() -> None:
    answers = iter([200, 400])

    def some(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(next(answers))
        h.send_header("Content-Length", "0")
        h.end_headers()
    with collector(some) as (url, _):
        s = sender(url, give_up=5)
        s.flush()
        s.add(RESOURCE, [SPAN, SPAN])
        got = within(8, s.flush)
    assert s.sent == 1 and isinstance(got, otlp.SendError) and "400" in str(got) and "2 span(s) not sent" in str(got)
