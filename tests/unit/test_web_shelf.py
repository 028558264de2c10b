"""The page's listing of a library (web/shelf.py) reads the page's files as the command line
reads files on disk: the same sessions with the same summaries as `relayscope sessions`, the
core's one rule, from the same bytes (each file's ends, as ``library.peek_reads`` asks)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from _corpus import ROOT

from relayscope.cli import library as libcli
from relayscope.web import library_view as V
from relayscope.web.shelf import list_sessions, read_session

LIBRARY = ROOT / "tests" / "fixtures" / "library" / "projects"


class DiskFile:
    """A page file over a file on disk, counting what is read of it."""

    read_bytes = 0

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def size(self) -> int:
        return self.path.stat().st_size

    async def read(self, start: int = 0, end: int | None = None) -> bytes:
        with self.path.open("rb") as f:
            f.seek(start)
            data = f.read(-1 if end is None else end - start)
        DiskFile.read_bytes += len(data)
        return data

    def slices(self, size: int):  # not used by the listing
        raise NotImplementedError


def page_files(root: Path) -> dict[str, DiskFile]:
    return {str(p): DiskFile(p) for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_page_lists_the_sessions_the_command_line_lists_with_the_same_summaries(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    shutil.copytree(LIBRARY, root)
    big = next(root.rglob("230240ea-*.jsonl"))  # 495 KB: only its ends are read
    DiskFile.read_bytes = 0
    shelf = asyncio.run(list_sessions(page_files(root), lambda _: None))
    cli, _ = libcli.list_sessions(libcli.Library([str(root)]))
    assert [e.summary for e in sorted(shelf.entries, key=lambda e: e.id)] == sorted(
        (s for s, _ in cli), key=lambda s: s.session)
    total = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    assert DiskFile.read_bytes < total - big.stat().st_size // 2  # ends, not whole files


def test_a_session_read_for_the_second_pass_holds_its_transcripts_whole(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    shutil.copytree(LIBRARY, root)
    shelf = asyncio.run(list_sessions(page_files(root), lambda _: None))
    entry = next(e for e in shelf.entries if e.summary.subagents)
    source = asyncio.run(read_session(entry))
    assert sorted(source.files) == sorted(p for p, role in entry.group.files.items() if role != "attachment")
    assert all(source.files[p] == Path(p).read_bytes() for p in source.files)


def test_the_workspace_is_given_the_row_terms_of_a_library_search() -> None:
    assert V.workspace_query('"rm -rf" tool:Bash model:opus cli:2.1 project:x') == '"rm -rf" tool:bash'
    assert V.workspace_query("file:auth.py is:error") == "auth.py is:error"
    assert V.workspace_query("model:opus project:relayscope") == ""  # session terms only: no row search


def test_two_captures_of_one_session_id_are_two_entries_each_with_a_key_of_its_own(tmp_path: Path) -> None:
    init = b'{"type":"system","subtype":"init","session_id":"s1","model":"m","tools":[]}\n'
    (tmp_path / "a.jsonl").write_bytes(init)
    (tmp_path / "b.jsonl").write_bytes(init + b'{"type":"result","subtype":"success","session_id":"s1"}\n')
    shelf = asyncio.run(list_sessions(page_files(tmp_path), lambda _: None))
    assert [e.summary.session for e in shelf.entries] == ["s1", "s1"]
    keys = sorted(e.id for e in shelf.entries)
    assert keys == [f"s1@{tmp_path / 'a.jsonl'}", f"s1@{tmp_path / 'b.jsonl'}"]


class HeldFile:
    """A page file whose reads wait for a gate (a slow disk), or fail."""

    def __init__(self, data: bytes, gate: asyncio.Event | None = None, fails: bool = False) -> None:
        self.data, self.gate, self.fails = data, gate, fails
        self.started = 0

    @property
    def size(self) -> int:
        return len(self.data)

    async def read(self, start: int = 0, end: int | None = None) -> bytes:
        self.started += 1
        if self.gate is not None:
            await self.gate.wait()
        if self.fails:
            raise OSError("the disk said no")
        return self.data[start:end]

    def slices(self, size: int):  # not used by the listing
        raise NotImplementedError


def test_the_reads_keep_a_window_in_flight_a_slow_one_holds_no_other_back() -> None:
    """``BATCH`` reads in flight; as one ends the next starts (a batch was once waited for whole,
    so one slow file held back the reads after it); a read that fails is named, once."""
    from relayscope.web import shelf as SH

    async def run() -> None:
        gate = asyncio.Event()
        slow = HeldFile(b'{"type":"user"}\n', gate)
        bad = HeldFile(b"x" * 10, fails=True)
        rest = [HeldFile(b'{"type":"user","n":%d}\n' % k) for k in range(3 * SH.BATCH)]
        jobs = [("slow.jsonl", SH._Peeking(slow)), ("bad.jsonl", SH._Peeking(bad))] + [
            (f"f{k}.jsonl", SH._Peeking(f)) for k, f in enumerate(rest)]
        got: dict[str, object] = {}
        async for part in SH._batched(jobs, lambda _: True):
            got.update(part)
            if len(got) == len(jobs) - 1:  # every read but the slow one has ended, the slow one still waiting
                assert "slow.jsonl" not in got and all(f.started == 1 for f in rest)
                gate.set()
        assert set(got) == {p for p, _ in jobs}
        assert got["bad.jsonl"] == "could not be read: the disk said no"
        assert all(got[f"f{k}.jsonl"].head == f.data for k, f in enumerate(rest))  # type: ignore[attr-defined]

    asyncio.run(asyncio.wait_for(run(), 10))
