"""chrome: what frames the rows: the panels beside them and how each folds, the theme, the help,
the skip links, the fingerprint legend, and the menu that a narrow window's controls sit behind.

``Panels`` is the detail panel: a tab each for the selected row, the step-through, the lanes,
the audit and sharing, one shown as ``ViewState.tab`` says (the address's ``tab=``; none chosen:
the reading's own), folded or open (``detail=``) and sized (``size=``). ``Chrome`` holds the rest, each a click away.

Must not: draw a panel's content (panels.py does), or know the workspace beyond the legend.
"""

from __future__ import annotations

import contextlib
from typing import Final

from . import legend
from .dom import Element, On, show
from .protocol import Size
from .remote import DOCUMENT as document
from .remote import PAGE, Event
from .remote import WINDOW as window
from .view import SIZES, TABS, Address, Shown, Signal, ViewState, query_dict

THEMES: Final = ("auto", "light", "dark")
THEME_KEY: Final = "relayscope-theme"
DEFAULT_SIZE: Final = 32  # %: the detail panel's size when the address gives none


class Panels:
    """The detail panel: its tabs by name (one shown at a time; ARIA tabs, arrows move between
    them through ``Keyboard.rove``), folded to its tab bar or open, and its size (the separator's
    drag or keys, which the page handles and sends as a ``size`` message)."""

    def __init__(self, view: ViewState, address: Address, *, embed: bool = False) -> None:
        self.view, self.address, self.embed = view, address, embed
        self.sections: dict[str, Element] = {}
        self.tabs: dict[str, Element] = {}
        self.chosen: Signal[[str]] = Signal()  # a tab is shown (the row tab draws the selected row)
        self.root = document.documentElement

    def add(self, name: str, section: Element, tab: Element) -> None:
        self.sections[name], self.tabs[name] = section, tab

    def wire(self, on: On) -> None:
        for tab in self.tabs.values():
            on(tab, "click", self.on_tab)
        on(document.element("detail-fold"), "click", lambda _: self.fold(not self.view.detail_open))
        PAGE.subscribe(Size, self.on_size)
        on(document.element("open-share"), "click", lambda _: self.choose("share", focus=True))

    def current(self) -> str:
        """The tab shown: the one chosen, else the reading's own."""
        if self.view.tab in self.sections:
            return self.view.tab
        return "stepper" if self.view.reading == "protocol" else "row"

    def draw(self) -> None:
        """The tab shown, the others hidden (an embed shows every panel its author chose), the
        panel open or folded, its size."""
        shown = self.current()
        for name, section in self.sections.items():
            on = name == shown
            section.hidden = not on and not self.embed
            tab = self.tabs[name]
            tab.setAttribute("aria-selected", "true" if on else "false")
            tab.setAttribute("tabindex", "0" if on else "-1")
        opened = self.view.detail_open
        self.root.dataset.detail = "open" if opened else "closed"
        fold = document.element("detail-fold")
        fold.setAttribute("aria-expanded", "true" if opened else "false")
        fold.textContent = "Hide" if opened else "Show"
        size = self.view.size
        document.element("panes").style.setProperty("--detail-size", f"{size or DEFAULT_SIZE}%")
        resizer = document.element("detail-resizer")
        resizer.setAttribute("aria-valuenow", str(size or DEFAULT_SIZE))

    def choose(self, name: str, *, focus: bool = False) -> None:
        """Show tab ``name`` (and the panel, if it was folded)."""
        if name not in self.sections:
            return
        self.view.tab, self.view.detail_open = name, True
        self.draw()
        self.chosen.emit(name)
        if focus:
            self.tabs[name].focus()
        self.address.sync()

    def on_tab(self, event: Event) -> None:
        tab = event.closest("[data-tab]")
        if tab is not None:
            self.choose(str(tab.dataset.tab))

    def fold(self, opened: bool) -> None:
        self.view.detail_open = opened
        self.draw()
        self.address.sync()

    def on_size(self, message: Size) -> None:
        """The separator let go, or moved by a key: the size (the page has drawn it already)."""
        if message.percent is not None:
            self.view.size = min(max(message.percent, SIZES[0]), SIZES[1])
            self.draw()
            self.address.sync()


def page_panels(view: ViewState, address: Address, *, embed: bool = False) -> Panels:
    """index.html's detail panel: the row, the step-through, the lanes, the audit, sharing."""
    panels = Panels(view, address, embed=embed)
    sections = {"row": "panel-row", "outline": "panel-outline", "stepper": "stepper", "lanes": "lanes-panel",
                "audit": "audit", "share": "panel-share"}
    for name in TABS:
        panels.add(name, document.element(sections[name]), document.element(f"tab-{name}"))
    return panels


class Chrome:
    """The theme, the help, the skip links, the fingerprint legend and the narrow window's menu
    (``<html data-menu=open>``: workspace.css shows the controls it holds)."""

    IDS: Final = ("theme", "help-toggle", "help", "skip-to-stepper", "skip-to-timeline", "stepper", "timeline",
                  "fp-legend-box", "fp-legend", "swimlanes", "swimlanes-fold", "menu")

    def __init__(self, shown: Shown, panels: Panels | None = None) -> None:
        self.shown, self.panels = shown, panels
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
        on(e["swimlanes-fold"], "click", lambda _: self.fold_swimlanes())
        on(e["menu"], "click", lambda _: self.open_menu(not self.menu_open()))

    def menu_open(self) -> bool:
        return self.root.getAttribute("data-menu") == "open"

    def open_menu(self, opened: bool, *, focus: bool = False) -> None:
        """The narrow window's menu shown or put away (``focus``: the focus back on its button)."""
        if opened:
            self.root.dataset.menu = "open"
        else:
            self.root.removeAttribute("data-menu")
        self.els["menu"].setAttribute("aria-expanded", "true" if opened else "false")
        if focus:
            self.els["menu"].focus()

    def fold_swimlanes(self) -> None:
        """The swimlanes folded to their head line (the rows get the height), or open again."""
        folded = self.els["swimlanes-fold"].getAttribute("aria-expanded") == "true"
        self.els["swimlanes-fold"].setAttribute("aria-expanded", "false" if folded else "true")
        self.els["swimlanes"].classList.toggle("folded", folded)

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
        if name == "stepper" and self.panels is not None:
            self.panels.choose("stepper")  # a tab of the detail panel: shown before it takes the focus
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
