"""follow: ``relayscope translate --follow`` / ``trace --follow``: tail a growing transcript.

Job: the I/O of watching a file or a folder while Claude Code writes it. Poll every file (size,
inode, the bytes just before where we stopped), read only the bytes that were appended, and hand
them to the incremental translators: :class:`~relayscope.analysis.Analyzer` for one file
(``feed_text``: a partial last line waits for its newline, chunk boundaries never change the
result), :class:`~relayscope.live.LiveFiles` for a folder (a sub-agent file that appears later
joins as a lane). So the output for one file is byte for byte what translating the finished
file gives; nothing is translated twice.

A file that shrinks, is replaced (another inode) or rewritten (the bytes before our offset
changed) is reported on stderr and followed from its new start: what the old content still
owed (usage of open messages) is flushed first, and seq numbers go on, so the output stays one
stream. Plain ``tail -f`` semantics: follow until Ctrl-C (exit 130, a ``-f json`` array still
closed), or until ``--idle-exit SECONDS`` pass with nothing new (exit 0, or 1 after input errors).

Must not: translate anything itself, re-read bytes already read, or import the CLI (which
calls it) or be imported by the core.
"""

from __future__ import annotations

import argparse
import os
import signal
import stat
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import FrameType
from typing import Final, Protocol

import msgspec

from . import relay as R
from . import trace as T
from .analysis import Analyzer
from .inputs import walk
from .lanes import Lane
from .live import LiveFiles
from .termsafe import safe

READ_CAP: Final = 4 << 20  # bytes read from one file per poll: a huge backlog is fed in slices
CHECK_BYTES: Final = 64  # bytes before the offset re-read on each poll to notice a rewrite
RESCAN_EVERY: Final = 1.0  # seconds between listings of a followed folder


@dataclass(slots=True)
class Change:
    """What a poll of one file found."""

    data: bytes = b""
    restart: str | None = None  # why the file is read again from its start


class Tail:
    """One file, read from where the last poll stopped."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.offset = 0
        self.identity: tuple[int, int] | None = None
        self.before = b""  # the CHECK_BYTES just before offset

    def poll(self) -> Change:
        try:
            st = os.stat(self.path)
        except OSError:
            return Change()  # gone for now (being replaced): wait for it to come back
        if not stat.S_ISREG(st.st_mode):
            return Change()  # a FIFO or device in a followed folder: never opened (it could block)
        identity = (st.st_dev, st.st_ino)
        restart = None
        if self.identity is not None and identity != self.identity:
            restart = "replaced by another file"
        elif st.st_size < self.offset:
            restart = f"truncated ({st.st_size} bytes, {self.offset} read)"
        self.identity = identity
        if restart is None and st.st_size == self.offset:
            return Change()
        try:
            with open(self.path, "rb") as stream:
                if restart is None and self.before:
                    stream.seek(self.offset - len(self.before))
                    if stream.read(len(self.before)) != self.before:
                        restart = "rewritten (the bytes already read changed)"
                if restart is not None:
                    self.offset, self.before = 0, b""
                stream.seek(self.offset)
                data = stream.read(READ_CAP)
        except OSError:
            return Change()
        self.offset += len(data)
        self.before = (self.before + data)[-CHECK_BYTES:]
        return Change(data, restart)


class Stop:
    """Ctrl-C as a flag the loop checks between polls, so that no output is cut in half."""

    def __init__(self) -> None:
        self.interrupted = False
        self._old: Callable[[int, FrameType | None], object] | int | None = None

    def __enter__(self) -> Stop:
        self._old = signal.signal(signal.SIGINT, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGINT, self._old)

    def _on_signal(self, _signum: int, _frame: FrameType | None) -> None:
        self.interrupted = True


# --- output ------------------------------------------------------------------------------------


class RelayWriter(Protocol):
    """Where ``translate`` writes relays (the CLI's writer for its ``-f`` format)."""

    def write(self, relays: list[R.Relay]) -> None: ...

    def close(self) -> None: ...


class TraceWriter(Protocol):
    """Where ``trace`` writes (the CLI's table: the steps so far, with the relays they emitted
    and a way to their raw lines, as bytes; then its end)."""

    def part(self, steps: list[T.TraceStep], relays: list[R.Relay],
             raw: Callable[[T.TraceStep], bytes] | None) -> bytes: ...

    def end(self) -> bytes: ...


class Out:
    """Relays (``translate``, through the CLI's writer) or trace steps (``trace``, through the
    CLI's table) to stdout as they come, in the exact bytes the one-shot command writes. For the
    table's block fates it keeps the raw lines of one file until their steps are written."""

    def __init__(self, writer: RelayWriter | None, table: TraceWriter | None) -> None:
        self.writer = writer
        self.table = table
        self.pending: list[R.Relay] = []  # relays whose steps are not written yet
        self.raws: list[bytes] | None = None  # one file's lines not yet written (None: a folder)
        self.raw_base = 0  # the line number before raws[0]
        self.rest = b""
        self.out = sys.stdout.buffer

    def lines(self, data: bytes) -> None:
        """Bytes appended to the one file followed (for the block fates)."""
        if self.raws is None:
            self.raws = []
        parts = (self.rest + data).split(b"\n")
        self.rest = parts.pop()
        self.raws.extend(parts)

    def restart(self) -> None:
        self.raws, self.raw_base, self.rest = [], 0, b""

    def _raw(self, step: T.TraceStep) -> bytes:
        raws = self.raws or []
        at = step.line - 1 - self.raw_base
        if 0 <= at < len(raws):
            return raws[at]
        return self.rest if at == len(raws) else b""

    def relays(self, relays: list[R.Relay]) -> None:
        if self.writer is not None:
            self.writer.write(relays)
        elif self.table is not None:
            self.pending.extend(relays)

    def trace(self, steps: list[T.TraceStep]) -> None:
        if self.table is None or not steps:
            return
        self.out.write(self.table.part(steps, self.pending, self._raw if self.raws is not None else None))
        self.pending = []
        if self.raws is not None:  # what the steps written needed is done with: constant memory
            done = max(0, steps[-1].line - 1 - self.raw_base)
            del self.raws[:done]
            self.raw_base += done
        self.out.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            return
        if self.table is not None:
            if self.pending:
                self.out.write(self.table.part([], self.pending, None))
            self.out.write(self.table.end())
        self.out.flush()


def note(path: str, message: str) -> None:
    say(f"relayscope: {path}: {message}")


def say(text: str) -> None:
    """One message on stderr, its control characters shown, not obeyed (``termsafe``)."""
    print(safe(text), file=sys.stderr, flush=True)


# --- one file ------------------------------------------------------------------------------------


class FileFollower:
    """One growing file through one Analyzer; a restart finishes it and begins another whose
    seq numbers go on from the last."""

    def __init__(self, path: str, args: argparse.Namespace, out: Out, tracing: bool,
                 raw: Callable[[str, bytes], None] | None = None) -> None:
        self.path, self.args, self.out, self.tracing, self.raw = path, args, out, tracing, raw
        self.tail = Tail(path)
        self.base = 0  # seq offset of the current analyzer
        self.failed = False
        self._start()

    def _start(self) -> None:
        self.a = Analyzer(self.args.strategy, self.args.input_format, trace=self.tracing, keep=False)
        self.reported = 0

    def poll(self) -> bool:
        change = self.tail.poll()
        if change.restart is not None:
            self._end()
            note(self.path, f"{change.restart}: following it from its new start")
            self.base += self.a.translator.seq if self.a.translator is not None else 0
            self._start()
            self.out.restart()
        if change.data:
            if self.raw is not None:
                self.raw(self.path, change.data)
            if self.tracing:
                self.out.lines(change.data)
            self._emit(self.a.feed_text(change.data))
        return bool(change.data) or change.restart is not None

    def finish(self) -> None:
        self._end()

    def lanes(self) -> Mapping[str, Lane]:
        """The lanes as the current analyzer knows them (a restart begins another)."""
        return self.a.lanes

    def _end(self) -> None:
        self._emit(self.a.finish())

    def _emit(self, relays: list[R.Relay]) -> None:
        base = self.base
        if base:
            relays = [msgspec.structs.replace(r, seq=r.seq + base) for r in relays]
        self.out.relays(relays)
        steps = self.a.trace
        if steps:
            if base:
                for s in steps:
                    s.seqs = [q + base for q in s.seqs]
            self.out.trace(steps)
            del steps[:]  # written: constant memory however long the file grows
        for line, message in self.a.errors[self.reported:]:
            say(f"{self.path}:{line}: {message}")
        if len(self.a.errors) > self.reported:
            self.reported = len(self.a.errors)
            self.failed = True


# --- a folder ----------------------------------------------------------------------------------


def _listing(folder: str) -> Iterator[str]:
    """Transcripts and meta files under ``folder``, main files before sub-agent files (so a
    spawn's result is never seen before the sub-agent lines written ahead of it), and for a
    session folder ``<session>/`` the main file ``<session>.jsonl`` beside it."""
    main = os.path.normpath(folder) + ".jsonl"
    found, _ = walk(folder)  # what cannot be listed now is looked at again on the next listing
    if main in found:
        yield main
        found.remove(main)
    yield from sorted(found, key=lambda p: ("subagents" in p.split(os.sep), p))


class FolderFollower:
    """Every transcript under a folder, old and new, through one :class:`LiveFiles`."""

    def __init__(self, folder: str, args: argparse.Namespace, out: Out, tracing: bool,
                 raw: Callable[[str, bytes], None] | None = None) -> None:
        self.folder, self.out, self.raw = folder, out, raw
        self.live = LiveFiles(args.strategy, args.input_format, trace=tracing)
        self.tails: dict[str, Tail] = {}
        self.next_scan = 0.0
        self.reported = 0
        self.failed = False

    def poll(self) -> bool:
        # Two looks at every file, the listing between them: a line a sub-agent wrote before
        # its spawn's result is then always read in the same poll as that result, or before.
        changes: dict[str, bytes] = {}
        moved = self._look(changes)
        now = time.monotonic()
        if moved or now >= self.next_scan:
            self.next_scan = now + RESCAN_EVERY
            for path in _listing(self.folder):
                if path not in self.tails:
                    self.tails[path] = Tail(path)
        moved = self._look(changes) or moved
        if changes:
            if self.raw is not None:
                for path, data in changes.items():
                    self.raw(path, data)
            self._emit(self.live.feed_many(changes))
        return moved

    def _look(self, changes: dict[str, bytes]) -> bool:
        moved = False
        for path, tail in self.tails.items():
            change = tail.poll()
            if change.restart is not None:
                note(path, f"{change.restart}: following it from its new start")
                if path in changes:  # read before the restart: it goes first
                    self._emit(self.live.feed_many({path: changes.pop(path)}))
                self._emit(self.live.restart(path))
            if change.data:
                changes[path] = changes.get(path, b"") + change.data
            moved = moved or bool(change.data) or change.restart is not None
        return moved

    def finish(self) -> None:
        self._emit(self.live.finish())

    def lanes(self) -> Mapping[str, Lane]:
        """Every session's lanes as read so far."""
        return self.live.lanes()

    def _emit(self, relays: list[R.Relay]) -> None:
        self.out.relays(relays)
        self.out.trace(self.live.trace)
        del self.live.trace[:]  # written: constant memory however long the files grow
        for file, line, message in self.live.errors[self.reported:]:
            say(f"{file}:{line}: {message}")
        if len(self.live.errors) > self.reported:
            self.reported = len(self.live.errors)
            self.failed = True


# --- the loop ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    interrupted: bool  # Ctrl-C
    failed: bool  # the input had unreadable lines


def run(path: str, args: argparse.Namespace, writer: RelayWriter | None,
        table: TraceWriter | None = None, raw: Callable[[str, bytes], None] | None = None,
        lanes_to: Callable[[Callable[[], Mapping[str, Lane]]], None] | None = None) -> Outcome:
    """Follow ``path`` (a file or folder that exists) until Ctrl-C or ``args.idle_exit`` quiet
    seconds. ``writer``: where relays go (``translate``, ``export``); else ``table``: the trace's.
    ``raw``: told each file's appended bytes before they are translated (``export`` reads their
    timestamps). ``lanes_to``: given where the lanes are as they are read (``-f text`` says on a
    call's result row that its sub-agent's transcript is missing)."""
    tracing = writer is None
    out = Out(writer, table)
    follower: FileFollower | FolderFollower
    if os.path.isdir(path):
        follower = FolderFollower(path, args, out, tracing, raw)
    else:
        follower = FileFollower(path, args, out, tracing, raw)
    if lanes_to is not None:
        lanes_to(follower.lanes)
    interval: float = args.poll_interval
    idle_exit: float | None = args.idle_exit
    with Stop() as stop:
        quiet_since = time.monotonic()
        while not stop.interrupted:
            if follower.poll():
                quiet_since = time.monotonic()
                continue  # more may be waiting (a backlog read in slices)
            if idle_exit is not None and time.monotonic() - quiet_since >= idle_exit:
                break
            time.sleep(interval)
        follower.finish()
        out.close()
    return Outcome(stop.interrupted, follower.failed)
