"""keyboard: the page's keys, in one table (``KEYS``), for both sides: the page prevents a key's
default in the key's own event (it cannot wait for the worker) when a rule takes it, and this
module does what the rule says. The table goes to the page with the keydown listener (dom.
Listeners, op listen's ``keys``); each side tests the rule's conditions (protocol.KEY_WHEN) on
what it knows: the page on its DOM, this module on the view.

The first rule whose key matches and whose conditions all hold takes the key. The chips and the
examples gallery and the detail panel's tabs are one Tab stop each; arrows, Home and End move within them (``rove``).

Must not: step, select or filter itself (it asks the stepper, the selection, the filters).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

import msgspec

from .chips import chip_key
from .jobs import Jobs
from .remote import Event, Node
from .timeline import Timeline
from .view import TABS, Shown, ViewState

ROVE: Final = ("ArrowRight", "ArrowLeft", "ArrowDown", "ArrowUp", "Home", "End")
FIELDS: Final = ("INPUT", "TEXTAREA", "SELECT")
BUTTONS: Final = ("BUTTON", "A", "SUMMARY")
VIEW: Final = ("typing-ok", "plain", "view")
SEARCH_BOX: Final = "filter"  # the search's text field (index.html)


class KeyRule(msgspec.Struct, frozen=True):
    keys: tuple[str, ...]
    when: tuple[str, ...]  # conditions, all of which hold (protocol.KEY_WHEN)
    action: str  # Keyboard's handler of the same name
    prevent: bool = True  # the page prevents the key's default


KEYS: Final = (
    KeyRule(("Escape",), ("menu-open",), "close_menu"),  # the narrow window's menu first, wherever the focus is
    KeyRule(("Escape",), ("search",), "leave_field"),  # prevented: a search field's Esc would clear it
    KeyRule(("Escape",), ("field",), "leave_field", prevent=False),  # typing ends; the search's text stays
    KeyRule(("Enter",), ("search", "shift"), "match_prev"),  # in the search box: its previous match
    KeyRule(("Enter",), ("search",), "match_next"),
    KeyRule(ROVE, ("typing-ok", "plain", "group"), "rove"),
    KeyRule(("ArrowRight", "l", "n"), VIEW, "step_next"),
    KeyRule(("ArrowLeft", "h", "p"), VIEW, "step_prev"),
    KeyRule(("ArrowDown", "j"), VIEW, "row_next"),
    KeyRule(("ArrowUp", "k"), VIEW, "row_prev"),
    KeyRule(("Enter",), (*VIEW, "not-button", "row-selected"), "row_toggle"),
    KeyRule(("Escape",), (*VIEW, "row-open"), "row_close"),
    KeyRule(("Escape",), (*VIEW, "searching"), "clear_search"),  # Esc again, out of the box: the text goes
    KeyRule(("/",), VIEW, "find"),
    KeyRule(("Home",), (*VIEW, "not-body"), "row_first"),
    KeyRule(("End",), (*VIEW, "not-body"), "row_last"),
    KeyRule(("PageDown",), (*VIEW, "not-body", "not-button"), "page_down"),
    KeyRule(("PageUp",), (*VIEW, "not-body", "not-button"), "page_up"),
)


def for_page() -> list[dict[str, object]]:
    """The table as the page reads it (the keys it prevents, under which conditions)."""
    return [{"keys": list(r.keys), "when": list(r.when), "prevent": r.prevent} for r in KEYS]


class Stepping(Protocol):
    def next(self, delta: int) -> None: ...


class Selecting(Protocol):
    def select(self, seq: int | None, expanded: bool | None = None, follow_step: bool = True) -> None: ...

    def move(self, delta: int) -> None: ...


class Roving(Protocol):
    focus_key: str  # the chip that holds the chips' one Tab stop


class Filtering(Protocol):
    @property
    def chips(self) -> Roving: ...

    def clear_text(self) -> None: ...

    def focus(self) -> None: ...

    def move_match(self, delta: int) -> None: ...


class Tabbing(Protocol):
    def choose(self, name: str, *, focus: bool = False) -> None: ...


class Menu(Protocol):
    def menu_open(self) -> bool: ...

    def open_menu(self, opened: bool, *, focus: bool = False) -> None: ...


class Keyboard:
    def __init__(self, view: ViewState, shown: Shown, jobs: Jobs, timeline: Timeline, stepper: Stepping,
                 selection: Selecting, filters: Filtering, tabs: Tabbing | None = None,
                 menu: Menu | None = None) -> None:
        self.view, self.shown, self.jobs, self.timeline = view, shown, jobs, timeline
        self.stepper, self.selection, self.filters, self.tabs = stepper, selection, filters, tabs
        self.menu = menu
        self.when: dict[str, Callable[[Event], bool]] = {
            "field": lambda e: e.tag in FIELDS or bool(getattr(e.target, "isContentEditable", False)),
            "search": lambda e: e.tag == "INPUT" and str(getattr(e.target, "id", "")) == SEARCH_BOX,
            "shift": lambda e: bool(e.shiftKey),
            "typing-ok": lambda e: not self.when["field"](e),
            "plain": lambda e: not (e.ctrlKey or e.metaKey or e.altKey),
            "group": lambda e: self._group(e) is not None or self._tab(e) is not None,
            "view": lambda _: self.shown.ws is not None and not self.jobs.busy,
            "not-body": lambda e: e.tag != "BODY",
            "not-button": lambda e: e.tag not in BUTTONS,
            "row-selected": lambda _: self.view.row is not None,
            "row-open": lambda _: self.view.expanded,
            "searching": lambda _: bool(self.view.text),
            "menu-open": lambda _: self.menu is not None and self.menu.menu_open(),
        }
        self.actions: dict[str, Callable[[Event], object]] = {
            "leave_field": self.leave_field,
            "close_menu": lambda _: self.menu.open_menu(False, focus=True) if self.menu is not None else None,
            "match_next": lambda _: self.filters.move_match(1),
            "match_prev": lambda _: self.filters.move_match(-1),
            "rove": self.rove,
            "step_next": lambda _: self.stepper.next(1),
            "step_prev": lambda _: self.stepper.next(-1),
            "row_next": lambda _: self.selection.move(1),
            "row_prev": lambda _: self.selection.move(-1),
            "row_toggle": lambda _: self.selection.select(self.view.row, expanded=not self.view.expanded,
                                                          follow_step=False),
            "row_close": lambda _: self.selection.select(self.view.row, expanded=False, follow_step=False),
            "find": lambda _: self.filters.focus(),
            "clear_search": lambda _: self.filters.clear_text(),
            "row_first": lambda _: self.selection.move(-len(self.timeline.seqs)),
            "row_last": lambda _: self.selection.move(len(self.timeline.seqs)),
            "page_down": lambda _: self.selection.move(self.timeline.page_rows()),
            "page_up": lambda _: self.selection.move(-self.timeline.page_rows()),
        }

    def rule(self, event: Event) -> KeyRule | None:
        """The rule that takes this key, if any."""
        return next((r for r in KEYS if event.key in r.keys and all(self.when[c](event) for c in r.when)), None)

    def on_key(self, event: Event) -> None:
        rule = self.rule(event)
        if rule is not None:
            self.actions[rule.action](event)

    def leave_field(self, event: Event) -> None:
        """Esc in a text field: the field is left for the rows (never for the page's body, where
        the keys would reach nothing); the search's text stays, and a second Esc clears it."""
        if event.tag != "INPUT":
            return
        if self.shown.ws is not None:
            self.timeline.container.focus()
        else:
            event.target.blur()

    @staticmethod
    def _group(event: Event) -> Node | None:
        return event.closest(".chips") or event.closest(".gallery")

    def _tab(self, event: Event) -> str | None:
        """The detail panel's tab the key was pressed on (the page's own buttons, ``tab-NAME``)."""
        name = str(getattr(event.target, "id", "") or "").removeprefix("tab-")
        return name if self.tabs is not None and name in TABS else None

    @staticmethod
    def _moved(k: int, n: int, key: str) -> int:
        """Where Home, End or an arrow goes from item ``k`` of ``n``."""
        return (0 if key == "Home" else n - 1 if key == "End"
                else min(max(k + (1 if key in ("ArrowRight", "ArrowDown") else -1), 0), n - 1))

    def rove(self, event: Event) -> None:
        """Arrow keys, Home and End on a chip, an example card or a tab: focus the next one, which
        takes the group's one Tab stop (a tab is shown as it takes the focus)."""
        tab = self._tab(event)
        if tab is not None and self.tabs is not None:
            k = self._moved(TABS.index(tab), len(TABS), event.key)
            self.tabs.choose(TABS[k], focus=True)  # shown as it takes the focus
            return
        group = self._group(event)
        here = event.closest("button")
        buttons = group.querySelectorAll("button") if group is not None else []
        if here not in buttons:
            return
        k = self._moved(buttons.index(here), len(buttons), event.key)
        for i, b in enumerate(buttons):
            b.setAttribute("tabindex", "0" if i == k else "-1")
        buttons[k].focus()
        if group is not None and group.classList.contains("chips"):
            self.filters.chips.focus_key = chip_key(buttons[k])
