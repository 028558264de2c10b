"""loads: an input is classified once (which files are read, which are text, one text or
several files) before it is read; the one load path reads whatever it is."""

from __future__ import annotations

import asyncio
import io
import zipfile
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from relayscope import sharefile
from relayscope.web.host import Slice, SliceReader
from relayscope.web.loads import READ_BYTES, Text, _main_elsewhere, classify
from relayscope.web.protocol import Picked

TEXT = b'{"type":"system","subtype":"init"}\n'
BINARY = b"\x89PNG\r\n\x1a\n\x00\x00" * 10
T = TypeVar("T")


def run(work: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on a loop of its own in a thread of its own: the browser tests in the same
    pytest process hold Playwright's loop on the main thread, where asyncio.run would refuse."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()


def picked(**files: bytes) -> list[Picked]:
    return [Picked(name.replace("__", "/").replace("_", "."), Text(data)) for name, data in files.items()]


def test_a_folder_s_files_are_read_by_the_folder_rule_and_each_named_when_left_out() -> None:
    found = run(classify(picked(s__a_jsonl=TEXT, s__notes_txt=TEXT, s__b_sse=TEXT), folder=True))
    assert [p.name for p in found.parts] == ["s/a.jsonl", "s/b.sse"] and found.skipped == ["s/notes.txt"]
    assert found.notes == ["Skipped 1 file(s) that are not transcripts by name: s/notes.txt"]


def test_files_named_on_their_own_are_read_whatever_their_name() -> None:
    found = run(classify(picked(notes_txt=TEXT), folder=False))
    assert [p.name for p in found.parts] == ["notes.txt"] and found.skipped == []


def test_a_file_that_is_not_text_is_left_out_and_says_why() -> None:
    found = run(classify(picked(a_jsonl=TEXT, b_jsonl=BINARY), folder=False))
    assert [p.name for p in found.parts] == ["a.jsonl"] and found.notes == ["Skipped binary file(s): b.jsonl"]
    alone = run(classify(picked(b_jsonl=BINARY), folder=False))
    assert alone.parts == [] and alone.binary is not None and alone.binary.startswith("b.jsonl is binary")


def test_a_text_in_memory_is_read_a_slice_at_a_time_as_a_file_is() -> None:
    data = bytes(range(256)) * 10

    async def read() -> bytes:
        reader, out = Text(data).slices(1000), bytearray()
        while len(out) < len(data):
            piece = await reader.next()
            chunk = bytearray(len(piece))
            piece.copy_into(chunk)
            out += chunk
        return bytes(out)

    assert run(read()) == data


class Counted:
    """A picked file that counts how it is read: reads of a range, and slices read ahead."""

    def __init__(self, data: bytes) -> None:
        self.text, self.reads, self.slices_read, self.closed = Text(data), 0, 0, 0

    @property
    def size(self) -> int:
        return self.text.size

    async def read(self, start: int = 0, end: int | None = None) -> bytes:
        self.reads += 1
        return await self.text.read(start, end)

    def slices(self, size: int) -> SliceReader:
        inner, outer = self.text.slices(size), self

        class Reader:
            async def next(self) -> Slice:
                outer.slices_read += 1
                return await inner.next()

            def close(self) -> None:
                outer.closed += 1

        return Reader()


def test_a_file_alone_is_read_once_its_first_slice_telling_text_from_binary_and_starting_its_load() -> None:
    data = TEXT * (READ_BYTES // len(TEXT) + 10)  # more than one slice
    file = Counted(data)
    found = run(classify([Picked("a.jsonl", file)], folder=False))
    (part,) = found.parts
    assert file.reads == 0 and file.slices_read == 1  # no read of its own for the first 8 KiB
    assert part.opened is not None and part.opened.first == data[:READ_BYTES]
    assert run(part.opened.head()) == data[:READ_BYTES] and file.slices_read == 1  # the same slice, kept
    assert set(part.opened.timed) == {"read", "copy"}  # for the load's own account
    binary = Counted(BINARY)
    assert run(classify([Picked("b.jsonl", binary)], folder=False)).parts == []
    assert binary.closed == 1  # not text: its reading ends there
    several = [Counted(TEXT), Counted(TEXT)]
    found = run(classify([Picked("s/a.jsonl", several[0]), Picked("s/b.jsonl", several[1])], folder=True))
    assert [p.opened for p in found.parts] == [None, None]  # several files are read whole, later
    assert [(f.reads, f.slices_read) for f in several] == [(1, 0), (1, 0)]


def test_a_folder_of_sub_agents_only_is_told_where_the_main_file_is() -> None:
    note = _main_elsewhere(["29cc/subagents/agent-a.jsonl", "29cc/subagents/agent-b.jsonl"])
    assert note is not None and "29cc.jsonl" in note and "29cc/subagents/" in note
    assert _main_elsewhere(["proj/29cc.jsonl", "proj/29cc/subagents/agent-a.jsonl"]) is None
    assert _main_elsewhere(["proj/29cc.jsonl"]) is None
    assert "two levels up" in (_main_elsewhere(["subagents/agent-a.jsonl"]) or "")


def test_a_shareable_file_is_known_by_its_bytes_and_gives_its_files_and_view() -> None:
    data = sharefile.pack({"run.jsonl": TEXT, "run/subagents/agent-1.jsonl": TEXT}, {"strategy": "index", "step": "3"})
    found = run(classify([Picked("renamed.bin", Text(data))], folder=False))
    assert found.shared is not None and found.shared.problem == "" and found.binary is None
    assert [p.name for p in found.parts] == ["run.jsonl", "run/subagents/agent-1.jsonl"]
    assert (found.shared.view.strategy, found.shared.view.step) == ("index", 3)


def test_a_shareable_file_cut_short_names_itself_what_is_wrong_and_what_is_missing() -> None:
    noise = b"".join(b'{"n":"%032x"}\n' % (k * 2654435761 % 2**128) for k in range(4000))  # compresses little
    data = sharefile.pack({"a.jsonl": TEXT * 400, "b.jsonl": noise})
    found = run(classify([Picked("cut.relayscope.zip", Text(data[:len(data) * 2 // 3]))], folder=False))
    assert found.shared is not None
    problem = found.shared.problem
    assert problem.startswith("cut.relayscope.zip is not a whole shareable file (")
    assert "cut short" in problem and "Missing or incomplete: b.jsonl" in problem
    assert [p.name for p in found.parts] == ["a.jsonl", "b.jsonl"]  # b's complete lines are kept
    assert found.parts[1].size < len(noise)


def test_a_foreign_zip_gives_no_parts_and_says_so() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("photo.png", b"\x89PNG")
    found = run(classify([Picked("holiday.zip", Text(buffer.getvalue()))], folder=False))
    assert found.shared is not None and not found.parts
    assert "holiday.zip" in found.shared.problem and "another tool" in found.shared.problem
