"""web/detail_view.py on the worker's mirror of the page (web/remote.py), in plain Python: an
opened tool call or text row draws elements with text only (no markup, ever), from the model's
own pairing of a call and its result; tool inputs of any shape draw something and never raise.
The browser tests (tests/browser/test_app_rows.py) prove the same on the built page."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from relayscope.describe import _SUMMARIES
from relayscope.web import detail_view
from relayscope.web.dom import h
from relayscope.web.model import Workspace
from relayscope.web.remote import Node

MARKUP = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def session(*content_and_results: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> bytes:
    lines = [{"type": "system", "subtype": "init", "session_id": "s", "model": "m", "tools": []}]
    for k, (blocks, results) in enumerate(content_and_results):
        lines.append({"type": "assistant", "message": {"id": f"msg_{k}", "role": "assistant", "content": blocks}})
        if results:
            lines.append({"type": "user", "message": {"role": "user", "content": results}})
    return "\n".join(json.dumps(x) for x in lines).encode() + b"\n"


def load(data: bytes) -> Workspace:
    ws = Workspace()
    for _ in ws.load(data):
        pass
    return ws


def tree(node: Node) -> list[Node]:
    out = [node]
    for child in node.children:
        out += tree(child)
    return out


def text(node: Node) -> str:
    own = node.props.get("textContent")
    return own if isinstance(own, str) else "".join(text(c) for c in node.children)


def opened(ws: Workspace, seq: int) -> Node:
    box = h("div")
    detail_view.content(box, ws, ws.row(seq), {})
    for node in tree(box):  # what the page gets: tags, attributes and text; never markup or handlers
        assert "innerHTML" not in node.props and "outerHTML" not in node.props
        assert not [a for a in node.attrs if a.startswith("on")]
        assert node.tagName not in ("SCRIPT", "IMG", "IFRAME", "STYLE")
    return box


def by_testid(box: Node, testid: str) -> list[Node]:
    return [n for n in tree(box) if n.attrs.get("data-testid") == testid]


def test_a_call_and_its_result_are_drawn_from_the_models_pair() -> None:
    edit = {"type": "tool_use", "id": "toolu_e", "name": "Edit",
            "input": {"file_path": "/src/app.py", "old_string": f"a\n{MARKUP}\n", "new_string": "a\nb\nc\n"}}
    bash = {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": f"echo '{MARKUP}'"}}
    ws = load(session(([edit, bash], [
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "Exit code 2\nno", "is_error": True},
        {"type": "tool_result", "tool_use_id": "toolu_e", "content": "updated"}])))
    seq = {r.id if r.type == "tool_use" else "r" + r.tool_use_id: r.seq for r in ws.relays  # type: ignore[attr-defined]
           if r.type in ("tool_use", "tool_result")}
    box = opened(ws, seq["toolu_e"])
    (diff,) = by_testid(box, "diff")
    rows = [[text(td) for td in tr.children] for tr in tree(diff) if tr.tagName == "TR" and "hunk" not in tr.attrs.get("class", "")]
    assert rows == [["1", "1", " ", "a"], ["2", "", "-", MARKUP], ["", "2", "+", "b"], ["", "3", "+", "c"]]
    assert ws.shown(ws.row(seq["toolu_e"])) == "Edit /src/app.py: 2 lines → 3"
    # the result row: the same call, said from the result's side
    assert ws.shown(ws.row(seq["rtoolu_b"])) == "Bash → exit 2 · Exit code 2"
    assert ws.shown(ws.row(seq["toolu_b"])) == f"Bash: echo '{MARKUP}' → exit 2"
    box = opened(ws, seq["rtoolu_b"])
    assert [text(n) for n in by_testid(box, "exit-status")] == ["exit 2"]
    assert [text(n) for n in by_testid(box, "command")] == [f"echo '{MARKUP}'"]
    assert "no" in text(by_testid(box, "output-head")[0])


def test_assistant_text_is_its_markdown_and_code_as_text_nodes() -> None:
    words = f"Do this:\n\n```sh\n{MARKUP}\n```\nthen {MARKUP}"
    ws = load(session(([{"type": "text", "text": words}], [])))
    seq = next(r.seq for r in ws.relays if r.type == "text_delta")
    box = opened(ws, seq)
    (content,) = by_testid(box, "row-content")
    assert content.getAttribute("data-format") == "markdown"
    assert [(n.tagName, text(n)) for n in content.children] == [
        ("P", "Do this:"), ("PRE", MARKUP), ("P", f"then {MARKUP}")]
    assert content.children[1].getAttribute("data-lang") == "sh"
    assert not [n for n in tree(content) if n.tagName in ("SCRIPT", "IMG")]


TOOLS = st.sampled_from([*sorted(_SUMMARIES), "Other"])
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
KEYS = st.sampled_from(["file_path", "old_string", "new_string", "content", "edits", "command", "todos", "pattern",
                        "path", "offset", "limit", "prompt", "description", "subagent_type", "url", "query",
                        "replace_all", "output_mode", "glob"])
INPUTS = st.dictionaries(KEYS, JSON | st.text(max_size=30), max_size=6) | JSON
RESULTS = st.none() | st.text(max_size=40) | st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=20)}), max_size=2)


@given(st.lists(st.tuples(TOOLS, INPUTS, RESULTS, st.booleans(), JSON), min_size=1, max_size=4))
def test_any_tool_input_draws_and_never_raises(calls: list[tuple[str, Any, Any, bool, Any]]) -> None:
    blocks, results, records = [], [], []
    for k, (name, args, result, is_error, structured) in enumerate(calls):
        blocks.append({"type": "tool_use", "id": f"toolu_{k}", "name": name, "input": args})
        if result is not None:
            block = {"type": "tool_result", "tool_use_id": f"toolu_{k}", "content": result, "is_error": is_error}
            records.append({"type": "user", "message": {"role": "user", "content": [block]}, "toolUseResult": structured})
            results.append(block)
    lines = [{"type": "system", "subtype": "init", "session_id": "s", "model": "m", "tools": []},
             {"type": "assistant", "message": {"id": "msg_1", "role": "assistant", "content": blocks}}, *records]
    ws = load("\n".join(json.dumps(x) for x in lines).encode())
    for seq in range(len(ws.relays)):
        assert isinstance(ws.shown(ws.row(seq)), str)
        opened(ws, seq)
