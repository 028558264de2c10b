"""exports: every download the page offers, in one place: the relays (NDJSON), the trace, the
transcript itself (one too large for a link), and the run as a Chrome trace or OTLP spans.

With "Redact secrets" on, each carries the redacted input (redact_switch.py); the runs' exports
are the core's (``export.runs`` on the input's own bytes, or the redacted ones), so they are byte
for byte the CLI's ``export``, or ``export --redact``.

Must not: compute what it downloads (the workspace and the core do), or build markup.
"""

from __future__ import annotations

from typing import Final

from .. import export
from .dom import Handler, On
from .host import Host
from .redact_switch import RedactSwitch
from .remote import DOCUMENT as document
from .view import Shown

NDJSON: Final = "application/x-ndjson"
JSON: Final = "application/json"
BUTTONS: Final = {  # button -> what it downloads
    "export-ndjson": "ndjson", "download-ndjson": "ndjson", "export-trace": "trace",
    "download-source": "source", "export-chrome-trace": "chrome-trace", "export-otlp": "otlp",
}


class Exports:
    def __init__(self, shown: Shown, redaction: RedactSwitch, host: Host) -> None:
        self.shown, self.redaction, self.host = shown, redaction, host

    def wire(self, on: On) -> None:
        for button, what in BUTTONS.items():
            on(document.element(button), "click", self._saver(what))

    def _saver(self, what: str) -> Handler:
        return lambda _: self.save(what)

    def save(self, what: str) -> None:
        ws = self.shown.ws
        if ws is None:
            return
        base = (ws.name or "relayscope").rstrip("/").rsplit("/", 1)[-1].split(" ", 1)[0] or "relayscope"
        stem = base.rsplit(".", 1)[0] if "." in base else base
        redacted = self.redaction.export  # the data itself unless "Redact" is on
        if what == "ndjson":
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
