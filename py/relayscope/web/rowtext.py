"""rowtext: what one row of the timeline says, from the relays and the lookups ``loading`` made.

Job: a relay as a row (``RowView``: its summary, its pair, fingerprint mark, time and the gap since
its lane's previous row), its line as drawn (a tool call with how it ended, a result with what it
was for), a session row with what its transcript's lines say, and a relay's detail as plain text.
Must not: choose or order rows (``rows``), search (``search``), or build markup (plain text only).
"""

from __future__ import annotations

import json
from typing import Final

import msgspec

from .. import describe as D
from .. import relay as R
from .. import spans as S
from .. import trace as T
from .. import words
from ..lanes import MESSAGE_TOOL, WORKFLOW_TOOL, lane_of_message, message_labels
from ..present import clip, summary
from . import rowinfo
from .stepping import Steps

__all__ = ["NO_THINKING_TEXT", "RowText", "RowView", "detail", "pretty_json"]
# Newer CLIs stream thinking as deltas with no text (only an estimate of its size).
NO_THINKING_TEXT: Final = "(thinking: the stream carries no text for it)"
GAP_LOOKBACK: Final = 2000  # relays searched back for the previous row of a lane (a drawn row's gap)
# Relays looked at back from a row for its lane's previous timestamp: every record of a timed input
# has one, and an untimed input must not cost a decode of thousands of lines per row.
WALL_LOOK: Final = 24
RESET_MARKS: Final = T.RESET_LABELS
_any: Final = msgspec.json.Decoder()


class RowView(msgspec.Struct, frozen=True):
    seq: int
    type: str
    lane: str
    file: str | None
    line: int
    summary: str
    pair: int | None
    opens_lane: str | None
    back_to: int | None
    fp: str | None
    fp_color: int | None
    mark: str | None
    partial: bool
    relay: R.Relay
    workspace: RowText
    fp_label: str = "●"  # a number once the palette is used up, so no two fingerprints look alike
    fragments: int = 0  # a group of consecutive partial deltas of one block: how many
    joined: str | None = None  # that group's text

    def __repr__(self) -> str:
        # the relay and the workspace are left out: their reprs would bury the row's own fields
        shown = (f"{k}={getattr(self, k)!r}" for k in self.__struct_fields__ if k not in ("relay", "workspace"))
        return f"RowView({', '.join(shown)})"

    # Only an opened row shows these, and the timeline makes a RowView for every row it draws
    # while scrolling: so they are computed on access (pretty JSON, whole tool output).
    @property
    def detail(self) -> str:
        """The full content, as plain text."""
        return self.joined if self.joined is not None else detail(self.relay)

    @property
    def time(self) -> str | None:
        """The input line's timestamp (ISO), where it has one."""
        return self.workspace.row_time(self.seq)

    @property
    def raw_pretty(self) -> str | None:
        """The input line as indented JSON (None when it is not JSON)."""
        return pretty_json(self.raw)

    @property
    def gap(self) -> float | None:
        """Seconds since the previous row of the same lane that has a time (bookkeeping aside)."""
        return self.workspace.row_gap(self.seq)

    @property
    def raw(self) -> str:
        """The input line the relay came from."""
        return self.workspace.raw_line(self.file, self.line)


class RowText(Steps):
    """Each row's text and facts, from the relays and the lookups ``loading`` made."""


    def row(self, seq: int) -> RowView:
        r = self.relays[seq]
        k = self._step_at(seq) if self._st_line else None
        pair = None
        if isinstance(r, R.ToolUse):
            pair = self._by_tool_result.get(r.id)
        elif isinstance(r, R.ToolResult):
            pair = self._by_tool_use.get(r.tool_use_id)
        back_to = self._by_tool_result.get(r.tool_use_id) if isinstance(r, R.LaneEnd) and r.tool_use_id else None
        opens = r.id if isinstance(r, R.ToolUse) and r.id in self._lane_ids and r.id != r.lane else None
        if isinstance(r, R.ToolUse) and opens is None and r.name in (MESSAGE_TOOL, WORKFLOW_TOOL):
            opens = self._lane_called(r)
        elif isinstance(r, R.LaneStart):  # a lane a call started without spawning it, or continued: the call
            back_to = self._call_of_lane(r)
        fp = self._st_fp[k] if k is not None else None
        mark = self.fp_mark(fp)
        text, fragments, joined = summary(r), 0, None
        end = self._group_end.get(seq)
        if end is not None:
            fragments = end - seq + 1
            joined = "".join(getattr(x, "text", "") for x in self.relays[seq:end + 1])
            last = self.relays[end]
            text = clip(joined) or (summary(last) if isinstance(last, R.ThinkingDelta) and last.omitted
                                    else NO_THINKING_TEXT if isinstance(r, R.ThinkingDelta) else "(empty)")
        elif isinstance(r, R.SessionMeta):
            text = self._session_summary(r)
        elif isinstance(r, R.ThinkingDelta) and not r.text.strip() and not r.omitted:
            text = NO_THINKING_TEXT
        return RowView(
            seq=r.seq, type=r.type, lane=r.lane, file=r.file, line=r.line, summary=text,
            pair=pair, opens_lane=opens,
            back_to=back_to, fp=fp, fp_color=mark[0] if mark else None, mark=RESET_MARKS.get(self._st_reset[k] or "") if k is not None else None,
            partial=bool(getattr(r, "partial", False)), relay=r, workspace=self,
            fp_label=mark[1] if mark else "●", fragments=fragments, joined=joined,
        )

    def _lane_called(self, use: R.ToolUse) -> str | None:
        """The lane a SendMessage call continues (the agent it writes to), or the first lane of the
        run a Workflow call started."""
        if use.name == MESSAGE_TOOL:
            return lane_of_message(self._lane_meta, use.id, D.message_to(use))
        return next((k for k, lane in self._lane_meta.items() if lane.run and lane.spawn == use.id), None)

    def _call_of_lane(self, r: R.LaneStart) -> int | None:
        """The row of the call that continued this lane (SendMessage) or started it as one of a
        run's agents (Workflow), for the lane_start's way back to it."""
        meta = self._lane_meta.get(r.lane)
        call = r.resumed_by or (meta.spawn if meta is not None and meta.run else None)
        return self._by_tool_use.get(call) if call else None

    def call_of(self, r: RowView) -> tuple[R.ToolUse, R.ToolResult | None] | None:
        """The row's tool call and its result (the model's pairing), or None for any other row."""
        return self._call(r.relay, r.pair)

    def _call(self, relay: R.Relay, pair: int | None) -> tuple[R.ToolUse, R.ToolResult | None] | None:
        other = self.relays[pair] if pair is not None and 0 <= pair < len(self.relays) else None
        if isinstance(relay, R.ToolUse):
            return relay, other if isinstance(other, R.ToolResult) else None
        if isinstance(relay, R.ToolResult) and isinstance(other, R.ToolUse):
            return other, relay
        return None

    def shown(self, r: RowView) -> str:
        """The row's one line as drawn: a tool call with how it ended once its result is known,
        a result with what it was for; any other row keeps the model's summary."""
        return self._line(r.relay, r.pair, r.summary)

    def shown_text(self, seq: int) -> str:
        """Row ``seq``'s line as drawn (``shown``), without a whole RowView where it needs none
        (the search reads every row's)."""
        r = self.relays[seq]
        if seq in self._group_end or isinstance(r, R.SessionMeta | R.ThinkingDelta):
            return self.shown(self.row(seq))
        pair = (self._by_tool_result.get(r.id) if isinstance(r, R.ToolUse)
                else self._by_tool_use.get(r.tool_use_id) if isinstance(r, R.ToolResult) else None)
        return self._line(r, pair, summary(r))

    def _line(self, relay: R.Relay, pair: int | None, text: str) -> str:
        found = self._call(relay, pair) if isinstance(relay, R.ToolUse | R.ToolResult) else None
        if found is None:
            return str(text)
        use, result = found
        if isinstance(relay, R.ToolResult) and result is not None:
            return D.result_summary(use, result) or str(text)
        labels = message_labels(self._lane_meta, use.id, D.message_to(use)) if use.name == MESSAGE_TOOL else None
        return D.summary(use, result, labels) or str(text)

    def row_time(self, seq: int) -> str | None:
        """The row's timestamp, where the input is on the clock (``on_clock``): a stream-json
        capture whose records are timed only here and there (its tool results) is drawn in line
        order, and its rows show no times either."""
        if not self.on_clock():
            return None
        r = self.relays[seq]
        return self.line_time(r.file, r.line)

    def on_clock(self) -> bool:
        """Whether the rows show their times. A transcript's records are timed by design (one
        without a time takes the one before it); stream-json only when the swimlanes' axis is
        wall-clock time by ``spans.Timing``'s rule (decided once from the first relays; an input
        still too short to decide, asked again as it grows)."""
        if self.format != "stream-json":
            return True
        known = self._axis
        if known is not None and (known[0] < 0 or known[0] == len(self.relays)):
            return known[1]

        def stamps(file: str | None, line: int) -> float | None:
            stamp = self.line_time(file, line)
            return rowinfo.parse(stamp) if stamp else None

        timing = S.Timing(stamps)
        for r in self.relays:
            timing.feed(r)
            if timing.axis is not None:
                self._axis = (-1, timing.axis == S.TIME)  # decided for good
                return self._axis[1]
        timing.finish()
        self._axis = (len(self.relays), timing.axis == S.TIME)
        return self._axis[1]

    def row_gap(self, seq: int) -> float | None:
        here = self.row_time(seq)
        t1 = rowinfo.parse(here) if here else None
        if t1 is None:
            return None
        relays, lane = self.relays, self.relays[seq].lane
        book = self._bookkeeping  # hidden by default: a gap counts from a row one can see
        looked = 0
        for q in range(seq - 1, max(-1, seq - 1 - GAP_LOOKBACK), -1):
            if relays[q].lane != lane or q in book:
                continue
            looked += 1
            if looked > WALL_LOOK:  # an input timed here and there: no gap rather than a slow row
                return None
            before = self.row_time(q)
            t0 = rowinfo.parse(before) if before else None
            if t0 is not None:
                return t1 - t0 if t1 >= t0 else None
        return None

    def _session_summary(self, r: R.SessionMeta) -> str:
        """A session row with what the transcript's rows say: the model, version, cwd, branch."""
        model = r.model or next((lane.model for lane in self.lanes if lane.id == r.lane and lane.model), None)
        return words.session_of(r, model, lambda n: self._line_bytes(r.file, n))


def pretty_json(raw: str) -> str | None:
    try:
        return json.dumps(_any.decode(raw), indent=2, ensure_ascii=False) if raw.strip() else None
    except (msgspec.DecodeError, RecursionError):  # RecursionError: nested too deep to indent
        return None


def detail(r: R.Relay) -> str:
    """The full content of a relay, as plain text."""
    if isinstance(r, R.TextDelta | R.ThinkingDelta | R.UserMessage):
        return r.text
    if isinstance(r, R.ToolUse):
        try:
            pretty = json.dumps(_any.decode(r.input), indent=2, ensure_ascii=False)
        except (msgspec.DecodeError, RecursionError, ValueError):
            pretty = bytes(r.input).decode("utf-8", "replace")
        return f"{r.name} ({r.id})\n{pretty}"
    if isinstance(r, R.ToolResult):
        head = "error result" if r.is_error else "result"
        extra = f"; attachments: {', '.join(r.attachments)}" if r.attachments else ""
        return f"{head} for {r.tool_use_id}{extra}\n{r.text}"
    if isinstance(r, R.TurnComplete) and r.result:
        fields = {k: v for k, v in R.to_dict(r).items() if k not in ("result", "type", "seq", "line", "lane")}
        return f"{r.result}\n\n{json.dumps(fields, indent=2, ensure_ascii=False)}"
    return json.dumps(R.to_dict(r), indent=2, ensure_ascii=False)
