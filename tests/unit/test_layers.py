"""The package's layers: every import points down, no cycles, no imports hidden in functions.
Read from the source with ``ast``, so a new module or import is checked as it lands.

    wire, relay, _bounded, _compact, redact, intake -> trace, lanes, describe, present, meaning, drift, usage, subagents -> emitter,
    translator -> formats -> analysis, audit -> multifile, live, fates, textout, spans, folds, export
    -> cli (and its inputs, follow), web

inside cli: errors and the run's state -> terminal output, --redact -> text, writers, reports,
reading, the parser -> inputs read whole -> the commands -> --follow -> the dispatcher (CLI_LAYERS);
and inside web: plain records -> the view model -> the DOM mirror and the view state -> drawing
-> controllers -> the app -> the worker's entry point (WEB_LAYERS).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from _corpus import ROOT

PACKAGE = ROOT / "py" / "relayscope"

# layer of each module; a module may import its own layer or lower ones (never a cycle)
LAYERS: dict[str, int] = {
    "relayscope": 0,
    "relayscope._bounded": 0,
    "relayscope._compact": 0,
    "relayscope.wire": 0,
    "relayscope.relay": 0,
    "relayscope.intake": 0,  # which files of a folder are read, whether bytes are text: for the CLI and the page
    "relayscope.spill": 0,  # tool output spilled to tool-results/ID.txt: the result's words, the file's name
    "relayscope.redact": 0,  # secrets out of input lines: plain strings in, plain strings out
    "relayscope.redact_rules": 0,  # where secrets are in raw text: candidate spans (redact's rules)
    "relayscope.redact_words": 0,  # the names found once and the reader's own words, replaced wherever they are words
    "relayscope.redact_stream": 0,  # streamed fields redacted whole, placeholders cut back into pieces
    "relayscope.termsafe": 0,  # untrusted text made safe for a terminal: controls shown, never obeyed
    "relayscope.trace": 1,
    "relayscope.lanes": 1,
    "relayscope.chapters": 1,  # where a run's chapters start: each real user prompt
    "relayscope.present": 1,
    "relayscope.meaning": 1,  # what each record type / system subtype is: place and summary (a table)
    "relayscope.drift": 1,  # what an input has that the meaning table and the wire do not know
    "relayscope.usage": 1,  # tokens and cost, once per API message, per lane and run
    "relayscope.describe": 1,  # a tool call in words and as plain data (present's summaries, the page's detail)
    "relayscope.describe.base": 1, "relayscope.describe.summaries": 1,  # widths, records, inputs read; one line
    "relayscope.describe.details": 1, "relayscope.describe.segments": 1,  # the structured detail; text and code blocks
    "relayscope.query": 1,  # the search language (words, tool:, lane:, is:, and the library's terms), one grammar
    "relayscope.subagents": 1,  # sub-agents' states (heartbeats, task events) and the CLI's count held against them
    "relayscope.sharefile": 1,  # an input's files (redacted) as one zip, or a link's fragment, and back: bytes only
    "relayscope.sharefile.names": 1, "relayscope.sharefile.writing": 1,  # the format's names and bounds; packing
    "relayscope.sharefile.zipscan": 1, "relayscope.sharefile.reading": 1,  # a zip read within bounds; unpacking
    "relayscope.sharefile.links": 1,  # a link's fragment
    "relayscope.emitter": 2,
    "relayscope.translator": 2,
    "relayscope.translator.blocks": 2, "relayscope.translator.fields": 2,  # a block's identity; a line's other fields
    "relayscope.translator.strategies": 2, "relayscope.translator.lineage": 2,  # the strategies, lineage's rule table
    "relayscope.translator.registry": 2, "relayscope.translator.translate": 2,  # the strategies by name; the Translator
    "relayscope.formats": 3,
    "relayscope.formats.sse": 3,
    "relayscope.formats.session": 3,
    "relayscope.feeder": 3,  # text in chunks, split into lines, the format sniffed, fed to the translator given
    "relayscope.analysis": 4,
    "relayscope.audit": 4,
    "relayscope.audit.items": 4, "relayscope.audit.keys": 4,  # the input's blocks (the inventory); the relays' keys
    "relayscope.audit.counting": 4, "relayscope.audit.report": 4,  # each strategy counted; JSON and text
    "relayscope.library": 4,  # which files make which session (the one rule), and each session's summary from its ends
    "relayscope.library.peek": 4, "relayscope.library.rule": 4,  # a file's ends; which files make which session
    "relayscope.library.facts": 4, "relayscope.library.summary": 4,  # what the ends say; summaries, listing, index
    "relayscope.multifile": 5,
    "relayscope.multifile.scan": 5, "relayscope.multifile.session": 5,  # a quick pass over files; one session's run
    "relayscope.multifile.groups": 5, "relayscope.multifile.audits": 5,  # any files as sessions; the audit's entry point
    "relayscope.multifile.growing": 5,  # for files read as they grow (live)
    "relayscope.multifile.unreadable": 5,  # what files read whole hold that is unreadable (verdict's check)
    "relayscope.libsearch": 5,  # the library's whole reads: each session's figures, and search across sessions
    "relayscope.live": 5,
    "relayscope.textout": 5,  # the CLI's text for people (it words nothing itself: present, fates)
    "relayscope.fates": 5,  # blocks' fates (the audit's words), for the page's stepper and `trace`
    "relayscope.words": 5,  # how things are said, once for the page, the CLI's text, the snapshot, PyScript
    "relayscope.spans": 5,  # the run in time: relays + timestamps -> spans, marks, figures
    "relayscope.spans.records": 5, "relayscope.spans.stamps": 5,  # spans' records; timestamps read
    "relayscope.spans.axis": 5, "relayscope.spans.sweep": 5,  # the ordering on the axis; each lane's state
    "relayscope.spans.builder": 5, "relayscope.spans.timeline": 5,  # the builder; a whole timeline
    "relayscope.spans.where": 5,  # where the time went: the figures and their words
    "relayscope.verdict": 5,  # what every command calls unreadable, found without translating (redact's)
    "relayscope.folds": 5,  # the swimlanes' time axis with idle gaps folded: breaks and the map both ways
    "relayscope.export": 5,  # spans as Chrome Trace Event Format / OTLP JSON; translates via multifile
    "relayscope.export.live": 5, "relayscope.export.reading": 5,  # one run as read; sources into runs, the writer
    "relayscope.export.chrome": 5, "relayscope.export.otlp_spans": 5,  # Trace Event Format; OTLP spans
    "relayscope.export.outputs": 5,  # the entry points
    "relayscope.snapshot": 5,  # the run as one self-contained HTML page: rows (describe), swimlanes (export, folds)
    "relayscope.snapshot.escape": 5, "relayscope.snapshot.axis": 5,  # text as HTML text; the swimlanes' time axis
    "relayscope.snapshot.rows": 5, "relayscope.snapshot.page": 5,  # each relay's row; the swimlanes and the page
    "relayscope.cli": 6,  # the command line's dispatcher; cli.* are its commands and shared pieces (CLI_LAYERS)
    "relayscope.inputs": 6,  # the command line's file reading: I/O, so nothing in the core may use it
    "relayscope.follow": 6,  # --follow's polling: I/O, like inputs
    "relayscope.otlp": 6,  # spans to a collector over HTTP: I/O
    "relayscope.otlp_follow": 6,  # export --follow: relays to spans to the sender
    "relayscope.__main__": 6,
    "relayscope.web": 6,
}
# The browser side is the top layer as a whole; inside it, its own layers (each module placed on
# purpose: a new web module needs an entry here):
WEB_LAYERS: dict[str, int] = {
    # 0: plain records and strings: what the host offers, the messages, links, line facts, checkpoints
    "host": 0, "protocol": 0, "share": 0, "rowinfo": 0, "checkpoints": 0, "gutter": 0,
    # 1: the view model (the workspace and its parts): plain Python, no page
    "workstate": 1, "search": 1, "stepping": 1, "rowtext": 1, "rows": 1, "loading": 1, "growing": 1, "model": 1,
    "chapters": 1,
    "shelf": 1,  # a library's sessions, from the core's rule, read from the page's files
    # 2: the page as the worker sees it (the DOM mirror, its helpers), and the view state
    "remote": 2, "dom": 2, "view": 2,
    "remote.channel": 2, "remote.nodes": 2, "remote.window": 2,  # the op queue; the elements; the window, messages in
    # 3: drawing from the view model (functions, no state)
    "panels": 3, "detail_view": 3, "markdown_view": 3, "rowcells": 3, "rowdraw": 3, "legend": 3, "help_panel": 3, "newest": 3, "notices": 3,
    # 4: the controllers, each of one job, given each other as typed collaborators
    "jobs": 4, "timeline": 4, "chrome": 4, "chips": 4, "matches": 4, "filters": 4, "selection": 4, "stepper": 4, "keyboard": 4,
    "swimlanes": 4, "screen": 4, "loads": 4, "strategy": 4, "links": 4, "embed": 4, "redact_switch": 4,
    "exports": 4, "actions": 4, "watch": 4, "sources": 4, "reading": 4, "outline": 4, "library_view": 4,
    "library_view.table": 3,  # the library's table as text and order (the columns, the filters)
    "library_view.rows": 4,  # the library's table as the page holds it: rows, groups, sort buttons
    "library_view.search": 4,  # a search across the sessions listed
    "library_view.controller": 4,  # the library view's controller (which makes the two above)
    # 5: the app, which makes and wires them; 6: the worker's entry point, the one module that
    # touches JavaScript
    "app": 5, "main": 6,
}
# The command line inside: what every exit needs, then the pieces the commands share, the commands
# (one module each, none importing another), --follow's poller over them, the dispatcher on top
# (each placed on purpose: a new cli module needs an entry here):
CLI_LAYERS: dict[str, int] = {
    "errors": 0, "state": 0,  # exit codes and the errors that choose them; what the run is doing
    "terminal": 1, "redacting": 1,  # stderr, stdout, colour, width; --redact's filter
    "text": 2, "writers": 2, "reports": 2, "notices": 2, "reading": 2, "parser": 2,
    "gathering": 3,  # inputs read whole (folders, several files, shareable files)
    "library": 3,  # the library on the command line: files' ends on disk, the sessions' table, search's output
    "commands": 4, "commands.translate": 4, "commands.translate_sessions": 4, "commands.trace": 4,
    "commands.audit": 4, "commands.redact": 4, "commands.redact_files": 4, "commands.export": 4, "commands.stats": 4, "commands.pack": 4,
    "commands.html": 4, "commands.sessions": 4, "commands.search": 4,
    "following": 5,  # --follow for translate and trace (trace's table)
}
CLI = "relayscope.cli"
# Imports inside functions, on purpose, in two modules only. The command line's dispatcher (cli)
# imports the command it runs, and what its options ask for (argparse's parser, --redact's
# redactor, -f text's columns, --follow's poller), when it runs it: a run of one command (or
# `--version`) loads none of the others' modules (start-up is most of a short run;
# test_cli_startup, test_startup_imports); it also gives a one-input `translate` the translator its
# input's format asks for (feeder.MakeTranslator) and `redact` the translators' readers that verdict
# uses for the rare line it cannot settle, each imported when asked for. web/main.py imports the
# package only once Pyodide has loaded it (a broken wheel must still end in "error"), and `js` /
# pyodide.ffi, which exist only there; and the page's parts loaded when first used (markdown_view
# with markdown-it-py, the snapshot's renderer), which it hands the app (app.Parts). Every other
# module imports at its top: what must stay unloaded lives in a module of its own that the path
# that needs it imports (describe.details with difflib, fates.decision_words, analysis with every
# format's translator, multifile.unreadable).
LATE_IMPORTS_ALLOWED = {"relayscope.web.main", "relayscope.cli"}
WEB = "relayscope.web"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
for _name in MODULES:
    if _name.startswith(WEB + "."):
        LAYERS.setdefault(_name, LAYERS[WEB])
    if _name.startswith(CLI + "."):
        LAYERS.setdefault(_name, LAYERS[CLI])


def targets(name: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The relayscope modules an import statement names."""
    if isinstance(node, ast.Import):
        found = [a.name for a in node.names]
    elif node.level == 0:
        found = [node.module or ""]
        found += [f"{node.module}.{a.name}" for a in node.names]
    else:
        package = name.split(".") if MODULES[name].name == "__init__.py" else name.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1])
        head = f"{base}.{node.module}" if node.module else base
        found = [f"{head}.{a.name}" for a in node.names]
        if node.module or not set(found) & set(MODULES):  # `from . import names`: the module named, not its package
            found.append(head)
    return sorted({t for t in found if t in MODULES})


def imports(name: str, source: str | None = None, *, typing_too: bool = True) -> list[tuple[str, int]]:
    """(target, line) for every relayscope import of a module, wherever it is (``typing_too=False``:
    not those under ``if TYPE_CHECKING:``, which name a type for mypy and run nothing)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8") if source is None else source)
    typing_only = set() if typing_too else {id(n) for f in ast.walk(tree) if isinstance(f, ast.If)
                                            and isinstance(f.test, ast.Name) and f.test.id == "TYPE_CHECKING"
                                            for n in ast.walk(f)}
    return [(t, node.lineno) for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
            and id(node) not in typing_only for t in targets(name, node)]


def upward(name: str, source: str | None = None) -> list[tuple[str, int]]:
    return [(t, line) for t, line in imports(name, source) if LAYERS[t] > LAYERS[name]]


def late(name: str, source: str | None = None) -> list[int]:
    """Lines of imports inside a function."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8") if source is None else source)
    return [n.lineno for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            for n in ast.walk(f) if isinstance(n, ast.Import | ast.ImportFrom)]


def test_every_module_has_a_layer() -> None:
    assert set(MODULES) == set(LAYERS)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_point_down(name: str) -> None:
    assert upward(name) == [], f"{name} imports from a higher layer"


@pytest.mark.parametrize("name", sorted(set(MODULES) - LATE_IMPORTS_ALLOWED))
def test_no_import_inside_a_function(name: str) -> None:
    assert late(name) == [], f"{name} imports inside a function"


def test_no_import_cycle() -> None:
    """Imports that run (one under ``if TYPE_CHECKING:`` names a type for mypy: a strategy's
    ``Translator``, the class that calls it)."""
    graph = {name: {t for t, _ in imports(name, typing_too=False) if t != name} for name in MODULES}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*stack[stack.index(m):], m]))
            if m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


def test_the_cycle_checker_skips_only_imports_for_types() -> None:
    source = ("from typing import TYPE_CHECKING\nfrom .lineage import LineageDedup\n"
              "if TYPE_CHECKING:\n    from .translate import Translator\n")
    name = "relayscope.translator.strategies"
    assert imports(name, source) == [("relayscope.translator.lineage", 2), ("relayscope.translator.translate", 4)]
    assert [t for t, _ in imports(name, source, typing_too=False)] == ["relayscope.translator.lineage"]


def test_the_core_never_imports_the_web_or_the_cli() -> None:
    core = [n for n in MODULES if LAYERS[n] < 6]
    bad = [(n, t) for n in core for t, _ in imports(n) if t.startswith("relayscope.web") or t.startswith(CLI)]
    assert bad == []
    assert not [t for n in MODULES if n == CLI or n.startswith(CLI + ".")
                for t, _ in imports(n) if t.startswith("relayscope.web")]


def test_the_checker_sees_an_import_hidden_in_a_function() -> None:
    # formats/session.py used to import the orchestration above it from inside functions
    source = ("from ..translator import Translator\n\n"
              "def translate_files():\n    from ..analysis import Analyzer\n    from ..audit import inventory\n")
    assert upward("relayscope.formats.session", source) == [("relayscope.analysis", 4), ("relayscope.audit", 5)]
    assert late("relayscope.formats.session", source) == [4, 5]
    assert upward("relayscope.formats.session", "from .. import relay as R\n") == []


# -- inside the web layer -----------------------------------------------------------------------------


def web_imports(name: str) -> list[tuple[str, int]]:
    return [(t.removeprefix(WEB + "."), line) for t, line in imports(f"{WEB}.{name}") if t.startswith(WEB + ".")]


def test_every_web_module_has_a_web_layer() -> None:
    assert {n.removeprefix(WEB + ".") for n in MODULES if n.startswith(WEB + ".")} == set(WEB_LAYERS)


@pytest.mark.parametrize("name", sorted(WEB_LAYERS))
def test_web_imports_point_down(name: str) -> None:
    up = [(t, line) for t, line in web_imports(name) if WEB_LAYERS[t] > WEB_LAYERS[name]]
    assert up == [], f"web.{name} imports from a higher web layer"


def test_the_view_model_never_sees_the_page() -> None:
    model = [n for n, layer in WEB_LAYERS.items() if layer <= 1]
    assert [(n, t) for n in model for t, _ in web_imports(n) if WEB_LAYERS[t] >= 2] == []


def test_only_the_entry_point_touches_javascript() -> None:
    for name in WEB_LAYERS:
        source = MODULES[f"{WEB}.{name}"].read_text(encoding="utf-8")
        found = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Import | ast.ImportFrom)
                 and any((a.name if isinstance(n, ast.Import) else n.module or "").split(".")[0] in ("js", "pyodide")
                         for a in n.names)]
        assert name == "main" or found == [], f"web.{name} imports JavaScript"


def test_the_checker_sees_a_controller_that_reaches_up() -> None:
    source = "from .app import App\n"
    tree_targets = targets(f"{WEB}.filters", ast.parse(source).body[0])  # type: ignore[arg-type]
    assert tree_targets == [f"{WEB}.app"] and WEB_LAYERS["app"] > WEB_LAYERS["filters"]


# -- inside the command line ---------------------------------------------------------------------------


def cli_imports(name: str) -> list[tuple[str, int]]:
    return [(t.removeprefix(CLI + "."), line) for t, line in imports(f"{CLI}.{name}") if t.startswith(CLI + ".")]


def test_every_cli_module_has_a_cli_layer() -> None:
    assert {n.removeprefix(CLI + ".") for n in MODULES if n.startswith(CLI + ".")} == set(CLI_LAYERS)


@pytest.mark.parametrize("name", sorted(CLI_LAYERS))
def test_cli_imports_point_down(name: str) -> None:
    up = [(t, line) for t, line in cli_imports(name) if CLI_LAYERS[t] > CLI_LAYERS[name]]
    assert up == [], f"cli.{name} imports from a higher cli layer"


@pytest.mark.parametrize("name", sorted(n for n in CLI_LAYERS if n.startswith("commands.")))
def test_no_command_imports_another(name: str) -> None:
    assert [t for t, _ in cli_imports(name) if t.startswith("commands.")] == []


def test_nothing_in_the_cli_imports_the_dispatcher() -> None:
    assert [(n, t) for n in CLI_LAYERS for t, _ in imports(f"{CLI}.{n}") if t == CLI] == []
