"""Search across sessions (libsearch.search): the terms of the rows, a generator that reports
progress, stops when the caller stops, and lists at most MAX_MATCHES rows of a session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _corpus import ROOT

from relayscope import libsearch as S
from relayscope.cli.library import Library, list_sessions

LIBRARY = ROOT / "tests" / "fixtures" / "library" / "projects"
BIG = "230240ea-0a87-449e-afca-cff76f0fdc8a"


class Counting(Library):
    """The fixture's files, counting the bytes the search reads."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(names)
        self.read_bytes = 0

    def chunks(self, path: str) -> Iterator[bytes]:
        for chunk in super().chunks(path):
            self.read_bytes += len(chunk)
            yield chunk

    def read(self, path: str) -> bytes:
        data = super().read(path)
        self.read_bytes += len(data)
        return data


def _hits(query: str) -> dict[str, S.Hit]:
    lib = Library([str(LIBRARY)])
    items, _ = list_sessions(lib)
    return {h.session: h for h in S.search(query, items, lib) if isinstance(h, S.Hit)}


def test_file_finds_the_calls_that_read_or_wrote_it() -> None:
    hits = _hits("file:storage/storage.go")
    assert set(hits) == {BIG}
    assert all(m.text.startswith(("tool_use: ", "tool_result: ")) for m in hits[BIG].matches)  # calls, results
    assert any("storage/storage.go" in m.text for m in hits[BIG].matches)
    assert _hits("file:mix.exs") == {}  # named in a prompt only: no call read or wrote it


def test_lane_finds_the_rows_of_the_lanes_it_names() -> None:
    hits = _hits("lane:explore")
    assert "29ccd257-68b1-427f-ae5f-6524b7cb6f20" in hits
    rows = [m for h in hits.values() for m in h.matches]
    assert sum("/subagents/" in m.file for m in rows) > len(rows) / 2  # the sub-agents' rows (and their ends)


def test_words_and_a_row_term_together() -> None:
    both = _hits("tool:bash phoenix")
    assert set(both) == {"d6e0bada-1959-4eec-a9d2-0bfade768d8f"}
    assert all("phoenix" in m.text.lower() for m in both["d6e0bada-1959-4eec-a9d2-0bfade768d8f"].matches)


def test_the_search_reports_progress_and_stops_when_the_caller_does() -> None:
    lib = Counting([str(LIBRARY)])
    items, _ = list_sessions(lib)
    total = sum(s.size for s, _ in items)
    steps = S.search("the", items, lib)  # a word every session has
    progress = list(_until_hit(steps))
    assert isinstance(progress[-1], S.Hit) and all(isinstance(x, S.Progress) for x in progress[:-1])
    steps.close()  # cancelled after the first hit: nothing read past the session it is in
    first = [s.session for s, _ in items].index(progress[-1].session)
    assert lib.read_bytes <= sum(s.size for s, _ in items[:first + 1]) < total
    done = list(S.search("the", items, Counting([str(LIBRARY)])))
    last = done[-1]
    assert isinstance(last, S.Progress) and last.done == last.total == total and last.sessions == len(items)


def _until_hit(steps: Iterator[S.Hit | S.Progress]) -> Iterator[S.Hit | S.Progress]:
    for x in steps:
        yield x
        if isinstance(x, S.Hit):
            return


def test_at_most_max_matches_rows_are_listed_the_count_is_exact() -> None:
    lib = Library([str(LIBRARY)])
    items, _ = list_sessions(lib)
    (hit,) = [h for h in S.search("tool:read", items, lib, limit=3) if isinstance(h, S.Hit) and h.session == BIG]
    assert len(hit.matches) == 3 and hit.count is not None and hit.count > 3


def test_is_lost_is_the_workspaces() -> None:
    with pytest.raises(S.Unsupported):
        list(S.search("is:lost", [], S.BytesSource({})))


def test_a_stream_json_file_of_several_sessions_lists_each(tmp_path: Path) -> None:
    lines = b"".join(b'{"type":"system","subtype":"init","session_id":"%s","model":"claude-x","cwd":"/w"}\n'
                     b'{"type":"result","subtype":"success","session_id":"%s","is_error":false}\n' % (s, s)
                     for s in (b"run-1", b"run-2", b"run-3"))
    (tmp_path / "ci.jsonl").write_bytes(lines)
    lib = Library([str(tmp_path)])
    items, skipped = list_sessions(lib)
    assert [s.session for s, _ in items] == ["run-1", "run-2", "run-3"] and skipped == []
    assert all(s.format == "stream-json" and s.models == ["claude-x"] for s, _ in items)
    assert sum(s.size for s, _ in items) == len(lines)  # each its own lines' bytes, not the whole file's
