"""redact_switch: the "Redact" switch of the share section, the reader's own words and the preview.

On, the share link, the embed snippet, the shareable file, the snapshot and every download
(transcript, relays, trace) carry the input with its secrets replaced (``share.Redacted``, ``redact.Redactor``); the preview lists what
is removed: the line, the kind, a masked excerpt (a few leading characters and the length, never
the secret), and each secret once with the places it took (``Redactor.tally``: a name found
once is replaced wherever it is a word). The words box adds words of the reader's own (a company,
a project, a client; several at once, comma-separated), replaced as ``--redact-word`` replaces
them (``Redactor.add_word``) in everything the switch covers; each says how many places it took,
and can be taken out again. The words stay for the next input. The switch is a button with ``role="switch"`` (its state is Python's: the page only
forwards the click). Turning it on or off tells ``changed`` (a link or snippet already shown is
made again).

Must not: redact anything itself (redact.py does), build markup from strings (text nodes only),
or keep the redacted copy of an input past the next load.
"""

from __future__ import annotations

from typing import Final

from .. import sharefile
from ..redact_words import MAX_WORD, eligible
from .dom import Element, On, fmt_int, h, show
from .model import Workspace
from .remote import DOCUMENT as document
from .remote import Event
from .share import Redacted, shared
from .view import Shown, Signal

PREVIEW_ROWS: Final = 200  # listed; the summary counts them all
IDS: Final = ("redact-switch", "redact-summary", "redact-preview", "redact-rows", "redact-more",
              "redact-tally", "redact-tally-rows", "redact-words-box", "redact-words-form", "redact-word-input",
              "redact-word-note", "redact-words")


class RedactSwitch:
    def __init__(self, shown: Shown) -> None:
        self.shown = shown
        self.root = document.documentElement
        self.els = {name: document.element(name) for name in IDS}
        self.on = False
        self.changed: Signal[[]] = Signal()
        self.words: list[str] = []  # the reader's own, in the order added
        self._cache: tuple[int, Redacted] | None = None  # (id of the workspace, its redacted copy)

    def wire(self, on: On) -> None:
        on(self.els["redact-switch"], "click", lambda _: self.toggle())
        on(self.els["redact-words-form"], "submit", lambda _: self.add_typed(), prevent=True)
        on(self.els["redact-words"], "click", self._remove_clicked)

    def reset(self) -> None:
        """A new input: the switch stays as the reader set it; the preview is of the new input."""
        self._cache = None
        if self.on:
            self.draw()

    def redacted(self) -> Redacted | None:
        ws = self.shown.ws
        if not self.on or ws is None:
            return None
        if self._cache is None or self._cache[0] != id(ws):
            self._cache = (id(ws), Redacted(ws, ws.name, self.words))
        return self._cache[1]

    # -- what the share section and the downloads take ---------------------------------------------

    def source_text(self, ws: Workspace) -> str | None:
        r = self.redacted()
        return ws.source_text() if r is None else r.text()

    def source_parts(self, ws: Workspace) -> list[tuple[str | None, bytes]]:
        r = self.redacted()
        return ws.source_parts() if r is None else r.parts

    def source_bytes(self, ws: Workspace) -> bytes | None:
        r = self.redacted()
        return ws.source_bytes() if r is None else r.single

    def export(self, data: bytes) -> bytes:
        r = self.redacted()
        return data if r is None else r.export(data)

    def shared(self, ws: Workspace, view: dict[str, str]) -> sharefile.Shared:
        """The input as it leaves the page (the shareable file, a link's files, the snapshot)."""
        return shared(ws, ws.name, view, self.redacted())

    def name(self, name: str) -> str:
        """A name a download or the snapshot carries (the input's folder's: ``-Users-NAME-app``),
        redacted as the input is."""
        r = self.redacted()
        return name if r is None else r.name(name)

    # -- the reader's own words ----------------------------------------------------------------------

    def add_typed(self) -> None:
        """The words typed in the box (comma-separated), added; the box keeps what was refused."""
        field = self.els["redact-word-input"]
        typed = [w.strip() for w in str(field.value or "").split(",")]
        added: list[str] = []
        refused: list[str] = []
        for word in typed:
            if not word:
                continue
            if any(word.casefold() == w.casefold() for w in self.words + added):
                continue  # listed already: nothing to say
            (added if eligible(word, own=True) else refused).append(word)
        note = self.els["redact-word-note"]
        show(note, bool(refused))
        if refused:
            note.textContent = (f"Not added: {', '.join(f'“{w[:40]}”' for w in refused)}: a word has "
                                f"2 to {MAX_WORD} characters.")
        field.value = ", ".join(refused)
        if added:
            self.words += added
            self._words_changed()

    def remove(self, word: str) -> None:
        if word in self.words:
            self.words.remove(word)
            self._words_changed()

    def _remove_clicked(self, event: Event) -> None:
        button = event.closest("button[data-word]")
        if button is not None:
            self.remove(str(button.getAttribute("data-word")))

    def _words_changed(self) -> None:
        self._cache = None
        self.draw()
        if self.on:
            self.changed.emit()  # a link or snippet shown is made again with the words out

    # -- the switch ---------------------------------------------------------------------------------

    def toggle(self) -> None:
        self.on = not self.on
        self.draw()
        self.changed.emit()

    def draw(self) -> None:
        e = self.els
        e["redact-switch"].setAttribute("aria-checked", "true" if self.on else "false")
        self.root.dataset.redact = "on" if self.on else "off"
        r = self.redacted()
        show(e["redact-summary"], r is not None)
        show(e["redact-words-box"], self.on)
        show(e["redact-preview"], r is not None and bool(r.findings))
        tally = r.tally() if r is not None else []
        show(e["redact-tally"], bool(tally))
        e["redact-words"].replaceChildren(*[self._word_item(word, r) for word in self.words])
        rows = e["redact-rows"]
        show(e["redact-more"], False)
        if r is None:
            rows.replaceChildren()
            e["redact-tally-rows"].replaceChildren()
            return
        e["redact-summary"].textContent = r.summary()
        e["redact-tally-rows"].replaceChildren(*[
            h("tr", attrs={"data-kind": t.kind}, children=[
                h("td", t.kind), h("td", t.placeholder), h("td", t.masked), h("td", fmt_int(t.places))])
            for t in tally[:PREVIEW_ROWS]])
        rows.replaceChildren(*[h("tr", attrs={"data-kind": f.kind},
                                 children=[h("td", text) for text in (fmt_int(f.line), f.kind, f.masked)])
                               for f in r.findings[:PREVIEW_ROWS]])
        more = r.redactor.count + r.redactor.left - min(len(r.findings), PREVIEW_ROWS)  # the left are listed too
        if more > 0:
            e["redact-more"].textContent = f"… and {fmt_int(more)} more"
            show(e["redact-more"])

    @staticmethod
    def _word_item(word: str, r: Redacted | None) -> Element:
        """A word of the reader's, the places it took in this input, and its remove button."""
        n = r.redactor.places_of(word) if r is not None else None
        places = "" if n is None else "not found" if n == 0 else f"{fmt_int(n)} place{'s' if n != 1 else ''}"
        return h("li", attrs={"data-testid": "redact-word", "data-places": n}, children=[
            h("span", word, cls="redact-word-text"),
            h("span", places, cls="redact-word-places muted"),
            h("button", "×", cls="quiet", attrs={"type": "button", "data-word": word,
                                                 "data-testid": "redact-word-remove",
                                                 "aria-label": f"Stop redacting “{word}”"})])
