"""What a short ``translate`` leaves unloaded, and the parser it builds: the modules only other
commands, an interrupted run or a terminal use are imported where they are used; ``translate
FILE...`` with no option is read without argparse, as argparse reads it; any other run builds its
command's parser alone, its help and errors word for word the full parser's. Read from
``python -X importtime`` (every module imported) and from the parsers, never timed."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import msgspec
import pytest
from test_cli_startup import ENV, ONE_SESSION, ONE_TRANSCRIPT, run

from relayscope import cli, fates, textout
from relayscope.cli import parser as cliargs

# only an interrupted run needs signal, and only a run with options (or another command) the parser
# (termsafe, which words a message on stderr, is imported by the module that writes them)
NOT_IN_A_TRANSLATE = {"signal", "argparse", "gettext", "locale", "relayscope.cli.parser"}
# (subagents, which words a missing sub-agent transcript, is imported by cli.notices, which says it)
# the text shows no block fates (fates and the audit under it) and no diffs (difflib); the
# details it does not show are Structs, not dataclasses
NOT_IN_ITS_TEXT = {"relayscope.fates", "relayscope.audit", "relayscope._compact",
                   "relayscope.usage", "hashlib", "difflib", "zlib", "array", "dataclasses"}


@pytest.mark.parametrize("path", [ONE_SESSION, ONE_TRANSCRIPT], ids=["stream-json", "session transcript"])
def test_a_translate_loads_no_signal_handling_and_no_terminal_escaping(path: str) -> None:
    p, loaded = run("translate", path)
    assert p.returncode == 0 and p.stdout.count(b"\n") > 10
    assert loaded & NOT_IN_A_TRANSLATE == set()


def test_a_translates_text_loads_no_fates_audit_or_diff() -> None:
    p, loaded = run("translate", "-f", "text", ONE_SESSION)
    assert p.returncode == 0 and p.stdout.count(b"\n") > 10
    assert "relayscope.textout" in loaded  # the text was written by the module that would load them
    assert loaded & NOT_IN_ITS_TEXT == set()


def test_what_is_left_unloaded_still_loads_where_it_is_used() -> None:
    """A message on stderr is escaped (termsafe); a trace's text says fates."""
    p, loaded = run("translate", ONE_SESSION, "missing-file.jsonl")
    assert p.returncode == 2 and b"missing-file.jsonl: No such file" in p.stderr
    assert "relayscope.termsafe" in loaded
    p, loaded = run("trace", ONE_SESSION)
    assert p.returncode == 0 and b"emitted as #" in p.stdout
    assert "relayscope.fates" in loaded


PLAIN = [["translate", ONE_SESSION], ["translate"], ["translate", "-"], ["translate", ONE_SESSION, "-", ONE_TRANSCRIPT],
         ["translate", ""], ["translate", "trace"]]
NOT_PLAIN = [["translate", "-f", "text", ONE_SESSION], ["translate", ONE_SESSION, "--redact"], ["translate", "--"],
             ["translate", "--", ONE_SESSION], ["translate", "-s", "index"], ["translate", "--form", "json"],
             ["translate", "-h"], ["--version"], ["trace", ONE_SESSION], ["tran", ONE_SESSION], [], ["-h", "translate"],
             ["translate", "-1"]]


@pytest.mark.parametrize("argv", PLAIN, ids=lambda argv: " ".join(argv))
def test_a_plain_translate_is_read_as_argparse_reads_it(argv: list[str]) -> None:
    plain = cli._plain_translate(argv)
    assert plain is not None
    assert vars(plain) == vars(cliargs.build_parser(argv).parse_args(argv))


@pytest.mark.parametrize("argv", NOT_PLAIN, ids=lambda argv: " ".join(argv) or "nothing")
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert cli._plain_translate(argv) is None


def test_a_plain_translate_that_fails_says_so_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["translate", ONE_SESSION, "missing-file.jsonl"]) == 2
    assert capsys.readouterr().err == "relayscope: missing-file.jsonl: No such file or directory\n"


def test_a_run_builds_only_its_commands_parser() -> None:
    assert list(cliargs.build_parser(["translate", ONE_SESSION]).commands) == ["translate"]
    assert list(cliargs.build_parser(["stats", "--json", ONE_SESSION]).commands) == ["stats"]
    everything = list(cliargs.build_parser([]).commands)
    assert everything == ["translate", "trace", "audit", "redact", "export", "stats", "pack", "html", "sessions", "search"]
    for argv in (["--help"], ["-h", "translate"], ["tran", ONE_SESSION], ["--bogus", "translate"]):
        assert list(cliargs.build_parser(argv).commands) == everything


@pytest.mark.parametrize("command", ["translate", "trace", "audit", "redact", "export", "stats", "pack", "html", "sessions",
                                     "search"])
def test_a_commands_parser_built_alone_is_the_full_parsers(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    alone = cliargs.build_parser([command]).commands[command]
    full = cliargs.build_parser([]).commands[command]
    assert alone.format_help() == full.format_help()
    assert alone.format_usage() == full.format_usage()
    assert alone.prog == full.prog == f"relayscope {command}"


def test_the_top_levels_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for command in cliargs.build_parser([]).commands:
        assert f"\n    {command}" in out


def test_a_wrong_option_is_said_with_the_commands_own_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["translate", "--bogus", ONE_SESSION])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: relayscope translate [-h]") and "unrecognized arguments: --bogus" in err


def test_the_text_colours_every_fate_fates_names() -> None:
    assert set(textout.FATE_COLOURS) == {fates.EMITTED, fates.LOST, fates.DUPLICATE, fates.STREAMED}


@pytest.mark.parametrize("module", ["relay", "wire", "trace", "drift", "lanes", "formats.session"])
def test_a_translates_structs_carry_real_annotations(module: str) -> None:
    """msgspec evaluates string annotations (``from __future__ import annotations``) when it makes a
    decoder: a compile and an eval per field, a fifth of the core's import."""
    mod = importlib.import_module(f"relayscope.{module}")
    structs = [v for v in vars(mod).values()
               if isinstance(v, type) and issubclass(v, msgspec.Struct) and v.__module__ == mod.__name__]
    assert structs
    for struct in structs:
        for name, hint in vars(struct).get("__annotations__", {}).items():
            assert not isinstance(hint, str), f"{struct.__name__}.{name}: {hint!r}"


# every class of ours that the page's import made, and which of the modules it must not load it did
_APP_CLASSES = """
import json, sys
from relayscope.web.app import App
ours = [m for name, m in sorted(sys.modules.items()) if name.startswith("relayscope")]
made = [f"{m.__name__}.{k}" for m in ours for k, v in vars(m).items()
        if isinstance(v, type) and v.__module__ == m.__name__ and "__dataclass_fields__" in vars(v)]
late = {"dataclasses", "statistics", "difflib", "markdown_it", "relayscope.snapshot", "relayscope.web.detail_view",
        "relayscope.web.markdown_view", "relayscope.describe.details"}
print(json.dumps({"loaded": sorted(late & set(sys.modules)), "made": made}))
"""


def test_the_pages_import_makes_no_dataclass() -> None:
    """The page's worker imports the app on every visit, warm or cold: a dataclass ``exec``s the
    source of its methods as it is made (about a millisecond each in Pyodide), a Struct does not;
    ``statistics`` (about 10 ms) is imported by none (``spans.median``); an opened row's content
    (``detail_view``, with ``difflib`` and markdown-it-py) and the snapshot's renderer are the
    parts ``web.main`` imports when first used (``app.Parts``)."""
    p = subprocess.run([sys.executable, "-c", _APP_CLASSES], capture_output=True, env=ENV, timeout=60, check=True)
    seen = json.loads(p.stdout)
    assert seen["made"] == []
    assert seen["loaded"] == []

