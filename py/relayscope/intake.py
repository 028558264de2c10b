"""intake: what counts as an input, decided once for the command line and the page.

Job: the rule for which files of a folder are read (a table of names: a folder walked by the
CLI, followed by ``--follow``, opened, dropped or watched on the page), and whether bytes can be
a transcript at all (``binary_reason``: NUL bytes, or not UTF-8 text). A file named on its own
(a command-line argument, a file picked or dropped by itself) is read whatever its name: the
reader chose it.
Must not: read files, translate, import anything of the package (the CLI's start-up reads it),
or word anything but the reason bytes are not text.
"""

from __future__ import annotations

import re
from typing import Final

# Files of a folder that are read, by name: (suffix, what such a file is). Anything else in a
# folder (notes, configs, a tool's own ``.json`` or ``.txt`` output) is skipped and named as such.
FOLDER_FILES: Final[tuple[tuple[str, str], ...]] = (
    (".jsonl", "Claude Code stream-json, or a session transcript (~/.claude/projects)"),
    (".ndjson", "stream-json saved under the other common name"),
    (".sse", "an Arbiter fleet stream (server-sent events)"),
    (".log", "a stream-json capture saved as a log (the corpus has one)"),
)
# ...and each sub-agent's meta file (``agent-<id>.meta.json``: its spawning call, type, depth).
SUFFIXES: Final = tuple(suffix for suffix, _ in FOLDER_FILES)
# The meta file's name, as formats.session.AGENT_META reads it (a test holds the two together): a
# pattern of its own here, so that the command line's file reading loads no translator.
AGENT_META: Final = re.compile(r"^agent-(.+)\.meta\.json$")
HEAD_BYTES: Final = 8192  # how much of an input the text check looks at


# ...and a session's spilled tool output: ``<session>/tool-results/<id>.txt`` holds the whole of a
# tool result too large for the transcript (which keeps a ``<persisted-output>`` preview of it).
SPILLED_FOLDER: Final = "tool-results"


def is_spilled(name: str) -> bool:
    """Is this path a file of a session's ``tool-results/`` folder (spilled tool output)?"""
    parts = name.replace("\\", "/").rsplit("/", 2)
    return len(parts) > 1 and parts[-2] == SPILLED_FOLDER


def read_in_folder(name: str) -> bool:
    """Whether a file found in a folder is read (``name``: its path, or its name alone): a
    transcript by its name, a sub-agent meta file, or a file of a session's ``tool-results/``."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return name.lower().endswith(SUFFIXES) or AGENT_META.match(base) is not None or is_spilled(name)


def binary_reason(name: str | None, data: bytes | bytearray | memoryview, size: int | None = None) -> str | None:
    """Why ``data`` cannot be a transcript at all (NUL bytes, or not UTF-8 text), or None.
    Only the start is looked at: a transcript is text from its first byte. ``data`` may be the
    first slice of an input of ``size`` bytes."""
    head = bytes(data[:HEAD_BYTES])
    if not head:
        return None
    if head.isascii() and b"\x00" not in head:  # ASCII text, the most of them: nothing to decode
        return None
    size = len(data) if size is None else size
    bad = head.count(b"\x00")
    if not bad:
        text = head.decode("utf-8", "replace")
        bad = text.count("\ufffd") - (1 if size > len(head) else 0)  # a character cut at 8 KiB
        if bad <= max(2, len(text) // 100):
            return None
    what = f"{name}" if name else "The input"
    return (f"{what} is binary, not text ({fmt_size(size)}): it cannot be a Claude Code transcript, "
            "a session file or an SSE stream, so nothing was analyzed.")


def fmt_size(n: int) -> str:
    return f"{n} bytes" if n < 10_000 else f"{n / 1024:.0f} KiB" if n < 10_000_000 else f"{n / 1048576:.0f} MiB"
