"""share: links to a view of a transcript of any size, and the embed snippet. Plain Python.

A link names a view (strategy, step, row, filters: the query string the page mirrors) and the
transcript it is a view of, one of three ways:

- ``?example=`` or ``?src=``: the transcript is at a URL; the link names it.
- ``#v1.<compressed>`` (``model.encode_share``): the transcript travels in the fragment, which
  browsers never send to a server; only for what compresses to ``SHARE_LIMIT`` characters.
- ``#file=<size>&sha256=<prefix>&name=<name>``: a fingerprint of the transcript. The recipient
  opens the file (the sender sends it some other way); the page applies the view when the file
  has the same size and hash, and says so when it does not.

The view lives in the query string in all three, so a link follows view changes by rewriting
the query alone, without compressing the transcript again.

With "Redact" on, what leaves the page - the transcript in a link or an embed, its
fingerprint, the downloads - is the redacted input (``Redacted``: ``redact.Redactor`` over the
source, the same placeholders in every export of it).

Must not: touch the DOM or fetch (embed.py and sources.py do); it only builds and reads strings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Protocol
from urllib.parse import parse_qs, urlencode

from ..redact import Finding, Redactor, redact_bytes

FINGERPRINT_HEX: Final = 32  # 128 bits of SHA-256: no two transcripts anyone shares collide
FINGERPRINT_PREFIX: Final = "file="
EMBED_PARAMS: Final = ("embed", "theme", "panels")  # how a view is shown, not which view


@dataclass(frozen=True, slots=True)
class Fingerprint:
    size: int  # bytes
    sha256: str  # hex prefix
    name: str = ""

    def fragment(self) -> str:
        """The URL fragment (without ``#``) that names this transcript."""
        fields = {"file": str(self.size), "sha256": self.sha256}
        if self.name:
            fields["name"] = self.name
        return urlencode(fields)

    def matches(self, other: Fingerprint) -> bool:
        return self.size == other.size and self.sha256 == other.sha256

    def describe(self) -> str:
        return f"{self.size:,} bytes, SHA-256 {self.sha256[:12]}…".replace(",", "\u202f")


def fingerprint(parts: Iterable[tuple[str | None, bytes]], name: str = "") -> Fingerprint:
    """The fingerprint of one transcript (``[(None, bytes)]``: its bytes hashed as they are) or
    of several files (each one's name and length go into the hash too, in name order, so the
    same folder gives the same fingerprint whatever order its files came in)."""
    items = sorted(parts, key=lambda kv: kv[0] or "")
    digest = hashlib.sha256()
    if len(items) == 1 and items[0][0] is None:
        digest.update(items[0][1])
    else:
        for path, data in items:
            label = (path or "").encode("utf-8", "replace")
            digest.update(b"%d:%s\0%d\0" % (len(label), label, len(data)))
            digest.update(data)
    size = sum(len(data) for _, data in items)
    return Fingerprint(size, digest.hexdigest()[:FINGERPRINT_HEX], name)


def parse_fingerprint(fragment: str) -> Fingerprint:
    """The fingerprint a ``#file=`` fragment names; ValueError, in the reader's words, if it
    is damaged."""
    fields = {k: v[-1] for k, v in parse_qs(fragment.removeprefix("#")).items()}
    size, sha = fields.get("file", ""), fields.get("sha256", "").lower()
    if not size.isdigit() or len(sha) < 16 or any(c not in "0123456789abcdef" for c in sha):
        raise ValueError("This link is damaged: it should name a transcript by its size and "
                         "fingerprint, and part of that is missing (was the link cut short "
                         "when it was copied?).")
    return Fingerprint(int(size), sha, fields.get("name", ""))


def view_url(base: str, params: dict[str, str], fragment: str = "") -> str:
    """``base`` (origin and path) with ``params`` as its query and ``fragment`` after a ``#``."""
    query = urlencode(params)
    return base + (f"?{query}" if query else "") + (f"#{fragment}" if fragment else "")


def embed_params(params: dict[str, str], *, theme: str = "", panels: str = "") -> dict[str, str]:
    """The query of the same view in embed mode. The full app's detail panel (its tab, size and
    fold) stays out: an embed shows the panels its author chose, open."""
    out = {k: v for k, v in params.items() if k not in EMBED_PARAMS and k not in ("tab", "size", "detail")}
    out["embed"] = "1"
    if theme in ("light", "dark"):
        out["theme"] = theme
    if panels:
        out["panels"] = panels
    return out


def full_params(params: dict[str, str]) -> dict[str, str]:
    """The query of the same view in the full app (what "Open in Relayscope" opens)."""
    return {k: v for k, v in params.items() if k not in EMBED_PARAMS}


class Source(Protocol):
    """What a share needs of the view model (``Workspace``)."""

    def source_bytes(self) -> bytes | None: ...

    def source_parts(self) -> list[tuple[str | None, bytes]]: ...


class Redacted:
    """One input as it is shared with "Redact" on: its files with their secrets replaced, what was
    found, and the exports (relays, trace) through the same redactor, so that a secret has the
    same placeholder in the link, the embed and every download."""

    def __init__(self, ws: Source) -> None:
        self.redactor = Redactor()
        parts = ws.source_parts()
        self.parts = [(name, self._bytes(data)) for name, data in parts]
        single = ws.source_bytes()
        self.single = None if single is None else self.parts[0][1]

    def _bytes(self, data: bytes) -> bytes:
        return redact_bytes(data, self.redactor)

    @property
    def findings(self) -> list[Finding]:
        return self.redactor.findings

    def text(self) -> str | None:
        return None if self.single is None else self.single.decode("utf-8", "replace")

    def export(self, data: bytes) -> bytes:
        """An export of the input (NDJSON relays, the trace) with the input's placeholders."""
        return self._bytes(data)

    def summary(self) -> str:
        if not self.redactor.count:
            return "Nothing to redact was found: links, embeds and downloads carry the transcript as it is."
        return (f"Links, embeds and downloads leave out {self.redactor.summary()}; each reads "
                "[redacted:KIND:N], the same N for the same secret.")
