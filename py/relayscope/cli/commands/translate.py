"""``relayscope translate``, one input at a time: each read line by line, its relays out as
they come (NDJSON, a JSON array or text). Several files that hold sessions, a folder or a
shareable file are translated together (``translate_sessions``), ``--follow`` tails
(``following``): ``cli.main`` picks which."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...feeder import AUTO, Feeder, MakeTranslator
from ...formats import detect
from ...inputs import STDIN, Input, is_share
from ..errors import INPUT_ERRORS, OK
from ..notices import report_drift, report_missing
from ..reading import Named
from ..redacting import redacted_lines
from ..reports import report, report_redaction, report_warnings, unlisted
from ..state import current as _run
from ..terminal import err, shown, stdout
from ..writers import Writer

if TYPE_CHECKING:
    import argparse

    from ... import relay as R
    from ...emitter import Emitter
    from ...textout import RelayText

    TextOf = Callable[[argparse.Namespace, list[str] | None], RelayText | None]  # text.relay_text's kind


def no_text(args: argparse.Namespace, files: list[str] | None = None) -> RelayText | None:
    """No text columns: NDJSON or a JSON array (``-f text`` gives ``text.relay_text``)."""
    return None


def is_batch(items: list[Named], fmt: str) -> bool:
    """Translate together (as sessions) rather than stream one by one: a directory, or several
    files at least one of which is a session transcript (a look at its first lines, kept)."""
    if any(isinstance(i, str) for i in items):
        return True
    inputs = [i for i in items if isinstance(i, Input)]
    if any(is_share(i) for i in inputs):
        return True
    if len(inputs) < 2 or any(i.path == STDIN for i in inputs) or fmt not in (AUTO, "session"):
        return False
    return fmt == "session" or any(sniff(i) == "session" for i in inputs)


def sniff(source: Input) -> str | None:
    """The input's format, from as many first lines as the core's rule needs (kept for later)."""
    _run.name, _run.line = source.name, 0
    try:
        return detect(source.peek())
    except OSError:
        return None  # reported when read
    finally:
        source.park()


def cmd_translate(args: argparse.Namespace, items: list[Named], make: MakeTranslator,
                  relay_text: TextOf = no_text) -> int:
    """Each input in turn, streamed, by the translator ``make`` makes for its format (the
    dispatcher's: it imports that one only); ``relay_text``: the text's columns
    (``text.relay_text``) with ``-f text``."""
    sources = [i for i in items if isinstance(i, Input)]
    several = [shown(i.name) for i in sources] if len(sources) > 1 else None
    writer = Writer(stdout(), args.format, live=False, text=relay_text(args, several))
    failed = False
    for source in sources:
        failed = _stream(source, args, writer, make, several=len(sources) > 1) or failed
    writer.close()
    report_redaction(args)
    return INPUT_ERRORS if failed else OK


def _stream(source: Input, args: argparse.Namespace, writer: Writer, make: MakeTranslator, several: bool) -> bool:
    """One input, line by line, relays out as they come. True when it had errors."""
    _run.name, _run.line = source.name, 0
    a = Feeder(make, args.strategy, args.input_format, keep=False, file=shown(source.name) if several else None,
                 drift=True)
    reported = warned = problems = 0
    if writer.text is not None:
        writer.text.follow_lanes(lambda: a.lanes)
    try:
        writer.live = source.live
        feed: Callable[[bytes], list[R.Relay]] = a.feed_line
        write = writer.write_lines if writer.fmt == "ndjson" else writer.write
        t: Emitter | None = None
        for _run.line, line in enumerate(redacted_lines(args, source.lines(), source.live), 1):
            relays = feed(line)
            if not relays:  # an unreadable or repaired line has its relay: nothing to say without one
                continue
            write(relays)
            if t is None:  # the first relays: the format is known and the translator there
                t = a.translator
                assert t is not None
                if not a.keep:  # the Analyzer's feed_line is then this call and no more: skip its call
                    feed = t.feed_line
            # one test a line: the lists are looked at only when a warning or an error came
            if t.warning_count + t.error_count != problems:
                problems = t.warning_count + t.error_count
                if len(t.warnings) > warned:
                    report_warnings(source.name, t.warnings, warned)
                    warned = len(t.warnings)
                if len(t.errors) > reported:
                    report(source.name, t.errors, reported)
                    reported = len(t.errors)
    except OSError as exc:  # the input failed under us (EIO, a vanished mount): keep what came
        err(f"{source.name}: {exc.strerror or exc}; read stopped after line {_run.line}")
        writer.write(a.finish())
        return True
    finally:
        source.close()
    writer.write(a.finish())
    report_warnings(source.name, a.warnings, warned)
    report(source.name, a.errors, reported)
    report_drift(source.name, a.drift)
    report_missing(source.name, a.lanes)
    unlisted(source.name, a.translator)
    return bool(a.errors)
