"""The command line's text for people.

``translate -f text``: paths relative to what was named, a header row, aligned columns, lanes
labelled as the page labels them, colour only when asked for (``--color``, ``NO_COLOR``), the
width of the terminal (``COLUMNS``) with the summary taking the rest. ``trace``: each block's fate
in the page's words (emitted as #N, duplicate of #N, already streamed as #N, lost), ``--lane``,
and its own usage text."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON, ROOT, SEEDS

from relayscope import fates as F
from relayscope.analysis import Analyzer
from relayscope.audit import inventory

ENV = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "TERM")}
ENV["PYTHONPATH"] = str(ROOT / "py")
SESSION = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees"
HAIKU = FIXTURE_STREAM_JSON / "foksa__open-claude-agent-sdk__tests__snapshots__streaming-haiku.jsonl"
ANSI = re.compile(rb"\x1b\[[0-9;]*m")


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    p = subprocess.run([sys.executable, "-m", "relayscope", *args], capture_output=True,
                       env={**ENV, **(env or {})}, timeout=60, check=False)
    assert p.returncode in (0, 1), p.stderr.decode()
    return p


def rows(p: subprocess.CompletedProcess[bytes]) -> list[str]:
    return p.stdout.decode().splitlines()


def test_text_names_files_relative_to_the_folder_named_with_a_header_and_aligned_columns() -> None:
    p = run("translate", "-f", "text", str(SESSION), env={"COLUMNS": "160"})
    lines = rows(p)
    head = lines[0]
    assert head.split() == ["seq", "file:line", "lane", "type", "summary"]
    assert str(ROOT) not in p.stdout.decode() and "tests/fixtures" not in p.stdout.decode()
    assert "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl:1 " in lines[1]
    # a sub-agent file's long name is cut in its middle, never its line number
    assert any(re.search(r"  ef958aa1-0e93-49f0-bb\w*…\w*a4ca7529859c158c2\.jsonl:\d+ ", line) for line in lines)
    lane_at, type_at, summary_at = head.index("lane"), head.index("type"), head.index("summary")
    chapters = [line for line in lines[1:] if line.startswith("── chapter ")]  # a line over each prompt's row
    assert chapters and all(line.endswith(" ──") for line in chapters)
    for line in (line for line in lines[1:] if line not in chapters):
        assert line[lane_at - 2:lane_at] == "  " and line[lane_at] != " "
        assert line[type_at - 2:type_at] == "  " and line[type_at] != " "
        assert line[summary_at - 2:summary_at] == "  "
        assert re.fullmatch(r" *\d+", line[:6])


def test_text_shows_lanes_as_the_page_labels_them() -> None:
    p = run("translate", "-f", "text", str(SESSION), env={"COLUMNS": "200"})
    lanes = {line[p.stdout.decode().splitlines()[0].index("lane"):][:22].strip() for line in rows(p)[1:]}
    assert "main agent" in lanes
    assert any(label.startswith("general-purpose: Rese") for label in lanes)
    assert not any(label.startswith(("toolu_", "agent-")) for label in lanes)


@pytest.mark.parametrize("columns", [80, 120, 200])
def test_text_fits_the_terminal_width_the_summary_taking_the_rest(columns: int) -> None:
    p = run("translate", "-f", "text", str(SESSION), env={"COLUMNS": str(columns)})
    lines = rows(p)
    assert max(len(line) for line in lines) <= columns
    assert sum(len(line) >= columns - 2 for line in lines) > 10  # long summaries fill the width
    assert any(line.endswith("…") for line in lines)


def test_text_without_a_terminal_or_columns_is_not_cut_to_a_width() -> None:
    p = run("translate", "-f", "text", str(HAIKU))
    assert rows(p)[0].split() == ["seq", "line", "lane", "type", "summary"]
    assert "Here's a haiku about coding: ``` Functions compile clean Debug logs light up the night" in p.stdout.decode()


def test_colour_only_when_asked_for_and_never_under_no_color() -> None:
    assert ANSI.search(run("translate", "-f", "text", "--color", "always", str(HAIKU)).stdout)
    assert not ANSI.search(run("translate", "-f", "text", str(HAIKU)).stdout)  # auto, not a terminal
    assert not ANSI.search(run("translate", "-f", "text", "--color", "never", str(HAIKU)).stdout)
    assert not ANSI.search(run("trace", "--color", "never", str(HAIKU)).stdout)
    assert ANSI.search(run("trace", "--color", "always", str(HAIKU)).stdout)
    coloured = run("translate", "-f", "text", "--color", "always", str(HAIKU)).stdout
    assert ANSI.sub(b"", coloured) == run("translate", "-f", "text", str(HAIKU)).stdout  # colour adds nothing else


def test_auto_colour_on_a_terminal_honours_no_color() -> None:
    from relayscope.cli.terminal import use_color

    class Tty:
        def isatty(self) -> bool:
            return True

    os.environ.pop("NO_COLOR", None)
    assert use_color("auto", Tty())
    os.environ["NO_COLOR"] = "1"
    try:
        assert not use_color("auto", Tty())
        assert use_color("always", Tty())
    finally:
        del os.environ["NO_COLOR"]


def test_trace_calls_the_block_the_index_strategy_loses_lost() -> None:
    out = run("trace", "-s", "index", str(SEEDS / "index-bug.ndjson")).stdout.decode()
    assert "[0] lost: never emitted" in out and "Sub-agent B: running the tests" in out
    assert "dup below index" not in out  # what it said before: "skip ... dup below index 1"
    assert "[0] emitted as #4" in out


def test_trace_says_duplicate_of_and_already_streamed_as() -> None:
    out = run("trace", str(HAIKU)).stdout.decode()
    assert re.search(r"\[0\] already streamed as #2\b", out)
    out = run("trace", "-s", "none", str(SEEDS / "cumulative-dedup.ndjson")).stdout.decode()
    assert "[0] emitted as #" in out
    out = run("trace", "-s", "lineage", str(SEEDS / "cumulative-dedup.ndjson")).stdout.decode()
    assert re.search(r"\[0\] duplicate of #\d+", out)


def test_trace_follows_one_lane() -> None:
    whole = run("trace", "--json", str(SEEDS / "interleaved-subagents.ndjson")).stdout
    lanes = {s.get("lane") for s in json.loads(whole)}
    sub = sorted(lane for lane in lanes if lane and lane != "main")[0]
    steps = json.loads(run("trace", "--json", "--lane", sub, str(SEEDS / "interleaved-subagents.ndjson")).stdout)
    assert steps and {s["lane"] for s in steps} == {sub}
    table = rows(run("trace", "--lane", "main agent", str(SEEDS / "interleaved-subagents.ndjson")))
    assert len(table) > 2 and all("main agent" in line for line in table[1:] if not line.startswith(" " * 6))


def test_trace_has_its_own_usage_and_takes_f_text() -> None:
    p = subprocess.run([sys.executable, "-m", "relayscope", "trace", "--bogus", str(HAIKU)], capture_output=True,
                       env=ENV, timeout=60, check=False)
    assert p.returncode == 2 and p.stderr.startswith(b"usage: relayscope trace ")
    assert run("trace", "-f", "text", str(HAIKU)).stdout == run("trace", str(HAIKU)).stdout
    assert run("trace", "-f", "json", str(HAIKU)).stdout == run("trace", "--json", str(HAIKU)).stdout


STRATEGY_FILES = [(s, p) for s in ("index", "fingerprint", "lineage", "none")
                  for p in [*sorted(FIXTURE_STREAM_JSON.glob("*.jsonl")), *sorted(SEEDS.glob("*.ndjson"))]]


@pytest.mark.parametrize(("strategy", "path"), STRATEGY_FILES, ids=[f"{s}-{p.name[:40]}" for s, p in STRATEGY_FILES])
def test_the_trace_and_the_page_give_every_skipped_block_the_same_fate(strategy: str, path: Path) -> None:
    """The page's stepper (``fates.compute`` on the audit's inventory, ``of_step``) and the trace
    (``fates.Tracker``, the relays up to each line) name the same fate for every skipped block."""
    lines = path.read_bytes().split(b"\n")
    a = Analyzer(strategy, trace=True)
    tracker = F.Tracker()
    as_traced: list[list[tuple[int, str, int | None]]] = []

    def traced() -> None:
        for step in a.trace[len(as_traced):]:
            as_traced.append([(f.index, f.fate, f.seq) for f in tracker.blocks(step, lines[step.line - 1])
                              if f.index in {b.index for b in step.blocks if b.action in ("dup", "streamed")}])

    for line in lines:
        tracker.feed(a.feed_line(line))
        traced()
    tracker.feed(a.finish())
    traced()
    upto, top = [], -1
    for s in a.trace:
        top = max([top, *s.seqs])
        upto.append(top)
    index: dict[tuple[str | None, int], int] = {}
    for i, s in enumerate(a.trace):
        index.setdefault((s.file, s.line), i)
    page = F.compute(a.relays, [s.lane for s in a.trace], upto, inventory(lines), index)
    as_paged = [[(f.index, f.fate, f.seq) for f in F.of_step(page, s, lines[s.line - 1].decode("utf-8", "replace"))]
                for s in a.trace]
    assert as_traced == as_paged



MAIN_FILE = SESSION / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
MISSING = re.compile(r"missing (agent-\w+\.jsonl)")


def test_a_call_whose_sub_agent_transcript_is_missing_says_so_on_its_row() -> None:
    """As the page marks the row: a folder read whole marks the call's row; a file streamed
    marks the row of the call's result, the first one printed once the record has named it."""
    folder = run("translate", "-f", "text", str(SESSION))
    stderr = folder.stderr.decode()
    marked = [line for line in rows(folder) if MISSING.search(line)]
    assert len(marked) == 4 and all("  tool_use  " in line and "Agent (" in line for line in marked)
    assert sorted(MISSING.findall("\n".join(marked))) == sorted(re.findall(r"agent-\w+\.jsonl", stderr))
    alone = run("translate", "-f", "text", str(MAIN_FILE))
    marked = [line for line in rows(alone) if MISSING.search(line)]
    assert len(marked) == 6 and all("  tool_result  " in line for line in marked)
    assert len(set(MISSING.findall("\n".join(marked)))) == 6


def test_a_missing_transcript_s_name_is_shown_not_obeyed(tmp_path: Path) -> None:
    hostile = MAIN_FILE.read_text().replace('"agentId":"a52886dc180afb356"', '"agentId":"x\\u001b[2J\\u001b]0;pwn\\u0007"')
    assert hostile != MAIN_FILE.read_text()
    (tmp_path / "s.jsonl").write_text(hostile)
    p = run("translate", "-f", "text", str(tmp_path / "s.jsonl"))
    assert b"\x1b" not in p.stdout and b"\x07" not in p.stdout
    assert len([line for line in rows(p) if "missing agent-x" in line]) == 1


def test_following_says_which_sub_agent_transcripts_are_missing_as_a_finished_read_does() -> None:
    """``--follow`` marks each call whose sub-agent's transcript the input lacks, once, on the
    first row that can know it (a backlog is read in one look): the names a read of the finished
    input gives."""
    for target in (MAIN_FILE, SESSION):
        followed = run("translate", "-f", "text", "--follow", "--idle-exit", "0.3", "--poll-interval", "0.05",
                       str(target))
        finished = run("translate", "-f", "text", str(target))
        names = [MISSING.findall(line) for line in rows(followed)]
        expected = [MISSING.findall(line) for line in rows(finished)]
        assert sorted(n for found in names for n in found) == sorted(n for found in expected for n in found)
        assert len([n for found in names for n in found]) >= 4
