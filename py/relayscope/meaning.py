"""meaning: what each Claude Code record type and ``system`` subtype is, as one table of data.

Theory of operation
-------------------
Claude Code keeps adding record types (``rate_limit_event``, session files' ``ai-title``, ...) and
``system`` subtypes (``task_updated``, ``thinking_tokens``, ``model_refusal_fallback``, ...).
The translator acts on a few (``assistant``, ``user``, ``result``, ``stream_event``, ``system/init``)
and passes every other one through whole (``system`` and ``passthrough`` relays). This module
says, for each one it knows, the one thing a reader needs first (h11-style: a table, not ifs):

* its **place** - ``content`` (what the model or a command said: shown), ``lifecycle`` (how the
  run went: a task started, a retry, a rate limit, a compaction: shown) or ``bookkeeping``
  (Claude Code's own books: hidden on the page until asked for);
* a one-line **summary** made from its fields, tolerant of fields missing or of another type
  (a field of the wrong type reads as absent, never raises);
* for a few, what a reader follows from it: whether it reports a failure (``error``: drawn as an
  error row), the field naming the tool call it is about (``call``: a permission denial's refused
  call, a heartbeat's Agent call) and the field holding a web address to open (``link``: where a
  change was published). ``call_of`` and ``link_of`` read them off a relay; a link is given only
  when it is an ``http(s)`` address of the characters a URI may hold, and always as text.

``RECORDS`` holds the top-level types, ``SYSTEM`` the ``system`` subtypes. ``KNOWN_FIELDS``
lists the top-level fields this version knows (read by ``drift``). ``task_state`` is the state a
``task_*`` event gives its task's lane (``running``, ``completed``, ``failed``).

Sources: PROTOCOL.md sections 5 to 8 (the shapes real captures carry, and those reported
since) and the captures in tests/fixtures/real (CLI 2.1.143 to 2.1.233).

No state; imports only ``relay``. Must not decide de-duplication or lanes (the translator does);
the web page's bookkeeping filter, ``present``'s summaries and ``drift`` read this table.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Mapping
from typing import Any, Final, NamedTuple

import msgspec

from . import relay as R

__all__ = [
    "BOOKKEEPING",
    "CONTENT",
    "FIELD_MEANINGS",
    "KNOWN_FIELDS",
    "LIFECYCLE",
    "NOTED_FIELDS",
    "RECORDS",
    "SYSTEM",
    "FieldMeaning",
    "Meaning",
    "call_of",
    "elapsed_words",
    "field_words",
    "init_words",
    "is_bookkeeping",
    "is_error",
    "link_of",
    "meaning_of",
    "place_of",
    "relay_fields",
    "relay_summary",
    "result_words",
    "summarize",
    "task_state",
    "usage_words",
    "years_words",
]

CONTENT: Final = "content"
LIFECYCLE: Final = "lifecycle"
BOOKKEEPING_PLACE: Final = "bookkeeping"

Fields = Mapping[str, Any]
_any: Final = msgspec.json.Decoder()


# --- tolerant field access: a value of the wrong type is no value ------------------------------


def _s(obj: Fields, key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) and value else None


def _n(obj: Fields, key: str) -> int | float | None:
    value = obj.get(key)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _d(obj: Fields, *keys: str) -> Fields:
    for key in keys:
        value = obj.get(key)
        if isinstance(value, dict):
            return value
    return {}


def _join(*parts: str | None) -> str:
    return " · ".join(p for p in parts if p)


def _secs(ms: int | float | None) -> str | None:
    return None if ms is None else f"{ms / 1000:.1f} s"


def _tokens(n: int | float | None) -> str | None:
    return None if n is None else f"{int(n):,} tokens"


def _when(epoch: int | float | None) -> str | None:
    if epoch is None:
        return None
    try:
        return datetime.datetime.fromtimestamp(float(epoch), datetime.UTC).strftime("resets %Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):
        return None


YEAR_S: Final = 365.25 * 86_400
MOST_YEARS: Final = 1_000  # past it, a length is "more than 1,000 years" (the input said 1e308 s)


def years_words(seconds: float) -> str | None:
    """A length of a year or more as ``more than N years`` (N at most :data:`MOST_YEARS`: no
    real run lasts that long, and 1e308 s would print as 300 digits), else None. Every duration
    formatter asks this first."""
    if seconds < YEAR_S or seconds != seconds:  # NaN: not a length at all, left to the caller
        return None
    years = seconds / YEAR_S
    if years >= MOST_YEARS:
        return f"more than {MOST_YEARS:,} years"
    n = int(years)
    return f"more than {n:,} year{'' if n == 1 else 's'}"


def elapsed_words(seconds: int | float) -> str:
    """A running time for people: ``30 s``, ``2m 05s``, ``1h 02m``; ``more than 3 years``."""
    if (long := years_words(seconds)) is not None:
        return long
    s = max(0, round(seconds)) if seconds == seconds else 0
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


# --- summaries, one per shape --------------------------------------------------------------


def _rate_limit(o: Fields) -> str:
    info = _d(o, "rate_limit_info")
    return _join("rate limit " + (_s(info, "status") or "?"), _s(info, "rateLimitType"),
                 _when(_n(info, "resetsAt")), "using overage" if info.get("isUsingOverage") is True else None)


def _task_started(o: Fields) -> str:
    kind = _s(o, "task_type") or "task"
    depth = _n(o, "spawn_depth")
    return _join(f"{kind} started: {_s(o, 'description') or _s(o, 'task_id') or '?'}",
                 "in the background" if o.get("is_backgrounded") is True else None,
                 _s(o, "workflow_name"), f"depth {depth}" if depth is not None else None)


def _task_progress(o: Fields) -> str:
    usage = _d(o, "usage")
    uses = _n(usage, "tool_uses")
    return _join(_s(o, "description") or _s(o, "task_id") or "task progress", _s(o, "last_tool_name"),
                 f"{uses} tool uses" if uses is not None else None, _tokens(_n(usage, "total_tokens")))


def _task_updated(o: Fields) -> str:
    patch = _d(o, "patch")
    return _join(f"task {_s(o, 'task_id') or '?'} → {_s(patch, 'status') or 'updated'}", _s(o, "description"))


def _task_notification(o: Fields) -> str:
    usage = _d(o, "usage")
    return _join(f"task {_s(o, 'status') or 'notification'}: {_s(o, 'summary') or _s(o, 'task_id') or '?'}",
                 _tokens(_n(usage, "total_tokens")), _secs(_n(usage, "duration_ms")))


def _thinking_tokens(o: Fields) -> str:
    delta = _n(o, "estimated_tokens_delta")
    if delta is None:
        delta = _n(o, "delta")
    est = _n(o, "estimated_tokens")
    return "thinking: " + (f"~{int(est):,} tokens" if est is not None else "tokens") + (
        f" (+{int(delta):,})" if delta is not None else "")


def _api_retry(o: Fields) -> str:
    attempt, most = _n(o, "attempt"), _n(o, "max_retries")
    status = _n(o, "error_status")
    return _join("API retry" + (f" {attempt}/{most}" if attempt is not None and most is not None else ""),
                 f"in {_secs(_n(o, 'retry_delay_ms'))}" if _n(o, "retry_delay_ms") is not None else None,
                 " ".join(x for x in (str(status) if status is not None else None, _s(o, "error")) if x) or None)


def _status(o: Fields) -> str:
    return _join(f"status: {_s(o, 'status') or 'idle'}", _s(o, "compact_result"), _s(o, "compact_error"))


def _compact(o: Fields) -> str:
    meta = _d(o, "compact_metadata", "compactMetadata")
    pre = _n(meta, "pre_tokens") or _n(meta, "preTokens")
    post = _n(meta, "post_tokens") or _n(meta, "postTokens")
    size = f"{int(pre):,} → {int(post):,} tokens" if pre is not None and post is not None else _tokens(pre)
    return _join("conversation compacted", _s(meta, "trigger"), size)


def _hook(o: Fields) -> str:
    sub = _s(o, "subtype") or "hook"
    name = _s(o, "hook_name") or _s(o, "hook_event") or "hook"
    what = {"hook_started": "started", "hook_response": "answered", "hook_progress": "running"}.get(sub, sub)
    code = _n(o, "exit_code")
    return _join(f"hook {name} {what}", _s(o, "outcome"), f"exit {code}" if code is not None else None)


def _stop_hooks(o: Fields) -> str:
    count = _n(o, "hookCount")
    errors = o.get("hookErrors")
    return _join(f"stop hooks: {count if count is not None else '?'} ran",
                 f"{len(errors)} error(s)" if isinstance(errors, list) and errors else None,
                 "prevented continuation" if o.get("preventedContinuation") is True else None)


def _turn_duration(o: Fields) -> str:
    count = _n(o, "messageCount")
    return _join("turn took " + (_secs(_n(o, "durationMs") or _n(o, "duration_ms")) or "?"),
                 f"{count} messages" if count is not None else None)


def _local_command(o: Fields) -> str:
    return "local command: " + (_s(o, "content") or _s(o, "command") or "?")


def _notification(o: Fields) -> str:
    return _join(f"notification {_s(o, 'key') or ''}".strip(), _s(o, "text") or _s(o, "message"), _s(o, "priority"))


def _post_turn(o: Fields) -> str:
    return _join(_s(o, "status_category") or "turn summary", _s(o, "status_detail"),
                 f"needs: {_s(o, 'needs_action')}" if _s(o, "needs_action") else None)


def _refusal(o: Fields) -> str:
    uuids = o.get("retracted_message_uuids")
    n = sum(isinstance(u, str) for u in uuids) if isinstance(uuids, list) else 0
    return _join(f"model refusal: {n} message(s) retracted", "conversation reset" if o.get("conversation_reset") is True
                 else None, _s(o, "model") or _s(o, "fallback_model"))


def _text_field(label: str, *keys: str) -> Callable[[Fields], str]:
    def summary(o: Fields) -> str:
        return _join(label, *(_s(o, k) for k in keys))
    return summary


def _session_record(label: str, *keys: str) -> Callable[[Fields], str]:
    return _text_field(label, *keys)


def _progress(o: Fields) -> str:
    data = _d(o, "data")
    return _join("progress", _s(data, "type"), _s(data, "hookName") or _s(data, "hook_name"), _s(o, "toolUseID"))


def _queue(o: Fields) -> str:
    return _join("queue", _s(o, "operation"), _s(o, "content"))


def _attachment(o: Fields) -> str:
    att = _d(o, "attachment")
    return _join("attachment", _s(att, "type"), _s(att, "hookName") or _s(att, "filename") or _s(att, "content"))


def _control(o: Fields) -> str:
    inner = _d(o, "response", "request")
    return _join(_s(o, "type") or "control", _s(inner, "subtype"), _s(inner, "error"))


def _plain(label: str) -> Callable[[Fields], str]:
    return lambda o: label


def _heartbeat(o: Fields) -> str:
    elapsed = _n(o, "elapsed_time_seconds")
    what = _s(o, "tool_name") or _s(o, "subagent_type") or "tool"
    running = f"{what} running" + (f", {elapsed_words(elapsed)}" if elapsed is not None else "")
    return _join("heartbeat" if o.get("heartbeat") is True else "tool progress", running)


def _denied(o: Fields) -> str:
    return _join("permission denied: " + (_s(o, "tool_name") or "tool call"), _s(o, "decision_reason_type"),
                 _s(o, "message"))


def _vcs(o: Fields) -> str:
    return _join("repository changed: " + (_s(o, "kind") or "?"), _s(o, "cwd"))


def _published(o: Fields) -> str:
    action = _s(o, "action")
    ident = _s(o, "identifier")
    if ident is None and _n(o, "identifier") is not None:
        ident = str(_n(o, "identifier"))
    where = " ".join(p for p in (_s(o, "repo"), f"#{ident}" if ident and ident.isdigit() else ident) if p)
    return _join("change published" + (f" ({action})" if action else ""), _s(o, "provider"), where or None,
                 _s(o, "url"))


def _bridge(o: Fields) -> str:
    text = _s(o, "content") or ""
    active = "remote control active" if "active" in text.lower() or not text else text
    return _join(active, _s(o, "url"))


class Meaning(NamedTuple):
    place: str  # CONTENT, LIFECYCLE or BOOKKEEPING_PLACE
    summary: Callable[[Fields], str]
    error: bool = False  # it reports a failure: an error row
    call: str | None = None  # the field naming the tool call it is about
    link: str | None = None  # the field holding a web address to open


M = Meaning
# Top-level record types other than ``system``. The five the translator acts on are here too, so
# that ``drift`` knows them; their relays have summaries of their own (``present``).
RECORDS: Final[dict[str, Meaning]] = {
    "assistant": M(CONTENT, _plain("assistant message")),
    "user": M(CONTENT, _plain("user message")),
    "result": M(LIFECYCLE, _plain("result")),
    "stream_event": M(CONTENT, _plain("stream event")),
    "system": M(LIFECYCLE, _plain("system")),
    # stream-json, newer CLIs and SDK-driven sessions
    "rate_limit_event": M(LIFECYCLE, _rate_limit),
    "control_request": M(BOOKKEEPING_PLACE, _control),
    "control_response": M(BOOKKEEPING_PLACE, _control),
    "control_cancel_request": M(BOOKKEEPING_PLACE, _control),
    "command_lifecycle": M(LIFECYCLE, _text_field("command", "command", "state", "status")),
    "keep_alive": M(BOOKKEEPING_PLACE, _plain("keep-alive")),
    # a running sub-agent's heartbeat (2.1.25x, PROTOCOL.md 7): its ``tool_use_id`` is no call's;
    # the Agent call is ``parent_tool_use_id``. It says the agent is alive, and for how long.
    "tool_progress": M(BOOKKEEPING_PLACE, _heartbeat, call="parent_tool_use_id"),
    # session files (PROTOCOL.md 2, 6)
    "summary": M(BOOKKEEPING_PLACE, _session_record("summary", "summary")),
    "progress": M(BOOKKEEPING_PLACE, _progress),
    "queue-operation": M(BOOKKEEPING_PLACE, _queue),
    "file-history-snapshot": M(BOOKKEEPING_PLACE, _plain("file history snapshot")),
    "attachment": M(CONTENT, _attachment),
    "mode": M(BOOKKEEPING_PLACE, _session_record("mode", "mode")),
    "permission-mode": M(BOOKKEEPING_PLACE, _session_record("permission mode", "permissionMode", "mode")),
    "last-prompt": M(BOOKKEEPING_PLACE, _session_record("last prompt", "lastPrompt")),
    "ai-title": M(BOOKKEEPING_PLACE, _session_record("title", "aiTitle", "title")),
    "custom-title": M(BOOKKEEPING_PLACE, _session_record("title", "customTitle", "title")),
    "agent-name": M(BOOKKEEPING_PLACE, _session_record("agent name", "agentName", "name")),
    "agent-setting": M(BOOKKEEPING_PLACE, _session_record("agent setting", "agentSetting", "setting")),
    "atis-latch": M(BOOKKEEPING_PLACE, _plain("atis latch")),
    "queue": M(BOOKKEEPING_PLACE, _queue),
    "frame-link": M(BOOKKEEPING_PLACE, _plain("frame link")),
    "bridge-session": M(BOOKKEEPING_PLACE, _plain("bridge session")),
    "pr-link": M(BOOKKEEPING_PLACE, _session_record("pull request", "prUrl", "url"), link="prUrl"),
}

# ``system`` subtypes. ``init`` and ``result`` are acted on by the translator.
SYSTEM: Final[dict[str | None, Meaning]] = {
    "init": M(LIFECYCLE, _plain("session starts")),
    "result": M(LIFECYCLE, _plain("end of turn")),
    None: M(LIFECYCLE, _text_field("system", "content", "message")),  # a bare system line (1.0.51)
    "compact_boundary": M(LIFECYCLE, _compact),
    "microcompact_boundary": M(LIFECYCLE, _compact),
    "task_started": M(LIFECYCLE, _task_started),
    "task_progress": M(LIFECYCLE, _task_progress),
    "task_updated": M(LIFECYCLE, _task_updated),
    "task_notification": M(LIFECYCLE, _task_notification),
    "task_summary": M(LIFECYCLE, _text_field("task summary", "task_id", "summary")),
    "background_tasks_changed": M(LIFECYCLE, _text_field("background tasks changed", "summary")),
    "api_retry": M(LIFECYCLE, _api_retry),
    "notification": M(LIFECYCLE, _notification),
    "post_turn_summary": M(LIFECYCLE, _post_turn),
    "model_refusal_fallback": M(LIFECYCLE, _refusal),
    "peer_message_hold": M(LIFECYCLE, _text_field("peer message held", "from", "summary")),
    "informational": M(LIFECYCLE, _text_field("info", "content", "message", "text")),
    "tool_use_summary": M(LIFECYCLE, _text_field("tool use summary", "summary")),
    "away_summary": M(CONTENT, _text_field("while you were away", "content", "summary", "text")),
    # /remote-control (session files, 2.1.1xx, PROTOCOL.md 8): the session can be driven from
    # elsewhere, at ``url``; ``upgradeNudge`` is the CLI's own hint, not content
    "bridge_status": M(LIFECYCLE, _bridge, link="url"),
    "local_command": M(CONTENT, _local_command),
    "thinking_tokens": M(BOOKKEEPING_PLACE, _thinking_tokens),
    "status": M(BOOKKEEPING_PLACE, _status),
    "turn_duration": M(BOOKKEEPING_PLACE, _turn_duration),
    "stop_hook_summary": M(BOOKKEEPING_PLACE, _stop_hooks),
    "hook_started": M(BOOKKEEPING_PLACE, _hook),
    "hook_response": M(BOOKKEEPING_PLACE, _hook),
    "hook_progress": M(BOOKKEEPING_PLACE, _hook),
    "tool_progress": M(BOOKKEEPING_PLACE, _heartbeat, call="parent_tool_use_id"),
    # what the permission rules refused: a row on the refused call (its tool_result may follow)
    "permission_denied": M(LIFECYCLE, _denied, error=True, call="tool_use_id"),
    # what the run did to a repository, and where the change was published
    "vcs_state_changed": M(LIFECYCLE, _vcs),
    "code_change_published": M(LIFECYCLE, _published, link="url"),
}

# The names of the records hidden on the page until asked for: bookkeeping in either table.
BOOKKEEPING: Final = frozenset(
    [k for k, m in RECORDS.items() if m.place == BOOKKEEPING_PLACE]
    + [k for k, m in SYSTEM.items() if k is not None and m.place == BOOKKEEPING_PLACE])

# Top-level fields this version knows, beside the Structs' own (wire.Event): seen in the captures
# of tests/fixtures/real and ../shared/corpus/real, or named in PROTOCOL.md sections 5 and 6.
KNOWN_FIELDS: Final = frozenset({
    # stream-json
    "type", "subtype", "message", "parent_tool_use_id", "session_id", "uuid", "event", "model", "tools", "cwd",
    "claude_code_version", "mcp_servers", "permissionMode", "apiKeySource", "slash_commands", "output_style",
    "agents", "skills", "plugins", "capabilities", "memory_paths", "messaging_socket_path", "plugin_errors",
    "analytics_disabled", "product_feedback_disabled", "fast_mode_state", "fast_mode_disabled_reason",
    "terminal_slash_commands", "is_error", "result", "duration_ms", "duration_api_ms", "num_turns",
    "total_cost_usd", "cost_usd", "usage", "modelUsage", "permission_denials", "terminal_reason", "ttft_ms",
    "ttft_stream_ms", "time_to_request_ms", "queued_turn_count", "subagent_stats", "api_error_status", "errors",
    "stop_reason", "tool_use_result", "isReplay", "subagent_type", "task_description", "rate_limit_info",
    "request_id", "response", "request", "api_message_id", "text_runs_joined", "supersedes",
    "narration_block_indexes", "batch_tool_uses", "historical", "thinking_display", "thinking_duration_ms",
    # system subtypes' fields
    "task_id", "task_type", "tool_use_id", "description", "prompt", "spawn_depth", "is_backgrounded",
    "workflow_name", "skip_transcript", "awaited", "patch", "status", "output_file", "summary", "last_tool_name",
    "estimated_tokens", "estimated_tokens_delta", "delta", "attempt", "max_retries", "retry_delay_ms",
    "error_status", "error", "compact_result", "compact_error", "compact_metadata", "hook_id", "hook_name",
    "hook_event", "output", "stdout", "stderr", "exit_code", "outcome", "key", "text", "priority",
    "summarizes_uuid", "status_category", "status_detail", "needs_action", "retracted_message_uuids",
    "conversation_reset", "heartbeat", "tool_name", "elapsed_time_seconds", "decision_reason_type", "kind",
    "provider", "url", "repo", "identifier", "action",
    # system/init and result, 2.1.25x (PROTOCOL.md 7)
    "view_mode", "per_turn_effort_active", "scratchpad_path", "first_content_frame_ms", "result_index",
    "structured_output",
    # session files
    "parentUuid", "logicalParentUuid", "isSidechain", "userType", "sessionId", "version", "gitBranch", "slug",
    "timestamp", "requestId", "agentId", "isMeta", "isCompactSummary", "isApiErrorMessage",
    "isVisibleInTranscriptOnly", "toolUseResult", "thinkingMetadata", "todos", "level", "content", "leafUuid",
    "compactMetadata", "toolUseID", "parentToolUseID", "data", "operation", "snapshot", "messageId",
    "isSnapshotUpdate", "attachment", "lastPrompt", "entrypoint", "durationMs", "messageCount", "hookCount",
    "hookInfos", "hookErrors", "preventedContinuation", "stopReason", "hasOutput", "promptId",
    "sourceToolAssistantUUID", "mode", "aiTitle", "customTitle", "agentName", "agentSetting", "prUrl",
    "upgradeNudge",
    # fields that say where a record came from, in words on its row (FIELD_MEANINGS)
    "attributionSkill", "attributionAgent", "origin", "promptSource", "sourceToolUseID", "apiErrorStatus",
    "wire_tool_inputs",
    # capture artifacts (PROTOCOL.md 5): a recorder's timestamp key on every line
    "_t",
})


def meaning_of(record_type: str | None, subtype: str | None = None) -> Meaning | None:
    """The table's row for a record (``subtype`` read for ``system`` records only); None when
    this version does not know it."""
    if record_type == "system":
        return SYSTEM.get(subtype)
    return RECORDS.get(record_type) if record_type is not None else None


def place_of(record_type: str | None, subtype: str | None = None) -> str | None:
    found = meaning_of(record_type, subtype)
    return found.place if found is not None else None


def summarize(record_type: str | None, subtype: str | None, fields: Any) -> str:
    """A record's one-line summary from its fields (any value: what is not an object reads as
    no fields). An unknown record says what it is and that this version does not know it."""
    obj: Fields = fields if isinstance(fields, dict) else {}
    found = meaning_of(record_type, subtype)
    if found is None:
        name = f"system/{subtype}" if record_type == "system" else str(record_type)
        return f"{name} (new to this version)"
    try:
        return found.summary(obj)
    except (TypeError, ValueError, AttributeError):  # a summary must never break a row
        return f"{record_type}/{subtype}" if record_type == "system" else str(record_type)


def _fields(data: msgspec.Raw) -> Any:
    try:
        return _any.decode(data) if data else {}
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return {}


def relay_summary(r: R.System | R.Passthrough) -> str:
    """The summary of a ``system`` or ``passthrough`` relay, from the line it carries."""
    fields = _fields(r.data)
    text = summarize("system", r.subtype, fields) if isinstance(r, R.System) else summarize(r.event_type, None, fields)
    words = field_words(fields) if isinstance(fields, dict) else []
    return _join(text, *words) if words else text


def _row(r: R.Relay) -> Meaning | None:
    if isinstance(r, R.System):
        return SYSTEM.get(r.subtype)
    if isinstance(r, R.Passthrough):
        return RECORDS.get(r.event_type) if r.event_type is not None else None
    return None


def relay_fields(r: R.System | R.Passthrough) -> Fields:
    """The line a ``system`` or ``passthrough`` relay carries, as an object (empty when it is none)."""
    value = _fields(r.data)
    return value if isinstance(value, dict) else {}


def _field(r: R.Relay, which: str) -> str | None:
    """The field of ``r``'s line that its row names as ``which`` (``call``, ``link``), as text."""
    found = _row(r)
    key = getattr(found, which) if found is not None else None
    if key is None or not isinstance(r, R.System | R.Passthrough):
        return None
    return _s(relay_fields(r), key)


def is_error(r: R.Relay) -> bool:
    """Does this ``system`` or ``passthrough`` relay report a failure (an error row)?"""
    found = _row(r)
    return found is not None and found.error


def call_of(r: R.Relay) -> str | None:
    """The id of the tool call a ``system`` or ``passthrough`` relay is about (a permission
    denial's refused call, a heartbeat's Agent call), or None."""
    return _field(r, "call")


# An address a reader may open: http(s), then only the characters RFC 3986 allows in a URI (no
# space, quote or angle bracket: no markup rides in it, no control character reaches a terminal).
_URL: Final = re.compile(r"https?://[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+\Z", re.ASCII)
MAX_URL: Final = 2048


def link_of(r: R.Relay) -> str | None:
    """The web address a ``system`` or ``passthrough`` relay points to (where a change was
    published, a pull request), when it is an ``http(s)`` address of printable characters; else
    None (the summary still shows the field as text)."""
    url = _field(r, "link")
    return url if url is not None and len(url) <= MAX_URL and _URL.match(url) else None


def init_words(extra: Fields) -> list[str]:
    """What a ``system/init`` line's fields beside the session, model and tools say to a reader
    (``session_meta.extra``): its tools when they came as text, and the run's capabilities."""
    out: list[str] = []
    if _s(extra, "tools"):
        out.append("tools given as text")
    caps = extra.get("capabilities")
    names = [c for c in caps if isinstance(c, str) and c] if isinstance(caps, list) else []
    if names:
        out.append("capabilities " + ", ".join(names))
    return out


def result_words(extra: Fields) -> list[str]:
    """What a ``result`` line's newer fields say to a reader (``turn_complete.extra``): why the run
    ended when not plainly, an API error status, and the sub-agents the CLI counted."""
    out: list[str] = []
    reason = _s(extra, "terminal_reason")
    if reason and reason != "completed":
        out.append(f"ended: {reason}")
    status = _n(extra, "api_error_status")
    if status is not None:
        out.append(f"API error {int(status)}")
    stats = _d(extra, "subagent_stats")
    spawned, failed = _n(stats, "spawned"), _n(stats, "failed")
    if spawned is not None:
        out.append(f"{int(spawned)} sub-agent{'' if spawned == 1 else 's'}"
                   + (f" ({int(failed)} failed)" if failed else ""))
    return out


# --- fields of a record that say where it came from -----------------------------------------

def _word(value: Any) -> str | None:
    """A field's value in a few words, whatever its type: text as it is, a number, yes/no, an
    object by its kind or name, a list by its length; None for nothing."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, dict):
        for key in ("kind", "type", "name", "source", "id"):
            if isinstance(value.get(key), str) and value[key]:
                return str(value[key])
        return "given" if value else None
    if isinstance(value, list):
        return f"{len(value)} item{'' if len(value) == 1 else 's'}" if value else None
    return None


def _labelled(label: str) -> Callable[[Any], str | None]:
    def words(value: Any) -> str | None:
        w = _word(value)
        return f"{label} {w}" if w else None
    return words


def _api_error(value: Any) -> str | None:
    w = _word(value)
    return f"API error {w}" if w else None


def _thought(value: Any) -> str | None:
    return f"thought {value / 1000:.1f} s" if isinstance(value, int | float) and not isinstance(value, bool) else None


def _wire_inputs(value: Any) -> str | None:
    w = _word(value)
    return None if w is None or w == "no" else "tool inputs as sent on the wire" + ("" if w in ("yes", "given") else f" ({w})")


class FieldMeaning(NamedTuple):
    what: str  # what the field says, for the meaning table's readers (docs, the page's help)
    words: Callable[[Any], str | None]  # its value on a row, or None when it says nothing


# Fields newer CLIs put on records (PROTOCOL.md 8), each with what it means and its words on the
# record's row (``-f text`` and the page): where the record came from, not what it says.
FIELD_MEANINGS: Final[dict[str, FieldMeaning]] = {
    "attributionSkill": FieldMeaning("the skill the record is attributed to", _labelled("skill")),
    "attributionAgent": FieldMeaning("the agent type the record is attributed to", _labelled("agent")),
    "origin": FieldMeaning("where the record came from (a hook, a command, the user)", _labelled("origin")),
    "promptSource": FieldMeaning("where a prompt came from", _labelled("prompt from")),
    "sourceToolUseID": FieldMeaning("the tool call the record was written for", _labelled("for call")),
    "apiErrorStatus": FieldMeaning("the HTTP status of the API error the record reports", _api_error),
    "thinking_duration_ms": FieldMeaning("how long the model thought before this frame", _thought),
    "wire_tool_inputs": FieldMeaning("the tool inputs as they were sent to the API", _wire_inputs),
    "usage.fallback_credit": FieldMeaning("usage credited back when a fallback model answered",
                                          _labelled("fallback credit")),
}
# The top-level ones, as the translator reads them off a line (``usage.*`` is read from usage).
NOTED_FIELDS: Final = tuple(k for k in FIELD_MEANINGS if "." not in k and k != "thinking_duration_ms")


def field_words(fields: Fields) -> list[str]:
    """The words of a record's top-level ``FIELD_MEANINGS`` fields, in the table's order."""
    out = []
    for key in NOTED_FIELDS:
        if key in fields:
            w = FIELD_MEANINGS[key].words(fields[key])
            if w:
                out.append(w)
    return out


def usage_words(usage: Any) -> list[str]:
    """What a usage object's newer fields say (``fallback_credit``)."""
    if not isinstance(usage, dict) or "fallback_credit" not in usage:
        return []
    w = FIELD_MEANINGS["usage.fallback_credit"].words(usage["fallback_credit"])
    return [w] if w else []


def is_bookkeeping(r: R.Relay) -> bool:
    """Is this relay one of Claude Code's own books (hidden on the page until asked for)?"""
    if isinstance(r, R.System):
        return r.subtype in BOOKKEEPING
    if isinstance(r, R.Passthrough):
        return r.event_type in BOOKKEEPING
    return False


# What a task event says of its task's state (``task_updated`` in its ``patch``).
_STATES: Final = {"running": "running", "pending": "running", "in_progress": "running", "started": "running",
                  "completed": "completed", "succeeded": "completed", "success": "completed", "done": "completed",
                  "failed": "failed", "error": "failed", "killed": "failed", "stopped": "failed",
                  "cancelled": "failed", "canceled": "failed"}


def task_state(subtype: str | None, fields: Any) -> str | None:
    """The state (``running``, ``completed``, ``failed``) a ``task_*`` system event gives its task,
    or None when it says none (or is no task event)."""
    if not isinstance(fields, dict) or not subtype or not subtype.startswith("task_"):
        return None
    if subtype in ("task_started", "task_progress"):
        return "running"
    status = fields.get("status")
    if subtype == "task_updated":
        patch = fields.get("patch")
        status = patch.get("status") if isinstance(patch, dict) else status
    return _STATES.get(status) if isinstance(status, str) else None
