"""wire: one line of text -> one typed input frame. Never raises on bad input.

Theory of operation
-------------------
Every physical input line becomes exactly one :class:`Frame`:

* ``kind="blank"``  - an empty or whitespace-only line;
* ``kind="event"``  - a JSON object, decoded into the flat :class:`Event` Struct;
* ``kind="error"``  - anything else (not JSON, not an object), with a short reason.

Decoding uses msgspec Structs, which skip every field we do not name, so most of a
real line (tool output, signatures, ``modelUsage`` ...) is never materialised. Heavy
payloads we pass on unchanged (``tool_use.input``, ``tool_result.content``, ``result``,
``usage``) are kept as :class:`msgspec.Raw` and decoded only when needed.

A line that is valid JSON but does not fit the Structs (``"type": 5``, a block that is a
string, ...) is decoded generically and *salvaged* field by field: what fits is kept, what
does not is dropped and named in ``Frame.warning``. Odd-but-valid lines are never lost.

Damaged text keeps its line too, with a ``Frame.warning`` naming what was repaired: bytes that
are not UTF-8 become U+FFFD, and so do lone surrogates (``"\\ud83d"``, an emoji cut in half by
a JavaScript producer), which msgspec rejects. A line nested deeper than the decoder can follow
(``[[[[...`` a thousand deep) is an error frame, never a ``RecursionError``.

This module knows nothing about de-duplication, lanes or output; it must not import any
other relayscope module. No state: every line is decoded on its own (``split_lines`` and
``iter_lines`` cut text into the lines it decodes).
"""

import re
from collections.abc import Iterator
from types import UnionType
from typing import Any, Final, Union, get_args, get_origin, get_type_hints

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

__all__ = [
    "Block",
    "Delta",
    "Event",
    "Frame",
    "Message",
    "Part",
    "StreamInner",
    "Usage",
    "decode_line",
    "iter_lines",
    "repair_escapes",
    "split_lines",
    "strip_line",
    "tool_result_content",
    "tool_result_text",
    "unwrap_result",
]

EMPTY: Final = Raw(b"")
Number = int | float


# ``gc=False`` on every decoded Struct: a decoded line is a tree (no reference cycles), so the
# cyclic GC need not track the few dozen objects each line allocates.


class Usage(Struct, gc=False):
    """Token usage of one API message (Anthropic's field names)."""

    input_tokens: Number | None = None
    output_tokens: Number | None = None
    cache_creation_input_tokens: Number | None = None
    cache_read_input_tokens: Number | None = None


class Part(Struct, gc=False):
    """An item of a tool_result's content array (text, image, tool_reference ...)."""

    type: str | None = None
    text: str | None = None
    source: Raw = EMPTY
    tool_name: str | None = None


class Block(Struct, gc=False):
    """One content block, flat: every block type's fields in one Struct, so that a block
    type invented tomorrow still decodes (its unknown fields are skipped)."""

    type: str | None = None
    text: str | None = None
    thinking: str | None = None
    signature: str | None = None
    data: str | None = None  # redacted_thinking
    id: str | None = None
    name: str | None = None
    input: Raw = EMPTY
    tool_use_id: str | None = None
    content: Raw = EMPTY  # tool_result: str | list[part] | null (seeds/003), read on demand
    is_error: bool | None = None
    source: Raw = EMPTY  # image / document


class Message(Struct, gc=False):
    id: str | None = None
    model: str | None = None
    role: str | None = None
    content: list[Block] | str | None = None
    usage: Usage | None = None
    stop_reason: str | None = None


class Delta(Struct, gc=False):
    type: str | None = None
    text: str | None = None
    thinking: str | None = None
    partial_json: str | None = None
    signature: str | None = None
    stop_reason: str | None = None
    estimated_tokens: Number | None = None  # a thinking_delta with no text: the CLI's estimate


class StreamInner(Struct, gc=False):
    """The raw Anthropic streaming event inside a ``stream_event`` line."""

    type: str | None = None
    index: int | None = None
    message: Message | None = None
    content_block: Block | None = None
    delta: Delta | None = None
    usage: Usage | None = None


class Event(Struct, gc=False):
    """A decoded input line: the union of the fields of every event type we act on."""

    type: str | None = None
    subtype: str | None = None
    message: Message | None = None
    # UNSET (key absent, as in the seed fixtures) differs from None (top-level agent).
    parent_tool_use_id: str | UnsetType | None = UNSET
    session_id: str | None = None
    uuid: str | None = None
    # system/init
    model: str | None = None
    tools: list[Any] | None = None
    cwd: str | None = None
    claude_code_version: str | None = None
    # result
    is_error: bool | None = None
    result: Raw = EMPTY
    duration_ms: Number | None = None
    num_turns: int | None = None
    total_cost_usd: Number | None = None
    cost_usd: Number | None = None
    usage: Raw = EMPTY
    # stream_event
    event: StreamInner | None = None
    # user events with a tool result
    tool_use_result: Raw = EMPTY
    # on-disk session transcripts (camelCase there)
    isSidechain: bool | None = None
    parentUuid: str | None = None
    logicalParentUuid: str | None = None
    sessionId: str | None = None
    timestamp: str | None = None
    requestId: str | None = None
    agentId: str | None = None
    isMeta: bool | None = None
    isCompactSummary: bool | None = None
    isReplay: bool | None = None  # stream-json: a user line the CLI echoes back (--replay-user-messages)
    # stream-json --forward-subagent-text (2.1.259): a sub-agent's frames name its type and task
    subagent_type: str | None = None
    task_description: str | None = None
    toolUseResult: Raw = EMPTY
    # system task_* events
    tool_use_id: str | None = None
    description: str | None = None
    task_type: str | None = None
    # omitted thinking (PROTOCOL.md 6): the assistant frame's display mode and thinking time,
    # system/thinking_tokens' estimate
    thinking_display: str | None = None
    thinking_duration_ms: Number | None = None
    estimated_tokens: Number | None = None
    # where a record came from (session files and stream-json of 2.1.1xx+, PROTOCOL.md 8), in
    # words on its row (meaning.FIELD_MEANINGS); kept raw: their types are not settled
    attributionSkill: Raw = EMPTY
    attributionAgent: Raw = EMPTY
    origin: Raw = EMPTY
    promptSource: Raw = EMPTY
    sourceToolUseID: Raw = EMPTY
    apiErrorStatus: Raw = EMPTY
    wire_tool_inputs: Raw = EMPTY


class Frame(Struct, gc=False):
    """One physical input line, classified. ``text`` is the line without its newline."""

    line: int
    kind: str  # "event" | "blank" | "error"
    text: str | bytes
    event: Event | None = None
    error: str | None = None
    note: str | None = None  # for the trace: how the line was read, when not plainly
    warning: str | None = None  # the line was kept but altered (salvaged fields, repaired text)


_decoder: Final = msgspec.json.Decoder(Event)
_any_decoder: Final = msgspec.json.Decoder()
_encoder: Final = msgspec.json.Encoder()


def split_lines(data: str | bytes) -> list[bytes]:
    """Physical lines on ``\\n`` only (JSON strings may hold U+2028 and friends, which
    ``str.splitlines`` would split on); a final newline ends the last line."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def iter_lines(data: str | bytes) -> Iterator[str | bytes]:
    """The lines of ``data`` as ``split_lines`` cuts them, lazily (for a look at the head of a
    large file without splitting all of it)."""
    sep: Any = "\n" if isinstance(data, str) else b"\n"
    at = 0
    while at < len(data):
        end = data.find(sep, at)
        end = len(data) if end < 0 else end
        yield data[at:end]
        at = end + 1


def strip_line(text: str | bytes) -> str | bytes:
    """The line without its line ending."""
    return text.rstrip(b"\r\n") if isinstance(text, bytes) else text.rstrip("\r\n")


def decode_line(text: str | bytes, line: int) -> Frame:
    """Classify and decode one input line. Never raises for any ``str``/``bytes`` input.

    A trailing newline stays on ``Frame.text`` for events: JSON allows trailing white space,
    and copying every line to strip it would cost more than the rest of the decode. Use
    ``strip_line`` where the line is shown or passed on. The common case - a JSON object that
    fits - is one decode; BOMs, blank lines, repairs and errors are sorted out only when it fails."""
    try:
        event = _decoder.decode(text)
        # msgspec checks the UTF-8 of the strings it decodes, not of keys it skips or of Raw
        # payloads, which are passed on: check the rest (isascii is nearly free; the common case)
        if not text.isascii() and type(text) is bytes:
            text.decode("utf-8")
        return Frame(line, "event", text, event)
    except msgspec.ValidationError as exc:
        return _salvaged(text, line, str(exc))
    except msgspec.DecodeError as exc:
        return _undecodable(text, line, exc)
    except UnicodeError:  # bytes that are not UTF-8, or a str holding lone surrogates
        return _repaired(text, line, _repair_encoding(text))
    except RecursionError:
        return _too_deep(text, line)


def _salvaged(text: str | bytes, line: int, first_problem: str) -> Frame:
    """A line that is JSON but does not fit the Structs: keep every field that does."""
    try:
        obj = _any_decoder.decode(text)
    except msgspec.DecodeError as exc:  # the typed decode stopped before the bad part
        return _undecodable(text, line, exc)
    except UnicodeError:
        return _repaired(text, line, _repair_encoding(text))
    except RecursionError:
        return _too_deep(text, line)
    if not isinstance(obj, dict):
        return Frame(line, "error", strip_line(text), error=f"not a JSON object (a {_json_kind(obj)})")
    dropped: list[str] = []
    try:
        event = _salvage(obj, Event, "$", dropped)
    except RecursionError:
        return _too_deep(text, line)
    note = f"salvaged: {first_problem}; dropped {', '.join(dropped) or 'nothing'}"
    kind = obj.get("type")
    if isinstance(kind, str):
        dropped = [p for p in dropped if (kind, p) not in OWN_TYPES]
    warning = (f"field(s) of the wrong type ignored: {', '.join(dropped[:5])}"
               f"{f' and {len(dropped) - 5} more' if len(dropped) > 5 else ''} ({first_problem})")
    return Frame(line, "event", text, event, note=note, warning=warning if dropped else None)


# Fields a documented record carries in a type of its own, not the one ``Event`` decodes them as for
# the records it is made for: a ``system`` line's ``message`` is its own text (a permission
# denial's, PROTOCOL.md 7), not an API message; ``tools`` comes as one string in captures their
# authors redacted. Read as absent and no damage to warn of: the line is passed on whole.
OWN_TYPES: Final = frozenset({("system", "$.message"), ("system", "$.tools")})


def _too_deep(text: str | bytes, line: int) -> Frame:
    return Frame(line, "error", strip_line(text), error="nested too deeply to decode (arrays or objects "
                 "inside each other hundreds of levels deep)")


# A JSON string escape of a lone UTF-16 surrogate (an escaped backslash is consumed first, so
# ``\\ud83d`` - a backslash, then text - is left alone; a valid pair is kept).
_ESCAPES: Final = re.compile(
    r"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(\\u[dD][89a-fA-F][0-9a-fA-F]{2})")
_ESCAPES_B: Final = re.compile(_ESCAPES.pattern.encode())
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _repair_encoding(text: str | bytes) -> str:
    """Text that msgspec cannot read as UTF-8, with the bad parts replaced by U+FFFD."""
    if isinstance(text, bytes):
        return text.decode("utf-8", "replace")
    return _SURROGATE.sub("\ufffd", text)


def repair_escapes(text: str | bytes) -> str | bytes | None:
    """``text`` with its lone surrogate escapes replaced by U+FFFD's; None if it has none."""
    count = 0

    def one(m: re.Match[Any]) -> Any:
        nonlocal count
        if m.group(1) is None:
            return m.group(0)
        count += 1
        return b"\\ufffd" if isinstance(text, bytes) else "\\ufffd"

    if isinstance(text, bytes):
        fixed: str | bytes = _ESCAPES_B.sub(one, text)
    else:
        fixed = _ESCAPES.sub(one, text)
    return fixed if count else None


def _repaired(text: str | bytes, line: int, fixed: str | bytes, what: str = "bytes that are not UTF-8") -> Frame:
    """Decode the repaired text of a line. An event's frame carries the text as repaired (every
    repair: one may uncover the next), so that what is passed on whole is valid UTF-8."""
    frame = decode_line(fixed, line)
    message = f"{what} replaced with U+FFFD"
    frame.warning = f"{message}; {frame.warning}" if frame.warning else message
    return frame


def _undecodable(text: str | bytes, line: int, exc: msgspec.DecodeError) -> Frame:
    """A line msgspec would not decode: blank, behind a byte-order mark, repairable or bad."""
    if isinstance(text, bytes):
        unmarked: str | bytes = text.removeprefix(b"\xef\xbb\xbf")
    else:
        unmarked = text.removeprefix("\ufeff")
    if not unmarked or unmarked.isspace():
        return Frame(line, "blank", strip_line(unmarked))
    if len(unmarked) < len(text):
        return decode_line(unmarked, line)
    stripped = strip_line(text)
    if len(stripped) < len(text):  # said of the line itself, whether or not its newline came with it
        return decode_line(stripped, line)
    if isinstance(text, bytes) and "UTF-8" in str(exc) and not _is_utf8(text):
        # msgspec >= 0.23 says so itself (a DecodeError); earlier ones raised UnicodeDecodeError
        return _repaired(text, line, _repair_encoding(text))
    if "surrogate" in str(exc) or "truncated" in str(exc):
        fixed = repair_escapes(text)
        if fixed is not None:
            return _repaired(text, line, fixed, "lone surrogate escape(s)")
    return Frame(line, "error", strip_line(text), error=f"not valid JSON: {exc}")


def _is_utf8(text: bytes) -> bool:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _json_kind(obj: object) -> str:
    return {list: "array", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(obj), "null"
    )


_hints_cache: dict[type, dict[str, Any]] = {}


def _salvage(obj: dict[str, Any], cls: type[Struct], path: str, dropped: list[str]) -> Any:
    """Build ``cls`` from a generic dict, keeping every field that converts and dropping
    (and naming) those that do not. Recurses into nested Structs and lists of Structs."""
    hints = _hints_cache.get(cls)
    if hints is None:
        hints = _hints_cache[cls] = get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for name in cls.__struct_fields__:
        if name not in obj:
            continue
        value = _salvage_value(obj[name], hints[name], f"{path}.{name}", dropped)
        if value is not _DROP:
            kwargs[name] = value
    return cls(**kwargs)


_DROP: Final = object()


def _salvage_value(value: Any, hint: Any, path: str, dropped: list[str]) -> Any:
    if hint is Raw:
        return Raw(_encoder.encode(value))
    try:
        return msgspec.convert(value, hint)
    except msgspec.ValidationError:
        pass
    options = get_args(hint) if get_origin(hint) in (Union, UnionType) else (hint,)
    for option in options:
        if isinstance(option, type) and issubclass(option, Struct) and isinstance(value, dict):
            return _salvage(value, option, path, dropped)
        if get_origin(option) is list and isinstance(value, list):
            (item_hint,) = get_args(option)
            items = [_salvage_value(v, item_hint, f"{path}[{i}]", dropped) for i, v in enumerate(value)]
            return [v for v in items if v is not _DROP]
    dropped.append(path)
    return _DROP


# --- payload helpers (the gotchas of seeds/003) -------------------------------------------


def unwrap_result(raw: Raw) -> str | None:
    """``result`` as text. Double-encoded results (a JSON string holding a JSON string) are
    unwrapped once, and only when the inner value is itself a string; otherwise the outer
    string is kept. A non-string ``result`` is returned as compact JSON text."""
    if not raw:
        return None
    try:
        value = _any_decoder.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return bytes(raw).decode("utf-8", "replace")
    if value is None:
        return None
    if not isinstance(value, str):
        return bytes(raw).decode("utf-8")
    stripped = value.strip()
    if len(stripped) >= 2 and stripped[0] == '"' and stripped[-1] == '"':
        try:
            inner = _any_decoder.decode(stripped)
        except msgspec.DecodeError:
            return value
        if isinstance(inner, str):
            return inner
    return value


_parts_decoder: Final = msgspec.json.Decoder(list[Part] | str | None)
EMPTY_STRING: Final = Raw(b'""')


def tool_result_content(raw: Raw) -> tuple[Raw, list[str]]:
    """``tool_result.content`` as one JSON string, whatever its shape, without decoding it
    when it already is one: tool output is most of a transcript's bytes, and a consumer that
    only forwards it never needs it as text. Returns the JSON string and the non-text block
    types summarised into it (see ``tool_result_text``)."""
    # Look at the first byte only: copying the whole (often kilobytes long) payload with
    # bytes(raw) to test it was a measurable part of every tool_result line.
    if not raw:
        return EMPTY_STRING, []
    first = memoryview(raw)[0]
    if first == 0x22:  # '"'
        return raw, []
    if first == 0x6E:  # 'n': null (a Raw is exactly one JSON value)
        return EMPTY_STRING, []
    text, others = tool_result_text(raw)
    return Raw(_encoder.encode(text)), others


def tool_result_text(raw: Raw) -> tuple[str, list[str]]:
    """``tool_result.content`` as one string, whatever its shape (string, array of blocks,
    null or absent). Text blocks are joined with newlines; other blocks (images, documents,
    tool references ...) are summarised in brackets so they are visible, never dropped.
    Returns the text and the list of non-text block types seen."""
    if not raw:
        return "", []
    try:
        content = _parts_decoder.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):  # an odd shape: show its JSON
        return bytes(raw).decode("utf-8", "replace"), ["json"]
    if content is None:
        return "", []
    if isinstance(content, str):
        return content, []
    parts: list[str] = []
    others: list[str] = []
    for item in content:
        if item.type == "text" and item.text is not None:
            parts.append(item.text)
            continue
        kind = str(item.type)
        others.append(kind)
        parts.append(_summarise_part(kind, item))
    return "\n".join(parts), others


class _Source(Struct):
    type: str | None = None
    media_type: str | None = None
    data: str | None = None


def _summarise_part(kind: str, item: Part) -> str:
    if item.source:
        try:
            source = msgspec.json.decode(item.source, type=_Source)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            source = _Source()
        size = f", {len(source.data)} base64 chars" if source.data is not None else ""
        return f"[{kind}: {source.media_type or source.type or '?'}{size}]"
    if item.tool_name is not None:
        return f"[{kind}: {item.tool_name}]"
    if item.text is not None:
        return f"[{kind}: {item.text}]"
    return f"[{kind}]"
