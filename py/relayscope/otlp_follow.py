"""otlp_follow: ``relayscope export --follow --otlp-endpoint URL``: spans to a collector as Claude
Code writes the transcript.

Job: the relay writer ``follow.run`` feeds (with each file's appended bytes beside, for their
timestamps and the audit's inventory): relays are grouped into runs (a session's main file and
its sub-agent files are one run, as ``multifile`` groups a folder: ``<session>/subagents/`` and,
in the 2.0.x layout, the ``agent-*.jsonl`` beside it whose records carry its ``sessionId``),
built into spans by ``export.Live`` and handed to the sender as each one finishes. A run's ids are
the ones ``export`` gives the finished files (the session id and the main file's first line), so
sending a run again, followed or read whole, adds nothing to the collector. Lost blocks are
looked for per file as ``export`` does for one text (``export.LostWatch``): a block no relay
carried ``LOST_AFTER`` lines later, or when following ends, is a lost block.

State: per file, its line count, partial last line, the timestamps of its recent lines, its
lost-block watch and (until found) its first lines; per run, its ``Live``. Must not: read files
(``follow`` does) or encode (``otlp`` does).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from . import relay as R
from . import spans as S
from .export import LOST_AFTER, Live, LostWatch, Spans, StampRing, Writer
from .multifile import agent_file_id, file_head
from .otlp import Sender

SEPARATOR: Final = "/"
HEAD_LINES: Final = 8  # lines of an agent file looked at for its sessionId (as the folder reader does)


class _Clock(Writer):
    """Only the times of the OTLP writer: spans go to the sender, not to a file."""

    def put(self, run: Live, items: list[S.Closed], done: bool) -> None:  # pragma: no cover - unused
        pass

    def close(self) -> None:  # pragma: no cover - unused
        pass


def run_key(name: str | None, session_id: str | None = None) -> str:
    """The run a file's relays belong to: ``<session>/subagents/agent-*.jsonl`` with
    ``<session>.jsonl``; an ``agent-*.jsonl`` beside the sessions (2.0.x) with the
    ``<sessionId>.jsonl`` its records name."""
    if not name:
        return ""
    parts = name.replace("\\", SEPARATOR).split(SEPARATOR)
    if len(parts) >= 3 and parts[-2] == "subagents":
        return SEPARATOR.join(parts[:-2]) + ".jsonl"
    if session_id and agent_file_id(name) is not None:
        return SEPARATOR.join([*parts[:-1], f"{session_id}.jsonl"])
    return name


@dataclass(slots=True, eq=False)
class _File:
    """What is known of one followed file."""

    name: str | None  # as its relays name it (None: the one file followed)
    watch: LostWatch
    stamps: StampRing = field(default_factory=StampRing)
    lines: int = 0
    rest: bytes = b""
    first: bytes | None = None  # its first line that is not blank
    head: list[bytes] | None = None  # an agent file's first lines, until its sessionId is found
    session_id: str | None = None
    relayed: int = 0  # the last line whose relays were looked at


class FollowSpans:
    """A ``follow.RelayWriter`` that sends spans. ``folder``: relays name their file (else one run)."""

    def __init__(self, sender: Sender, untimed_start: float, folder: bool) -> None:
        self.sender = sender
        self.folder = folder
        self.spans = Spans(_Clock(lambda _b: None, untimed_start))
        self.runs: dict[str, Live] = {}
        self.files: dict[str | None, _File] = {}
        self.notes = S.StampNotes()

    def _file(self, name: str | None) -> _File:
        f = self.files.get(name)
        if f is None:
            f = self.files[name] = _File(name, LostWatch(name))
            if name is not None and agent_file_id(name) is not None:
                f.head = []
        return f

    def raw(self, path: str, data: bytes) -> None:
        """Bytes appended to ``path``: their lines' timestamps and blocks, each file's first line
        and an agent file's sessionId."""
        f = self._file(path if self.folder else None)
        parts = (f.rest + data).split(b"\n")
        f.rest = parts.pop()
        self._lines(f, parts)

    def _lines(self, f: _File, parts: list[bytes]) -> None:
        n = f.lines
        for line in parts:
            n += 1
            if f.first is None and line.strip():
                f.first = line
            if f.head is not None:
                f.head.append(line)
                f.session_id = file_head(f.head)[0]
                if f.session_id is not None or len(f.head) >= HEAD_LINES:
                    f.head = None
            f.stamps.put(n, self.notes.read(line) if b'"timestamp"' in line else None)
            f.watch.line(n, line)
        f.lines = n

    def _run(self, f: _File) -> Live:
        key = run_key(f.name, f.session_id) if self.folder else ""
        live = self.runs.get(key)
        if live is None:
            main = self.files.get(key) if self.folder else f
            seed = (main.first if main is not None else None) or f.first or b""
            live = self.runs[key] = Live(key or None, self._at, seed, several=self.folder, notes=self.notes)
        return live

    def _at(self, file: str | None, line: int) -> float | None:
        f = self.files.get(file if self.folder else None)
        return f.stamps.get(line) if f is not None else None

    def _x(self, r: R.Relay) -> float | None:
        return self._at(r.file, r.line)

    def write(self, relays: list[R.Relay]) -> None:
        by_file: dict[str | None, list[R.Relay]] = {}
        for r in relays:
            by_file.setdefault(r.file if self.folder else None, []).append(r)
        runs: dict[int, tuple[Live, list[R.Relay]]] = {}
        for r in relays:  # in their order: a sub-agent's relays come between its call and its result
            live = self._run(self._file(r.file if self.folder else None))
            runs.setdefault(id(live), (live, []))[1].append(r)
        closed = {key: live.feed(rs) for key, (live, rs) in runs.items()}
        for name, rs in by_file.items():
            f = self._file(name)
            f.watch.relays(rs, self._x)
            f.relayed = max(f.relayed, max(r.line for r in rs))
            if f.relayed > LOST_AFTER:
                self._run(f).lost(f.watch.due(f.relayed))
        for key, (live, _rs) in runs.items():
            self._send(live, closed[key] + live.drain())
        self.sender.flush()  # each poll's spans as they finish: a collector shows the run live

    def _send(self, live: Live, closed: list[S.Closed]) -> None:
        spans = self.spans.of(live, closed)  # first: the resource names the axis the spans decided
        self.sender.add(self.spans.resource(live), spans)

    def close(self) -> None:
        notes: dict[int, list[str]] = {}
        for f in self.files.values():
            if f.rest:  # the last line, without its newline: the translator has read it too
                f.rest, rest = b"", f.rest
                self._lines(f, [rest])
            if f.relayed:  # a file that gave relays (not a meta file)
                live = self._run(f)
                live.lost(f.watch.finish())
                notes.setdefault(id(live), []).extend(f.watch.notes())
        for live in self.runs.values():
            said = notes.get(id(live), [])
            self._send(live, live.finish(lambda b: b.notes.extend(said)))  # noqa: B023 - called at once
        self.sender.flush()
