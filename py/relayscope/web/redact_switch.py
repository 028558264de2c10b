"""redact_switch: the "Redact" switch of the share section and its preview.

On, the share link, the embed snippet, the shareable file, the snapshot and every download
(transcript, relays, trace) carry the input with its secrets replaced (``share.Redacted``, ``redact.Redactor``); the preview lists what
is removed: the line, the kind, a masked excerpt (a few leading characters and the length, never
the secret). The switch is a button with ``role="switch"`` (its state is Python's: the page only
forwards the click). Turning it on or off tells ``changed`` (a link or snippet already shown is
made again).

Must not: redact anything itself (redact.py does), build markup from strings (text nodes only),
or keep the redacted copy of an input past the next load.
"""

from __future__ import annotations

from typing import Final

from .. import sharefile
from .dom import On, fmt_int, h, show
from .model import Workspace
from .remote import DOCUMENT as document
from .share import Redacted, shared
from .view import Shown, Signal

PREVIEW_ROWS: Final = 200  # listed; the summary counts them all
IDS: Final = ("redact-switch", "redact-summary", "redact-preview", "redact-rows", "redact-more")


class RedactSwitch:
    def __init__(self, shown: Shown) -> None:
        self.shown = shown
        self.root = document.documentElement
        self.els = {name: document.element(name) for name in IDS}
        self.on = False
        self.changed: Signal[[]] = Signal()
        self._cache: tuple[int, Redacted] | None = None  # (id of the workspace, its redacted copy)

    def wire(self, on: On) -> None:
        on(self.els["redact-switch"], "click", lambda _: self.toggle())

    def reset(self) -> None:
        """A new input: the switch stays as the reader set it; the preview is of the new input."""
        self._cache = None
        if self.on:
            self.draw()

    def redacted(self) -> Redacted | None:
        ws = self.shown.ws
        if not self.on or ws is None:
            return None
        if self._cache is None or self._cache[0] != id(ws):
            self._cache = (id(ws), Redacted(ws, ws.name))
        return self._cache[1]

    # -- what the share section and the downloads take ---------------------------------------------

    def source_text(self, ws: Workspace) -> str | None:
        r = self.redacted()
        return ws.source_text() if r is None else r.text()

    def source_parts(self, ws: Workspace) -> list[tuple[str | None, bytes]]:
        r = self.redacted()
        return ws.source_parts() if r is None else r.parts

    def source_bytes(self, ws: Workspace) -> bytes | None:
        r = self.redacted()
        return ws.source_bytes() if r is None else r.single

    def export(self, data: bytes) -> bytes:
        r = self.redacted()
        return data if r is None else r.export(data)

    def shared(self, ws: Workspace, view: dict[str, str]) -> sharefile.Shared:
        """The input as it leaves the page (the shareable file, a link's files, the snapshot)."""
        return shared(ws, ws.name, view, self.redacted())

    # -- the switch ---------------------------------------------------------------------------------

    def toggle(self) -> None:
        self.on = not self.on
        self.draw()
        self.changed.emit()

    def draw(self) -> None:
        e = self.els
        e["redact-switch"].setAttribute("aria-checked", "true" if self.on else "false")
        self.root.dataset.redact = "on" if self.on else "off"
        r = self.redacted()
        show(e["redact-summary"], r is not None)
        show(e["redact-preview"], r is not None and bool(r.findings))
        rows = e["redact-rows"]
        show(e["redact-more"], False)
        if r is None:
            rows.replaceChildren()
            return
        e["redact-summary"].textContent = r.summary()
        rows.replaceChildren(*[h("tr", attrs={"data-kind": f.kind},
                                 children=[h("td", text) for text in (fmt_int(f.line), f.kind, f.masked)])
                               for f in r.findings[:PREVIEW_ROWS]])
        more = r.redactor.count + r.redactor.left - min(len(r.findings), PREVIEW_ROWS)  # the left are listed too
        if more > 0:
            e["redact-more"].textContent = f"… and {fmt_int(more)} more"
            show(e["redact-more"])
