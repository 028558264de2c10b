"""loads: an input is classified once (which files are read, which are text, one text or
several files) before it is read; the one load path reads whatever it is."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from relayscope.web.loads import Text, _main_elsewhere, classify
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


def test_a_folder_of_sub_agents_only_is_told_where_the_main_file_is() -> None:
    note = _main_elsewhere(["29cc/subagents/agent-a.jsonl", "29cc/subagents/agent-b.jsonl"])
    assert note is not None and "29cc.jsonl" in note and "29cc/subagents/" in note
    assert _main_elsewhere(["proj/29cc.jsonl", "proj/29cc/subagents/agent-a.jsonl"]) is None
    assert _main_elsewhere(["proj/29cc.jsonl"]) is None
    assert "two levels up" in (_main_elsewhere(["subagents/agent-a.jsonl"]) or "")
