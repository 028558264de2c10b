"""A tool call the permission rules refused (``system/permission_denied``, PROTOCOL.md 7): an error
row on the call it refused, in the lane that call ran in, linked to it by ``tool_use_id``; its
``message`` (the rule's text, a string) is the record's own field, read without a warning."""

from __future__ import annotations

from _run_lines import (
    AGENT,
    BASH,
    SESSION,
    a_run_with_two_agents,
    answer,
    call,
    cli,
    denied,
    init,
    run,
    text,
)

from relayscope import meaning
from relayscope import relay as R
from relayscope.present import summary
from relayscope.wire import decode_line


def _denial(relays: list[R.Relay]) -> R.System:
    (row,) = [r for r in relays if isinstance(r, R.System) and r.subtype == "permission_denied"]
    return row


def test_a_denial_is_an_error_row_on_the_call_it_refused() -> None:
    relays = run(a_run_with_two_agents())
    row = _denial(relays)
    (push,) = [r for r in relays if isinstance(r, R.ToolUse) and r.id == BASH]
    assert meaning.call_of(row) == push.id and row.lane == push.lane == "main"
    assert meaning.is_error(row) and not meaning.is_bookkeeping(row)
    assert meaning.place_of("system", "permission_denied") == "lifecycle"
    assert summary(row) == ("permission denied: Bash · rule · Permission to use Bash with command git push origin "
                            "main has been denied.")
    # the call's own error result still follows, as it came
    assert [r.is_error for r in relays if isinstance(r, R.ToolResult) and r.tool_use_id == BASH] == [True]


def test_the_rules_message_is_the_records_own_text_not_a_damaged_field() -> None:
    frame = decode_line(text([denied(BASH)]).rstrip(), 1)
    assert frame.warning is None and frame.kind == "event"
    assert not [r for r in run([init(), denied(BASH)]) if isinstance(r, R.Warning)]
    # an assistant line whose message is a string is still damage, said so
    odd = {"type": "assistant", "session_id": SESSION, "message": "not an API message"}
    assert decode_line(text([odd]).rstrip(), 1).warning is not None


def test_a_denial_in_a_sub_agent_sits_in_the_sub_agents_lane_and_a_denied_agent_call_opens_no_lane() -> None:
    inner = "toolu_01InnerBash"
    relays = run([init(), call("a-1", "m1", AGENT, "Agent", {"subagent_type": "Explore", "description": "map"}),
                  call("s-1", "m2", inner, "Bash", {"command": "rm -rf build"}, parent=AGENT),
                  {**denied(inner), "parent_tool_use_id": AGENT}])
    assert _denial(relays).lane == AGENT
    refused = "toolu_01AgentRefused"
    relays = run([init(), call("a-1", "m1", refused, "Agent", {"subagent_type": "Explore", "description": "x"}),
                  denied(refused, "Agent", "Permission to use Agent has been denied."),
                  answer("u-1", refused, "Permission denied", error=True)])
    assert _denial(relays).lane == "main"
    assert [r.lane for r in relays if isinstance(r, R.LaneStart)] == ["main"]


def test_denial_words_from_missing_or_mistyped_fields() -> None:
    assert meaning.summarize("system", "permission_denied", {}) == "permission denied: tool call"
    assert meaning.summarize("system", "permission_denied", {"tool_name": 3, "message": ["x"]}) == \
        "permission denied: tool call"
    assert meaning.call_of(run([init(), {**denied(BASH), "tool_use_id": 7}])[-1]) is None


def test_text_output_names_the_refused_call_and_colours_the_row_as_an_error() -> None:
    data = text(a_run_with_two_agents())
    out = cli("translate", "-f", "text", data=data).splitlines()
    seq = next(line for line in out if "Bash: git push origin main" in line).split()[0]
    (row,) = [line for line in out if "permission denied" in line]
    assert row.endswith(f"has been denied. · call #{seq}")
    painted = cli("translate", "-f", "text", "--color", "always", data=data).splitlines()
    (row,) = [line for line in painted if "permission denied" in line]
    assert "\x1b[31msystem" in row  # the type column in red, as an error result's
