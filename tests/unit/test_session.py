"""On-disk session transcripts: every real session file, alone and with its sub-agent
files: the captures in tests/fixtures/real/session-jsonl/ always, the whole shared corpus when it
is beside the checkout.

The expectations (which blocks exist, which lane each record belongs to, per-lane token totals)
are computed here from the raw JSON with the standard library, sharing no code with the
translator. A sub-agent file's expected lane is the tool_use id that the parent's
``toolUseResult.agentId`` names; an inline (1.0.x) sidechain's is the Task whose result text is
the sidechain's last text, evidence the translator does not use (it links by the prompt).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import msgspec
import pytest
from _corpus import (
    FIXTURE_SESSIONS,
    HAVE_SHARED,
    NO_SHARED,
    ROOT,
    SESSION_FILES,
    SHARED_SESSIONS,
    session_rel,
    sweep,
)

from relayscope import relay as R
from relayscope.analysis import Analyzer, make_translator
from relayscope.audit import inventory
from relayscope.formats import detect
from relayscope.formats.session import SessionTranslator
from relayscope.multifile import (
    audit_input,
    audit_lines,
    group_files,
    merge_audits,
    translate_files,
    translate_session,
)

SESSIONS = FIXTURE_SESSIONS  # the captures the tests below name are carried in the repository
FILES = SESSION_FILES
CONTENT = (R.TextDelta, R.ThinkingDelta, R.ToolUse, R.ToolResult, R.UserMessage, R.Usage, R.Passthrough,
           R.System, R.ContentBlock)
KNOWN = {"user", "assistant", "system"}


def rel(path: Path) -> str:
    return session_rel(path)


def records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    out = []
    for number, raw in enumerate(path.read_bytes().split(b"\n"), 1):
        if raw.strip():
            out.append((number, json.loads(raw)))
    return out


def is_agent_file(path: Path) -> bool:
    return path.name.startswith("agent-") and path.suffix == ".jsonl"


def sessions() -> list[list[Path]]:
    """The corpus's sessions from the folder layout alone: a main file with the
    ``<session>/subagents/agent-*.jsonl`` beside it; a sub-agent file without one stands alone."""
    groups = []
    claimed: set[Path] = set()
    for path in FILES:
        if is_agent_file(path):
            continue
        group = [path, *sorted((path.parent / path.stem / "subagents").glob("agent-*.jsonl"))]
        claimed.update(group)
        groups.append(group)
    groups += [[p] for p in FILES if p not in claimed]
    return groups


SESSION_GROUPS = sessions()


def group_id(group: list[Path]) -> str:
    return rel(group[0])[-60:] + (f" +{len(group) - 1}" if len(group) > 1 else "")


def translate(group: list[Path], strategy: str = "lineage", trace: bool = False) -> Any:
    return translate_session({rel(p): p.read_bytes() for p in group}, strategy, trace=trace)


# --- expectations from the raw JSON ---------------------------------------------------------


def result_text(tur: Any) -> str | None:
    if isinstance(tur, dict) and isinstance(tur.get("content"), list):
        return "\n".join(b.get("text", "") for b in tur["content"] if isinstance(b, dict))
    return None


def expected_lanes(group: list[Path]) -> dict[tuple[str, int], str | None]:
    """(file, line) -> the lane of every record; None where the file holds no evidence."""
    agent_spawn: dict[str, str] = {}
    result_of: dict[str, str] = {}  # Task result text -> tool_use id
    spawns: list[str] = []
    for path in group:
        for _, obj in records(path):
            content = (obj.get("message") or {}).get("content")
            for b in content if isinstance(content, list) else []:
                if b.get("type") == "tool_result":
                    tur = obj.get("toolUseResult")
                    if isinstance(tur, dict) and isinstance(tur.get("agentId"), str):
                        agent_spawn[tur["agentId"]] = b["tool_use_id"]
                    text = result_text(tur)
                    if text:
                        result_of[text] = b["tool_use_id"]
                if b.get("type") == "tool_use" and b.get("name") in ("Task", "Agent"):
                    spawns.append(b["id"])
    lanes: dict[tuple[str, int], str | None] = {}
    for path in group:
        name = rel(path)
        recs = records(path)
        if is_agent_file(path):
            agent = path.name[len("agent-"):-len(".jsonl")]
            for number, _ in recs:
                lanes[(name, number)] = agent_spawn.get(agent, f"agent-{agent}")
            continue
        by_uuid = {obj["uuid"]: obj for _, obj in recs if obj.get("uuid")}
        chains: dict[str, list[dict[str, Any]]] = defaultdict(list)  # sidechain root uuid -> records

        def root_of(obj: dict[str, Any], by_uuid: dict[str, Any] = by_uuid) -> str | None:
            while obj.get("parentUuid"):
                if obj["parentUuid"] not in by_uuid:
                    return None
                obj = by_uuid[obj["parentUuid"]]
            return obj.get("uuid")

        for _, obj in recs:
            if obj.get("isSidechain"):
                chains[root_of(obj) or "?"].append(obj)
        lane_of_root: dict[str, str | None] = {}
        for root, chain in chains.items():
            texts = [b["text"] for o in chain if o.get("type") == "assistant"
                     for b in (o["message"].get("content") or []) if b.get("type") == "text"]
            lane_of_root[root] = result_of.get(texts[-1]) if texts and root != "?" else None
            if lane_of_root[root] is None and len(spawns) == 1:
                lane_of_root[root] = spawns[0]  # one Task in the file, its result not in it
        for number, obj in recs:
            agent = obj.get("agentId")
            if not obj.get("isSidechain"):
                lanes[(name, number)] = "main"
            elif agent:  # a sub-agent file not named agent-<id>.jsonl
                lanes[(name, number)] = agent_spawn.get(agent, f"agent-{agent}")
            else:
                lanes[(name, number)] = lane_of_root[root_of(obj) or "?"]
    return lanes


def expected_usage(group: list[Path]) -> tuple[dict[str, Counter[str]], set[str]]:
    """Per-lane token totals: the last row of each message.id, in file order."""
    lanes = expected_lanes(group)
    last: dict[str, tuple[str | None, dict[str, int]]] = {}
    for path in group:
        for number, obj in records(path):
            message = obj.get("message")
            if obj.get("type") == "assistant" and isinstance(message, dict) and message.get("id") \
                    and isinstance(message.get("usage"), dict):
                last[message["id"]] = (lanes[(rel(path), number)], message["usage"])
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for lane, usage in last.values():
        assert lane is not None
        for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            totals[lane][k] += usage.get(k) or 0
    return totals, set(last)


def expected_blocks(group: list[Path]) -> dict[str, Counter[Any]]:
    """Every content block once: tool ids, result ids, (message id, text) of text and
    thinking blocks (a message repeated over rows is one), user text per (file, line)."""
    tools: set[str] = set()
    results: set[str] = set()
    texts: set[tuple[str, str]] = set()
    thinking: set[tuple[str, str]] = set()
    user: Counter[tuple[str, int]] = Counter()
    for path in group:
        for number, obj in records(path):
            message = obj.get("message") if isinstance(obj.get("message"), dict) else {}
            content = message.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            for b in content if isinstance(content, list) else []:
                kind = b.get("type")
                if obj.get("type") == "assistant":
                    if kind == "tool_use":
                        tools.add(b["id"])
                    elif kind == "text":
                        texts.add((message["id"], b["text"]))
                    elif kind == "thinking":
                        thinking.add((message["id"], b.get("thinking") or ""))
                elif obj.get("type") == "user":
                    if kind == "tool_result":
                        results.add(b["tool_use_id"])
                    else:
                        user[(rel(path), number)] += 1
    return {"tools": Counter(tools), "results": Counter(results), "texts": Counter(texts),
            "thinking": Counter(thinking), "user": user}


def emitted_blocks(relays: list[R.Relay]) -> dict[str, Counter[Any]]:
    return {
        "tools": Counter(r.id for r in relays if isinstance(r, R.ToolUse)),
        "results": Counter(r.tool_use_id for r in relays if isinstance(r, R.ToolResult)),
        "texts": Counter((r.message_id, r.text) for r in relays if isinstance(r, R.TextDelta) and not r.partial),
        "thinking": Counter((r.message_id, r.text) for r in relays
                            if isinstance(r, R.ThinkingDelta) and not r.partial),
        "user": Counter((r.file, r.line) for r in relays if isinstance(r, R.UserMessage)),
    }


# --- the corpus is there and is what we think ----------------------------------------------------


def test_the_fixture_sessions_are_there() -> None:
    mine = [p for p in FILES if p.is_relative_to(FIXTURE_SESSIONS)]
    assert len(mine) >= 15
    families = [g for g in SESSION_GROUPS if len(g) > 1 and g[0].is_relative_to(FIXTURE_SESSIONS)]
    assert len(families) >= 2  # main files with sub-agent files, in the corpus's folder layout
    inline = [p for p in mine if not is_agent_file(p) and any(o.get("isSidechain") for _, o in records(p))]
    assert len(inline) >= 3  # 1.0.x inline sidechains


def test_the_shared_session_corpus_is_there() -> None:
    if not HAVE_SHARED:
        pytest.skip(NO_SHARED)
    assert len(list(SHARED_SESSIONS.rglob("*.jsonl"))) >= 20


@pytest.mark.parametrize("path", sweep(FILES, rel))
def test_detection_picks_session(path: Path) -> None:
    lines = path.read_bytes().split(b"\n")
    assert detect(lines[:8]) == "session"
    a = Analyzer()
    a.feed_text(path.read_bytes())
    a.finish()
    assert a.format == "session" and isinstance(a.translator, SessionTranslator)


# --- every block once, in its lane, with its tokens ----------------------------------------------


@pytest.mark.parametrize("group", sweep(SESSION_GROUPS, group_id))
def test_lineage_emits_every_block_exactly_once(group: list[Path]) -> None:
    result = translate(group)
    assert result.errors == []
    assert emitted_blocks(result.relays) == expected_blocks(group)
    assert [r.seq for r in result.relays] == list(range(len(result.relays)))


@pytest.mark.parametrize("group", sweep(SESSION_GROUPS, group_id))
def test_audit_inventory_agrees_lineage_loses_and_repeats_nothing(group: list[Path]) -> None:
    files = {rel(p): p.read_bytes() for p in group}
    audits = {a.strategy: a for a in merge_audits(audit_input(files))}
    lineage = audits["lineage"]
    assert lineage.blocks == sum(sum(c.values()) for c in expected_blocks(group).values())
    assert (lineage.lost, lineage.duplicated, lineage.unmatched) == (0, 0, 0)
    assert lineage.emitted == lineage.blocks > 0


@pytest.mark.parametrize("group", sweep(SESSION_GROUPS, group_id))
def test_every_record_lands_in_the_lane_of_its_spawning_call(group: list[Path]) -> None:
    result = translate(group)
    lanes = expected_lanes(group)
    checked = 0
    for r in result.relays:
        if isinstance(r, CONTENT) and not (isinstance(r, R.Usage)):
            want = lanes[(r.file, r.line)]
            if want is not None:
                assert r.lane == want, (r.file, r.line, type(r).__name__)
                checked += 1
    assert checked > 0
    for path in group[1:]:  # each sub-agent file: its relays in one lane, named by a real call
        mine = {r.lane for r in result.relays if r.file == rel(path) and isinstance(r, CONTENT)}
        assert mine == {result.file_lanes[rel(path)]}
        assert next(iter(mine)).startswith("toolu_")


def spawned_by(group: list[Path]) -> dict[str, str]:
    """agent file name -> the Agent/Task call that spawned it, read off the raw JSON: the meta
    file's ``toolUseId`` when it names one, else the call whose ``toolUseResult.agentId`` is the
    file's agent id."""
    by_agent: dict[str, str] = {}
    for path in group:
        for _, obj in records(path):
            tur = obj.get("toolUseResult")
            content = (obj.get("message") or {}).get("content")
            for b in content if isinstance(content, list) else []:
                if b.get("type") == "tool_result" and isinstance(tur, dict) and isinstance(tur.get("agentId"), str):
                    by_agent[tur["agentId"]] = b["tool_use_id"]
    pairs = {}
    for path in group[1:]:
        meta = path.with_name(path.stem + ".meta.json")
        named = json.loads(meta.read_text()).get("toolUseId") if meta.is_file() else None
        agent = path.stem[len("agent-"):]
        if isinstance(named, str) or agent in by_agent:
            pairs[path.name] = named if isinstance(named, str) else by_agent[agent]
    return pairs


def test_subagent_files_link_to_the_call_the_agent_id_names() -> None:
    checked = 0
    for group in SESSION_GROUPS:
        pairs = spawned_by(group)
        if not pairs:
            continue
        result = translate(group)
        for path in group[1:]:
            if path.name not in pairs:
                continue
            assert result.file_lanes[rel(path)] == pairs[path.name], path
            start = next(r for r in result.relays if isinstance(r, R.LaneStart) and r.lane == pairs[path.name])
            assert (start.parent_lane, start.depth) == ("main", 1)
            end = [r for r in result.relays if isinstance(r, R.LaneEnd) and r.lane == start.lane]
            assert [e.agent_id for e in end] == [path.stem[len("agent-"):]]
            assert "toolUseResult.agentId" in result.file_links[rel(path)] or "meta.json" in result.file_links[rel(path)]
            checked += 1
    # the carried fixtures alone hold three sub-agent files linked this way
    assert checked >= 3


def test_inline_sidechains_link_to_their_task_by_prompt_not_timing() -> None:
    path = SESSIONS / "d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project" \
        / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    result = translate([path])
    by_line = defaultdict(set)
    for r in result.relays:
        if isinstance(r, CONTENT):
            by_line[r.line].add(r.lane)
    # two Task calls in one message; the first failed validation and spawned nothing
    assert by_line[16] == by_line[22] == {"toolu_014YF9TXhDRR7BnpasNJ7gjC"}
    assert by_line[26] == by_line[40] == {"toolu_01LKfUwrsnof18CpWZQcJH44"}
    assert "toolu_018t5jce2ZNoGr2ADsHGQife" not in {r.lane for r in result.relays}
    # timestamps play no part: give every record the same one and nothing changes
    objs = [json.loads(line) for line in path.read_bytes().splitlines()]
    same = b"\n".join(json.dumps({**o, "timestamp": "2025-01-01T00:00:00Z"}).encode() for o in objs)
    again = translate_session({rel(path): same})
    assert [(r.lane, r.line) for r in again.relays] == [(r.lane, r.line) for r in result.relays]


@pytest.mark.parametrize("group", sweep(SESSION_GROUPS, group_id))
def test_per_lane_token_totals_are_the_last_row_of_each_message(group: list[Path]) -> None:
    result = translate(group)
    want, messages = expected_usage(group)
    got: dict[str, Counter[str]] = defaultdict(Counter)
    for r in result.relays:
        if isinstance(r, R.Usage):
            got[r.lane] += Counter(input_tokens=r.input_tokens, output_tokens=r.output_tokens,
                                   cache_read_input_tokens=r.cache_read_input_tokens,
                                   cache_creation_input_tokens=r.cache_creation_input_tokens)
    # Counter addition drops zeros; compare without them
    assert {k: +v for k, v in got.items()} == {k: +v for k, v in want.items()}
    usage_ids = Counter(r.message_id for r in result.relays if isinstance(r, R.Usage))
    assert set(usage_ids) == messages and set(usage_ids.values()) <= {1}


def test_usage_relays_name_the_file_of_their_row() -> None:
    group = next(g for g in SESSION_GROUPS if len(g) == 3)
    result = translate(group)
    rows = {(rel(p), n) for p in group for n, o in records(p) if o.get("type") == "assistant"}
    for r in result.relays:
        if isinstance(r, R.Usage):
            assert (r.file, r.line) in rows


# --- records the translator does not know, order, streaming ------------------------------------


@pytest.mark.parametrize("group", sweep(SESSION_GROUPS, group_id))
def test_unknown_record_types_pass_through_without_errors(group: list[Path]) -> None:
    result = translate(group)
    assert result.errors == [] and not any(isinstance(r, R.Error) for r in result.relays)
    unknown = Counter((rel(p), n) for p in group for n, o in records(p) if o.get("type") not in KNOWN)
    passed = Counter((r.file, r.line) for r in result.relays if isinstance(r, R.Passthrough))
    assert passed == unknown


def test_a_record_type_not_invented_yet_passes_through_in_its_lane() -> None:
    path = SESSIONS / "slopus__happy-cli/src/claude/utils/__fixtures__/task_non_sdk.jsonl"
    lines = path.read_bytes().splitlines()
    parent = json.loads(lines[5])["uuid"]  # a sidechain record
    novel = json.dumps({"type": "x-future-record", "uuid": "novel-1", "parentUuid": parent,
                        "isSidechain": True, "payload": {"a": [1, 2]}}).encode()
    before = translate_session({"f.jsonl": b"\n".join(lines)}).relays
    after = translate_session({"f.jsonl": b"\n".join([*lines[:6], novel, *lines[6:]])}).relays
    (new,) = [r for r in after if isinstance(r, R.Passthrough)]
    assert (new.event_type, new.lane, new.line) == ("x-future-record", "toolu_01EmKA8FJ7B2Ah9seGxK1Wct", 7)
    assert json.loads(bytes(new.data))["payload"] == {"a": [1, 2]}
    assert [type(r) for r in after if r is not new] == [type(r) for r in before]


def test_a_parent_written_after_its_child_is_emitted_first() -> None:
    path = SESSIONS / "handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees" \
        / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    objs = [o for _, o in records(path)]
    assert objs[144]["parentUuid"] == objs[145]["uuid"]  # line 145's parent is line 146
    seqs = {r.line: r.seq for r in reversed(translate([path]).relays) if r.file == rel(path)}
    assert seqs[146] < seqs[145]


@pytest.mark.parametrize("path", sweep(FILES, rel))
def test_parents_come_first_even_when_the_file_swaps_them(path: Path) -> None:
    lines = path.read_bytes().splitlines()
    objs = [json.loads(line) if line.strip() else {} for line in lines]
    pairs = [i for i in range(len(objs) - 1)
             if objs[i].get("uuid") and objs[i + 1].get("parentUuid") == objs[i]["uuid"]]
    if not pairs:
        pytest.skip("no parent-child pair on adjacent lines")
    i = pairs[len(pairs) // 2]
    swapped = [*lines[:i], lines[i + 1], lines[i], *lines[i + 2:]]
    a = translate_session({"f": b"\n".join(lines)}).relays
    b = translate_session({"f": b"\n".join(swapped)}).relays
    renumber = {i + 1: i + 2, i + 2: i + 1}
    assert [(type(r), r.lane, renumber.get(r.line, r.line)) for r in b] == [(type(r), r.lane, r.line) for r in a]
    # and streamed line by line (the bounded look-ahead) the same
    t = make_translator("session")
    streamed = [r for line in swapped for r in t.feed_line(line)] + t.finish()
    assert [(type(x), x.lane, x.line) for x in streamed] == [(type(x), x.lane, x.line) for x in b]


def plain(relays: list[R.Relay]) -> list[dict[str, Any]]:
    out = []
    for r in relays:
        d = msgspec.json.decode(msgspec.json.encode(r))
        d.pop("file", None)
        out.append(d)
    return out


@pytest.mark.parametrize("path", sweep(FILES, rel))
def test_streaming_in_random_chunks_equals_the_whole_file(path: Path) -> None:
    data = path.read_bytes()
    whole = translate_session({rel(path): data}).relays
    rng = random.Random(path.name)
    a = Analyzer("lineage")
    at = 0
    while at < len(data):
        step = rng.randint(1, 4096)
        a.feed_text(data[at:at + step])
        at += step
    a.finish()
    assert plain(a.relays) == plain(whole)


# --- several files: grouping, nesting, meta files, compaction ---------------------------------


def test_grouping_a_folder_finds_each_main_file_and_its_subagents() -> None:
    files = {rel(p): p.read_bytes() for p in FILES}
    groups = group_files(files)
    assert all(g.format == "session" for g in groups)
    got = sorted(sorted(g.files) for g in groups)
    want = sorted(sorted(rel(p) for p in g) for g in SESSION_GROUPS)
    assert got == want


def _rec(kind: str, uuid: str, parent: str | None, content: Any, side: bool = False, **extra: Any) -> bytes:
    obj = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s1", "isSidechain": side,
           "message": {"role": kind, "content": content}, **extra}
    return json.dumps(obj).encode()


def _assistant(uuid: str, parent: str | None, mid: str, block: dict[str, Any], side: bool = False,
               out_tokens: int = 1, **extra: Any) -> bytes:
    rec = json.loads(_rec("assistant", uuid, parent, [block], side, **extra))
    rec["message"].update(id=mid, usage={"input_tokens": 10, "output_tokens": out_tokens})
    return json.dumps(rec).encode()


def _task(tool_id: str, prompt: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Agent",
            "input": {"description": f"d-{tool_id}", "prompt": prompt, "subagent_type": "Explore"}}


def _result(uuid: str, parent: str, tool_id: str, agent: str | None, side: bool = False, **extra: Any) -> bytes:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": [{"type": "text", "text": "done"}]}
    rec = json.loads(_rec("user", uuid, parent, [block], side, **extra))
    if agent is not None:
        rec["toolUseResult"] = {"status": "completed", "agentId": agent, "totalTokens": 5}
    return json.dumps(rec).encode()


def nested_session(meta_only: bool, same_prompt: bool = False) -> dict[str, bytes]:
    """A main file spawning a1, which spawns a2 (an edge no real capture has: depth 2). Unless
    ``same_prompt``, the sub-agents' first prompts differ from the calls' (only the agentId or
    the meta file can link them)."""
    echo = "" if same_prompt else " (reworded)"
    main = b"\n".join([
        _rec("user", "m1", None, "go"),
        _assistant("m2", "m1", "msg_m", _task("toolu_T1", "p1")),
        _result("m3", "m2", "toolu_T1", None if meta_only else "a1"),
        _assistant("m4", "m3", "msg_m2", {"type": "text", "text": "all done"}),
    ])
    a1 = b"\n".join([
        _rec("user", "x1", None, "p1" + echo, side=True, agentId="a1"),
        _assistant("x2", "x1", "msg_x", _task("toolu_T2", "p2"), side=True, agentId="a1"),
        _result("x3", "x2", "toolu_T2", None if meta_only else "a2", side=True, agentId="a1"),
        _assistant("x4", "x3", "msg_x2", {"type": "text", "text": "a1 done"}, side=True, agentId="a1"),
    ])
    a2 = b"\n".join([
        _rec("user", "y1", None, "p2" + echo, side=True, agentId="a2"),
        _assistant("y2", "y1", "msg_y", {"type": "text", "text": "deep"}, side=True, agentId="a2", out_tokens=7),
    ])
    files = {"s1.jsonl": main, "s1/subagents/agent-a1.jsonl": a1, "s1/subagents/agent-a2.jsonl": a2}
    if meta_only:
        files["s1/subagents/agent-a1.meta.json"] = json.dumps(
            {"agentType": "Explore", "description": "from meta", "toolUseId": "toolu_T1"}).encode()
        files["s1/subagents/agent-a2.meta.json"] = json.dumps(
            {"agentType": "Plan", "toolUseId": "toolu_T2", "spawnDepth": 2}).encode()
    return files


@pytest.mark.parametrize(("meta_only", "same_prompt", "how"), [
    (False, False, "toolUseResult.agentId"), (True, False, "meta.json"), (True, True, "meta.json"),
], ids=["agentId", "meta.json", "meta.json+prompt"])
def test_nested_subagents_keep_their_depth_and_come_right_after_their_spawn(
        meta_only: bool, same_prompt: bool, how: str) -> None:
    files = nested_session(meta_only, same_prompt)
    (result,) = translate_files(dict(reversed(list(files.items()))))  # order of the drop does not matter
    assert all(how in evidence for evidence in result.file_links.values())
    starts = {r.lane: r for r in result.relays if isinstance(r, R.LaneStart)}
    assert (starts["toolu_T1"].parent_lane, starts["toolu_T1"].depth) == ("main", 1)
    assert (starts["toolu_T2"].parent_lane, starts["toolu_T2"].depth) == ("toolu_T1", 2)
    if meta_only:
        assert starts["toolu_T2"].agent_type == "Plan"  # the meta file's agentType, over the input's
    text = [(r.lane, r.text) for r in result.relays if isinstance(r, R.TextDelta)]
    assert text == [("toolu_T2", "deep"), ("toolu_T1", "a1 done"), ("main", "all done")]
    order = [(r.file, r.line, type(r).__name__) for r in result.relays if isinstance(r, R.ToolUse | R.TextDelta)]
    assert order == [("s1.jsonl", 2, "ToolUse"), ("s1/subagents/agent-a1.jsonl", 2, "ToolUse"),
                     ("s1/subagents/agent-a2.jsonl", 2, "TextDelta"),
                     ("s1/subagents/agent-a1.jsonl", 4, "TextDelta"), ("s1.jsonl", 4, "TextDelta")]
    usage = {r.lane: r.output_tokens for r in result.relays if isinstance(r, R.Usage)}
    assert set(usage) == {"main", "toolu_T1", "toolu_T2"}
    assert usage["toolu_T2"] == 7
    assert result.files == ["s1.jsonl", "s1/subagents/agent-a1.jsonl", "s1/subagents/agent-a2.jsonl"]


@pytest.mark.parametrize(("agent", "label"), [("acompact-9f", "compaction"),
                                               ("aprompt_suggestion-4e2", "prompt suggestion")])
def test_a_sidechain_the_cli_runs_itself_gets_a_lane_of_its_own_labelled_as_such(agent: str, label: str) -> None:
    files = nested_session(False)
    files[f"s1/subagents/agent-{agent}.jsonl"] = b"\n".join([
        _rec("user", "c1", None, "summarise the conversation", side=True, agentId=agent),
        _assistant("c2", "c1", "msg_c", {"type": "text", "text": "summary"}, side=True, agentId=agent),
    ])
    (result,) = translate_files(files)
    start = next(r for r in result.relays if isinstance(r, R.LaneStart) and r.lane == f"agent-{agent}")
    assert start.label == label and start.parent_lane == "main"
    assert {r.lane for r in result.relays if r.file.endswith(f"{agent}.jsonl")} == {f"agent-{agent}"}
    assert result.relays[-1].file.endswith(f"{agent}.jsonl")  # after the main file: no call spawned it


def test_a_lone_subagent_file_gets_an_unlinked_lane() -> None:
    path = SESSIONS / "oneryalcin__fasthooks/specs/data/sample_agent_sidechain.jsonl"
    result = translate([path])
    lanes = {r.lane for r in result.relays if isinstance(r, R.TextDelta | R.UserMessage)}
    assert lanes == {"agent-af1ff21"}
    start = next(r for r in result.relays if isinstance(r, R.LaneStart) and r.lane == "agent-af1ff21")
    assert "no spawning call" in (start.label or "")


# --- audit and the command line ---------------------------------------------------------------


def test_audit_counts_a_message_repeated_over_rows_as_one_block() -> None:
    path = SESSIONS / "slopus__happy-cli/src/claude/utils/__fixtures__/duplicate-assistant-response.jsonl"
    lines = path.read_bytes().splitlines()
    items = inventory(lines)
    assert sum(1 for k in items if k[0] == "block" and k[3] == "lol") == 1
    audits = {a.strategy: a for a in audit_lines(lines, fmt="session")}
    assert audits["none"].duplicated == 1  # the repeated row, emitted twice without de-dup
    assert (audits["lineage"].lost, audits["lineage"].duplicated) == (0, 0)


ENV = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
WORKTREES = SESSIONS / "handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees"
SESSION_ID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "relayscope", *args], capture_output=True, env=ENV,
                          timeout=120, check=False)


@pytest.mark.parametrize("target", [WORKTREES, WORKTREES / SESSION_ID], ids=["project", "session folder"])
def test_cli_translates_a_directory_linking_subagent_files(target: Path) -> None:
    p = run("translate", str(target))
    assert p.returncode == 0, p.stderr
    relays = [json.loads(line) for line in p.stdout.splitlines()]
    lanes = {(Path(r["file"]).name, r["lane"]) for r in relays if r["type"] == "text_delta"}
    assert ("agent-a4ca7529859c158c2.jsonl", "toolu_01GmrK6tgdD9D5xD6W5X9UUy") in lanes
    assert ("agent-a36efb2a1231c41e2.jsonl", "toolu_017y4gSjMWeQ3L2DAKiygU2y") in lanes
    assert (f"{SESSION_ID}.jsonl", "main") in lanes
    assert [r["seq"] for r in relays] == list(range(len(relays)))


def test_cli_translates_main_and_agent_files_given_together() -> None:
    main = WORKTREES / f"{SESSION_ID}.jsonl"
    agent = WORKTREES / SESSION_ID / "subagents" / "agent-a36efb2a1231c41e2.jsonl"
    p = run("translate", str(main), str(agent))
    assert p.returncode == 0
    relays = [json.loads(line) for line in p.stdout.splitlines()]
    assert {r["lane"] for r in relays if r["file"] == str(agent)} == {"toolu_017y4gSjMWeQ3L2DAKiygU2y"}


def test_cli_trace_and_audit_accept_a_directory() -> None:
    p = run("audit", "--json", str(WORKTREES))
    assert p.returncode == 0
    (entry,) = json.loads(p.stdout)
    assert len(entry["files"]) == 3
    lineage = next(a for a in entry["audit"] if a["strategy"] == "lineage")
    assert (lineage["lost"], lineage["duplicated"], lineage["unmatched"]) == (0, 0, 0)
    p = run("trace", "--json", str(WORKTREES / SESSION_ID))
    assert p.returncode == 0
    files = {Path(s["file"]).name for s in json.loads(p.stdout) if s.get("file")}
    assert files == {f"{SESSION_ID}.jsonl", "agent-a4ca7529859c158c2.jsonl", "agent-a36efb2a1231c41e2.jsonl"}


def test_cli_audit_of_one_session_file_uses_the_session_translator() -> None:
    p = run("audit", "--json", str(WORKTREES / f"{SESSION_ID}.jsonl"))
    assert p.returncode == 0
    lineage = next(a for a in json.loads(p.stdout) if a["strategy"] == "lineage")
    assert (lineage["lost"], lineage["duplicated"], lineage["unmatched"]) == (0, 0, 0)


def test_cli_reports_an_empty_directory_as_a_usage_error(tmp_path: Path) -> None:
    p = run("translate", str(tmp_path))
    assert p.returncode == 2 and b"no .jsonl transcripts" in p.stderr


def test_text_input_as_the_browser_gives_it_equals_bytes() -> None:
    files = {rel(p): p.read_bytes() for p in FILES}
    as_bytes = translate_files(files)
    as_text = translate_files({k: v.decode("utf-8") for k, v in files.items()})
    assert [plain(r.relays) for r in as_text] == [plain(r.relays) for r in as_bytes]
    assert [r.relays[0].file for r in as_text] == [r.relays[0].file for r in as_bytes]


def test_a_broken_meta_file_is_reported_and_the_agent_id_still_links() -> None:
    files = nested_session(False)
    files["s1/subagents/agent-a1.meta.json"] = b"{not json"
    (result,) = translate_files(files)
    assert result.errors == [("s1/subagents/agent-a1.meta.json", 1,
                              "sub-agent meta file is not the JSON object expected; ignored")]
    assert result.file_lanes["s1/subagents/agent-a1.jsonl"] == "toolu_T1"
