"""loads: the one way an input reaches the screen, whatever it came from (sources.py).

Theory of operation
-------------------
An input is classified once (``classify``): files that are not read by the folder rule
(intake.read_in_folder, the one the CLI and ``--follow`` use) are left out and named; each file
left is looked at once for being text at all (intake.binary_reason, on its first bytes: of a
file alone, its first slice as its load reads it, read once for both); what remains is one text
or several files, decided there and nowhere else. A file that is a
shareable file (``sharefile.is_sharefile`` on its first bytes: a zip, whatever its name) is read
whole and unpacked there: its files are the input, its view is the view asked for (under what the
address asks), and what is wrong with it (damaged, cut short, a foreign zip) is said in one
message beside what it does hold, with the files it lists but could not give.

* One text (a file, a paste, a URL's body, a share link's transcript) is read a slice
  (``READ_BYTES``) at a time into one buffer and translated as it comes (``Workspace.load_more``:
  its lines are split once, there): neither a big file's bytes nor a copy of them is ever held
  whole, and the browser reads the next slices meanwhile. A text bigger than one slice shows its
  first rows once its first ``FIRST_BYTES`` are translated, before the rest.
* Several files are read whole and translated together (sessions and their sub-agents).

Then ``show``: audited if small, the view the address or a link asked for, notes, and the screen
(screen.py). ``replaced`` tells whoever held to the last input (the link, "Redact", a watch, the
strategy's way back). Each step runs as a job (jobs.py), a slice at a time.

Must not: draw the workspace (screen.py does), or fetch anything but what the reader named.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Final

import msgspec

from .. import sharefile
from ..intake import binary_reason, read_in_folder
from . import panels, reading
from .dom import fmt_int, show
from .host import Host, PageFile, Slice, SliceReader
from .jobs import Jobs
from .links import Links
from .model import EXAMPLES, Workspace
from .notices import Notices
from .protocol import Drop, Picked
from .remote import DOCUMENT as document
from .remote import PAGE
from .remote import WINDOW as window
from .screen import Screen
from .view import Address, Asked, Shown, Signal, Source, ViewState, view_from

AUTO_AUDIT_BYTES: Final = 2_000_000  # inputs up to this size are audited right away; larger on request
READ_BYTES: Final = 4 << 20  # a text is read and translated this much at a time
# The first screen of rows is drawn once this much of a big text is translated, before the rest:
# a slice this size holds a few hundred relays of any real capture.
FIRST_BYTES: Final = 256 << 10
HEAD_BYTES: Final = 8192  # read of each file to tell text from binary
LISTED: Final = 20  # file names listed in a note
IDS: Final = ("paste-input", "file-input", "folder-input", "source", "examples-box", "audit-table", "run-audit",
              "audit-body", "audit-notes")


class Part(msgspec.Struct, frozen=True):
    """One text of an input: its name, its size, how to read it, and its reading already begun
    (``opened``: its first slice read to tell text from binary), if it was."""

    name: str
    size: int
    file: PageFile
    opened: Opened | None = None


class Opened:
    """A text read a slice at a time (``READ_BYTES``), each slice copied into one buffer that
    the next one fills again (the load keeps nothing of it). The first slice may be read before
    the load (``head``: what tells text from binary) and is then the load's first, not read
    twice (a read of its own came 3-4 ms before the first slice could be asked for); the load's
    job then counts from ``began``, that read and copy in its account (``timed``)."""

    def __init__(self, file: PageFile, size: int) -> None:
        self.began = time.perf_counter()
        self.timed: dict[str, float] = {}  # the first slice's read and copy (s), when read by ``head``
        self.reader = file.slices(READ_BYTES)
        # One buffer every slice is copied into: memory already touched, where a new 4 MiB bytes
        # object each time lands in memory the heap had to grow (a page fault per 4 KiB: that
        # copy cost ~70 ms for 50 MB, this one ~10)
        self.slot = bytearray(min(READ_BYTES, max(size, 1)))
        self.first: bytearray | None = None  # the first slice, read and copied, not yet loaded

    async def head(self) -> bytearray:
        """The first slice, in Python's memory (read now, unless it was); the load's first."""
        if self.first is None:
            start = time.perf_counter()
            piece = await self.reader.next()
            read = time.perf_counter()
            self.first = self.copy(piece)
            self.timed = {"read": read - start, "copy": time.perf_counter() - read}
        return self.first

    async def next(self) -> Slice:
        return await self.reader.next()

    def copy(self, piece: Slice) -> bytearray:
        """``piece`` in Python's memory: the one buffer (a shorter last slice, a buffer of its own)."""
        chunk = self.slot if len(piece) == len(self.slot) else bytearray(len(piece))
        piece.copy_into(chunk)
        return chunk

    def close(self) -> None:
        self.first = None
        self.reader.close()


class Text:
    """Bytes already in memory (a paste, a URL's body), read as a file is."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    @property
    def size(self) -> int:
        return len(self.data)

    async def read(self, start: int = 0, end: int | None = None) -> bytes:
        return self.data[start:end]

    def slices(self, size: int) -> SliceReader:
        return _Slices(memoryview(self.data), size)


class _Slice:
    def __init__(self, view: memoryview) -> None:
        self.view = view

    def __len__(self) -> int:
        return len(self.view)

    def copy_into(self, out: bytearray) -> None:
        out[:] = self.view


class _Slices:
    def __init__(self, view: memoryview, size: int) -> None:
        self.view, self.size, self.at = view, size, 0

    async def next(self) -> Slice:
        part = self.view[self.at:self.at + self.size]
        self.at += self.size
        return _Slice(part)

    def close(self) -> None:
        pass  # nothing read ahead


class Classified(msgspec.Struct):
    """An input after ``classify``: its texts, why any was left out, and the first such reason."""

    parts: list[Part] = msgspec.field(default_factory=list)
    skipped: list[str] = msgspec.field(default_factory=list)  # a folder's files that are not read, by name
    notes: list[str] = msgspec.field(default_factory=list)
    binary: str | None = None  # why the first file that is not text is not
    shared: Shared | None = None  # a shareable file's name, view and problems, when one was opened


class Shared(msgspec.Struct, frozen=True):
    """What a shareable file said of itself once unpacked."""

    name: str
    view: Asked
    problem: str  # one message naming what is wrong; "" when nothing is


def _shared(name: str, opened: sharefile.Opened) -> tuple[Shared, list[Part]]:
    """A shareable file's files as parts, and what it said: its view, and what is wrong in one
    message that names the file, each problem, and which of its files are missing."""
    parts = [Part(path, len(data), Text(data)) for path, data in opened.files.items()]
    problem = ""
    if opened.issues:
        listed = "; ".join(str(i) for i in opened.issues[:LISTED]) + (" …" if len(opened.issues) > LISTED else "")
        held = (f"the {len(parts)} file(s) it does hold are shown" if parts else "nothing in it could be shown")
        missing = (f" Missing or incomplete: {_listed(opened.missing)}." if opened.missing else "")
        problem = f"{name} is not a whole shareable file ({listed}): {held}.{missing}"
    return Shared(name, view_from(opened.view), problem), parts


def _listed(names: list[str]) -> str:
    return ", ".join(names[:LISTED]) + (" …" if len(names) > LISTED else "")


async def classify(items: list[Picked], folder: bool) -> Classified:
    """The one decision of what an input is: which files are read (a folder's by name), which
    are text; what is left is one text or several files."""
    out = Classified()
    out.skipped = skipped = [it.path for it in items if folder and not read_in_folder(it.path)]
    left_out = set(skipped)
    keep = [it for it in items if it.path not in left_out]
    if folder and (elsewhere := _main_elsewhere([it.path for it in keep])):
        out.notes.append(elsewhere)
    if skipped:
        out.notes.append(f"Skipped {len(skipped)} file(s) that are not transcripts by name: {_listed(skipped)}")
    binary: list[str] = []
    for it in keep:
        size = it.file.size
        opened = Opened(it.file, size) if len(keep) == 1 else None  # one text, read as its load reads it
        head = bytes((await opened.head())[:HEAD_BYTES]) if opened else await it.file.read(0, min(size, HEAD_BYTES))
        if out.shared is None and sharefile.is_sharefile(head[:4]):
            if opened:
                opened.close()
            out.shared, parts = _shared(it.path.rsplit("/", 1)[-1], sharefile.unpack(await it.file.read()))
            out.parts.extend(parts)
            continue
        reason = binary_reason(it.path, head, size)
        if reason is None:
            out.parts.append(Part(it.path, size, it.file, opened))
        else:
            if opened:
                opened.close()
            out.binary = out.binary or reason
            binary.append(it.path)
    if binary and out.parts:
        out.notes.append("Skipped binary file(s): " + ", ".join(binary))
    return out


class Loads:
    def __init__(self, view: ViewState, shown: Shown, jobs: Jobs, screen: Screen, links: Links,
                 notices: Notices, address: Address, host: Host) -> None:
        self.view, self.shown, self.jobs, self.screen, self.links = view, shown, jobs, screen, links
        self.notices, self.address, self.host = notices, address, host
        self.els = {name: document.element(name) for name in IDS}
        self.replaced: Signal[[]] = Signal()  # another input is shown: what held to the last one lets go
        # an input of several files is offered to the library first (library_view.Library.offer):
        # True when it makes several sessions, which are then listed instead of loaded
        self.offer: Callable[[list[Picked], Source, str], Awaitable[bool]] | None = None

    # -- what comes in --------------------------------------------------------------------------------

    def take_drops(self) -> None:
        """Files or a folder dropped on the page (those dropped while Python booted first)."""
        PAGE.subscribe(Drop, self.jobs.safe(self.on_drop))

    def on_drop(self, drop: Drop) -> None:
        if drop.error:
            self.jobs.fail(f"Could not read what was dropped: {drop.error}")
            return
        if not drop.files:
            self.notices.say(["Nothing readable was dropped (an empty folder?)."])
            self.jobs.set_state("done" if self.shown.ws else "ready")
            return
        self.jobs.set_state("analyzing")
        self.jobs.spawn(self.open_files(drop.files, folder=any("/" in p.path for p in drop.files)))

    async def open_files(self, items: list[Picked], folder: bool) -> None:
        """Files picked or dropped (a folder's, with their relative paths); several sessions
        among them are listed (the library), not loaded together."""
        if len(items) > 1 and self.offer is not None and await self.offer(items, Source("files"), _named(items)):
            for which in ("file-input", "folder-input"):
                self.els[which].value = ""
            return
        found = await classify(items, folder)
        for which in ("file-input", "folder-input"):
            self.els[which].value = ""  # the same file can be opened again
        if found.shared is not None:
            await self._open_shared(found, Source("files"), Asked())
            return
        if not found.parts and found.binary is None:
            self.jobs.set_state("done" if self.shown.ws else "ready")
            self.notices.say([f"None of the {len(items)} file(s) can be a transcript (by name): "
                              + _listed(found.skipped)])
            return
        source = Source("files")
        if len(found.parts) == 1:
            await self._one(found.parts[0], source, Asked(), found.notes)
        elif found.parts:
            await self._many(found.parts, folder, source, found.notes)
        else:
            self._not_text(self.jobs.begin(f"Reading {items[0].path}…"), found.binary or "", items[0].path)

    async def open_session(self, items: list[Picked], name: str, source: Source, view: Asked) -> None:
        """One session of a library (its files, as the core's rule gives them), loaded as if
        they had been opened by themselves, at ``view`` (a search's, from the library's)."""
        found = await classify(items, folder=True)
        if len(found.parts) == 1:
            await self._one(found.parts[0], source, view, found.notes)
        elif found.parts:
            await self._many(found.parts, True, source, found.notes, view=view, name=name)
        else:
            self._not_text(self.jobs.begin(f"Reading {name}…"), found.binary or f"{name}: no transcript to read", name)

    async def open_text(self, data: str | bytes, *, name: str, source: Source, view: Asked | None = None) -> None:
        """A text already in memory: a paste or a share link's transcript (text by construction),
        or a URL's body (bytes: looked at as a file is)."""
        if isinstance(data, str):
            # surrogatepass: text from JavaScript may hold lone surrogates (an emoji cut in half);
            # their bytes reach the translator, which reads them as U+FFFD with a warning
            content = data.encode("utf-8", "surrogatepass")
            await self._one(Part(name, len(content), Text(content)), source, view or Asked(), [])
            return
        found = await classify([Picked(name, Text(data))], folder=False)
        if found.shared is not None:
            await self._open_shared(found, source, view or Asked())
            return
        if not found.parts:
            self._not_text(self.jobs.begin(f"Reading {name}…"), found.binary or "", name)
            return
        await self._one(found.parts[0], source, view or Asked(), [])

    async def open_in_memory(self, files: dict[str, bytes], source: Source, view: Asked) -> None:
        """Files a link carried (``sharefile.decode_link``): one text, or several read together."""
        parts = [Part(path, len(data), Text(data)) for path, data in files.items()]
        if len(parts) == 1:
            await self._one(parts[0], source, view, [])
        elif parts:
            await self._many(parts, True, source, [], view=view, name=f"shared files ({len(parts)})")
        else:
            self.jobs.fail("This link carries no file.")

    async def open_url(self, url: str, source: Source, view: Asked | None = None) -> None:
        self.jobs.set_state("analyzing")
        self.jobs.status(f"Fetching {url}…")
        try:
            data = await self.host.fetch(url)
        except Exception as exc:
            self.jobs.fail(f"Could not fetch {url}: {getattr(exc, 'message', None) or exc}")
            return
        name = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or url
        await self.open_text(data, name=name, source=source, view=view)

    async def open_example(self, example_id: str, view: Asked | None = None) -> None:
        ex = next((x for x in EXAMPLES if x.id == example_id), None)
        if ex is None:
            self.jobs.fail(f"There is no example called {example_id!r}.")
            return
        asked = view or Asked()
        await self.open_url(ex.path, Source("example", example=ex.id), asked.over(Asked(strategy=ex.strategy)))

    async def _open_shared(self, found: Classified, source: Source, view: Asked) -> None:
        """A shareable file: its files as one input, at its view (what the address asks for
        first), in one action; what is wrong with it said beside what it holds."""
        shared = found.shared
        assert shared is not None
        notes = [n for n in (shared.problem, *found.notes) if n]
        asked = view.over(shared.view)
        if not found.parts:  # nothing to show: the one message, as an error
            message = " ".join(notes) or f"{shared.name} holds no transcript."
            if self.shown.ws is not None:  # what is shown stays
                self._kept(self.jobs.begin(f"Reading {shared.name}…"), shared.name, message, failed=True)
                return
            self.screen.clear()
            self.jobs.fail(message)
            return
        if len(found.parts) == 1:
            await self._one(found.parts[0], source, asked, notes, problem=bool(shared.problem))
        elif self.offer is not None and await self.offer([Picked(p.name, p.file) for p in found.parts], source,
                                                         shared.name):
            if notes:
                self.notices.say(notes, error=bool(shared.problem))
        else:
            await self._many(found.parts, True, source, notes, view=asked,
                             name=f"{shared.name} ({len(found.parts)} files)", problem=bool(shared.problem))

    # -- reading ---------------------------------------------------------------------------------------

    async def _one(self, part: Part, source: Source, view: Asked, notes: list[str], problem: bool = False) -> None:
        """One text, read and translated a slice at a time: neither its bytes nor a copy of them
        is ever held whole (a 600 MB file peaked at 1.5 GB of memory read whole, 0.85 GB so), and
        the next slices are read meanwhile."""
        jobs, name, size = self.jobs, part.name, part.size
        opened = part.opened or Opened(part.file, size)
        run = jobs.begin(f"Reading {name}…", began=opened.began)  # its first slice read, if it was, is the job's
        for what, seconds in opened.timed.items():
            jobs.count(what, seconds)
        ws = Workspace()
        ws.start_load(name=name, strategy=view.strategy or self.view.strategy, size=size)
        mark = jobs.mark()
        try:
            for at in range(0, max(size, 1), READ_BYTES):
                if at == 0 and opened.first is not None:  # read already, to tell text from binary
                    chunk, opened.first = opened.first, None
                else:
                    try:
                        piece = await opened.next()
                    except Exception as exc:  # the browser's read failed: the file changed or went away
                        if run == jobs.run:
                            jobs.fail(f"Could not read {name} (at byte {at:,}): {exc}. Was it changed or "
                                      "removed while it was read? Open it again.")
                        return
                    mark = jobs.timed("read", mark)  # waiting for the browser to read it
                    chunk = opened.copy(piece)
                    mark = jobs.timed("copy", mark)
                if run != jobs.run:
                    return
                if at == 0 and size > READ_BYTES:  # a big text: its first rows at once, then the rest
                    if not await jobs.drive(ws.load_more(chunk[:FIRST_BYTES]), run, f"Translating {name}…"):
                        return
                    # never over what is shown unless a transcript (so_far: the relays translated yet)
                    if self.shown.ws is None or (ws.so_far() and ws.not_a_transcript() is None):
                        self.screen.first_rows(ws, run)
                    chunk = chunk[FIRST_BYTES:]  # a copy, once per input
                # a slice after the first was awaited just now, a turn of the event loop: no other
                # before its translation (the first's, the job begun or its first rows drawn, ends
                # its task: their ops go to the page first)
                if not await jobs.drive(ws.load_more(chunk), run, f"Translating {name}…", fresh=at > 0):
                    return
                mark = jobs.timed("translate", mark)
        finally:
            opened.close()
        if not await jobs.drive(ws.end_load(), run, f"Translating {name}…"):
            return
        jobs.timed("lookups", mark)
        await self.show(ws, run, name=name, size=size, source=source, view=view, notes=notes, problem=problem)

    async def _many(self, parts: list[Part], folder: bool, source: Source, notes: list[str],
                    view: Asked | None = None, name: str = "", problem: bool = False) -> None:
        """Several files, read whole, translated together."""
        run = self.jobs.begin(f"Reading {len(parts)} files…")
        data: dict[str, bytes] = {}
        for part in parts:
            data[part.name] = await part.file.read()
            await asyncio.sleep(0)  # copying 50 MB is a task of its own
            if run != self.jobs.run:
                return
        top = {p.split("/", 1)[0] for p in data}
        name = name or (f"{next(iter(top))}/ ({len(data)} files)" if len(top) == 1 and folder else f"{len(data)} files")
        view = view or Asked()
        ws = Workspace()
        mark = self.jobs.mark()
        if not await self.jobs.drive(ws.load(data, name=name, strategy=view.strategy or self.view.strategy), run,
                                     f"Translating {name}…"):
            return
        self.jobs.timed("translate", mark)
        await self.show(ws, run, name=name, size=sum(p.size for p in parts), source=source, view=view, notes=notes,
                        problem=problem)

    def _not_text(self, run: int, reason: str, name: str = "") -> None:
        """Binary input: one message. Over an input shown, that one stays as it was (``_kept``);
        else no timeline, nothing of an earlier input left on screen."""
        if self.shown.ws is not None:
            self._kept(run, name, reason)
            return
        self.screen.clear()
        self.notices.say([reason], error=True)
        self.jobs.end(run, "Nothing analyzed")

    def _kept(self, run: int, name: str, reason: str, failed: bool = False) -> None:
        """An input refused (binary, empty, no transcript, a shareable file holding nothing) while
        another is shown: the one shown stays as it was (its rows, selection, lanes, filters, the
        address), and a notice says why, naming what was refused; ``failed``: the job ends in
        "error", as it does with nothing shown."""
        ws = self.shown.ws
        assert ws is not None
        named = f"{name} was not opened. " if name and name not in reason else ""
        self.notices.say([f"{named}{reason}", f"Still shown, as it was: {ws.name or 'the last input'}."], error=True)
        self.jobs.end(run, f"Not opened: {name or 'the input'}")
        if failed and run == self.jobs.run:
            self.jobs.set_state("error")

    # -- the end of every load -------------------------------------------------------------------------

    async def show(self, ws: Workspace, run: int, *, name: str, size: int, source: Source, view: Asked,
                   notes: list[str], problem: bool = False) -> None:
        """A translated input on screen (audited first if small); ``problem``: the first note says
        what is wrong with the input (a damaged shareable file), shown as an error."""
        mark = self.jobs.mark()
        await asyncio.sleep(0)  # the model's last slice ends its task; the check below is a pass of its own
        refused = ws.not_a_transcript()
        await asyncio.sleep(0)
        if run != self.jobs.run:
            return
        if refused and self.shown.ws is not None and self.shown.ws is not ws:  # what is shown stays
            self._kept(run, name, refused)
            return
        if size <= AUTO_AUDIT_BYTES:
            if not await self.jobs.drive(ws.run_audit(), run, "Auditing every strategy…"):
                return
            mark = self.jobs.timed("audit", mark)
        self.shown.ws, self.shown.size, self.shown.open_groups = ws, size, set()
        view, link_note = self.links.match_pending(ws, view)
        if link_note:
            notes = [*notes, link_note]
        self.replaced.emit()
        if source.kind != "paste":  # the old paste is not what is shown any more
            self.els["paste-input"].value = ""
        self._take(view, source)
        if source.kind != "share" and str(window.location.hash):
            self.address.drop_fragment()
        not_transcript = refused
        await asyncio.sleep(0)
        if run != self.jobs.run:
            return
        notes = [not_transcript, *notes] if not_transcript else list(notes)
        if ws.audit_error:
            notes.append(ws.audit_error)
        self.notices.say(notes, error=bool(not_transcript or ws.audit_error or problem))
        fmt = "" if not_transcript else f" · {ws.format or '?'}"  # no format for what is not a transcript
        self.els["source"].textContent = f"{name} · {fmt_int(size)} bytes{fmt}"
        if source.kind == "example" and self.els["examples-box"].open:
            document.element("timeline").focus()  # the card clicked is folded away with the gallery: focus to the rows
        self.els["examples-box"].open = False  # the rows, not the gallery, take the screen
        if not await self.screen.present(run, step=max(0, (view.step or 1) - 1), row=view.row):
            return
        if not_transcript:  # one message says it: no rows of errors, no count of "relay events"
            show(document.element("errors"), False)
            show(document.element("workspace"), False)
            self.jobs.end(run, not_transcript)
            return
        if source.kind == "example" and view.step is None and view.row is None:
            self.screen.focus_example(source.example)
        self.jobs.timed("draw", mark)  # the checks, the panels and the first screen of rows
        self.jobs.end(run, f"{fmt_int(len(ws.relays))} relay events from {fmt_int(ws.step_count())} lines")

    def _take(self, view: Asked, source: Source) -> None:
        """The view state of a new input: what the address or link asked for, else the defaults."""
        st, ws = self.view, self.shown.ws
        assert ws is not None
        types = set(view.types or [])
        st.strategy, st.source = ws.strategy, source
        st.text, st.lane = view.text or "", view.lane or ""
        st.xtypes = {t[1:] for t in types if t.startswith("-")}
        st.types = {t for t in types if not t.startswith("-")}
        st.bookkeeping = bool(view.bookkeeping)
        st.reading = view.reading or reading.default_for(ws.format, source.kind)
        st.tab = view.tab or ""  # the reading's own tab, unless the address chose one
        if view.size is not None:
            st.size = view.size
        if view.detail_open is not None:
            st.detail_open = view.detail_open
        if view.scope is not None:
            st.step_scope = view.scope
        st.order = view.order or "time"
        if view.fold is not None:
            st.fold = view.fold
        st.row, st.expanded = None, False

    # -- the audit of every strategy, on request (a large input) --------------------------------------

    async def audit(self) -> None:
        ws = self.shown.ws
        if ws is None:
            self.jobs.set_state("ready")
            return
        run = self.jobs.begin("Auditing every strategy…")
        if not await self.jobs.drive(ws.run_audit(), run, "Auditing every strategy…"):
            return
        self.jobs.busy = False
        panels.audit(self.els, ws.audit, self.view.strategy, ws.format)
        if ws.audit_error:
            self.notices.say([ws.audit_error], error=True)
        self.jobs.end(run, "Audit failed" if ws.audit_error else "Audit done")


def _named(items: list[Picked]) -> str:
    """What several files picked or dropped are called: their one folder, else how many."""
    top = {it.path.split("/", 1)[0] for it in items}
    return f"{next(iter(top))}/" if len(top) == 1 and "/" in items[0].path else f"{len(items)} files"


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

