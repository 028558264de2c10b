"""otlp: the run's spans sent to an OpenTelemetry collector over OTLP/HTTP, as they finish.

Job: encode :class:`~relayscope.export.OSpan` lists as an ``ExportTraceServiceRequest`` (protobuf,
the default, or OTLP/JSON) and POST them, with the standard ``OTEL_EXPORTER_OTLP_*`` settings,
retries with backoff, and a bound on what is held while the collector is away.

Why a hand-written encoder: the core's only run-time dependency is msgspec (it runs in Pyodide),
and the trace request uses five small messages; the tests check every byte against the reference
schema (``opentelemetry-proto``, a test dependency). Only the fields we write are encoded.

Settings (the flag wins over the variable; the ``TRACES_`` variable over the general one):

=====================================  ==========================================================
``--otlp-endpoint URL``                the URL as given when it has a path, else ``URL/v1/traces``
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` the URL as given
``OTEL_EXPORTER_OTLP_ENDPOINT``        ``URL/v1/traces``
``--otlp-header K=V`` (repeatable)     added to ``OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`` (``k=v,k2=v2``,
                                       values URL-encoded)
``--otlp-protocol`` / ``_PROTOCOL``    ``http/protobuf`` (default) or ``http/json``; ``grpc`` is refused
``OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT``  milliseconds per request (default 10000)
=====================================  ==========================================================

Delivery: spans are sent in batches of up to ``BATCH`` (and whatever is pending at the end of a
poll). A failed send (no connection, a timeout, 429, 502, 503, 504) is retried after 0.5 s, then
doubling up to 30 s (a ``Retry-After`` is honoured), said once on stderr with the count held;
meanwhile nothing more is read, so what is held stays one batch (the input waits on disk:
nothing is lost). ``give_up`` seconds without a delivery end the send with an error (``export``
reading a finished input: 300 s; ``--follow``: never). Any other answer is an error at once.

Must not: be imported by the core or the page (it does network I/O); build spans (``export`` does).
"""

from __future__ import annotations

import base64
import email.utils
import http.client
import io
import math
import os
import socket
import struct
import sys
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .export import SCOPE, OSpan, Value, _dumps, _json_attrs, otlp_json_span
from .termsafe import safe

PROTOBUF: Final = "http/protobuf"
JSON: Final = "http/json"
BATCH: Final = 512
RETRY_STATUS: Final = frozenset({429, 502, 503, 504})
FIRST_WAIT: Final = 0.5
LONGEST_WAIT: Final = 30.0


# -- protobuf -------------------------------------------------------------------------------

def _varint(n: int) -> bytes:
    """A varint of an int64 or uint64 (ValueError past them: ``export`` clamps what it reads,
    and a negative number past int64 would never shift down to 0)."""
    if n < 0:
        n += 1 << 64  # int64 as protobuf writes it: two's complement in ten bytes
    if not 0 <= n < 1 << 64:
        raise ValueError(f"{n} does not fit a protobuf varint (64 bits)")
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _text(number: int, value: str) -> bytes:
    return _field(number, value.encode("utf-8", "surrogatepass")) if value else b""


def _fixed64(number: int, value: int) -> bytes:
    return _varint(number << 3 | 1) + struct.pack("<Q", value)


def _any_value(v: Value) -> bytes:
    if isinstance(v, bool):
        return _varint(2 << 3) + _varint(int(v))
    if isinstance(v, int):
        return _varint(3 << 3) + _varint(v)
    return _field(1, v.encode("utf-8", "surrogatepass"))


def _key_values(number: int, attrs: Iterable[tuple[str, Value]]) -> bytes:
    return b"".join(_field(number, _text(1, k) + _field(2, _any_value(v))) for k, v in attrs)


def _span(s: OSpan) -> bytes:
    out = [_field(1, s.trace_id), _field(2, s.span_id)]
    if s.parent_id:
        out.append(_field(4, s.parent_id))
    out += [_text(5, s.name), _varint(6 << 3) + _varint(1), _fixed64(7, s.start_ns), _fixed64(8, s.end_ns),
            _key_values(9, s.attributes)]
    for t, name, attrs in s.events:
        out.append(_field(11, _fixed64(1, t) + _text(2, name) + _key_values(3, attrs)))
    if s.error:
        out.append(_field(15, _text(2, s.error) + _varint(3 << 3) + _varint(2)))
    return b"".join(out)


def encode(batches: Iterable[tuple[list[tuple[str, Value]], list[OSpan]]]) -> bytes:
    """``ExportTraceServiceRequest`` in protobuf: one ``ResourceSpans`` per (resource, spans)."""
    out = []
    for resource, spans in batches:
        scope = _field(1, _text(1, SCOPE)) + b"".join(_field(2, _span(s)) for s in spans)
        out.append(_field(1, _field(1, _key_values(1, resource)) + _field(2, scope)))
    return b"".join(out)


def encode_json(batches: Iterable[tuple[list[tuple[str, Value]], list[OSpan]]]) -> bytes:
    """The same request as OTLP/JSON."""
    return _dumps({"resourceSpans": [
        {"resource": {"attributes": _json_attrs(resource)},
         "scopeSpans": [{"scope": {"name": SCOPE}, "spans": [otlp_json_span(s) for s in spans]}]}
        for resource, spans in batches]})


# -- settings --------------------------------------------------------------------------------

class SettingsError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Settings:
    endpoint: str  # as messages show it: never with the credentials a URL may carry (they are in headers)
    headers: dict[str, str] = field(default_factory=dict)
    protocol: str = PROTOBUF
    timeout: float = 10.0  # seconds: one request, from connecting to the answer's last byte


def _checked(url: str, source: str) -> tuple[str, dict[str, str]]:
    """``url`` as sent (its credentials taken out) and the headers they make (``user:password@``
    as HTTP basic authentication); SettingsError, that never shows a password, when it is no
    http(s) URL with a host and a valid port."""
    try:
        parts = urllib.parse.urlsplit(url)
        shown = parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
    except ValueError:
        parts, shown = None, url.rpartition("@")[2]
    where = f"{source} {shown!r}"
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        raise SettingsError(f"{where}: a URL has no spaces or control characters")
    if parts is None:
        raise SettingsError(f"{where} is not a URL")
    if parts.scheme not in ("http", "https"):
        raise SettingsError(f"{where}: the OTLP endpoint must be an http:// or https:// URL")
    try:
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise SettingsError(f"{where}: {exc}") from exc
    if not host:
        raise SettingsError(f"{where} names no host")
    if port == 0:
        raise SettingsError(f"{where}: port 0 is no port a collector listens on")
    headers: dict[str, str] = {}
    if parts.username is not None or parts.password is not None:
        pair = f"{urllib.parse.unquote(parts.username or '')}:{urllib.parse.unquote(parts.password or '')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
    return shown, headers


def settings(endpoint: str | None, headers: Iterable[str] = (), protocol: str | None = None,
             env: Mapping[str, str] | None = None) -> Settings | None:
    """The collector to send to, from the flags and ``OTEL_EXPORTER_OTLP_*`` (None: none named).
    SettingsError (a usage error) for a malformed URL, before anything is sent."""
    env = os.environ if env is None else env

    def var(name: str) -> str | None:
        return env.get(f"OTEL_EXPORTER_OTLP_TRACES_{name}") or env.get(f"OTEL_EXPORTER_OTLP_{name}") or None
    source = "--otlp-endpoint"
    url = endpoint
    if url is None and env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        url, source = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    elif url is None and env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        url, source = env["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") + "/v1/traces", "OTEL_EXPORTER_OTLP_ENDPOINT"
    if url is None:
        return None
    url, auth = _checked(url, source)
    if endpoint is not None and urllib.parse.urlsplit(url).path in ("", "/"):
        url = url.rstrip("/") + "/v1/traces"
    found: dict[str, str] = dict(auth)
    for part in (var("HEADERS") or "").split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            found[urllib.parse.unquote(k.strip())] = urllib.parse.unquote(v.strip())
    for h in headers:
        if "=" not in h:
            raise SettingsError(f"--otlp-header takes KEY=VALUE, not {h!r}")
        k, v = h.split("=", 1)
        found[k.strip()] = v.strip()
    for k, v in found.items():
        if not k or any(c in k for c in ":\r\n ") or any(c in v for c in "\r\n\0"):
            raise SettingsError(f"OTLP header {k!r}: a header's name has no ':' or spaces, and neither has a line break")
    proto = protocol or var("PROTOCOL") or PROTOBUF
    if proto not in (PROTOBUF, JSON):
        raise SettingsError(f"OTLP protocol {proto!r} is not supported: use {PROTOBUF} or {JSON}")
    raw_timeout = var("TIMEOUT")
    try:
        timeout = float(raw_timeout) / 1000 if raw_timeout else 10.0
    except ValueError as exc:
        raise SettingsError(f"OTEL_EXPORTER_OTLP_TIMEOUT is not a number of milliseconds: {raw_timeout!r}") from exc
    if not 0 < timeout < math.inf:
        raise SettingsError(f"OTEL_EXPORTER_OTLP_TIMEOUT takes a number of milliseconds above 0, not {raw_timeout!r}")
    return Settings(url, found, proto, timeout)


# -- sending ---------------------------------------------------------------------------------

class SendError(Exception):
    pass


class _Late(TimeoutError):
    """The request's deadline passed (however the collector trickled its answer)."""


class _Deadline(io.RawIOBase):
    """A socket read no later than a deadline: each read waits at most what is left of it, so an
    answer trickled a byte at a time ends there too (a socket timeout alone restarts per byte)."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock, self.deadline = sock, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _Late("the deadline passed")
        self.sock.settimeout(left)
        return self.sock.recv_into(b)


class _Socket:
    """The connection's socket as http.client uses it, every read and write within the deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock, self.deadline = sock, deadline

    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _Late("the deadline passed")
        return left

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            self.sock.settimeout(min(self._left(), 1.0))
            try:
                sent = self.sock.send(view[:1 << 16])
            except TimeoutError:
                continue
            view = view[sent:]

    def makefile(self, mode: str, *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_Deadline(self.sock, self.deadline))

    def close(self) -> None:
        self.sock.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)


def _connection(url: urllib.parse.SplitResult, deadline: float) -> http.client.HTTPConnection:
    """An HTTP(S) connection whose connect, send and every read end by ``deadline`` (monotonic)."""
    kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    left = max(0.001, deadline - time.monotonic())
    conn = kind(url.hostname or "", url.port, timeout=left)
    connect = conn.connect

    def bounded() -> None:
        connect()
        conn.sock = _Socket(conn.sock, deadline)
    conn.connect = bounded  # type: ignore[method-assign]
    return conn


class Sender:
    """Spans in (:meth:`add`), POSTed in batches with retries (the module doc)."""

    def __init__(self, s: Settings, give_up: float | None = 300.0, say: Callable[[str], None] | None = None,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> None:
        self.s = s
        self.give_up = give_up
        self.say = say or (lambda text: print(f"relayscope: {text}", file=sys.stderr, flush=True))
        self.sleep, self.clock = sleep, clock
        self.held: list[tuple[list[tuple[str, Value]], list[OSpan]]] = []
        self.count = 0
        self.sent = 0
        self.requests = 0
        self._left: float | None = None  # seconds this request may take (the give-up's rest, at most the timeout)

    def add(self, resource: list[tuple[str, Value]], spans: list[OSpan]) -> None:
        if not spans:
            return
        if self.held and self.held[-1][0] == resource:
            self.held[-1][1].extend(spans)
        else:
            self.held.append((resource, list(spans)))
        self.count += len(spans)
        if self.count >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Send what is held, retrying until it is delivered or ``give_up`` seconds have passed:
        one deadline for the whole of it, that neither a slow answer nor a ``Retry-After`` stretches."""
        if not self.held:
            return
        body = (encode if self.s.protocol == PROTOBUF else encode_json)(self.held)
        wait, began, told = FIRST_WAIT, self.clock(), False
        while True:
            left = None if self.give_up is None else self.give_up - (self.clock() - began)
            self._left = self.s.timeout if left is None else max(0.0, min(self.s.timeout, left))
            problem, retry_after = self._post(body)
            if problem is None:
                if told:
                    self.say(f"{self.s.endpoint}: delivered the {self.count} span(s) held")
                self.sent += self.count
                self.held, self.count = [], 0
                return
            if retry_after is None:
                raise SendError(f"{self.s.endpoint}: {problem}; {self.count} span(s) not sent")
            spent = self.clock() - began
            pause = min(max(wait, retry_after), LONGEST_WAIT)
            if self.give_up is not None and spent + pause > self.give_up:
                asked = (f" (it asked to wait {retry_after:g} s, past the give-up)"
                         if retry_after > self.give_up - spent else "")
                raise SendError(f"{self.s.endpoint}: {problem}{asked}; gave up after {spent:.1f} s "
                                f"(--otlp-give-up {self.give_up:g}) with {self.count} span(s) not sent")
            if not told:
                until = "" if self.give_up is None else f"; giving up after {self.give_up:g} s"
                self.say(f"{self.s.endpoint}: {problem}; holding {self.count} span(s) and reading no more "
                         f"until they are delivered (retrying, every {LONGEST_WAIT:g} s at most{until})")
                told = True
            self.sleep(pause)
            wait = min(wait * 2, LONGEST_WAIT)

    def _post(self, body: bytes) -> tuple[str | None, float | None]:
        """(None, None) when delivered; else what went wrong and, when worth retrying, how long the
        collector asked us to wait (0: it did not say). The request ends within ``_left`` seconds
        whatever the collector does; a redirect is not followed (the spans were not delivered)."""
        kind = "application/x-protobuf" if self.s.protocol == PROTOBUF else "application/json"
        left = self.s.timeout if self._left is None else self._left
        if left <= 0:
            return "no time left to send", 0.0
        url = urllib.parse.urlsplit(self.s.endpoint)
        target = (url.path or "/") + (f"?{url.query}" if url.query else "")
        conn = _connection(url, time.monotonic() + left)
        self.requests += 1
        try:
            conn.request("POST", target, body, {**self.s.headers, "Content-Type": kind})
            resp = conn.getresponse()
            status, reason = resp.status, resp.reason
            if 200 <= status < 300:
                while resp.read(1 << 16):  # the answer, let go as it comes (within the deadline)
                    pass
                return None, None
            if 300 <= status < 400:
                to = _said(resp.getheader("Location") or "no Location", 300)
                return (f"the collector answered {status} {_said(reason, 80)}, a redirect to {to}: redirects are not "
                        "followed (name the URL it gives with --otlp-endpoint)"), None
            detail = _said(resp.read(300).decode("utf-8", "replace").strip(), 300)
            problem = f"the collector answered {status} {_said(reason, 80)}" + (f": {detail}" if detail else "")
            if status in RETRY_STATUS:
                return problem, _retry_after(resp.getheader("Retry-After"))
            return problem, None
        except (TimeoutError, _Late):
            return f"no whole answer within {left:.3g} s", 0.0
        except (OSError, http.client.HTTPException) as exc:
            return f"not reachable ({_said(str(exc) or type(exc).__name__, 200)})", 0.0
        finally:
            conn.close()


def _said(text: str, most: int) -> str:
    """What a collector said, cut to ``most`` characters, its control characters shown."""
    return safe(text[:most] + ("..." if len(text) > most else ""))


def _retry_after(value: str | None) -> float:
    """A ``Retry-After`` in seconds (a number, or an HTTP date), 0 when it says nothing usable."""
    if not value:
        return 0.0
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return 0.0
        if when.tzinfo is None:
            return 0.0
        seconds = when.timestamp() - time.time()
    return seconds if 0 <= seconds < math.inf else 0.0
