"""live: a set of transcript files that grow while they are read; bytes in, relays out.

Job: what ``relayscope translate --follow DIR`` and the web app's "Watch folder" share. Callers
hand over each file's new bytes as they land (:meth:`LiveFiles.feed`, sans-IO: no file is opened
here); complete lines are translated at once, a partial last line waits for its newline.

* A file's format is detected from its first lines, as ``Analyzer`` does. A file that is no
  session transcript gets an ``Analyzer`` of its own.
* Session files are grouped by the library's rule (``library.place``: ``<session>/subagents/``
  ``**/agent-*.jsonl`` with ``<session>.jsonl``; else by ``sessionId``), as
  :func:`~relayscope.multifile.group_files` groups them, one
  :class:`~relayscope.formats.session.SessionTranslator` per session, each file read in its own
  context (``SessionTranslator.feed_file_line``).
* A sub-agent file joins as a lane when something links it to its spawning call, by the rules
  ``multifile.translate_session`` uses (meta file, a result's ``agentId``, the call's prompt):
  until then, and until that call has been fed, its lines wait. A spawn's result is never fed
  before the lines of its sub-agent file at hand (:meth:`LiveFiles._children_first`; a file only
  that result's ``agentId`` links is linked there), so its lane ends at the result as in the
  one-shot translation. At :meth:`finish` a file nothing linked gets a lane of its own (as the
  one-shot translation gives orphans).
* A Workflow run's agent file (``<session>/subagents/workflows/wf_<id>/agent-*.jsonl``) joins as
  the lane ``wf_<id>/<agent>`` under the run's call once a result names the run
  (``toolUseResult.runId``; at :meth:`finish`, the Workflow calls no result names, in order), as
  ``multifile.translate_session`` places it; its lane ends with what the run's ``journal.jsonl``
  (read, not translated) says it returned, once the journal has its result and its file has no
  line pending (else at :meth:`finish`).

* A sub-agent resumed by a ``SendMessage`` call after it returned: its file is cut where
  ``multifile`` cuts the finished file (``multifile.answers``: the first user record with words
  stamped no earlier than the call), a ``lane_start`` with ``resumed_by`` there; a line that may
  be such a cut waits while the call may not have been fed (the main file, fed in the same look,
  is not yet at its time; or the agent's lane has ended and no message to it matches yet). That
  span, and the work of an agent launched in the background (whose launch result ends nothing),
  ends when a ``<task-notification>`` names its call (``multifile.notified_call``), at the next
  cut, or at :meth:`finish`, at the last line of its file fed: where the finished files end it.

Order: relays come in the order their lines arrive, so parallel sub-agents interleave as they
run. Translating the finished files at once (``multifile.translate_files``) emits each
sub-agent file right after its spawning call instead; per file, the relays are the same, in the
same order (the tests compare them). All groups share one seq space, in arrival order.

State: per file, its partial last line and the lines not fed yet (format unknown, sub-agent not
linked); per session, its translator; the trace and errors so far. Nothing resets.

Must not: do I/O, or re-translate what was fed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

import msgspec

from . import relay as R
from . import trace as T
from .analysis import AUTO, Analyzer
from .formats import FORMATS, sniff_line
from .formats.session import BACKGROUND_END, SessionTranslator
from .lanes import Lane
from .library import SUBAGENT, place
from .multifile import (
    Message,
    agent_file_id,
    answers,
    end_workflow_agent,
    file_head,
    is_companion,
    is_journal,
    journal_results,
    line_time,
    message_links,
    meta_file_id,
    notified_call,
    pair_runs,
    read_meta,
    result_links,
    user_words,
    workflow_lane,
    workflow_links,
    workflow_run,
)

_SNIFF_LINES: Final = 8
_WAIT: Final = object()  # a sub-agent file's next line waits (``LiveFiles._resumption``)


def is_meta(name: str) -> bool:
    return meta_file_id(name) is not None


def _dirname(name: str) -> str:
    name = name.replace("\\", "/")
    return name.rsplit("/", 1)[0] if "/" in name else ""


class _Session(msgspec.Struct, eq=False):
    t: SessionTranslator
    main: str | None = None
    session_id: str | None = None
    waiting: list[_File] = msgspec.field(default_factory=list)  # sub-agent files not linked yet
    runs: dict[str, str] = msgspec.field(default_factory=dict)  # wf_<id> -> the Workflow call its result names
    workflow_calls: list[str] = msgspec.field(default_factory=list)  # Workflow calls fed, in order
    sent: dict[bytes, str] = msgspec.field(default_factory=dict)  # SendMessage calls fed: id -> its ``to``
    messages: list[Message] = msgspec.field(default_factory=list)  # those calls, in order
    resumed: dict[str, str | None] = msgspec.field(default_factory=dict)  # call -> the agent its result resumed
    clock: bytes | None = None  # the main file's line being fed, while its lines are fed
    holding: set[_File] = msgspec.field(default_factory=set)  # sub-agent files whose next line waits


class _File(msgspec.Struct, eq=False):
    name: str
    rest: bytes = b""
    pending: list[bytes] = msgspec.field(default_factory=list)  # complete lines not fed yet
    kind: str | None = None  # None (not known yet), "other", "main", "agent"
    analyzer: Analyzer | None = None
    session: _Session | None = None
    lane: str | None = None  # a linked sub-agent file's lane
    agent_id: str | None = None
    busy: bool = False  # its lines are being fed (a child file fed first must not come back to it)
    run: str | None = None  # a Workflow run's agent file: its run (wf_<id>)
    lines: int = 0  # lines fed
    ended: bool = False  # a run's agent whose lane ended (its journal's result came)
    used: set[str] = msgspec.field(default_factory=set)  # SendMessage calls that cut it (or were passed over)
    part: str | None = None  # the SendMessage call whose span (the agent's work after it) is open


class LiveFiles:
    """Files fed by name, in any interleaving; one seq space; ``trace`` and ``errors`` grow
    with what was fed (a caller that only streams them out may clear them).

    Give everything read in one look at the folder to one :meth:`feed_many` call: a spawn's
    result is then never translated before the lines of its sub-agent file that were read
    with it (they were written first), whichever order the files come in."""

    def __init__(self, strategy: str = "lineage", fmt: str = AUTO, *, trace: bool = False) -> None:
        if fmt != AUTO and fmt not in FORMATS:
            raise ValueError(f"unknown input format {fmt!r}; choose from auto, {', '.join(FORMATS)}")
        self.strategy, self.fmt, self.tracing = strategy, fmt, trace
        self.trace: list[T.TraceStep] = []
        self.errors: list[tuple[str | None, int, str]] = []
        self.files: dict[str, _File] = {}
        self.sessions: dict[str, _Session] = {}  # by main file name (or the name it will have)
        self._by_sid: dict[str, _Session] = {}
        self._metas: dict[str, tuple[str | None, str | None, str | None, int | None]] = {}  # agent meta
        self._meta_text: dict[str, bytes] = {}
        self._journals: dict[str, bytes] = {}  # a Workflow run's folder -> its journal so far
        self._seq = 0
        self._reported: dict[int, int] = {}  # id(translator) -> errors already taken
        self._final = False  # finishing: no line waits any more

    # -- entry points ------------------------------------------------------------------------

    def feed(self, name: str, data: bytes) -> list[R.Relay]:
        """New bytes appended to file ``name``."""
        return self.feed_many({name: data})

    def feed_many(self, changes: Mapping[str, bytes]) -> list[R.Relay]:
        """New bytes of several files, read in one look (meta files included)."""
        out: list[R.Relay] = []
        touched: list[_File] = []
        for name, data in changes.items():
            if is_meta(name):
                self._meta(name, data)
                continue
            if is_journal(name):  # read for its agents' return values, not translated
                key = _dirname(name)
                self._journals[key] = self._journals.get(key, b"") + data
                continue
            if is_companion(name):  # spilled tool output: no transcript to follow
                continue
            f = self.files.get(name)
            if f is None:
                f = self.files[name] = _File(name, agent_id=agent_file_id(name), run=workflow_run(name))
            parts = (f.rest + data).split(b"\n")
            f.rest = parts.pop()
            f.pending.extend(parts)
            touched.append(f)
        for f in touched:
            if f.kind is None:
                out.extend(self._classify(f, final=False))
        for s in self.sessions.values():
            out.extend(self._link_waiting(s, final=False))
        for f in touched:
            out.extend(self._pump(f))
        if self._journals:
            for f in self.files.values():
                if f.run is not None and not f.rest and not f.pending and self._returned(f) is not None:
                    out.extend(self._end_workflow_agent(f))
        return out

    def meta(self, name: str, data: bytes) -> list[R.Relay]:
        """New bytes of a sub-agent meta file ``agent-<id>.meta.json`` (used once it parses)."""
        return self.feed_many({name: data})

    def restart(self, name: str) -> list[R.Relay]:
        """File ``name`` is read again from its start (truncated or replaced): what it still
        held goes, then its lines count from 1 again. A session keeps its de-dup state, so
        blocks already emitted are not repeated."""
        f = self.files.pop(name, None)
        if f is None:
            return []
        out = self._pump(f) + self._end(f)
        if f.kind == "agent" and f.lane is not None:
            self.files[name] = _File(name, agent_id=f.agent_id, kind=f.kind, session=f.session, lane=f.lane, run=f.run,
                                     ended=f.ended)
        return out

    def finish(self) -> list[R.Relay]:
        """End of input: last lines without a newline, files still waiting, open messages."""
        out: list[R.Relay] = []
        self._final = True
        for f in self.files.values():
            if f.rest:
                f.pending.append(f.rest)
                f.rest = b""
            if f.kind is None:
                out.extend(self._classify(f, final=True))
        for s in self.sessions.values():
            out.extend(self._link_waiting(s, final=True))
        for f in self.files.values():
            out.extend(self._pump(f))
        for f in self.files.values():
            out.extend(self._end(f))
            out.extend(self._end_workflow_agent(f))
            if f.session is not None and f.kind == "agent":
                out.extend(self._end_span(f.session, f))
        for s in self.sessions.values():
            out.extend(self._run(s.t, s.t.finish))
        return out

    # -- what a view shows -------------------------------------------------------------------

    def formats(self) -> set[str]:
        """The formats of the files whose format is known."""
        return {("session" if f.kind != "other" else f.analyzer.format if f.analyzer else None) or "stream-json"
                for f in self.files.values() if f.kind is not None}

    def lanes(self) -> dict[str, Lane]:
        """Every session's lanes (parent, depth, label), by lane id."""
        return {k: v for s in self.sessions.values() for k, v in s.t.lanes.snapshot().items()}

    def file_lanes(self) -> dict[str, str]:
        """Each linked sub-agent file's lane."""
        return {f.name: f.lane for f in self.files.values() if f.lane is not None}

    # -- lines -------------------------------------------------------------------------------

    def _meta(self, name: str, data: bytes) -> None:
        agent = meta_file_id(name)
        if agent is None:
            return
        key = f"{_dirname(name)}/{agent}"
        text = self._meta_text[key] = self._meta_text.get(key, b"") + data
        found = read_meta(text)
        if found is not None:
            self._metas[key] = found

    def _pump(self, f: _File) -> list[R.Relay]:
        """Feed what ``f`` holds, if it can be fed (format known; a sub-agent file linked)."""
        if f.busy or not f.pending or f.kind is None or (f.kind == "agent" and f.lane is None):
            return []
        if f.kind == "other":
            a = f.analyzer
            assert a is not None
            lines, f.pending = f.pending, []
            return self._run(a, lambda: [r for line in lines for r in a.feed_line(line)])
        s = f.session
        assert s is not None
        out: list[R.Relay] = []
        lines, f.pending = f.pending, []
        f.busy = True
        main = f.kind == "main"
        outer = s.clock
        s.holding.discard(f)
        try:
            for k, line in enumerate(lines):
                if main:
                    s.clock = line
                    call = notified_call(line) if b"<task-notification>" in line else None
                    if call is not None:
                        out.extend(self._notified(s, call))
                elif f.lines >= 1 and f.lane is not None:
                    found = self._resumption(s, f, line)
                    if found is _WAIT:
                        f.pending[:0] = lines[k:]
                        s.holding.add(f)
                        break
                    if isinstance(found, Message):
                        out.extend(self._resume(s, f, found))
                out.extend(self._children_first(s, line))
                out.extend(self._run(s.t, lambda: s.t.feed_file_line(f.name, line, f.lane)))  # noqa: B023 - run at once
                f.lines += 1
                self._note_runs(s, line)
                if main and (b'"SendMessage"' in line or (s.sent and b'"toolUseResult"' in line)):
                    self._note_messages(s, line)
                if s.waiting:
                    out.extend(self._link_waiting(s, final=False))
                if main and s.holding:
                    out.extend(self._release(s))
        finally:
            f.busy = False
            if main:
                s.clock = outer
        if main and s.holding and s.clock is None:
            out.extend(self._release(s))
        return out

    # -- a sub-agent's work after a message sent to it, a background agent's end ---------------

    @staticmethod
    def _note_messages(s: _Session, line: bytes) -> None:
        """The SendMessage calls a main file's line makes, and the agents their results resumed."""
        calls, resumed = message_links(line, s.sent)
        s.messages.extend(calls)
        s.resumed.update(resumed)

    def _resumption(self, s: _Session, f: _File, line: bytes) -> Message | object | None:
        """Whether the next line of sub-agent file ``f`` is where a message sent to it resumed it
        (the message), by the rule ``multifile`` cuts a finished file by (the first user record
        with words stamped no earlier than the call, else whose text is the message); or must
        wait (``_WAIT``): it may be, and the call may not have been fed yet: the main file is
        being fed and is not yet at its time, or its lane had ended (a returned agent's next
        words can only be a message's). None: an ordinary line."""
        assert f.lane is not None
        lane = s.t.lanes.lanes.get(f.lane)
        ended = lane is not None and lane.ended and f.part is None and f.lane not in s.t.background
        if not (s.messages or s.clock is not None or ended):
            return None  # no message sent yet nor on its way in this look, its lane running: an ordinary line
        words = user_words(line)
        if words is None:
            return None
        mine = [m for m in s.messages if m.call not in f.used and s.resumed.get(m.call, m.to) == f.agent_id]
        found = next((m for m in mine if answers(words, m)), None)
        if self._final:
            return found
        if found is not None:
            # a call whose result is not fed yet while the main file is: that result may say its
            # message was queued (no span), as reading the finished files knows
            return _WAIT if s.clock is not None and found.call not in s.resumed else found
        if s.clock is not None and words[1] is not None:
            now = line_time(s.clock)
            if now is not None and words[1] > now:
                return _WAIT
        return _WAIT if ended else None

    def _resume(self, s: _Session, f: _File, m: Message) -> list[R.Relay]:
        """Sub-agent file ``f``'s next line starts its work after message ``m``: the span open
        ends, a new one starts there."""
        t, lane = s.t, f.lane
        assert lane is not None
        out = self._end_span(s, f)
        for other in s.messages:  # it and the messages to it before it are done with
            f.used.add(other.call)
            if other is m:
                break
        f.part = m.call
        return out + self._run(t, lambda: t.resume_lane(f.name, f.lines + 1, lane, m.call))

    def _end_span(self, s: _Session, f: _File) -> list[R.Relay]:
        """The span of sub-agent file ``f``'s lane that is open ends at its last line fed: its
        work after a message, or a background agent's work (no tool_result ends either)."""
        t, lane = s.t, f.lane
        if lane is None or not f.lines:
            return []
        if f.part is not None:
            call, f.part = f.part, None
            return self._run(t, lambda: t.end_lane(f.name, f.lines, lane, None,
                                                   f"end of the work after the message of call {call}"))
        if lane in t.background:
            return self._run(t, lambda: t.end_lane(f.name, f.lines, lane, None, BACKGROUND_END))
        return []

    def _notified(self, s: _Session, call: str) -> list[R.Relay]:
        """A ``<task-notification>`` says ``call`` is done: the background agent it spawned, or
        the work a SendMessage call resumed, ends (after the lines of its file read so far)."""
        out: list[R.Relay] = []
        for g in list(self.files.values()):
            if g.session is s and g.kind == "agent" and g.lane is not None and (
                    g.part == call or (g.part is None and g.lane == call and call in s.t.background)):
                out.extend(self._pump(g))
                if g.part == call or (g.part is None and call in s.t.background):
                    out.extend(self._end_span(s, g))
        return out

    def _release(self, s: _Session) -> list[R.Relay]:
        """The sub-agent files whose next line waited, fed again (it may wait again)."""
        out: list[R.Relay] = []
        for g in list(s.holding):
            if not g.busy:
                out.extend(self._pump(g))
        return out

    @staticmethod
    def _note_runs(s: _Session, line: bytes) -> None:
        """The Workflow calls a line fed makes, and the runs its results name."""
        if b'"Workflow"' not in line and b'"runId"' not in line:
            return
        calls, runs = workflow_links(line)
        s.workflow_calls.extend(c for c in calls if c not in s.workflow_calls)
        for run, call in runs.items():
            s.runs.setdefault(run, call)

    def _children_first(self, s: _Session, line: bytes) -> list[R.Relay]:
        """Before a spawn's result: the lines of its sub-agent file read so far. A file that
        only this result links (its ``agentId``: no meta file, a reworded prompt) is linked
        here, so that it too comes before the result that ends its lane."""
        if b"tool_result" not in line:
            return []
        out: list[R.Relay] = []
        if s.waiting and b"agentId" in line:
            names = {f.agent_id for f in s.waiting}
            found = {a: spawn for a, spawn in result_links(line).items() if a in names}
            for agent, spawn in found.items():
                s.t.link_agent(agent, spawn)
            if found:
                out.extend(self._link_waiting(s, final=False))
        for f in self.files.values():
            if f.session is s and f.kind == "agent" and f.lane is not None and f.pending \
                    and f.lane.encode() in line:
                out.extend(self._pump(f))
        return out

    def _classify(self, f: _File, final: bool) -> list[R.Relay]:
        fmt = self.fmt if self.fmt != AUTO else None
        if fmt is None:
            proven = next((p for p in map(sniff_line, f.pending) if p is not None), None)
            if proven is None and not final and sum(1 for h in f.pending if h.strip()) < _SNIFF_LINES:
                return []
            fmt = proven or "stream-json"
        if fmt != "session":
            f.kind = "other"
            f.analyzer = Analyzer(self.strategy, fmt, trace=self.tracing, keep=False, file=f.name)
            return []
        sid, _ = file_head(f.pending[:_SNIFF_LINES])
        if f.agent_id is None:
            f.kind = "main"
            first = self._by_sid.get(sid) if sid else None
            if first is not None and first.main is None:  # its sub-agent files (2.0.x: beside it) came first
                self.sessions[f.name] = self.sessions.pop(f"session {sid}", first)
                f.session = s = first
            else:
                f.session = s = self._session(f.name)
            s.main = f.name
            if sid and s.session_id is None:
                s.session_id = sid
                self._by_sid.setdefault(sid, s)
            return []
        f.kind = "agent"
        where = place(f.name)  # the library's rule: P/S/subagents/**/agent-*.jsonl is session P/S's
        s_found: _Session | None = None
        if where is not None and where[1] == SUBAGENT:
            s_found = self._session(self._main_name(f.name, where[0]))
        elif sid is not None:
            s_found = self._by_sid.get(sid)
            if s_found is None:
                s_found = self._by_sid[sid] = self._session(f"session {sid}")
                s_found.session_id = sid
        f.session = s = s_found or self._session(f.name)
        s.waiting.append(f)
        return []

    @staticmethod
    def _main_name(name: str, folder: str) -> str:
        """The main file of session folder ``folder`` (as ``place`` gives it, ``/``-separated),
        named as the files fed are (``\\`` kept where the caller uses it)."""
        return name[: len(folder)] + ".jsonl"

    def _session(self, key: str) -> _Session:
        s = self.sessions.get(key)
        if s is None:
            s = self.sessions[key] = _Session(SessionTranslator(self.strategy, trace=self.tracing))
        return s

    # -- sub-agent files: link, then feed ----------------------------------------------------

    def _link_waiting(self, s: _Session, final: bool) -> list[R.Relay]:
        out: list[R.Relay] = []
        ready: list[_File] = []  # a run's agents: all linked first, then fed one after the other
        for f in list(s.waiting):
            if f not in s.waiting:  # linked meanwhile, by a file fed from this loop
                continue
            assert f.agent_id is not None
            meta = self._metas.get(f"{_dirname(f.name)}/{f.agent_id}")
            prompt = file_head(f.pending[:_SNIFF_LINES])[1]
            if f.run is not None:  # a Workflow run's agent: under the run's call, once one is known
                runs = {w.run for w in s.waiting if w.run is not None}
                call = (pair_runs(s.runs, s.workflow_calls, runs).get(f.run, (None, ""))[0] if final
                        else s.runs.get(f.run))
                if call is None and not final:
                    continue  # its lines wait for a result that names its run
                s.waiting.remove(f)
                f.lane = workflow_lane(s.t, f.name, f.run, f.agent_id, call, meta[2] if meta else None, prompt)
                ready.append(f)
                continue
            link = s.t.link_file(f.agent_id, prompt, meta[0] if meta else None)
            if link is not None and not (final or s.t.spawned(link[0])):
                continue  # its lines wait for the call that spawned it
            if link is None:
                if s.main is not None and not final:
                    continue  # the main file may still name it
                lane = s.t.own_lane(f"agent-{f.agent_id}", f.agent_id)
            else:
                lane = link[0]
            if meta is not None:
                s.t.describe_lane(lane, meta[1], meta[2], meta[3], file=f.name, over_spawn=True)
            else:
                s.t.describe_lane(lane, file=f.name)
            s.waiting.remove(f)
            f.lane = lane
            out.extend(self._pump(f))
        for f in ready:
            out.extend(self._pump(f))
        return out

    def _end_workflow_agent(self, f: _File) -> list[R.Relay]:
        """A Workflow run's agent file at the end of input: its lane ends, with what the run's
        journal says it returned."""
        if f.run is None or f.lane is None or f.session is None or f.ended:
            return []
        f.ended = True
        t, lane, run, returned = f.session.t, f.lane, f.run, self._returned(f)
        return self._run(t, lambda: end_workflow_agent(t, f.name, f.lines, lane, run, returned))

    def _returned(self, f: _File) -> str | None:
        """What a run's agent returned, as its run's journal says so far; None if it does not say."""
        journal = self._journals.get(_dirname(f.name))
        return journal_results(journal).get(f.agent_id or "") if journal else None

    def _end(self, f: _File) -> list[R.Relay]:
        if f.kind == "other" and f.analyzer is not None:
            a = f.analyzer
            return self._run(a, a.finish)
        if f.session is not None and f.kind is not None and (f.kind == "main" or f.lane is not None):
            t = f.session.t
            return self._run(t, lambda: t.end_file(f.name))
        return []

    # -- one seq space, one trace, one error list ----------------------------------------------

    def _run(self, source: Analyzer | SessionTranslator, work: Callable[[], list[R.Relay]]) -> list[R.Relay]:
        steps = source.trace
        before = len(steps)
        relays = work()
        offset = self._seq - relays[0].seq if relays else 0
        if offset:
            relays = [msgspec.structs.replace(r, seq=r.seq + offset) for r in relays]
        self._seq += len(relays)
        new = steps[before:]
        if offset:
            for step in new:
                step.seqs = [q + offset for q in step.seqs]
        self.trace.extend(new)
        del steps[before:]  # kept once, here
        self._take_errors(source)
        return relays

    def _take_errors(self, source: Analyzer | SessionTranslator) -> None:
        key = id(source)
        done = self._reported.get(key, 0)
        if isinstance(source, SessionTranslator):
            new = source.file_errors[done:]
            self.errors.extend(new)
            self._reported[key] = done + len(new)
        else:
            found = source.errors[done:]
            self.errors.extend((source.file, line, message) for line, message in found)
            self._reported[key] = done + len(found)
