"""notices: the message box under the input: what the reader should know about the last input
(skipped files, a link's view applied or not), or why it could not be read.

Must not: hold anything but the box (the status line is the jobs'), or build markup.
"""

from __future__ import annotations

from .dom import Element, h, show


class Notices:
    def __init__(self, box: Element) -> None:
        self.box = box

    def say(self, lines: list[str], error: bool = False) -> None:
        """The box shows ``lines`` (hidden when there are none), as an error or not."""
        self.box.replaceChildren(*[h("p", line) for line in lines])
        self.box.classList.toggle("error", error)
        show(self.box, bool(lines))

    def fail(self, text: str) -> None:
        """A job failed (Jobs.failed): the reason, as an error."""
        self.say([text], error=True)
