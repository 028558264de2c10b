"""The library's rule (which files make which session) and its summaries, on files in hand."""

from __future__ import annotations

import json

from relayscope import library as L

SID = "11111111-2222-4333-8444-555555555555"
SID2 = "99999999-2222-4333-8444-555555555555"


def _rec(**kw: object) -> bytes:
    return json.dumps(kw).encode() + b"\n"


def _session(sid: str = SID, prompt: str = "fix the tests", ts: str = "2026-01-02T03:04:05.000Z", **extra: object) -> bytes:
    return (_rec(type="user", sessionId=sid, uuid="u1", parentUuid=None, timestamp=ts, cwd="/home/me/proj",
                 version="2.1.200", gitBranch="main", message={"role": "user", "content": prompt}, **extra)
            + _rec(type="assistant", sessionId=sid, uuid="a1", parentUuid="u1", timestamp="2026-01-02T03:05:05.000Z",
                   version="2.1.201", message={"role": "assistant", "id": "m1", "model": "claude-opus-4-5",
                                               "content": [{"type": "text", "text": "done"}],
                                               "usage": {"input_tokens": 3, "output_tokens": 5}}))


def _grouping(files: dict[str, bytes]) -> L.Grouping:
    return L.group(list(files), lambda p: L.peek_bytes(files[p]))


def test_a_session_is_its_main_file_its_subagents_and_tool_results() -> None:
    files = {
        f"-home-me-proj/{SID}.jsonl": _session(),
        f"-home-me-proj/{SID}/subagents/agent-a1.jsonl": _session(prompt="sub task"),
        f"-home-me-proj/{SID}/subagents/agent-a1.meta.json": b'{"toolUseId": "t1"}',
        f"-home-me-proj/{SID}/subagents/workflows/wf_1/agent-a2.jsonl": _session(prompt="wf task"),
        f"-home-me-proj/{SID}/subagents/workflows/wf_1/journal.jsonl": b'{"x": 1}\n',
        f"-home-me-proj/{SID}/tool-results/b8oz.txt": b"big output",
        f"-home-me-proj/{SID2}.jsonl": _session(SID2),
    }
    g = _grouping(files)
    assert [x.key for x in g.groups] == [SID, SID2]
    assert g.skipped == []
    roles = g.groups[0].files
    assert roles[f"-home-me-proj/{SID}.jsonl"] == L.MAIN
    assert roles[f"-home-me-proj/{SID}/subagents/agent-a1.jsonl"] == L.SUBAGENT
    assert roles[f"-home-me-proj/{SID}/subagents/workflows/wf_1/agent-a2.jsonl"] == L.SUBAGENT
    assert roles[f"-home-me-proj/{SID}/subagents/agent-a1.meta.json"] == L.META
    assert roles[f"-home-me-proj/{SID}/tool-results/b8oz.txt"] == L.ATTACHMENT
    assert roles[f"-home-me-proj/{SID}/subagents/workflows/wf_1/journal.jsonl"] == L.ATTACHMENT
    assert len(g.groups[1].files) == 1


def test_summary_from_the_ends() -> None:
    files = {f"-home-me-proj/{SID}.jsonl": _session() + _rec(type="ai-title", aiTitle="Old title", sessionId=SID)
             + _rec(type="custom-title", customTitle="Mine", sessionId=SID)}
    g = _grouping(files)
    s = L.summarize(g.groups[0], lambda p: L.peek_bytes(files[p]))
    assert s.session == SID and s.schema == L.SCHEMA
    assert s.project == "/home/me/proj" and s.project_dir == "-home-me-proj"
    assert (s.title, s.title_from) == ("Mine", "custom-title")
    assert s.start == "2026-01-02T03:04:05.000Z" and s.last_activity == "2026-01-02T03:05:05.000Z"
    assert s.duration_s == 60.0 and s.day == "2026-01-02"
    assert s.cli_versions == ["2.1.200", "2.1.201"] and s.models == ["claude-opus-4-5"]
    assert s.size == len(files[f"-home-me-proj/{SID}.jsonl"])


def test_title_falls_back_to_ai_title_summary_then_prompt() -> None:
    base = _session(prompt="<command-name>/clear</command-name>") + _session(prompt="  the real   prompt ")
    for extra, want in ((_rec(type="ai-title", aiTitle="AI", sessionId=SID), ("AI", "ai-title")),
                        (_rec(type="summary", summary="Sum", leafUuid="a1"), ("Sum", "summary")),
                        (b"", ("the real prompt", "prompt"))):
        files = {f"p/{SID}.jsonl": extra + base}
        s = L.summarize(_grouping(files).groups[0], lambda p, f=files: L.peek_bytes(f[p]))
        assert (s.title, s.title_from) == want


def test_the_ends_only_are_read_and_a_long_first_line_is_read_whole() -> None:
    big = _rec(type="user", sessionId=SID, uuid="u0", parentUuid=None, timestamp="2026-01-01T00:00:00Z", cwd="/x",
               message={"role": "user", "content": "p" * 200_000})
    filler = _rec(type="progress", data="x" * 300) * 2500
    middle = filler + _rec(type="user", sessionId=SID, timestamp="2026-01-01T05:00:00Z", version="9.9.9",
                           parentUuid="u0", message={"role": "user", "content": "m"}) + filler
    data = big + middle + _session(ts="2026-01-03T00:00:00Z")
    read: list[tuple[int, int]] = []

    def read_at(at: int, n: int) -> bytes:
        read.append((at, n))
        return data[at:at + n]

    p = L.peek_with(read_at, len(data))
    assert sum(n for _, n in read) < len(big) + 3 * L.PEEK_BYTES < len(data)
    files = {f"q/{SID}.jsonl": data}
    g = L.group(list(files), lambda _: p)
    s = L.summarize(g.groups[0], lambda _: p)
    assert s.format == "session" and s.cwd == "/x" and s.start == "2026-01-01T00:00:00.000Z"
    assert s.last_activity == "2026-01-03T00:00:00.000Z"  # the latest timestamp of either end
    assert "9.9.9" not in s.cli_versions  # only in the middle


def test_decode_project() -> None:
    assert L.decode_project("-home-me-proj") == "/home/me/proj"
    assert L.decode_project("C--Users-me-x") == "C:\\Users\\me\\x"
    assert L.decode_project("plain") == "plain"


def test_blank_lines_before_the_first_record_are_passed_over() -> None:
    data = b"\n   \n" * 40 + _session()
    g = L.group([f"p/{SID}.jsonl"], lambda _: L.peek_bytes(data))
    assert [(x.key, x.format) for x in g.groups] == [(SID, "session")] and g.skipped == []
