"""cli.library: what ``relayscope sessions`` and ``relayscope search`` share, the library on the command line.

Job: read what the user named (folders walked whole, files, shareable files) into the library's
rule (``library.group``) through a look at each file's ends on disk (``inputs.peek_regular``),
list the sessions (an aligned table that fits 100 columns, every string terminal-safe; or NDJSON,
one object per session, ``docs/library.md``), and search them (``libsearch.search``): ``FILE:LINE``
matches grouped by session, or NDJSON, one object per matching session. Every file the rule did
not take is said once on stderr, ``PATH: reason``.

Memory: the listing holds one session's summary per session (the ends are read again for each
session, not kept); ``--full`` and search read one session whole at a time.
Must not: import the commands (``commands.sessions`` and ``commands.search`` import it).
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Callable, Iterator
from typing import BinaryIO, Final

from .. import library as L
from ..inputs import Problem, display_name, is_share_path, peek_regular, read_regular, walk
from ..meaning import years_words
from ..termsafe import safe

__all__ = ["Library", "cut", "list_sessions", "run_sessions", "say_skipped", "table"]

Say = Callable[[str], None]
Fill = Callable[[L.Summary, L.Group, "Library"], L.Summary]  # libsearch.fill: the figures of a whole read
Unpack = Callable[[str, bytes], tuple[dict[str, bytes], list[Problem], object]]  # gathering.read_share
_CHUNK: Final = 1 << 20
_PROBE: Final = 1 << 16  # a read past the size the file had when opened
WIDTH: Final = 100
SORTS: Final = ("start", "last", "duration", "size", "project", "title")


class Library:
    """What the user named, as the library's rule sees it: paths, a peeker and a reader."""

    def __init__(self, names: list[str], unpack: Unpack | None = None) -> None:
        self.paths: list[str] = []
        self.problems: list[Problem] = []
        self.held: dict[str, bytes] = {}  # a shareable file's members (in memory: a zip has no paths on disk)
        self.named: set[str] = set()  # files named on their own: read whatever their name
        for name in names:
            if os.path.isdir(name):
                found, trouble = walk(name, every=True)
                self.paths.extend(found)
                self.problems.extend(trouble)
            elif unpack is not None and is_share_path(name):
                data = read_regular(name)
                if isinstance(data, Problem):
                    self.problems.append(data)
                    continue
                files, trouble, _opened = unpack(display_name(name), data)
                self.problems.extend(trouble)
                self.held.update(files)
                self.paths.extend(files)
            else:
                self.paths.append(name)
                self.named.add(name)

    def peek(self, path: str) -> L.Peek | str:
        if path in self.held:
            return L.peek_bytes(self.held[path])
        found = peek_regular(path, L.peek_with)
        return found.message if isinstance(found, Problem) else found

    def read(self, path: str) -> bytes:
        if path in self.held:
            return self.held[path]
        data = read_regular(path)
        if isinstance(data, Problem):
            raise OSError(data.message)
        return data

    def chunks(self, path: str) -> Iterator[bytes]:
        if path in self.held:
            data = self.held[path]
            for at in range(0, len(data), _CHUNK):
                yield data[at:at + _CHUNK]
            return
        with open(path, "rb", buffering=0) as f:
            left = os.fstat(f.fileno()).st_size
            # each read asks for no more than is left: a read of 1 MB that gets less takes the memory
            # of 1 MB anyway (fresh pages each time, 70 us a file), as much CPU as the bytes' reading
            while chunk := f.read(min(_CHUNK, left) if left > 0 else _PROBE):  # then on, if it grew
                left -= len(chunk)
                yield chunk


def list_sessions(lib: Library, fill: Fill | None = None, *, lazy: bool = False,
                  ) -> tuple[list[tuple[L.Summary, L.Group]], list[L.Skipped]]:
    """``library.listing`` of what the user named, what could not be walked skipped first;
    ``fill`` (``libsearch.fill``, for ``--full``) makes each summary whole; ``lazy``: only each
    session's id, files and size (``library.complete`` makes the rest)."""
    items, skipped = L.listing(lib.paths, lib.peek, lambda path: L.chunk_lines(lib.chunks(path)), named=lib.named,
                               fill=(lambda s, g: fill(s, g, lib)) if fill is not None else None, lazy=lazy)
    return items, [L.Skipped(p.name, p.message) for p in lib.problems] + skipped


def _sort_key(field: str) -> Callable[[tuple[L.Summary, L.Group]], tuple[object, ...]]:
    def key(item: tuple[L.Summary, L.Group]) -> tuple[object, ...]:
        s = item[0]
        value: object = {"start": s.start, "last": s.last_activity, "duration": s.duration_s, "size": s.size,
                         "project": s.project, "title": s.title}[field]
        return (value is None, value if value is not None else 0, s.start or "", s.session)
    return key


def _when(iso: str | None) -> str:
    if not iso:
        return "-"
    try:
        t = _dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return "-"
    return t.strftime("%Y-%m-%d %H:%M")


def _duration(s: float | None) -> str:
    if s is None:
        return "-"
    if (long := years_words(s)) is not None:
        return long
    s = int(s)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def _size(n: int) -> str:
    for unit in ("B", "K", "M", "G"):
        if n < 1024 or unit == "G":
            return f"{n}{unit}" if unit == "B" else f"{n:.1f}{unit}" if n < 10 else f"{n:.0f}{unit}"
        n = n / 1024  # type: ignore[assignment]
    return f"{n}"


def cut(text: str, width: int) -> str:
    text = safe(" ".join(text.split()))
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def _tokens(n: int | None) -> str:
    if n is None:
        return "-"
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.0f}k" if n >= 1e3 else str(n)


def table(items: list[tuple[L.Summary, L.Group]], width: int = WIDTH, full: bool = False) -> str:
    """The sessions as aligned columns for people, each line at most ``width`` characters; every
    string from a transcript made terminal-safe (``termsafe.safe``)."""
    cols = ["START", "TIME", "SIZE", "SUB"] + (["TOOLS", "ERR", "TOKENS"] if full else [])
    rows = []
    for s, _g in items:
        row = [_when(s.start), _duration(s.duration_s), _size(s.size), str(s.subagents)]
        if full:
            row += ["-" if s.tool_calls is None else str(s.tool_calls), "-" if s.errors is None else str(s.errors),
                    _tokens(s.tokens)]
        rows.append((row, s))
    widths = [max([len(c)] + [len(r[0][i]) for r in rows]) for i, c in enumerate(cols)]
    fixed = sum(widths) + len(widths) + 9  # the columns, their gaps, the id
    rest = max(20, width - fixed)
    project_w = min(max([7] + [len(cut(s.project or "-", 60)) for s in (x[1] for x in rows)]), max(10, rest // 3))
    title_w = max(8, rest - project_w - 1)
    head = " ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cols, widths, strict=True)))
    lines = [f"{head} {'PROJECT'.ljust(project_w)} {'TITLE'.ljust(title_w)} SESSION".rstrip()]
    for row, s in rows:
        cells = " ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(row, widths, strict=True)))
        project = safe(s.project or "-")
        project = project if len(project) <= project_w else "…" + project[-(project_w - 1):]  # its end names it
        lines.append(f"{cells} {project.ljust(project_w)} {cut(s.title or '-', title_w).ljust(title_w)} "
                     f"{cut(s.session, 8)}")
    return "\n".join(lines) + "\n"


def _total_line(items: list[tuple[L.Summary, L.Group]], skipped: int, full: bool) -> str:
    projects = len({s.project for s, _ in items})
    size = sum(s.size for s, _ in items)
    words = f"{len(items)} session{'s' if len(items) != 1 else ''} in {projects} project{'s' if projects != 1 else ''}"
    words += f", {_size(size)}"
    if full:
        words += f", {sum(s.tokens or 0 for s, _ in items):,} tokens"
    if skipped:
        words += f"; {skipped} file{'s' if skipped != 1 else ''} skipped (said on stderr)"
    return words + "\n"


def say_skipped(skipped: list[L.Skipped], say: Say) -> None:
    for s in skipped:
        say(f"relayscope: {s.path}: {s.reason}")


def _failed(skipped: list[L.Skipped]) -> bool:
    """Whether anything skipped was input the user would expect read (not a name we never read, not a copy)."""
    return any(not s.reason.startswith(("not a transcript by its name", "a copy of")) for s in skipped)


def run_sessions(names: list[str], out: BinaryIO, say: Say, *, as_json: bool, sort: str, width: int | None,
                 fill: Fill | None = None, unpack: Unpack | None = None) -> int:
    """``relayscope sessions``: 0, or 1 when a file could not be read (said on stderr). ``fill``:
    ``--full`` (``libsearch.fill``); ``unpack``: how a shareable file named is read
    (``gathering.read_share``; the dispatcher loads it only when one is named)."""
    lib = Library(names, unpack)
    items, skipped = list_sessions(lib, fill)
    full = fill is not None
    items.sort(key=_sort_key(sort))
    say_skipped(skipped, say)
    if as_json:
        for at in range(0, len(items), 500):
            out.write(b"".join(L.to_json(s) + b"\n" for s, _g in items[at:at + 500]))
    else:
        out.write(table(items, width or WIDTH, full).encode())
        out.write(_total_line(items, len(skipped), full).encode())
    out.flush()
    return 1 if _failed(skipped) else 0
