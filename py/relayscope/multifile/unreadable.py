"""What every command calls unreadable in files read whole (a folder, a session's files, a
shareable file's): ``verdict``'s line check of each transcript, with the translators' own readers,
and the sub-agent meta files ``meta_errors`` cannot read. For the commands that pass files on
untranslated (``redact``, ``pack``, ``html``), said as ``translate`` says it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..formats.sse import FleetTranslator
from ..intake import is_spilled
from ..verdict import LineCheck, Readers
from ..wire import decode_line
from .groups import meta_errors
from .growing import meta_file_id

READERS: Final = Readers(FleetTranslator, decode_line)  # the translators' own: translating loads them anyway


def files_problems(files: Mapping[str, bytes]) -> list[tuple[str | None, int, str]]:
    """What is unreadable in a folder's or session's files: the lines of each transcript (not a
    session's spilled tool output, ``tool-results/``, which is plain text), and the
    sub-agent meta files a translation reads that are not the JSON object expected (one beside no
    agent file of a session is read by nothing)."""
    out: list[tuple[str | None, int, str]] = []
    for name, content in files.items():
        if meta_file_id(name) is not None or is_spilled(name):  # spilled tool output is plain text
            continue
        check = LineCheck(readers=READERS)
        lines = content.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        out += [(name, n, m) for number, line in enumerate(lines, 1) for n, m in check.feed(line, number)]
        out += [(name, n, m) for n, m in check.finish()]
    return out + meta_errors(files)
