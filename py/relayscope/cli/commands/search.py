"""``relayscope search``: the sessions a query matches, their matching rows as ``FILE:LINE``
(``libsearch.search`` over the library of the folders named), or NDJSON, one object per session."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO

import msgspec

from ... import library as L
from ...inputs import STDIN
from ...libsearch import Hit, Progress, Unsupported, search
from ...termsafe import safe
from ..errors import UsageError
from ..library import Library, Say, Unpack, cut, list_sessions, say_skipped
from ..reading import named
from ..terminal import err, stdout

if TYPE_CHECKING:
    import argparse


def cmd_search(args: argparse.Namespace, unpack: Unpack | None = None) -> int:
    if STDIN in args.inputs:
        raise UsageError(f"- (stdin): {args.command} reads files and folders; save the transcript to a file")
    named(args.inputs)  # a typo is a usage error before anything is read
    return run_search(args.inputs, args.query, stdout(), err, as_json=args.json, unpack=unpack)


class _HitJson(msgspec.Struct):
    schema: int
    session: str
    title: str | None
    project: str | None
    count: int | None
    matches: list[dict[str, object]]


def run_search(names: list[str], query: str, out: BinaryIO, say: Say, *, as_json: bool,
               progress: Callable[[Progress], None] | None = None, unpack: Unpack | None = None) -> int:
    """``relayscope search``: 0 when something matched, 1 when nothing did (as grep), 2 for a
    query the library cannot run."""
    lib = Library(names, unpack)
    items, skipped = list_sessions(lib, lazy=True)  # the summaries of the sessions found only
    say_skipped(skipped, say)
    found = 0
    try:
        steps = search(query, items, lib, complete=lambda s, g: L.complete(s, g, lib.peek))
        for step in steps:
            if isinstance(step, Progress):
                if progress is not None:
                    progress(step)
                continue
            found += 1
            _write_hit(out, step, as_json)
    except Unsupported as exc:
        say(f"relayscope: {exc}")
        return 2
    if not as_json:
        out.write(f"{found} session{'s' if found != 1 else ''} matched\n".encode())
    out.flush()
    return 0 if found else 1


def _write_hit(out: BinaryIO, hit: Hit, as_json: bool) -> None:
    s = hit.summary
    if as_json:
        obj = _HitJson(L.SCHEMA, hit.session, s.title, s.project, hit.count,
                       [{"file": m.file, "line": m.line, "text": m.text} for m in hit.matches])
        out.write(msgspec.json.encode(obj) + b"\n")
        return
    count = "every row" if hit.count is None else f"{hit.count} matching row{'s' if hit.count != 1 else ''}"
    out.write(f"== {safe(hit.session)}  {cut(s.title or '-', 50)}  ({cut(s.project or '-', 30)}; {count})\n"
              .encode())
    for m in hit.matches:
        out.write(f"{safe(m.file)}:{m.line}: {cut(m.text, 100)}\n".encode())
    if hit.count is not None and hit.count > len(hit.matches):
        out.write(f"... and {hit.count - len(hit.matches)} more\n".encode())
