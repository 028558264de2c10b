"""The Trace Event Format (Chrome's, Perfetto's): each run's spans, calls and marks as events."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import spans as S
from .live import SCOPE, Live, _base
from .reading import Writer, _dumps

# -- Trace Event Format ---------------------------------------------------------------------

class ChromeTrace(Writer):
    def __init__(self, out: Callable[[bytes], None], untimed_start: float) -> None:
        super().__init__(out, untimed_start)
        self.pid = 0
        self.cur: Live | None = None
        self.tids: dict[tuple[str, str, int], int] = {}
        self.first = True
        self.axes: set[str] = set()
        self.notes: list[str] = []
        self.parts: list[bytes] = []  # a batch's events, written together (``put``)
        out(b'{"traceEvents":[')

    def _event(self, e: dict[str, Any]) -> None:
        self.parts.append((b"" if self.first else b",\n") + _dumps(e))
        self.first = False

    def _start(self, run: Live) -> None:
        self.pid += 1
        self.cur, self.tids = run, {}
        b = run.builder_now()
        title = f"session {b.session_id}" if b.session_id else (_base(run.name) or "run")
        self._event({"name": "process_name", "ph": "M", "pid": self.pid, "tid": 0, "args": {"name": title}})

    def _tid(self, b: S.Builder, lane: str, family: str, row: int) -> int:
        key = (lane, family, row)
        tid = self.tids.get(key)
        if tid is None:
            tid = self.tids[key] = len(self.tids) + 1
            tr = b.tracks.get(lane)
            label = tr.label if tr is not None else lane
            name = (label if row == 0 else f"{label} · parallel {row + 1}") if family == "tools" else (
                f"{label} · model" + ("" if row == 0 else f" {row + 1}"))
            self._event({"name": "thread_name", "ph": "M", "pid": self.pid, "tid": tid, "args": {"name": name}})
        return tid

    def put(self, run: Live, items: list[S.Closed], done: bool) -> None:
        self._put(run, items, done)
        if self.parts:  # one write per batch: a call per event would cost as much as its encoding
            parts, self.parts = self.parts, []
            self.out(b"".join(parts))

    def _put(self, run: Live, items: list[S.Closed], done: bool) -> None:
        if run is not self.cur:
            self._start(run)
        b = run.builder_now()
        axis = b.axis
        for it in items:
            if isinstance(it, S.Span):
                ts = self.ns(it.start, axis) // 1000
                args: dict[str, Any] = {"lane": it.lane, "seq": it.seq, "line": it.line}
                if it.file:
                    args["file"] = _base(it.file)
                if it.kind == "tool":
                    args["input"] = it.label
                    args["tool_use_id"] = it.tool_id
                if it.end_seq is None:
                    args["open"] = True  # no result: ends at the lane's last event
                if it.error:
                    args["is_error"] = True
                # a lane's span reaches 1 us past its last event: viewers end a span before its end
                # time, so a call (or mark) that starts at the lane's last event is still inside it
                dur = max(0, self.ns(it.end, axis) // 1000 - ts) + (it.kind == "agent")
                self._event({"name": it.name, "cat": it.kind, "ph": "X", "ts": ts, "dur": dur, "pid": self.pid,
                             "tid": self._tid(b, it.lane, "tools", it.row if it.kind == "tool" else 0), "args": args})
            elif isinstance(it, S.Call):
                ts = self.ns(it.start, axis) // 1000
                cargs: dict[str, Any] = {"lane": it.lane, "seq": it.seq, "line": it.line, "model": it.model,
                                         "message_id": it.message_id, **_tokens(it)}
                if it.file:
                    cargs["file"] = _base(it.file)
                self._event({"name": f"chat {it.model or 'model'}", "cat": "model", "ph": "X", "ts": ts,
                             "dur": max(0, self.ns(it.end, axis) // 1000 - ts), "pid": self.pid,
                             "tid": self._tid(b, it.lane, "model", it.row), "args": cargs})
            elif it.kind != "model":
                margs: dict[str, Any] = {"lane": it.lane, "line": it.line, "text": it.text}
                if it.file:
                    margs["file"] = _base(it.file)
                if it.seq is not None:
                    margs["seq"] = it.seq
                self._event({"name": "lost block" if it.kind == "lost" else "error", "cat": it.kind, "ph": "i",
                             "s": "t", "ts": self.ns(it.at, axis) // 1000, "pid": self.pid,
                             "tid": self._tid(b, it.lane, "tools", 0), "args": margs})
        if done:
            self.axes.add(axis)
            self.notes.extend(b.notes)
            order = {tr.id: n for n, tr in enumerate(S._ordered(b.tracks))}
            ranked = sorted(self.tids.items(), key=lambda kv: (
                order.get(kv[0][0], len(order)), kv[0][1] != "tools", kv[0][2], kv[1]))
            for n, (_, tid) in enumerate(ranked, 1):  # main first, each lane under its parent
                self._event({"name": "thread_sort_index", "ph": "M", "pid": self.pid, "tid": tid,
                             "args": {"sort_index": n}})
            self.cur = None

    def close(self) -> None:
        other: dict[str, Any] = {"generator": SCOPE,
                                 "axis": ", ".join(self.axis_words(a) for a in sorted(self.axes))}
        if self.axes - {S.TIME}:
            other["untimed_unit"] = "1 ms = 1 input line (or relay): the input carries no timestamps"
        if self.notes:
            other["notes"] = self.notes
        self.out(b'],"displayTimeUnit":"ms","otherData":' + _dumps(other) + b"}\n")


def _tokens(c: S.Call) -> dict[str, int]:
    return {"input_tokens": c.input_tokens + c.cache_read_tokens + c.cache_creation_tokens,
            "output_tokens": c.output_tokens, "cache_read_input_tokens": c.cache_read_tokens,
            "cache_creation_input_tokens": c.cache_creation_tokens}


