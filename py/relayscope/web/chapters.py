"""chapters: the run's chapters as the outline lists them (``relayscope.chapters`` says where one
starts): each with its title, start time, duration, tool calls and errors, and which chapter a
row is in.

A chapter holds the relays from its prompt to the next prompt in seq order: a sub-agent's relays
come after the call that started it, so they are in the chapter of that call.
Must not: draw (outline.py does), or touch the page.
"""

from __future__ import annotations

import bisect
from typing import Protocol

import msgspec

from .. import chapters as C
from .. import relay as R
from ..meaning import is_error
from . import rowinfo

LOOK_BACK = 64  # relays looked at back from the run's end for its last time


class Chapter(msgspec.Struct, frozen=True):
    index: int  # 0-based
    seq: int  # the prompt's row
    title: str
    time: str | None  # the prompt's timestamp (ISO), where the input has one
    seconds: float | None  # to the next chapter's start (the last: to the run's last time)
    tools: int  # tool calls, in every lane
    errors: int  # failed tool results, error relays and records that report a failure

    @property
    def facts(self) -> str:
        """"10:42:13 · 4m 05s · 12 tools · 1 error"; what the input does not say is left out."""
        parts = [rowinfo.clock(self.time)] if self.time else []
        if self.seconds is not None:
            parts.append(rowinfo.duration(self.seconds))
        parts.append(f"{self.tools} tool{'s' if self.tools != 1 else ''}")
        if self.errors:
            parts.append(self.errors_words)
        return " · ".join(parts)

    @property
    def errors_words(self) -> str:
        return f"{self.errors} error{'s' if self.errors != 1 else ''}"


class Timed(Protocol):
    relays: list[R.Relay]

    def row_time(self, seq: int) -> str | None: ...


def chapters(ws: Timed) -> list[Chapter]:
    """The run's chapters, in order (none when no real user prompt is in it)."""
    relays = ws.relays
    starts = [r.seq for r in relays if C.is_start(r)]
    if not starts:
        return []
    tools = [0] * len(starts)
    errors = [0] * len(starts)
    k = -1
    nxt = starts[0]
    for r in relays:
        if r.seq >= nxt:
            k += 1
            nxt = starts[k + 1] if k + 1 < len(starts) else len(relays)
        if k < 0:
            continue
        t = type(r)
        if t is R.ToolUse:
            tools[k] += 1
        elif (t is R.ToolResult and r.is_error) or t is R.Error or (  # type: ignore[attr-defined]
                t in (R.System, R.Passthrough) and is_error(r)):
            errors[k] += 1
    times = [ws.row_time(q) for q in starts]
    end = next((stamp for q in range(len(relays) - 1, max(-1, len(relays) - 1 - LOOK_BACK), -1)
                if (stamp := ws.row_time(q))), None)
    out = []
    for i, q in enumerate(starts):
        start = times[i]
        t0 = rowinfo.parse(start) if start else None
        until = times[i + 1] if i + 1 < len(starts) else end
        t1 = rowinfo.parse(until) if until else None
        seconds = t1 - t0 if t0 is not None and t1 is not None and t1 >= t0 else None
        prompt = relays[q]
        assert isinstance(prompt, R.UserMessage)
        out.append(Chapter(i, q, C.title(prompt), times[i], seconds, tools[i], errors[i]))
    return out


def chapter_at(found: list[Chapter], seq: int) -> int | None:
    """The index of the chapter row ``seq`` is in (None: before the first prompt)."""
    k = bisect.bisect_right([c.seq for c in found], seq) - 1
    return k if k >= 0 else None
