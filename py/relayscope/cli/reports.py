"""What is said on stderr about the input: unreadable lines, repairs, drift, missing sub-agent
transcripts, files that could not be read, what was redacted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..inputs import Problem, display_name
from .redacting import redactor_of
from .state import current as _run
from .terminal import err

if TYPE_CHECKING:
    import argparse

    from ..emitter import Emitter
    from ..export import Live


def report(name: str, errors: list[tuple[int, str]], start: int = 0) -> None:
    for line, message in errors[start:]:
        err(f"{name}:{line}: {message}")


def report_warnings(name: str, warnings: list[tuple[int, str]], start: int = 0) -> None:
    """Lines kept with a repair (bad bytes, a field of the wrong type): said, never fatal."""
    for line, message in warnings[start:]:
        err(f"{name}:{line}: warning: {message}")


def report_files(errors: list[tuple[str | None, int, str]]) -> None:
    for name, line, message in errors:
        err(f"{name}:{line}: {message}")


def report_problems(problems: list[Problem]) -> bool:
    for problem in problems:
        err(str(problem))
    return bool(problems)


def unlisted(name: str, t: Emitter | None) -> None:
    """The core keeps only the first few hundred errors of an input; say how many more there were."""
    if t is None:
        return
    more = getattr(t, "error_count", len(t.errors)) - len(t.errors)
    if more > 0:
        err(f"{name}: {more} more unreadable line(s) not listed (each is an error relay in the output)")


def report_redaction(args: argparse.Namespace) -> None:
    r = redactor_of(args)
    if r is not None:
        err(f"relayscope: redacted {r.summary()}")


def said(run: Live, failed: bool) -> bool:
    """A finished run's unreadable lines and notes on stderr; whether it had errors."""
    report_files([(f or run.name or _run.name, line, message) for f, line, message in run.errors])
    if run.error_count > len(run.errors):
        err(f"relayscope: {run.error_count - len(run.errors)} more unreadable line(s) not listed")
    b = run.builder_now()
    for note in b.notes:
        err(f"relayscope: {display_name(run.name) + ': ' if run.name else ''}{note}")
    return failed or bool(run.error_count)
