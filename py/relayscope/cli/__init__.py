"""cli: the command line, ``relayscope COMMAND``, laid out as git, cargo and pip lay theirs: this
module is the dispatcher; each command is a module of ``commands/`` (``translate``, ``trace``,
``audit``, ``redact``, ``export``, ``stats``, ``pack``, ``html``); the pieces they share are
modules beside this one: ``errors`` (exit codes), ``state`` (what the run is doing),
``terminal`` (stderr, stdout, colour, width), ``text`` (text for people), ``writers``,
``reports`` (what is said about the input), ``reading`` (what was named, one input's lines),
``gathering`` (inputs read whole), ``redacting`` (``--redact``), ``following`` (``--follow``)
and ``parser`` (argparse). With ``inputs`` and ``follow``, the only modules that do I/O.

Inputs are files, ``-`` for stdin, pipes and process substitutions, or directories, each read
once (``inputs``). A directory (a session folder with its ``subagents/``, a project folder under
``~/.claude/projects/``, or any folder above them) and several files among which are session
transcripts are read whole and translated together, one session at a time
(``multifile.translate_files``): a main file and its sub-agent files share one seq space and
their lanes link up. A single file streams line by line.

The dispatcher imports only the command it runs, and the modules its options ask for (argparse's
parser for a run with options, ``--redact``'s redactor, ``-f text``'s columns, ``--follow``'s
poller), when it runs it: a run of one command (and ``--version``) loads none of the others'
modules (start-up was most of a short run). It is the one module of the command line that imports
inside functions; every other imports what it uses at its top. Every exit goes through ``main``:
the exit codes are ``errors``'s, and ``-f json`` output is a closed array whatever happens, as long
as stdout is there to write it.

Must not: translate anything itself (the core does); read an input twice; let a traceback out.
The top of the layers: it may import anything in the package except ``web``; nothing imports it.
No state between commands.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Sequence
from types import SimpleNamespace, TracebackType
from typing import TYPE_CHECKING, cast

from .errors import (
    INPUT_ERRORS,
    INTERNAL,
    INTERRUPTED,
    OK,
    OUTPUT_FAILED,
    USAGE,
    OutputError,
    UsageError,
)
from .state import current as _run

if TYPE_CHECKING:
    import argparse

    from ..emitter import Emitter
    from ..formats.sse import FleetTranslator
    from ..wire import Frame
    from .library import Unpack

__all__ = ["INPUT_ERRORS", "INTERNAL", "INTERRUPTED", "OK", "OUTPUT_FAILED", "USAGE", "main", "run_command"]

# Each command's module, imported (with what its options ask for) only for a run of it: argparse's
# parser when the run has options (cli reads a plain ``translate FILE...`` itself), the redactor
# with --redact, the text columns with -f text, the poller with --follow; signal for Ctrl-C and
# traceback for a crash. The one module of the command line that imports inside functions.


def run_command(args: argparse.Namespace) -> int:
    """The command's module, imported now, runs it."""
    command = args.command
    if command == "trace" and args.format == "json":
        args.json = True  # -f json is --json
    if command in ("translate", "trace") and args.follow:
        from .following import run_followed

        return run_followed(command, args, args.files if command == "translate" else args.file)
    if command == "translate":
        return _translate(args)
    if command == "trace":
        from .commands.trace import cmd_trace

        return cmd_trace(args)
    if command == "audit":
        from .commands.audit import cmd_audit

        return cmd_audit(args)
    if command == "redact":
        return _redact(args)
    if command == "export":
        from .commands.export import cmd_export

        return cmd_export(args)
    if command == "stats":
        from .commands.stats import cmd_stats

        return cmd_stats(args)
    if command == "pack":
        from .commands.pack import cmd_pack

        return cmd_pack(args)
    if command in ("sessions", "search"):
        return _library(args)
    assert command == "html", command
    from .commands.html import cmd_html

    return cmd_html(args)


def _library(args: argparse.Namespace) -> int:
    """``sessions`` or ``search``, with the zip reader only when a shareable file is named and the
    translator only when a whole read is asked for (``search``, ``sessions --full``)."""
    from ..inputs import is_share_path

    unpack: Unpack | None = None
    if any(is_share_path(name) for name in args.inputs):
        from .gathering import read_share

        unpack = read_share
    if args.command == "search":
        from .commands.search import cmd_search

        return cmd_search(args, unpack)
    from .commands.sessions import cmd_sessions

    if args.full:
        from ..libsearch import fill

        return cmd_sessions(args, fill, unpack)
    return cmd_sessions(args, None, unpack)


def _translate(args: argparse.Namespace) -> int:
    """One input after another streamed (``commands.translate``), or the inputs read whole as
    sessions (``commands.translate_sessions``): which, the inputs named say (``reading.is_batch``)."""
    from .commands.translate import is_batch
    from .reading import named

    items = named(args.files)
    if is_batch(items, args.input_format):
        from .commands.translate_sessions import cmd_translate_sessions

        return cmd_translate_sessions(args, items)
    from .commands.translate import cmd_translate

    if args.format == "text":
        from .text import relay_text

        return cmd_translate(args, items, _translator, relay_text)
    return cmd_translate(args, items, _translator)


def _translator(fmt: str, strategy: str = "lineage", *, trace: bool = False, file: str | None = None) -> Emitter:
    """The translator an input's format asks for, its module imported only then: a stream-json
    input (the commonest) loads no other format's; any other is ``analysis.make_translator``'s."""
    if fmt == "stream-json":
        from ..translator import Translator

        return Translator(strategy, trace=trace, file=file)
    from ..analysis import make_translator

    return make_translator(fmt, strategy, trace=trace, file=file)


def _redact(args: argparse.Namespace) -> int:
    """One input redacted as it streams (``commands.redact``), or inputs read whole
    (``commands.redact_files``: several, a folder, a shareable file)."""
    from .reading import is_share_item, named

    items = named(args.files)
    if len(items) == 1 and not isinstance(items[0], str) and not is_share_item(items[0]):
        from ..verdict import Readers
        from .commands.redact import cmd_redact

        return cmd_redact(args, items, Readers(_sse_reader, _decode_line))
    from .commands.redact_files import cmd_redact_files

    return cmd_redact_files(args, items)


def _sse_reader() -> FleetTranslator:
    """An Arbiter SSE stream's translator, for ``redact``'s verdict on one: loaded only for one."""
    from ..formats.sse import FleetTranslator

    return FleetTranslator()


def _decode_line(line: bytes, number: int) -> Frame:
    """``wire.decode_line``, for ``redact``'s verdict on a line that is no JSON object (rare):
    loaded only when one comes (a redact loads no translator, nor its records)."""
    from ..wire import decode_line

    return decode_line(line, number)


def _redactor(args: argparse.Namespace) -> None:
    """``--redact`` (and ``redact``): the run's one redactor (the same secret, the same
    placeholder in every input), made before anything is named: names and messages are redacted
    too. ``redacting.redactor_of`` gives it to the commands (and refuses ``--follow`` with it)."""
    if args.command == "redact":
        args.redact = True
    if getattr(args, "redact", False) and getattr(args, "_redactor", None) is None:
        from ..redact import Redactor

        args._redactor = Redactor()
        from .redacting import first_pass

        first_pass(args, args._redactor)
    from .redacting import redactor_of

    redactor_of(args)


def _plain_translate(argv: Sequence[str]) -> argparse.Namespace | None:
    """``translate FILE...`` with no option, the commonest run, as argparse would read it, without
    argparse (its import, gettext's and the parser's building were a tenth of a short translate);
    None for anything else, which argparse reads. Its defaults are the parser's
    (``parser._translate_parser``; test_startup_imports holds the two equal)."""
    if argv[:1] != ["translate"] or any(a.startswith("-") and a != "-" for a in argv[1:]):
        return None
    args = SimpleNamespace(command="translate", files=list(argv[1:]), format="ndjson", color="auto", redact=False,
                           strategy="lineage", input_format="auto", follow=False, idle_exit=None, poll_interval=0.25,
                           redact_word=None)
    return cast("argparse.Namespace", args)


def _plain_redact(argv: Sequence[str]) -> argparse.Namespace | None:
    """``redact FILE...`` with no option, read as argparse reads it, without argparse (as
    ``_plain_translate``); None for anything else."""
    if argv[:1] != ["redact"] or any(a.startswith("-") and a != "-" for a in argv[1:]):
        return None
    return cast("argparse.Namespace", SimpleNamespace(command="redact", files=list(argv[1:]), output=None, list=False,
                                                      redact_word=None))


def _crash_site(tb: TracebackType | None) -> tuple[str | None, int]:
    """The input line a translator was reading when it failed: the innermost translator on the
    stack (its file and line count; a session file's own count when it has one), else what the
    command line was reading."""
    import traceback

    from ..emitter import Emitter

    name, line = _run.name, _run.line
    for frame, _ in traceback.walk_tb(tb):
        me = frame.f_locals.get("self")
        if isinstance(me, Emitter):
            ctx = getattr(me, "_ctx", None)
            line = getattr(ctx, "lines", 0) or me.lines or line
            name = me.file or name
    return name, line


def _close_output() -> None:
    """End the JSON array if one was begun, and flush; a gone reader is no error here."""
    try:
        if _run.writer is not None:
            _run.writer.close()
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OutputError, OSError, ValueError):
        _silence_stdout()


def _drain_output() -> None:
    """Write the relays held so far (no array end); a gone reader is no error here."""
    try:
        if _run.writer is not None and not _run.writer.closed:
            _run.writer.drain()
    except (OutputError, OSError, ValueError):
        _silence_stdout()


def _silence_stdout() -> None:
    """The reader went away (| head): point stdout at /dev/null so Python's own flush at exit
    does not print a traceback about it."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno() if sys.stdout is not None else 1)
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _say(text: str) -> None:
    """How the run ended, on stderr (``terminal.err``: loaded here for a run that had none to say)."""
    from .terminal import err

    err(text)


def main(argv: list[str] | None = None) -> int:
    _run.reset()
    argv = sys.argv[1:] if argv is None else argv
    args = _plain_translate(argv) or _plain_redact(argv)
    if args is None:
        from .parser import build_parser

        parser = build_parser(argv)
        args, extra = parser.parse_known_args(argv)
        if extra:  # said with the command's own usage, not the top level's
            parser.commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        _redactor(args)  # before anything is named: names and messages are redacted too
        return run_command(args)
    except UsageError as exc:
        if _run.writer is not None and _run.writer.count:
            _close_output()  # an array was begun: end it; else a usage error prints nothing
        elif _run.writer is not None:
            _drain_output()
        _say(f"relayscope: {exc}")
        return USAGE
    except OutputError as exc:
        if exc.errno in (errno.EPIPE, errno.ECONNRESET):
            _silence_stdout()  # the reader went away (| head): not an error of ours
            return OK
        _silence_stdout()
        _say(f"relayscope: <stdout>: {exc}")
        return OUTPUT_FAILED
    except BrokenPipeError:
        _silence_stdout()
        return OK
    except KeyboardInterrupt:
        import signal

        old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup
        try:
            _close_output()
        finally:
            signal.signal(signal.SIGINT, old)
        return INTERRUPTED
    except Exception as exc:  # a bug of ours: one line that says where, not a traceback
        name, line = _crash_site(exc.__traceback__)
        where = f"{name}:{line}" if name and line else (name or "the input")
        text = " ".join(str(exc).split())[:300]
        _close_output()
        _say(f"relayscope: internal error at {where}: {type(exc).__name__}: {text} "
              "(a bug in relayscope; please report it with this line)")
        return INTERNAL
