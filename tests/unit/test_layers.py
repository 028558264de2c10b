"""The package's layers: every import points down, no cycles, no imports hidden in functions.
Read from the source with ``ast``, so a new module or import is checked as it lands.

    wire, relay, _bounded, _compact, redact, intake -> trace, lanes, describe, present, meaning, drift, usage, subagents -> emitter,
    translator -> formats -> analysis, audit -> multifile, live, fates, textout, spans, folds, export
    -> cli (and its inputs, follow), web

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
    "relayscope.redact": 0,  # secrets out of input lines: plain strings in, plain strings out
    "relayscope.redact_rules": 0,  # where secrets are in raw text: candidate spans (redact's rules)
    "relayscope.redact_stream": 0,  # streamed fields redacted whole, placeholders cut back into pieces
    "relayscope.termsafe": 0,  # untrusted text made safe for a terminal: controls shown, never obeyed
    "relayscope.trace": 1,
    "relayscope.lanes": 1,
    "relayscope.present": 1,
    "relayscope.meaning": 1,  # what each record type / system subtype is: place and summary (a table)
    "relayscope.drift": 1,  # what an input has that the meaning table and the wire do not know
    "relayscope.usage": 1,  # tokens and cost, once per API message, per lane and run
    "relayscope.describe": 1,  # a tool call in words and as plain data (present's summaries, the page's detail)
    "relayscope.subagents": 1,  # sub-agents' states (heartbeats, task events) and the CLI's count held against them
    "relayscope.sharefile": 1,  # an input's files (redacted) as one zip, or a link's fragment, and back: bytes only
    "relayscope.emitter": 2,
    "relayscope.translator": 2,
    "relayscope.formats": 3,
    "relayscope.formats.sse": 3,
    "relayscope.formats.session": 3,
    "relayscope.analysis": 4,
    "relayscope.audit": 4,
    "relayscope.multifile": 5,
    "relayscope.live": 5,
    "relayscope.textout": 5,  # the CLI's text for people (it words nothing itself: present, fates)
    "relayscope.fates": 5,  # blocks' fates (the audit's words), for the page's stepper and `trace`
    "relayscope.spans": 5,  # the run in time: relays + timestamps -> spans, marks, figures
    "relayscope.verdict": 5,  # what every command calls unreadable, found without translating (redact's)
    "relayscope.folds": 5,  # the swimlanes' time axis with idle gaps folded: breaks and the map both ways
    "relayscope.export": 5,  # spans as Chrome Trace Event Format / OTLP JSON; translates via multifile
    "relayscope.snapshot": 5,  # the run as one self-contained HTML page: rows (describe), swimlanes (export, folds)
    "relayscope.cli": 6,
    "relayscope.cliargs": 6,  # the command line's parser
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
    # 2: the page as the worker sees it (the DOM mirror, its helpers), and the view state
    "remote": 2, "dom": 2, "view": 2,
    # 3: drawing from the view model (functions, no state)
    "panels": 3, "detail_view": 3, "rowcells": 3, "rowdraw": 3, "legend": 3, "help_panel": 3, "newest": 3, "notices": 3,
    # 4: the controllers, each of one job, given each other as typed collaborators
    "jobs": 4, "timeline": 4, "chrome": 4, "chips": 4, "matches": 4, "filters": 4, "selection": 4, "stepper": 4, "keyboard": 4,
    "swimlanes": 4, "screen": 4, "loads": 4, "strategy": 4, "links": 4, "embed": 4, "redact_switch": 4,
    "exports": 4, "actions": 4, "watch": 4, "sources": 4, "reading": 4,
    # 5: the app, which makes and wires them; 6: the worker's entry point, the one module that
    # touches JavaScript
    "app": 5, "main": 6,
}
# Imports inside functions, on purpose: web/main.py imports the package only once Pyodide has
# loaded it (a broken wheel must still end in "error"), and `js` / pyodide.ffi, which exist only
# there. cli: each command imports the modules it needs when it runs, so that a run of one command
# (or `--version`) loads none of the others' (start-up is most of a short run; test_cli_startup),
# and argparse's parser (cliargs) only for a run that is not a plain translate; cliargs: an
# option's choices from their module only when argparse first looks at them;
# inputs: the shareable file's reader (zipfile, the redactor) only for bytes that start as a zip.
# formats: a format's translator only when one is made (sniffing alone loads none); verdict: the
# decoder of a line that is no JSON object, the SSE translator and the meta reader only when met
# (``redact`` judges lines as the translators would without loading them); describe: difflib only
# when a diff is made (a one-line summary, all that ``translate -f text`` asks for, makes none);
# spans, web.newest: ``statistics`` only for a median of the results' timing, not in the page's
# import (about 10 ms in Pyodide; test_startup_imports).
LATE_IMPORTS_ALLOWED = {"relayscope.web.main", "relayscope.cli", "relayscope.cliargs", "relayscope.inputs",
                        "relayscope.formats", "relayscope.verdict", "relayscope.web.exports", "relayscope.describe",
                        "relayscope.spans", "relayscope.web.newest"}
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
        found = [head] + [f"{head}.{a.name}" for a in node.names]
    return sorted({t for t in found if t in MODULES})


def imports(name: str, source: str | None = None) -> list[tuple[str, int]]:
    """(target, line) for every relayscope import of a module, wherever it is."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8") if source is None else source)
    return [(t, node.lineno) for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
            for t in targets(name, node)]


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
    graph = {name: {t for t, _ in imports(name) if t != name} for name in MODULES}
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


def test_the_core_never_imports_the_web_or_the_cli() -> None:
    core = [n for n in MODULES if LAYERS[n] < 6]
    bad = [(n, t) for n in core for t, _ in imports(n) if t.startswith("relayscope.web") or t == "relayscope.cli"]
    assert bad == []
    assert not [t for t, _ in imports("relayscope.cli") if t.startswith("relayscope.web")]


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
