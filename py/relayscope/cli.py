"""cli: ``relayscope translate | trace | audit``. The only module that does I/O.

Inputs are files, ``-`` for stdin, or directories. A directory (a session folder with its
``subagents/``, a project folder under ``~/.claude/projects/``, or any folder above them) and
several files among which are session transcripts are read whole and translated together, one
session at a time (``multifile.translate_files``): a main file and its sub-agent files share
one seq space and their lanes link up. A single file streams line by line, as before.

Exit codes: 0 ok, 1 when the input had errors (everything else is still printed),
2 on usage errors (bad flags, missing files). Errors go to stderr as ``FILE:LINE: message``.

The top of the layers: it may import anything in the package except ``web``; nothing imports it.
No state between commands.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import msgspec

from . import __version__, follow
from . import relay as R
from .analysis import AUTO, Analyzer
from .audit import render
from .formats import FORMATS, detect
from .multifile import audit_input, translate_files
from .present import text_line
from .trace import render_table, steps_to_json
from .translator import STRATEGIES

OK: Final = 0
INPUT_ERRORS: Final = 1
USAGE: Final = 2
INTERRUPTED: Final = 130  # Ctrl-C (128 + SIGINT), as shells report it
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


def _walk(folder: str) -> list[str]:
    """Transcripts and sub-agent meta files under ``folder``; for a session folder
    ``<session>/`` also the main file ``<session>.jsonl`` beside it."""
    found: list[str] = []
    for here, dirs, names in os.walk(folder):
        dirs.sort()
        found.extend(os.path.join(here, n) for n in sorted(names)
                     if n.endswith((".jsonl", ".ndjson")) or n.endswith(".meta.json"))
    main = os.path.normpath(folder) + ".jsonl"
    if os.path.isfile(main) and main not in found:
        found.insert(0, main)
    return found


def gather(paths: list[str]) -> dict[str, bytes]:
    """Every file named or found under a named directory, read whole: {path: content}."""
    files: dict[str, bytes] = {}
    for path in paths:
        if path == "-":
            raise UsageError("- (stdin) cannot be read together with other files or a directory")
        found = _walk(path) if os.path.isdir(path) else [path]
        if not found:
            raise UsageError(f"{path}: no .jsonl transcripts in this directory")
        for name in found:
            try:
                with open(name, "rb") as stream:
                    files.setdefault(name, stream.read())
            except OSError as exc:
                raise UsageError(f"{name}: {exc.strerror}") from exc
    return files


def session_inputs(paths: list[str], fmt: str) -> dict[str, bytes] | None:
    """The inputs to translate together as session(s), or None to stream them one by one:
    a directory, or several files at least one of which is a session transcript."""
    if any(p != "-" and os.path.isdir(p) for p in paths):
        return gather(paths)
    if len(paths) < 2 or "-" in paths or fmt not in (AUTO, "session"):
        return None
    if fmt == "session" or any(_sniff(p) == "session" for p in paths):
        return gather(paths)
    return None


def _sniff(path: str) -> str | None:
    try:
        with open(path, "rb") as stream:
            return detect(stream)
    except OSError:
        return None  # reported when opened


def report_files(errors: list[tuple[str | None, int, str]]) -> None:
    for name, line, message in errors:
        print(f"{name}:{line}: {message}", file=sys.stderr)


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


def _follow(command: str, args: argparse.Namespace, paths: list[str]) -> int | None:
    """``--follow``: tail one file or folder as it grows (``follow.py``); None without it."""
    if not args.follow:
        return None
    if len(paths) != 1 or paths[0] == "-":
        raise UsageError("--follow takes one FILE or DIR (stdin is always read live)")
    if not os.path.exists(paths[0]):
        raise UsageError(f"{paths[0]}: No such file or directory")
    if not (os.path.isfile(paths[0]) or os.path.isdir(paths[0])):
        raise UsageError(f"{paths[0]}: --follow reads a regular file or a folder (a pipe is read live without it)")
    writer = Writer(sys.stdout.buffer, args.format, live=True) if command == "translate" else None
    outcome = follow.run(paths[0], args, writer)
    return INTERRUPTED if outcome.interrupted else INPUT_ERRORS if outcome.failed else OK


def cmd_translate(args: argparse.Namespace) -> int:
    followed = _follow("translate", args, args.files)
    if followed is not None:
        return followed
    batch = session_inputs(args.files, args.input_format)
    if batch is not None:
        writer = Writer(sys.stdout.buffer, args.format, live=False)
        results = translate_files(batch, args.strategy, fmt=args.input_format)
        for result in results:
            writer.write(result.relays)
            report_files(result.errors)
        writer.close()
        return INPUT_ERRORS if any(r.errors for r in results) else OK
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
    followed = _follow("trace", args, args.file)
    if followed is not None:
        return followed
    if len(args.file) > 1 or os.path.isdir(args.file[0]):
        results = translate_files(gather(args.file), args.strategy, trace=True, fmt=args.input_format)
        steps = [step for r in results for step in r.trace]
        sys.stdout.buffer.write(steps_to_json(steps) + b"\n" if args.json else render_table(steps).encode())
        sys.stdout.buffer.flush()
        for r in results:
            report_files(r.errors)
        return INPUT_ERRORS if any(r.errors for r in results) else OK
    args.file = args.file[0]
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
    if len(args.file) > 1 or os.path.isdir(args.file[0]):
        return _audit_many(args)
    args.file = args.file[0]
    (result,) = audit_input(_read_one(args.file), fmt=args.input_format, name=args.file)
    if not result.comparable:
        raise UsageError(f"{args.file}: audit compares de-dup strategies; an Arbiter SSE stream has no duplicates to compare")
    out = sys.stdout.buffer
    out.write(msgspec.json.encode(result.audits) + b"\n" if args.json else render(result.audits).encode())
    out.flush()
    report_files(result.errors)
    return INPUT_ERRORS if result.errors else OK


def _audit_many(args: argparse.Namespace) -> int:
    """Audit each session (a main file with its sub-agent files) or other transcript found."""
    audits: list[dict[str, Any]] = []
    failed = False
    for g in audit_input(gather(args.file), fmt=args.input_format):
        if not g.comparable:
            print(f"relayscope: {g.name}: skipped: an Arbiter SSE stream has no duplicates to compare",
                  file=sys.stderr)
            continue
        audits.append({"name": g.name, "files": g.files, "audit": g.audits})
        report_files(g.errors)
        failed = failed or bool(g.errors)
    out = sys.stdout.buffer
    if args.json:
        out.write(msgspec.json.encode(audits) + b"\n")
    else:
        out.write("\n".join(f"== {a['name']} ({len(a['files'])} file(s))\n" + render(a["audit"])
                            for a in audits).encode())
    out.flush()
    return INPUT_ERRORS if failed else OK


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="relayscope",
        description="Translate Claude Code stream-json, session transcripts and Arbiter fleet streams "
        "into de-duplicated relay events, and explain every decision.",
    )
    p.add_argument("--version", action="version", version=f"relayscope {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def follow(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--follow", action="store_true",
                        help="keep reading FILE or DIR as it grows, like tail -f (Ctrl-C ends; exit 130)")
        sp.add_argument("--idle-exit", type=float, metavar="SECONDS", default=None,
                        help="with --follow: stop after SECONDS with nothing new")
        sp.add_argument("--poll-interval", type=float, metavar="SECONDS", default=0.25,
                        help="with --follow: how often to look for new bytes (default: 0.25)")

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
    t.add_argument("files", nargs="*", metavar="FILE",
                   help="input files, - for stdin, or a directory (a session or project folder): "
                   "a session's main file and its sub-agent files are translated together")
    t.add_argument("-f", "--format", choices=["ndjson", "json", "text"], default="ndjson",
                   help="output format (default: ndjson)")
    common(t)
    follow(t)
    t.set_defaults(run=cmd_translate)

    tr = sub.add_parser("trace", help="the per-line de-dup trace",
                        description="One step per input line: kind, lane, fingerprint, de-dup state before "
                        "and after, the decision and the relays emitted.")
    tr.add_argument("file", nargs="+", metavar="FILE",
                    help="a transcript; or a session's files, or a directory, traced together")
    tr.add_argument("--json", action="store_true", help="JSON array instead of a table")
    common(tr)
    follow(tr)
    tr.set_defaults(run=cmd_trace)

    au = sub.add_parser("audit", help="compare the strategies on one transcript",
                        description="For each strategy: blocks emitted, lost and duplicated, against an "
                        "inventory of the transcript's content blocks built independently of any strategy.")
    au.add_argument("file", nargs="+", metavar="FILE",
                    help="a transcript; or a session's files, or a directory: one audit per session")
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
