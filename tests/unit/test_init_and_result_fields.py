"""The fields CLI 2.1.250-2.1.281 adds to ``system/init`` and ``result`` (PROTOCOL.md 7), read where
they mean something: the run's capabilities (and tools given as text) in the session row, why a
run ended and the CLI's sub-agent count in the result row, the results' timing in ``stats``; and
the drift report, which names none of the section's shapes and still names what is new."""

from __future__ import annotations

import json

from _run_lines import a_run_with_two_agents, cli, init, result, run, stats, text

from relayscope import relay as R
from relayscope import spans as S
from relayscope.drift import describe, drift_of
from relayscope.present import summary


def _meta(relays: list[R.Relay]) -> R.SessionMeta:
    (meta,) = [r for r in relays if isinstance(r, R.SessionMeta)]
    return meta


def test_the_session_row_names_the_runs_capabilities() -> None:
    meta = _meta(run([init()]))
    # the one session row of the page, the CLI's text and the snapshot (words.session_row): its
    # version and folder too
    assert summary(meta) == "session 5d0c1e7a-run · claude-opus-5 · v2.1.266 · /srv/app · 3 tools · capabilities " \
                            "interrupt_receipt_v1, msg_lifecycle_v1"
    assert {k: meta.extra[k] for k in ("memory_paths", "view_mode", "per_turn_effort_active", "scratchpad_path")} == \
        {"memory_paths": {"auto": "/srv/.mem"}, "view_mode": "default", "per_turn_effort_active": False,
         "scratchpad_path": "/tmp/pad-1"}


def test_tools_given_as_text_are_kept_and_said_without_a_warning() -> None:
    relays = run([init(tools="Bash, Read, [redacted]", capabilities="not a list")])
    assert not [r for r in relays if isinstance(r, R.Warning | R.Error)]
    meta = _meta(relays)
    assert meta.tools == [] and meta.extra["tools"] == "Bash, Read, [redacted]"
    assert summary(meta) == "session 5d0c1e7a-run · claude-opus-5 · v2.1.266 · /srv/app · tools given as text"


def test_the_result_row_says_why_the_run_ended_and_what_the_cli_counted() -> None:
    def row(**extra: object) -> str:
        (done,) = [r for r in run([init(), result(**extra)]) if isinstance(r, R.TurnComplete)]
        return summary(done)
    assert row() == "success · $0.2500 · 4 turns · done"
    assert row(subagents=stats(3, 2, 1)) == "success · $0.2500 · 4 turns · 3 sub-agents (1 failed) · done"
    assert row(terminal_reason="max_turns", api_error_status=529) == \
        "success · $0.2500 · 4 turns · ended: max_turns · API error 529 · done"
    assert row(terminal_reason=5, api_error_status="x", subagent_stats=[1]) == "success · $0.2500 · 4 turns · done"


def test_stats_lists_the_results_timing_the_median_of_several() -> None:
    lines = [init(), result(), result(ttft_ms=2010, time_to_request_ms=300, first_content_frame_ms=2100,
                                      ttft_stream_ms="n/a", result_index=1)]
    relays = run(lines)
    stamps = S.stamps_of({None: text(lines).splitlines()})
    tl = S.build(relays, stamps)
    main = tl.track("main")
    assert main is not None and main.timing == {"time_to_request_ms": [212, 300], "ttft_ms": [1390, 2010],
                                                "ttft_stream_ms": [1410], "first_content_frame_ms": [1460, 2100]}
    lane = S.figures(tl, relays, stamps)["lanes"][0]
    assert lane["timing"] == {"time_to_request_ms": 256, "ttft_ms": 1700, "ttft_stream_ms": 1410,
                              "first_content_frame_ms": 1780} and lane["timing_results"] == 2
    out = cli("stats", data=text(lines))
    assert "  timing: request sent 256 ms · first token 1,700 ms · first streamed token 1,410 ms · first content " \
           "1,780 ms (median of 2 results)" in out
    assert json.loads(cli("stats", "--json", data=text(lines)))[0]["lanes"][0]["timing"]["ttft_ms"] == 1700


def test_the_drift_report_names_none_of_the_newest_shapes() -> None:
    data = text(a_run_with_two_agents())
    assert drift_of(data.splitlines()).records == 0
    assert describe(None, drift_of(data.splitlines())) is None


def test_new_shapes_beyond_them_still_pass_through_and_are_reported() -> None:
    new = [{"type": "tool_heartbeat_v2", "tool_use_id": "x"}, {"type": "system", "subtype": "vcs_rebased"},
           {**result(), "cache_warmth": 0.5}]
    lines = [*a_run_with_two_agents(), *new]
    report = drift_of(text(lines).splitlines())
    assert report.types == {"tool_heartbeat_v2": 1, "system/vcs_rebased": 1} and report.fields == {"cache_warmth": 1}
    relays = run(lines)
    assert [r.event_type for r in relays if isinstance(r, R.Passthrough) and r.event_type != "tool_progress"] == \
        ["tool_heartbeat_v2"]
    (odd,) = [r for r in relays if isinstance(r, R.System) and r.subtype == "vcs_rebased"]
    assert summary(odd) == "system/vcs_rebased (new to this version)"
