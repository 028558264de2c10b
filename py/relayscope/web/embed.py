"""embed: the page's links and frames. Embed mode, the share link that follows the view, links
that name a transcript by fingerprint, the ``<iframe>`` snippet, asking before a ``?src=`` from
another site, and the theme setting that survives storage being denied.

app.py owns the view; this module turns it into links (``share.py`` builds the strings) and
back. In embed mode (``<html data-embed="1">``, set from ``?embed=1`` by static/js/embed.mjs
before Python boots; app.css does the layout) the view the author linked stays put: a click on
a row selects it without moving the step.

Must not: build markup from strings (the snippet is text in a textarea), fetch anything, or use
storage where it is denied (a frame on another site): every storage access is guarded.
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

from .dom import fmt_int, show
from .model import SHARE_LIMIT, encode_share
from .remote import WINDOW as window
from .share import (
    Fingerprint,
    embed_params,
    fingerprint,
    full_params,
    iframe_snippet,
    parse_fingerprint,
    view_url,
)

THEME_KEY = "relayscope-theme"
SHARE_PRECHECK = 40  # a text this many times SHARE_LIMIT cannot compress enough: don't try
IDS = (
    "share", "share-note", "share-row", "share-link", "copy-link", "share-link-text",
    "share-too-large", "share-too-large-text", "download-source", "embed-view", "embed-box",
    "embed-snippet", "embed-note", "open-full", "embed-title", "src-ask", "src-host", "src-url",
    "src-confirm", "src-cancel", "pending-view", "compare-lineage",
)


def stored_theme() -> str:
    """The theme the reader chose last time; "auto" where storage is denied."""
    try:
        return str(window.localStorage.getItem(THEME_KEY) or "auto")
    except Exception:  # SecurityError in a frame on another site
        return "auto"


def url_theme() -> str:
    """``?theme=light|dark``, or ""."""
    value = parse_qs(str(window.location.search)[1:]).get("theme", [""])[-1]
    return value if value in ("light", "dark") else ""


def save_theme(theme: str) -> None:
    with contextlib.suppress(Exception):  # storage denied: the choice lasts this visit
        window.localStorage.setItem(THEME_KEY, theme)


class Links:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.els = {name: window.document.getElementById(name) for name in IDS}
        self.embed = str(app.root.getAttribute("data-embed") or "") == "1"
        self.kind = ""  # of the link shown: "url" | "inline" | "fingerprint" | "" (none)
        self.fragment = ""  # the link's fragment (inline transcript or fingerprint)
        self.pending: tuple[Fingerprint, dict[str, Any]] | None = None  # a link waiting for its file
        self.src_ask: tuple[str, Any] | None = None
        self.compare_from = ""  # the strategy "compare with lineage" goes back to

    def wire(self) -> None:
        e, app = self.els, self.app

        def on(name: str, handler: Any) -> None:
            app.listeners.on(e[name], "click", app.jobs.safe(lambda _: handler()))

        on("share", self.make)
        on("copy-link", self.copy)
        on("embed-view", self.make_embed)
        on("src-confirm", self.confirm_src)
        on("src-cancel", self.cancel_src)
        on("compare-lineage", self.toggle_compare)

    # -- the URL of the view ------------------------------------------------------------------

    def base(self) -> str:
        return f"{window.location.origin}{window.location.pathname}"

    def params(self) -> dict[str, str]:
        """The query of the current view (app.url_params), without how it is shown."""
        return full_params(self.app.url_params())

    # -- links that follow the view -------------------------------------------------------------

    def follow(self) -> None:
        """The view changed: the link, the snippet and "open in Relayscope" now show it too."""
        if self.embed:
            here = str(window.location.hash)[1:]
            self.els["open-full"].href = view_url(self.base(), self.params(), here)
            self.els["embed-title"].textContent = self.app.ws.name if self.app.ws else ""
        if self.kind:
            self.show_link(self.link())
        if not self.els["embed-box"].hidden:
            self.make_embed()

    def link(self, embedded: bool = False) -> str:
        params = self.params()
        if embedded:
            params = embed_params(params, theme=str(self.app.root.getAttribute("data-theme") or ""))
        return view_url(self.base(), params, self.fragment)

    def show_link(self, link: str) -> None:
        e = self.els
        e["share-link"].href = link
        e["share-link"].dataset.kind = self.kind
        e["share-link"].textContent = f"Link to this view ({fmt_int(len(link))} characters)"
        e["share-link-text"].value = link
        show(e["share-row"])

    def reset(self) -> None:
        """A new input: no link until asked for again."""
        self.kind, self.fragment = "", ""
        for name in ("share-row", "share-note", "share-too-large", "share-link-text", "embed-box"):
            show(self.els[name], False)
        self.els["copy-link"].textContent = "Copy"

    def prepare(self) -> str | None:
        """Choose how a link names the transcript (sets kind and fragment); None if it cannot
        name it at all, else a note for the reader."""
        ws, src = self.app.ws, self.app.state.source
        if ws is None:
            return None
        name = (ws.name or "").split(" ", 1)[0]
        redaction = self.app.redaction  # issue 22: with "Redact" on, the redacted transcript
        if src.get("kind") in ("example", "src") and not redaction.on:
            self.kind, self.fragment = "url", ""
            where = src.get("src") or "the examples of this site"
            return (f"The link names where the transcript is hosted ({where}); whoever opens it "
                    "loads it from there, with this view.")
        text = redaction.source_text(ws)
        packed = None
        if text is not None and len(text) <= SHARE_LIMIT * SHARE_PRECHECK:
            packed = encode_share(text, {"name": ws.name or ""})
        if packed is not None:
            self.kind, self.fragment = "inline", packed
            return ("The transcript travels inside the link, after the #, which browsers never "
                    "send to a server.")
        fp = fingerprint(redaction.source_parts(ws), name=name)
        self.kind, self.fragment = "fingerprint", fp.fragment()
        return (f"This transcript ({fp.describe()}) is too large to travel in a link. The link "
                "carries the view and the transcript's fingerprint: send the file along with it. "
                "Whoever opens the link and then that file sees this view.")

    def make(self) -> None:
        e = self.els
        self.reset()
        note = self.prepare()
        if note is None:
            return
        e["share-note"].textContent = note
        show(e["share-note"])
        self.show_link(self.link())
        if self.kind == "fingerprint":
            single = self.app.ws.source_text() is not None
            e["share-too-large-text"].textContent = ("Send the transcript with the link:" if single else
                                                     "Send the files with the link (the relays too, if you like):")
            show(e["download-source"], single)
            show(e["share-too-large"])

    def copy(self) -> None:
        link = str(self.els["share-link-text"].value)
        if not link:
            return
        clipboard = getattr(window.navigator, "clipboard", None)  # undefined on plain http
        if not clipboard:
            self.select_for_copy()
            return
        def done(_: Any) -> None:
            self.els["copy-link"].textContent = "Copied"

        def failed(_: Any) -> None:  # denied (a frame without clipboard-write, say)
            self.select_for_copy()

        clipboard.writeText(link).then(done, failed)

    def select_for_copy(self) -> None:
        field = self.els["share-link-text"]
        show(field)
        field.focus()
        field.select()
        self.els["copy-link"].textContent = "Press Ctrl+C (⌘C) to copy the selected link"

    # -- embedding ---------------------------------------------------------------------------------

    def make_embed(self) -> None:
        e = self.els
        if self.app.ws is None:
            return
        if not self.kind:
            self.prepare()
        show(e["embed-box"])
        if self.kind == "fingerprint":
            e["embed-snippet"].value = ""
            e["embed-note"].textContent = ("This transcript is too large to travel in a link, so a "
                                           "page cannot embed it from one. Put the file on a web "
                                           "server and open it here with ?src=<its URL>, then embed.")
            return
        title = f"Relayscope: {self.app.ws.name or 'transcript'}"
        e["embed-snippet"].value = iframe_snippet(self.link(embedded=True), title)
        e["embed-note"].textContent = ("The frame shows the stepper and the timeline at this step; "
                                       "add &panels=stepper,timeline,audit to the src for the audit, "
                                       "&theme=dark or light to fix the colours.")

    # -- a link that names its transcript by fingerprint --------------------------------------------

    def expect(self, fragment: str, view: dict[str, Any]) -> None:
        """Opened from a fingerprint link: wait for the reader to open the file. ValueError in
        the reader's words if the link is damaged."""
        fp = parse_fingerprint(fragment)
        self.pending = (fp, view)
        if view.get("strategy"):
            self.app.state.strategy = view["strategy"]
            self.app.els["strategy"].value = view["strategy"]
        box = self.els["pending-view"]
        named = f"“{fp.name}” " if fp.name else ""
        box.textContent = (f"This link shows a view of the transcript {named}({fp.describe()}), too "
                           "large to travel in a link. Open that file (Open files…, or drop it on "
                           "this page) and the view appears.")
        show(box)

    def match_pending(self, ws: Any, view: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str]:
        """After loading an input: the view to show, and a note, if a link was waiting for it."""
        if self.pending is None:
            return view, ""
        expected, linked = self.pending
        self.pending = None
        show(self.els["pending-view"], False)
        got = fingerprint(ws.source_parts())
        if got.matches(expected):
            return {**linked, **(view or {})}, "This is the transcript the link was made from: showing its view."
        return view, (f"This is not the transcript the link was made from (the link names "
                      f"{expected.describe()}; this one is {got.describe()}), so it is shown from the "
                      "start, not with the link's view.")

    # -- ?src= from another site ----------------------------------------------------------------------

    def needs_consent(self, url: str) -> bool:
        here = urlsplit(str(window.location.href))
        there = urlsplit(urljoin(str(window.location.href), url))
        return (there.scheme, there.netloc) != (here.scheme, here.netloc)

    def ask_src(self, url: str, then: Any) -> None:
        """Show where a ``?src=`` on another site would be fetched from; fetch only on consent."""
        there = urlsplit(urljoin(str(window.location.href), url))
        self.els["src-host"].textContent = there.netloc or url
        self.els["src-url"].textContent = url
        self.src_ask = (url, then)
        show(self.els["src-ask"])

    def confirm_src(self) -> None:
        if self.src_ask is None:
            return
        _url, then = self.src_ask
        self.src_ask = None
        show(self.els["src-ask"], False)
        self.app.jobs.set_state("analyzing")
        self.app.jobs.spawn(then())

    def cancel_src(self) -> None:
        self.src_ask = None
        show(self.els["src-ask"], False)
        self.app.notice(["Nothing was loaded. Paste, drop or open a transcript, or pick an example."])

    # -- compare with lineage ---------------------------------------------------------------------------

    def update_compare(self) -> None:
        button = self.els["compare-lineage"]
        strategy = self.app.state.strategy
        on = bool(self.compare_from) and strategy == "lineage"
        if not on:
            self.compare_from = ""
        button.setAttribute("aria-pressed", "true" if on else "false")
        button.textContent = f"Back to '{self.compare_from}'" if on else "Compare with lineage"
        show(button, self.app.ws is not None and (on or strategy != "lineage"))

    def toggle_compare(self) -> None:
        app = self.app
        if app.ws is None or app.jobs.busy:
            return
        if self.compare_from and app.state.strategy == "lineage":
            target, self.compare_from = self.compare_from, ""
        else:
            self.compare_from, target = app.state.strategy, "lineage"
        app.els["strategy"].value = target
        app.jobs.start_work(app.rerun(target))
