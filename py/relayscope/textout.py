"""textout: the command line's text for people: ``translate -f text`` and ``trace``'s table.

One header row, then one row per relay (or trace step) in aligned columns: seq, where (the line,
or ``file:line`` with the file relative to what was named on the command line), the lane as the
page labels it ("main agent", "Explore: find the tests"), the type, and the summary
(``present.summary``) taking what is left of the width. Colour is ANSI SGR, off unless asked for
(the CLI decides from ``--color`` and ``NO_COLOR``). A trace step lists under it the fate of each
block of its line in the page's words (``fates``: emitted as #N, duplicate of #N, already
streamed as #N, lost).

Streaming: a row is made from its relay alone (a lane's label comes from its ``lane_start``,
which precedes its rows; the call a record is about, ``meaning.call_of``, from that call's
``tool_use``, which precedes it too), so the text of a file read live is the text of the finished
file. A record the meaning table calls an error (a permission denial) is coloured as one.
A Task/Agent call whose sub-agent's transcript is not among the input says so as the page's row
does ("missing agent-<id>.jsonl", ``lanes.missing_transcripts``): on the call's row when the
caller read the whole input first (a folder, several files), else on its result's row, the first
printed once the record that names the sub-agent has been read (``follow_lanes``; ``--follow``
gives the lanes as they are read).
Every cell that comes from the input (a file name, a label, a summary, a reason, a block) is one
line with its control characters shown, not obeyed (``termsafe.safe``): transcript text is data
on a terminal too, and a newline in a name cannot forge a row.
Must not: do I/O, read the environment, or word a summary or a fate itself (``present`` and
``fates`` do).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Final

from . import chapters, spill
from . import describe as D
from . import relay as R
from . import trace as T
from ._bounded import RecentMap
from .lanes import MESSAGE_TOOL, SPAWN_TOOLS, Lane, message_labels
from .meaning import call_of, is_error
from .present import clip, summary
from .termsafe import safe
from .words import first_model, lane_name, session_row

if TYPE_CHECKING:
    from .fates import BlockFate

SEP: Final = "  "
LANE_WIDTH: Final = 22
TYPE_WIDTH: Final = 14
MIN_SUMMARY: Final = 24
NO_LIMIT: Final = 400  # a summary's width when the output is no terminal and COLUMNS is unset

_RESET: Final = "\x1b[0m"
_BOLD: Final = "1"
_DIM: Final = "2"
_RED: Final = "31"
_GREEN: Final = "32"
_YELLOW: Final = "33"
_CYAN: Final = "36"
LANE_COLOURS: Final = ("36", "35", "33", "34", "32", "96", "95", "93", "94", "92")  # first-seen order
TYPE_COLOURS: Final = {
    "error": _RED + ";" + _BOLD, "warning": _YELLOW, "tool_use": _CYAN, "tool_result": _GREEN,
    "thinking_delta": _DIM, "usage": _DIM, "system": _DIM, "passthrough": _DIM, "session_meta": _DIM,
    "lane_start": _BOLD, "lane_end": _DIM, "turn_complete": _BOLD,
}
# a block's fate, in ``fates``' words (test_cli_text holds them equal), and its colour: written here
# so that a translate's text, which shows no fates, loads neither ``fates`` nor the audit under it
_LOST: Final = "lost"
FATE_COLOURS: Final = {_LOST: _RED + ";" + _BOLD, "duplicate": _YELLOW, "streamed": _DIM, "emitted": _GREEN}


def paint(text: str, sgr: str, color: bool) -> str:
    return f"\x1b[{sgr}m{text}{_RESET}" if color and sgr and text else text


def fit(text: str, width: int) -> str:
    """``text`` made safe, cut to ``width`` characters (an ellipsis marks the cut), then padded."""
    text = safe(text)
    text = text if len(text) <= width else text[: max(width - 1, 0)] + "…"
    return text.ljust(width)


def cell(text: str, width: int) -> str:
    """Input text as one cell of a row: its blanks made one space, made safe, cut to ``width``."""
    return clip(safe(" ".join(text.split())), width)


class Names:
    """File names as the reader named them: a file below a named folder by its path under it,
    a named file by its path below the folder all named files share (its name, when they share
    one). Anything else as it is."""

    def __init__(self, folders: Iterable[str] = (), files: Iterable[str] = ()) -> None:
        self.folders = sorted((os.path.join(os.path.normpath(d), "") for d in folders), key=len, reverse=True)
        files = [os.path.normpath(f) for f in files]
        common = os.path.dirname(files[0]) if len(files) == 1 else os.path.commonpath(files) if files else ""
        if len(files) > 1 and common in files:
            common = os.path.dirname(common)
        self.files = {f: os.path.relpath(f, common) if common else f for f in files}
        self._cache: dict[str, str] = {}

    def __call__(self, name: str | None) -> str:
        if name is None:
            return ""
        found = self._cache.get(name)
        if found is None:
            found = self._cache[name] = self._short(name)
        return found

    def _short(self, name: str) -> str:
        plain = os.path.normpath(name)
        if plain in self.files:
            return self.files[plain]
        for folder in self.folders:
            if plain.startswith(folder):
                return plain[len(folder):]
        return name


class Layout:
    """Column widths for one output: ``width`` the terminal's (None: not a terminal, the summary
    is not cut to fit), ``where`` the width of the where column (``file:line`` or the line)."""

    FIXED: int = 0  # the width of the columns other than where, lane and the last
    KEEP: float = 0.33  # of the width, what the last column keeps on a narrow terminal

    def __init__(self, width: int | None, color: bool, names: Names | None = None, where: int = 6) -> None:
        self.width, self.color, self.names = width, color, names or Names()
        self.where = max(where, 4)
        self.lane_width = LANE_WIDTH
        if width is not None:  # a narrow terminal: where and lane give way, the last column keeps a third
            spare = width - self.FIXED - self.where - self.lane_width - int(width * self.KEEP)
            if spare < 0:
                self.where = max(self.where + spare, min(self.where, 16))
                spare = width - self.FIXED - self.where - self.lane_width - int(width * self.KEEP)
            if spare < 0:
                self.lane_width = max(self.lane_width + spare, 12)
        self.labels: dict[str, str] = {}
        self.colours: dict[str, str] = {}

    def lane(self, lane: str | None) -> tuple[str, str]:
        """A lane's label as the page shows it, and its colour (first-seen order)."""
        if lane is None:
            return "", ""
        if lane not in self.colours:
            self.colours[lane] = LANE_COLOURS[len(self.colours) % len(LANE_COLOURS)]
        label = self.labels.get(lane)
        if not label:
            label = lane_name(lane, None, self._lane_map())
            if label != lane:  # named (a lane still unnamed is asked again: its spawn may come later)
                self.labels[lane] = label
        return label, self.colours[lane]

    def _lane_map(self) -> Mapping[str, Lane]:
        """The translator's lanes, where the rows follow them (``RelayText.follow_lanes``)."""
        return {}

    def rest(self, used: int) -> int:
        return NO_LIMIT if self.width is None else max(self.width - used, MIN_SUMMARY)

    def where_of(self, file: str | None, line: int, to_line: int | None = None) -> str:
        """The line (right-aligned), or ``file:line``, the name cut so that the line always shows."""
        lines = f"{line}-{to_line}" if to_line and to_line != line else str(line)
        if not file:
            return lines.rjust(self.where)
        name = safe(self.names(file))
        room = self.where - len(lines) - 1
        if len(name) > room:  # cut in the middle: a session's id starts it, the file's own name ends it
            head = (room - 1) // 2
            name = name[:head] + "…" + name[len(name) - (room - 1 - head):] if room > 2 else ""
        return f"{name}:{lines}".ljust(self.where)


class RelayText(Layout):
    """``translate -f text``: a header row, then a row per relay."""

    SEQ: Final = 6
    FIXED = SEQ + TYPE_WIDTH + 4 * len(SEP)

    def __init__(self, width: int | None, color: bool, names: Names | None = None, where: int = 6) -> None:
        super().__init__(width, color, names, where)
        self.calls: RecentMap[str, int] = RecentMap()  # tool_use id -> its row's seq
        self._lanes: Callable[[], Mapping[str, Lane]] | None = None
        self._spawns: RecentMap[str, bool] = RecentMap()  # a Task/Agent call's id -> its row said "missing"
        self.inputs: Collection[str] | None = None  # the input's files (a spilled output's found there); None: one stream
        self.chapters = 0  # chapters begun (a line before each real user prompt's row)
        self.models: dict[int, str | None] = {}  # a session row's seq -> the model its lane's messages name

    def _lane_map(self) -> Mapping[str, Lane]:
        return self._lanes() if self._lanes is not None else {}

    def follow_lanes(self, lanes: Callable[[], Mapping[str, Lane]]) -> None:
        """Where the lanes of the rows to come are (the translator's, as they are when each row
        is made): a sub-agent's missing transcript is said on the first row that can know it."""
        self._lanes = lanes

    def _missing(self, r: R.Relay) -> str:
        """" · missing agent-<id>.jsonl" for the first row of a spawning call that knows its
        sub-agent's transcript is not in the input (the call, or else its result); else ""."""
        if isinstance(r, R.ToolUse) and r.name in SPAWN_TOOLS:
            call = r.id
            self._spawns[call] = False
        elif isinstance(r, R.ToolResult) and self._spawns.get(r.tool_use_id) is False:
            call = r.tool_use_id
        else:
            return ""
        lane = self._lanes().get(call) if self._lanes is not None else None
        name = lane.missing_file if lane is not None else None
        if name is None:
            return ""
        self._spawns[call] = True
        return f" · missing {name}"

    def header(self) -> str:
        where = "line".rjust(self.where) if self.where <= 6 else fit("file:line", self.where)
        cells = ["seq".rjust(self.SEQ), where, fit("lane", self.lane_width), fit("type", TYPE_WIDTH), "summary"]
        return paint(SEP.join(cells), _BOLD, self.color)

    def row(self, r: R.Relay) -> str:
        if isinstance(r, R.LaneStart) and r.label:
            self.labels[r.lane] = r.label
        color = self.color
        where = self.where_of(r.file, r.line)
        label, lane_sgr = self.lane(r.lane)
        used = self.SEQ + self.where + self.lane_width + TYPE_WIDTH + 4 * len(SEP)
        kind = r.type
        sgr = TYPE_COLOURS.get(kind, "")
        words = session_row(r, self.models.pop(r.seq, None)) if isinstance(r, R.SessionMeta) else summary(r)
        if isinstance(r, R.ToolUse):
            self.calls[r.id] = r.seq
            if r.name == MESSAGE_TOOL and self._lanes is not None:  # to the agent by its lane's label
                words = D.summary(r, None, message_labels(self._lanes(), r.id, D.message_to(r))) or words
        elif isinstance(r, R.ToolResult):
            sgr = _RED if r.is_error else sgr
            words += spill_note(r, self.inputs or ())
        elif isinstance(r, R.System | R.Passthrough):
            call = call_of(r)
            if call is not None and call in self.calls:
                words += f" · call #{self.calls[call]}"
            if is_error(r):
                sgr = _RED
        text = self._summary(words, self._missing(r), self.rest(used))
        head = self._chapter(r)
        return head + SEP.join([
            paint(str(r.seq).rjust(self.SEQ), _DIM, color),
            paint(where, _DIM, color),
            paint(fit(label, self.lane_width), lane_sgr, color),
            paint(fit(kind, TYPE_WIDTH), sgr, color),
            paint(text, _RED if isinstance(r, R.Error) else "", color),
        ]).rstrip()

    def _chapter(self, r: R.Relay) -> str:
        """A line over the row of a real user prompt, which starts a chapter: "── chapter 2 · prompt ──"."""
        if not chapters.is_start(r):
            return ""
        assert isinstance(r, R.UserMessage)
        self.chapters += 1
        words = f"── chapter {self.chapters} · "
        return paint(words + cell(chapters.title(r), self.rest(len(words) + 3)) + " ──", _BOLD, self.color) + "\n"

    @staticmethod
    def _summary(words: str, missing: str, room: int) -> str:
        """The summary cell, a missing transcript's name after it; where both do not fit, the
        name first: the summary gives way to it."""
        if not missing:
            return cell(words, room)
        if room - len(missing) >= MIN_SUMMARY // 2:
            return cell(words, room - len(missing)) + cell(missing, len(missing))
        return cell(f"{missing.removeprefix(' · ')} · {words}", room)

    def rows(self, relays: Iterable[R.Relay]) -> str:
        relays = list(relays)
        for i, r in enumerate(relays):  # a session row names the model its lane's messages name
            if isinstance(r, R.SessionMeta) and not r.model:
                self.models[r.seq] = first_model(relays[i:], r.lane)
        return "".join(self.row(r) + "\n" for r in relays)


def _state(before: object, after: object) -> str:
    """The de-dup index before and after ("3 → 1"), or lineage's known blocks ("2 → 3 blocks")."""
    if before is None and after is None:
        return ""
    blocks = isinstance(before, list) or isinstance(after, list)
    def one(v: object) -> str:
        return str(len(v)) if isinstance(v, list) else "" if v is None else str(v)
    return f"{one(before)} → {one(after)}" + (" blocks" if blocks else "")


def _seqs(seqs: Sequence[int]) -> str:
    if not seqs:
        return "-"
    if len(seqs) <= 3:
        return ",".join(f"#{q}" for q in seqs)
    return f"#{seqs[0]}..#{seqs[-1]}"


class TraceText(Layout):
    """``trace``: a header row, a row per input line (its decision in the page's words), and under
    it the fate of each block of the line (a spilled tool output's with the file that holds it)."""

    def __init__(self, width: int | None, color: bool, names: Names | None = None, where: int = 6) -> None:
        super().__init__(width, color, names, where)
        self.spills: dict[int, str] = {}  # a tool result's seq -> where its spilled output is (spill_note's words)

    KIND: Final = 20
    DECISION: Final = 19
    STATE: Final = 14
    SEQS: Final = 10
    FIXED = KIND + DECISION + STATE + SEQS + 6 * len(SEP)
    KEEP = 0.15  # the reason is the least of a step's columns

    def header(self) -> str:
        cells = ["line".rjust(self.where) if self.where <= 6 else fit("file:line", self.where),
                 fit("lane", self.lane_width), fit("kind", self.KIND), fit("decision", self.DECISION),
                 fit("index", self.STATE), fit("relays", self.SEQS), "why"]
        return paint(SEP.join(cells), _BOLD, self.color)

    def step(self, s: T.TraceStep, fates: Sequence[BlockFate] | None = None) -> str:
        color = self.color
        where = self.where_of(s.file, s.line, s.to_line)
        label, lane_sgr = self.lane(s.lane)
        state = _state(s.before, s.after)
        decision = T.DECISION_LABELS.get(s.decision, s.decision)
        lost = any(f.fate == _LOST for f in fates or ())
        if lost:
            decision = "lost a block" if s.decision != T.EMIT else decision
        used = self.where + self.lane_width + self.FIXED
        why = s.reason or T.reset_words(s.reset, s.kind)  # a reason that resets says so itself
        d_sgr = _RED + ";" + _BOLD if lost else _DIM if s.decision in (T.IGNORE, T.CONSUMED) else (
            _YELLOW if s.decision in (T.SKIP, T.PARTIAL) else _RED if s.decision == T.ERROR else "")
        head = SEP.join([
            paint(where, _DIM, color),
            paint(fit(label, self.lane_width), lane_sgr, color),
            fit(s.kind, self.KIND),
            paint(fit(decision, self.DECISION), d_sgr, color),
            fit(state, self.STATE),
            fit(_seqs(s.seqs), self.SEQS),
            paint(cell(why, self.rest(used)), _DIM, color),
        ]).rstrip()
        rows = [head]
        pad = " " * (self.where + len(SEP))
        for f in fates or ():
            words = f"[{f.index}] {safe(f.short)}"
            block = f.block + (f" · {self.spills[f.seq]}" if f.seq in self.spills else "")
            rows.append(pad + paint(words, FATE_COLOURS.get(f.fate, ""), color)
                        + paint(SEP + cell(block, self.rest(len(pad) + len(words) + len(SEP))), _DIM, color))
        return "\n".join(rows)


def spill_note(r: R.ToolResult, inputs: Collection[str], *, named: bool = False) -> str:
    """Whether the file a spilled tool output is in was given: " · its file is in the input" (or
    "not in the input"), with the file's name first when ``named`` (the summary names it
    already); "" for a result that was not spilled."""
    found = spill.of(r.text)
    if found is None:
        return ""
    given = spill.find(found, dict.fromkeys(inputs)) is not None
    where = f"output in {found.short}, " if named else "its file is "
    return f" · {where}{'' if given else 'not '}in the input"
