"""shelf: a folder's (or a shareable file's) sessions as the page lists them, read from the
ends of their files: what the library view (library_view/) shows and opens.

Theory of operation
-------------------
Which files make which session is the core's one rule (``library.group``), and what a session
is from its files' ends is ``library.summarize``; this module only gets them the bytes they ask
for, from the page's files, which are read asynchronously (a browser File): each file that can
be a transcript by its name has its first bytes read (``Peek.head``, as ``library.peek_bytes``
cuts them), a batch of reads at a time, then the rule runs on those; then each session's big
files have their last bytes read too, it is summed up, and those bytes are let go (``heads``
are kept no longer than the listing: a 2,000-session library is not held in memory twice).

``Shelf`` is the result: one ``Entry`` per session (the core's ``Summary`` and the page's files
of it), the files the rule skipped with their reasons, and the copies it set aside.

Must not: decide which files make a session (the core does), draw, or hold file bytes past the
listing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Final

import msgspec

from .. import library as L
from ..intake import read_in_folder
from ..libsearch import BytesSource
from .host import PageFile

BATCH: Final = 64  # reads in flight at once
TURN_S: Final = 0.035  # summing up, the worker's loop is handed back this often


class Entry(msgspec.Struct):
    """One session of the shelf: what the core says of it, its group, and its files' handles."""

    summary: L.Summary
    group: L.Group
    files: dict[str, PageFile]  # the files a translation reads (main, sub-agents, meta), by path
    key: str = ""  # the session's id, or where two files hold the same id, the id and its main file

    @property
    def id(self) -> str:
        return self.key or self.summary.session


class Shelf(msgspec.Struct):
    entries: list[Entry]
    skipped: list[L.Skipped]
    copies: list[L.Group]
    files: int  # files looked at


class _Peeking:
    """One file's :class:`~relayscope.library.Peek`, read as the core's ``peek_reads`` asks (the
    same bytes the command line reads), and paused before its last bytes when ``head_only``:
    ``head`` is then what the rule needs, and ``finish`` reads the rest."""

    def __init__(self, file: PageFile) -> None:
        self.file, self.size = file, file.size
        self.plan = L.peek_reads(self.size)
        self.want: tuple[int, int] | None = next(self.plan)
        self.head = b""
        self.peek: L.Peek | None = None

    async def run(self, head_only: bool) -> L.Peek:
        try:
            while self.want is not None:
                at, n = self.want
                if head_only and at and at != len(self.head):  # its tail: later, if it is needed
                    return L.Peek(self.size, self.head)
                data = await self.file.read(at, min(self.size, at + n))
                if at == len(self.head):
                    self.head += data
                self.want = self.plan.send(data)
        except StopIteration as done:
            self.want, self.peek, self.head = None, done.value, b""
        assert self.peek is not None
        return self.peek


async def _batched(jobs: Sequence[tuple[str, _Peeking]], head_only: Callable[[str], bool],
                   ) -> AsyncIterator[list[tuple[str, L.Peek | str]]]:
    """The jobs' reads, ``BATCH`` in flight at once, a new one started as each ends (not a batch
    waited for whole: one slow read held the 31 others' successors back); what has ended, as it
    ends."""
    todo = iter(jobs)
    running: dict[asyncio.Future[L.Peek], str] = {}

    def start() -> None:
        for path, p in todo:
            running[asyncio.ensure_future(p.run(head_only(path)))] = path
            if len(running) >= BATCH:
                return

    start()
    while running:
        done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        out: list[tuple[str, L.Peek | str]] = []
        for task in done:
            path = running.pop(task)
            failed = task.exception()
            out.append((path, task.result() if failed is None else f"could not be read: {failed}"))
        start()
        yield out


async def list_sessions(files: dict[str, PageFile], progress: Callable[[float], object],
                        timed: dict[str, float] | None = None) -> Shelf:
    """The sessions ``files`` (path -> file) make, summed up from their files' ends; ``progress``
    is told how far in [0, 1] after each batch of reads (the caller hands the loop back there);
    ``timed`` gets the seconds spent reading heads, grouping, reading tails and summing up."""
    parts = timed if timed is not None else {}
    mark = time.perf_counter()

    def lap(part: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        parts[part] = parts.get(part, 0.0) + now - mark
        mark = now

    candidates = [(path, _Peeking(f)) for path, f in files.items() if read_in_folder(path.rsplit("/", 1)[-1])]
    plans = dict(candidates)
    heads: dict[str, L.Peek | str] = {}
    total = max(1, 2 * len(candidates))
    # the rule needs a file's last bytes only to name a session whose main file is not named by its id
    async for batch in _batched(candidates, lambda path: L.named_by_id(path) or "/subagents/" in path):
        heads.update(batch)
        progress(len(heads) / total)
    lap("heads")

    def peek(path: str) -> L.Peek | str:
        found = heads.get(path)
        if found is not None:
            return found
        f = files.get(path)
        return L.Peek(f.size, b"") if f is not None else "not in the input"

    grouping = L.group(list(files), peek)
    lap("group")
    turn = time.perf_counter()
    entries: list[Entry] = []
    copies: list[L.Group] = []
    done = len(candidates)
    for g in grouping.groups:
        if g.copy_of is not None:
            copies.append(g)
            continue
        # the big files' last bytes, read now, kept only while this session is summed up
        unfinished = [(p, plans[p]) for p in g.files if p in plans and plans[p].want is not None]
        ends: dict[str, L.Peek | str] = {}
        async for batch in _batched(unfinished, lambda _: False):
            ends.update(batch)
        lap("tails")
        done += len(g.files)
        def ends_then_heads(path: str, ends: dict[str, L.Peek | str] = ends) -> L.Peek | str:
            return ends.get(path) or peek(path)

        entries.append(Entry(L.summarize(g, ends_then_heads), g, {p: files[p] for p in g.transcripts if p in files}))
        for p in g.files:
            heads.pop(p, None)  # summed up: its bytes go
            plans.pop(p, None)
        lap("summarize")
        progress(min(done / total, 0.99))
        if time.perf_counter() - turn > TURN_S:
            await asyncio.sleep(0)  # the page's messages are taken, and what was said goes to it
            turn = time.perf_counter()
    _unique_keys(entries)
    return Shelf(entries, grouping.skipped, copies, len(files))


def _unique_keys(entries: list[Entry]) -> None:
    """Each entry a key of its own: its session's id, or, where several files hold sessions of the
    same id (two captures of one ``session_id``), the id and the main file's path ("ID@PATH")."""
    seen: dict[str, int] = {}
    for e in entries:
        seen[e.summary.session] = seen.get(e.summary.session, 0) + 1
    for e in entries:
        if seen[e.summary.session] > 1:
            e.key = f"{e.summary.session}@{e.group.main or e.group.key}"


async def read_session(entry: Entry) -> BytesSource:
    """An entry's transcripts read whole, for the second pass (``libsearch``: its figures, a
    search): one session in memory at a time. A file that cannot be read is left out (the
    second pass then says so as it says a file it cannot read)."""
    paths = [p for p, role in entry.group.files.items() if role != L.ATTACHMENT and p in entry.files]
    got = await asyncio.gather(*(entry.files[p].read() for p in paths), return_exceptions=True)
    return BytesSource({p: data for p, data in zip(paths, got, strict=True) if isinstance(data, bytes)})
