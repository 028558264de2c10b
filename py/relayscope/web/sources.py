"""sources: where an input comes from on the page: text pasted (analyzed PASTE_DELAY_MS after
the last keystroke), files and folders picked, a URL (``?src=``), an example, a share link, and
what the page's address asked for when it opened. Each becomes one call of loads.py's one load
path (a drop goes there straight: it is a message, not a control of the page).

Must not: read or classify the input (loads.py does), draw the workspace, or fetch anything but
what the reader named (examples and ``?src=`` are fetched through the host, a ``?src=`` on
another site only once the reader agrees).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Final

from .. import sharefile
from .dom import On
from .jobs import Jobs
from .links import Links
from .loads import Loads
from .model import decode_share
from .notices import Notices
from .protocol import Picked, Work
from .remote import DOCUMENT as document
from .remote import WINDOW as window
from .view import Asked, Shown, Source, query_dict, view_from

PASTE_DELAY_MS: Final = 300
IDS: Final = ("paste-input", "analyze", "file-input", "folder-input")


class Sources:
    def __init__(self, shown: Shown, jobs: Jobs, loads: Loads, links: Links, notices: Notices) -> None:
        self.shown, self.jobs, self.loads, self.links, self.notices = shown, jobs, loads, links, notices
        self.els = {name: document.element(name) for name in IDS}
        self.session_asked: Callable[[str], object] | None = None  # an address's session=: the library waits for it

    def wire(self, on: On) -> None:
        e = self.els
        on(e["paste-input"], "input", lambda _: self.on_paste_input(), work=Work.VALUE)
        on(e["analyze"], "click", lambda _: self.analyze_paste(), work=Work.ALWAYS)
        on(e["file-input"], "change", lambda _: self.on_files("file-input"), work=Work.FILES)
        on(e["folder-input"], "change", lambda _: self.on_files("folder-input"), work=Work.FILES)

    def initial(self) -> None:
        """What the address or the reader (while Python booted) asked for, in this order: a share
        link, ``?src=``, ``?example=``, files picked, text pasted."""
        params = query_dict(str(window.location.search))
        view = view_from(params)
        if view.session and self.session_asked is not None:
            self.session_asked(view.session)
        fragment = str(window.location.hash)[1:]
        if fragment.startswith("file="):  # a view of a transcript too large for a link
            try:
                self.links.expect(fragment, view)
            except ValueError as exc:
                self.jobs.fail(str(exc))
            return
        if fragment.startswith("v1."):
            try:
                text, shared = decode_share(fragment)
            except ValueError as exc:
                self.jobs.fail(str(exc))
                return
            merged = view.over(view_from({k: str(v) for k, v in shared.items()}))
            name = str(shared.get("name") or "shared transcript")
            self.jobs.spawn(self.loads.open_text(text, name=name, source=Source("share"), view=merged))
        elif fragment.startswith(sharefile.LINK_PREFIX):  # several files (a session, its sub-agents)
            try:
                files, carried = sharefile.decode_link(fragment)
            except ValueError as exc:
                self.jobs.fail(str(exc))
                return
            self.jobs.spawn(self.loads.open_in_memory(files, Source("share"), view.over(view_from(carried))))
        elif src := params.get("src"):
            self._src(src, view)
        elif params.get("example"):
            self.jobs.spawn(self.loads.open_example(params["example"], view))
        elif self.els["file-input"].files.length or self.els["folder-input"].files.length:
            self.on_files("file-input" if self.els["file-input"].files.length else "folder-input")
        elif str(self.els["paste-input"].value).strip():
            self.analyze_paste()

    def _src(self, src: str, view: Asked) -> None:
        def fetch() -> Coroutine[object, object, None]:
            return self.loads.open_url(src, Source("src", src=src), view)

        if self.links.needs_consent(src):  # another site: say which, fetch only on consent
            self.links.ask_src(src, fetch)
        else:
            self.jobs.spawn(fetch())

    def example(self, example_id: str) -> None:
        """A card of the gallery."""
        self.jobs.start_work(self.loads.open_example(example_id))

    # -- what the reader does ------------------------------------------------------------------------

    def on_paste_input(self) -> None:
        if not str(self.els["paste-input"].value).strip():
            return
        self.jobs.set_state("analyzing")  # a paste is on its way: nobody may read the old "done"
        self.jobs.later("paste", PASTE_DELAY_MS, self.analyze_paste)

    def analyze_paste(self) -> None:
        text = str(self.els["paste-input"].value)
        ws = self.shown.ws
        if not text.strip():
            still = f" The view below still shows {ws.name or 'the last input'}." if ws else ""
            self.notices.say([f"The text area is empty: there is nothing to analyze. Paste a transcript first.{still}"])
            self.jobs.set_state("done" if ws else "ready")
            return
        self.jobs.set_state("analyzing")
        self.jobs.spawn(self.loads.open_text(text, name="pasted text", source=Source("paste")))

    def on_files(self, which: str) -> None:
        items = [Picked(str(f.webkitRelativePath or f.name), f.file) for f in self.els[which].files]
        if not items:
            return
        self.jobs.set_state("analyzing")
        self.jobs.spawn(self.loads.open_files(items, folder=which == "folder-input"))
