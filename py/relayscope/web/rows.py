"""rows: which rows a view of the workspace shows, in which order, and the lane cards.

Job: runs of partial deltas as one row, lost blocks placed among the rows, bookkeeping records,
the rows in time across lanes or by lane, the lane of each row (the gutter's), and the lane cards
(counts, tokens, cost, wall time). What one row says is ``rowtext``'s.
Must not: load, translate or search (``loading``, ``search``); build markup (plain text only).
"""

from __future__ import annotations

import collections
import itertools
import operator
from typing import Final

from .. import fates as F
from .. import relay as R
from .. import words
from ..lanes import MAIN
from ..meaning import BOOKKEEPING, call_of, is_error
from ..spans import line_seconds
from ..subagents import status_words
from . import rowinfo
from .rowtext import NO_THINKING_TEXT, WALL_LOOK, RowText, RowView, detail, pretty_json
from .workstate import LaneView

# Records that only keep Claude Code's own books (meaning.BOOKKEEPING): hidden until asked for.
__all__ = ["BOOKKEEPING", "NO_THINKING_TEXT", "RowView", "Rows", "detail", "pretty_json"]
_LANE_CARD_TYPES: Final = frozenset({R.LaneStart, R.LaneEnd, R.Usage, R.TurnComplete, R.System})  # what a card sums
# what moves a sub-agent lane's state (subagents.LaneStates), and what counts as its own records there
_STATED: Final = frozenset({R.ToolUse, R.ToolResult, R.System, R.Passthrough})
_RECORDS: Final = frozenset({R.TextDelta, R.ThinkingDelta, R.UserMessage, R.ContentBlock})
_lane: Final = operator.attrgetter("lane")


class Rows(RowText):
    """Which rows, in which order, and the lane cards, from the relays and the lookups ``loading`` made."""


    def _group_and_bookkeeping(self, first: int = 0, stop: int | None = None) -> None:
        """One pass over the relays from ``first`` (to ``stop``): bookkeeping records, tool calls and results
        by id, and runs of consecutive partial deltas of one block (the timeline shows each run as
        one row). A run
        may go on across live appends, so the open run is kept between calls; ``first=0`` starts
        afresh."""
        if first == 0:
            self._bookkeeping, self._group_end, self._member_head, self.retracted = set(), {}, {}, set()
            self._group_open = (None, -1)
            self._by_tool_use, self._by_tool_result, self._refusals, self._sessions = {}, {}, {}, []
            self._message_row, self._usage_row, self._row_usage = {}, {}, {}
        book, ends, members = self._bookkeeping, self._group_end, self._member_head
        uses, results = self._by_tool_use, self._by_tool_result
        message_row = self._message_row
        slot, head = self._group_open
        text_types = (R.TextDelta, R.ThinkingDelta)
        for r in itertools.islice(self.relays, first, stop):
            t = type(r)
            if t in text_types:
                here = (t, r.lane, r.message_id, r.block_index)  # type: ignore[attr-defined]
                if r.partial and here == slot:  # type: ignore[attr-defined]
                    members[r.seq] = head
                    ends[head] = r.seq
                else:
                    slot, head = here, r.seq
                if r.message_id:  # type: ignore[attr-defined]
                    message_row[r.lane, r.message_id] = head  # type: ignore[attr-defined]
                continue
            slot = None
            if t is R.ToolUse:
                uses[r.id] = r.seq  # type: ignore[attr-defined]
                if r.message_id:  # type: ignore[attr-defined]
                    message_row[r.lane, r.message_id] = r.seq  # type: ignore[attr-defined]
            elif t is R.Usage:
                row = message_row.get((r.lane, r.message_id)) if r.message_id else None  # type: ignore[attr-defined]
                if row is not None:  # the run reading shows it on that row
                    self._usage_row[r.seq], self._row_usage[row] = row, r.seq
            elif t is R.ContentBlock:
                if r.message_id:  # type: ignore[attr-defined]
                    message_row[r.lane, r.message_id] = r.seq  # type: ignore[attr-defined]
            elif t is R.ToolResult:
                results[r.tool_use_id] = r.seq  # type: ignore[attr-defined]
            elif t is R.Passthrough:
                if r.event_type in BOOKKEEPING:  # type: ignore[attr-defined]
                    book.add(r.seq)
            elif t is R.SessionMeta:
                self._sessions.append(r.seq)
            elif t is R.System:
                if r.subtype in BOOKKEEPING:  # type: ignore[attr-defined]
                    book.add(r.seq)
                if is_error(r) and (call := call_of(r)) is not None:  # a permission denial: its call's row links it
                    self._refusals.setdefault(call, r.seq)
                if r.retracts:  # type: ignore[attr-defined]
                    self.retracted.update(r.retracts)  # type: ignore[attr-defined]
        self._group_open = (slot, head)

    @property
    def bookkeeping_count(self) -> int:
        return len(self._bookkeeping)

    def is_bookkeeping(self, seq: int) -> bool:
        return seq in self._bookkeeping

    def folded_into(self, seq: int) -> int | None:
        """The row the run reading shows relay ``seq`` in: a tool result's call, a usage's message
        (the last row of the message it counts), where the input holds them; None for any other."""
        r = self.relays[seq]
        if isinstance(r, R.ToolResult):
            return self._by_tool_use.get(r.tool_use_id)
        return self._usage_row.get(seq) if isinstance(r, R.Usage) else None

    def usage_of(self, seq: int) -> R.Usage | None:
        """The usage counting the message whose last row is ``seq`` (None: no such usage)."""
        u = self._row_usage.get(seq)
        found = self.relays[u] if u is not None else None
        return found if isinstance(found, R.Usage) else None

    def rows(self, seqs: list[int], open_groups: set[int] = frozenset(),  # type: ignore[assignment]
             lost: bool | set[int] = True, lane: str = "") -> list[int]:
        """The timeline's rows for these seqs: a group of partial deltas as its first seq only
        (unless open), and a negative row for each lost block where it would have been (``lost``
        a set: only those blocks' rows; False: none)."""
        members = self._member_head
        if members:
            shown = set(seqs) if len(seqs) != len(self.relays) else None
            seqs = [q for q in seqs if (h := members.get(q)) is None or h in open_groups
                    or (shown is not None and h not in shown)]
        if not lost or self.fates is None or not self.fates.lost:
            return seqs
        blocks = [b for b in self.fates.lost if (not lane or b.lane == lane) and (lost is True or b.row in lost)]
        if not blocks:
            return seqs
        out: list[int] = []
        k = 0
        for b in blocks:  # seqs are sorted; so are the blocks, by where they go
            while k < len(seqs) and seqs[k] < b.before_seq:
                k += 1
            out.append(k)
        merged: list[int] = []
        start = 0
        for b, k in zip(blocks, out, strict=True):
            merged.extend(seqs[start:k])
            merged.append(b.row)
            start = k
        merged.extend(seqs[start:])
        return merged

    def lost_block(self, row: int) -> F.LostBlock | None:
        return self.fates.by_row.get(row) if self.fates is not None else None

    def group_of(self, seq: int) -> int | None:
        """The first seq of the group of partial deltas ``seq`` belongs to, if any."""
        return seq if seq in self._group_end else self._member_head.get(seq)

    def time_keys(self) -> list[float]:
        """Each relay's place in time: its line's timestamp (seconds), else the place of the
        relay of the same file before it (a record with no time of its own stays after the one it
        follows), else of the relay before it. Grown, not made again, as relays come (a watched
        input): rows that come later take their place in time. Empty for stream-json, whose
        order is the stream's."""
        keys, last, relays = self._time_keys, self._time_last, self.relays
        if self.format == "stream-json" or len(keys) >= len(relays):
            return keys
        where: tuple[str | None, int] | None = None
        t: float | None = None
        for r in itertools.islice(relays, len(keys), None):
            if (r.file, r.line) != where:  # a line's relays come together: its time read once
                where = (r.file, r.line)
                t = line_seconds(self._line_bytes(r.file, r.line))
                self._timed = self._timed or t is not None
            k = t if t is not None else last.get(r.file, keys[-1] if keys else 0.0)
            last[r.file] = k
            keys.append(k)
        return keys

    def in_order(self, rows: list[int], order: str) -> list[int]:
        """``rows`` (seqs in seq order, lost blocks' negative placeholders among them) in time
        order across lanes (``order`` "time"), ties and untimed inputs as given; "lane" keeps
        them as given: each sub-agent's rows after the call that started it."""
        if order != "time":
            return rows
        keys = self.time_keys()
        if not self._timed:
            return rows
        at: list[float] = []
        k = float("-inf")
        for q in rows:
            if q >= 0:  # a placeholder stays after the row it follows
                k = keys[q]
            at.append(k)
        return [rows[i] for i in sorted(range(len(rows)), key=at.__getitem__)]  # stable: ties as given

    def _wall_time(self, lane: LaneView) -> None:
        """First to last timestamp of the lane's rows; else the turns' own duration."""
        first = last = None
        relays = self.relays
        for q in range(lane.first_seq, min(lane.last_seq + 1, lane.first_seq + WALL_LOOK)):
            if relays[q].lane == lane.id and (first := self.row_time(q)):
                break
        for q in range(lane.last_seq, max(lane.first_seq - 1, lane.last_seq - WALL_LOOK), -1):
            if relays[q].lane == lane.id and (last := self.row_time(q)):
                break
        t0 = rowinfo.parse(first) if first else None
        t1 = rowinfo.parse(last) if last else None
        if t0 is not None and t1 is not None and t1 >= t0:
            lane.wall_s = t1 - t0
        elif lane.duration_ms:
            lane.wall_s = lane.duration_ms / 1000

    def _grow_lanes(self, relays: list[R.Relay]) -> list[LaneView]:
        """The lane cards, with ``relays`` (new since the last call) counted in."""
        self._count_lanes(relays)
        return self._finish_lanes()

    def _count_lanes(self, relays: list[R.Relay]) -> None:
        lanes, states = self._lane_views, self._states
        for r in relays:
            lane = lanes.get(r.lane)
            if lane is None:
                lane = lanes[r.lane] = self._new_lane(r.lane)
                lane.first_seq = r.seq
            lane.relay_count += 1
            lane.last_seq = r.seq
            t = type(r)
            if t in _STATED or (t in _RECORDS and r.lane != MAIN):
                states.add(r)
            if t not in _LANE_CARD_TYPES:  # most relays; isinstance on each is slow in Pyodide
                continue
            if isinstance(r, R.LaneStart):
                lane.label = r.label or lane.label
                lane.agent_type = r.agent_type or lane.agent_type
                lane.description = r.description or lane.description
                lane.depth, lane.parent, lane.inferred = r.depth, r.parent_lane, r.inferred
            elif isinstance(r, R.LaneEnd):
                lane.end_seq = r.seq
            elif isinstance(r, R.Usage):
                got = self._tally.add(r)
                if got is not None:
                    lane.input_tokens, lane.output_tokens = got.input_tokens, got.output_tokens
                    lane.cache_read_tokens = got.cache_read_input_tokens
                    lane.cache_creation_tokens = got.cache_creation_input_tokens
                    lane.est_cost_usd, lane.unpriced = got.est_cost_usd, list(got.unpriced)
                lane.model = lane.model or r.model
            elif isinstance(r, R.TurnComplete):
                self._results.append(r)
                self._tally.add_result(r)
                if r.cost_usd is not None:
                    lane.cost_usd = (lane.cost_usd or 0.0) + float(r.cost_usd)
                lane.duration_ms += float(r.duration_ms or 0)

    def _finish_lanes(self) -> list[LaneView]:
        """What is known of each lane only once all its relays are counted in; main first."""
        lanes = self._lane_views
        for lane in lanes.values():
            lane.spawn_seq = self._by_tool_use.get(lane.id)
            lane.result_seq = self._by_tool_result.get(lane.id)
            if lane.id == MAIN:
                lane.reported, lane.usage_note = self._tally.reported, self._tally.note()
            elif (st := self._states.lanes.get(lane.id)) is not None:
                lane.state, lane.status = st.state, status_words(st)
            self._wall_time(lane)
        ordered = sorted(lanes.values(), key=lambda v: (v.id != MAIN,))  # main first, else by appearance
        return ordered

    def _new_lane(self, lane_id: str) -> LaneView:
        meta = self._lane_meta.get(lane_id)
        view = LaneView(lane_id, words.lane_name(lane_id, None, self._lane_meta))
        if meta is not None:
            view.agent_type, view.description = meta.agent_type, meta.description
            view.depth, view.parent, view.inferred = meta.depth, meta.parent, meta.inferred
            view.file = meta.file
        if lane_id != MAIN and view.parent is None and meta is None:
            view.parent, view.depth = MAIN, 1
        return view

    def lanes_of(self, rows: list[int]) -> list[str]:
        """The lane of each of ``rows`` (a lost block's placeholder: its block's)."""
        relays = self.relays
        if not rows or min(rows) >= 0:  # no lost block among them: in C
            return list(map(_lane, map(relays.__getitem__, rows)))
        return [relays[q].lane if q >= 0 else ((b.lane if (b := self.lost_block(q)) else None) or "") for q in rows]

    def type_counts(self) -> dict[str, int]:
        """How many relays of each type, in the order types first appear."""
        counts = collections.Counter(map(type, self.relays))  # counted in C
        return {cls.__struct_config__.tag: n for cls, n in counts.items()}  # type: ignore[attr-defined]
