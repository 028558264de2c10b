"""chrome: what frames the rows: the panels beside them and how each folds, the theme, the help,
the skip links, the fingerprint legend.

``Panels`` is the detail area: panels registered by name (the step-through, the lanes, the
audit), each open or folded as ``ViewState.closed`` says (the address's ``closed=``); a layout
with tabs registers its tabs the same way. ``Chrome`` holds the rest, each a click away.

Must not: draw a panel's content (panels.py does), or know the workspace beyond the legend.
"""

from __future__ import annotations

import contextlib
from typing import Final

from . import legend
from .dom import Element, On, show
from .remote import DOCUMENT as document
from .remote import WINDOW as window
from .remote import Event
from .view import PANELS, Address, Shown, ViewState, query_dict

THEMES: Final = ("auto", "light", "dark")
THEME_KEY: Final = "relayscope-theme"


class Panels:
    """The panels beside the rows, by name: each open or folded."""

    def __init__(self, view: ViewState, address: Address) -> None:
        self.view, self.address = view, address
        self.sections: dict[str, Element] = {}
        self.toggles: dict[str, Element] = {}

    def add(self, name: str, section: Element, toggle: Element) -> None:
        self.sections[name], self.toggles[name] = section, toggle

    def wire(self, on: On) -> None:
        for toggle in self.toggles.values():
            on(toggle, "click", self.on_toggle)

    def draw(self) -> None:
        """Each panel open or folded as the view says."""
        for name, section in self.sections.items():
            closed = name in self.view.closed
            section.classList.toggle("collapsed", closed)
            self.toggles[name].setAttribute("aria-expanded", "false" if closed else "true")

    def on_toggle(self, event: Event) -> None:
        button = event.closest("[data-panel]")
        if button is None:
            return
        self.view.closed ^= {str(button.dataset.panel)}
        self.draw()
        self.address.sync()


def page_panels(view: ViewState, address: Address) -> Panels:
    """index.html's panels: the step-through, the lanes, the audit."""
    panels = Panels(view, address)
    sections = {"stepper": "stepper", "lanes": "lanes-panel", "audit": "audit"}
    for name in PANELS:
        panels.add(name, document.element(sections[name]), document.element(f"toggle-{name}"))
    return panels


class Chrome:
    """The theme, the help, the skip links and the fingerprint legend."""

    IDS: Final = ("theme", "help-toggle", "help", "skip-to-stepper", "skip-to-timeline", "stepper", "timeline",
                  "fp-legend-box", "fp-legend")

    def __init__(self, shown: Shown) -> None:
        self.shown = shown
        self.root = document.documentElement
        self.els = {name: document.element(name) for name in self.IDS}

    def wire(self, on: On) -> None:
        e = self.els
        on(e["theme"], "click", lambda _: self.apply_theme(self.next_theme()))
        on(e["help-toggle"], "click", lambda _: self.toggle_help())
        # no #stepper or #timeline in the address: the fragment carries share links
        on(e["skip-to-stepper"], "click", lambda _: self.skip_to("stepper"), prevent=True)
        on(e["skip-to-timeline"], "click", lambda _: self.skip_to("timeline"), prevent=True)
        on(e["fp-legend-box"], "toggle", lambda _: self.fill_legend())

    def next_theme(self) -> str:
        return THEMES[(THEMES.index(self.root.getAttribute("data-theme") or "auto") + 1) % len(THEMES)]

    def apply_theme(self, theme: str, save: bool = True) -> None:
        theme = theme if theme in THEMES else "auto"
        if theme == "auto":
            self.root.removeAttribute("data-theme")
        else:
            self.root.dataset.theme = theme
        self.els["theme"].textContent = f"Theme: {theme}"
        if save:
            save_theme(theme)

    def toggle_help(self) -> None:
        box, button = self.els["help"], self.els["help-toggle"]
        show(box, bool(box.hidden))
        button.setAttribute("aria-expanded", "false" if box.hidden else "true")

    def skip_to(self, name: str) -> None:
        self.els[name].focus()
        self.els[name].scrollIntoView({"block": "nearest"})

    def show_skips(self, visible: bool) -> None:
        show(self.els["skip-to-timeline"], visible)
        show(self.els["skip-to-stepper"], visible)

    def fill_legend(self) -> None:
        if self.shown.ws is not None and self.els["fp-legend-box"].open:
            legend.fill(self.els["fp-legend"], self.shown.ws.fp_legend())


def stored_theme() -> str:
    """The theme the reader chose last time; "auto" where storage is denied."""
    try:
        return str(window.localStorage.getItem(THEME_KEY) or "auto")
    except PermissionError:  # a frame on another site
        return "auto"


def url_theme() -> str:
    """``?theme=light|dark``, or ""."""
    value = query_dict(str(window.location.search)).get("theme", "")
    return value if value in ("light", "dark") else ""


def save_theme(theme: str) -> None:
    with contextlib.suppress(PermissionError):  # storage denied: the choice lasts this visit
        window.localStorage.setItem(THEME_KEY, theme)
