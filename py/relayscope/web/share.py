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

What leaves the page as an input - a link's files, the shareable file, the snapshot - is one
``sharefile.Shared`` (``shared``): the input's files under their paths (a single text under its
file name) and the view. With "Redact" on it is the redacted input (``Redacted``:
``sharefile.prepare`` through one ``redact.Redactor``, so the page's shareable file is the CLI's
``pack --redact``, and a secret has the same placeholder in every export of it); the preview
lists that redactor's findings, so nothing leaves that the preview did not list.

Must not: touch the DOM or fetch (embed.py and sources.py do); it only builds and reads strings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Final, Protocol
from urllib.parse import parse_qs, urlencode

import msgspec

from .. import sharefile, words
from ..redact import Finding, Redactor, Tally, redact_bytes

TRANSCRIPT_SUFFIXES: Final = (".jsonl", ".ndjson", ".sse", ".log", ".json")

FINGERPRINT_HEX: Final = 32  # 128 bits of SHA-256: no two transcripts anyone shares collide
FINGERPRINT_PREFIX: Final = "file="
EMBED_PARAMS: Final = ("embed", "theme", "panels")  # how a view is shown, not which view


class Fingerprint(msgspec.Struct, frozen=True):
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
        return words.fingerprint_words(self.size, self.sha256)


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


def describe_view(params: dict[str, str]) -> str:
    """A view's query in words: "strategy index, step 10, row 42 open, search “foo”"."""
    said = [f"strategy {params.get('strategy') or 'lineage'}", f"step {params.get('step') or 1}"]
    if params.get("row"):
        said.append(f"row {params['row']} open")
    if params.get("q"):
        said.append(f"search “{params['q']}”")
    if params.get("lane"):
        said.append(f"lane {params['lane']}")
    return ", ".join(said)


def full_params(params: dict[str, str]) -> dict[str, str]:
    """The query of the same view in the full app (what "Open in Relayscope" opens)."""
    return {k: v for k, v in params.items() if k not in EMBED_PARAMS}


class Source(Protocol):
    """What a share needs of the view model (``Workspace``)."""

    def source_bytes(self) -> bytes | None: ...

    def source_parts(self) -> list[tuple[str | None, bytes]]: ...


def file_name(name: str | None) -> str:
    """What a single text is called inside a shareable file: its own file name, or (a paste, a
    link's transcript) that name made a ``.jsonl`` file's."""
    base = (name or "").rstrip("/").rsplit("/", 1)[-1].strip() or "transcript"
    base = "-".join(base.split())
    return base if base.lower().endswith(TRANSCRIPT_SUFFIXES) else f"{base}.jsonl"


def named(parts: list[tuple[str | None, bytes]], name: str | None) -> dict[str, bytes]:
    """An input's parts as ``{path: bytes}`` (a single text under ``file_name(name)``)."""
    return {file_name(name) if path is None else path: data for path, data in parts}


def stem(paths: Iterable[str]) -> str:
    """The name a download of an input (its paths, as ``named`` gives them) starts with: of
    several files the main transcript's (the first that is no sub-agent's)."""
    listed = list(paths)
    main = next((p for p in listed if not p.rsplit("/", 1)[-1].startswith("agent-")), listed[0] if listed else "")
    base = file_name(main)
    for suffix in TRANSCRIPT_SUFFIXES:
        if base.lower().endswith(suffix):
            return base[:-len(suffix)] or "relayscope"
    return base


class Redacted:
    """One input as it is shared with "Redact" on: its files with their secrets replaced (their
    contents and their paths, as ``sharefile.prepare`` does), what was found, and the exports
    (relays, trace) through the same redactor, so that a secret has the same placeholder in the
    link, the embed, the shareable file, the snapshot and every download. ``words``: the user's own, replaced wherever they are
    words (kind ``word``), as ``--redact-word`` does."""

    def __init__(self, ws: Source, name: str | None = None, words: Iterable[str] = ()) -> None:
        self.redactor = Redactor()
        self.words = tuple(words)  # the user's own (a company, a project, a client), replaced as words too
        for word in self.words:
            self.redactor.add_word(word)
        parts = ws.source_parts()
        self.shared = sharefile.prepare(named(parts, name), None, self.redactor)
        self.parts: list[tuple[str | None, bytes]] = [
            (None if path is None else redacted_path, data)
            for (path, _), (redacted_path, data) in zip(parts, self.shared.files.items(), strict=True)]
        single = ws.source_bytes()
        self.single = None if single is None else self.parts[0][1]

    @property
    def findings(self) -> list[Finding]:
        return self.redactor.findings

    def text(self) -> str | None:
        return None if self.single is None else self.single.decode("utf-8", "replace")

    def tally(self) -> list[Tally]:
        """Each secret once, with the places it took (``redact --list``'s second table)."""
        return self.redactor.tally()

    def name(self, name: str) -> str:
        """A name shown or saved under (the input's, a download's) with the input's placeholders."""
        return self.redactor.text(name)

    def export(self, data: bytes) -> bytes:
        """An export of the input (NDJSON relays, the trace) with the input's placeholders."""
        return redact_bytes(data, self.redactor)

    def view(self, params: dict[str, str]) -> dict[str, str]:
        """A view's values (a search for a key) with the input's placeholders."""
        return {k: self.redactor.text(v) for k, v in params.items()}

    def summary(self) -> str:
        if not self.redactor.count:
            return ("Nothing to redact was found: links, embeds, the shareable file, the snapshot and downloads "
                    "carry the transcript as it is.")
        return (f"Links, embeds, the shareable file, the snapshot and downloads leave out {self.redactor.summary()}; "
                "each reads [redacted:KIND:N], the same N for the same secret.")


def shared(ws: Source, name: str | None, view: dict[str, str], redacted: Redacted | None) -> sharefile.Shared:
    """The input as it leaves the page at ``view``: redacted when ``redacted`` is given."""
    if redacted is None:
        return sharefile.prepare(named(ws.source_parts(), name), view)
    return msgspec.structs.replace(redacted.shared, view=redacted.view(view))
