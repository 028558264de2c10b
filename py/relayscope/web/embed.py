"""embed: the page's links and frames. Embed mode, the share link that follows the view, links
that name a transcript by fingerprint, the embed builder and its ``<iframe>`` snippet, asking
before a ``?src=`` from another site, and the theme setting that survives storage being denied.

app.py owns the view; this module turns it into links (``share.py`` builds the strings) and
back. In embed mode (``<html data-embed="1">``, set from ``?embed=1`` by static/js/embed.mjs
before Python boots; static/css/embed.css does the layout, embed.mjs posts the frame's height
to its parent) the view the author linked stays put: a click on a row selects it without moving
the step.

The embed builder ("Embed this view", in index.html's ``#embed-box``): panels, theme, strategy,
step and height for the snippet, a live preview (a frame of this site showing the snippet's
URL) and Copy, which selects the snippet where there is no clipboard.

Must not: build markup from strings (the snippet is text in a textarea), fetch anything, or use
storage where it is denied (a frame on another site): every storage access is guarded.
"""

from __future__ import annotations

import contextlib
import html
from typing import Any, Final
from urllib.parse import parse_qs, urljoin, urlsplit

from .dom import fmt_int, show
from .model import SHARE_LIMIT, encode_share
from .remote import WINDOW as window
from .share import (
    Fingerprint,
    embed_params,
    fingerprint,
    full_params,
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
    "embed-builder", "embed-theme", "embed-strategy", "embed-step", "embed-height", "embed-copy",
    "embed-preview",
)
# The panels an embed can show (static/js/embed.mjs reads ?panels=), in the builder's order,
# and what the builder starts with: the example's point (the step's verdict, the audit) first.
PANELS: Final = ("stepper", "audit", "timeline", "lanes", "toolbar")
BUILDER_PANELS: Final = ("stepper", "audit", "timeline")
HEIGHT: Final = 480
HEIGHTS: Final = (160, 4000)
# What an embed needs of a sandbox, and no more: its scripts and worker (allow-scripts), its own
# files and storage (allow-same-origin: without it the frame has an opaque origin and cannot load
# its modules from a host that sends no CORS headers), "Open in Relayscope" in a new tab that is
# not sandboxed itself (allow-popups, allow-popups-to-escape-sandbox). No forms, downloads,
# top navigation, clipboard or fullscreen, so no `allow` attribute.
SANDBOX: Final = "allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"


def snippet(src: str, title: str, height: int = HEIGHT) -> str:
    """The ``<iframe>`` an author pastes into a page. Attribute values are escaped: the title
    comes from a file name."""
    return (f'<iframe src="{html.escape(src)}" title="{html.escape(title)}" width="100%" '
            f'height="{int(height)}" loading="lazy" sandbox="{SANDBOX}" '
            'style="border:1px solid #d1d9e0; border-radius:8px"></iframe>')


def clamp_height(value: object) -> int:
    """The builder's height field as pixels: a number in HEIGHTS, else the default."""
    try:
        number = int(float(str(value)))
    except (ValueError, OverflowError):  # "", "tall", "nan", "inf"
        return HEIGHT
    return max(HEIGHTS[0], min(HEIGHTS[1], number))


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
        self.panels: set[str] = set(BUILDER_PANELS)  # the builder's choice
        self.panel_buttons = {name: window.document.getElementById(f"embed-panel-{name}") for name in PANELS}

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
        on("embed-copy", self.copy_snippet)
        for name, button in self.panel_buttons.items():
            app.listeners.on(button, "click", app.jobs.safe(self._toggler(name)))
        for name, kind in (("embed-theme", "change"), ("embed-strategy", "change"),
                           ("embed-step", "input"), ("embed-height", "input")):
            app.listeners.on(e[name], kind, app.jobs.safe(lambda _: self.build()))

    def _toggler(self, name: str) -> Any:
        def toggle(_: Any) -> None:
            if name in self.panels and len(self.panels) > 1:  # an embed shows at least one panel
                self.panels.discard(name)
            else:
                self.panels.add(name)
            self.build()
        return toggle

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
            self.view_to_builder()
            self.build()

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
        self.els["embed-copy"].textContent = "Copy"
        self.els["embed-preview"].removeAttribute("src")  # no frame left running a past input

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
        self._copy(str(self.els["share-link-text"].value), "copy-link", self.select_for_copy)

    def _copy(self, text: str, button: str, fallback: Any) -> None:
        """Put ``text`` on the clipboard and say so on ``button``; ``fallback()`` (select the
        text for Ctrl+C) where there is no clipboard API (plain http) or it is denied."""
        if not text:
            return
        clipboard = getattr(window.navigator, "clipboard", None)  # undefined on plain http
        if not clipboard:
            fallback()
            return

        def done(_: Any) -> None:
            self.els[button].textContent = "Copied"

        clipboard.writeText(text).then(done, lambda _: fallback())

    def select_for_copy(self) -> None:
        field = self.els["share-link-text"]
        show(field)
        field.focus()
        field.select()
        self.els["copy-link"].textContent = "Press Ctrl+C (⌘C) to copy the selected link"

    # -- embedding ---------------------------------------------------------------------------------

    def make_embed(self) -> None:
        """ "Embed this view": open the builder on the view shown."""
        if self.app.ws is None:
            return
        if not self.kind:
            self.prepare()
        show(self.els["embed-box"])
        self.view_to_builder()
        self.build()

    def view_to_builder(self) -> None:
        """The builder's strategy and step follow the view (the author tunes them after)."""
        e, st = self.els, self.app.state
        e["embed-strategy"].value = st.strategy
        e["embed-step"].value = str(st.step + 1)
        e["embed-step"].setAttribute("max", str(int(self.app.els["step-slider"].max or 0) + 1))
        theme = str(self.app.root.getAttribute("data-theme") or "")
        if not str(e["embed-theme"].value) and theme in ("light", "dark"):
            e["embed-theme"].value = theme

    def embed_url(self) -> str:
        """The URL of the builder's embed: the view, with its strategy, step, panels and theme."""
        e = self.els
        params = embed_params(self.params(), theme=str(e["embed-theme"].value),
                              panels=",".join(p for p in PANELS if p in self.panels))
        strategy = str(e["embed-strategy"].value)
        if strategy:
            params["strategy"] = strategy
        try:
            step = int(str(e["embed-step"].value))
        except ValueError:
            step = 1
        params.pop("step", None)
        if step > 1:
            params["step"] = str(step)
        return view_url(self.base(), params, self.fragment)

    def build(self) -> None:
        """The snippet, the preview and the panel buttons, from the builder's fields."""
        e = self.els
        if self.app.ws is None or e["embed-box"].hidden:
            return
        for name, button in self.panel_buttons.items():
            button.setAttribute("aria-pressed", "true" if name in self.panels else "false")
        if self.kind == "fingerprint":
            e["embed-snippet"].value = ""
            show(e["embed-builder"], False)
            show(e["embed-preview"], False)
            e["embed-note"].textContent = ("This transcript is too large to travel in a link, so a "
                                           "page cannot embed it from one. Put the file on a web "
                                           "server and open it here with ?src=<its URL>, then embed.")
            return
        show(e["embed-builder"])
        height = clamp_height(e["embed-height"].value)
        url = self.embed_url()
        e["embed-snippet"].value = snippet(url, f"Relayscope: {self.app.ws.name or 'transcript'}", height)
        e["embed-copy"].textContent = "Copy"
        e["embed-note"].textContent = ("The frame tells its page its height (a message "
                                       "{type: 'relayscope:height', height}), should you want to "
                                       "size it to fit; docs/embedding.md shows how.")
        preview = e["embed-preview"]
        if str(preview.getAttribute("src") or "") != url:
            preview.setAttribute("sandbox", SANDBOX)
            preview.setAttribute("src", url)
        preview.setAttribute("height", str(height))
        show(preview)

    def copy_snippet(self) -> None:
        self._copy(str(self.els["embed-snippet"].value), "embed-copy", self.select_snippet)

    def select_snippet(self) -> None:
        field = self.els["embed-snippet"]
        field.focus()
        field.select()
        self.els["embed-copy"].textContent = "Press Ctrl+C (⌘C) to copy the selected snippet"

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
