"""present: one-line, human-readable summaries of relays (CLI text output, web rows).

Returns plain strings; callers render them as text, never as markup. No state; imports only
``relay``, ``describe`` (a tool call in words: ``Edit src/app.py: 3 lines → 5``) and ``meaning``
(a system or passthrough record in words); the CLI and the web page call it, nothing in the core does.
"""

from __future__ import annotations

from typing import Final

import msgspec

from . import describe, spill
from . import relay as R
from .describe import WIDTH, clip
from .meaning import init_words, relay_summary, result_words, usage_words

__all__ = ["WIDTH", "clip", "omitted_thinking", "summary", "thinking_time", "tool_input_summary"]

_any: Final = msgspec.json.Decoder()
# The keys a tool input is summed up by, in the order they are looked for.
KEY_INPUTS: Final = ("description", "command", "file_path", "pattern", "path", "url", "query", "prompt")
# Only those keys: the decoder skips the rest of the object without building it (an Edit's or a
# Write's text is most of its input).
_keys: Final = msgspec.json.Decoder(msgspec.defstruct("KeyInputs", [(k, object, None) for k in KEY_INPUTS]))


def tool_input_summary(raw: msgspec.Raw, width: int = 100) -> str:
    """A tool input's first key input (``command: pytest -q``), else all of it as JSON, clipped.
    The keys are read first without decoding the rest; anything else (not an object, not JSON,
    no key input that is text) takes the whole decode, so the result is the same."""
    if raw:
        try:
            keys = _keys.decode(raw)
        except (msgspec.DecodeError, UnicodeDecodeError):  # not JSON, not an object: as before, below
            pass
        else:
            for key in KEY_INPUTS:
                if isinstance(value := getattr(keys, key), str):
                    return clip(f"{key}: {value}", width)
    return _whole_summary(raw, width)


def _whole_summary(raw: msgspec.Raw, width: int) -> str:
    try:
        value = _any.decode(raw) if raw else {}
    except msgspec.DecodeError:
        return clip(bytes(raw).decode("utf-8", "replace"), width)
    if isinstance(value, dict):
        for key in KEY_INPUTS:
            if isinstance(value.get(key), str):
                return clip(f"{key}: {value[key]}", width)
    return clip(msgspec.json.encode(value).decode(), width)


def omitted_thinking(r: R.ThinkingDelta) -> str:
    """``thinking omitted (N tokens, T s)``: what is known of thinking the CLI left out."""
    known = [f"{r.estimated_tokens:,} tokens" if r.estimated_tokens is not None else None,
             f"{r.duration_ms / 1000:.1f} s" if r.duration_ms is not None else None]
    shown = ", ".join(k for k in known if k)
    return f"thinking omitted ({shown})" if shown else "thinking omitted"


def summary(r: R.Relay) -> str:
    """One line for ``r``, with what its line's own fields say of where it came from."""
    text = _summary(r)
    return " · ".join((text, *r.notes)) if r.notes else text


def thinking_time(r: R.ThinkingDelta) -> str | None:
    """``thought 3.2 s``: the frame's thinking time, when the CLI gave it."""
    return f"thought {r.duration_ms / 1000:.1f} s" if r.duration_ms is not None else None


def _summary(r: R.Relay) -> str:
    if isinstance(r, R.ThinkingDelta) and r.omitted:
        return omitted_thinking(r)
    if isinstance(r, R.ThinkingDelta) and r.duration_ms is not None and not r.partial:
        return f"{clip(r.text, 100) or '(empty)'} · {thinking_time(r)}"
    if isinstance(r, R.TextDelta | R.ThinkingDelta | R.UserMessage):
        text = clip(r.text) or "(empty)"
        return f"(replayed) {text}" if isinstance(r, R.UserMessage) and r.replay else text
    if isinstance(r, R.ToolUse):
        return describe.summary(r) or f"{r.name} {tool_input_summary(r.input)}"
    if isinstance(r, R.ToolResult):
        mark = "error: " if r.is_error else ""
        spilled = spill.of(r.text)
        return f"{mark}{spilled.words if spilled else clip(r.text, 120) or '(no content)'}"
    if isinstance(r, R.TurnComplete):
        parts = [r.subtype or "done"]
        if r.is_error:
            parts.append("is_error")
        if r.cost_usd is not None:
            parts.append(f"${r.cost_usd:.4f}")
        if r.num_turns is not None:
            parts.append(f"{r.num_turns} turns")
        parts += result_words(r.extra)
        parts += usage_words(r.usage)
        if r.result:
            parts.append(clip(r.result, 100))
        return " · ".join(parts)
    if isinstance(r, R.SessionMeta):
        return session_words(r)
    if isinstance(r, R.Usage):
        cache = r.cache_read_input_tokens + r.cache_creation_input_tokens
        return f"{r.input_tokens} in · {r.output_tokens} out" + (f" · {cache} cache" if cache else "")
    if isinstance(r, R.LaneStart):
        how = ", inferred" if r.inferred else ""
        if r.resumed_by:
            return f"{r.label or r.lane} (depth {r.depth}{how}) · continued by the message of call {r.resumed_by}"
        return f"{r.label or r.lane} (depth {r.depth}{how})"
    if isinstance(r, R.LaneEnd):
        return (f"lane ends{' with an error' if r.is_error else ''}" + (f" · {r.total_tokens} tokens" if r.total_tokens else "")
                + (f" · returned {clip(r.returned, 100)}" if r.returned else ""))
    if isinstance(r, R.Error | R.Warning):
        return r.message
    if isinstance(r, R.System) and r.retracts:
        seqs = ", ".join(f"#{q}" for q in r.retracts[:8]) + (" …" if len(r.retracts) > 8 else "")
        return f"{relay_summary(r)} · withdraws {seqs}"
    if isinstance(r, R.System | R.Passthrough):
        return relay_summary(r)
    if isinstance(r, R.ContentBlock):
        return r.block_type
    if isinstance(r, R.ToolCall):
        return f"{r.tool} {'ok' if r.ok else 'failed' if r.ok is False else ''}".strip()
    if isinstance(r, R.SubAgentResponse):
        return clip(r.content or "")
    if isinstance(r, R.File):
        return f"{r.path} ({r.size} bytes)"
    return r.type


def _count(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 10_000 else str(n)


def usage_figure(u: R.Usage) -> str:
    """A usage as the short figure on the row of the message it counts: the tokens it read (its
    input, cached or not) and wrote ("22.1k in · 769 out"); the parts are ``summary``'s."""
    read = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
    return f"{_count(read)} in · {_count(u.output_tokens)} out"


def session_words(r: R.SessionMeta, model: str | None = None, branch: str | None = None) -> str:
    """A session's first row, the same on the page, in ``translate -f text`` and in the snapshot
    (``words.session_row``): its id, the model (the relay's, else ``model``: the first its lane's
    messages name), version, folder, git branch, tools, and what else its init line said."""
    parts = [f"session {r.session_id or '?'}", r.model or model or "model ?"]
    if r.version:
        parts.append(f"v{r.version}")
    if r.cwd:
        parts.append(r.cwd)
    if branch:
        parts.append(f"branch {branch}")
    if r.tools:
        parts.append(f"{len(r.tools)} tools")
    parts.extend(init_words(r.extra))  # the run's capabilities and the like, as its init line says
    return " · ".join(parts)
