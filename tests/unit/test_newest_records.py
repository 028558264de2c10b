"""The records and fields newer CLIs write (PROTOCOL.md 8), each with a place and words.

Real data: a cut of the JamesTiberiusKirk/dotsv2 session (CLI 2.1.150: titles, agent names, last
prompts, away summaries, sub-agent records with ``attributionAgent``) and the one real API-error
line (CLI 2.1.114, ``apiErrorStatus``) fuzzyalej/claude-rl-daemon embeds in a test (both named in
tests/fixtures/real/SOURCES.tsv). Shapes no public capture carries yet (``bridge_status``,
``custom-title``, ``origin``, ``promptSource``, ``sourceToolUseID``, ``attributionSkill``,
``thinking_duration_ms``, ``wire_tool_inputs``, ``usage.fallback_credit``) are in
tests/fixtures/shapes/, built from PROTOCOL.md section 8 and marked as such in its README.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli import main
from _corpus import FIXTURE_SESSIONS, HAVE_SHARED, NO_SHARED, ROOT, SHARED_REAL

from relayscope import meaning
from relayscope import relay as R
from relayscope.analysis import Analyzer
from relayscope.drift import drift_of
from relayscope.intake import read_in_folder
from relayscope.multifile import translate_files
from relayscope.present import summary

DOTS = FIXTURE_SESSIONS / "JamesTiberiusKirk__dotsv2__cut" / ".claude" / "projects" / "-Users-dumitruvulpe-uw-telecom-mobile"
API_ERROR = FIXTURE_SESSIONS / "fuzzyalej__claude-rl-daemon" / "api-error-429.jsonl"
SHAPES = ROOT / "tests" / "fixtures" / "shapes"

RECORD_TYPES = ("custom-title", "ai-title", "agent-name", "last-prompt", "summary")
SYSTEM_TYPES = ("bridge_status", "away_summary")
FIELDS = ("attributionSkill", "attributionAgent", "origin", "promptSource", "sourceToolUseID", "apiErrorStatus",
          "thinking_duration_ms", "wire_tool_inputs")


def folder_files(folder: Path) -> dict[str, bytes]:
    base = folder.parent
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and read_in_folder(str(p.relative_to(base)))}


def relays_of(path: Path) -> list[R.Relay]:
    a = Analyzer("lineage")
    a.feed_text(path.read_bytes())
    a.finish()
    return a.relays


def test_every_listed_record_and_field_has_a_place_and_a_meaning() -> None:
    for name in RECORD_TYPES:
        assert meaning.RECORDS[name].place and meaning.summarize(name, None, {}) != f"{name} (new to this version)"
    for name in SYSTEM_TYPES:
        assert meaning.SYSTEM[name].place
    for name in (*FIELDS, "usage.fallback_credit"):
        assert meaning.FIELD_MEANINGS[name].what
    assert set(FIELDS) <= meaning.KNOWN_FIELDS


def test_sub_agent_records_of_a_real_session_say_the_agent_they_are_attributed_to() -> None:
    [result] = translate_files(folder_files(DOTS))
    lane = "toolu_01R3RNAbLDzv2gouo9itzMVi"  # the Explore agent of agent-ad1189b77de8c77eb.jsonl
    texts = [r for r in result.relays if isinstance(r, R.TextDelta) and r.lane == lane]
    assert texts and all(r.notes == ("agent Explore",) for r in texts)
    assert summary(texts[0]).endswith(" · agent Explore")
    main_rows = [r for r in result.relays if r.lane == "main" and r.notes]
    assert main_rows == []  # the main agent's records carry no attribution in this session


def test_the_text_output_says_the_titles_names_and_attribution_of_a_real_session() -> None:
    code, out, err = main("translate", "-f", "text", str(DOTS))
    text = out.decode()
    assert code == 0, err
    for words in ("title · Review open draft pull request", "title · fix-expired-contracts-loop",
                  "agent name · fix-expired-contracts-loop", "last prompt · go scrutinise the pr we have open rn",
                  "while you were away · Reviewing and fixing issues", "· agent Explore"):
        assert words in text, words


def test_a_real_api_error_line_says_its_status() -> None:
    rows = [r for r in relays_of(API_ERROR) if r.notes]
    assert [(r.type, r.notes) for r in rows] == [("text_delta", ("API error 429",))]


def test_the_drift_report_names_none_of_them_on_the_fixtures() -> None:
    files = [*DOTS.rglob("*.jsonl"), API_ERROR, *SHAPES.glob("*.jsonl")]
    for path in files:
        report = drift_of(path.read_bytes().splitlines())
        named = set(report.types) | set(report.fields)
        assert not named & {*RECORD_TYPES, *(f"system/{s}" for s in SYSTEM_TYPES), *FIELDS}, (path, named)


@pytest.mark.skipif(not HAVE_SHARED, reason=NO_SHARED)
def test_the_drift_report_names_none_of_them_on_the_shared_corpus() -> None:
    listed = {*RECORD_TYPES, *(f"system/{s}" for s in SYSTEM_TYPES), *FIELDS}
    for path in sorted(SHARED_REAL.rglob("*.jsonl")):
        report = drift_of(path.read_bytes().splitlines())
        assert not (set(report.types) | set(report.fields)) & listed, path


def test_shapes_of_section_8_each_get_their_words() -> None:
    """Built from PROTOCOL.md section 8 (no public capture has them yet): see tests/fixtures/shapes/README.md."""
    rows = {r.line: r for r in reversed(relays_of(SHAPES / "session-records.jsonl"))
            if not isinstance(r, R.LaneStart | R.SessionMeta | R.Usage)}
    assert summary(rows[1]) == "title · Fix the expiry loop"
    bridge = rows[2]
    assert isinstance(bridge, R.System) and bridge.subtype == "bridge_status"
    assert summary(bridge) == "remote control active · https://claude.ai/code/session_01ExampleExampleExample"
    assert meaning.link_of(bridge) == "https://claude.ai/code/session_01ExampleExampleExample"
    assert rows[3].notes == ("origin task-notification", "prompt from queued")
    assert rows[4].notes == ("skill review",)
    assert summary(rows[5]).endswith(" · for call toolu_shape_edit")
    assert summary(rows[6]) == "while you were away · Reviewed the pull request; two fixes remain."
    stream = relays_of(SHAPES / "stream-fields.jsonl")
    thinking = next(r for r in stream if isinstance(r, R.ThinkingDelta))
    assert thinking.duration_ms == 3250 and summary(thinking) == (
        "Check the loop bound first. · thought 3.2 s · tool inputs as sent on the wire")
    done = next(r for r in stream if isinstance(r, R.TurnComplete))
    assert "fallback credit 120" in summary(done)


def test_forwarded_sub_agent_text_lands_once_in_its_lane_labelled_without_a_file_or_call() -> None:
    """``--forward-subagent-text`` (2.1.212+, PROTOCOL.md 5 and 8): a capture that starts after
    the Agent call; the frame comes twice (as the CLI repeats a message's frames). Lines written
    here in those shapes: already handled before these changes, kept as a regression."""
    frame = {"type": "assistant", "parent_tool_use_id": "toolu_01Lh54Qd1nHYeUUnnqgVJV6t", "session_id": "s1",
             "uuid": "u1", "subagent_type": "Explore", "task_description": "Find how to open the panel",
             "message": {"id": "msg_1", "role": "assistant", "model": "claude-haiku-4-5",
                         "content": [{"type": "text", "text": "Looking for the panel."}]}}
    a = Analyzer("lineage")
    a.feed_text("\n".join(json.dumps(x) for x in (
        {"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-opus-5", "tools": []}, frame, frame)))
    a.finish()
    texts = [r for r in a.relays if isinstance(r, R.TextDelta)]
    [start] = [r for r in a.relays if isinstance(r, R.LaneStart) and r.lane != "main"]
    assert [t.lane for t in texts] == ["toolu_01Lh54Qd1nHYeUUnnqgVJV6t"]
    assert start.label == "Explore: Find how to open the panel"
