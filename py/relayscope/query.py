"""query: the search language, one grammar for the workspace and the library.

A search is free words (any case; a quoted phrase is one word) and scoped terms ``key:value`` (a
value may be quoted: ``lane:"Explore: search"``). The workspace knows ``tool:``, ``lane:`` and
``is:`` (``TERMS``); the library adds ``file:``, ``model:``, ``cli:`` and ``project:``
(``LIBRARY_TERMS``). A key the caller does not know, or an ``is:`` value not in ``IS``, is
searched for as text ("http://x" stays a word). Also here: what a relay's detail reads as for the
search (:func:`searchable_detail`) and what ``is:error`` finds (:func:`is_error`), for the page's
rows and the library's sessions alike.

Pure: no I/O; imports ``relay`` and ``meaning`` only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

import msgspec

from . import meaning
from . import relay as R

__all__ = ["IS", "LIBRARY_TERMS", "TERMS", "Query", "is_error", "parse", "searchable_detail"]

TERMS: Final = {
    "tool": "a call of this tool or its result (the name, any case: tool:bash)",
    "lane": "rows of the lanes whose id starts with, or whose label holds, the value",
    "is": "error (error records, error results, failed lanes) or lost (blocks the strategy never emits)",
}
LIBRARY_TERMS: Final = {
    **TERMS,
    "file": "calls that read or write a file whose path holds the value (file:auth.py)",
    "model": "sessions that used a model whose id holds the value (model:opus)",
    "cli": "sessions run by a Claude Code version that starts with the value (cli:2.1.2)",
    "project": "sessions of a project whose path holds the value (project:relayscope)",
}
IS: Final = ("error", "lost")
_TOKEN: Final = re.compile(r'(\w+):"([^"]*)"?|"([^"]*)"?|(\S+)')
_encode: Final = msgspec.json.Encoder().encode
_DETAIL_SKIP: Final = ("type", "seq", "line", "lane", "file")  # identity, not content: no row shows them as text


class Query(msgspec.Struct, frozen=True):
    """A search: its free words (lower-cased; a quoted phrase is one) and its scoped terms."""

    words: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    lanes: tuple[str, ...] = ()
    flags: frozenset[str] = frozenset()
    files: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    clis: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.words or self.tools or self.lanes or self.flags or self.files or self.models
                    or self.clis or self.projects)

    @property
    def lost(self) -> bool:
        return "lost" in self.flags

    @property
    def scoped(self) -> bool:
        """Whether a row must be translated to be matched (a term of the rows, not of the words)."""
        return bool(self.tools or self.lanes or self.flags or self.files)


_FIELDS: Final = {"tool": "tools", "lane": "lanes", "file": "files", "model": "models", "cli": "clis",
                  "project": "projects"}


def parse(text: str, terms: Mapping[str, str] = TERMS) -> Query:
    """The search ``text`` as a Query; only the keys of ``terms`` are scoped (the rest are words)."""
    words: list[str] = []
    scoped: dict[str, list[str]] = {k: [] for k in terms}
    for m in _TOKEN.finditer(text):
        key, quoted_value, phrase, bare = m.groups()
        if key is None and bare is not None and ":" in bare:
            key, _, value = bare.partition(":")
        else:
            value = quoted_value if key is not None else None
        if key is not None and value is not None:
            k = key.lower()
            if k in scoped and value.strip() and (k != "is" or value.lower() in IS):
                scoped[k].append(value.strip().lower())
                continue
            words.append(f"{key}:{value}".lower())
            continue
        word = phrase if phrase is not None else bare
        if word and word.strip():
            words.append(word.strip().lower())
    fields = {_FIELDS[k]: tuple(v) for k, v in scoped.items() if k in _FIELDS}
    return Query(tuple(words), flags=frozenset(scoped.get("is", [])), **fields)


def is_error(r: R.Relay) -> bool:
    """What ``is:error`` finds: error records and results, lanes that ended failing, failed turns,
    and the records the meaning table calls failures (a refused tool call, for one)."""
    return r.type == "error" or bool(getattr(r, "is_error", False)) or meaning.is_error(r)


def searchable_detail(r: R.Relay) -> str:
    """A relay's detail as the search reads it: its content (a call's input and a result's output
    as they came, not indented), without what says where it is."""
    if isinstance(r, R.TextDelta | R.ThinkingDelta | R.UserMessage):
        return r.text
    if isinstance(r, R.ToolUse):
        return f"{r.name} {r.id} {bytes(r.input).decode('utf-8', 'replace')}"
    if isinstance(r, R.ToolResult):
        return f"{'error result' if r.is_error else 'result'} {r.tool_use_id} {r.text}"  # the id: as its call's
    return _encode({k: v for k, v in R.to_dict(r).items() if k not in _DETAIL_SKIP}).decode("utf-8", "replace")
