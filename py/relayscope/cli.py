"""cli: ``relayscope translate | trace | audit``. The only module that does I/O.

Exit codes: 0 ok, 1 when the input had errors (everything else is still printed),
2 on usage errors (bad flags, missing files). Errors go to stderr as ``FILE:LINE: message``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import BinaryIO, Final

import msgspec

from . import __version__
from . import relay as R
from .analysis import AUTO, Analyzer
from .audit import audit_lines, render
from .formats import FORMATS
from .present import text_line
from .trace import render_table, steps_to_json
from .translator import STRATEGIES

OK: Final = 0
INPUT_ERRORS: Final = 1
USAGE: Final = 2
_encoder: Final = msgspec.json.Encoder()


class UsageError(Exception):
    pass


class Source:
    """One input: a name for messages and a binary stream of lines."""

    def __init__(self, name: str, stream: BinaryIO, live: bool = False) -> None:
        self.name, self.stream, self.live = name, stream, live

    def lines(self) -> Iterator[bytes]:
        if self.live:  # a pipe: hand each line on as soon as it arrives
            yield from iter(self.stream.readline, b"")
        else:
            yield from self.stream


def open_sources(paths: list[str]) -> list[Source]:
    if not paths or paths == ["-"]:
        return [Source("<stdin>", sys.stdin.buffer, live=True)]
    sources = []
    for path in paths:
        if path == "-":
            sources.append(Source("<stdin>", sys.stdin.buffer, live=True))
        elif os.path.isdir(path):
            raise UsageError(f"{path}: is a directory (give the transcript files)")
        else:
            try:
                sources.append(Source(path, open(path, "rb")))  # noqa: SIM115 - closed by the caller
            except OSError as exc:
                raise UsageError(f"{path}: {exc.strerror}") from exc
    return sources


class Writer:
    """Relays to stdout as NDJSON, a JSON array, or text lines."""

    def __init__(self, out: BinaryIO, fmt: str, live: bool) -> None:
        self.out, self.fmt, self.live, self.count = out, fmt, live, 0

    def write(self, relays: list[R.Relay]) -> None:
        if not relays:
            return
        if self.fmt == "ndjson":
            self.out.write(_encoder.encode_lines(relays))
        elif self.fmt == "json":
            for r in relays:
                self.out.write(b"[\n" if self.count == 0 else b",\n")
                self.out.write(_encoder.encode(r))
                self.count += 1
        else:
            self.out.write("".join(text_line(r) + "\n" for r in relays).encode())
        if self.live:
            self.out.flush()

    def close(self) -> None:
        if self.fmt == "json":
            self.out.write(b"[]\n" if self.count == 0 else b"\n]\n")
        self.out.flush()


def report(name: str, errors: list[tuple[int, str]], start: int = 0) -> None:
    for line, message in errors[start:]:
        print(f"{name}:{line}: {message}", file=sys.stderr)


def cmd_translate(args: argparse.Namespace) -> int:
    sources = open_sources(args.files)
    writer = Writer(sys.stdout.buffer, args.format, live=any(s.live for s in sources))
    failed = False
    try:
        for source in sources:
            name = source.name if len(sources) > 1 else None
            a = Analyzer(args.strategy, args.input_format, keep=False, file=name)
            reported = 0
            for line in source.lines():
                writer.write(a.feed_line(line))
                if len(a.errors) > reported:
                    report(source.name, a.errors, reported)
                    reported = len(a.errors)
            writer.write(a.finish())
            report(source.name, a.errors, reported)
            failed = failed or bool(a.errors)
    finally:
        for source in sources:
            if not source.live:
                source.stream.close()
    writer.close()
    return INPUT_ERRORS if failed else OK


def _read_one(path: str) -> list[bytes]:
    (source,) = open_sources([path])
    with source.stream:
        return list(source.lines())


def cmd_trace(args: argparse.Namespace) -> int:
    lines = _read_one(args.file)
    a = Analyzer(args.strategy, args.input_format, trace=True, keep=False)
    for line in lines:
        a.feed_line(line)
    a.finish()
    out = sys.stdout.buffer
    out.write(steps_to_json(a.trace) + b"\n" if args.json else render_table(a.trace).encode())
    out.flush()
    report(args.file, a.errors)
    return INPUT_ERRORS if a.errors else OK


def cmd_audit(args: argparse.Namespace) -> int:
    lines = _read_one(args.file)
    probe = Analyzer("lineage", args.input_format, keep=False)
    for line in lines:
        probe.feed_line(line)
    probe.finish()
    if probe.format == "sse":
        raise UsageError(f"{args.file}: audit compares de-dup strategies; an Arbiter SSE stream has no duplicates to compare")
    results = audit_lines(lines)
    out = sys.stdout.buffer
    out.write(msgspec.json.encode(results) + b"\n" if args.json else render(results).encode())
    out.flush()
    report(args.file, probe.errors)
    return INPUT_ERRORS if probe.errors else OK


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="relayscope",
        description="Translate Claude Code stream-json, session transcripts and Arbiter fleet streams "
        "into de-duplicated relay events, and explain every decision.",
    )
    p.add_argument("--version", action="version", version=f"relayscope {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(sp: argparse.ArgumentParser, strategy: bool = True) -> None:
        if strategy:
            sp.add_argument("-s", "--strategy", choices=list(STRATEGIES), default="lineage",
                            help="de-dup strategy (default: lineage)")
        sp.add_argument("-i", "--input-format", choices=[AUTO, *FORMATS], default=AUTO,
                        help="input format (default: detected from the first lines)")

    t = sub.add_parser("translate", help="relay events, NDJSON by default, streaming",
                       description="Translate input to relay events. Reads stdin for '-' or no file, "
                       "line by line, so `claude -p ... --output-format stream-json --verbose | relayscope "
                       "translate -` works live.")
    t.add_argument("files", nargs="*", metavar="FILE", help="input files, or - for stdin")
    t.add_argument("-f", "--format", choices=["ndjson", "json", "text"], default="ndjson",
                   help="output format (default: ndjson)")
    common(t)
    t.set_defaults(run=cmd_translate)

    tr = sub.add_parser("trace", help="the per-line de-dup trace",
                        description="One step per input line: kind, lane, fingerprint, de-dup state before "
                        "and after, the decision and the relays emitted.")
    tr.add_argument("file", metavar="FILE")
    tr.add_argument("--json", action="store_true", help="JSON array instead of a table")
    common(tr)
    tr.set_defaults(run=cmd_trace)

    au = sub.add_parser("audit", help="compare the strategies on one transcript",
                        description="For each strategy: blocks emitted, lost and duplicated, against an "
                        "inventory of the transcript's content blocks built independently of any strategy.")
    au.add_argument("file", metavar="FILE")
    au.add_argument("--json", action="store_true", help="JSON instead of a table")
    common(au, strategy=False)
    au.set_defaults(run=cmd_audit)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
        return code
    except UsageError as exc:
        print(f"relayscope: {exc}", file=sys.stderr)
        return USAGE
    except BrokenPipeError:
        # the reader went away (| head): not an error of ours; keep Python quiet at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
