"""watch: "Watch file…" / "Watch folder…": follow a transcript while it is written.

Theory of operation
-------------------
Where the browser has the File System Access API, the buttons open its pickers; the handle
they give (or one handed to ``watch(handle, {intervalMs})`` of ``static/js/watch.mjs``, which
scripts and tests import) comes as a ``watch`` message and is read about once a second: the file
as it is now, then the bytes appended since the last look, which go to ``Workspace.append``
(complete lines are translated once, a partial last line waits). A folder is listed on each look
(its files read by the folder rule, intake.read_in_folder, as the CLI's ``--follow`` does), its
files read twice around the listing (as the CLI does), so that a spawn's result is never
translated before sub-agent lines written ahead of it.

The first look draws the workspace as any input does (``Screen.present``); later looks only add:
rows appended to the timeline, lane cards, type counts and the step count redrawn (a handful of
elements), nothing re-translated. The timeline keeps to the newest row while its reader is at
the bottom, and the step-through at the newest step while it is on the last one; scrolling or
stepping away stops that until they come back. Pause stops reading; Stop (or another input)
ends the watch and flushes what only the end of input settles. A file that shrank is read
again from its start (reported in the watch bar).

``<html data-watch>``: ``watching`` | ``paused`` | ``stopped``; ``data-watch-bytes``: bytes read
so far; ``data-watch-ticks``: looks made (also while paused), so a script can wait for the next
one. ``data-app-state`` turns ``analyzing`` while new bytes are translated, then ``done``.

Must not: re-read bytes already read, re-translate from scratch (except after a shrink or a
strategy change the user asked for), or build markup from transcript text.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Final

from .. import relay as R
from ..intake import read_in_folder
from . import panels
from .dom import On, fmt_int, show
from .filters import Filters
from .host import WatchHandle
from .jobs import Jobs
from .model import Workspace
from .notices import Notices
from .protocol import Picked, Watch
from .remote import DOCUMENT as document
from .remote import PAGE
from .remote import WINDOW as window
from .rowdraw import ROW_H
from .screen import Screen
from .stepper import Stepper
from .timeline import Timeline
from .view import LaneLayout, Shown, Source, ViewState

DEFAULT_INTERVAL: Final = 1.0  # seconds between looks at the watched file or folder
READ_CAP: Final = 1 << 20  # bytes read from one file per look: a long backlog is taken a slice at a time
IDS: Final = ("watch-file", "watch-folder", "watch-unsupported", "watch-bar", "watch-status", "watch-pause",
              "watch-stop", "examples-box", "source", "timeline", "relay-count", "errors", "error-summary",
              "error-list")
UNSUPPORTED: Final = ("Watching needs the File System Access API, and {reason}. Chrome, Edge and Opera have it; "
               "Firefox and Safari do not. Open the file instead (it is read once), or on the command line "
               "run: relayscope translate --follow FILE")


class Watcher:
    def __init__(self, view: ViewState, shown: Shown, jobs: Jobs, screen: Screen, filters: Filters,
                 stepper: Stepper, timeline: Timeline, notices: Notices) -> None:
        self.view, self.shown, self.jobs, self.screen = view, shown, jobs, screen
        self.filters, self.stepper, self.timeline, self.notices = filters, stepper, timeline, notices
        self.root = document.documentElement
        self.el = {name: document.element(name) for name in IDS}
        self.generation = 0
        self.ws: Workspace | None = None
        self.handle: WatchHandle | None = None
        self.folder = False
        self.name = ""
        self.interval = DEFAULT_INTERVAL
        self.paused = False
        self.offsets: dict[str, int] = {}  # file path (the name for a single file) -> bytes read
        self.handles: dict[str, WatchHandle] = {}  # a watched folder's files
        self.bytes = 0
        self.ticks = 0
        self.presented = False
        self.counted: list[R.Relay] | None = None  # the relay list the type counts were counted on
        self.last_change = ""  # when new bytes last came
        self.restarted = ""  # why the input was last read again from its start
        self.backlog = False  # the last look left bytes unread (READ_CAP)
        # a folder of several sessions is offered to the library (library_view.Library.offer) on its
        # first look; True: it lists them, and this watch ends (``watch_session`` follows the one opened)
        self.offer: Callable[[list[Picked], Source, str], Awaitable[bool]] | None = None
        self.only: set[str] | None = None  # a session of a library: its files, and those under ``under``
        self.under: tuple[str, ...] = ()
        self.library_handle: WatchHandle | None = None  # the folder the library listed

    # -- wiring ------------------------------------------------------------------------------

    def wire(self, on: On) -> None:
        reason = window.watch_support
        for key in ("watch-file", "watch-folder"):
            show(self.el[key])
            self.el[key].disabled = bool(reason)
        if reason:
            note = self.el["watch-unsupported"]
            note.textContent = UNSUPPORTED.format(reason=reason)
            show(note)
        on(self.el["watch-pause"], "click", lambda _: self.set_paused(not self.paused))
        on(self.el["watch-stop"], "click", lambda _: self.jobs.spawn(self.stop()))
        PAGE.subscribe(Watch, self.jobs.safe(self.on_request))

    def on_request(self, request: Watch) -> None:
        """A handle to watch (a picker's, which the page opens in the click, or one a script
        handed to watch.mjs's ``watch``), or the picker the browser refused (not when the reader
        closed it)."""
        if request.error:
            self.notices.say([f"Could not open the picker: {request.error}"], error=True)
            return
        if request.handle is not None:
            self.only, self.under = None, ()
            self.begin(request.handle, request.interval_ms)

    def watch_session(self, files: set[str], under: tuple[str, ...]) -> None:
        """Follow one session of the folder the library listed: its files (``files``, paths as
        the listing gave them) and any new one under its session folder(s) ``under``."""
        if self.library_handle is None:
            return
        self.only, self.under = set(files), under
        self.begin(self.library_handle, self.interval * 1000)

    # -- a watch ------------------------------------------------------------------------------

    def begin(self, handle: WatchHandle, interval_ms: float | None) -> None:
        self.generation += 1
        gen = self.generation
        self.interval = interval_ms / 1000 if interval_ms else DEFAULT_INTERVAL
        self.handle, self.folder, self.name = handle, handle.kind == "directory", handle.name
        self.jobs.set_state("analyzing")
        self._reset()
        self.set_paused(False)
        show(self.el["watch-bar"])
        self.jobs.spawn(self.loop(gen))

    def _reset(self) -> None:
        ws = self.ws = Workspace()
        ws.start_live(self.name + ("/" if self.folder else ""), folder=self.folder, strategy=self.view.strategy)
        self.offsets, self.handles, self.bytes = {}, {}, 0
        self.presented = False
        self.counted = None
        self.root.dataset.watchBytes = "0"

    def set_paused(self, paused: bool) -> None:
        self.paused = paused
        self.root.dataset.watch = "paused" if paused else "watching"
        self.el["watch-pause"].textContent = "Resume" if paused else "Pause"
        self.el["watch-pause"].setAttribute("aria-pressed", "true" if paused else "false")
        self.say()

    async def stop(self) -> None:
        """End the watch: a last line without a newline, and the usage still open, go."""
        if self.ws is None or self.root.dataset.watch == "stopped":
            return
        self.generation += 1
        ws = self.ws
        self.root.dataset.watch = "stopped"
        show(self.el["watch-bar"], False)
        if self.shown.ws is ws and not self.jobs.busy:
            self.jobs.set_state("analyzing")
            following, on_last = self.following(), self.on_last_step()
            self.grow(ws.finish_live(), following, on_last)
            self.jobs.status(f"Stopped watching {self.name}: {fmt_int(len(ws.relays))} relay events")
            self.el["source"].textContent = f"{self.name}{'/' if self.folder else ''} · watch stopped"
            self.jobs.set_state("done")

    def drop(self) -> None:
        """Another input is shown: the watch ends now, not at its next look."""
        if self.ws is not None and self.root.dataset.watch in ("watching", "paused"):
            self.generation += 1
            self.root.dataset.watch = "stopped"
            show(self.el["watch-bar"], False)

    async def loop(self, gen: int) -> None:
        while gen == self.generation:
            if self.presented and self.shown.ws is not self.ws:  # another input was loaded
                self.generation += 1
                self.root.dataset.watch = "stopped"
                show(self.el["watch-bar"], False)
                return
            self.backlog = False
            if not self.paused and not self.jobs.busy:
                await self.look(gen)
            self.ticks += 1
            self.root.dataset.watchTicks = str(self.ticks)
            # more waiting (a long file's first look): the next slice as soon as the page has painted
            await asyncio.sleep(0 if self.backlog else self.interval)

    # -- reading -------------------------------------------------------------------------------

    async def look(self, gen: int) -> None:
        # A watch begun while this look awaits the files replaces the handle, name and offsets:
        # this look keeps its own and gives up at its next await, reading nothing into the new one.
        changes: dict[str, bytes] = {}
        shrunk: str | None = None
        watched, name = self.handle, self.name
        assert watched is not None
        if self.folder:
            shrunk = await self._read_all(changes, gen)
            listing = await watched.listing()
            if gen != self.generation:
                return
            if not self.presented and self.only is None and self.offer is not None and await self._offered(listing):
                return
            for relative, handle in listing:
                path = f"{name}/{relative}"
                if path not in self.handles and read_in_folder(path) and self._takes(path):
                    self.handles[path] = handle
            shrunk = shrunk or await self._read_all(changes, gen)
        else:
            shrunk = await self._read(name, watched, changes, gen)
        if gen != self.generation:
            return
        if shrunk is not None:
            self._reset()
            self.restarted = f"{shrunk}: read again from its start"
            changes = {}
            await self.look(gen)
            return
        if changes or not self.presented:
            await self.apply(changes)

    def _takes(self, path: str) -> bool:
        """Whether this watch reads ``path``: any file, or only a library session's."""
        return self.only is None or path in self.only or path.startswith(self.under)

    async def _offered(self, listing: list[tuple[str, WatchHandle]]) -> bool:
        """The folder's first look, offered to the library: True when it holds several sessions,
        which are listed (this watch then ends; opening one follows that session alone)."""
        gen, handle = self.generation, self.handle
        items = []
        for relative, h in listing:
            try:
                items.append(Picked(f"{self.name}/{relative}", await h.file()))
            except Exception:
                continue  # gone meanwhile: the library lists what is there
        if gen != self.generation or self.offer is None or len(items) < 2:
            return False
        if not await self.offer(items, Source("watch"), f"{self.name}/"):
            return False
        self.library_handle = handle
        self.generation += 1
        self.root.dataset.watch = "stopped"
        show(self.el["watch-bar"], False)
        return True

    async def _read_all(self, changes: dict[str, bytes], gen: int) -> str | None:
        for path, handle in list(self.handles.items()):
            shrunk = await self._read(path, handle, changes, gen)
            if shrunk is not None or gen != self.generation:
                return shrunk
        return None

    async def _read(self, path: str, handle: WatchHandle, changes: dict[str, bytes], gen: int) -> str | None:
        """The bytes appended to one file since the last look; a reason if it shrank (nothing if
        another watch began meanwhile)."""
        try:
            f = await handle.file()
        except Exception:
            return None  # gone for now (being replaced): look again next time
        if gen != self.generation:
            return None
        size, done = int(f.size), self.offsets.get(path, 0)
        if size < done:
            return f"{path} shrank ({fmt_int(size)} bytes, {fmt_int(done)} read)"
        if size == done:
            return None
        end = min(size, done + READ_CAP)
        self.backlog = self.backlog or end < size
        data = await f.read(done, end)
        if gen != self.generation:
            return None
        self.offsets[path] = done + len(data)
        changes[path] = changes.get(path, b"") + data
        return None

    # -- showing -------------------------------------------------------------------------------

    async def apply(self, changes: dict[str, bytes]) -> None:
        ws = self.ws
        assert ws is not None
        self.jobs.set_state("analyzing")
        following, on_last = self.following(), self.on_last_step()
        new = ws.append(changes if self.folder else changes.get(self.name, b""))
        self.bytes += sum(len(v) for v in changes.values())
        if changes:
            self.last_change = time.strftime("%H:%M:%S")
        if not self.presented:
            await self.present()
        else:
            self.grow(new, following, on_last)
        self.root.dataset.watchBytes = str(self.bytes)
        self.say()
        self.jobs.set_state("done")

    async def present(self) -> None:
        """The first look: the workspace drawn as for any input."""
        ws = self.ws
        assert ws is not None
        run = self.jobs.begin(f"Watching {self.name}…")
        self.shown.ws, self.shown.size = ws, self.bytes
        st = self.view
        st.source, st.row, st.expanded = Source("watch"), None, False
        st.text, st.types, st.lane = "", set(), ""
        self.notices.say([])
        self.el["examples-box"].open = False
        self.el["source"].textContent = f"{self.name}{'/' if self.folder else ''} · watching"
        if await self.screen.present(run, step=max(ws.step_count() - 1, 0), row=None):
            self.jobs.end(run, f"Watching {self.name}")
            self.presented = True
            self.recount()
            self.to_bottom()

    def recount(self) -> None:
        assert self.ws is not None
        self.counted = self.ws.relays

    def grow(self, new: range, following: bool, on_last: bool) -> None:
        """Add the new relays and steps to what is shown."""
        ws, shown, st, tl = self.ws, self.shown, self.view, self.timeline
        assert ws is not None
        if not new and ws.relays is self.counted:
            self.stepper.go(ws.step_count() - 1 if on_last else st.step, scroll=False)
            return
        if ws.relays is not self.counted:  # re-run with another strategy: counted anew
            self.recount()
            shown.type_counts = {}
            new = range(0, len(ws.relays))
        for seq in new:
            kind = ws.relays[seq].type
            shown.type_counts[kind] = shown.type_counts.get(kind, 0) + 1
        shown.layout = LaneLayout([lane.id for lane in ws.lanes])
        shown.labels = {lane.id: lane.label for lane in ws.lanes}
        self.filters.draw_lane_filter()
        self.filters.chips.draw()
        self.filters.draw_lanes()
        panels.errors(self.el, ws.errors, ws.error_summary())
        if st.text.strip() or st.types or st.lane or len(tl.seqs) != new.start:
            self.filters.apply()
        else:  # everything shown: the new rows go at the end
            tl.add_rows(new)
            self.el["relay-count"].textContent = str(len(tl.seqs))
            self.el["relay-count"].dataset.total = str(len(ws.relays))
        self.stepper.go(ws.step_count() - 1 if on_last else st.step, scroll=False)
        if following:
            self.to_bottom()

    def following(self) -> bool:
        """Whether the timeline shows its last row (the reader has not scrolled away)."""
        c = self.el["timeline"]
        return bool(c.scrollTop + c.clientHeight >= self.timeline.content_height() - 2 * ROW_H)

    def on_last_step(self) -> bool:
        ws = self.ws
        return ws is None or self.view.step >= ws.step_count() - 1

    def to_bottom(self) -> None:
        c = self.el["timeline"]
        c.scrollTop = max(0, self.timeline.content_height() - int(c.clientHeight or 0))
        self.timeline.render()

    def say(self) -> None:
        state = "paused" if self.paused else "watching"
        what = f"{self.name}/ ({len(self.handles)} files)" if self.folder else self.name
        text = f"{state.capitalize()} {what} · {fmt_int(self.bytes)} bytes read"
        if self.last_change:
            text += f" · last change {self.last_change}"
        if self.restarted:
            text += f" · {self.restarted}"
        self.el["watch-status"].textContent = text
        self.el["watch-bar"].dataset.following = "true" if self.following() else "false"
