"""otlp_follow: ``relayscope export --follow --otlp-endpoint URL``: spans to a collector as Claude
Code writes the transcript.

Job: the relay writer ``follow.run`` feeds (with each file's appended bytes beside, for their
timestamps): relays are grouped into runs (a session's main file and its ``subagents/`` files are
one run, as ``multifile`` groups a folder), built into spans by ``export.Live`` and handed to the
sender as each one finishes. A run's ids are the ones ``export`` gives the finished files (the
session id and the main file's first line), so sending a run again, followed or read whole,
adds nothing to the collector.

State: per file, its line count, last partial line and the timestamps of its recent lines; per
run, its ``Live``. Must not: read files (``follow`` does) or encode (``otlp`` does). Lost blocks
(the audit's inventory) are not looked for while following.
"""

from __future__ import annotations

from typing import Final

from . import relay as R
from . import spans as S
from ._bounded import RecentMap
from .export import STAMPS_KEPT, Live, Spans, Writer
from .otlp import Sender

SEPARATOR: Final = "/"


class _Clock(Writer):
    """Only the times of the OTLP writer: spans go to the sender, not to a file."""

    def put(self, run: Live, items: list[S.Closed], done: bool) -> None:  # pragma: no cover - unused
        pass

    def close(self) -> None:  # pragma: no cover - unused
        pass


def run_key(name: str | None) -> str:
    """The run a file's relays belong to: ``<session>/subagents/agent-*.jsonl`` with ``<session>.jsonl``."""
    if not name:
        return ""
    parts = name.replace("\\", SEPARATOR).split(SEPARATOR)
    if len(parts) >= 3 and parts[-2] == "subagents":
        return SEPARATOR.join(parts[:-2]) + ".jsonl"
    return name


class FollowSpans:
    """A ``follow.RelayWriter`` that sends spans. ``folder``: relays name their file (else one run)."""

    def __init__(self, sender: Sender, untimed_start: float, folder: bool) -> None:
        self.sender = sender
        self.folder = folder
        self.spans = Spans(_Clock(lambda _b: None, untimed_start))
        self.runs: dict[str, Live] = {}
        self.stamps: RecentMap[tuple[str | None, int], float | None] = RecentMap(STAMPS_KEPT)
        self.lines: dict[str, int] = {}
        self.rest: dict[str, bytes] = {}
        self.first: dict[str, bytes] = {}
        self.notes = S.StampNotes()

    def raw(self, path: str, data: bytes) -> None:
        """Bytes appended to ``path``: their lines' timestamps, and each file's first line."""
        parts = (self.rest.get(path, b"") + data).split(b"\n")
        self.rest[path] = parts.pop()
        n = self.lines.get(path, 0)
        key = path if self.folder else None
        for line in parts:
            n += 1
            if path not in self.first and line.strip():
                self.first[path] = line
            self.stamps[(key, n)] = self.notes.read(line) if b'"timestamp"' in line else None
        self.lines[path] = n

    def _at(self, file: str | None, line: int) -> float | None:
        return self.stamps.get((file, line))

    def _run(self, r: R.Relay) -> Live:
        key = run_key(r.file) if self.folder else ""
        live = self.runs.get(key)
        if live is None:
            seed = self.first.get(key) or next(iter(self.first.values()), b"")
            live = self.runs[key] = Live(key or None, self._at, seed, several=self.folder, notes=self.notes)
        return live

    def write(self, relays: list[R.Relay]) -> None:
        groups: dict[int, tuple[Live, list[R.Relay]]] = {}
        for r in relays:
            live = self._run(r)
            groups.setdefault(id(live), (live, []))[1].append(r)
        for live, rs in groups.values():
            self.sender.add(self.spans.resource(live), self.spans.of(live, live.feed(rs)))
        self.sender.flush()  # each poll's spans as they finish: a collector shows the run live

    def close(self) -> None:
        for live in self.runs.values():
            self.sender.add(self.spans.resource(live), self.spans.of(live, live.finish()))
        self.sender.flush()
