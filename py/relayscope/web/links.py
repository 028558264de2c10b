"""links: the share link that follows the view, links that name a transcript by fingerprint,
and asking before a ``?src=`` from another site is fetched.

The view lives in the query (view.py); a link names the transcript one of three ways
(share.py): where it is hosted (an example, ``?src=``), inside the fragment (compressed: one
text as ``#v1.``, several files - a session and its sub-agents - as ``#v2.``,
``sharefile.link``), or by its fingerprint (too large: the panel names the shareable file to
send, its size, and the view it opens on). ``prepare`` chooses, once per input and per "Redact"
setting; the embed builder (embed.py) uses the same choice.

Must not: build markup from strings, fetch anything (sources.py does, on consent), or use
storage.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Final, Protocol
from urllib.parse import urljoin, urlsplit

from .. import sharefile, words
from ..intake import fmt_size
from ..translator import StrategyName
from .dom import Element, On, fmt_int, show
from .jobs import Jobs
from .model import SHARE_LIMIT, Workspace, encode_share
from .notices import Notices
from .protocol import Work
from .redact_switch import RedactSwitch
from .remote import DOCUMENT as document
from .remote import WINDOW as window
from .share import (
    Fingerprint,
    describe_view,
    fingerprint,
    full_params,
    parse_fingerprint,
    stem,
    view_url,
)
from .view import Address, Asked, Shown, ViewState

SHARE_PRECHECK: Final = 40  # a text this many times SHARE_LIMIT cannot compress enough: don't try
IDS: Final = ("share", "share-note", "share-row", "share-link", "copy-link", "share-link-text", "share-too-large",
              "share-too-large-text", "download-source", "src-ask", "src-host", "src-url", "src-confirm",
              "src-cancel", "pending-view")


class Choosing(Protocol):
    """The strategy select (strategy.py): a link's strategy is the one the file will be read with."""

    def choose(self, strategy: StrategyName) -> None: ...


class Links:
    def __init__(self, view: ViewState, shown: Shown, jobs: Jobs, notices: Notices, address: Address,
                 redaction: RedactSwitch, strategy: Choosing) -> None:
        self.view, self.shown, self.jobs, self.notices = view, shown, jobs, notices
        self.address, self.redaction, self.strategy = address, redaction, strategy
        self.els = {name: document.element(name) for name in IDS}
        self.kind = ""  # of the link shown: "url" | "inline" | "fingerprint" | "" (none)
        self.fragment = ""  # the link's fragment (inline transcript or fingerprint)
        self.sharefile: tuple[str, int] | None = None  # kind "fingerprint": the file to send, its name and size
        self.pending: tuple[Fingerprint, Asked] | None = None  # a link waiting for its file
        self.src_ask: Callable[[], Coroutine[object, object, None]] | None = None

    def wire(self, on: On) -> None:
        e = self.els
        on(e["share"], "click", lambda _: self.make())
        on(e["copy-link"], "click", lambda _: self.copy())
        on(e["src-confirm"], "click", lambda _: self.confirm_src(), work=Work.ALWAYS)
        on(e["src-cancel"], "click", lambda _: self.cancel_src())

    # -- the URL of the view ------------------------------------------------------------------

    def base(self) -> str:
        return f"{window.location.origin}{window.location.pathname}"

    def params(self) -> dict[str, str]:
        """The query of the current view, without how it is shown."""
        return full_params(self.address.params())

    def link(self) -> str:
        return view_url(self.base(), self.params(), self.fragment)

    def follow(self) -> None:
        """The view changed: the link shown shows it too (and the note the view it opens on)."""
        if self.kind:
            self.show_link(self.link())
        if self.kind == "fingerprint":
            self.els["share-note"].textContent = self.too_large()

    def show_link(self, link: str) -> None:
        e = self.els
        e["share-link"].href = link
        e["share-link"].dataset.kind = self.kind
        e["share-link"].textContent = f"Link to this view ({fmt_int(len(link))} characters)"
        e["share-link-text"].value = link
        show(e["share-row"])

    def reset(self) -> None:
        """A new input: no link until asked for again."""
        self.kind, self.fragment, self.sharefile = "", "", None
        for name in ("share-row", "share-note", "share-too-large", "share-link-text"):
            show(self.els[name], False)
        self.els["copy-link"].textContent = "Copy"

    def prepare(self) -> str | None:
        """Choose how a link names the transcript (sets kind and fragment); None if it cannot
        name it at all, else a note for the reader."""
        ws, src = self.shown.ws, self.view.source
        if ws is None:
            return None
        redaction = self.redaction  # with "Redact" on, the redacted transcript (and its name)
        named = redaction.name(ws.name or "")
        if src.kind in ("example", "src") and not redaction.on:
            self.kind, self.fragment = "url", ""
            where = src.src or "the examples of this site"
            return (f"The link names where the transcript is hosted ({where}); whoever opens it "
                    "loads it from there, with this view.")
        text = redaction.source_text(ws)
        packed = None
        if text is not None and len(text) <= SHARE_LIMIT * SHARE_PRECHECK:
            packed = encode_share(text, {"name": named})
        if packed is not None:
            self.kind, self.fragment = "inline", packed
            return ("The transcript travels inside the link, after the #, which browsers never "
                    "send to a server.")
        parts = redaction.source_parts(ws)
        if text is None and sum(len(d) for _, d in parts) <= sharefile.LINK_LIMIT * SHARE_PRECHECK:
            packed = sharefile.link(redaction.shared(ws, {}))  # the view travels in the query
        if packed is not None:
            self.kind, self.fragment = "inline", packed
            return (f"The {len(parts)} files travel inside the link, after the #, which browsers never "
                    "send to a server: whoever opens it sees them all, sub-agents included, with this view.")
        whole = redaction.shared(ws, self.params())
        self.sharefile = (stem(whole.files) + sharefile.SUFFIX, len(sharefile.write(whole)))
        fp = fingerprint(parts, name=self.sharefile[0])  # the link names the file its sender sends
        self.kind, self.fragment = "fingerprint", fp.fragment()
        return self.too_large()

    def too_large(self) -> str:
        """What to send when the input does not fit in a link: the shareable file, by name and
        size, and the view it opens on."""
        file, size = self.sharefile or ("", 0)
        return (f"Too large to travel in a link. Send its shareable file instead, {file} ({fmt_size(size)}): "
                f"opened in Relayscope (dropped on the page, or with Open) it shows every file at this view: "
                f"{describe_view(self.params())}. The link carries only the view and a fingerprint, for "
                "someone who already has that file.")

    def make(self) -> None:
        e = self.els
        self.reset()
        note = self.prepare()
        if note is None or self.shown.ws is None:
            return
        e["share-note"].textContent = note
        show(e["share-note"])
        self.show_link(self.link())
        if self.kind == "fingerprint":
            file, size = self.sharefile or ("", 0)
            e["share-too-large-text"].textContent = f"Send {file} ({fmt_size(size)}):"
            show(e["download-source"], self.shown.ws.source_text() is not None)
            show(e["share-too-large"])

    def remake(self) -> None:
        """"Redact" changed: a link shown is made again, redacted or not."""
        if self.kind:
            self.make()

    def copy(self) -> None:
        copy(str(self.els["share-link-text"].value), self.els["copy-link"], self.select_for_copy)

    def select_for_copy(self) -> None:
        field = self.els["share-link-text"]
        show(field)
        field.focus()
        field.select()
        self.els["copy-link"].textContent = "Press Ctrl+C (⌘C) to copy the selected link"

    # -- a link that names its transcript by fingerprint --------------------------------------------

    def expect(self, fragment: str, view: Asked) -> None:
        """Opened from a fingerprint link: wait for the reader to open the file. ValueError in
        the reader's words if the link is damaged."""
        fp = parse_fingerprint(fragment)
        self.pending = (fp, view)
        if view.strategy is not None:
            self.strategy.choose(view.strategy)
        box = self.els["pending-view"]
        box.textContent = words.fingerprint_opening(fp.name, fp.size, fp.sha256,
                                                    fp.name.endswith(sharefile.SUFFIX))
        show(box)

    def match_pending(self, ws: Workspace, view: Asked) -> tuple[Asked, str]:
        """After loading an input: the view to show, and a note, if a link was waiting for it."""
        if self.pending is None:
            return view, ""
        expected, linked = self.pending
        self.pending = None
        show(self.els["pending-view"], False)
        got = fingerprint(ws.source_parts())
        if got.matches(expected):
            return view.over(linked), "This is the transcript the link was made from: showing its view."
        return view, (f"This is not the transcript the link was made from (the link names "
                      f"{expected.describe()}; this one is {got.describe()}), so it is shown from the "
                      "start, not with the link's view.")

    # -- ?src= from another site ----------------------------------------------------------------------

    def needs_consent(self, url: str) -> bool:
        here = urlsplit(str(window.location.href))
        there = urlsplit(urljoin(str(window.location.href), url))
        return (there.scheme, there.netloc) != (here.scheme, here.netloc)

    def ask_src(self, url: str, then: Callable[[], Coroutine[object, object, None]]) -> None:
        """Show where a ``?src=`` on another site would be fetched from; fetch only on consent."""
        there = urlsplit(urljoin(str(window.location.href), url))
        self.els["src-host"].textContent = there.netloc or url
        self.els["src-url"].textContent = url
        self.src_ask = then
        show(self.els["src-ask"])

    def confirm_src(self) -> None:
        then, self.src_ask = self.src_ask, None
        if then is None:
            return
        show(self.els["src-ask"], False)
        self.jobs.set_state("analyzing")
        self.jobs.spawn(then())

    def cancel_src(self) -> None:
        self.src_ask = None
        show(self.els["src-ask"], False)
        self.notices.say(["Nothing was loaded. Paste, drop or open a transcript, or pick an example."])


def copy(text: str, button: Element, fallback: Callable[[], None]) -> None:
    """Put ``text`` on the clipboard and say so on ``button``; ``fallback()`` (select the text for
    Ctrl+C) where there is no clipboard API (plain http) or it is denied."""
    if not text:
        return
    clipboard = window.navigator.clipboard  # None on plain http
    if clipboard is None:
        fallback()
        return

    def done(_: object) -> None:
        button.textContent = "Copied"

    clipboard.writeText(text).then(done, lambda _: fallback())
