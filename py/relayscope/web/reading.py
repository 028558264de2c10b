"""reading: the two readings of one run, and the switch between them.

*Run* is what happened, for someone debugging an agent run: messages, tool calls (each with its
result folded into its row), sub-agents, errors, with chips by what an event means (``GROUPS``).
*Protocol* is the stream as Relayscope reads it, for someone debugging the stream: every relay
event by its type, fingerprints, the step-through open. ``default_for`` says which reading an
input opens in; the address keeps the one chosen (``reading=``).

What an event means comes from ``relayscope.meaning`` (its place: content, lifecycle or
bookkeeping; whether it reports a failure); this module only names the chips of the run reading.

Must not: filter or draw rows itself (filters.py and rowdraw.py ask ``group_of`` and the view).
"""

from __future__ import annotations

from typing import Final, Protocol

from .. import meaning as M
from .. import relay as R
from .dom import On
from .remote import DOCUMENT as document
from .remote import Event
from .view import READINGS, Address, Shown, ViewState

# The run reading's chips, in the order drawn. "lifecycle" holds what is neither said nor done
# by an agent: lanes starting and ending, turns, usage, system records of how the run went.
GROUPS: Final = ("messages", "tools", "thinking", "errors", "lifecycle", "bookkeeping")
_BY_CLASS: Final[dict[type, str]] = {
    R.TextDelta: "messages", R.UserMessage: "messages", R.SubAgentResponse: "messages",
    R.ContentBlock: "messages", R.ThinkingDelta: "thinking",
    R.ToolUse: "tools", R.ToolResult: "tools", R.ToolCall: "tools", R.File: "tools",
    R.Error: "errors", R.Warning: "errors",
}
# Inputs by format (loading's names): a transcript on disk or a fleet's stream is read for what
# happened; stream-json, the output the de-dup works on, for how the stream was read.
PROTOCOL_FORMATS: Final = frozenset({"stream-json"})


def group_of(r: R.Relay) -> str:
    """The run reading's chip of relay ``r``."""
    if M.is_bookkeeping(r):
        return "bookkeeping"
    if isinstance(r, R.System | R.Passthrough):
        return "errors" if M.is_error(r) else "lifecycle"
    return _BY_CLASS.get(type(r), "lifecycle")


def default_for(fmt: str | None, source_kind: str) -> str:
    """The reading an input opens in: an example demonstrates the protocol; stream-json is read
    for its stream; session transcripts and fleets for what happened."""
    if source_kind == "example" or (fmt or "") in PROTOCOL_FORMATS:
        return "protocol"
    return "run"


class Redraw(Protocol):
    def reading_changed(self) -> None: ...


class Reading:
    """The switch (a radio group, ``[data-testid=reading]``) and ``<html data-reading>``."""

    def __init__(self, view: ViewState, shown: Shown, address: Address) -> None:
        self.view, self.shown, self.address = view, shown, address
        self.root = document.documentElement
        self.box = document.element("reading")
        self.radios = {name: document.element(f"reading-{name}") for name in READINGS}
        self.followers: list[Redraw] = []

    def wire(self, on: On) -> None:
        on(self.box, "change", self.on_change)

    def groups(self) -> list[str]:
        """Each relay's chip (``group_of``), for the relays shown so far (a watched input grows)."""
        ws = self.shown.ws
        if ws is None:
            return []
        have = self.shown.groups
        if len(have) < len(ws.relays):
            for r in ws.relays[len(have):]:  # a usage shown on its message's row goes by that row's chip
                row = ws.folded_into(r.seq) if isinstance(r, R.Usage) else None
                have.append(have[row] if row is not None else group_of(r))
        return have

    def draw(self) -> None:
        reading = self.view.reading or "run"
        self.root.dataset.reading = reading
        self.box.dataset.value = reading
        for name, radio in self.radios.items():
            radio.checked = name == reading

    def choose(self, reading: str) -> None:
        if reading not in READINGS or reading == self.view.reading:
            self.draw()
            return
        self.view.reading = reading
        # the chips of one reading are not those of the other: a choice of chips does not carry over
        self.view.types, self.view.xtypes = set(), set()
        self.draw()
        for follower in self.followers:
            follower.reading_changed()
        self.address.sync()

    def on_change(self, event: Event) -> None:
        target = event.closest("input")
        name = str(getattr(target, "id", "") or "").removeprefix("reading-")
        if self.shown.ws is not None:
            self.choose(name)
