"""cli: ``relayscope translate | trace | audit``. With ``inputs``, the only module that does I/O.

Inputs are files, ``-`` for stdin, pipes and process substitutions, or directories, each read
once (``inputs``). A directory (a session folder with its ``subagents/``, a project folder under
``~/.claude/projects/``, or any folder above them) and several files among which are session
transcripts are read whole and translated together, one session at a time
(``multifile.translate_files``): a main file and its sub-agent files share one seq space and
their lanes link up. A single file streams line by line.

Exit codes: 0 ok; 1 when the input had errors (unreadable lines, files in a folder that could
not be read: each on stderr as ``FILE:LINE: message`` or ``FILE: message``, everything else still
printed); 2 on usage errors (bad flags, a named file missing); 70 on a bug of ours (one line on
stderr naming the input line being read); 74 when stdout cannot be written (a full disk); 130
on Ctrl-C. A reader that goes away (``| head``) ends the run quietly with 0. ``-f json`` output
is a closed array whatever happens, as long as stdout is there to write it.

Must not: translate anything itself (the core does); read an input twice; let a traceback out.
The top of the layers: it may import anything in the package except ``web``; nothing imports it.
No state between commands.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import SimpleNamespace, TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO, Final, cast

from .inputs import (
    STDIN,
    Input,
    Problem,
    Window,
    display_name,
    is_share,
    is_share_path,
    is_zip,
    open_named,
    read_regular,
    read_share,
    walk,
)

# Each command imports the modules it needs when it runs, not here: a run of one command (and
# ``--version``) then loads none of the others' modules (start-up was most of a short run).
if TYPE_CHECKING:
    import argparse

    from . import relay as R
    from .drift import Drift, DriftReport
    from .emitter import Emitter
    from .export import Live
    from .lanes import Lane
    from .multifile import SessionResult
    from .redact import Redactor
    from .sharefile import Opened
    from .textout import Names, RelayText
    from .trace import TraceStep
    from .verdict import LineCheck

OK: Final = 0
INPUT_ERRORS: Final = 1
USAGE: Final = 2
INTERNAL: Final = 70  # EX_SOFTWARE: a bug of ours, never "your input was bad"
OUTPUT_FAILED: Final = 74  # EX_IOERR: stdout could not be written
INTERRUPTED: Final = 130  # 128 + SIGINT, what shells report for Ctrl-C


class UsageError(Exception):
    pass


class OutputError(Exception):
    """stdout failed; not an OSError, so it is never taken for an input that failed."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(exc.strerror or str(exc))
        self.errno = exc.errno


class _Run:
    """What the run is doing: where an internal error happened, and the output any exit closes."""

    def __init__(self) -> None:
        self.name: str | None = None  # the input being read
        self.line = 0  # its last line handed to the translator (0: read whole)
        self.writer: Held | None = None
        self.redactor: Redactor | None = None  # --redact: names and messages are redacted too


_run = _Run()


def _err(text: str) -> None:
    """One message on stderr, one line whatever it quotes (``termsafe``), redacted with
    ``--redact``; a closed or broken stderr loses it rather than failing the run."""
    stream = sys.stderr
    if stream is None:
        return
    from .termsafe import safe

    text = safe(shown(text))
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def shown(name: str) -> str:
    """A file name or message as the run may show it: redacted with ``--redact``."""
    return _run.redactor.text(name) if _run.redactor is not None else name


def json_out(data: bytes) -> bytes:
    """JSON as written: to a terminal, with what JSON allows raw but terminals obey escaped
    (``termsafe.json_safe``: the same JSON); to a file or a pipe, as encoded (which escapes every
    C0 control already), at no cost to a program reading it."""
    return _terminal_safe(data) if to_terminal() else data


def _terminal_safe(data: bytes) -> bytes:
    from .termsafe import json_safe  # here: output to a file or a pipe never loads it

    return json_safe(data)


def to_terminal() -> bool:
    """Is stdout a terminal (``json_out``'s question)?"""
    try:
        return sys.stdout is not None and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def stdout() -> BinaryIO:
    """Where output goes: stdout, or /dev/null when the caller closed it (``>&-``): the run still
    reads everything and its exit code still says whether the input was good."""
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stdout for the rest of the process
    return sys.stdout.buffer


def _encode_safe(relays: list[R.Relay]) -> bytes:
    """NDJSON of relays msgspec cannot encode (a lone surrogate, ``"\\ud83d"`` in the input, is
    valid JSON but no UTF-8): each string escaped as JSON allows, nothing dropped."""
    import json

    import msgspec

    encoder = msgspec.json.Encoder()
    out = []
    for r in relays:
        try:
            out.append(encoder.encode(r))
        except UnicodeEncodeError:
            plain = msgspec.to_builtins(r, builtin_types=(msgspec.Raw,))
            out.append(json.dumps(plain, separators=(",", ":"),
                                  default=lambda raw: json.loads(bytes(raw))).encode())
    return b"\n".join(out) + b"\n"


class Held:
    """Output to stdout as it comes, held in pieces of ``HOLD`` bytes: a write per input line cost
    about a tenth of ``translate``. Live input (a pipe) is written and flushed line by line.
    ``drain`` (and ``close``) write what is held; every exit of ``main`` goes through one. ``close``
    writes what the output ends with (``end``), and may be called again."""

    HOLD: Final = 1 << 18

    def __init__(self, out: BinaryIO, live: bool, end: Callable[[], bytes] | None = None) -> None:
        self.out, self.live, self.count, self.end = out, live, 0, end
        self.closed = False
        self._held: list[bytes] = []
        self._held_bytes = 0
        _run.writer = self

    def put(self, data: bytes) -> None:
        if data:
            self.count += 1
            self._put(data)

    def _put(self, data: bytes) -> None:
        self._held.append(data)
        self._held_bytes += len(data)
        if self.live or self._held_bytes >= self.HOLD:
            self.drain()

    def drain(self) -> None:
        """Write what is held (flushed at once for live input)."""
        held = self._held
        if not held:
            return
        data = held[0] if len(held) == 1 else b"".join(held)
        held.clear()
        self._held_bytes = 0
        try:
            self.out.write(data)
            if self.live:
                self.out.flush()
        except OSError as exc:
            self.closed = True  # nothing more can reach the reader, not even the array's end
            raise OutputError(exc) from exc

    def close(self) -> None:
        if self.closed:
            return
        if self.end is not None:
            self._put(self.end())
        self.drain()
        self.closed = True
        try:
            self.out.flush()
        except OSError as exc:
            raise OutputError(exc) from exc


class Writer(Held):
    """Relays to stdout as NDJSON, a JSON array, or text lines. ``close`` ends a JSON array
    (``[]`` when nothing came)."""

    RELAYS_HELD: Final = 64  # NDJSON relays encoded together (live input: each line's at once)

    def __init__(self, out: BinaryIO, fmt: str, live: bool, text: RelayText | None = None) -> None:
        import msgspec

        self._relays: list[R.Relay] = []  # NDJSON not encoded yet (write_lines): drain writes them
        super().__init__(out, live, self._array_end if fmt == "json" else None)
        self.fmt = fmt
        self.text = text  # -f text: the columns (plain ones when not given)
        self.encoder = msgspec.json.Encoder()
        self.terminal = to_terminal()  # asked once: json_out's question, which a write per line made a cost

    def _array_end(self) -> bytes:
        return b"[]\n" if self.count == 0 else b"\n]\n"

    def write(self, relays: list[R.Relay]) -> None:
        if not relays:
            return
        if self.fmt == "ndjson":
            self.write_lines(relays)
            return
        if self.fmt == "json":
            parts = []
            for r in relays:
                parts.append(b"[\n" if self.count == 0 else b",\n")
                try:
                    parts.append(self.encoder.encode(r))
                except UnicodeEncodeError:
                    parts.append(_encode_safe([r])[:-1])
                self.count += 1
            data = b"".join(parts)
            if self.terminal:
                data = _terminal_safe(data)
        else:
            if self.text is None:
                from .textout import RelayText

                self.text = RelayText(None, False)
            rows = self.text.rows(relays)
            if self.count == 0:
                rows = self.text.header() + "\n" + rows
            self.count += len(relays)
            data = rows.encode("utf-8", "backslashreplace")
        self._put(data)

    def write_lines(self, relays: list[R.Relay]) -> None:
        """``write`` of NDJSON, ``relays`` not empty. ``translate``'s loop calls it for every line
        that gives relays: they are held and encoded ``RELAYS_HELD`` at a time (an encode call a
        line, with its bytes object and ``_put``, made the writing a sixth slower). The bytes are
        the same: NDJSON is each relay's line, in order."""
        held = self._relays
        held.extend(relays)
        if self.live or len(held) >= self.RELAYS_HELD:
            self._encode_held()

    def _encode_held(self) -> None:
        held = self._relays
        try:
            data = self.encoder.encode_lines(held)
        except UnicodeEncodeError:
            data = _encode_safe(held)
        held.clear()
        if self.terminal:
            data = _terminal_safe(data)
        self._put(data)

    def drain(self) -> None:
        if self._relays:  # first: they came before anything written after them
            self._encode_held()
        super().drain()


def report(name: str, errors: list[tuple[int, str]], start: int = 0) -> None:
    for line, message in errors[start:]:
        _err(f"{name}:{line}: {message}")


def report_warnings(name: str, warnings: list[tuple[int, str]], start: int = 0) -> None:
    """Lines kept with a repair (bad bytes, a field of the wrong type): said, never fatal."""
    for line, message in warnings[start:]:
        _err(f"{name}:{line}: warning: {message}")


def report_drift(name: str, drift: Drift | DriftReport | None) -> None:
    """Drift is never silent: one line on stderr naming what this version does not know."""
    if drift is None:
        return
    from .drift import Drift, describe

    text = describe(name, drift.report() if isinstance(drift, Drift) else drift)
    if text is not None:
        _err(text)


def report_drift_files(files: dict[str, bytes], results: list[SessionResult]) -> None:
    """``report_drift`` for each file read whole (a folder, several files; not a meta file): as its
    translation counted it, else (a file no translator decoded) from its lines."""
    from .drift import Drift

    counted = {f: d for r in results for f, d in r.drift.items()}
    for name, content in files.items():
        if name.endswith(".meta.json"):
            continue
        if name in counted:
            report_drift(name, counted[name])
            continue
        d = Drift()
        for number, line in enumerate(content.split(b"\n"), 1):
            d.add(number, line)
        report_drift(name, d)


def report_files(errors: list[tuple[str | None, int, str]]) -> None:
    for name, line, message in errors:
        _err(f"{name}:{line}: {message}")


def report_problems(problems: list[Problem]) -> bool:
    for problem in problems:
        _err(str(problem))
    return bool(problems)


def report_missing(name: str, lanes: Mapping[str, Lane]) -> None:
    """The sub-agents whose transcript a session's records name and the input lacks: one line on
    stderr naming the files to look for (``lanes.missing_transcripts``, in ``subagents``' words)."""
    from .lanes import missing_transcripts

    files = missing_transcripts(lanes)
    if files:
        from .subagents import SubagentCheck, describe_check

        _err(f"{name}: {describe_check(SubagentCheck(missing_files=files))[-1]}")


def _unlisted(name: str, t: Emitter | None) -> None:
    """The core keeps only the first few hundred errors of an input; say how many more there were."""
    if t is None:
        return
    more = getattr(t, "error_count", len(t.errors)) - len(t.errors)
    if more > 0:
        _err(f"{name}: {more} more unreadable line(s) not listed (each is an error relay in the output)")


# --- text for people ------------------------------------------------------------------------


def use_color(choice: str, stream: Any) -> bool:
    """``--color``: always, never, or auto (a terminal, no ``NO_COLOR``, not a dumb terminal)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


def terminal_width() -> int | None:
    """``COLUMNS`` when set, else the terminal's width when stdout is one; None (no limit) else."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if sys.stdout is not None and sys.stdout.isatty():
            import shutil

            return shutil.get_terminal_size().columns
    except (AttributeError, ValueError, OSError):
        pass
    return None


def names_of(paths: list[str]) -> Names:
    """How files are named in text output: relative to the folders (and shareable files) and
    files named (redacted with ``--redact``, as the files' names are)."""
    from .textout import Names

    folders = [p for p in paths if p != STDIN and (os.path.isdir(p) or is_share_path(p))]
    files = [p for p in paths if p != STDIN and p not in folders]
    return Names([shown(p) for p in folders], [shown(p) for p in files])


def where_width(names: Names, files: list[str] | None) -> int:
    """The where column: the line (6), or ``file:line`` as wide as the longest name needs."""
    if not files:
        return 6
    from .termsafe import safe

    return min(max(len(safe(names(f))) for f in files) + 6, 48)


def relay_text(args: argparse.Namespace, files: list[str] | None = None) -> RelayText | None:
    if args.format != "text":
        return None
    from .textout import RelayText

    names = names_of(args.files)
    return RelayText(terminal_width(), use_color(args.color, sys.stdout), names, where_width(names, files))


def lane_matches(wanted: str | None, lane: str | None, label: str) -> bool:
    """``--lane``: a lane's id, its label as the page shows it, or the start of that label."""
    if wanted is None:
        return True
    if lane is None:
        return False
    return wanted in (lane, label) or (bool(label) and label.lower().startswith(wanted.lower()))


# --- what was named on the command line ----------------------------------------------------


Named = Input | str  # an input to read, or a folder to walk


def named(paths: list[str]) -> list[Named]:
    """Check every named path before anything is read or printed: a typo is a usage error."""
    out: list[Named] = []
    for path in paths or [STDIN]:
        try:
            if path != STDIN and os.path.isdir(path):
                out.append(path)
            else:
                out.append(open_named(path))
        except OSError as exc:
            raise UsageError(f"{display_name(path)}: {exc.strerror or exc}") from exc
    return out


def is_batch(items: list[Named], fmt: str) -> bool:
    """Translate together (as sessions) rather than stream one by one: a directory, or several
    files at least one of which is a session transcript (a look at its first lines, kept)."""
    from .analysis import AUTO

    if any(isinstance(i, str) for i in items):
        return True
    inputs = [i for i in items if isinstance(i, Input)]
    if any(is_share(i) for i in inputs):
        return True
    if len(inputs) < 2 or any(i.path == STDIN for i in inputs) or fmt not in (AUTO, "session"):
        return False
    return fmt == "session" or any(_sniff(i) == "session" for i in inputs)


def _sniff(source: Input) -> str | None:
    """The input's format, from as many first lines as the core's rule needs (kept for later)."""
    from .formats import detect

    _run.name, _run.line = source.name, 0
    try:
        return detect(source.peek())
    except OSError:
        return None  # reported when read
    finally:
        source.park()


def gather(items: list[Named], shares: dict[str, Opened] | None = None) -> tuple[dict[str, bytes], list[Problem]]:
    """Every file named or found under a named directory, read whole: ({name: content}, what
    could not be read). Names are as given (escaped for display when not UTF-8); a shareable
    file's files are named ``FILE/PATH``, and what it held goes into ``shares`` under FILE."""
    files: dict[str, bytes] = {}
    problems: list[Problem] = []
    for item in items:
        if isinstance(item, Input):
            if item.path == STDIN and not (len(items) == 1 and is_share(item)):
                raise UsageError("- (stdin) cannot be read together with other files or a directory" if len(items) > 1
                                 else "- (stdin): this reads files and folders; save the transcript to a file")
            _run.name, _run.line = item.name, 0
            try:
                data = item.read()
            except OSError as exc:
                problems.append(Problem(item.name, f"{exc.strerror or exc}; skipped"))
                continue
            if is_zip(data[:4]):
                _open_share(item.name, data, files, problems, shares)
                continue
            files.setdefault(item.name, data)
            continue
        found, trouble = walk(item)
        problems.extend(trouble)
        if not found and not trouble:
            raise UsageError(f"{display_name(item)}: no .jsonl transcripts in this directory")
        for path in found:
            name = display_name(path)
            if name in files:
                continue
            _run.name, _run.line = name, 0
            content = read_regular(path)
            if isinstance(content, Problem):
                problems.append(content)
            else:
                files[name] = content
    return files, problems


def _open_share(name: str, data: bytes, files: dict[str, bytes], problems: list[Problem],
                shares: dict[str, Opened] | None) -> None:
    held, trouble, opened = read_share(name, data)
    problems.extend(trouble)
    for path, content in held.items():
        files.setdefault(path, content)
    if shares is not None:
        shares[name] = opened


class FilesOnDisk(Mapping[str, bytes]):
    """What :func:`gather` finds, a file on disk read when asked, not held (``export`` and
    ``stats`` read a folder a session at a time); what cannot be read again (a shareable file's
    files, stdin, a pipe) is read once and held. Names as ``gather`` gives them; a file that cannot
    be read when asked reads as empty, its problem kept in ``problems``."""

    def __init__(self, items: list[Named]) -> None:
        self.files: dict[str, str | bytes] = {}  # name -> its path, or its bytes
        self.problems: list[Problem] = []  # not said yet
        self.unreadable: list[Problem] = []
        for item in items:
            if isinstance(item, Input):
                self._named(item, len(items))
                continue
            found, trouble = walk(item)
            self.problems.extend(trouble)
            if not found and not trouble:
                raise UsageError(f"{display_name(item)}: no .jsonl transcripts in this directory")
            for path in found:
                self.files.setdefault(display_name(path), path)

    def _named(self, item: Input, count: int) -> None:
        share = is_share(item)
        if item.path == STDIN and not (count == 1 and share):
            raise UsageError("- (stdin) cannot be read together with other files or a directory" if count > 1
                             else "- (stdin): this reads files and folders; save the transcript to a file")
        if not share and item.path != STDIN and os.path.isfile(item.path):
            self.files.setdefault(item.name, item.path)
            return
        _run.name, _run.line = item.name, 0
        try:
            data = item.read()
        except OSError as exc:
            self.problems.append(Problem(item.name, f"{exc.strerror or exc}; skipped"))
            return
        held: dict[str, bytes] = {}
        if is_zip(data[:4]):
            _open_share(item.name, data, held, self.problems, None)
        else:
            held[item.name] = data
        for name, content in held.items():
            self.files.setdefault(name, content)

    def __getitem__(self, name: str) -> bytes:
        found = self.files[name]
        if isinstance(found, bytes):
            return found
        _run.name, _run.line = name, 0
        content = read_regular(found)
        if isinstance(content, Problem):
            if not any(p.name == content.name for p in self.unreadable):  # read again per session: said once
                self.unreadable.append(content)
                self.problems.append(content)
            return b""
        return content

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def renamed(self, rename: Callable[[str], str]) -> FilesOnDisk:
        """The same files under other names (their problems said with this one's)."""
        other = FilesOnDisk([])
        other.files = {rename(name): found for name, found in self.files.items()}
        other.problems, other.unreadable = self.problems, self.unreadable
        return other


# --- --redact: an input filter any command can take ----------------------------------------


def redactor_of(args: argparse.Namespace) -> Redactor | None:
    """The run's redactor with ``--redact`` (one for all inputs: the same secret, the same
    placeholder), else None."""
    if not getattr(args, "redact", False):
        return None
    from .redact import Redactor

    if getattr(args, "follow", False):
        raise UsageError("--redact does not work with --follow yet: redact the file, then follow that")
    found = getattr(args, "_redactor", None)
    if found is None:
        found = args._redactor = Redactor()
    _run.redactor = found if isinstance(found, Redactor) else None
    return _run.redactor


REDACT_AHEAD: Final = 256 << 10  # a regular file's lines redacted this far ahead of their use


def redacted_lines(args: argparse.Namespace, lines: Iterable[bytes], live: bool = True) -> Iterable[bytes]:
    """``lines``, redacted with ``--redact`` (as they are, with no generator between, without);
    ``live``: each line as it comes (a pipe), else ``REDACT_AHEAD`` bytes at a time."""
    r = redactor_of(args)
    return lines if r is None else _redacted(r, lines, live)


def _redacted(r: Redactor, lines: Iterable[bytes], live: bool) -> Iterator[bytes]:
    """A streamed block's lines come out together, when it ends. From a file the lines are
    redacted a batch ahead of the command's use: redacting and translating line by line in turn
    took 15% longer than the two one batch after the other (each pushes the other's code and data
    out of the processor's caches), and a batch is read as one block (``Redactor.feed_lines``). A
    read that fails gives the lines before it first."""
    first = 1
    for batch in _batches(lines, live):
        yield from r.feed_lines(batch, first)
        first += len(batch)
    yield from r.flush()


def _batches(lines: Iterable[bytes], live: bool) -> Iterator[list[bytes]]:
    """``lines`` in batches of ``REDACT_AHEAD`` bytes, a pipe's a line each; a read that fails
    gives the lines before it, then its error."""
    batch: list[bytes] = []
    held = 0
    try:
        for line in lines:
            batch.append(line)
            held += len(line)
            if live or held >= REDACT_AHEAD:
                yield batch
                batch, held = [], 0
    except OSError:
        if batch:
            yield batch
        raise
    if batch:
        yield batch


def redacted_files(args: argparse.Namespace, files: dict[str, bytes]) -> dict[str, bytes]:
    """The files redacted, under their names redacted too (a project folder's name holds the
    user's)."""
    r = redactor_of(args)
    if r is None:
        return files
    from .redact import redact_bytes

    redacted = [(name, redact_bytes(data, r)) for name, data in files.items()]
    return {r.text(name): data for name, data in redacted}  # after the data: its cwd says where a dashed name ends


def report_redaction(args: argparse.Namespace) -> None:
    r = redactor_of(args)
    if r is not None:
        _err(f"relayscope: redacted {r.summary()}")


# --- the commands ----------------------------------------------------------------------------


def _follow(command: str, args: argparse.Namespace, paths: list[str]) -> int | None:
    """``--follow``: tail one file or folder as it grows (``follow.py``); None without it."""
    if not args.follow:
        return None
    redactor_of(args)  # --redact with --follow: a usage error, never an unredacted output
    if len(paths) != 1 or paths[0] == STDIN:
        raise UsageError("--follow takes one FILE or DIR (stdin is always read live)")
    if not os.path.exists(paths[0]):
        raise UsageError(f"{display_name(paths[0])}: No such file or directory")
    if is_share_path(paths[0]):
        raise UsageError(f"{display_name(paths[0])}: a shareable file does not grow: read it without --follow")
    if not (os.path.isfile(paths[0]) or os.path.isdir(paths[0])):
        raise UsageError(f"{display_name(paths[0])}: --follow reads a regular file or a folder "
                         "(a pipe is read live without it)")
    from . import follow

    folder = [paths[0]] if os.path.isdir(paths[0]) else None
    if command == "translate":
        writer = Writer(stdout(), args.format, live=True, text=relay_text(args, folder))
        lanes_to = writer.text.follow_lanes if writer.text is not None else None
        outcome = follow.run(paths[0], args, writer, lanes_to=lanes_to)
    else:
        outcome = follow.run(paths[0], args, None, Table(args, names_of(paths), folder))
    return INTERRUPTED if outcome.interrupted else INPUT_ERRORS if outcome.failed else OK


def cmd_translate(args: argparse.Namespace) -> int:
    followed = _follow("translate", args, args.files)
    if followed is not None:
        return followed
    items = named(args.files)
    if is_batch(items, args.input_format):
        from .multifile import translate_files

        writer = Writer(stdout(), args.format, live=False)  # first: Ctrl-C while reading still gives []
        files, problems = gather(items)
        files = redacted_files(args, files)
        writer.text = relay_text(args, list(files)) or writer.text
        failed = report_problems(problems)
        _run.name, _run.line = next(iter(files), None), 0
        results = []
        for result in translate_files(files, args.strategy, fmt=args.input_format):
            if writer.text is not None:  # read whole: a call's row can say its sub-agent is missing
                writer.text.follow_lanes(functools.partial(dict, result.lanes))
            writer.write(result.relays)
            report_files(result.errors)
            failed = failed or bool(result.errors)
            results.append(result)
            result.relays = []  # written: not held to the end
        writer.close()
        report_drift_files(files, results)
        for result in results:
            report_missing(result.name, result.lanes)
        report_redaction(args)
        return INPUT_ERRORS if failed else OK
    sources = [i for i in items if isinstance(i, Input)]
    several = [shown(i.name) for i in sources] if len(sources) > 1 else None
    writer = Writer(stdout(), args.format, live=False, text=relay_text(args, several))
    failed = False
    for source in sources:
        failed = _stream(source, args, writer, several=len(sources) > 1) or failed
    writer.close()
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


def _stream(source: Input, args: argparse.Namespace, writer: Writer, several: bool) -> bool:
    """One input, line by line, relays out as they come. True when it had errors."""
    from .analysis import Analyzer

    _run.name, _run.line = source.name, 0
    a = Analyzer(args.strategy, args.input_format, keep=False, file=shown(source.name) if several else None,
                 drift=True)
    reported = warned = problems = 0
    if writer.text is not None:
        writer.text.follow_lanes(lambda: a.lanes)
    try:
        writer.live = source.live
        feed: Callable[[bytes], list[R.Relay]] = a.feed_line
        write = writer.write_lines if writer.fmt == "ndjson" else writer.write
        t: Emitter | None = None
        for _run.line, line in enumerate(redacted_lines(args, source.lines(), source.live), 1):
            relays = feed(line)
            if not relays:  # an unreadable or repaired line has its relay: nothing to say without one
                continue
            write(relays)
            if t is None:  # the first relays: the format is known and the translator there
                t = a.translator
                assert t is not None
                if not a.keep:  # the Analyzer's feed_line is then this call and no more: skip its call
                    feed = t.feed_line
            # one test a line: the lists are looked at only when a warning or an error came
            if t.warning_count + t.error_count != problems:
                problems = t.warning_count + t.error_count
                if len(t.warnings) > warned:
                    report_warnings(source.name, t.warnings, warned)
                    warned = len(t.warnings)
                if len(t.errors) > reported:
                    report(source.name, t.errors, reported)
                    reported = len(t.errors)
    except OSError as exc:  # the input failed under us (EIO, a vanished mount): keep what came
        _err(f"{source.name}: {exc.strerror or exc}; read stopped after line {_run.line}")
        writer.write(a.finish())
        return True
    finally:
        source.close()
    writer.write(a.finish())
    report_warnings(source.name, a.warnings, warned)
    report(source.name, a.errors, reported)
    report_drift(source.name, a.drift)
    report_missing(source.name, a.lanes)
    _unlisted(source.name, a.translator)
    return bool(a.errors)


def _read_one(source: Named, args: argparse.Namespace) -> list[bytes]:
    return list(_lines_of(_one(source), args))


def _one(source: Named) -> Input:
    assert isinstance(source, Input)
    _run.name, _run.line = source.name, 0
    return source


def _lines_of(source: Input, args: argparse.Namespace) -> Iterator[bytes]:
    """One input's lines (redacted with ``--redact``), read as they are taken: a command that takes
    them one by one holds none it has passed. A read that fails is a usage error."""
    try:
        for line in redacted_lines(args, source.lines(), source.live):
            _run.line += 1
            yield line
    except OSError as exc:
        raise UsageError(f"{source.name}: {exc.strerror or exc}") from exc
    finally:
        source.close()


def _many(items: list[Named]) -> bool:
    """Read whole, as a set of files: several inputs, a folder, or a shareable file."""
    return len(items) > 1 or isinstance(items[0], str) or _is_share(items[0])


def _is_share(item: Named) -> bool:
    return isinstance(item, Input) and is_share(item)


def cmd_trace(args: argparse.Namespace) -> int:
    if args.format == "json":
        args.json = True
    followed = _follow("trace", args, args.file)
    if followed is not None:
        return followed
    from .analysis import Analyzer
    from .multifile import translate_files

    names = names_of(args.file)
    items = named(args.file)
    if _many(items):
        files, problems = gather(items)
        files = redacted_files(args, files)
        failed = report_problems(problems)
        results = translate_files(files, args.strategy, trace=True, fmt=args.input_format)
        relays = [r for result in results for r in result.relays]
        steps = [step for r in results for step in r.trace]
        split: dict[str, list[bytes]] = {}

        def raw(step: TraceStep) -> bytes:
            lines = split.setdefault(step.file or "", files.get(step.file or "", b"").split(b"\n"))
            return lines[step.line - 1] if 0 < step.line <= len(lines) else b""

        table = Table(args, names, list(files))
        _write_out(table.render(steps, relays, raw))
        report_redaction(args)
        for r in results:
            report_files(r.errors)
        report_drift_files(files, results)
        return INPUT_ERRORS if failed or any(r.errors for r in results) else OK
    source = _one(items[0])
    a = Analyzer(args.strategy, args.input_format, trace=True, keep=False, drift=True)
    table = Table(args, names, None)
    out = Held(stdout(), source.live, table.end)  # a pipe: each step out as its line comes
    lines = _lines_of(source, args)
    raws = Window()
    for line in lines:
        raws.add(line)
        relays = a.feed_line(line)
        steps = a.trace
        if steps or relays:  # written as they come: a line is let go once its step is out
            out.put(table.part(steps, relays, raws.get))
            if steps:
                raws.keep_from(table.oldest or steps[-1].line)
                del steps[:]
    relays = a.finish()  # first: an input whose format nothing proved has its steps only now
    out.put(table.part(a.trace, relays, raws.get))
    out.close()
    report_redaction(args)
    report_warnings(_run.name or "", a.warnings)
    report(_run.name or "", a.errors)
    report_drift(_run.name or "", a.drift)
    _unlisted(_run.name or "", a.translator)
    return INPUT_ERRORS if a.errors else OK


class Table:
    """``trace``'s output: the table (``textout.TraceText``, each block's fate from
    ``fates.Tracker`` as the relays up to its line say) or JSON; ``--lane`` keeps one lane's
    steps. ``--follow`` writes through it a few steps at a time: the same bytes."""

    def __init__(self, args: argparse.Namespace, names: Names, files: list[str] | None) -> None:
        import msgspec

        from . import relay as R
        from .fates import Tracker
        from .textout import TraceText
        from .trace import CONSUMED

        self.encode, self.lane_start, self.consumed = msgspec.json.encode, R.LaneStart, CONSUMED
        self.json, self.lane = bool(args.json), args.lane
        self.text = TraceText(terminal_width(), use_color(args.color, sys.stdout), names, where_width(names, files))
        self.tracker = Tracker()
        self.count = 0  # steps written
        self.waiting: list[R.Relay] = []  # relays after the last step written: the next steps' to feed
        self.unsettled: list[TraceStep] = []  # steps of an event still being read (SSE): worded when it ends
        self._raw: Any = None

    def render(self, steps: list[TraceStep], relays: list[R.Relay], raw: Any) -> bytes:
        """The whole output of a finished input."""
        return self.part(steps, relays, raw) + self.end()

    def part(self, steps: list[TraceStep], relays: list[R.Relay], raw: Any) -> bytes:
        """Steps (and the relays they emitted, in seq order), after those written before. A relay
        after the last step waits for the steps that come next, as it would in the whole input."""
        if self.waiting:
            relays, self.waiting = self.waiting + relays, []
        if self.unsettled:
            steps, self.unsettled = self.unsettled + steps, []
        cut = len(steps)
        while cut and steps[cut - 1].decision == self.consumed:
            cut -= 1
        if cut < len(steps):  # an SSE event's lines get their reason when the event ends
            steps, self.unsettled = steps[:cut], steps[cut:]
        self._raw = raw
        return self._write(steps, relays, raw)

    def _write(self, steps: list[TraceStep], relays: list[R.Relay], raw: Any) -> bytes:
        out: list[bytes] = []
        at = 0
        for step in steps:
            top = max(step.seqs, default=-1)
            while at < len(relays) and relays[at].seq <= top:
                self._relay(relays[at])
                at += 1
            if not lane_matches(self.lane, step.lane, self.text.lane(step.lane)[0]):
                continue
            if self.json:
                out.append((b"[" if self.count == 0 else b",") + json_out(self.encode(step)))
            else:
                if self.count == 0:
                    out.append((self.text.header() + "\n").encode())
                fates = self.tracker.blocks(step, raw(step)) if raw is not None else None
                out.append((self.text.step(step, fates) + "\n").encode("utf-8", "backslashreplace"))
            self.count += 1
        self.waiting = relays[at:]
        self.tracker.done()
        return b"".join(out)

    def _relay(self, relay: R.Relay) -> None:
        self.tracker.feed((relay,))
        if isinstance(relay, self.lane_start) and relay.label:
            self.text.labels[relay.lane] = relay.label

    @property
    def oldest(self) -> int | None:
        """The first line of the steps not yet written, if any."""
        return self.unsettled[0].line if self.unsettled else None

    def end(self) -> bytes:
        """What is left (an event the input ended in) and the output's end."""
        left, self.unsettled = self.unsettled, []
        out = self._write(left, self.waiting, self._raw) if left else b""
        if self.json:
            return out + (b"]\n" if self.count else b"[]\n")
        return out + (b"" if self.count else (self.text.header() + "\n").encode())


def _write_out(data: bytes) -> None:
    _write_pieces((data,))


def _write_pieces(pieces: Iterable[bytes]) -> None:
    """Output made as it is written, each piece let go once written."""
    out = stdout()
    try:
        for piece in pieces:
            out.write(piece)
        out.flush()
    except OSError as exc:
        raise OutputError(exc) from exc


def cmd_audit(args: argparse.Namespace) -> int:
    items = named(args.file)
    if _many(items):
        return _audit_many(args, items)
    from .audit import json_pieces, render
    from .multifile import audit_input

    source = _one(items[0])
    again = _again(source, args)
    lines = _lines_of(source, args)
    name = _run.name or ""
    (result,) = audit_input(lines, fmt=args.input_format, name=name, items=False, again=again, keys=args.json)
    if not result.comparable:
        raise UsageError(f"{name}: audit compares de-dup strategies; an Arbiter SSE stream has no duplicates to compare")
    if args.json:
        _write_pieces(json_out(piece) for piece in json_pieces(result.audits, end=b"\n"))
    else:
        _write_out(render(result.audits).encode())
    report_redaction(args)
    report_files(result.errors)
    return INPUT_ERRORS if result.errors else OK


# Under this size one pass holds little (about 41 MB at 100 MB) and reading again would only cost
# time (about 1.15 times one pass's CPU): a file is read once per strategy only above it.
ONE_PASS_BYTES: Final = 128 << 20


def _again(source: Input, args: argparse.Namespace) -> Callable[[], Iterator[bytes]] | None:
    """``source``'s lines read again from the first, for a command that reads a file more than
    once to hold less: a regular file named on the command line over ONE_PASS_BYTES, not redacted
    (redacting each pass would cost more than the memory saved); None for a smaller file, a pipe or
    stdin, read once."""
    if source.path == STDIN or source.live or redactor_of(args) is not None:
        return None
    try:
        if os.stat(source.path).st_size < ONE_PASS_BYTES:
            return None
    except OSError:  # said where the file is read
        return None

    def lines() -> Iterator[bytes]:
        _run.line = 0
        return _lines_of(Input(source.path), args)

    return lines


def _audit_many(args: argparse.Namespace, items: list[Named]) -> int:
    """Audit each session (a main file with its sub-agent files) or other transcript found."""
    import msgspec

    from .audit import render
    from .multifile import audit_input
    from .termsafe import safe

    files, problems = gather(items)
    files = redacted_files(args, files)
    failed = report_problems(problems)
    _run.name, _run.line = next(iter(files), None), 0
    audits: list[dict[str, Any]] = []
    for g in audit_input(files, fmt=args.input_format):
        if not g.comparable:  # nothing to compare; what could not be read is still said
            _err(f"relayscope: {g.name}: skipped: an Arbiter SSE stream has no duplicates to compare")
            report_files(g.errors)
            failed = failed or bool(g.errors)
            continue
        audits.append({"name": g.name, "files": g.files, "audit": g.audits})
        report_files(g.errors)
        failed = failed or bool(g.errors)
    if args.json:
        _write_out(json_out(msgspec.json.encode(audits) + b"\n"))
    else:
        _write_out("\n".join(f"== {safe(a['name'])} ({len(a['files'])} file(s))\n" + render(a["audit"])
                             for a in audits).encode())
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


def cmd_redact(args: argparse.Namespace) -> int:
    """``relayscope redact``: the input with its secrets replaced, in its own format. One input
    (a file, ``-``) to stdout, a line at a time; several, or a folder, into ``-o DIR`` under the
    names they have below what was named (redacted too); one shareable file, as a shareable file
    to stdout (or its files into ``-o DIR``). ``--list``: what would be replaced, not the text.
    What is unreadable in the input is said as ``translate`` says it, with its exit code
    (``verdict``): the redacted text still holds every line."""
    args.redact = True
    r = redactor_of(args)
    assert r is not None
    items = named(args.files)
    one_file = len(items) == 1 and isinstance(items[0], Input)
    if one_file and _is_share(items[0]) and not args.output:
        return _redact_share(args, items, r)
    single = one_file and not _is_share(items[0])
    if not single and not args.output and not args.list:
        raise UsageError("several inputs or a folder: name a folder to write the redacted files to with -o DIR")
    out = stdout()
    if single:
        source = items[0]
        assert isinstance(source, Input)
        from .verdict import LineCheck

        check = LineCheck()
        for lines in _checked(source, check, r):
            if not args.list:
                _write_some(out, b"".join(lines))
                if source.live:  # a pipe: each line out as it comes
                    _write_some(out, b"")
        failed = check.count > 0
    else:
        files, problems = gather(items)
        failed = report_problems(problems)
        from .redact import redact_bytes

        names = names_of(args.files)
        failed = _say_unreadable(files) or failed
        for name, data in files.items():
            redacted = redact_bytes(data, r)
            if args.list:
                continue
            target = os.path.join(args.output, names(r.text(name)))
            if os.path.exists(target) and os.path.exists(name) and os.path.samefile(target, name):
                raise UsageError(f"{display_name(target)}: -o would write over the input")
            _make_folders(os.path.dirname(target))
            with open(target, "wb") as f:
                f.write(redacted)
    if args.list:
        _list_findings(out, r)
    _write_some(out, b"")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


def _make_folders(path: str) -> None:
    """``os.makedirs`` without its recursion: a tree thousands of folders deep is just long."""
    missing: list[str] = []
    while path and not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile
            os.mkdir(folder)


def _checked(source: Input, check: LineCheck, r: Redactor) -> Iterator[list[bytes]]:
    """The input's lines redacted, a batch at a time (as ``redacted_lines`` batches them), each
    looked at as the translators would: what is unreadable is said as ``translate`` says it (the
    first ``ERRORS_KEPT``, then how many more), before its line is redacted (a message takes the
    placeholders of the lines before it). A batch with nothing to say is redacted as one block."""
    _run.name, _run.line = source.name, 0
    listed = 0

    def said(problems: list[tuple[int, str]]) -> None:
        nonlocal listed
        if not problems:  # the emitter (and the translator with it) loads once a line is unreadable
            return
        from .emitter import ERRORS_KEPT

        for number, message in problems:
            if listed < ERRORS_KEPT:
                _err(f"{source.name}:{number}: {message}")
                listed += 1

    for batch in _batches(source.lines(), source.live):
        first = _run.line + 1
        _run.line += len(batch)
        types = check.types(batch)
        if types is not None:
            yield r.feed_lines(batch, first, types)
            continue
        problems = [check.feed(line, n) for n, line in enumerate(batch, first)]
        if not any(problems):
            yield r.feed_lines(batch, first)
            continue
        out: list[bytes] = []
        for n, (line, found) in enumerate(zip(batch, problems, strict=True), first):
            said(found)
            out += r.feed(line, n)
        yield out
    said(check.finish())
    if check.count > listed:
        _err(f"{source.name}: {check.count - listed} more unreadable line(s) not listed (each is in the output, "
             "redacted as text)")
    yield r.flush()


def _redact_share(args: argparse.Namespace, items: list[Named], r: Redactor) -> int:
    """One shareable file in, the same redacted out (its files, their paths and its view)."""
    from . import sharefile

    shares: dict[str, Opened] = {}
    _, problems = gather(items, shares)
    failed = report_problems(problems)
    opened = next(iter(shares.values()))
    out = stdout()
    if args.list:
        sharefile.prepare(opened.files, opened.view, r)  # the findings are what --list shows
        _list_findings(out, r)
    else:
        if sys.stdout is not None and sys.stdout.isatty():
            raise UsageError("the redacted shareable file is a zip: send it to a file (> FILE), "
                             "or write its files into a folder with -o DIR")
        _write_some(out, sharefile.pack(opened.files, opened.view, r))
    _write_some(out, b"")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


def _list_findings(out: BinaryIO, r: Redactor) -> None:
    from .termsafe import safe

    rows = [f"{'line':>6}  {'kind':<16} {'placeholder':<30} masked"]
    rows += [f"{f.line:>6}  {f.kind:<16} {f.placeholder:<30} {safe(f.masked)}" for f in r.findings]
    _write_some(out, ("\n".join(rows) + "\n").encode())


def _write_some(out: BinaryIO, data: bytes) -> None:
    try:
        out.write(data)
        if not data:
            out.flush()
    except OSError as exc:
        raise OutputError(exc) from exc


# -- the run as a trace (export), sent to a collector, and where its time went (stats) -------------

def _source(args: argparse.Namespace) -> tuple[FilesOnDisk | Iterator[bytes], Callable[[str], bytes] | None]:
    """What ``export`` and ``stats`` read: one input as it comes (a line at a time: constant
    memory), or several files (and folders) a session at a time (each session's files are read
    whole: ``read`` reads one, redacted with ``--redact``)."""
    from .redact import redact_bytes

    items = named(args.file)
    if _many(items):
        files = FilesOnDisk(items)
        r = redactor_of(args)
        if r is None:
            return files, None
        named_as = files.renamed(r.text)  # names are redacted too (a project folder's name holds the user's)
        return named_as, lambda name: redact_bytes(named_as[name], r)
    (source,) = [i for i in items if isinstance(i, Input)]
    _run.name, _run.line = source.name, 0

    def lines() -> Iterator[bytes]:
        try:
            yield from redacted_lines(args, source.lines(), source.live)
        except OSError as exc:
            raise UsageError(f"{source.name}: {exc.strerror or exc}") from exc
    return lines(), None


def _unread(source: FilesOnDisk | Iterator[bytes], failed: bool) -> bool:
    """The files of a folder that could not be read, said on stderr; whether there were any."""
    if isinstance(source, FilesOnDisk):
        failed = report_problems(source.problems) or failed
        source.problems.clear()
    return failed


def _said(run: Live, failed: bool) -> bool:
    """A finished run's unreadable lines and notes on stderr; whether it had errors."""
    report_files([(f or run.name or _run.name, line, message) for f, line, message in run.errors])
    if run.error_count > len(run.errors):
        _err(f"relayscope: {run.error_count - len(run.errors)} more unreadable line(s) not listed")
    b = run.builder_now()
    for note in b.notes:
        _err(f"relayscope: {display_name(run.name) + ': ' if run.name else ''}{note}")
    return failed or bool(run.error_count)


def _untimed_start(args: argparse.Namespace) -> float | None:
    from .spans import parse as parse_stamp

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
    import time

    from .export import day_start
    from .export import stream as export_stream
    from .export import writer as export_writer
    from .otlp import SettingsError as OtlpSettingsError
    from .otlp import settings as otlp_settings

    try:
        # the environment names a collector only when no file format is asked for
        target = otlp_settings(args.otlp_endpoint, args.otlp_header or (), args.otlp_protocol,
                               env=None if args.format is None or args.follow else {})
    except OtlpSettingsError as exc:
        raise UsageError(str(exc)) from exc
    if args.follow:
        if target is None:
            raise UsageError("--follow sends to a collector: give --otlp-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT)")
        return _export_follow(args, target)
    if args.format is None and target is None:
        raise UsageError("give --format (a file) or --otlp-endpoint (a collector)")
    source, read = _source(args)
    start = _untimed_start(args)
    failed = _unread(source, False)
    if target is not None:
        return _export_send(args, source, read, target, start, failed)

    def out(data: bytes) -> None:
        _write_some(stdout(), json_out(data))  # whole events at a time: each escaped as it goes
    w = export_writer(args.format, out, start if start is not None else day_start(time.time()))
    for run, items, done in export_stream(source, args.strategy, args.input_format, read):
        w.put(run, items, done)
        if done:
            failed = _said(run, _unread(source, failed))
    w.close()
    _write_some(stdout(), b"")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


def _export_send(args: argparse.Namespace, source: Any, read: Any, target: Any, start: float | None,
                 failed: bool) -> int:
    import time

    from .export import Spans as OtlpSpans
    from .export import day_start
    from .export import stream as export_stream
    from .export import writer as export_writer
    from .otlp import Sender, SendError

    sender = Sender(target, give_up=args.otlp_give_up)
    clock = export_writer("otlp", lambda _b: None, start if start is not None else day_start(time.time()))
    spans = OtlpSpans(clock)
    try:
        for run, items, done in export_stream(source, args.strategy, args.input_format, read):
            sent = spans.of(run, items)
            sender.add(spans.resource(run), sent)
            if done:
                failed = _said(run, _unread(source, failed))
        sender.flush()
    except SendError as exc:
        _err(f"relayscope: {exc}")
        return INPUT_ERRORS
    report_redaction(args)
    _err(f"relayscope: sent {sender.sent} span(s) to {target.endpoint} in {sender.requests} request(s)")
    return INPUT_ERRORS if failed else OK


def _export_follow(args: argparse.Namespace, target: Any) -> int:
    import time

    from . import follow
    from .otlp import Sender, SendError
    from .otlp_follow import FollowSpans

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
        _err(f"relayscope: {exc}")
        return INPUT_ERRORS
    _err(f"relayscope: sent {sender.sent} span(s) to {target.endpoint} in {sender.requests} request(s)")
    failed = any(_said(run, False) for run in sink.runs.values()) or outcome.failed
    return INTERRUPTED if outcome.interrupted else INPUT_ERRORS if failed else OK


def cmd_stats(args: argparse.Namespace) -> int:
    import msgspec

    from .export import run_figures
    from .export import stream as export_stream
    from .spans import render_figures
    from .termsafe import safe, safe_data

    source, read = _source(args)
    failed = _unread(source, False)
    held: dict[str, Any] | None = None  # the first session's figures: headed only if a second comes
    count = 0
    for run, _items, done in export_stream(source, args.strategy, args.input_format, read):
        if not done:  # only the figures count: the spans go as they finish
            continue
        fig = run_figures(run)
        failed = _said(run, _unread(source, failed))
        count += 1
        if args.json:  # written as each session ends: a folder's figures are not held
            _write_out((b"[" if count == 1 else b",") + json_out(msgspec.json.encode(fig)))
            continue
        fig = safe_data(fig)  # every string of the figures made safe before it is placed in a row
        if held is not None or count > 1:
            if held is not None:
                _write_out(f"== {safe(held['name'] or '')}\n{render_figures(held)}".encode())
                held = None
            _write_out(f"\n== {safe(fig['name'] or '')}\n{render_figures(fig)}".encode())
        else:
            held = fig
    if args.json:
        _write_out((b"]" if count else b"[]") + b"\n")
    else:
        _write_out(render_figures(held).encode() if held is not None else b"")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


# --- one file or one page to pass on: pack and html ------------------------------------------


def shared_paths(files: dict[str, bytes], shares: Mapping[str, Opened]) -> dict[str, bytes]:
    """Each file under the path it is shared as: a shareable file's files under their own paths,
    any other by its path below the folder all of them share, so a session's layout (the main
    file beside its folder of sub-agent files) is kept and no machine path travels."""
    inner: dict[str, str] = {}
    plain = []
    for name in files:
        share = next((s for s in shares if name.startswith(s + "/")), None)
        if share is not None:
            inner[name] = name[len(share) + 1:]
        else:
            plain.append(name)
    where = [os.path.abspath(n) for n in plain]
    common = os.path.commonpath([os.path.dirname(w) for w in where]) if where else ""
    for name, w in zip(plain, where, strict=True):
        inner[name] = os.path.relpath(w, common).replace(os.sep, "/")
    out: dict[str, bytes] = {}
    for name, data in files.items():
        if inner[name] in out:
            raise UsageError(f"{name}: another input is already shared as {inner[name]}")
        out[inner[name]] = data
    return out


def view_of(args: argparse.Namespace, shares: Mapping[str, Opened]) -> dict[str, str]:
    """The view a shareable file or a snapshot opens at: the first shareable file's, then
    ``--view KEY=VALUE`` over it."""
    view = dict(next(iter(shares.values())).view) if shares else {}
    for pair in args.view or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--view {pair}: give KEY=VALUE (strategy=index, row=12, step=40)")
        view[key] = value
    return view


def _gather_shared(args: argparse.Namespace, items: list[Named]) -> tuple[dict[str, bytes], dict[str, str], bool]:
    """The input's files under their shared paths and the view (not redacted yet), and whether
    some of it could not be read (said on stderr)."""
    shares: dict[str, Opened] = {}
    files, problems = gather(items, shares)
    failed = report_problems(problems)
    if not files:
        raise UsageError("nothing to share: no file of the input could be read")
    failed = _say_unreadable(files) or failed  # passed on as they are, but said as translate says it
    return shared_paths(files, shares), view_of(args, shares), failed


def _write_file(path: str, data: bytes, inputs: list[str]) -> None:
    """``data`` into ``path`` (``-``: stdout), never over one of the inputs."""
    if path == STDIN:
        _write_out(data)
        return
    for name in inputs:
        if name != STDIN and os.path.exists(path) and os.path.exists(name) and os.path.samefile(path, name):
            raise UsageError(f"{display_name(path)}: -o would write over the input")
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise UsageError(f"{display_name(path)}: {exc.strerror or exc}") from exc


def _say_unreadable(files: dict[str, bytes]) -> bool:
    """What ``translate`` would call unreadable in these files (``verdict``), said as it says it;
    True when there was some. For the commands that pass files on untranslated."""
    from .verdict import files_problems

    bad = files_problems(files)
    report_files(bad)
    return bool(bad)


def cmd_pack(args: argparse.Namespace) -> int:
    from . import sharefile

    files, view, failed = _gather_shared(args, named(args.files))
    try:
        data = sharefile.pack(files, view, redactor_of(args))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    _write_file(args.output, data, args.files)
    size = sum(map(len, files.values()))
    where = "<stdout>" if args.output == STDIN else display_name(args.output)
    _err(f"relayscope: packed {len(files)} file(s), {size:,} bytes, into {where} "
         f"({len(data):,} bytes)")
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


def cmd_html(args: argparse.Namespace) -> int:
    """``relayscope html``: the snapshot, one self-contained page (``snapshot.render``)."""
    if args.detail_chars is not None and args.detail_chars < 0:
        raise UsageError("--detail-chars takes 0 or more")
    from . import sharefile

    items = named(args.files)
    r = redactor_of(args)
    if _many(items):
        files, view, failed = _gather_shared(args, items)
        try:
            shared = sharefile.prepare(files, view, r)
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        source: bytes | dict[str, bytes] = shared.files
        view = shared.view
        name = next(iter(shared.files)) if len(shared.files) == 1 else None
    else:
        source, view = b"".join(_read_one(items[0], args)), view_of(args, {})
        failed = _say_unreadable({_run.name or STDIN: source})
        name = os.path.basename(args.files[0]) if args.files[0] != STDIN else "stdin"
    from . import snapshot

    page = snapshot.render(source, strategy=args.strategy, fmt=args.input_format, name=name,
                           view=view, redacted=r.summary() if r is not None else None,
                           detail_chars=args.detail_chars)
    _write_file(args.output, page.encode("utf-8"), args.files)
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


COMMANDS: Final[dict[str, Callable[[argparse.Namespace], int]]] = {
    "translate": cmd_translate, "trace": cmd_trace, "audit": cmd_audit, "redact": cmd_redact, "export": cmd_export,
    "stats": cmd_stats, "pack": cmd_pack, "html": cmd_html,
}


def _plain_translate(argv: Sequence[str]) -> argparse.Namespace | None:
    """``translate FILE...`` with no option, the commonest run, as argparse would read it, without
    argparse (its import, gettext's and the parser's building were a tenth of a short translate);
    None for anything else, which argparse reads. Its defaults are the parser's
    (``cliargs._translate_parser``; test_startup_imports holds the two equal)."""
    if argv[:1] != ["translate"] or any(a.startswith("-") and a != "-" for a in argv[1:]):
        return None
    args = SimpleNamespace(command="translate", files=list(argv[1:]), format="ndjson", color="auto", redact=False,
                           strategy="lineage", input_format="auto", follow=False, idle_exit=None, poll_interval=0.25)
    return cast("argparse.Namespace", args)


def _plain_redact(argv: Sequence[str]) -> argparse.Namespace | None:
    """``redact FILE...`` with no option, read as argparse reads it, without argparse (as
    ``_plain_translate``); None for anything else."""
    if argv[:1] != ["redact"] or any(a.startswith("-") and a != "-" for a in argv[1:]):
        return None
    return cast("argparse.Namespace", SimpleNamespace(command="redact", files=list(argv[1:]), output=None, list=False))


def _crash_site(tb: TracebackType | None) -> tuple[str | None, int]:
    """The input line a translator was reading when it failed: the innermost translator on the
    stack (its file and line count; a session file's own count when it has one), else what the
    command line was reading."""
    import traceback

    from .emitter import Emitter

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


def main(argv: list[str] | None = None) -> int:
    global _run
    _run = _Run()
    argv = sys.argv[1:] if argv is None else argv
    args = _plain_translate(argv) or _plain_redact(argv)
    if args is None:
        from .cliargs import build_parser

        parser = build_parser(argv)
        args, extra = parser.parse_known_args(argv)
        if extra:  # said with the command's own usage, not the top level's
            parser.commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        redactor_of(args)  # before anything is named: names and messages are redacted too
        return COMMANDS[args.command](args)
    except UsageError as exc:
        if _run.writer is not None and _run.writer.count:
            _close_output()  # an array was begun: end it; else a usage error prints nothing
        elif _run.writer is not None:
            _drain_output()
        _err(f"relayscope: {exc}")
        return USAGE
    except OutputError as exc:
        if exc.errno in (errno.EPIPE, errno.ECONNRESET):
            _silence_stdout()  # the reader went away (| head): not an error of ours
            return OK
        _silence_stdout()
        _err(f"relayscope: <stdout>: {exc}")
        return OUTPUT_FAILED
    except BrokenPipeError:
        _silence_stdout()
        return OK
    except KeyboardInterrupt:
        import signal  # here: only an interrupted run needs it

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
        _err(f"relayscope: internal error at {where}: {type(exc).__name__}: {text} "
             "(a bug in relayscope; please report it with this line)")
        return INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
