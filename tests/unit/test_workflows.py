"""Workflow runs and a session's spilled tool output, kept with their session.

No public repository holds a whole real Workflow run (we searched for ``subagents/workflows/wf_``,
``journal.jsonl`` and ``"name":"Workflow"``: only layouts quoted in docs and other viewers' own
synthetic tests), so the run is tests/fixtures/shapes/workflow/, built from PROTOCOL.md section 8
and the layout those projects document (see its README). The spilled output is real: the cut of
JamesTiberiusKirk/dotsv2 (CLI 2.1.150) with its ``tool-results/`` file.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import msgspec
from _cli import main
from _corpus import FIXTURE_SESSIONS, ROOT

from relayscope import relay as R
from relayscope.intake import read_in_folder
from relayscope.multifile import group_files, translate_files
from relayscope.present import summary
from relayscope.spans import build, stamps_of

WORKFLOW = ROOT / "tests" / "fixtures" / "shapes" / "workflow" / "-Users-dev-shop"
SESSION = "7f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
RUN = "wf_3a1b2c3d-4e5"
AGENTS = ("a3f1c2d4e5b6a7980", "a9e8d7c6b5a4f3e21")
DOTS = FIXTURE_SESSIONS / "JamesTiberiusKirk__dotsv2__cut" / ".claude" / "projects" / "-Users-dumitruvulpe-uw-telecom-mobile"
SPILLED = "230240ea-0a87-449e-afca-cff76f0fdc8a/tool-results/b8oz93j98.txt"


def folder_files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and read_in_folder(str(p.relative_to(folder)))}


def test_a_runs_agents_are_lanes_under_the_workflow_call_with_what_they_returned() -> None:
    [result] = translate_files(folder_files(WORKFLOW))
    lanes = {a: result.lanes[f"{RUN}/{a}"] for a in AGENTS}
    for agent, lane in lanes.items():
        assert (lane.parent, lane.depth, lane.spawn, lane.run, lane.agent_id) == (
            "main", 1, "toolu_01WorkflowCall00000001", RUN, agent)
        assert lane.label.startswith("Review src/") and lane.label.endswith(f"for bugs: workflow run {RUN}")
    ends = {r.lane: r for r in result.relays if isinstance(r, R.LaneEnd)}
    parser = json.loads(ends[f"{RUN}/{AGENTS[0]}"].returned or "")
    assert parser == {"file": "src/parser.py", "bugs": [{"line": 2, "what": "a quoted comma splits a field"}]}
    assert json.loads(ends[f"{RUN}/{AGENTS[1]}"].returned or "") == {"file": "src/cache.py", "bugs": []}
    assert "returned {\"file\":\"src/cache.py\"" in summary(ends[f"{RUN}/{AGENTS[1]}"])
    # the run's agents come right after the call that started them, together
    call = next(r.seq for r in result.relays if isinstance(r, R.ToolUse) and r.name == "Workflow")
    run_rows = [r.seq for r in result.relays if r.lane.startswith(RUN)]
    assert run_rows == list(range(call + 1, call + 1 + len(run_rows)))
    # every line of every transcript is accounted for; the journal is kept, not translated
    assert result.companions == [f"{SESSION}/subagents/workflows/{RUN}/journal.jsonl"]
    assert result.errors == [] and not [r for r in result.relays if isinstance(r, R.Error | R.Passthrough)]


def test_the_swimlanes_stats_and_export_count_a_runs_agents() -> None:
    files = folder_files(WORKFLOW)
    [result] = translate_files(files)
    timeline = build(result.relays, stamps_of({k: v.splitlines() for k, v in files.items()}), several=True)
    tracks = {t.id: t for t in timeline.tracks}
    assert {f"{RUN}/{a}" for a in AGENTS} <= set(tracks)
    assert all(tracks[f"{RUN}/{a}"].agent is not None for a in AGENTS)
    order = [t.id for t in timeline.tracks]
    assert order.index(f"{RUN}/{AGENTS[1]}") == order.index(f"{RUN}/{AGENTS[0]}") + 1  # drawn together
    code, out, _ = main("stats", str(WORKFLOW))
    assert code == 0 and "2 sub-agents" in out.decode()
    assert out.decode().count(f"for bugs: workflow run {RUN}") == 2
    code, out, _ = main("export", "--format", "chrome-trace", str(WORKFLOW))
    events = json.loads(out)["traceEvents"]
    agents = [e for e in events if e.get("ph") == "X" and e.get("cat") == "agent"]
    assert sorted(e["args"]["lane"] for e in agents) == sorted(["main", *(f"{RUN}/{a}" for a in AGENTS)])


def test_the_audit_and_drift_see_no_journal_as_a_transcript() -> None:
    code, out, err = main("translate", "-f", "text", str(WORKFLOW))
    assert code == 0 and "journal.jsonl" not in err and "new to relayscope" not in err
    assert "lane ends · returned" in out.decode()
    code, out, err = main("audit", str(WORKFLOW))
    assert code == 0 and "(6 file(s))" in out.decode()
    code, out, _ = main("translate", "-f", "text", str(WORKFLOW))
    assert "Workflow review (script)" in out.decode()  # the call by its run's name, not its script's JSON


def test_spilled_output_stays_with_its_session() -> None:
    files = folder_files(DOTS)
    assert SPILLED in files
    [group] = group_files(files)
    assert SPILLED in group.files
    [result] = translate_files(files)
    assert result.companions == [SPILLED] and result.errors == []
    code, _, err = main("translate", str(DOTS))
    assert code == 0 and "b8oz93j98.txt" not in err


def test_pack_carries_spilled_output(tmp_path: Path) -> None:
    out = tmp_path / "shared.zip"
    code, _, err = main("pack", "-o", str(out), str(DOTS))
    assert code == 0, err
    names = zipfile.ZipFile(io.BytesIO(out.read_bytes())).namelist()
    assert f"files/{SPILLED}" in names


def test_redact_covers_spilled_output(tmp_path: Path) -> None:
    """The real folder, with a secret written into its spilled file (the capture has none)."""
    folder = tmp_path / "in"
    shutil.copytree(DOTS, folder)
    spilled = folder / SPILLED
    spilled.chmod(0o644)
    spilled.write_bytes(spilled.read_bytes() + b"\nexport ANTHROPIC_API_KEY=sk-ant-api03-" + b"x" * 93 + b"AA\n"
                        + b"cd /Users/dumitruvulpe/uw/telecom-mobile\n")
    code, _, err = main("redact", "-o", str(tmp_path / "out"), str(folder))
    assert code == 0, err
    redacted = (tmp_path / "out" / SPILLED).read_text()
    assert "sk-ant-api03-" not in redacted and "dumitruvulpe" not in redacted
    assert "/Users/[redacted:user:1]/uw/telecom-mobile" in redacted  # the same name as in the transcripts


def test_following_a_folder_skips_its_spilled_output_and_journals() -> None:
    code, out, err = main("translate", "-f", "text", "--follow", "--idle-exit", "0.3", str(DOTS))
    assert code == 0 and "b8oz93j98.txt" not in err, err
    code, out, err = main("translate", "-f", "text", "--follow", "--idle-exit", "0.3", str(WORKFLOW))
    assert code == 0 and "journal.jsonl" not in out.decode() + err


def test_the_swimlanes_gather_a_runs_agents_into_one_group_named_by_its_call() -> None:
    from relayscope.web import model, newest

    ws = model.Workspace()
    for _ in ws.load(folder_files(WORKFLOW)):
        pass
    runs = newest.workflow_runs(ws)
    lanes = [f"{RUN}/{a}" for a in AGENTS]
    assert set(runs) == set(lanes) and runs[lanes[0]] is runs[lanes[1]]
    run = runs[lanes[0]]
    call = next(r.seq for r in ws.relays if isinstance(r, R.ToolUse) and r.name == "Workflow")
    assert (run.run, run.label, run.call_seq) == (RUN, f"Workflow review (script) · run {RUN}", call)
    # the run's lanes together where its first one was, whatever came between them
    assert newest.grouped(["main", lanes[0], "toolu_other", lanes[1]], runs) == [
        "main", (run, lanes), "toolu_other"]


def written_in_time_order(folder: Path) -> list[tuple[str, bytes]]:
    """The run's session folder as Claude Code writes it: every transcript line at its timestamp,
    each agent's meta file and journal ``started`` line as it starts, its journal ``result`` line
    right after its last line ((relative path, bytes) in order)."""
    files = folder_files(folder)
    journal = next(k for k in files if k.endswith("journal.jsonl"))
    said: dict[str, list[bytes]] = {json.loads(x)["agentId"]: [] for x in files[journal].splitlines()}
    for x in files[journal].splitlines():
        said[json.loads(x)["agentId"]].append(x + b"\n")
    timed = []
    for name, content in files.items():
        if name.endswith(".jsonl") and name != journal:
            lines = content.splitlines(keepends=True)
            for i, x in enumerate(lines):
                agent = next((a for a in said if f"agent-{a}.jsonl" in name), None)
                before = [(f"{name[:-len('.jsonl')]}.meta.json", files[f"{name[:-len('.jsonl')]}.meta.json"]),
                          (journal, said[agent][0])] if agent and i == 0 else []
                after = [(journal, said[agent][1])] if agent and i == len(lines) - 1 else []
                timed.append((json.loads(x)["timestamp"], name, i, [*before, (name, x), *after]))
    return [event for *_, events in sorted(timed) for event in events]


def test_a_run_followed_as_it_is_written_ties_its_agents_to_its_call_as_the_whole_folder_does() -> None:
    from relayscope.live import LiveFiles

    [whole] = translate_files(folder_files(WORKFLOW))
    live = LiveFiles()
    relays = []
    ended_while_following = []
    for name, data in written_in_time_order(WORKFLOW):
        got = live.feed(name, data)
        relays += got
        ended_while_following += [r.lane for r in got if isinstance(r, R.LaneEnd) and r.lane.startswith(RUN)]
    relays += live.finish()

    def by_file(rs: list[R.Relay]) -> dict[str | None, list[R.Relay]]:
        out: dict[str | None, list[R.Relay]] = {}
        for r in rs:
            out.setdefault(r.file, []).append(msgspec.structs.replace(r, seq=0))
        return out

    assert by_file(relays) == by_file(whole.relays)  # per file, the same relays in the same order
    lanes = live.lanes()
    for agent in AGENTS:
        lane = lanes[f"{RUN}/{agent}"]
        assert (lane.spawn, lane.run, lane.agent_id, lane.label) == (
            "toolu_01WorkflowCall00000001", RUN, agent, whole.lanes[f"{RUN}/{agent}"].label)
    # each agent's lane ended when the journal said what it returned, not when the follow ended
    assert ended_while_following == [f"{RUN}/{AGENTS[0]}", f"{RUN}/{AGENTS[1]}"]


def test_translate_follow_on_a_run_being_written_ties_its_agents_to_its_run(tmp_path: Path) -> None:
    from test_follow import follow, one_shot, per_file

    root = tmp_path / "-Users-dev-shop"
    root.mkdir()
    got = follow(root, [(root / name, data) for name, data in written_in_time_order(WORKFLOW)])
    want = one_shot("translate", str(root))
    assert got.returncode == want.returncode == 0, got.stderr.decode()
    assert per_file(got.stdout) == per_file(want.stdout)
    starts = [json.loads(x) for x in got.stdout.splitlines() if b'"lane_start"' in x]
    assert [(s["lane"], s["parent_lane"]) for s in starts] == [
        ("main", None), (f"{RUN}/{AGENTS[0]}", "main"), (f"{RUN}/{AGENTS[1]}", "main")]
