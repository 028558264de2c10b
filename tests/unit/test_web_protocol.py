"""The page <-> worker protocol is declared once on each side (py/relayscope/web/protocol.py,
static/js/protocol.mjs): the two declarations agree, every kind and op either side uses is
declared, each is handled, and nothing else carries messages (no globals, no hidden inputs).
The key table is declared once (web/keyboard.py) and both sides test the same conditions."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from relayscope.web import keyboard, protocol, remote
from relayscope.web.actions import ACTIONS, Actions
from relayscope.web.view import Shown, ViewState

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "static" / "js"
WEB = ROOT / "py" / "relayscope" / "web"
PAGE_FILES = [p for p in sorted(JS.glob("*.mjs"))] + [ROOT / "index.html"]


def js_object(name: str) -> dict[str, str]:
    """``export const NAME = Object.freeze({KEY: "value", ...})`` of protocol.mjs."""
    text = (JS / "protocol.mjs").read_text()
    body = re.search(rf"export const {name} = Object\.freeze\(\{{(.*?)\}}\);", text, re.S)
    assert body is not None, f"protocol.mjs declares no {name}"
    return dict(re.findall(r'(\w+): "([^"]+)"', body.group(1)))


def js_list(name: str) -> list[str]:
    text = (JS / "protocol.mjs").read_text()
    body = re.search(rf"export const {name} = Object\.freeze\(\[(.*?)\]\);", text, re.S)
    assert body is not None, f"protocol.mjs declares no {name}"
    return re.findall(r'"([^"]+)"', body.group(1))


def used(prefix: str, text: str) -> set[str]:
    return set(re.findall(rf"\b{prefix}\.([A-Z_]+)\b", text))


@pytest.mark.parametrize(("js", "py"), [("MSG", protocol.Kind), ("OP", protocol.Op), ("POST", protocol.Post),
                                        ("WORK", protocol.Work)])
def test_both_sides_declare_the_same_names(js: str, py: Any) -> None:
    assert js_object(js) == {member.name: member.value for member in py}


def test_both_sides_declare_the_same_key_conditions() -> None:
    assert js_list("KEY_WHEN") == list(protocol.KEY_WHEN)


@pytest.mark.parametrize("path", [p for p in sorted(JS.glob("*.mjs")) if p.name != "protocol.mjs"], ids=lambda p: p.name)
def test_the_page_uses_only_declared_names_and_no_literal_kinds(path: Path) -> None:
    text = path.read_text()
    for prefix in ("MSG", "OP", "POST", "WORK"):
        assert used(prefix, text) <= set(js_object(prefix)), f"{path.name}: {prefix} names not declared"
    assert not re.search(r'kind:\s*"', text), f"{path.name} sends a kind by its string, not by MSG/POST"
    assert not re.search(r'case\s*"', text), f"{path.name} handles an op by its string, not by OP"


def test_the_page_handles_every_op_and_sends_every_kind() -> None:
    ui = (JS / "ui.mjs").read_text()
    assert set(re.findall(r"case OP\.([A-Z_]+):", ui)) == set(js_object("OP"))
    sent = used("MSG", ui)
    assert sent == set(js_object("MSG")), f"never sent: {set(js_object('MSG')) - sent}"


def _ops_by_string() -> list[str]:
    """Places in web/ that send an op by a string literal (``PAGE.op("set", ...)``)."""
    found = []
    for path in sorted(WEB.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "op"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_the_worker_sends_ops_only_by_their_declared_name() -> None:
    assert _ops_by_string() == []


def test_every_kind_has_a_record_and_reaches_the_switch() -> None:
    wrap = protocol.Wrap(lambda f: f, lambda h: h)  # type: ignore[arg-type,return-value]
    samples: dict[protocol.Kind, dict[str, Any]] = {
        protocol.Kind.START: {"snapshot": {"elements": {}, "href": "http://h/"}},
        protocol.Kind.SYNC: {"rid": "x", "props": {}},
        protocol.Kind.EVENT: {"lid": 999, "e": {"type": "click"}},
        protocol.Kind.MEASURED: {"sizes": [[1, 2]]},
        protocol.Kind.REPLY: {"id": 1, "ok": True},
        protocol.Kind.DROP: {"files": [{"path": "a", "file": "F"}]},
        protocol.Kind.WATCH: {"handle": "H", "options": {"intervalMs": 50}},
        protocol.Kind.PICK: {"relay": 3, "line": None, "lane": "main"},
        protocol.Kind.RANGE: {"from": 2, "to": 1},
        protocol.Kind.SIZE: {"size": 42.4},
    }
    assert set(samples) == set(protocol.Kind) == set(protocol.KINDS)
    assert set(protocol.OPS) == set(protocol.Op)
    remote.PAGE.__init__()
    for kind, data in samples.items():
        record, seq = protocol.decode({"kind": kind.value, "seq": 7, **data}, wrap)
        assert seq == 7 and type(record).__name__.lower().startswith(kind.value[:4])
        remote.receive(record, seq)  # no kind falls through the switch unhandled
    assert protocol.decode({"kind": "range"}, wrap)[0] == protocol.Range(None)
    assert protocol.decode({"kind": "size", "size": 42.4}, wrap)[0] == protocol.Size(42)
    assert protocol.decode({"kind": "size", "size": "wide"}, wrap)[0] == protocol.Size(None)
    with pytest.raises(ValueError):
        protocol.decode({"kind": "telepathy"}, wrap)


def test_nothing_but_the_protocol_carries_messages() -> None:
    for path in [*PAGE_FILES, *sorted(WEB.glob("*.py"))]:
        text = path.read_text()
        assert not re.search(r"(globalThis|self|window|js)\.relayscope[A-Z]", text), f"{path.name}: a global hook"
    html = (ROOT / "index.html").read_text()
    assert 'type="hidden"' not in html, "a hidden input in index.html"


# -- the key table ------------------------------------------------------------------------------


def test_every_key_rule_holds_to_declared_conditions_and_has_a_handler() -> None:
    board = keyboard.Keyboard(ViewState(), Shown(), None, None, None, None, None)  # type: ignore[arg-type]
    assert set(board.when) == set(protocol.KEY_WHEN)
    for rule in keyboard.KEYS:
        assert set(rule.when) <= set(protocol.KEY_WHEN), rule
        assert rule.action in board.actions, rule
    assert {r.action for r in keyboard.KEYS} == set(board.actions)


def test_the_page_tests_every_key_condition() -> None:
    ui = (JS / "ui.mjs").read_text()
    body = re.search(r"const WHEN = \{(.*?)\n\};", ui, re.S)
    assert body is not None
    assert set(re.findall(r'^\s+"?([\w-]+)"?:', body.group(1), re.M)) == set(protocol.KEY_WHEN)


def test_the_page_gets_the_table_it_prevents_keys_by() -> None:
    rules = keyboard.for_page()
    assert len(rules) == len(keyboard.KEYS)
    # Esc in a text field that is not the search box: the field's own Esc (a select closes) stays;
    # every other rule prevents the key's default (the search box's Esc would clear its text)
    assert [r for r in rules if not r["prevent"]] == [{"keys": ["Escape"], "when": ["field"], "prevent": False}]
    assert rules.index({"keys": ["Escape"], "when": ["search"], "prevent": True}) < rules.index(
        {"keys": ["Escape"], "when": ["field"], "prevent": False})


# -- the delegated actions ---------------------------------------------------------------------------


def test_an_action_without_a_handler_is_refused() -> None:
    handlers = {a.name: (lambda _: None) for a in ACTIONS}
    Actions(Shown(), None, handlers, None, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="goto"):
        Actions(Shown(), None, {k: v for k, v in handlers.items() if k != "goto"}, None, None)  # type: ignore[arg-type]


def test_the_architecture_page_names_every_kind_op_and_web_module() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    page = text[text.index("## The page's controllers and its protocol"):]
    page = page[:page.index("\n## ")]
    for name in [*protocol.Kind, *protocol.Op, *protocol.Post, *protocol.KEY_WHEN]:
        assert f"`{name}`" in page, f"docs/architecture.md does not name {name}"
    for path in sorted(WEB.glob("*.py")):
        if path.stem != "__init__":
            assert f"`{path.stem}" in page or f"{path.stem}.py" in page, f"docs/architecture.md: {path.name}"
