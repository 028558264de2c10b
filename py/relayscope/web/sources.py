"""sources: where a transcript comes from (app.py's input sources).

Text pasted (analyzed PASTE_DELAY_MS after the last keystroke), files and folders picked or
dropped, a URL (``?src=``), an example, a share link, and what the page's address asked for when
it opened: each becomes one load of the controller (``app.load``, or for one file ``load_file``
here, a slice at a time) and then ``app.show``. Which files of a folder can be transcripts is
decided here, by name; whether their bytes are text, by the model (``binary_reason``).

Must not: draw the workspace (app.py does), or fetch anything but what the user named (examples
and ``?src=`` are fetched with the worker's ``fetch``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from ..intake import binary_reason, read_in_folder
from .model import EXAMPLES, Workspace, decode_share
from .remote import WINDOW as window
from .remote import read_ahead
from .urlstate import query_dict, view_from

PASTE_DELAY_MS = 300
READ_BYTES = 4 << 20  # a file is read and translated this much at a time (Sources.load_file)
# The first screen of rows is drawn once this much of a big file is translated, before the rest
# is (issue 18): a slice this size holds a few hundred relays of any real capture.
FIRST_BYTES = 256 << 10


class Sources:
    def __init__(self, app: Any) -> None:
        self.app = app  # the controller (app.App): loads, shows, fails
        self.jobs = app.jobs
        self.els = app.els

    def initial_input(self) -> None:
        """What the URL or the user (while Python booted) asked for, in this order: a share link,
        ``?src=``, ``?example=``, files picked, text pasted."""
        app = self.app
        params = query_dict(str(window.location.search))
        view = view_from(params)
        fragment = str(window.location.hash)[1:]
        if fragment.startswith("file="):  # a view of a transcript too large for a link
            try:
                app.links.expect(fragment, view)
            except ValueError as exc:
                app.fail(str(exc))
            return
        if fragment.startswith("v1."):
            try:
                text, shared = decode_share(fragment)
            except ValueError as exc:
                app.fail(str(exc))
                return
            merged = {**view_from({k: str(v) for k, v in shared.items()}), **view}
            name = str(shared.get("name") or "shared transcript")
            self.jobs.spawn(app.load(text, name=name, source={"kind": "share"}, view=merged))
        elif params.get("src"):
            src = params["src"]

            def fetch() -> Coroutine[Any, Any, None]:
                return self.load_url(src, {"kind": "src", "src": src}, view)

            if app.links.needs_consent(src):  # another site: say which, fetch only on consent
                app.links.ask_src(src, fetch)
            else:
                self.jobs.spawn(fetch())
        elif params.get("example"):
            self.jobs.spawn(self.load_example(params["example"], view))
        elif self.els["file-input"].files.length or self.els["folder-input"].files.length:
            which = "file-input" if self.els["file-input"].files.length else "folder-input"
            self.on_files(which)
        elif str(self.els["paste-input"].value).strip():
            self.on_analyze_paste()

    # -- what the reader does ------------------------------------------------------------------------

    def on_paste_input(self, _event: Any) -> None:
        if not str(self.els["paste-input"].value).strip():
            return
        self.jobs.set_state("analyzing")  # a paste is on its way: nobody may read the old "done"
        self.jobs.later("paste", PASTE_DELAY_MS, self.on_analyze_paste)

    def on_analyze_paste(self) -> None:
        app = self.app
        text = str(self.els["paste-input"].value)
        if not text.strip():
            still = f" The view below still shows {app.ws.name or 'the last input'}." if app.ws else ""
            app.notice([f"The text area is empty: there is nothing to analyze. Paste a transcript first.{still}"])
            self.jobs.set_state("done" if app.ws else "ready")
            return
        self.jobs.set_state("analyzing")
        self.jobs.spawn(app.load(text, name="pasted text", source={"kind": "paste"}))

    def on_files(self, which: str) -> None:
        el = self.els[which]
        files = el.files
        items = [(str(f.webkitRelativePath or f.name), f) for f in (files.item(i) for i in range(files.length))]
        if not items:
            return
        self.jobs.set_state("analyzing")
        self.jobs.spawn(self.load_files(items, folder=which == "folder-input"))

    def on_drop(self, result: Any) -> None:
        app = self.app
        if result.error:
            app.fail(f"Could not read what was dropped: {result.error}")
            return
        items = [(str(it.path), it.file) for it in result.list]
        if not items:
            app.notice(["Nothing readable was dropped (an empty folder?)."])
            self.jobs.set_state("done" if app.ws else "ready")
            return
        self.jobs.set_state("analyzing")
        self.jobs.spawn(self.load_files(items, folder=any("/" in path for path, _ in items)))

    # -- reading ---------------------------------------------------------------------------------------

    async def load_files(self, items: list[tuple[str, Any]], folder: bool) -> None:
        app = self.app
        skipped = [p for p, _ in items if folder and not read_in_folder(p)]
        keep = [(p, f) for p, f in items if p not in skipped]
        if not keep:
            self.jobs.set_state("done" if app.ws else "ready")
            app.notice([f"None of the {len(items)} file(s) can be a transcript (by name): "
                        + ", ".join(skipped[:20]) + (" …" if len(skipped) > 20 else "")])
            return
        notes = []
        if folder and (lost := _main_elsewhere([p for p, _ in keep])):
            notes.append(lost)
        if skipped:
            notes.append(f"Skipped {len(skipped)} file(s) that are not transcripts by name: "
                         + ", ".join(skipped[:20]) + (" …" if len(skipped) > 20 else ""))
        for which in ("file-input", "folder-input"):
            self.els[which].value = ""  # the same file can be opened again
        if len(keep) == 1:
            path, f = keep[0]
            await self.load_file(f, name=path, source={"kind": "files"}, notes=notes)
            return
        run = self.jobs.begin(f"Reading {len(keep)} files…")
        data: dict[str, bytes] = {}
        for path, f in keep:
            buffer = await f.arrayBuffer()
            data[path] = buffer.to_bytes()
            await asyncio.sleep(0)  # copying 50 MB is a task of its own
            if run != self.jobs.run:
                return
        top = {p.split("/", 1)[0] for p in data}
        name = f"{next(iter(top))}/ ({len(data)} files)" if len(top) == 1 and folder else f"{len(data)} files"
        await app.load(data, name=name, source={"kind": "files"}, notes=notes, run=run)

    async def load_file(self, f: Any, *, name: str, source: dict[str, str], notes: list[str]) -> None:
        """One file, read and translated a slice (READ_BYTES) at a time: neither the file's bytes
        nor a copy of them is ever held whole (a 600 MB file peaked at 1.5 GB of memory read
        whole, 0.85 GB so), and the next slices are read (by a worker of their own, see
        read_ahead) while this one is translated."""
        app, jobs = self.app, self.jobs
        run = jobs.begin(f"Reading {name}…")
        size = int(f.size)
        ws = Workspace()
        ws.start_load(name=name, strategy=app.state.strategy, size=size)
        reader = read_ahead(f, READ_BYTES)
        # One buffer every slice is copied into (load_more keeps nothing of it): memory already
        # touched, where a new 4 MiB bytes object each time lands in memory the heap had to grow
        # (a page fault per 4 KiB: that copy cost ~70 ms for 50 MB, this one ~10)
        slot = bytearray(min(READ_BYTES, max(size, 1)))
        mark = jobs.mark()
        try:
            for at in range(0, max(size, 1), READ_BYTES):
                try:
                    buffer = await reader.next()
                except Exception as exc:  # the browser's read failed: the file changed or went away
                    if run == jobs.run:
                        app.fail(f"Could not read {name} (at byte {at:,}): {exc}. Was it changed or "
                                 "removed while it was read? Open it again.")
                    return
                mark = jobs.timed("read", mark)  # waiting for the browser to read it
                n = int(buffer.byteLength)
                chunk = slot if n == len(slot) else bytearray(n)  # the last slice is shorter
                buffer.assign_to(chunk)  # into Python's memory, the same for every slice
                mark = jobs.timed("copy", mark)
                if run != jobs.run:
                    return
                if at == 0 and (reason := binary_reason(name, chunk, size)) is not None:
                    app.not_text(run, reason)
                    return
                if at == 0 and size > READ_BYTES:  # a big file: its first rows at once, then the rest
                    if not await jobs.drive(ws.load_more(chunk[:FIRST_BYTES]), run, f"Translating {name}…"):
                        return
                    app.first_rows(ws, run)
                    chunk = chunk[FIRST_BYTES:]  # a copy, once per file
                if not await jobs.drive(ws.load_more(chunk), run, f"Translating {name}…"):
                    return
                mark = jobs.timed("translate", mark)
        finally:
            reader.close()
        if not await jobs.drive(ws.end_load(), run, f"Translating {name}…"):
            return
        jobs.timed("lookups", mark)
        await app.show(ws, run, name=name, size=size, source=source, view={}, notes=notes)

    async def fetch_bytes(self, url: str) -> bytes:
        response = await window.fetch(url)
        if not response.ok:
            raise OSError(f"{url}: HTTP {response.status}")
        return (await response.arrayBuffer()).to_bytes()  # type: ignore[no-any-return]

    async def load_url(self, url: str, source: dict[str, str], view: dict[str, Any] | None = None) -> None:
        self.jobs.set_state("analyzing")
        self.jobs.status(f"Fetching {url}…")
        try:
            data = await self.fetch_bytes(url)
        except Exception as exc:
            self.app.fail(f"Could not fetch {url}: {getattr(exc, 'message', None) or exc}")
            return
        name = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or url
        await self.app.load(data, name=name, source=source, view=view)

    async def load_example(self, example_id: str, view: dict[str, Any] | None = None) -> None:
        ex = next((x for x in EXAMPLES if x.id == example_id), None)
        if ex is None:
            self.app.fail(f"There is no example called {example_id!r}.")
            return
        view = dict(view or {})
        view.setdefault("strategy", ex.strategy)
        await self.load_url(ex.path, {"kind": "example", "example": ex.id}, view)


def _main_elsewhere(paths: list[str]) -> str | None:
    """A folder of sub-agents' transcripts only (``SESSION/subagents/agent-*.jsonl``, with no
    ``SESSION.jsonl`` among the files): where the main session's file is, to open instead."""
    subs = [p for p in paths if "/subagents/" in f"/{p}"]
    if not subs or len(subs) != len(paths):
        return None
    head = f"/{subs[0]}".split("/subagents/", 1)[0].strip("/")
    session = head.rsplit("/", 1)[-1]
    where = (f"the main agent's file, {session}.jsonl, sits next to the folder {session}/, one level up"
             if session else "the main agent's file, SESSION.jsonl, sits two levels up, next to the session's folder")
    return (f"This folder holds only the sub-agents' transcripts ({len(subs)} file(s) in {head + '/' if head else ''}"
            f"subagents/): {where}. Open the folder that holds it instead, to see the main agent and the call "
            "that started each sub-agent.")

