"""drift: the record types, ``system`` subtypes and top-level fields an input has that this
version of relayscope does not know. Drift is never silent: every unknown record still passes
through in its lane (``system`` / ``passthrough`` relays), and this report says how many there
were, of which names, so that a reader knows what no summary explains yet.

Known means: a row of ``meaning.RECORDS`` / ``meaning.SYSTEM`` (types and subtypes), a field of
``wire.Event`` or of ``meaning.KNOWN_FIELDS`` (top-level fields). A :class:`Drift` is fed the lines
of one input (``add``, line by line, in any chunking) and gives a :class:`DriftReport`: records of
each new type (``foo``, ``system/bar``), records carrying each new field, and the lines they are
on (the page's one-click filter to those rows).

Two ways in, giving the same report. ``add`` reads a line's top-level keys with a decode of its own
(``msgspec`` into raw values: nothing below the top level is materialised). ``decode`` is for a
translator: it decodes the line for it (the frame ``wire.decode_line`` gives) and notes the drift
on the way, so that a line with nothing new costs one decode, not two: the line is decoded into
``Known``, ``wire.Event`` with the top-level fields most lines carry and ``forbid_unknown_fields``;
when that fits and the type (and ``system`` subtype) is a string, the keys are all known and the
type is the event's. Any other line (a rarer or new field, no type, bad input) is decoded as
``wire.decode_line`` decodes it and counted through ``add``.

Arbiter SSE streams have another vocabulary and get no report. No I/O; bad lines are skipped (the
translator reports them). Must not import anything but ``wire``, ``meaning`` and the package root.
"""

from collections import Counter
from typing import Any, Final

import msgspec

from . import __version__
from .meaning import KNOWN_FIELDS, RECORDS, SYSTEM
from .wire import Event, Frame, decode_line

__all__ = ["Drift", "DriftByFile", "DriftReport", "Known", "describe", "drift_line", "drift_of"]

_keys: Final = msgspec.json.Decoder(dict[str, msgspec.Raw])
_text: Final = msgspec.json.Decoder(str)
FIELDS: Final = KNOWN_FIELDS | frozenset(Event.__struct_fields__)
# Top-level fields beside ``Event``'s that many lines carry (session records, system/init, result,
# progress): in ``Known``, so that those lines fit it. Few on purpose: each is a slot on every
# decoded event and a name the decoder compares keys with; a line with any other field still
# gets its exact report, through ``add``.
COMMON: Final = ("userType", "version", "gitBranch", "slug", "entrypoint", "permissionMode", "promptId",
                 "toolUseID", "parentToolUseID", "data", "sourceToolAssistantUUID", "apiKeySource",
                 "mcp_servers", "slash_commands", "output_style", "duration_api_ms", "permission_denials",
                 "modelUsage", "task_id", "last_tool_name", "request_id", "status", "messageId", "snapshot",
                 "isSnapshotUpdate", "attachment", "ttft_ms")
assert FIELDS.issuperset(COMMON), "a COMMON field must be a known one"
Known: Final = msgspec.defstruct("Known", [(f, msgspec.Raw, msgspec.Raw(b"")) for f in COMMON], bases=(Event,),
                                 forbid_unknown_fields=True, gc=False)
_known: Final[msgspec.json.Decoder[Event]] = msgspec.json.Decoder(Known)  # Known is an Event
LINES_KEPT: Final = 100_000  # lines listed for the page's filter; the counts count them all


class DriftReport(msgspec.Struct, omit_defaults=True):
    """What one input had that this version does not know. ``types``: record types and ``system``
    subtypes (``system/<name>``) -> records; ``fields``: top-level field -> records carrying it;
    ``records``: records with anything new; ``lines``: their line numbers (1-based; the first
    ``LINES_KEPT``), ``files`` the file of each when several files are reported together."""

    records: int = 0
    types: dict[str, int] = {}
    fields: dict[str, int] = {}
    version: str = __version__
    lines: list[int] = []
    files: list[str | None] = []

    @property
    def empty(self) -> bool:
        return self.records == 0


class Drift:
    """Count what is new in the lines fed (one input, or several files with ``file``)."""

    def __init__(self) -> None:
        self.records = 0
        self.types: Counter[str] = Counter()
        self.fields: Counter[str] = Counter()
        self.lines: list[int] = []
        self.files: list[str | None] = []
        self._several = False

    def add(self, line: int, text: str | bytes, file: str | None = None) -> bool:
        """One input line; True when it holds something new."""
        names = drift_line(text)
        if not names:
            return False
        kinds, fields = names
        self.records += 1
        self.types.update(kinds)
        self.fields.update(fields)
        if len(self.lines) < LINES_KEPT:
            self.lines.append(line)
            self.files.append(file)
            self._several = self._several or file is not None
        return True

    def decode(self, text: str | bytes, line: int, file: str | None = None) -> Frame:
        """``wire.decode_line(text, line)``, noting what the line has that is new (as ``add``)."""
        try:
            event: Event = _known.decode(text)
            # wire.decode_line checks the UTF-8 of what msgspec skips; a line that fails goes there
            if not text.isascii() and type(text) is bytes:
                text.decode("utf-8")
        except (msgspec.DecodeError, RecursionError, UnicodeError):  # ValidationError is a DecodeError
            frame = decode_line(text, line)
            self.add(line, text, file)
            return frame
        kind = event.type
        if kind == "system":
            sub = event.subtype
            if sub is None:  # no subtype or a null one: the reference tells them apart
                self.add(line, text, file)
            elif sub not in SYSTEM:
                self._new(line, f"system/{sub}", file)
        elif kind is None:  # no type or a null one
            self.add(line, text, file)
        elif kind not in RECORDS:
            self._new(line, kind, file)
        return Frame(line, "event", text, event)

    def _new(self, line: int, kind: str, file: str | None) -> None:
        """A record of a new type, with no new field (``Known`` has none)."""
        self.records += 1
        self.types[kind] += 1
        if len(self.lines) < LINES_KEPT:
            self.lines.append(line)
            self.files.append(file)
            self._several = self._several or file is not None

    def report(self) -> DriftReport:
        return DriftReport(self.records, dict(self.types.most_common()), dict(self.fields.most_common()),
                           lines=list(self.lines), files=list(self.files) if self._several else [])


class DriftByFile(Drift):
    """A drift count per file, for a translator that reads several (a session's files, which the
    command line reports file by file): ``by_file`` holds each file's ``Drift``, its lines
    numbered in that file and no file named in it; this object's own counts stay empty."""

    def __init__(self) -> None:
        super().__init__()
        self.by_file: dict[str | None, Drift] = {}

    def decode(self, text: str | bytes, line: int, file: str | None = None) -> Frame:
        d = self.by_file.get(file)
        if d is None:
            d = self.by_file[file] = Drift()
        return d.decode(text, line)


def drift_line(text: str | bytes) -> tuple[list[str], list[str]] | None:
    """The new type (or ``system/subtype``) and the new top-level fields of one line; None when
    nothing is new or the line is not a JSON object (a BOM before it is allowed)."""
    try:
        obj = _keys.decode(text)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        stripped: str | bytes = text.removeprefix(b"\xef\xbb\xbf") if isinstance(text, bytes) else text.removeprefix("\ufeff")
        if len(stripped) == len(text):
            return None
        try:
            obj = _keys.decode(stripped)
        except (msgspec.DecodeError, RecursionError, UnicodeError):
            return None
    kind = _name(obj.get("type"))
    kinds: list[str] = []
    if kind == "system":
        sub = _name(obj.get("subtype"))
        if sub not in SYSTEM:
            kinds.append(f"system/{sub}")
    elif kind not in RECORDS:
        kinds.append(str(kind))
    fields = [k for k in obj if k not in FIELDS]
    return (kinds, fields) if kinds or fields else None


def _name(raw: msgspec.Raw | None) -> Any:
    if raw is None:
        return None
    try:
        return _text.decode(raw)
    except (msgspec.DecodeError, RecursionError, UnicodeError):  # a name with a bad byte in it
        return "?"


def drift_of(lines: Any, file: str | None = None) -> DriftReport:
    """The report of one input's lines."""
    d = Drift()
    for number, text in enumerate(lines, 1):
        d.add(number, text, file)
    return d.report()


def describe(name: str | None, report: DriftReport) -> str | None:
    """One line for people, or None when nothing is new:
    ``NAME: 3 records of 2 types new to relayscope 0.1.0: foo (2), bar (1)``."""
    if report.empty:
        return None
    parts = []
    if report.types:
        n = sum(report.types.values())
        listed = ", ".join(f"{k} ({v})" for k, v in report.types.items())
        parts.append(f"{n} record{'s' if n != 1 else ''} of {len(report.types)} type"
                     f"{'s' if len(report.types) != 1 else ''} new to relayscope {report.version}: {listed}")
    if report.fields:
        listed = ", ".join(f"{k} ({v})" for k, v in report.fields.items())
        count = len(report.fields)
        lead = "" if report.types else f"records with fields new to relayscope {report.version}: "
        parts.append(f"{lead}{count} new field{'s' if count != 1 else ''}: {listed}")
    return f"{name}: " + "; ".join(parts) if name else "; ".join(parts)
