"""redact_switch: the "Redact" switch of the share section and its preview (issue 22).

On, the share link, the embed snippet and every download (transcript, relays, trace) carry the
input with its secrets replaced (``share.Redacted``, ``redact.Redactor``); the preview lists what
is removed: the line, the kind, a masked excerpt (a few leading characters and the length, never
the secret). The switch is a button with ``role="switch"`` (its state is Python's: the page only
forwards the click). Turning it on or off remakes a link or snippet already shown.

Must not: redact anything itself (redact.py does), build markup from strings (text nodes only),
or keep the redacted copy of an input past the next load.
"""

from __future__ import annotations

from typing import Any

from .dom import fmt_int, h, show
from .remote import WINDOW as window
from .share import Redacted

PREVIEW_ROWS = 200  # listed; the summary counts them all
IDS = ("redact-switch", "redact-summary", "redact-preview", "redact-rows", "redact-more")


class RedactSwitch:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.els = {name: window.document.getElementById(name) for name in IDS}
        self.on = False
        self._cache: tuple[int, Redacted] | None = None  # (id of the workspace, its redacted copy)

    def wire(self) -> None:
        self.app.listeners.on(self.els["redact-switch"], "click", self.app.jobs.safe(lambda _: self.toggle()))

    def reset(self) -> None:
        """A new input: the switch stays as the reader set it; the preview is of the new input."""
        self._cache = None
        if self.on:
            self.draw()

    def redacted(self) -> Redacted | None:
        ws = self.app.ws
        if not self.on or ws is None:
            return None
        if self._cache is None or self._cache[0] != id(ws):
            self._cache = (id(ws), Redacted(ws))
        return self._cache[1]

    # -- what the share section and the downloads take ---------------------------------------------

    def source_text(self, ws: Any) -> str | None:
        r = self.redacted()
        return ws.source_text() if r is None else r.text()

    def source_parts(self, ws: Any) -> list[tuple[str | None, bytes]]:
        r = self.redacted()
        return ws.source_parts() if r is None else r.parts

    def source_bytes(self, ws: Any) -> bytes | None:
        r = self.redacted()
        return ws.source_bytes() if r is None else r.single

    def export(self, data: bytes) -> bytes:
        r = self.redacted()
        return data if r is None else r.export(data)

    # -- the switch ---------------------------------------------------------------------------------

    def toggle(self) -> None:
        self.on = not self.on
        self.draw()
        links = self.app.links
        if links.kind:  # a link was shown: make it again, redacted or not
            links.make()
        if not links.els["embed-box"].hidden:
            links.make_embed()

    def draw(self) -> None:
        e = self.els
        e["redact-switch"].setAttribute("aria-checked", "true" if self.on else "false")
        self.app.root.dataset.redact = "on" if self.on else "off"
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
        more = r.redactor.count - min(len(r.findings), PREVIEW_ROWS)
        if more > 0:
            e["redact-more"].textContent = f"… and {fmt_int(more)} more"
            show(e["redact-more"])
