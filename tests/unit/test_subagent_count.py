"""The CLI's own count of its sub-agents (``result.subagent_stats``, PROTOCOL.md 7) held against the
lanes the input has, in the audit's text and JSON; and the sub-agent transcripts a session's
records name that the input lacks, by the file name to look for (``agent-<id>.jsonl``)."""

from __future__ import annotations

import json
from pathlib import Path

from _corpus import FIXTURE_SESSIONS
from _run_lines import AGENT, AGENT_2, a_run_with_two_agents, cli, init, result, run, stats, text

from relayscope.lanes import missing_transcripts, transcript_file
from relayscope.multifile import audit_input, translate_files
from relayscope.subagents import check, cli_count

WORKTREES = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees"
MAIN = "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"


def test_a_forwarded_run_matches_the_clis_count() -> None:
    c = check(run(a_run_with_two_agents()))
    assert c is not None and c.cli is not None
    assert (c.cli.spawned, c.cli.completed, c.cli.failed, c.cli.by_type) == (2, 1, 1, {"Explore": 2})
    assert (c.calls, c.with_records, c.completed, c.failed, c.running, c.missing, c.silent) == (2, 2, 1, 1, 0, 0, [])
    assert c.words == ["the CLI counted 2 sub-agents (1 completed, 1 failed); the input has 2 spawning calls "
                       "(1 completed, 1 failed, 0 running) and 2 sub-agents with records of their own"]


def test_without_forwarded_frames_the_check_says_the_sub_agents_are_missing_and_why() -> None:
    c = check(run(a_run_with_two_agents(forwarded=False)))
    assert c is not None and (c.with_records, c.missing, c.silent) == (0, 2, [AGENT, AGENT_2])
    assert c.words[1] == ("2 sub-agents the CLI counted have no record here: no sub-agent frame is in the input: "
                          "--forward-subagent-text was off (or the stream was cut)")


def test_a_stream_missing_one_agents_frames_and_calls_says_so() -> None:
    lines = a_run_with_two_agents()
    lines = [x for x in lines if x.get("parent_tool_use_id") != AGENT_2]  # its frames and heartbeats gone
    lines[-1] = result(stats(3, 2, 1))  # and one spawn the input never shows
    c = check(run(lines))
    assert c is not None and (c.calls, c.with_records, c.missing) == (2, 1, 2)
    assert c.words[1:] == [
        "2 sub-agents the CLI counted have no record here: their frames are not in the input: the stream was cut, "
        "or they were not forwarded",
        "1 spawning call the CLI counted is not in the input (the stream was cut)",
        "the CLI counted 2 completed; the lanes show 1 completed"]


def test_the_audit_shows_the_check_in_text_and_json() -> None:
    data = text(a_run_with_two_agents(forwarded=False))
    out = cli("audit", data=data)
    assert ("sub-agents: the CLI counted 2 sub-agents (1 completed, 1 failed); the input has 2 spawning calls "
            "(1 completed, 1 failed, 0 running) and 0 sub-agents with records of their own") in out
    assert "sub-agents: 2 sub-agents the CLI counted have no record here" in out
    audits = json.loads(cli("audit", "--json", data=data))
    lineage = next(a for a in audits if a["strategy"] == "lineage")
    assert lineage["subagents"]["missing"] == 2 and lineage["subagents"]["cli"]["spawned"] == 2
    assert lineage["subagents"]["silent"] == [AGENT, AGENT_2]
    # no count from the CLI and nothing missing: nothing said
    plain = [init(), *a_run_with_two_agents()[1:-1], result()]
    assert "sub-agents:" not in cli("audit", data=text(plain))
    assert check(run(plain)) is None


def test_several_results_are_running_totals_or_turns_of_their_own() -> None:
    def count(*spawned: int) -> int:
        found = cli_count(run([init(), *(result(stats(n, n, 0)) for n in spawned)]))
        assert found is not None
        return found.spawned
    assert count(1, 2, 2) == 2  # never down: running totals, the last holds
    assert count(2, 1) == 3  # down: each its own turn, summed
    assert cli_count(run([init(), result(subagent_stats="3"), result(subagent_stats={"spawned": "x"})])) is not None
    assert cli_count(run([init(), result()])) is None


def test_a_sessions_sub_agent_transcripts_missing_from_the_input_are_named() -> None:
    files = {str(p.relative_to(WORKTREES)): p.read_bytes() for p in WORKTREES.rglob("*.jsonl")}
    given = {Path(k).name for k in files}
    # expected from the raw records: every toolUseResult.agentId whose agent-<id>.jsonl is not given
    named: dict[str, str] = {}
    for line in files[MAIN].splitlines():
        rec = json.loads(line)
        res = rec.get("toolUseResult")
        if isinstance(res, dict) and isinstance(res.get("agentId"), str):
            (block,) = [b for b in rec["message"]["content"] if b.get("type") == "tool_result"]
            named[block["tool_use_id"]] = f"agent-{res['agentId']}.jsonl"
    expected = {k: v for k, v in named.items() if v not in given}
    assert len(expected) == 4 and len(named) == 6
    (session,) = translate_files(files)
    assert missing_transcripts(session.lanes) == expected
    assert all(session.lanes[k].file is None and transcript_file(session.lanes[k].agent_id or "") == v
               for k, v in expected.items())
    (audit,) = audit_input(files)
    lineage = next(a for a in audit.audits if a.strategy == "lineage")
    assert lineage.subagents["missing_files"] == expected
    assert lineage.subagents["words"][-1].startswith("4 sub-agent transcripts the records name are not in the input: ")
    # the main file alone: all six are missing
    (alone,) = audit_input(files[MAIN], name=MAIN)
    assert next(a for a in alone.audits if a.strategy == "lineage").subagents["missing_files"] == named


def test_a_meta_file_without_its_transcript_names_it_too() -> None:
    files = {str(p.relative_to(WORKTREES)): p.read_bytes() for p in WORKTREES.rglob("*.jsonl")}
    (session,) = translate_files(files)
    (lane, name) = next(iter(missing_transcripts(session.lanes).items()))
    # a made-up spawn result with no agentId, and a meta file that names the call
    main = b"\n".join(line.replace(name.removeprefix("agent-").removesuffix(".jsonl").encode(), b"")
                      for line in files[MAIN].splitlines())
    files[MAIN] = main
    assert lane not in missing_transcripts(translate_files(files)[0].lanes)
    files[f"ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/{name.removesuffix('.jsonl')}.meta.json"] = json.dumps(
        {"agentType": "general-purpose", "toolUseId": lane}).encode()
    assert missing_transcripts(translate_files(files)[0].lanes)[lane] == name


def test_stream_json_sub_agents_need_no_transcript_file() -> None:
    lines = a_run_with_two_agents()
    lines[9] = {**lines[9], "tool_use_result": {"status": "completed", "agentId": "a1234567890abcdef"}}
    (res,) = translate_files({"run.jsonl": text(lines)})
    assert missing_transcripts(res.lanes) == {}


def test_translate_names_the_missing_transcripts_on_stderr_in_every_format(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    folder = tmp_path / "worktrees"
    shutil.copytree(WORKTREES, folder)
    left = next((folder / MAIN.removesuffix(".jsonl") / "subagents").glob("agent-*.jsonl"))
    left.unlink()
    for fmt in ("text", "ndjson"):
        p = subprocess.run([sys.executable, "-m", "relayscope", "translate", "-f", fmt, str(folder)],
                           capture_output=True, text=True, check=True)
        (line,) = [x for x in p.stderr.splitlines() if "sub-agent transcript" in x]
        assert f"{MAIN}: 5 sub-agent transcripts the records name are not in the input: " in line
        assert left.name in line
    alone = subprocess.run([sys.executable, "-m", "relayscope", "translate", str(folder / MAIN)],
                           capture_output=True, text=True, check=True)
    assert ": 6 sub-agent transcripts the records name are not in the input: " in alone.stderr
    plain = subprocess.run([sys.executable, "-m", "relayscope", "translate", "-"], input=text(a_run_with_two_agents()),
                           capture_output=True, check=True)
    assert b"sub-agent transcript" not in plain.stderr
