"""Inputs read whole: every file named or found under a named folder (``gather``, or
``FilesOnDisk`` a session at a time), a shareable file's files, redacted with ``--redact``, under
the paths they are shared as."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

from ..inputs import (
    STDIN,
    Input,
    Problem,
    display_name,
    is_share,
    is_zip,
    read_regular,
    walk,
)
from ..multifile import files_problems
from ..redact import redact_bytes
from ..sharefile import Opened, unpack
from .errors import UsageError
from .reading import Named, many, named
from .redacting import redacted_lines, redactor_of
from .reports import report_files, report_problems
from .state import current as _run

if TYPE_CHECKING:
    import argparse


def gather(items: list[Named], shares: dict[str, Opened] | None = None) -> tuple[dict[str, bytes], list[Problem]]:
    """Every file named or found under a named directory, read whole: ({name: content}, what
    could not be read). Names are as given (escaped for display when not UTF-8); a shareable
    file's files are named ``FILE/PATH``, and what it held goes into ``shares`` under FILE."""
    files: dict[str, bytes] = {}
    problems: list[Problem] = []
    for item in items:
        if isinstance(item, Input):
            if item.path == STDIN and not (len(items) == 1 and is_share(item)):
                raise UsageError("- (stdin) cannot be read together with other files or a directory" if len(items) > 1
                                 else "- (stdin): this reads files and folders; save the transcript to a file")
            _run.name, _run.line = item.name, 0
            try:
                data = item.read()
            except OSError as exc:
                problems.append(Problem(item.name, f"{exc.strerror or exc}; skipped"))
                continue
            if is_zip(data[:4]):
                _open_share(item.name, data, files, problems, shares)
                continue
            files.setdefault(item.name, data)
            continue
        found, trouble = walk(item)
        problems.extend(trouble)
        if not found and not trouble:
            raise UsageError(f"{display_name(item)}: no .jsonl transcripts in this directory")
        for path in found:
            name = display_name(path)
            if name in files:
                continue
            _run.name, _run.line = name, 0
            content = read_regular(path)
            if isinstance(content, Problem):
                problems.append(content)
            else:
                files[name] = content
    return files, problems


def read_share(name: str, data: bytes) -> tuple[dict[str, bytes], list[Problem], Opened]:
    """The files of the shareable file ``name`` (its bytes ``data``) as ``NAME/PATH``, what is
    wrong with it as problems (``NAME: ...`` or ``NAME/PATH: ...``), and all it held."""
    opened = unpack(data)
    files = {f"{name}/{path}": content for path, content in opened.files.items()}
    problems = [Problem(f"{name}/{i.path}" if i.path else name, i.message) for i in opened.issues]
    return files, problems, opened


def _open_share(name: str, data: bytes, files: dict[str, bytes], problems: list[Problem],
                shares: dict[str, Opened] | None) -> None:
    held, trouble, opened = read_share(name, data)
    problems.extend(trouble)
    for path, content in held.items():
        files.setdefault(path, content)
    if shares is not None:
        shares[name] = opened


class FilesOnDisk(Mapping[str, bytes]):
    """What :func:`gather` finds, a file on disk read when asked, not held (``export`` and
    ``stats`` read a folder a session at a time); what cannot be read again (a shareable file's
    files, stdin, a pipe) is read once and held. Names as ``gather`` gives them; a file that cannot
    be read when asked reads as empty, its problem kept in ``problems``."""

    def __init__(self, items: list[Named]) -> None:
        self.files: dict[str, str | bytes] = {}  # name -> its path, or its bytes
        self.problems: list[Problem] = []  # not said yet
        self.unreadable: list[Problem] = []
        for item in items:
            if isinstance(item, Input):
                self._named(item, len(items))
                continue
            found, trouble = walk(item)
            self.problems.extend(trouble)
            if not found and not trouble:
                raise UsageError(f"{display_name(item)}: no .jsonl transcripts in this directory")
            for path in found:
                self.files.setdefault(display_name(path), path)

    def _named(self, item: Input, count: int) -> None:
        share = is_share(item)
        if item.path == STDIN and not (count == 1 and share):
            raise UsageError("- (stdin) cannot be read together with other files or a directory" if count > 1
                             else "- (stdin): this reads files and folders; save the transcript to a file")
        if not share and item.path != STDIN and os.path.isfile(item.path):
            self.files.setdefault(item.name, item.path)
            return
        _run.name, _run.line = item.name, 0
        try:
            data = item.read()
        except OSError as exc:
            self.problems.append(Problem(item.name, f"{exc.strerror or exc}; skipped"))
            return
        held: dict[str, bytes] = {}
        if is_zip(data[:4]):
            _open_share(item.name, data, held, self.problems, None)
        else:
            held[item.name] = data
        for name, content in held.items():
            self.files.setdefault(name, content)

    def __getitem__(self, name: str) -> bytes:
        found = self.files[name]
        if isinstance(found, bytes):
            return found
        _run.name, _run.line = name, 0
        content = read_regular(found)
        if isinstance(content, Problem):
            if not any(p.name == content.name for p in self.unreadable):  # read again per session: said once
                self.unreadable.append(content)
                self.problems.append(content)
            return b""
        return content

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def renamed(self, rename: Callable[[str], str]) -> FilesOnDisk:
        """The same files under other names (their problems said with this one's)."""
        other = FilesOnDisk([])
        other.files = {rename(name): found for name, found in self.files.items()}
        other.problems, other.unreadable = self.problems, self.unreadable
        return other


def redacted_files(args: argparse.Namespace, files: dict[str, bytes]) -> dict[str, bytes]:
    """The files redacted, under their names redacted too (a project folder's name holds the
    user's)."""
    r = redactor_of(args)
    if r is None:
        return files
    for data in files.values():  # the first pass: a name any file shows is redacted in every file
        r.discover(data)
    redacted = [(name, redact_bytes(data, r)) for name, data in files.items()]
    return {r.text(name): data for name, data in redacted}  # after the data: its cwd says where a dashed name ends


def source_of(args: argparse.Namespace) -> tuple[FilesOnDisk | Iterator[bytes], Callable[[str], bytes] | None]:
    """What ``export`` and ``stats`` read: one input as it comes (a line at a time: constant
    memory), or several files (and folders) a session at a time (each session's files are read
    whole: ``read`` reads one, redacted with ``--redact``)."""
    items = named(args.file)
    if many(items):
        files = FilesOnDisk(items)
        r = redactor_of(args)
        if r is None:
            return files, None
        named_as = files.renamed(r.text)  # names are redacted too (a project folder's name holds the user's)
        return named_as, lambda name: redact_bytes(named_as[name], r)
    (source,) = [i for i in items if isinstance(i, Input)]
    _run.name, _run.line = source.name, 0

    def lines() -> Iterator[bytes]:
        try:
            yield from redacted_lines(args, source.lines(), source.live)
        except OSError as exc:
            raise UsageError(f"{source.name}: {exc.strerror or exc}") from exc
    return lines(), None


def unread(source: FilesOnDisk | Iterator[bytes], failed: bool) -> bool:
    """The files of a folder that could not be read, said on stderr; whether there were any."""
    if isinstance(source, FilesOnDisk):
        failed = report_problems(source.problems) or failed
        source.problems.clear()
    return failed


def shared_paths(files: dict[str, bytes], shares: Mapping[str, Opened]) -> dict[str, bytes]:
    """Each file under the path it is shared as: a shareable file's files under their own paths,
    any other by its path below the folder all of them share, so a session's layout (the main
    file beside its folder of sub-agent files) is kept and no machine path travels."""
    inner: dict[str, str] = {}
    plain = []
    for name in files:
        share = next((s for s in shares if name.startswith(s + "/")), None)
        if share is not None:
            inner[name] = name[len(share) + 1:]
        else:
            plain.append(name)
    where = [os.path.abspath(n) for n in plain]
    common = os.path.commonpath([os.path.dirname(w) for w in where]) if where else ""
    for name, w in zip(plain, where, strict=True):
        inner[name] = os.path.relpath(w, common).replace(os.sep, "/")
    out: dict[str, bytes] = {}
    for name, data in files.items():
        if inner[name] in out:
            raise UsageError(f"{name}: another input is already shared as {inner[name]}")
        out[inner[name]] = data
    return out


def view_of(args: argparse.Namespace, shares: Mapping[str, Opened]) -> dict[str, str]:
    """The view a shareable file or a snapshot opens at: the first shareable file's, then
    ``--view KEY=VALUE`` over it."""
    view = dict(next(iter(shares.values())).view) if shares else {}
    for pair in args.view or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--view {pair}: give KEY=VALUE (strategy=index, row=12, step=40)")
        view[key] = value
    return view


def gather_shared(args: argparse.Namespace, items: list[Named]) -> tuple[dict[str, bytes], dict[str, str], bool]:
    """The input's files under their shared paths and the view (not redacted yet), and whether
    some of it could not be read (said on stderr)."""
    shares: dict[str, Opened] = {}
    files, problems = gather(items, shares)
    failed = report_problems(problems)
    if not files:
        raise UsageError("nothing to share: no file of the input could be read")
    failed = say_unreadable(files) or failed  # passed on as they are, but said as translate says it
    return shared_paths(files, shares), view_of(args, shares), failed


def say_unreadable(files: dict[str, bytes]) -> bool:
    """What ``translate`` would call unreadable in these files (``multifile.files_problems``), said as it says it;
    True when there was some. For the commands that pass files on untranslated."""
    bad = files_problems(files)
    report_files(bad)
    return bool(bad)
