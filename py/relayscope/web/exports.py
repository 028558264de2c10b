"""exports: every download the page offers, in one place: the shareable file (every file of the
input and the view, ``sharefile.write``), the snapshot (``snapshot.render``: one page that runs
no script), the relays (NDJSON), the trace, the transcript itself (one too large for a link),
and the run as a Chrome trace or OTLP spans.

With "Redact secrets" on, each carries the redacted input (redact_switch.py); the runs' exports
are the core's (``export.runs`` on the input's own bytes, or the redacted ones), so they are byte
for byte the CLI's ``export``, or ``export --redact``.

The snapshot's renderer (``snapshot.render``) is given (``Snapshot``): web.main imports it when
a snapshot is first asked for, not at the page's boot.
Must not: compute what it downloads (the workspace and the core do), or build markup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, Protocol

from .. import export, sharefile
from .dom import Handler, On
from .host import Host
from .redact_switch import RedactSwitch
from .remote import DOCUMENT as document
from .share import stem as share_stem
from .view import Shown

NDJSON: Final = "application/x-ndjson"
JSON: Final = "application/json"
HTML: Final = "text/html"
BUTTONS: Final = {  # button -> what it downloads
    "share-file": "sharefile", "share-html": "html", "share-file-large": "sharefile",
    "export-ndjson": "ndjson", "download-ndjson": "ndjson", "export-trace": "trace",
    "download-source": "source", "export-chrome-trace": "chrome-trace", "export-otlp": "otlp",
}


class Snapshot(Protocol):
    """``snapshot.render``, as the page calls it."""

    def __call__(self, source: bytes | Mapping[str, bytes], *, strategy: str | None = None,
                 name: str | None = None, view: Mapping[str, str] | None = None, redacted: str | None = None) -> str: ...


class Exports:
    def __init__(self, shown: Shown, redaction: RedactSwitch, host: Host, params: Callable[[], dict[str, str]],
                 snapshot: Snapshot) -> None:
        self.shown, self.redaction, self.host = shown, redaction, host
        self.snapshot = snapshot  # loaded when first called (web.main)
        self.params = params  # the view's query, as a link carries it

    def wire(self, on: On) -> None:
        for button, what in BUTTONS.items():
            on(document.element(button), "click", self._saver(what))

    def _saver(self, what: str) -> Handler:
        return lambda _: self.save(what)

    def save(self, what: str) -> None:
        ws = self.shown.ws
        if ws is None:
            return
        name = self.redaction.name(ws.name or "relayscope")  # a folder's name can hold the user's
        base = name.rstrip("/").rsplit("/", 1)[-1].split(" ", 1)[0] or "relayscope"
        stem = base.rsplit(".", 1)[0] if "." in base else base
        redacted = self.redaction.export  # the data itself unless "Redact" is on
        if what in ("sharefile", "html"):
            self.save_shared(what)
        elif what == "ndjson":
            self.host.download(f"{stem}.{ws.strategy}.relays.ndjson", redacted(ws.ndjson()), NDJSON)
        elif what == "trace":
            self.host.download(f"{stem}.{ws.strategy}.trace.json", redacted(ws.trace_json()), JSON)
        elif what == "source":
            data = self.redaction.source_bytes(ws)
            if data is not None:
                self.host.download(base if "." in base else f"{base}.jsonl", data, NDJSON)
        else:  # the run in time: "Redact secrets" on, as `export --redact` reads it
            parts = self.redaction.source_parts(ws)
            source: bytes | dict[str, bytes] = parts[0][1] if len(parts) == 1 and parts[0][0] is None else {
                str(k): v for k, v in parts}
            chunks: list[bytes] = []
            export.write(source, what, chunks.append, ws.strategy)  # the CLI's own writer: the same bytes
            data = b"".join(chunks)
            self.host.download(f"{stem}.{ws.strategy}.{'trace' if what == 'chrome-trace' else 'otlp'}.json", data, JSON)

    def save_shared(self, what: str) -> None:
        """The shareable file or the snapshot: the input as it leaves the page (redacted when
        "Redact" is on), at the view shown."""
        ws = self.shown.ws
        if ws is None:
            return
        shared = self.redaction.shared(ws, self.params())
        name = share_stem(shared.files)
        if what == "sharefile":
            self.host.download(name + sharefile.SUFFIX, sharefile.write(shared), sharefile.MEDIA_TYPE)
            return
        single = ws.source_bytes() is not None
        source: bytes | dict[str, bytes] = next(iter(shared.files.values())) if single else shared.files
        r = self.redaction.redacted()
        shown = next(iter(shared.files)) if single else self.redaction.name(ws.name or "")
        page = self.snapshot(source, strategy=ws.strategy, name=shown,
                               view=shared.view, redacted=r.redactor.summary() if r is not None else None)
        self.host.download(f"{name}.relayscope.html", page.encode("utf-8"), HTML)
