"""embed: embed mode and the embed builder.

In embed mode (``<html data-embed="1">``, set from ``?embed=1`` by static/js/embed.mjs before
Python boots; static/css/embed.css does the layout, embed.mjs posts the frame's height to its
parent) the view the author linked stays put (the stepper keeps its step when a row is
clicked), and "Open in Relayscope" follows the view.

The builder ("Embed this view", in index.html's ``#embed-box``): panels, theme, strategy, step
and height for the snippet, a live preview (a frame of this site showing the snippet's URL) and
Copy, which selects the snippet where there is no clipboard. It names the transcript as the share
link does (links.Links.prepare); an input too large for a link (kind "fingerprint") is named by
where its shareable file is hosted (``?src=``, beside this site unless the author types another
address), and the preview loads it from there.

Must not: build markup from strings (the snippet is text in a textarea), fetch anything, or use
storage.
"""

from __future__ import annotations

import html
from typing import Final

from ..intake import fmt_size
from ..translator import STRATEGY_NAMES
from .dom import Handler, On, option, show
from .links import Links, copy
from .remote import DOCUMENT as document
from .remote import WINDOW as window
from .share import embed_params, view_url
from .view import Shown, ViewState

IDS: Final = ("embed-view", "embed-box", "embed-snippet", "embed-note", "open-full", "embed-title", "embed-builder",
              "embed-theme", "embed-strategy", "embed-step", "embed-height", "embed-copy", "embed-preview",
              "step-slider", "embed-src", "embed-src-row")
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


class Embed:
    def __init__(self, view: ViewState, shown: Shown, links: Links) -> None:
        self.view, self.shown, self.links = view, shown, links
        self.root = document.documentElement
        self.els = {name: document.element(name) for name in IDS}
        self.on = str(self.root.getAttribute("data-embed") or "") == "1"  # this page is an embed
        self.panels: set[str] = set(BUILDER_PANELS)  # the builder's choice
        self.panel_buttons = {name: document.element(f"embed-panel-{name}") for name in PANELS}
        self.els["embed-strategy"].replaceChildren(*[option(name, name) for name in STRATEGY_NAMES])

    def wire(self, on: On) -> None:
        e = self.els
        on(e["embed-view"], "click", lambda _: self.open())
        on(e["embed-copy"], "click", lambda _: self.copy())
        for name, button in self.panel_buttons.items():
            on(button, "click", self._toggler(name))
        for name, kind in (("embed-theme", "change"), ("embed-strategy", "change"),
                           ("embed-step", "input"), ("embed-height", "input"), ("embed-src", "input")):
            on(e[name], kind, lambda _: self.build())

    def _toggler(self, name: str) -> Handler:
        return lambda _: self.toggle_panel(name)

    def toggle_panel(self, name: str) -> None:
        if name in self.panels and len(self.panels) > 1:  # an embed shows at least one panel
            self.panels.discard(name)
        else:
            self.panels.add(name)
        self.build()

    def follow(self) -> None:
        """The view changed: "Open in Relayscope" and the snippet show it too."""
        if self.on:
            here = str(window.location.hash)[1:]
            self.els["open-full"].href = view_url(self.links.base(), self.links.params(), here)
            self.els["embed-title"].textContent = (self.shown.ws.name or "") if self.shown.ws else ""
        if not self.els["embed-box"].hidden:
            self.view_to_builder()
            self.build()

    def reset(self) -> None:
        """A new input: no snippet until asked for again, no frame left running a past input."""
        show(self.els["embed-box"], False)
        self.els["embed-copy"].textContent = "Copy"
        self.els["embed-preview"].removeAttribute("src")
        self.els["embed-src"].value = ""  # the next input's shareable file has its own name

    def remake(self) -> None:
        """"Redact" changed: a snippet shown is made again."""
        if not self.els["embed-box"].hidden:
            self.open()

    def open(self) -> None:
        """"Embed this view": open the builder on the view shown."""
        if self.shown.ws is None:
            return
        if not self.links.kind:
            self.links.prepare()
        show(self.els["embed-box"])
        self.view_to_builder()
        self.build()

    def view_to_builder(self) -> None:
        """The builder's strategy and step follow the view (the author tunes them after)."""
        e = self.els
        e["embed-strategy"].value = self.view.strategy
        e["embed-step"].value = str(self.view.step + 1)
        e["embed-step"].setAttribute("max", str(int(e["step-slider"].max or 0) + 1))
        theme = str(self.root.getAttribute("data-theme") or "")
        if not str(e["embed-theme"].value) and theme in ("light", "dark"):
            e["embed-theme"].value = theme

    def url(self) -> str:
        """The URL of the builder's embed: the view, with its strategy, step, panels and theme."""
        e = self.els
        view = self.links.params()
        hosted = self.links.kind == "fingerprint"  # too large for a link: its shareable file is hosted
        if hosted:
            view = {"src": self.hosted_at(), **{k: v for k, v in view.items() if k not in ("src", "example")}}
        params = embed_params(view, theme=str(e["embed-theme"].value),
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
        return view_url(self.links.base(), params, "" if hosted else self.links.fragment)

    def hosted_at(self) -> str:
        """Where the shareable file is hosted: the builder's field, else its name beside this site."""
        typed = str(self.els["embed-src"].value).strip()
        return typed or (self.links.sharefile or ("", 0))[0]

    def build(self) -> None:
        """The snippet, the preview and the panel buttons, from the builder's fields."""
        e = self.els
        ws = self.shown.ws
        if ws is None or e["embed-box"].hidden:
            return
        for name, button in self.panel_buttons.items():
            button.setAttribute("aria-pressed", "true" if name in self.panels else "false")
        hosted = self.links.kind == "fingerprint"
        show(e["embed-src-row"], hosted)
        if hosted and not str(e["embed-src"].value).strip():
            e["embed-src"].value = self.hosted_at()
        show(e["embed-builder"])
        height = clamp_height(e["embed-height"].value)
        url = self.url()
        title = self.links.redaction.name(ws.name or "") or "transcript"  # "Redact" on: the name redacted too
        e["embed-snippet"].value = snippet(url, f"Relayscope: {title}", height)
        e["embed-copy"].textContent = "Copy"
        file, size = self.links.sharefile or ("", 0)
        e["embed-note"].textContent = (
            (f"Too large for a link: the embed loads the shareable file from {self.hosted_at()}. Save it "
             f"(Shareable file, {fmt_size(size)}) and host it there, beside this site as {file}, or type "
             "where it will be; the preview shows it once it is there. "
             if hosted else "")
            + "The frame tells its page its height (a message {type: 'relayscope:height', height}), should "
            "you want to size it to fit; docs/embedding.md shows how.")
        preview = e["embed-preview"]
        if str(preview.getAttribute("src") or "") != url:
            preview.setAttribute("sandbox", SANDBOX)
            preview.setAttribute("src", url)
        preview.setAttribute("height", str(height))
        show(preview)

    def copy(self) -> None:
        copy(str(self.els["embed-snippet"].value), self.els["embed-copy"], self.select_snippet)

    def select_snippet(self) -> None:
        field = self.els["embed-snippet"]
        field.focus()
        field.select()
        self.els["embed-copy"].textContent = "Press Ctrl+C (⌘C) to copy the selected snippet"
