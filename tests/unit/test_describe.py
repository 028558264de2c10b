"""describe: tool calls in words and as plain data, so that rows say what happened. The calls are those of the
real captures in tests/fixtures/real/ (the shared corpus too, when it is there), as our translator
emits them; what each should say is computed here from the raw JSON of the same lines. Then the
shapes no capture has: wrong types, junk, markup; none may raise."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from _corpus import FIXTURES, HAVE_SHARED, NO_SHARED, SHARED_REAL
from hypothesis import given
from hypothesis import strategies as st

from relayscope import describe as D
from relayscope import relay as R
from relayscope import spill
from relayscope.analysis import Analyzer
from relayscope.describe.details import tool_call
from relayscope.present import summary


@dataclass
class Call:
    file: str
    block: dict[str, Any]  # the raw tool_use block
    result: dict[str, Any] | None  # the raw tool_result block
    record: dict[str, Any] | None  # the raw record (line) the result is in
    line: bytes | None  # that line as written
    use: R.ToolUse  # as the translator emits them
    out: R.ToolResult | None

    @property
    def args(self) -> dict[str, Any]:
        return self.block["input"]

    @property
    def text(self) -> str:
        """The result's text as the raw JSON has it (a string, or the text of its blocks)."""
        content = self.result.get("content") if self.result else None
        if isinstance(content, list):
            return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
        return content if isinstance(content, str) else ""


def calls_in(path: Path) -> list[Call]:
    data = path.read_bytes()
    a = Analyzer("none")
    relays = a.feed_text(data) + a.finish()
    uses = {r.id: r for r in relays if isinstance(r, R.ToolUse)}
    outs = {r.tool_use_id: r for r in relays if isinstance(r, R.ToolResult)}
    blocks: dict[str, dict[str, Any]] = {}
    results: dict[str, tuple[dict[str, Any], dict[str, Any], bytes]] = {}
    for raw in data.split(b"\n"):
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        for b in content if isinstance(content, list) else []:
            if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("input"), dict):
                blocks.setdefault(b["id"], b)
            elif isinstance(b, dict) and b.get("type") == "tool_result":
                results.setdefault(b.get("tool_use_id"), (b, record, raw))
    out = []
    for i, block in blocks.items():
        if i not in uses:
            continue
        result, record, raw = results.get(i, (None, None, None))
        out.append(Call(path.name, block, result, record, raw, uses[i], outs.get(i)))
    return out


FIXTURE_FILES = sorted(FIXTURES.rglob("*.jsonl"))
CALLS = [c for p in FIXTURE_FILES for c in calls_in(p)]


def of(name: str) -> list[Call]:
    found = [c for c in CALLS if c.block["name"] == name]
    assert found, f"no {name} call in the fixtures"
    return found


def lines(text: str) -> list[str]:
    parts = text.split("\n")
    return parts[:-1] if parts[-1] == "" else parts


def numbered(diff: D.FileDiff) -> tuple[dict[int, str], dict[int, str]]:
    """The old side's and the new side's lines, by their numbers, as the diff shows them."""
    old, new = {}, {}
    for hunk in diff.hunks:
        for x in hunk.lines:
            assert (x.old is None) == (x.kind == "add") and (x.new is None) == (x.kind == "del")
            if x.old is not None:
                assert old.setdefault(x.old, x.text) == x.text
            if x.new is not None:
                assert new.setdefault(x.new, x.text) == x.text
    return old, new


def n_lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


# -- Edit, MultiEdit, Write ---------------------------------------------------------------------


def test_an_edit_is_a_diff_of_its_old_and_new_text_numbered_from_its_first_line() -> None:
    checked = 0
    for c in of("Edit"):
        d = tool_call(c.use, c.out)  # no record: the diff of the input's own text
        assert isinstance(d, D.FileDiff) and d.numbering == "snippet" and d.path == c.args["file_path"]
        old, new = lines(c.args["old_string"]), lines(c.args["new_string"])
        if len(old) + len(new) <= 60:  # a short edit is shown whole
            assert numbered(d) == ({k + 1: t for k, t in enumerate(old)}, {k + 1: t for k, t in enumerate(new)})
            checked += 1
        assert d.removed + d.added > 0 or old == new
        assert D.summary(c.use).startswith("Edit ") and D.summary(c.use).endswith(
            f": {n_lines(len(old))} → {len(new)}" + (" (every occurrence)" if c.args.get("replace_all") is True else ""))
    assert checked >= 10


def test_with_its_result_record_an_edit_shows_the_files_own_line_numbers() -> None:
    patched = [c for c in CALLS if c.block["name"] in ("Edit", "MultiEdit")
               and isinstance((c.record or {}).get("toolUseResult"), dict) and c.record["toolUseResult"].get("structuredPatch")]
    assert patched
    for c in patched:
        d = tool_call(c.use, c.out, c.line)
        assert isinstance(d, D.FileDiff) and d.numbering == "file"
        old, new = numbered(d)
        for hunk in c.record["toolUseResult"]["structuredPatch"]:
            o, n = hunk["oldStart"], hunk["newStart"]
            for raw in hunk["lines"]:
                if raw[:1] in (" ", "-"):
                    assert old[o] == raw[1:]
                    o += 1
                if raw[:1] in (" ", "+"):
                    assert new[n] == raw[1:]
                    n += 1


def test_a_multiedit_is_one_hunk_per_edit() -> None:
    for c in of("MultiEdit"):
        d = tool_call(c.use, c.out)
        assert isinstance(d, D.FileDiff)
        edits = c.args["edits"]
        titles = {h.header.split(" @@")[0].split(",")[0] for h in d.hunks}
        assert titles <= {f"edit {k} of {len(edits)}" for k in range(1, len(edits) + 1)}
        assert f"{len(edits)} edit" in D.summary(c.use)


def test_a_write_is_its_content_as_added_lines() -> None:
    for c in of("Write"):
        d = tool_call(c.use, c.out)
        assert isinstance(d, D.FileDiff)
        content = lines(c.args["content"])
        _, new = numbered(d)
        shown = min(len(content), D.MAX_DIFF_LINES)
        assert new == {k + 1: t for k, t in enumerate(content[:shown])}
        assert d.added == len(content) and d.removed == 0
        if len(content) > D.MAX_DIFF_LINES:
            assert f"{len(content) - D.MAX_DIFF_LINES} more lines not shown" in d.notes
        assert D.summary(c.use).endswith(f": {n_lines(len(content))}") or c.out is None


# -- Bash -----------------------------------------------------------------------------------------


def test_a_command_says_how_it_ended() -> None:
    seen = set()
    for c in of("Bash"):
        text = c.text
        code = re.match(r"Exit code (\d+)", text)
        if c.result is None:
            status = None
        elif code:
            status = f"exit {code.group(1)}"
        elif text.startswith("Command running in background"):
            status = "in background"
        elif c.result.get("is_error"):
            status = "error"
        else:
            status = "ok"
        d = tool_call(c.use, c.out, c.line)
        assert isinstance(d, D.Command) and d.command == c.args["command"]
        assert d.description == c.args.get("description")
        assert (d.status or "").startswith(status or "") and (d.status is None) == (status is None)
        words = D.summary(c.use, c.out)
        spilled = spill.of(text)  # an output too large for the transcript: its file named after the status
        end = f" → {d.status}" + (f" · {spilled.words}" if spilled else "")
        assert words.startswith("Bash: ") and (status is None or words.endswith(end))
        seen.add(status.split(" ")[0] if status else None)
        # the output's head: the first lines of what it printed
        tur = (c.record or {}).get("toolUseResult")
        printed = tur["stdout"] if isinstance(tur, dict) and isinstance(tur.get("stdout"), str) else text
        if printed.strip() and "\x1b" not in printed:
            assert d.outputs[0].head == tuple(lines(printed)[:D.HEAD_LINES])
            assert d.outputs[0].lines == len(lines(printed))
    assert {"exit", "ok", "error"} <= seen


def test_a_result_row_says_when_there_was_no_content() -> None:
    read = use("Read", {"file_path": "a.txt"})
    assert D.result_summary(read, result("")) == "Read a.txt → ok · (no content)"
    assert D.result_summary(read, result("     1→x\n")) == "Read a.txt → 1 line"


def test_a_bash_result_row_names_the_command_it_answers() -> None:
    c = next(c for c in of("Bash") if c.text.startswith("Exit code "))
    first = c.text.split("\n")[0]
    assert D.result_summary(c.use, c.out).startswith(f"Bash → exit {first.split()[-1]} · {first}")


# -- Read, Grep, Glob, WebFetch, WebSearch ---------------------------------------------------------


def test_a_read_names_its_file_and_lines() -> None:
    for c in of("Read"):
        offset, limit = c.args.get("offset"), c.args.get("limit")
        start = offset if offset else 1
        span = "" if offset is None and limit is None else f":{start}-{start + limit - 1}" if limit else f":{start}-"
        d = tool_call(c.use, c.out)
        assert isinstance(d, D.Facts) and ("path", c.args["file_path"]) in d.fields
        path = c.args["file_path"]
        words = D.summary(c.use)
        assert words == f"Read {D.short_path(path)}{span}"
        assert len(path) <= D.PATH_WIDTH or words.startswith("Read …")


def test_a_search_names_its_pattern_and_counts_what_it_found() -> None:
    for c in of("Grep") + of("Glob"):
        d = tool_call(c.use, c.out, c.line)
        assert isinstance(d, D.Facts) and ("pattern", c.args["pattern"]) in d.fields
        if c.result is None or c.result.get("is_error"):
            continue
        text, mode = c.text, c.args.get("output_mode", "files_with_matches")
        found = re.match(r"Found (\d+) file", text)
        if mode == "content":
            expected = n_lines(0 if text.startswith("No ") else len(lines(text)))
        elif found:
            expected = f"{found.group(1)} file" + ("" if found.group(1) == "1" else "s")
        elif text.startswith("No "):
            expected = "0 files"
        else:
            count = len([x for x in lines(text) if x.strip() and not x.startswith("(Results are truncated")])
            expected = f"{count} file" + ("" if count == 1 else "s")
            expected += " (truncated)" if "\n(Results are truncated" in text else ""
        assert d.count == expected, (c.args, text[:200])
        assert D.summary(c.use, c.out).endswith(f" → {expected}")
        assert f"'{c.args['pattern'][:59]}" in D.summary(c.use, c.out)


def test_web_calls_name_their_url_or_query() -> None:
    for c in of("WebFetch"):
        d = tool_call(c.use, c.out, c.line)
        assert isinstance(d, D.Facts) and ("url", c.args["url"]) in d.fields and ("prompt", c.args["prompt"]) in d.fields
        assert D.summary(c.use) == f"WebFetch {D.clip(c.args['url'], 100)}"
    for c in of("WebSearch"):
        d = tool_call(c.use, c.out, c.line)
        assert isinstance(d, D.Facts) and ("query", c.args["query"]) in d.fields
        tur = (c.record or {}).get("toolUseResult")
        if isinstance(tur, dict) and isinstance(tur.get("results"), list):
            links = [x for r in tur["results"] if isinstance(r, dict) and isinstance(r.get("content"), list) for x in r["content"]]
            assert d.count == f"{len(links)} link" + ("" if len(links) == 1 else "s")


# -- TodoWrite, Task, Agent ------------------------------------------------------------------------


def test_a_todo_list_keeps_every_item_and_its_state() -> None:
    for c in of("TodoWrite"):
        todos = c.args["todos"]
        d = tool_call(c.use)
        assert isinstance(d, D.Todos)
        assert [(t.content, t.status, t.active_form) for t in d.items] == \
            [(t["content"], t["status"], t.get("activeForm")) for t in todos]
        done = sum(t["status"] == "completed" for t in todos)
        assert D.summary(c.use).startswith(f"TodoWrite: {done} of {len(todos)} todo")
        now = next((t for t in todos if t["status"] == "in_progress"), None)
        assert (" · now: " in D.summary(c.use)) == (now is not None)


def test_a_sub_agent_call_gives_its_type_description_prompt_and_lane() -> None:
    for c in of("Task") + of("Agent"):
        d = tool_call(c.use, c.out, c.line)
        assert isinstance(d, D.Spawn) and d.lane == c.block["id"]
        assert d.agent_type == c.args.get("subagent_type") and d.description == c.args.get("description")
        prompt = c.args.get("prompt", "")
        assert d.prompt_chars == len(prompt) and prompt.startswith(d.prompt.rstrip("…"))
        kind = f" ({c.args['subagent_type']})" if c.args.get("subagent_type") else ""
        assert D.summary(c.use).startswith(f"{c.block['name']}{kind}: ")


# -- present: the CLI's and the page's row summary -------------------------------------------------


def test_present_uses_the_words_and_keeps_the_generic_summary_for_other_tools() -> None:
    edit = of("Edit")[0]
    assert summary(edit.use) == D.summary(edit.use)
    other = next(c for c in CALLS if c.block["name"] not in D._SUMMARIES)
    assert D.summary(other.use) is None and tool_call(other.use) is None
    assert summary(other.use).startswith(other.block["name"] + " ")


# -- assistant text --------------------------------------------------------------------------------


def test_prose_splits_fenced_code_and_keeps_every_newline() -> None:
    text = "Intro\n\nline two\n```python\ndef f():\n    return 1\n```\nafter\n~~~\nraw  <b>\n~~~"
    assert D.prose(text) == (
        D.Segment("text", "Intro\n\nline two"), D.Segment("code", "def f():\n    return 1", "python"),
        D.Segment("text", "after"), D.Segment("code", "raw  <b>"))
    assert D.prose("```\nunclosed\n\nstill code") == (D.Segment("code", "unclosed\n\nstill code"),)
    assert D.prose("just text\n") == (D.Segment("text", "just text\n"),)
    assert D.prose("") == (D.Segment("text", ""),)
    assert D.prose("````\n```\n````") == (D.Segment("code", "```"),)  # a longer fence holds a shorter one


# -- shapes no capture has ---------------------------------------------------------------------------


def use(name: str, args: Any, raw: bytes | None = None) -> R.ToolUse:
    data = raw if raw is not None else msgspec.json.encode(args)
    return R.ToolUse(seq=0, line=1, lane="main", id="toolu_1", name=name, input=msgspec.Raw(data))


def result(text: Any, is_error: bool = False) -> R.ToolResult:
    return R.ToolResult(seq=1, line=2, lane="main", tool_use_id="toolu_1",
                        content=msgspec.Raw(msgspec.json.encode(text)), is_error=is_error)


HOSTILE: list[Any] = [
    None, 1, "x", [], {}, {"file_path": 3}, {"file_path": "a", "old_string": None, "new_string": []},
    {"command": ["ls"]}, {"command": "ls", "timeout": "soon"}, {"todos": "all"}, {"todos": [1, None, {"content": 2}]},
    {"edits": {"a": 1}, "file_path": "f"}, {"file_path": "f", "edits": [1, {"old_string": "a"}, {"old_string": 1, "new_string": 2}]},
    {"pattern": {"re": 1}}, {"pattern": "x", "path": 1, "output_mode": 7}, {"offset": "10", "limit": -5, "file_path": "f"},
    {"offset": True, "limit": 1e300, "file_path": "f"}, {"url": None}, {"query": 5}, {"prompt": 1, "description": None},
    {"content": None, "file_path": "f"}, {"file_path": "f", "content": "<script>x</script>\n" * 3},
]
TOOLS = sorted(D._SUMMARIES)
LINES: list[bytes | None] = [
    None, b"", b"not json", b"[]", b'{"toolUseResult": 5}',
    b'{"toolUseResult": {"structuredPatch": [{"oldStart": "a", "lines": [1]}]}, "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]}}',
    b'{"toolUseResult": {"structuredPatch": [{"oldStart": 1, "newStart": 1, "lines": ["?x"]}], "stdout": 1}, "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]}}',
    b'{"toolUseResult": {"numFiles": "many", "results": [1, {"content": 2}], "code": "x", "file": []}, "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]}}',
    b"[" * 100_000,
]


@pytest.mark.parametrize("tool", TOOLS)
def test_any_input_shape_is_read_or_left_to_the_generic_summary_never_raised(tool: str) -> None:
    for args in HOSTILE:
        u = use(tool, args)
        for res in (None, result("Exit code x\n" * 3, True), result([{"type": "text"}]), result(None)):
            for line in LINES:
                d = tool_call(u, res, line)
                assert d is None or isinstance(d, D.FileDiff | D.Command | D.Facts | D.Todos | D.Spawn)
            words = D.summary(u, res)
            assert words is None or isinstance(words, str)
            assert isinstance(summary(u), str) and summary(u)
            if res is not None:
                D.result_summary(u, res)
    assert tool_call(use(tool, None, b"{not json")) is None
    assert summary(use(tool, None, b"{not json")).startswith(tool)


def test_a_structured_result_is_used_only_for_the_one_result_its_record_holds() -> None:
    edit = use("Edit", {"file_path": "f", "old_string": "a\nb\n", "new_string": "a\nc\n"})
    patch = {"structuredPatch": [{"oldStart": 40, "oldLines": 2, "newStart": 40, "newLines": 2, "lines": [" a", "-b", "+c"]}]}
    one = {"toolUseResult": patch, "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]}}
    two = {"toolUseResult": patch, "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1"},
                                                           {"type": "tool_result", "tool_use_id": "toolu_2"}]}}
    res = result("ok")
    d = tool_call(edit, res, json.dumps(one))
    assert isinstance(d, D.FileDiff) and d.numbering == "file"
    assert [tuple(x) for x in d.hunks[0].lines] == [("context", 40, 40, "a"), ("del", 41, None, "b"), ("add", None, 41, "c")]
    d = tool_call(edit, res, json.dumps(two))
    assert isinstance(d, D.FileDiff) and d.numbering == "snippet" and d.hunks[0].lines[0] == D.DiffLine("context", 1, 1, "a")


def test_long_paths_keep_their_tail_and_long_diffs_are_cut_with_a_count() -> None:
    path = "/Users/someone/very/deep/project/tree/src/components/widgets/Button.tsx"
    short = D.short_path(path)
    assert short.startswith("…/") and path.endswith(short[1:]) and len(short) <= D.PATH_WIDTH
    assert len("…/deep" + short[1:]) > D.PATH_WIDTH  # as many whole parts as fit
    assert D.short_path("/a/b.py") == "/a/b.py"
    assert D.short_path("C:\\Users\\someone\\very\\deep\\project\\tree\\src\\components\\Button.tsx").startswith("…\\")
    big = use("Write", {"file_path": "f", "content": "x\n" * (D.MAX_DIFF_LINES + 25)})
    d = tool_call(big)
    assert isinstance(d, D.FileDiff) and sum(len(h.lines) for h in d.hunks) == D.MAX_DIFF_LINES
    assert "25 more lines not shown" in d.notes and d.added == D.MAX_DIFF_LINES + 25


# -- the shared corpus: every call of a known tool is described ----------------------------------


@pytest.mark.skipif(not HAVE_SHARED, reason=NO_SHARED)
def test_every_known_call_of_the_shared_corpus_is_described() -> None:
    shared = [c for p in sorted(SHARED_REAL.rglob("*.jsonl")) for c in calls_in(p)]
    known = [c for c in shared if c.block["name"] in D._SUMMARIES]
    assert len(known) > 1000
    for c in known:
        assert D.summary(c.use, c.out) is not None, c.block
        assert tool_call(c.use, c.out, c.line) is not None, c.block


@given(st.lists(st.sampled_from(["a", "bc", " ", "   ", "\n", "\t", "\u3000", "\u2028", "\x1c", "é", "\U0001f600"]),
                max_size=400),
       st.sampled_from([1, 2, 5, 20, 100, 120]))
def test_clip_of_a_long_text_is_clip_of_all_of_it(parts: list[str], width: int) -> None:
    """``clip`` makes only the start of a long text one line when that start is past ``width``:
    the same line as making all of it one line and cutting that, whatever whitespace it holds."""
    text = "".join(parts)
    whole = " ".join(text.split())
    assert D.clip(text, width) == (whole if len(whole) <= width else whole[: width - 1] + "…")
