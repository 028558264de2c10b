"""A shareable file (or any zip of transcripts) opened: its manifest, its files checked against it."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from . import names as N  # the bounds read at each call (a test may lower them)
from .names import (
    FILES,
    MANIFEST,
    TRANSCRIPTS,
    Issue,
    Opened,
    check_path,
    is_sharefile,
)
from .zipscan import _Broken, _entries, _Entry, _listed, _manifest


def unpack(data: bytes) -> Opened:
    """Every file a shareable file holds that can be read, its view, and what was wrong (see the
    module doc). A zip made by another tool (no manifest) gives its transcripts
    (``.jsonl``, ``.ndjson``, ``.meta.json``) at their own paths, unchecked, with an issue saying so."""
    out = Opened()
    if not is_sharefile(data[:4]):
        out.issues.append(Issue(None, "not a zip file, so not a shareable file (those start with PK)"))
        return out
    entries = _entries(data, out)
    entry = next((e for e in entries if e.name == MANIFEST), None)
    listed = _listed(_manifest(data, entry, out), out) if entry is not None else {}
    if entry is None:
        members = [(e, e.name) for e in entries if e.name.lower().endswith(TRANSCRIPTS)]
        if entries:
            out.issues.append(Issue(None, f"a zip made by another tool (it has no {MANIFEST}): "
                                          + (f"its {len(members)} transcript file(s) were read unchecked" if members
                                             else "it holds no transcript (.jsonl) to read")))
    else:
        members = [(e, e.name[len(FILES):]) for e in entries if e.name.startswith(FILES) and not e.name.endswith("/")]
    _read_members(data, members, listed, out)
    return out


def _read_members(data: bytes, members: list[tuple[_Entry, str]], listed: Mapping[str, tuple[int, str]],
                  out: Opened) -> None:
    budget = N.MAX_BYTES
    cut: set[str] = set()
    for entry, name in members:
        path, why = check_path(name)
        if why is not None:
            out.issues.append(Issue(name, f"skipped: {why}"))
            continue
        if path in out.files:
            out.issues.append(Issue(path, "a second file under the same name; skipped"))
            continue
        if len(out.files) >= N.MAX_FILES:
            out.issues.append(Issue(None, f"more than {N.MAX_FILES:,} files: the rest were not read"))
            break
        if entry.size is not None and entry.size > budget:
            out.issues.append(Issue(path, f"would unpack to more than the {N.MAX_BYTES >> 20:,} MiB a shareable file "
                                          "may hold; skipped"))
            continue
        try:
            content = entry.read(data, budget + 1)
        except _Broken as exc:
            out.issues.append(Issue(path, f"{exc}; skipped"))
            continue
        if len(content) > budget:
            out.issues.append(Issue(path, f"unpacks to more than the {N.MAX_BYTES >> 20:,} MiB a shareable file may "
                                          "hold; skipped"))
            continue
        if entry.cut:
            cut.add(path)
            content = content[:content.rfind(b"\n") + 1]  # its complete lines
            out.issues.append(Issue(path, f"cut short: its first {len(content):,} bytes (complete lines) were read"))
            if not content:
                continue
        budget -= len(content)
        out.files[path] = content
        _check(path, content, listed, entry.cut, out)
    for path in listed:
        if path not in out.files:
            out.issues.append(Issue(path, "listed in the manifest but not in the file"))
    out.missing = [p for p in listed if p not in out.files or p in cut]  # one look each: linear in the listed


def _check(path: str, content: bytes, listed: Mapping[str, tuple[int, str]], cut: bool, out: Opened) -> None:
    if not listed:
        return
    if path not in listed:
        out.issues.append(Issue(path, "not listed in the manifest; read anyway"))
    elif not cut and (len(content), hashlib.sha256(content).hexdigest()) != listed[path]:
        out.issues.append(Issue(path, "its size or SHA-256 is not the manifest's (changed after it was packed?); "
                                      "read as it is"))


