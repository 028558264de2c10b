"""watch: a look at the watched files that is still awaiting them when another watch begins gives
up at its next await: it reads nothing into the new watch (its offsets, its handle, its rows)."""

from __future__ import annotations

from typing import Any

from test_web_loads import run

from relayscope.web.watch import Watcher

DATA = b'{"type":"system","subtype":"init"}\n'


class _File:
    def __init__(self, data: bytes) -> None:
        self.data, self.size = data, len(data)

    async def read(self, start: int, end: int) -> bytes:
        return self.data[start:end]


class _NewFile:
    """The handle of the watch begun meanwhile: a file, with no listing."""
    kind, name = "file", "new.jsonl"

    async def file(self) -> _File:
        return _File(DATA)


class _Switching:
    """An old watch's file: awaiting it, another watch begins (as ``Watcher.begin`` and ``_reset``
    set it)."""
    kind, name = "file", "old.jsonl"

    def __init__(self, w: Any) -> None:
        self.w = w

    async def file(self) -> _File:
        self.w.generation += 1
        self.w.handle, self.w.name, self.w.folder = _NewFile(), "new.jsonl", False
        self.w.offsets, self.w.handles = {}, {}
        return _File(DATA * 3)


def watcher(folder: bool) -> tuple[Any, list[dict[str, bytes]]]:
    w: Any = Watcher.__new__(Watcher)  # no page: only what a look reads and writes
    applied: list[dict[str, bytes]] = []

    async def apply(changes: dict[str, bytes]) -> None:
        applied.append(changes)
    w.apply = apply
    w.generation, w.folder, w.backlog, w.presented = 1, folder, False, True
    w.offsets, w.handles = {}, {}
    old = _Switching(w)
    if folder:
        w.handle, w.name = None, "old"
        w.handles = {"old/old.jsonl": old}

        class _Folder:
            kind, name = "directory", "old"

            async def listing(self) -> list[tuple[str, Any]]:
                return [("old.jsonl", old)]
        w.handle = _Folder()
    else:
        w.handle, w.name = old, "old.jsonl"
    return w, applied


def test_a_file_s_look_gives_up_when_another_watch_begins() -> None:
    w, applied = watcher(folder=False)
    run(w.look(1))
    assert applied == [] and w.offsets == {} and w.name == "new.jsonl"


def test_a_folder_s_look_gives_up_when_another_watch_begins() -> None:
    w, applied = watcher(folder=True)
    run(w.look(1))  # the old code listed the new watch's handle (a file: no listing)
    assert applied == [] and w.offsets == {} and w.handles == {}
