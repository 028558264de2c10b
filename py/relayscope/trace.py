"""trace: the record of one decision per input line, and its readable rendering.

A :class:`TraceStep` says, for one input line: what it was, which lane it fell in, its
first-block fingerprint and the previous one, the de-dup state before and after (an integer
index for the documented strategies, the keys of the message's blocks for ``lineage``),
the decision, why, and the seqs of the relays it produced. The web app's step-through view
and ``relayscope trace`` are built on it.

Data only, plus formatting: no state of its own. It imports no other relayscope module.
"""

from typing import Any, Final

import msgspec
from msgspec import Struct

# decision values
EMIT: Final = "emit"  # every relevant block emitted
PARTIAL: Final = "partial"  # some blocks emitted, some skipped
SKIP: Final = "skip"  # nothing emitted: duplicate(s)
IGNORE: Final = "ignore"  # nothing to emit by design (blank line, signature delta ...)
ERROR: Final = "error"
CONSUMED: Final = "consumed"  # a line that is part of a multi-line event (SSE)

# block actions (TraceStep.blocks): what happened to one content block of an event
BLOCK_EMIT: Final = "emit"  # emitted whole
BLOCK_DUP: Final = "dup"  # already emitted: skipped
BLOCK_STREAMED: Final = "streamed"  # already emitted as stream_event deltas: skipped
BLOCK_GROW: Final = "grow"  # a streaming block with more text: the new suffix emitted

# reset values
TURN_END: Final = "turn_end"
SHRINK: Final = "shrink"
CONTEXT_SWITCH: Final = "context_switch"

# How decisions and resets read to people (the web page's step panel and timeline marks); worded
# here once, beside the values they explain.
DECISION_LABELS: Final = {
    EMIT: "emitted",
    PARTIAL: "partly emitted",
    SKIP: "skipped (duplicate)",
    IGNORE: "ignored",
    ERROR: "unreadable",
    CONSUMED: "part of a multi-line event",
}
RESET_LABELS: Final = {
    CONTEXT_SWITCH: "context switch: the first-block fingerprint changed, the index went back to 0",
    SHRINK: "reset: the content array shrank below the index",
    TURN_END: "turn end: all de-dup state reset",
}
# A session's first line (``system/init``) applies the turn end's reset: nothing came before it,
# so it reads as a start, not an end.
SESSION_START_LABEL: Final = "session start: the de-dup state starts empty"
# The reason of a ``fingerprint`` reset between two events of one message (same ``message.id``):
# real output sends one block per assistant event, so the first block changes with every block.
FP_SAME_MESSAGE: Final = "the first block's fingerprint changed though the message did not"


def reset_words(reset: str | None, kind: str = "") -> str:
    """How a step's reset reads to people: its label, a session's start said as one."""
    if reset is None:
        return ""
    if reset == TURN_END and kind == "system/init":
        return SESSION_START_LABEL
    return RESET_LABELS.get(reset, reset)


def plural(n: int, word: str) -> str:
    """``1 block``, ``3 blocks``: counts in words, never ``block(s)``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


class BlockStep(Struct, array_like=False, omit_defaults=True):
    index: int
    key: str
    action: str  # BLOCK_EMIT | BLOCK_DUP | BLOCK_STREAMED | BLOCK_GROW
    reason: str = ""


class TraceStep(Struct, omit_defaults=True):
    line: int
    kind: str
    lane: str | None = None
    decision: str = EMIT
    reason: str = ""
    reset: str | None = None
    fp: str | None = None
    prev_fp: str | None = None
    before: Any = None
    after: Any = None
    seqs: list[int] = []
    blocks: list[BlockStep] = []
    note: str | None = None
    file: str | None = None
    to_line: int | None = None  # SSE: last line of a multi-line event


class Marks:
    """Of every step, only what must be known of all steps at once (its line, lane,
    fingerprint, reset, and where its seqs end), kept by a translator asked for marks instead
    of a trace: a fraction of the trace's cost, and the whole step can be had again by
    translating up to its line with the trace on (the web page does so for the steps a reader
    looks at). A step's seqs are the range from the previous step's end to its own: a
    translator that keeps marks numbers its relays in the order of its steps. One file.

    Kept as five columns, not a row per step: the page needs them as columns, and turning
    340,000 rows into columns took 0.58 s in one go in Pyodide (a 600 MB input)."""

    __slots__ = ("end", "file", "fp", "lane", "line", "reset")

    def __init__(self, file: str | None = None) -> None:
        self.file = file
        self.line: list[int] = []
        self.lane: list[str | None] = []
        self.fp: list[str | None] = []
        self.reset: list[str | None] = []
        self.end: list[int] = []

    def add(self, step: TraceStep, end: int) -> None:
        self.line.append(step.line)
        self.lane.append(step.lane)
        self.fp.append(step.fp)
        self.reset.append(step.reset)
        self.end.append(end)

    def __len__(self) -> int:
        return len(self.end)

    def clear(self) -> None:
        """Forget the steps so far (a translation whose marks nobody reads keeps them from growing)."""
        for column in (self.line, self.lane, self.fp, self.reset, self.end):
            column.clear()

    def columns(self) -> tuple[list[int], list[str | None], list[str | None], list[str | None], list[int]]:
        """The line, lane, fingerprint, reset and end of every step: the lists themselves (read only)."""
        return self.line, self.lane, self.fp, self.reset, self.end

    def seqs(self, i: int) -> range:
        return range(self.end[i - 1] if i else 0, self.end[i])


def steps_to_json(steps: list[TraceStep]) -> bytes:
    return msgspec.json.encode(steps)


def _state(value: Any, width: int) -> str:
    """The de-dup state for the table: the index, or how many blocks the message has."""
    if isinstance(value, list):
        return f"{len(value)} block{'s' if len(value) != 1 else ''}"
    return _short(value, width)


def _short(value: Any, width: int) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else msgspec.json.encode(value).decode()
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def render_table(steps: list[TraceStep]) -> str:
    """A fixed-width table, one row per input line, for terminals."""
    head = f"{'line':>5}  {'kind':<24} {'lane':<14} {'decision':<8} {'reset':<14} {'before':<18} {'after':<18} {'seqs':<12} reason"
    rows = [head, "-" * len(head)]
    for s in steps:
        seqs = ",".join(map(str, s.seqs)) if len(s.seqs) <= 4 else f"{s.seqs[0]}..{s.seqs[-1]}"
        where = f"{s.file}:{s.line}" if s.file else str(s.line)
        rows.append(
            f"{where:>5}  {_short(s.kind, 24):<24} {_short(s.lane, 14):<14} {s.decision:<8} "
            f"{s.reset or '':<14} {_state(s.before, 18):<18} {_state(s.after, 18):<18} "
            f"{seqs:<12} {s.reason}"
        )
        if s.fp is not None or s.prev_fp is not None:
            rows.append(f"{'':>5}  fingerprint {_short(s.fp, 40)!s}  (previous: {_short(s.prev_fp, 40)})")
        for b in s.blocks:
            rows.append(f"{'':>5}    [{b.index}] {b.action:<8} {_short(b.key, 50)}  {b.reason}")
    return "\n".join(rows) + "\n"
