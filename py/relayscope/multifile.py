"""multifile: any set of files (a dropped folder, a project folder) or one text in; sessions
translated and audited out. The layer above ``analysis`` and ``audit``, below the CLI and the web.

Theory of operation
-------------------
:func:`group_files` sorts files into sessions (a main file and its sub-agent files, linked by
folder, by ``toolUseResult.agentId`` or by ``sessionId``) and files of other formats, each a
group of its own (the format from ``formats.detect``). :func:`translate_files` translates each
group: a session through :func:`translate_session`, any other file through an ``Analyzer``.

Several files of one session (:func:`translate_session`) share one
:class:`~relayscope.formats.session.SessionTranslator`, so seq numbers, de-dup state and lanes
span the files. **Emission order**: the main file(s) in the order given, and each sub-agent
file's relays right after the record holding the call that spawned it (recursively, so a nested
sub-agent's file comes right after its spawn inside its parent's file); sub-agent files whose
spawning call is in none of the files (orphans, compaction runs) come last, in file-name order.
A sub-agent's ``lane_end`` still comes at the parent's tool_result, with the usage of the
sub-agent's last message just before it. Every relay's ``file`` names the file its row came
from and ``line`` is the line in that file. A sub-agent file is linked to its spawning call by
its ``agent-<id>.meta.json`` (``toolUseId``), by the spawn's result (``toolUseResult.agentId``)
or, failing both, by the one unbound call whose prompt is the file's first prompt.

The audit has one entry point, :func:`audit_steps` (:func:`audit_input` without the progress):
the CLI and the web model both call it, and it audits each group exactly as it is translated
for display (one text: through an ``Analyzer``, as the CLI and the page read it; a set of files:
group by group as :func:`translate_files` does), every strategy against one inventory. One text
is read line by line, every strategy's translator fed each line in turn (``audit.Audit``
counts as they go): given its lines lazily, its audit holds no line it has passed. Given also a
way to read them again (``again``: a file), it translates one strategy a pass, so that only one
translator's windows are held at once (the inventory is built along the first pass).

State: none between calls; each call builds its own translators. No I/O: callers pass file
contents. Must not import the CLI or the web package.
"""

from __future__ import annotations

import itertools
import posixpath
import re
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from typing import Final

import msgspec
from msgspec import Raw, Struct

from . import relay as R
from . import trace as T
from .analysis import AUTO, SLICE_BYTES, Analyzer
from .audit import Audit, Inventory, Item, Key, StrategyAudit
from .drift import Drift, DriftByFile, DriftReport
from .formats import Sniffer, detect
from .formats.session import (
    AGENT_FILE,
    AGENT_META,
    UNLINKED,
    SessionTranslator,
    agent_link,
    decode_or,
    first_text,
)
from .lanes import Lane, is_spawn_tool, spawn_input
from .translator import STRATEGIES, Translator
from .wire import Frame, decode_line, iter_lines, split_lines

__all__ = [
    "FileGroup",
    "InputAudit",
    "SessionResult",
    "audit_input",
    "audit_lines",
    "audit_steps",
    "group_files",
    "group_names",
    "merge_audits",
    "translate_files",
    "translate_groups",
    "translate_session",
]

Text = str | bytes
Errors = list[tuple[str | None, int, str]]  # (file, line, message)


# --- light records for pre-scans (fields we need only; everything else skipped) -------------


class _ScanBlock(Struct):
    type: str | None = None
    id: str | None = None
    name: str | None = None
    input: Raw = Raw(b"")
    tool_use_id: str | None = None
    text: str | None = None


class _ScanMsg(Struct):
    content: list[_ScanBlock] | str | None = None


class _ScanRec(Struct):
    type: str | None = None
    sessionId: str | None = None
    agentId: str | None = None
    isSidechain: bool | None = None
    message: _ScanMsg | None = None
    toolUseResult: Raw = Raw(b"")


BAD_META: Final = "sub-agent meta file is not the JSON object expected; ignored"


class _Meta(Struct):
    toolUseId: str | None = None
    agentType: str | None = None
    description: str | None = None
    spawnDepth: int | None = None


_scan: Final = msgspec.json.Decoder(_ScanRec)
_meta: Final = msgspec.json.Decoder(_Meta)


# --- one sub-agent file waiting for its spawning call ------------------------------------------


class _AgentFile(msgspec.Struct):
    name: str
    agent_id: str
    lane: str
    lines: list[bytes]
    how: str
    done: bool = False


# --- several files --------------------------------------------------------------------------


class SessionResult(msgspec.Struct):
    """One session (a main file and its sub-agent files), translated."""

    name: str  # the main file, or the first file when there is none
    format: str  # "session", or the format a file that is no session transcript was read as
    files: list[str]  # in the order their relays were emitted
    relays: list[R.Relay]
    trace: list[T.TraceStep]
    errors: list[tuple[str | None, int, str]]  # (file, line, message)
    lanes: dict[str, Lane] = msgspec.field(default_factory=dict)  # lane id -> parent, depth, label ...
    file_lanes: dict[str, str] = msgspec.field(default_factory=dict)  # sub-agent file -> its lane
    file_links: dict[str, str] = msgspec.field(default_factory=dict)  # sub-agent file -> how it was linked
    session_id: str | None = None
    drift: dict[str, DriftReport] = msgspec.field(default_factory=dict)  # file -> its drift report


def _basename(name: str) -> str:
    return posixpath.basename(name.replace("\\", "/"))


def _dirname(name: str) -> str:
    return posixpath.dirname(name.replace("\\", "/"))


def _agent_id(name: str) -> str | None:
    m = AGENT_FILE.match(_basename(name))
    return m.group(1) if m else None


class _Scan(msgspec.Struct):
    """What a quick pass over one file tells: enough to link files before translating."""

    session_id: str | None = None
    agent_id: str | None = None  # from the records (2.x sub-agent files)
    first_prompt: str | None = None
    spawns: dict[str, str | None] = msgspec.field(default_factory=dict)  # Task/Agent id -> prompt
    agent_results: dict[str, str] = msgspec.field(default_factory=dict)  # agentId -> tool_use_id


_INTERESTING: Final = re.compile(rb'"(?:Task|Agent|agentId)"')  # one pass over lines of no interest


def _scan_file(lines: list[bytes]) -> _Scan:
    s = _Scan()
    for i, line in enumerate(lines):
        head = i < 8 and s.session_id is None
        prompt = s.first_prompt is None and b'"user"' in line
        if not (head or prompt or _INTERESTING.search(line)):
            continue
        spawn = b'"tool_use"' in line and (b'"Task"' in line or b'"Agent"' in line)
        result = b'"toolUseResult"' in line and b'"agentId"' in line
        if not (head or prompt or spawn or result):
            continue
        rec = decode_or(_scan, line, None)
        if rec is None:
            continue
        if s.session_id is None and rec.sessionId:
            s.session_id, s.agent_id = rec.sessionId, rec.agentId
        content = rec.message.content if rec.message is not None else None
        if rec.type == "user" and s.first_prompt is None:
            s.first_prompt = first_text(content)
        if spawn and isinstance(content, list):
            for b in content:
                if b.type == "tool_use" and is_spawn_tool(b.name) and b.id:
                    s.spawns.setdefault(b.id, spawn_input(b.input).prompt)
        if result and rec.toolUseResult:
            link = decode_or(agent_link, rec.toolUseResult, None)
            if link is not None and isinstance(link.agentId, str) and isinstance(content, list):
                for b in content:
                    if b.type == "tool_result" and b.tool_use_id:
                        s.agent_results.setdefault(link.agentId, b.tool_use_id)
    return s


_Prepared = dict[str, tuple[list[bytes], _Scan]]  # file -> its lines and what a quick pass saw


def _prepare(name: str, content: Text, cache: _Prepared) -> tuple[list[bytes], _Scan]:
    found = cache.get(name)
    if found is None:
        lines = split_lines(content)
        found = cache[name] = (lines, _scan_file(lines))
    return found


def translate_session(files: Mapping[str, Text], strategy: str = "lineage", *,
                      trace: bool = False, drift: Drift | None = None) -> SessionResult:
    """Translate the files of ONE session together: ``{name or relative path: content}``.

    Files named ``agent-<id>.jsonl`` are sub-agent files, ``agent-<id>.meta.json`` their meta
    files, every other file a main file (usually one). Sub-agent files are linked to their
    spawning call as the module doc says; the relays come in one seq space. ``drift``, when
    given, counts the files' drift as they are decoded (each line with its file)."""
    return _translate_session(files, strategy, trace, {}, drift)


def _translate_session(files: Mapping[str, Text], strategy: str, trace: bool,
                       cache: _Prepared, drift: Drift | None = None) -> SessionResult:
    metas: dict[str, _Meta] = {}
    mains: list[str] = []
    agents: list[str] = []
    data: dict[str, list[bytes]] = {}
    scans: dict[str, _Scan] = {}
    errors: list[tuple[str | None, int, str]] = []
    for name, content in files.items():
        m = AGENT_META.match(_basename(name))
        if m:
            meta = decode_or(_meta, content, None)
            if meta is None:
                errors.append((name, 1, BAD_META))
            else:
                metas[m.group(1)] = meta
            continue
        data[name], scans[name] = _prepare(name, content, cache)
        (agents if _agent_id(name) is not None else mains).append(name)

    links: dict[str, tuple[str, str]] = {}  # agent id -> (spawn id, how)
    for agent, meta in metas.items():
        if meta.toolUseId:
            links[agent] = (meta.toolUseId, "agent-<id>.meta.json toolUseId")
    for s in scans.values():
        for agent, tool_id in s.agent_results.items():
            links.setdefault(agent, (tool_id, "toolUseResult.agentId of the spawn's result"))
    spawn_file: dict[str, str] = {}  # spawn id -> file it is in
    prompts: dict[str, list[str]] = {}
    for name, s in scans.items():
        for tool_id, prompt in s.spawns.items():
            spawn_file.setdefault(tool_id, name)
            if prompt:
                prompts.setdefault(prompt, []).append(tool_id)
    taken = {spawn for spawn, _ in links.values()}
    t = SessionTranslator(strategy, trace=trace, links={a: sp for a, (sp, _) in links.items()})
    t.drift = drift
    t.reserve_spawns(taken)  # an inline sidechain never takes a call a sub-agent file is linked to
    waiting: dict[str, list[_AgentFile]] = {}  # spawn id -> sub-agent files run right after it
    pending: list[_AgentFile] = []
    for name in sorted(agents):
        agent = _agent_id(name) or name
        if agent not in links:
            # no meta, no agentId in a result: the one call whose prompt is the file's first prompt
            prompt = scans[name].first_prompt
            free = [sp for sp in prompts.get(prompt or "", []) if sp not in taken]
            if prompt and free:
                links[agent] = (free[0], "the spawning call's prompt is the file's first prompt")
                taken.add(free[0])
                t.link_agent(agent, free[0])
        spawn, how = links.get(agent, (f"agent-{agent}", UNLINKED))
        af = _AgentFile(name, agent, spawn, data[name], how)
        meta = metas.get(agent)
        if agent in links:
            waiting.setdefault(spawn, []).append(af)
        else:
            t.own_lane(spawn, agent)
        if meta is not None:
            t.describe_lane(spawn, meta.agentType, meta.description, meta.spawnDepth, file=name)
        else:
            t.describe_lane(spawn, file=name)
        pending.append(af)

    order: list[str] = []
    relays: list[R.Relay] = []

    def run(af: _AgentFile) -> list[R.Relay]:
        af.done = True
        order.append(af.name)
        return t.translate_file(af.name, af.lines, lane=af.lane)

    def on_spawn(spawn: str) -> list[R.Relay]:
        out: list[R.Relay] = []
        for af in waiting.pop(spawn, []):
            if not af.done:
                out.extend(run(af))
        return out

    t.on_spawn(on_spawn)
    for name in mains:
        order.append(name)
        relays.extend(t.translate_file(name, data[name]))
    # sub-agent files whose spawning call never came: orphans first, then the rest by name
    for af in pending:
        if not af.done and af.lane not in spawn_file:
            relays.extend(run(af))
    for af in pending:
        if not af.done:
            relays.extend(run(af))
    relays.extend(t.finish())
    for agent, (spawn, _) in links.items():  # whose transcript to look for (lanes.missing_transcripts)
        if spawn in t.lanes.lanes:
            t.lanes.describe(spawn, agent_id=agent)
    first = (mains or agents or list(files) or [""])[0]
    session_id = next((scans[n].session_id for n in (mains + agents) if scans[n].session_id), None)
    return SessionResult(
        name=first, format="session", files=order, relays=relays, trace=t.trace,
        errors=errors + t.file_errors, lanes=t.lanes.snapshot(),
        file_lanes={af.name: af.lane for af in pending}, file_links={af.name: af.how for af in pending},
        session_id=session_id,
    )


# --- any set of files: group into sessions ----------------------------------------------------


class FileGroup(msgspec.Struct):
    """One session's files (``format == "session"``), or one file of another format."""

    name: str
    format: str
    files: dict[str, Text]


def group_files(files: Mapping[str, Text], fmt: str = "auto", _cache: _Prepared | None = None) -> list[FileGroup]:
    """Sort a set of files (a folder, a drop) into sessions: each main ``<session>.jsonl`` with
    the sub-agent files of ``<session>/subagents/`` beside it, the sub-agent files one of its tool
    results names (``toolUseResult.agentId``), and the ``agent-*.jsonl`` whose records carry its
    ``sessionId``; each with its ``agent-<id>.meta.json`` (one whose transcript is not given still
joins the session of its ``subagents/`` folder). Sub-agent files with no main file form
    one group per sessionId. A file that is no session transcript (detected; every file when
    ``fmt`` names another format) is a group of its own. Groups come in input order."""
    cache: _Prepared = {} if _cache is None else _cache
    return [FileGroup(name, found, {n: files[n] for n in names}) for name, found, names in _groups(files, fmt, cache)]


class _KeepNothing(dict[str, tuple[list[bytes], _Scan]]):
    """A cache that keeps nothing: each file is read again when its group is."""

    def __setitem__(self, name: str, found: tuple[list[bytes], _Scan]) -> None:
        pass


def group_names(files: Mapping[str, Text], fmt: str = "auto") -> list[tuple[str, str, list[str]]]:
    """:func:`group_files` as ``(name, format, file names)``, each file looked at once and let go:
    for a reader that then reads one group at a time (``files`` may read a file when asked)."""
    return _groups(files, fmt, _KeepNothing())


def _groups(files: Mapping[str, Text], fmt: str, cache: _Prepared) -> list[tuple[str, str, list[str]]]:
    metas = {n for n in files if AGENT_META.match(_basename(n))}
    groups: list[tuple[str, str, list[str]]] = []
    mains: dict[str, list[str]] = {}  # main file path -> its group's files
    agents: list[tuple[str, str | None]] = []  # sub-agent file -> the sessionId its records carry
    by_sid: dict[str, list[str]] = {}
    linked: dict[str, list[str]] = {}  # agent id -> files of the group whose tool results name it
    for name in files:
        if name in metas:
            continue
        content = files[name]
        found = fmt if fmt != "auto" else detect(iter_lines(content))
        if found != "session":
            groups.append((name, found, [name]))
            continue
        _, s = _prepare(name, content, cache)
        del content
        if _agent_id(name) is not None:
            agents.append((name, s.session_id))
            continue
        g = mains[name.replace("\\", "/")] = [name]
        groups.append((name, "session", g))
        if s.session_id:
            by_sid.setdefault(s.session_id, g)
        for agent in s.agent_results:
            linked.setdefault(agent, g)
    orphans: dict[str, list[str]] = {}
    for name, sid in agents:
        agent = _agent_id(name) or ""
        folder = _dirname(name)
        group = None
        if _basename(folder) == "subagents":  # 2.1.x: <project>/<session>/subagents/agent-<id>.jsonl
            group = mains.get(_dirname(folder) + ".jsonl")
        group = group or linked.get(agent) or (by_sid.get(sid) if sid else None)
        if group is None:
            key = sid or name
            group = orphans.get(key)
            if group is None:
                group = orphans[key] = []
                groups.append((name, "session", group))
        group.append(name)
        for meta in metas:
            if _dirname(meta) == folder and _basename(meta) == f"agent-{agent}.meta.json":
                group.append(meta)
    for meta in metas:  # a meta file without its transcript: its session still names the sub-agent
        folder = _dirname(meta)
        group = mains.get(_dirname(folder) + ".jsonl") if _basename(folder) == "subagents" else None
        if group is not None and meta not in group:
            group.append(meta)
    return groups


def meta_errors(files: Mapping[str, Text]) -> list[tuple[str | None, int, str]]:
    """The sub-agent meta files a translation of ``files`` reads (those of a session's agent
    files) that are not the JSON object expected: what ``translate_files`` reports of them."""
    return [(name, 1, BAD_META) for g in group_files(files) if g.format == "session" for name in g.files
            if AGENT_META.match(_basename(name)) and read_meta(g.files[name]) is None]


def translate_files(files: Mapping[str, Text], strategy: str = "lineage", *, trace: bool = False,
                    fmt: str = "auto") -> list[SessionResult]:
    """Translate a set of files (``{relative path or name: content}``), one result per session
    (see :func:`group_files`); a file that is no session transcript gets a result of its own."""
    return list(translate_groups(files, strategy, trace=trace, fmt=fmt))


def translate_groups(files: Mapping[str, Text], strategy: str = "lineage", *, trace: bool = False,
                     fmt: str = "auto", drift: Drift | None = None) -> Iterator[SessionResult]:
    """:func:`translate_files`'s results one group at a time, for a caller that pauses between
    them (the page); each file is split into lines once, for grouping and translating alike.
    ``drift``: one counter for every file (then no result carries a report of its own)."""
    cache: _Prepared = {}
    for g in group_files(files, fmt, cache):
        if g.format == "session":
            by_file = DriftByFile() if drift is None else None
            result = _translate_session(g.files, strategy, trace, cache, by_file if drift is None else drift)
            if by_file is not None:
                result.drift = {f: d.report() for f, d in by_file.by_file.items() if f is not None}
            yield result
            continue
        a = Analyzer(strategy, g.format, trace=trace, file=g.name, drift=True if drift is None else drift)
        a.feed_text(g.files[g.name])
        a.finish()
        yield SessionResult(
            name=g.name, format=g.format, files=[g.name], relays=a.relays, trace=a.trace,
            errors=[(g.name, line, message) for line, message in a.errors], lanes=dict(a.lanes),
            drift={g.name: a.drift.report()} if drift is None and a.drift is not None else {},
        )


# --- the audit: one entry point -----------------------------------------------------------------

INVENTORY_SHARE: Final = 0.1  # of a group's progress: building its inventory


class InputAudit(msgspec.Struct):
    """The audit of one group of an input: every strategy against one inventory of its blocks."""

    name: str | None
    format: str
    files: list[str]
    audits: list[StrategyAudit]  # one per strategy; empty for an SSE stream (nothing to compare)
    errors: Errors  # what the input could not be read as (the same for every strategy)
    relays: dict[str, int] = msgspec.field(default_factory=dict)  # strategy -> relays of its translation
    items: dict[Key, Item] = msgspec.field(default_factory=dict)  # the inventory (the web view's lost blocks)

    @property
    def comparable(self) -> bool:
        """False for an Arbiter SSE stream: it has no duplicates to compare."""
        return self.format != "sse"


def audit_input(source: Text | Iterable[bytes] | Mapping[str, Text], strategies: Iterable[str] | None = None,
                fmt: str = AUTO, *, name: str | None = None, items: bool = True,
                again: Callable[[], Iterable[bytes]] | None = None, keys: bool = True) -> list[InputAudit]:
    """:func:`audit_steps` run to the end (the CLI's way in)."""
    steps = audit_steps(source, strategies, fmt, name=name, items=items, again=again, keys=keys)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: list[InputAudit] = done.value
            return result


def audit_steps(source: Text | Iterable[bytes] | Mapping[str, Text], strategies: Iterable[str] | None = None,
                fmt: str = AUTO, *, name: str | None = None, items: bool = True,
                again: Callable[[], Iterable[bytes]] | None = None,
                keys: bool = True) -> Generator[float, None, list[InputAudit]]:
    """Audit an input exactly as it is translated for display; yields progress in [0, 1] and
    returns one :class:`InputAudit` per group (``results = yield from audit_steps(...)``).

    ``source`` is one text, or its lines (a sequence, or an iterable read once: progress is then
    not known), read as one stream through an ``Analyzer``, as the CLI reads a file and the page a
    paste; or ``{name: content}`` (grouped as :func:`translate_files` groups them: a session's
    files together, any other file on its own). ``name`` names the one text in errors. Without
    ``items`` the inventory is not kept (``InputAudit.items`` is empty): what the CLI needs. ``again``
    (with lines read once): the same lines read again from the first (a file), so that the strategies
    are translated one at a time over the whole input, the same audit in less memory. Without
    ``keys`` (one text), each audit's ``lost_keys`` and ``duplicated_keys`` are left empty: what a
    table, which prints only the first of each, needs."""
    names = list(strategies if strategies is not None else STRATEGIES)
    if not isinstance(source, Mapping):
        lines: Iterable[bytes] = split_lines(source) if isinstance(source, str | bytes) else source
        found, lines = _format_of(lines, fmt)
        result = yield from _audit_stream(name, found, lines, names, 0.0, 1.0, grouped=False, items=items,
                                          again=again, keys=keys)
        yield 1.0
        return [result]
    cache: _Prepared = {}
    groups = group_files(source, fmt, cache)
    sizes = [sum(len(c) for c in g.files.values()) for g in groups]
    total = sum(sizes) or 1
    done = 0
    results: list[InputAudit] = []
    for g, size in zip(groups, sizes, strict=True):
        start, share = done / total, size / total
        if g.format == "session":
            result = yield from _audit_session(g, names, cache, start, share)
        else:
            result = yield from _audit_stream(g.name, g.format, split_lines(g.files[g.name]), names, start, share,
                                              grouped=True, items=items)
        results.append(result)
        done += size
    yield 1.0
    return results


def _format_of(lines: Iterable[bytes], fmt: str) -> tuple[str, Iterable[bytes]]:
    """The input's format (``fmt``, else detected from the first lines) and its lines, all of them:
    lines read once are held only until the format is known."""
    if fmt != AUTO:
        return fmt, lines
    if isinstance(lines, Sequence):
        return detect(lines), lines
    head: list[bytes] = []
    rest: Iterator[bytes] = iter(lines)
    sniffer = Sniffer()
    found = None
    for line in rest:
        head.append(line)
        found = sniffer.feed(line)
        if found is not None:
            break
    return found or "stream-json", itertools.chain(head, rest)


def _audit_stream(name: str | None, fmt: str, lines: Iterable[bytes], names: list[str], start: float, share: float,
                  *, grouped: bool, items: bool = True, again: Callable[[], Iterable[bytes]] | None = None,
                  keys: bool = True) -> Generator[float, None, InputAudit]:
    """One stream: each line to the inventory, then to each strategy's translator; all of them in
    one pass, or (``again``: the lines read again from the first) one a pass, the inventory along
    the first. Relays and inventory carry no file name (a stream is one file), so
    user text matches."""
    files = [name] if name is not None and grouped else []
    total = sum(map(len, lines)) if isinstance(lines, Sequence) else 0
    if fmt == "sse":  # translated once all the same: its relays count in the seq space shown
        a = Analyzer("lineage", fmt, keep=False)
        count = 0
        for line in lines:
            count += len(a.feed_line(line))
        count += len(a.finish())
        return InputAudit(name, fmt, files, [], [(name, line, message) for line, message in a.errors],
                          dict.fromkeys(names, count))
    inv = Inventory(keep=items)
    audit = Audit(names)
    drift = Drift()  # counted once, as the first pass decodes each line
    # A file read again is read once per strategy, the inventory built along the first pass: a
    # translator holds its bounded windows (~15 MB at 400 MB), so one a pass holds least, at a read
    # and decode of every line a pass. (Two in a pass, even with the index strategy, whose windows
    # are a third of the others', peaked at 63-67 MB at 406 MB against 58-60.)
    passes = [[k] for k in range(len(names))] if again is not None and names else [list(range(len(names)))]
    shown = names.index("lineage") if "lineage" in names else 0  # the translation whose errors are said
    progress = _Progress(start, share, total * (len(names) + 1))  # a line's work: the inventory's and each translator's
    errors: Errors = []
    read = 0
    for group in passes:
        # a later pass reads the lines the first read, however the file has grown since
        source = lines if group is passes[0] or again is None else itertools.islice(again(), read)
        strategies = {k: names[k] for k in group}
        ran = yield from _audit_pass(audit, strategies, fmt, source, progress, inv if group is passes[0] else None,
                                     drift.decode if group is passes[0] else decode_line, shown)
        read = read or ran.lines
        if ran.errors is not None:
            errors = [(name, line, message) for line, message in ran.errors]
    audits = audit.finish(keys=keys)
    _with_drift(audits, drift)
    return InputAudit(name, fmt, files, audits, errors, {a.strategy: a.relays for a in audits}, inv.items)


class _Progress(msgspec.Struct):
    """Where a stream's audit is: ``done`` of ``work`` (bytes times the passes over them: the
    inventory's and each translator's), as a share of the whole input's progress from ``start``."""

    start: float
    share: float
    work: int  # 0: not known (lines read once)
    done: int = 0

    def add(self, work: int) -> float | None:
        self.done += work
        return self.start + self.share * self.done / self.work if self.work else None


class _Pass(msgspec.Struct):
    lines: int  # lines read
    errors: list[tuple[int, str]] | None  # the lines the translation shown could not read, if it ran


def _audit_pass(audit: Audit, strategies: dict[int, str], fmt: str, lines: Iterable[bytes], progress: _Progress,
                inv: Inventory | None, decode: Callable[[bytes, int], Frame],
                shown: int) -> Generator[float, None, _Pass]:
    """One pass over a stream's lines: each to the inventory (the first pass), then to the translator
    of each of ``strategies`` (numbered as ``audit``'s), which are ended and let go at the end (with
    their windows: a pass holds only its own); the errors of strategy ``shown``, if it ran."""
    analyzers = {k: Analyzer(strategy, fmt, keep=False) for k, strategy in strategies.items()}
    # Each line decoded once a pass, its frame fed to each of the pass's translators (they only
    # read it): the ids the translators remember are then one string each, not one per strategy.
    feeds = [(k, a.translator.feed) for k, a in analyzers.items() if isinstance(a.translator, Translator)]
    share_of_line = len(feeds) + (inv is not None)
    budget = number = 0
    for number, line in enumerate(lines, 1):
        if inv is not None:
            inv.add_line(number, line)
            audit.take(inv)
        frame = decode(line, number)
        for k, feed in feeds:
            relays = feed(frame)
            if relays:
                audit.feed(k, relays)
        budget += len(line) * share_of_line
        if budget >= SLICE_BYTES:  # a slice of work as long as one translator's over SLICE_BYTES
            at, budget = progress.add(budget), 0
            if at is not None:
                yield at
    for k, a in analyzers.items():
        audit.feed(k, a.finish())
    if inv is not None:
        inv.finish()
        audit.take(inv)
    errors = None
    for k, a in analyzers.items():
        audit.end(k, a.lanes)
        if k == shown:
            errors = a.errors
    return _Pass(number, errors)


def _with_drift(audits: list[StrategyAudit], d: Drift) -> None:
    """Each audit carries the input's drift report (the same for every strategy): its counts."""
    report = d.report()
    counts = {"records": report.records, "types": report.types, "fields": report.fields, "version": report.version}
    for a in audits:
        a.drift = counts


def _audit_session(g: FileGroup, names: list[str], cache: _Prepared, start: float,
                   share: float) -> Generator[float, None, InputAudit]:
    """One session's files: one inventory of every file's blocks (user text told apart by file
    and line), each strategy through :func:`translate_session`."""
    items: dict[Key, Item] = {}
    audit = Audit(names)
    for file, content in g.files.items():
        if AGENT_META.match(_basename(file)):
            continue
        inv = Inventory(file)
        for number, line in enumerate(cache[file][0] if file in cache else split_lines(content), 1):
            inv.add_line(number, line)
        for key, item in inv.finish().items():
            items.setdefault(key, item)
        audit.take(inv)
    yield start + share * INVENTORY_SHARE
    errors: Errors = []
    counts: dict[str, int] = {}
    lanes: list[Mapping[str, Lane]] = []
    drift = Drift()  # counted once, as the first strategy's translator decodes the files
    for k, strategy in enumerate(names):
        result = _translate_session(g.files, strategy, False, cache, drift if k == 0 else None)
        audit.feed(k, result.relays)
        lanes.append(result.lanes)
        counts[strategy] = len(result.relays)
        if k == 0 or strategy == "lineage":
            errors = result.errors
        yield start + share * (INVENTORY_SHARE + (1 - INVENTORY_SHARE) * (k + 1) / len(names))
    audits = audit.finish(lanes)
    _with_drift(audits, drift)
    return InputAudit(g.name, "session", list(g.files), audits, errors, counts, items)


def merge_audits(groups: list[InputAudit]) -> list[StrategyAudit]:
    """One audit per strategy for a whole input shown as one list: counts summed over its groups,
    the first lost / duplicated block that of the first group that has one (duplicate seqs in the
    one seq space the groups' relays share, in group order). A single group is returned as is."""
    comparable = [g for g in groups if g.comparable]
    if len(groups) == 1:
        return list(comparable[0].audits) if comparable else []
    if not comparable:
        return []
    out: list[StrategyAudit] = []
    for i, first in enumerate(comparable[0].audits):
        strategy = first.strategy
        merged = StrategyAudit(strategy, 0, 0, 0, 0, 0, 0, 0)
        offset = 0
        for g in groups:
            if g.comparable:
                a = g.audits[i]
                merged.relays += a.relays
                merged.blocks += a.blocks
                merged.emitted += a.emitted
                merged.lost += a.lost
                merged.duplicated += a.duplicated
                merged.retracted += a.retracted
                merged.extra_emissions += a.extra_emissions
                merged.unmatched += a.unmatched
                merged.lost_keys += a.lost_keys
                merged.duplicated_keys += a.duplicated_keys
                if merged.first_lost is None and a.first_lost is not None:
                    merged.first_lost = a.first_lost
                if merged.first_duplicated is None and a.first_duplicated is not None:
                    dup = dict(a.first_duplicated)
                    dup["seqs"] = [q + offset for q in dup.get("seqs", [])]
                    merged.first_duplicated = dup
            offset += g.relays.get(strategy, 0)
        out.append(merged)
    return out


def audit_lines(lines: Sequence[str | bytes], strategies: Iterable[str] | None = None,
                fmt: str = AUTO) -> list[StrategyAudit]:
    """The audits of one stream's lines (:func:`audit_input` of one text, its only group)."""
    return audit_input([line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass") for line in lines],
                       strategies, fmt)[0].audits


# --- for files read as they grow (live.LiveFiles) ----------------------------------------------


def agent_file_id(name: str) -> str | None:
    """``<id>`` of a sub-agent file ``agent-<id>.jsonl``, else None."""
    return _agent_id(name)


def meta_file_id(name: str) -> str | None:
    """``<id>`` of a sub-agent meta file ``agent-<id>.meta.json``, else None."""
    m = AGENT_META.match(_basename(name))
    return m.group(1) if m else None


def read_meta(content: Text) -> tuple[str | None, str | None, str | None, int | None] | None:
    """A meta file's (toolUseId, agentType, description, spawnDepth); None if it is not the
    JSON object expected (yet: it may be half written)."""
    meta = decode_or(_meta, content, None)
    if meta is None:
        return None
    return meta.toolUseId, meta.agentType, meta.description, meta.spawnDepth


def file_head(lines: list[bytes]) -> tuple[str | None, str | None]:
    """The ``sessionId`` and the first user prompt found in these lines of a file."""
    s = _scan_file(lines)
    return s.session_id, s.first_prompt


def result_links(line: bytes) -> dict[str, str]:
    """``{agentId: spawn id}`` that one record's spawn results name (``toolUseResult``)."""
    return _scan_file([line]).agent_results
