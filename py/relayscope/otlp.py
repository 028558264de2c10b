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

import os
import struct
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from .export import SCOPE, OSpan, Value, _dumps, _json_attrs, otlp_json_span

PROTOBUF: Final = "http/protobuf"
JSON: Final = "http/json"
BATCH: Final = 512
RETRY_STATUS: Final = frozenset({429, 502, 503, 504})
FIRST_WAIT: Final = 0.5
LONGEST_WAIT: Final = 30.0


# -- protobuf -------------------------------------------------------------------------------

def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64  # int64 as protobuf writes it: two's complement in ten bytes
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
    endpoint: str
    headers: dict[str, str] = field(default_factory=dict)
    protocol: str = PROTOBUF
    timeout: float = 10.0  # seconds


def settings(endpoint: str | None, headers: Iterable[str] = (), protocol: str | None = None,
             env: Mapping[str, str] | None = None) -> Settings | None:
    """The collector to send to, from the flags and ``OTEL_EXPORTER_OTLP_*`` (None: none named)."""
    env = os.environ if env is None else env

    def var(name: str) -> str | None:
        return env.get(f"OTEL_EXPORTER_OTLP_TRACES_{name}") or env.get(f"OTEL_EXPORTER_OTLP_{name}") or None
    url = endpoint or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if url is None and env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        url = env["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") + "/v1/traces"
    elif url is not None and endpoint is not None and urllib.parse.urlsplit(url).path in ("", "/"):
        url = url.rstrip("/") + "/v1/traces"
    if url is None:
        return None
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise SettingsError(f"the OTLP endpoint must be an http:// or https:// URL: {url!r}")
    found: dict[str, str] = {}
    for part in (var("HEADERS") or "").split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            found[urllib.parse.unquote(k.strip())] = urllib.parse.unquote(v.strip())
    for h in headers:
        if "=" not in h:
            raise SettingsError(f"--otlp-header takes KEY=VALUE, not {h!r}")
        k, v = h.split("=", 1)
        found[k.strip()] = v.strip()
    proto = protocol or var("PROTOCOL") or PROTOBUF
    if proto not in (PROTOBUF, JSON):
        raise SettingsError(f"OTLP protocol {proto!r} is not supported: use {PROTOBUF} or {JSON}")
    raw_timeout = var("TIMEOUT")
    try:
        timeout = float(raw_timeout) / 1000 if raw_timeout else 10.0
    except ValueError as exc:
        raise SettingsError(f"OTEL_EXPORTER_OTLP_TIMEOUT is not a number of milliseconds: {raw_timeout!r}") from exc
    return Settings(url, found, proto, timeout)


# -- sending ---------------------------------------------------------------------------------

class SendError(Exception):
    pass


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
        """Send what is held, retrying until it is delivered (or ``give_up`` passes)."""
        if not self.held:
            return
        body = (encode if self.s.protocol == PROTOBUF else encode_json)(self.held)
        wait, began, told = FIRST_WAIT, self.clock(), False
        while True:
            problem, retry_after = self._post(body)
            if problem is None:
                if told:
                    self.say(f"{self.s.endpoint}: delivered the {self.count} span(s) held")
                self.sent += self.count
                self.held, self.count = [], 0
                return
            if retry_after is None:
                raise SendError(f"{self.s.endpoint}: {problem}")
            if self.give_up is not None and self.clock() - began >= self.give_up:
                raise SendError(f"{self.s.endpoint}: {problem}; gave up after {self.give_up:g} s "
                                f"with {self.count} span(s) not sent")
            pause = min(max(wait, retry_after), LONGEST_WAIT)
            if not told:
                self.say(f"{self.s.endpoint}: {problem}; holding {self.count} span(s) and reading no more "
                         f"until they are delivered (retrying, every {LONGEST_WAIT:g} s at most)")
                told = True
            self.sleep(pause)
            wait = min(wait * 2, LONGEST_WAIT)

    def _post(self, body: bytes) -> tuple[str | None, float | None]:
        """(None, None) when delivered; else what went wrong and, when worth retrying, how long the
        collector asked us to wait (0: it did not say)."""
        kind = "application/x-protobuf" if self.s.protocol == PROTOBUF else "application/json"
        req = urllib.request.Request(self.s.endpoint, data=body, method="POST",
                                     headers={**self.s.headers, "Content-Type": kind})
        self.requests += 1
        try:
            with urllib.request.urlopen(req, timeout=self.s.timeout) as resp:
                resp.read()
            return None, None
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", "replace").strip()
            problem = f"the collector answered {exc.code} {exc.reason}" + (f": {detail}" if detail else "")
            if exc.code in RETRY_STATUS:
                return problem, _retry_after(exc.headers.get("Retry-After"))
            return problem, None
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            return f"not reachable ({reason})", 0.0


def _retry_after(value: str | None) -> float:
    try:
        return max(0.0, float(value)) if value else 0.0
    except ValueError:
        return 0.0
