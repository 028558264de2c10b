"""One rule of which files make which session: the library's listing, the commands' grouping
(multifile), files read as they grow (live, the page's watch and --follow) and the shareable file
all put each file in the same session."""

from __future__ import annotations

import json

from relayscope import library as L
from relayscope import sharefile
from relayscope.live import LiveFiles
from relayscope.multifile import group_names

SID, SID2, OLD = ("11111111-2222-4333-8444-555555555555", "22222222-2222-4333-8444-555555555555",
                  "33333333-2222-4333-8444-555555555555")


def _lines(sid: str | None, prompt: str, side: bool = False) -> bytes:
    recs = [{"type": "user", "sessionId": sid, "uuid": f"u-{prompt}", "parentUuid": None, "isSidechain": side,
             "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": prompt}},
            {"type": "assistant", "sessionId": sid, "uuid": f"a-{prompt}", "parentUuid": f"u-{prompt}",
             "isSidechain": side, "timestamp": "2026-01-01T00:00:01Z",
             "message": {"role": "assistant", "id": f"m-{prompt}", "content": [{"type": "text", "text": "ok"}]}}]
    return b"".join(json.dumps(r).encode() + b"\n" for r in recs)


FILES = {
    f"proj/{SID}.jsonl": _lines(SID, "main one"),
    f"proj/{SID}/subagents/agent-a1.jsonl": _lines(SID, "sub one", side=True),
    # a workflow's agent, whose records name no session: its folder alone says whose it is
    f"proj/{SID}/subagents/workflows/wf_9/agent-w1.jsonl": _lines(None, "workflow agent", side=True),
    f"proj/{SID2}.jsonl": _lines(SID2, "main two"),
    f"proj/{SID2}/subagents/agent-b1.jsonl": _lines(SID2, "sub two", side=True),
    f"old/{OLD}.jsonl": _lines(OLD, "main old"),
    "old/agent-c1.jsonl": _lines(OLD, "sub old", side=True),  # the 2.0.x layout: beside the main file
    "lost/44444444-2222-4333-8444-555555555555/subagents/agent-d1.jsonl": _lines("44444444-x", "orphan", side=True),
}
EXPECTED = {
    frozenset({f"proj/{SID}.jsonl", f"proj/{SID}/subagents/agent-a1.jsonl",
               f"proj/{SID}/subagents/workflows/wf_9/agent-w1.jsonl"}),
    frozenset({f"proj/{SID2}.jsonl", f"proj/{SID2}/subagents/agent-b1.jsonl"}),
    frozenset({f"old/{OLD}.jsonl", "old/agent-c1.jsonl"}),
    frozenset({"lost/44444444-2222-4333-8444-555555555555/subagents/agent-d1.jsonl"}),
}


def _library(files: dict[str, bytes]) -> set[frozenset[str]]:
    g = L.group(list(files), lambda p: L.peek_bytes(files[p]))
    assert g.skipped == []
    return {frozenset(x.transcripts) for x in g.groups}


def test_the_library_groups_as_the_commands_do() -> None:
    assert _library(FILES) == EXPECTED
    assert {frozenset(names) for _, _, names in group_names(FILES)} == EXPECTED


def test_files_read_as_they_grow_are_grouped_by_the_same_rule() -> None:
    live = LiveFiles()
    for name in reversed(list(FILES)):  # sub-agent files first: they are placed by name, not by arrival
        live.feed(name, FILES[name])
    live.finish()
    by_session: dict[int, set[str]] = {}
    for name, f in live.files.items():
        by_session.setdefault(id(f.session), set()).add(name)
    assert {frozenset(v) for v in by_session.values()} == EXPECTED


def test_a_shareable_files_members_are_grouped_by_the_same_rule() -> None:
    packed = sharefile.pack(FILES)
    opened = sharefile.unpack(packed)
    assert _library(dict(opened.files)) == EXPECTED
