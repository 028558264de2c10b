"""``relayscope export``: the run as a trace (Chrome Trace Event Format or OTLP JSON) to a file,
or its spans sent to an OTLP collector, once or as it grows (``--follow``)."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from ... import follow
from ...export import Spans as OtlpSpans
from ...export import day_start
from ...export import stream as export_stream
from ...export import writer as export_writer
from ...inputs import STDIN
from ...otlp import Sender, SendError
from ...otlp import SettingsError as OtlpSettingsError
from ...otlp import settings as otlp_settings
from ...otlp_follow import FollowSpans
from ...spans import parse as parse_stamp
from ..errors import INPUT_ERRORS, INTERRUPTED, OK, UsageError
from ..gathering import source_of, unread
from ..redacting import redactor_of
from ..reports import report_redaction, said
from ..terminal import err, json_out, stdout
from ..writers import write_some

if TYPE_CHECKING:
    import argparse


def _untimed_start(args: argparse.Namespace) -> float | None:
    raw = args.untimed_start
    if raw is None:
        return None
    try:
        return float(raw)
    except ValueError:
        pass
    seconds = parse_stamp(raw)
    if seconds is None:
        raise UsageError(f"--untimed-start takes an ISO 8601 time or seconds since the epoch, not {raw!r}")
    return seconds


def cmd_export(args: argparse.Namespace) -> int:
    try:
        # the environment names a collector only when no file format is asked for
        target = otlp_settings(args.otlp_endpoint, args.otlp_header or (), args.otlp_protocol,
                               env=None if args.format is None or args.follow else {})
    except OtlpSettingsError as exc:
        raise UsageError(str(exc)) from exc
    _give_up(args.otlp_give_up)  # a usage error before anything is read
    if args.follow:
        if target is None:
            raise UsageError("--follow sends to a collector: give --otlp-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT)")
        return _export_follow(args, target)
    if args.format is None and target is None:
        raise UsageError("give --format (a file) or --otlp-endpoint (a collector)")
    source, read = source_of(args)
    start = _untimed_start(args)
    failed = unread(source, False)
    if target is not None:
        return _export_send(args, source, read, target, start, failed)

    def out(data: bytes) -> None:
        write_some(stdout(), json_out(data))  # whole events at a time: each escaped as it goes
    w = export_writer(args.format, out, start if start is not None else day_start(time.time()))
    for run, items, done in export_stream(source, args.strategy, args.input_format, read):
        w.put(run, items, done)
        if done:
            failed = said(run, unread(source, failed))
    w.close()
    write_some(stdout(), b"")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


def _give_up(seconds: float) -> float | None:
    """--otlp-give-up as the sender takes it (inf: never), a usage error when it is no time."""
    if not seconds >= 0:
        raise UsageError(f"--otlp-give-up takes seconds, 0 or more (inf: never), not {seconds:g}")
    return None if seconds == float("inf") else seconds


def _not_sent(exc: SendError, sender: Sender) -> None:
    before = f" ({sender.sent} span(s) were delivered before)" if sender.sent else ""
    err(f"relayscope: {exc}{before}")


def _export_send(args: argparse.Namespace, source: Any, read: Any, target: Any, start: float | None,
                 failed: bool) -> int:
    sender = Sender(target, give_up=_give_up(args.otlp_give_up))
    clock = export_writer("otlp", lambda _b: None, start if start is not None else day_start(time.time()))
    spans = OtlpSpans(clock)
    try:
        for run, items, done in export_stream(source, args.strategy, args.input_format, read):
            sent = spans.of(run, items)
            sender.add(spans.resource(run), sent)
            if done:
                failed = said(run, unread(source, failed))
        sender.flush()
    except SendError as exc:
        _not_sent(exc, sender)
        return INPUT_ERRORS
    report_redaction(args)
    err(f"relayscope: sent {sender.sent} span(s) to {target.endpoint} in {sender.requests} request(s)")
    return INPUT_ERRORS if failed else OK


def _export_follow(args: argparse.Namespace, target: Any) -> int:
    redactor_of(args)  # --redact with --follow: a usage error, never an unredacted output
    path = args.file[0]
    if len(args.file) != 1 or path == STDIN or not (os.path.isfile(path) or os.path.isdir(path)):
        raise UsageError("--follow takes one FILE or DIR that exists")
    start = _untimed_start(args)
    sender = Sender(target, give_up=None)
    sink = FollowSpans(sender, start if start is not None else time.time(), os.path.isdir(path))
    try:
        outcome = follow.run(path, args, sink, raw=sink.raw)
    except SendError as exc:
        _not_sent(exc, sender)
        return INPUT_ERRORS
    err(f"relayscope: sent {sender.sent} span(s) to {target.endpoint} in {sender.requests} request(s)")
    failed = any(said(run, False) for run in sink.runs.values()) or outcome.failed
    return INTERRUPTED if outcome.interrupted else INPUT_ERRORS if failed else OK
