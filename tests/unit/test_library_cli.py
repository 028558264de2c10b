"""`relayscope sessions` and `relayscope search` on a real library (tests/fixtures/library: a
~/.claude/projects tree cut from the shared corpus) and on bad input."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from _cli import main
from _corpus import ROOT

from relayscope import library as L

LIBRARY = ROOT / "tests" / "fixtures" / "library" / "projects"
# every session of the fixture: id -> its project folder
SESSIONS = {
    "256ba646-2c15-437a-98e9-4171aafd030e": "-src-experiments-claude_p",
    "29ccd257-68b1-427f-ae5f-6524b7cb6f20": "-src-experiments-claude_p",
    "1af7fc5e-8455-4414-9ccd-011d40f70b2a": "sample-project",
    "5c0375b4-57a5-4f26-b12d-d022ee4e51b7": "sample-project",
    "230240ea-0a87-449e-afca-cff76f0fdc8a": "-Users-dumitruvulpe-uw-telecom-mobile",
    "55604662-cf2a-4331-851a-ec234028f8ca": "-home-marco-projects-spotter",
    "d6e0bada-1959-4eec-a9d2-0bfade768d8f": "-home-marco-projects-spotter",
    "b91d4412-e6c4-4e51-bb1b-585bcd78aca4": "-Users-kirilldubovitskiy-projects-happy-handy-cli",
    "2fd1dc28-72a3-40c2-85a0-1ba256a87a2f": "-Users-kirilldubovitskiy-projects-happy-handy-cli",
}


def _index(*argv: str) -> tuple[int, list[dict[str, object]], str]:
    code, out, err = main("sessions", "--json", *argv)
    return code, [json.loads(line) for line in out.splitlines()], err


def test_the_fixture_lists_each_session_once() -> None:
    code, rows, err = _index(str(LIBRARY))
    assert code == 0 and err == ""
    assert sorted(r["session"] for r in rows) == sorted(SESSIONS)
    for r in rows:
        assert r["schema"] == L.SCHEMA and r["project_dir"] == SESSIONS[str(r["session"])]
        assert r["format"] == "session" and r["complete"] is False and r["tokens"] is None
    by_id = {r["session"]: r for r in rows}
    big = by_id["230240ea-0a87-449e-afca-cff76f0fdc8a"]
    assert big["subagents"] == 3 and big["project"] == "/Users/dumitruvulpe/uw/telecom-mobile"
    assert any(str(f).endswith("tool-results/b8oz93j98.txt") for f in big["files"])  # an attachment, in its size
    assert big["size"] == sum(os.path.getsize(f) for f in big["files"])  # type: ignore[union-attr]
    assert big["title"] == "fix-expired-contracts-loop" and big["title_from"] == "ai-title"


def test_each_sessions_relays_are_those_of_translate_of_that_session_alone() -> None:
    code, rows, _ = _index("--full", str(LIBRARY))
    assert code == 0 and len(rows) == len(SESSIONS)
    for r in rows:
        files = [str(f) for f in r["files"] if not str(f).endswith(".txt")]  # type: ignore[union-attr]
        code, out, _ = main("translate", *files)
        assert code == 0
        assert r["relays"] == len(out.splitlines()) > 0, r["session"]
        assert r["complete"] is True


def test_tokens_tool_calls_and_errors_are_the_clis_own() -> None:
    _, rows, _ = _index("--full", str(LIBRARY))
    for r in rows:
        files = [str(f) for f in r["files"] if not str(f).endswith(".txt")]  # type: ignore[union-attr]
        _, out, _ = main("stats", "--json", *files)
        (fig,) = json.loads(out)
        tokens = fig["run"]["tokens"]
        assert (r["input_tokens"], r["output_tokens"], r["cache_read_tokens"], r["cache_creation_tokens"]) == (
            tokens["input_tokens"], tokens["output_tokens"], tokens["cache_read_tokens"],
            tokens["cache_creation_tokens"]), r["session"]
        assert r["tokens"] == sum(tokens.values())
        assert r["tool_calls"] == fig["run"]["tool_calls"]


def test_the_table_fits_100_columns_and_is_terminal_safe(tmp_path: Path) -> None:
    shutil.copytree(LIBRARY, tmp_path / "p")
    hostile = tmp_path / "p" / "sample-project" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    hostile.write_bytes(json.dumps({"type": "custom-title", "customTitle": "\x1b]0;pwn\x07<script>x</script>\x1b[2J",
                                    "sessionId": "1af7fc5e-8455-4414-9ccd-011d40f70b2a"}).encode() + b"\n"
                        + hostile.read_bytes())
    os.environ.pop("COLUMNS", None)
    code, out, err = main("sessions", str(tmp_path / "p"))
    text = out.decode()
    assert code == 0 and err == ""
    lines = text.splitlines()
    assert len(lines) == 1 + len(SESSIONS) + 1  # header, the sessions, the total
    assert all(len(line) <= 100 for line in lines)
    assert "\x1b" not in text and "\x07" not in text and "\\x1b]0;pwn" in text
    assert lines[-1].startswith("9 sessions in 5 projects")
    starts = [line[:16] for line in lines[1:-1]]
    assert starts == sorted(starts)  # by start, the default


def test_search_words_phrases_and_terms() -> None:
    def hits(query: str) -> dict[str, dict[str, object]]:
        code, out, _ = main("search", str(LIBRARY), query, "--json")
        assert code in (0, 1)
        return {json.loads(line)["session"]: json.loads(line) for line in out.splitlines()}

    found = hits("phoenix background")
    assert set(found) == {"d6e0bada-1959-4eec-a9d2-0bfade768d8f"}
    first = found["d6e0bada-1959-4eec-a9d2-0bfade768d8f"]["matches"][0]  # type: ignore[index]
    assert first["line"] == 4 and "phoenix" in first["text"].lower()  # type: ignore[index]
    assert hits('"start phoenix in background"').keys() == found.keys()
    assert hits('"background phoenix"') == {}  # a phrase is one word, in its order
    bash = hits("tool:bash")
    assert "d6e0bada-1959-4eec-a9d2-0bfade768d8f" in bash
    assert all(isinstance(h["count"], int) and h["count"] > 0 for h in bash.values())
    assert hits("tool:nosuchtool") == {}
    errors = hits("is:error")
    assert errors and all(h["count"] for h in errors.values())
    assert set(hits("project:spotter")) == {"55604662-cf2a-4331-851a-ec234028f8ca",
                                            "d6e0bada-1959-4eec-a9d2-0bfade768d8f"}
    assert all(h["count"] is None for h in hits("project:spotter").values())  # no row term: the whole session
    assert set(hits("model:opus cli:1.0")) <= set(SESSIONS)
    assert "b91d4412-e6c4-4e51-bb1b-585bcd78aca4" in hits("model:opus cli:1.0")
    assert hits("cli:9.") == {}


def test_search_text_output_is_file_line_by_session() -> None:
    code, out, _ = main("search", str(LIBRARY), "phoenix background")
    lines = out.decode().splitlines()
    assert code == 0
    assert lines[0].startswith("== d6e0bada-1959-4eec-a9d2-0bfade768d8f")
    assert lines[1].startswith(f"{LIBRARY}/-home-marco-projects-spotter/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl:4: ")
    assert lines[-1] == "1 session matched"
    code, out, _ = main("search", str(LIBRARY), "zzzz-nothing-has-this")
    assert code == 1 and out.decode() == "0 sessions matched\n"


def test_every_other_command_keeps_a_folder_per_session() -> None:
    code, out, _ = main("stats", "--json", str(LIBRARY))
    assert code == 0 and len(json.loads(out)) == len(SESSIONS)


def test_a_shareable_file_is_listed_and_searched_as_the_folder_it_came_from(tmp_path: Path) -> None:
    share = tmp_path / "lib.relayscope.zip"
    code, _, err = main("pack", str(LIBRARY / "-home-marco-projects-spotter"), "-o", str(share))
    assert code == 0, err
    code, rows, err = _index(str(share))
    assert code == 0 and sorted(r["session"] for r in rows) == ["55604662-cf2a-4331-851a-ec234028f8ca",
                                                               "d6e0bada-1959-4eec-a9d2-0bfade768d8f"]
    code, out, _ = main("search", str(share), "phoenix background")
    assert code == 0 and out.decode().startswith("== d6e0bada-1959-4eec-a9d2-0bfade768d8f")


def test_stdin_and_a_missing_path_are_usage_errors() -> None:
    code, out, err = main("sessions", "-")
    assert code == 2 and out == b"" and "reads files and folders" in err
    code, out, err = main("search", "/no/such/folder", "x")
    assert code == 2 and out == b"" and "No such file or directory" in err
