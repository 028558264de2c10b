"""What is said on stderr about what the input holds beyond reading it: what this version does
not know (drift), and the sub-agent transcripts a session names that the input lacks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..drift import Drift, DriftReport, describe
from ..lanes import Lane, missing_transcripts
from ..subagents import SubagentCheck, describe_check
from .terminal import err

if TYPE_CHECKING:
    from ..multifile import SessionResult


def report_drift(name: str, drift: Drift | DriftReport | None) -> None:
    """Drift is never silent: one line on stderr naming what this version does not know."""
    if drift is None:
        return
    text = describe(name, drift.report() if isinstance(drift, Drift) else drift)
    if text is not None:
        err(text)


def report_drift_files(files: dict[str, bytes], results: list[SessionResult]) -> None:
    """``report_drift`` for each file read whole (a folder, several files; not a meta file): as its
    translation counted it, else (a file no translator decoded) from its lines."""
    counted = {f: d for r in results for f, d in r.drift.items()}
    kept = {f for r in results for f in r.companions}  # no transcript: spilled output, a workflow's journal
    for name, content in files.items():
        if name.endswith(".meta.json") or name in kept:
            continue
        if name in counted:
            report_drift(name, counted[name])
            continue
        d = Drift()
        for number, line in enumerate(content.split(b"\n"), 1):
            d.add(number, line)
        report_drift(name, d)


def report_missing(name: str, lanes: Mapping[str, Lane]) -> None:
    """The sub-agents whose transcript a session's records name and the input lacks: one line on
    stderr naming the files to look for (``lanes.missing_transcripts``, in ``subagents``' words)."""
    files = missing_transcripts(lanes)
    if files:
        err(f"{name}: {describe_check(SubagentCheck(missing_files=files))[-1]}")
