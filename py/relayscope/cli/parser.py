"""cli.parser: the command line's parser (argparse): every command's options, their help and choices.

A run of one command builds that command's parser alone (``build_parser``); help, no command or
a wrong one builds them all, as the top level's help and errors list them. An option's choices
that a module of the core names (the strategies, the input and export formats) are written here,
so that building a parser loads no command's modules (test_cli_startup holds them equal).
``cli`` runs ``translate FILE...`` with no option without this module (and argparse, whose import
and parser building were a tenth of a short run); ``test_startup_imports`` holds the two equal.

Must not: run a command, or read anything but the environment's terminal width.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from .. import __version__
from ..inputs import STDIN
from .terminal import terminal_columns

if TYPE_CHECKING:
    Commands = argparse._SubParsersAction["Parser"]  # what add_subparsers gives

# sharefile.SUFFIX (test_cli_startup holds them equal), written here so that building the parser
# loads no zip reader
SHARE_SUFFIX: Final = ".relayscope.zip"


class Parser(argparse.ArgumentParser):
    commands: dict[str, argparse.ArgumentParser]

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse's own asks shutil for the width (shutil imports bz2 and lzma: 3 ms of every
        # run, for a formatter add_argument makes and throws away); the same width, read here
        return self.formatter_class(prog=self.prog, width=terminal_columns())  # type: ignore[call-arg]


# The choices of the options whose names a module of the core holds (test_cli_startup holds them
# equal), written here so that building a parser loads none of those modules
STRATEGIES: Final = ("none", "index", "fingerprint", "lineage")  # translator.STRATEGIES
INPUT_FORMATS: Final = ("auto", "stream-json", "sse", "session")  # analysis.AUTO, formats.FORMATS
EXPORT_FORMATS: Final = ("chrome-trace", "otlp")  # export.FORMATS


def _follow_options(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--follow", action="store_true",
                    help="keep reading FILE or DIR as it grows, like tail -f (Ctrl-C ends; exit 130)")
    sp.add_argument("--idle-exit", type=float, metavar="SECONDS", default=None,
                    help="with --follow: stop after SECONDS with nothing new")
    sp.add_argument("--poll-interval", type=float, metavar="SECONDS", default=0.25,
                    help="with --follow: how often to look for new bytes (default: 0.25)")


def _color_option(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                    help="colour the text output: auto (default: on a terminal, unless NO_COLOR is set), "
                    "always, never")


def _redact_option(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--redact", action="store_true",
                    help="replace secrets, e-mail addresses and home-folder user names in the input with "
                    "[redacted:KIND:N] before anything else reads it (see: relayscope redact --help)")
    _redact_word_option(sp)


def _redact_word_option(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--redact-word", action="append", metavar="WORD", default=None,
                    help="with --redact (and in redact): also replace WORD wherever it is a word, any case "
                    "(a company, a project, a client); repeatable")


def _view_option(sp: argparse.ArgumentParser, text: str) -> None:
    sp.add_argument("--view", action="append", metavar="KEY=VALUE", help=text)


def _common(sp: argparse.ArgumentParser, strategy: bool = True) -> None:
    if strategy:
        sp.add_argument("-s", "--strategy", choices=STRATEGIES, default="lineage", help="de-dup strategy (default: lineage)")
    sp.add_argument("-i", "--input-format", choices=INPUT_FORMATS, default="auto",
                          help="input format (default: detected from the first lines)")


def _translate_parser(sub: Commands) -> argparse.ArgumentParser:
    t = sub.add_parser("translate", help="relay events, NDJSON by default, streaming",
                       description="Translate input to relay events. Reads stdin for '-' or no file, "
                       "line by line, so `claude -p ... --output-format stream-json --verbose | relayscope "
                       "translate -` works live.")
    t.add_argument("files", nargs="*", metavar="FILE",
                   help="input files, - for stdin, or a directory (a session or project folder): "
                   "a session's main file and its sub-agent files are translated together")
    t.add_argument("-f", "--format", choices=["ndjson", "json", "text"], default="ndjson",
                   help="output format (default: ndjson); text: aligned columns for people")
    _color_option(t)
    _redact_option(t)
    _common(t)
    _follow_options(t)
    return t


def _trace_parser(sub: Commands) -> argparse.ArgumentParser:
    tr = sub.add_parser("trace", help="every input line's de-dup decision and each block's fate",
                        description="One row per input line: its lane (as the page labels it), kind, the "
                        "decision, the de-dup index before and after, the relays it emitted and why; under it, "
                        "each block of the line: emitted as #N, duplicate of #N, already streamed as #N, or "
                        "lost (never emitted), in the words of the web page's step-through. One input is "
                        "written as it is read; to name a duplicate's first emission at any distance it "
                        "remembers a 16-byte digest of every content block (about 8 MB per 100 MB of "
                        "real captures). Several files or a folder are read whole first.")
    tr.add_argument("file", nargs="+", metavar="FILE",
                    help="a transcript; or a session's files, or a directory, traced together")
    tr.add_argument("-f", "--format", choices=["text", "json"], default="text",
                    help="text (default): the table; json: a JSON array of the steps (as --json)")
    tr.add_argument("--json", action="store_true", help="JSON array instead of a table")
    tr.add_argument("--lane", metavar="LANE", default=None,
                    help="only the steps of one lane: its id (main, toolu_...), its label, or the label's start")
    _color_option(tr)
    _redact_option(tr)
    _common(tr)
    _follow_options(tr)
    return tr


def _audit_parser(sub: Commands) -> argparse.ArgumentParser:
    au = sub.add_parser("audit", help="compare the strategies on one transcript",
                        description="For each strategy: blocks emitted, lost and duplicated, against an "
                        "inventory of the transcript's content blocks built independently of any strategy. "
                        "The whole run's count keeps about 60 bytes per content block (a digest, its line, "
                        "which strategies emitted it, its words deflated: a lost block's words are its "
                        "report), about 2.5 MB per 100 MB of real captures. A file over 128 MB named here is "
                        "read once per strategy, each translator's bounded memory held alone (peak about 60 MB "
                        "at 400 MB, about 1.15 times one pass's CPU time); a smaller file, a pipe, stdin or "
                        "--redact is read once, every strategy at a time, and "
                        "grows about 14 MB per 100 MB (41 MB at 100 MB, 83 MB at 400 MB). Several files or "
                        "a folder are read whole first.")
    au.add_argument("file", nargs="+", metavar="FILE",
                    help="a transcript; or a session's files, or a directory: one audit per session")
    au.add_argument("--json", action="store_true", help="JSON instead of a table")
    _redact_option(au)
    _common(au, strategy=False)
    return au


def _redact_parser(sub: Commands) -> argparse.ArgumentParser:
    rd = sub.add_parser("redact", help="the input with secrets replaced, in its own format",
                        description="Replace provider API keys (Anthropic, OpenAI, AWS, GitHub, GitLab, Slack, "
                        "Google, Stripe), JWTs, private key blocks, password=/token=/.env-style assignments, "
                        "credentials in URLs, e-mail addresses and the user name in home paths with "
                        "[redacted:KIND:N] (the same secret, the same N). Only JSON string values change, "
                        "never keys, ids, uuids, hashes or signatures: the redacted input translates and "
                        "audits as the original does. A summary goes to stderr.")
    rd.add_argument("files", nargs="*", metavar="FILE",
                    help="input files, - for stdin (default), or a directory (with -o)")
    rd.add_argument("-o", "--output", metavar="DIR", default=None,
                    help="for several files or a folder: write each redacted file under DIR")
    rd.add_argument("--list", action="store_true",
                    help="list what would be replaced (line, kind, placeholder, a masked excerpt) instead, "
                    "then each secret with the places it took")
    _redact_word_option(rd)
    return rd


def _export_parser(sub: Commands) -> argparse.ArgumentParser:
    ex = sub.add_parser("export", help="the run as a trace: Chrome Trace Event Format or OTLP, to a file or a collector",
                        description="One span per agent (its spawning call to its result), per tool call "
                        "(tool_use to tool_result) and per model call (with its usage), on the input's timestamps "
                        "(else its line order, placed from --untimed-start): chrome-trace opens in Perfetto UI, "
                        "speedscope and the DevTools Performance panel, otlp in Jaeger, Tempo, Phoenix, Langfuse, "
                        "MLflow. One input is read a line at a time (bounded memory: about 40 MB at 100 MB, 54 MB at "
                        "400 MB); several files or a folder a session at a time, each session's files (main and "
                        "sub-agents) whole to link them: about 4 MB of memory per MB of the largest session. See "
                        "docs/exports.md.")
    ex.add_argument("file", nargs="+", metavar="FILE", help="a transcript; or a session's files, or a directory")
    ex.add_argument("--format", choices=EXPORT_FORMATS, default=None, help="trace format written to stdout")
    ex.add_argument("--untimed-start", metavar="TIME", default=None,
                    help="where a run without timestamps is placed (ISO 8601 or seconds since the epoch; "
                    "default: the start of today, UTC; with --follow: now)")
    ex.add_argument("--otlp-endpoint", metavar="URL", default=None,
                    help="send the spans to this OTLP/HTTP collector instead (a URL without a path gets "
                    "/v1/traces; default: OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, when --format is not given)")
    ex.add_argument("--otlp-header", metavar="KEY=VALUE", action="append",
                    help="a header for the collector, e.g. authorization=Bearer ... (repeatable; added to "
                    "OTEL_EXPORTER_OTLP_HEADERS)")
    ex.add_argument("--otlp-protocol", choices=["http/protobuf", "http/json"], default=None,
                    help="default: OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf")
    ex.add_argument("--otlp-give-up", type=float, metavar="SECONDS", default=300.0,
                    help="with a collector that cannot be reached: stop retrying after SECONDS (default 300; "
                    "--follow never gives up)")
    _common(ex)
    _redact_option(ex)
    _follow_options(ex)
    return ex


def _stats_parser(sub: Commands) -> argparse.ArgumentParser:
    st = sub.add_parser("stats", help="where the time went, per lane and for the run",
                        description="Wall time (the main agent: its first record to its last; a sub-agent: its "
                        "spawning call to that call's result), cut into time in tool calls, waiting on the model and "
                        "idle (the rest: waiting on the user, gaps, a session left open), with the overlaps beside, "
                        "time by tool and tokens, per lane and for the run (seconds where the input has timestamps, "
                        "else lines). Memory as export's: one input a line at a time, a folder a session at a time.")
    st.add_argument("file", nargs="+", metavar="FILE", help="a transcript; or a session's files, or a directory")
    st.add_argument("--json", action="store_true", help="JSON instead of text")
    _common(st)
    _redact_option(st)
    return st


def _pack_parser(sub: Commands) -> argparse.ArgumentParser:
    pk = sub.add_parser("pack", help="one shareable file: every file of the input, compressed, with a view",
                        description="Write the input (files, folders, shareable files) as one shareable file: a zip "
                        "holding every file under its path relative to the others (a session's main file, its "
                        "sub-agent files and their meta files), and a manifest (each file's size and SHA-256, the "
                        f"view the page opens it at). Every command reads it as it reads the folder. Name it "
                        f"*{SHARE_SUFFIX}; the format is described in docs/share-format.md.")
    pk.add_argument("files", nargs="+", metavar="INPUT", help="files, folders or shareable files to pack")
    pk.add_argument("-o", "--output", metavar="FILE", required=True,
                    help=f"the shareable file to write (name it *{SHARE_SUFFIX}; - for stdout)")
    _view_option(pk, "the view the page opens it at, as in the page's address: strategy=index, step=40, row=12 "
                "(repeat; default: the view of a shareable file packed again)")
    _redact_option(pk)
    return pk


def _html_parser(sub: Commands) -> argparse.ArgumentParser:
    ht = sub.add_parser("html", help="a snapshot anyone can read: one self-contained HTML page",
                        description="Write the input as one HTML page that needs nothing else: the rows (each "
                        "relay in words, its whole content one click away), the swimlanes and the figures of "
                        "each session. It runs no script and loads nothing (a strict Content-Security-Policy "
                        "says so), so it opens offline in any browser and can be mailed or attached.")
    ht.add_argument("files", nargs="+", metavar="INPUT",
                    help="a transcript, a session's files, a folder or a shareable file")
    ht.add_argument("-o", "--output", metavar="FILE", default=STDIN, help="the page to write (default: stdout)")
    ht.add_argument("-s", "--strategy", choices=STRATEGIES, default=None,
                          help="de-dup strategy (default: a shareable file's view, else lineage)")
    ht.add_argument("-i", "--input-format", choices=INPUT_FORMATS, default="auto",
                          help="input format (default: detected from the first lines)")
    _view_option(ht, "row=N opens that row; strategy=NAME (as in the page's address; default: a shareable "
                "file's view)")
    ht.add_argument("--detail-chars", type=int, metavar="N", default=None,
                    help="characters of each row's content kept (default: 20000 for an input up to 10 MB, "
                    "else 0); 0: the rows' one-line summaries only, so the page of a large input opens fast")
    _redact_option(ht)
    return ht


def _sessions_parser(sub: Commands) -> argparse.ArgumentParser:
    se = sub.add_parser("sessions", help="list the sessions a folder holds (~/.claude/projects): one line each",
                        description="List every session of the folders and files named (a ~/.claude/projects tree, "
                        "CI logs of stream-json, shareable files): project, title, start, duration, size, "
                        "sub-agents. Only the first and last 64 KB of each file are read, unless --full. A file "
                        "not taken (unreadable, binary, empty, a copy of another session) is named on stderr "
                        "with its reason. --json: one JSON object per session (NDJSON; docs/library.md).")
    se.add_argument("inputs", nargs="+", metavar="DIR", help="folders, transcripts or shareable files")
    se.add_argument("--json", action="store_true", help="NDJSON, one object per session (schema in docs/library.md)")
    se.add_argument("--full", action="store_true",
                    help="read every file whole: tool calls, errors, tokens and relays of each session")
    se.add_argument("--sort", choices=("start", "last", "duration", "size", "project", "title"), default="start",
                    help="order of the sessions (default: start)")
    return se


def _search_parser(sub: Commands) -> argparse.ArgumentParser:
    sr = sub.add_parser("search", help="find the sessions where something happened: FILE:LINE by session",
                        description="Search every session of the folders named with the workspace's search "
                        "language: words and \"quoted phrases\" (in the records' content, any case), tool:NAME, "
                        "lane:NAME, is:error, file:PATH (calls that read or wrote it), model:ID, cli:VERSION, "
                        "project:PATH. Prints each matching session with its count of matching rows and their "
                        "FILE:LINE; --json: one object per matching session. Exit 0 if something matched, 1 if not.")
    sr.add_argument("inputs", nargs="+", metavar="DIR", help="folders, transcripts or shareable files")
    sr.add_argument("query", metavar="QUERY", help="the search (quote it for the shell)")
    sr.add_argument("--json", action="store_true", help="NDJSON, one object per matching session")
    return sr


# each command's parser, built only for a run of that command (or for the top level's help)
_COMMANDS: Final[dict[str, Callable[[Commands], argparse.ArgumentParser]]] = {
    "translate": _translate_parser,
    "trace": _trace_parser,
    "audit": _audit_parser,
    "redact": _redact_parser,
    "export": _export_parser,
    "stats": _stats_parser,
    "pack": _pack_parser,
    "html": _html_parser,
    "sessions": _sessions_parser,
    "search": _search_parser,
}


def build_parser(argv: Sequence[str] | None = None) -> Parser:
    p = Parser(
        prog="relayscope",
        description="Translate Claude Code stream-json, session transcripts and Arbiter fleet streams "
        "into de-duplicated relay events, and explain every decision.",
    )
    p.add_argument("--version", action="version", version=f"relayscope {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # a run of one command builds that command's parser alone (argparse's work for the others'
    # options was a part of every run's start-up); anything else (help, no command, a wrong one)
    # builds them all, as the top level's help and errors list them
    named = argv[0] if argv else ""
    chosen = {named: _COMMANDS[named]} if named in _COMMANDS else _COMMANDS
    p.commands = {name: add(sub) for name, add in chosen.items()}
    return p
