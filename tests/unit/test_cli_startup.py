"""What a run of one command loads: only the modules that command needs, so that ``--version`` and a
short ``translate`` are not mostly start-up. Read from ``python -X importtime`` (which names every
module imported), never timed. The parser's choices, read late, still check values and show in help."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from _corpus import FIXTURE_SESSIONS, FIXTURE_STREAM_JSON, ROOT

from relayscope.cli import main

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
ONE_SESSION = str(FIXTURE_STREAM_JSON / "GuhyupLee__waifu-agent__tests__fixtures__claude-multiturn.jsonl")
ONE_TRANSCRIPT = str(FIXTURE_SESSIONS / "d-kimuson__claude-code-viewer" / "mock-global-claude-dir" / "projects"
                     / "sample-project" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")


def run(*args: str) -> tuple[subprocess.CompletedProcess[bytes], set[str]]:
    """The command's run, and every module it imported."""
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "relayscope", *args], capture_output=True,
                       env=ENV, timeout=60, check=False)
    loaded = {line.rsplit("|", 1)[1].strip() for line in p.stderr.decode().splitlines()
              if line.startswith("import time:") and "|" in line}
    return p, loaded


def ours(loaded: set[str]) -> set[str]:
    return {m for m in loaded if m.startswith("relayscope")}


def test_version_loads_no_command_and_no_decoder() -> None:
    p, loaded = run("--version")
    assert p.returncode == 0 and p.stdout.startswith(b"relayscope ")
    assert ours(loaded) <= {"relayscope", "relayscope.__main__", "relayscope.cli", "relayscope.inputs"}
    assert "msgspec" not in loaded


def test_translate_loads_no_other_commands_modules() -> None:
    p, loaded = run("translate", ONE_SESSION)
    assert p.returncode == 0 and p.stdout.count(b"\n") > 10
    others = {"export", "spans", "describe", "present", "redact", "follow", "live", "multifile", "audit", "fates",
              "textout", "usage", "sharefile", "snapshot"}
    assert ours(loaded) & {f"relayscope.{m}" for m in others} == set()
    assert "shutil" not in loaded  # argparse's formatter asks shutil for the width (and so imports bz2, lzma)


@pytest.mark.parametrize("path", [ONE_SESSION, ONE_TRANSCRIPT], ids=["stream-json", "session transcript"])
def test_translate_loads_no_dataclasses(path: str) -> None:
    """The records on a translate's path are Structs, tuples and plain classes: ``dataclasses``
    (with the ``inspect`` it imports) was a tenth of a one-session run."""
    p, loaded = run("translate", path)
    assert p.returncode == 0 and p.stdout.count(b"\n") > 10
    assert "dataclasses" not in loaded


def test_redact_loads_no_translator() -> None:
    p, loaded = run("redact", ONE_SESSION)
    assert p.returncode == 0
    assert {"relayscope.translator", "relayscope.wire", "relayscope.export"} & loaded == set()


@pytest.mark.parametrize("command", [["redact"], ["translate", "--redact"]], ids=["redact", "translate --redact"])
def test_redaction_loads_no_dataclasses(command: list[str]) -> None:
    """The redactor's records are plain classes and a NamedTuple: ``dataclasses`` (with the
    ``inspect`` it imports) was a part of what ``--redact`` added to a one-session run."""
    p, loaded = run(*command, ONE_SESSION)
    assert p.returncode == 0 and p.stdout.count(b"\n") > 10
    assert "dataclasses" not in loaded


def test_choices_read_late_still_check_values_and_show_in_help() -> None:
    p, _ = run("translate", "-s", "bogus", ONE_SESSION)
    assert p.returncode == 2
    assert b"invalid choice: 'bogus' (choose from 'none', 'index', 'fingerprint', 'lineage')" in p.stderr
    p, _ = run("export", "--format", "svg", ONE_SESSION)
    assert p.returncode == 2 and b"(choose from 'chrome-trace', 'otlp')" in p.stderr
    p, _ = run("trace", "-i", "ndjson", ONE_SESSION)
    assert p.returncode == 2 and b"(choose from 'auto', 'stream-json', 'sse', 'session')" in p.stderr
    p, _ = run("translate", "--help")
    assert b"{none,index,fingerprint,lineage}" in p.stdout and b"{auto,stream-json,sse,session}" in p.stdout
    p, _ = run("export", "-s", "index", "--format", "otlp", ONE_SESSION)
    assert p.returncode == 0 and p.stdout.startswith(b"{")


def test_version_answered_before_the_cli_loads_says_what_argparse_says(capsys: pytest.CaptureFixture[str]) -> None:
    p, loaded = run("--version")
    assert ours(loaded) <= {"relayscope", "relayscope.__main__"}
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert p.stdout.decode() == capsys.readouterr().out


def test_the_parser_names_the_shareable_files_suffix_sharefile_uses() -> None:
    from relayscope import sharefile
    from relayscope.cli import parser

    assert parser.SHARE_SUFFIX == sharefile.SUFFIX


def test_the_parsers_choices_are_the_cores_names() -> None:
    """The parser writes the choices the core names, so that building it loads none of the core."""
    from relayscope import analysis, export, formats, translator
    from relayscope.cli import parser

    assert tuple(translator.STRATEGIES) == parser.STRATEGIES
    assert (analysis.AUTO, *formats.FORMATS) == parser.INPUT_FORMATS
    assert tuple(export.FORMATS) == parser.EXPORT_FORMATS


def test_redact_lists_as_many_unreadable_lines_as_the_translators_do() -> None:
    from relayscope import emitter
    from relayscope.cli.commands import redact

    assert redact.ERRORS_KEPT == emitter.ERRORS_KEPT


def test_a_zip_is_known_by_the_bytes_sharefile_knows_it_by() -> None:
    from relayscope import inputs, sharefile

    assert inputs.ZIP_MAGIC == sharefile._ZIP_MAGIC
    assert all(inputs.is_zip(magic + b"rest") and sharefile.is_sharefile(magic) for magic in inputs.ZIP_MAGIC)
    assert not inputs.is_zip(b'{"type"') and not inputs.is_zip(b"PK")


def test_the_exit_leaves_the_last_collections_nothing_to_walk() -> None:
    """The interpreter's collections as the process ends walked every object left (the modules, the
    translator's windows) to free next to nothing: a tenth of a one-session translate. What the run
    left is frozen first; its output is whole all the same. Seen from an ``atexit`` hook, which runs
    after the command and before those collections."""
    hook = ("import atexit, gc, os, sys; atexit.register(lambda: os.write(2, b'frozen %d' % gc.get_freeze_count())); "
            "sys.argv[0] = 'relayscope'; from relayscope.__main__ import run; run()")
    p = subprocess.run([sys.executable, "-c", hook, "translate", ONE_SESSION], capture_output=True, env=ENV,
                       timeout=60, check=False)
    expected = subprocess.run([sys.executable, "-m", "relayscope", "translate", ONE_SESSION], capture_output=True,
                              env=ENV, timeout=60, check=True)
    assert p.returncode == 0 and p.stdout == expected.stdout and p.stdout.count(b"\n") > 10
    frozen = int(p.stderr.decode().rsplit("frozen ", 1)[1])
    assert frozen > 10_000  # every object of the run's modules
