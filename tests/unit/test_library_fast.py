"""The library's fast paths held to the slow ones: a search of words (a byte scan of each file,
only the lines where a word or what may stand for one is are decoded) finds exactly the lines a
decode of every line finds, on the fixture library and on hostile lines (a word written with JSON
escapes, in another case, by a character whose lower case is ASCII, split across chunks); a lazy
listing (the search's: summaries made for the sessions found only) makes the same summaries."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from _corpus import ROOT

from relayscope import library as L
from relayscope import libsearch as S
from relayscope.cli.library import Library, list_sessions
from relayscope.intake import binary_reason

LIBRARY = ROOT / "tests" / "fixtures" / "library" / "projects"
SID = "5b1c7e7a-0000-4000-8000-000000000001"


def _every_line(g: L.Group, source: S.Source, words: tuple[str, ...]) -> list[S.Match]:
    """The slow path: every line of every transcript decoded and matched."""
    out = []
    for path in S._transcripts(g):
        for number, line in enumerate(source.read(path).split(b"\n"), 1):
            text = S._line_text(line)
            if text and all(w in text.lower() for w in words):
                out.append(S.Match(path, number, S._snippet(text, words[0])))
    return out


def _words(query: str) -> tuple[str, ...]:
    return S.parse(query, S.LIBRARY_TERMS).words


@pytest.mark.parametrize("query", ["phoenix", "PHOENIX", '"pull request"', "the", "storage/storage.go", "é",
                                   "error exit", "{", "\\", "zzzz-nothing"])
def test_word_search_finds_what_a_decode_of_every_line_finds_in_the_fixtures(query: str) -> None:
    lib = Library([str(LIBRARY)])
    items, _ = list_sessions(lib)
    words = _words(query)
    found = 0
    for _s, g in items:
        if g.format != "session":
            continue
        want = _every_line(g, lib, words)
        found += len(want)
        assert list(S._text_matches(g, lib, words, [0])) == want, g.key
    if query not in ("zzzz-nothing", "é"):
        assert found  # the query finds something: the comparison is not of two empty lists


def _record(text: str) -> bytes:
    return b'{"type":"user","sessionId":"' + SID.encode() + b'","message":{"role":"user","content":"' + \
        text.encode() + b'"}}'


HOSTILE = [
    _record("plain phoenix here"),
    _record("\\u0070hoenix written with an escape"),  # p as \u0070
    _record("PHOENI\\u0058 upper, its X escaped"),
    _record("ph\\u006Fenix, the hex in upper case"),
    _record("phoe\\u006eix"),
    _record("a \\\"quoted\\\" word and path\\/to\\/file.py"),
    _record("path/to/file.py written plainly"),
    _record("\u212aelvin: \u212aITE"),  # KELVIN SIGN: its lower case is k
    _record("\\u212aite, the sign escaped"),
    _record("\u0130STANBUL, dotted capital I"),
    _record("\u00c9LAN in upper case, \u00e9lan in lower"),
    _record("\\u00c9LAN escaped"),
    _record("git\\u0020status with an escaped blank"),
    _record("git status"),
    _record("tab\\tinside"),
    b'{"type":"user","message":{"role":"user","content":"not closed phoenix',  # not JSON: no match
    b"",
    b"   ",
    _record("x" * 5000 + " phoenix after a long run"),
    b'{"type":"summary","summary":"Phoenix summary","leafUuid":"u"}',
    b'{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"PhOeNiX"}]}}',
    _record("\\\\u0070hoenix: an escaped backslash, then text"),
]


@pytest.mark.parametrize("chunk", [1, 7, 64, 333, 1 << 20])
@pytest.mark.parametrize("query", ["phoenix", "kite", "istanbul", "i", '"élan"', "élan", "file.py", "path/to/file.py",
                                   '"quoted"', '"git status"', "tab\tinside", "long phoenix", "summary"])
@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
@pytest.mark.parametrize("last_newline", [True, False])
def test_word_search_on_hostile_lines_equals_a_decode_of_every_line(chunk: int, query: str, newline: bytes,
                                                                   last_newline: bool) -> None:
    data = newline.join(HOSTILE) + (newline if last_newline else b"")
    path = f"proj/{SID}.jsonl"
    source = S.BytesSource({path: data}, chunk)
    g = L.Group(SID, "session", path, {path: L.MAIN})
    words = _words(query)
    want = _every_line(g, source, words)
    assert list(S._text_matches(g, source, words, [0])) == want
    if query in ("phoenix", "kite", "élan", "path/to/file.py", '"git status"'):
        assert len(want) >= 2  # the escaped or other-cased lines among them


def test_an_escaped_word_is_found() -> None:
    """What the byte scan alone missed: a word whose letter is a JSON escape, or the Kelvin sign."""
    path = f"proj/{SID}.jsonl"
    source = S.BytesSource({path: b"\n".join([_record("\\u0070hoenix"), _record("\u212aite")]) + b"\n"})
    g = L.Group(SID, "session", path, {path: L.MAIN})
    assert [m.line for m in S._text_matches(g, source, ("phoenix",), [0])] == [1]
    assert [m.line for m in S._text_matches(g, source, ("kite",), [0])] == [2]


def test_the_search_reads_each_byte_once_and_counts_them() -> None:
    path = f"proj/{SID}.jsonl"
    data = b"\n".join(HOSTILE) + b"\n"
    source = S.BytesSource({path: data}, 100)
    g = L.Group(SID, "session", path, {path: L.MAIN})
    progress = [0]
    assert list(S._text_matches(g, source, ("zzzz",), progress)) == []
    assert progress[0] == len(data)


def test_a_lazy_listing_completed_is_the_listing() -> None:
    lib = Library([str(LIBRARY)])
    full, skipped = list_sessions(lib)
    lazy, lazy_skipped = list_sessions(lib, lazy=True)
    assert skipped == lazy_skipped
    assert [g for _, g in full] == [g for _, g in lazy]
    assert any(s.title_from == L._BARE for s, _ in lazy)  # lazy indeed: not made until asked
    done = [L.complete(s, g, lib.peek) for s, g in lazy]
    assert [msgspec.json.encode(s) for s in done] == [msgspec.json.encode(s) for s, _ in full]
    assert [L.complete(s, g, lib.peek) for s, g in full] == [s for s, _ in full]  # a made one stays as it is


@pytest.mark.parametrize("query", ["phoenix", "tool:bash", "project:relayscope phoenix", "model:opus", "cli:2.1",
                                   "is:error", "file:storage/storage.go"])
def test_a_search_over_a_lazy_listing_finds_the_same_hits(query: str) -> None:
    lib = Library([str(LIBRARY)])
    full, _ = list_sessions(lib)
    lazy, _ = list_sessions(lib, lazy=True)
    want = [h for h in S.search(query, full, lib) if isinstance(h, S.Hit)]
    got = [h for h in S.search(query, lazy, lib, complete=lambda s, g: L.complete(s, g, lib.peek))
           if isinstance(h, S.Hit)]
    assert [msgspec.json.encode(h) for h in got] == [msgspec.json.encode(h) for h in want]


def _binary_slow(data: bytes, size: int) -> bool:
    head = data[:8192]
    bad = head.count(b"\x00")
    if not bad:
        text = head.decode("utf-8", "replace")
        bad = text.count("\ufffd") - (1 if size > len(head) else 0)
        if bad <= max(2, len(text) // 100):
            return False
    return True


@pytest.mark.parametrize("data", [b"", b"{}\n", b"a" * 9000, b"\x00abc", b"ab\x00" * 10, "é".encode() * 5000,
                                  b"\xff\xfe" * 100, b"plain ascii\n" * 1000, "\ufffd".encode() * 10])
def test_binary_reason_ascii_shortcut_says_what_the_decode_says(data: bytes) -> None:
    for size in (len(data), len(data) + 100):
        assert (binary_reason(None, data, size) is not None) == (bool(data) and _binary_slow(data, size))


@pytest.mark.parametrize("size", [0, 1, (1 << 16) - 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 5])
def test_the_cli_reads_a_file_in_chunks_of_what_is_left(tmp_path: Path, size: int) -> None:
    """Each read asks for no more than is left of the file (a read of 1 MB that gets less costs as
    much as the reading): the chunks are the file's bytes, none over 1 MB, none empty."""
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    f = tmp_path / "a.jsonl"
    f.write_bytes(data)
    chunks = list(Library([str(f)]).chunks(str(f)))
    assert b"".join(chunks) == data
    assert all(0 < len(c) <= 1 << 20 for c in chunks)
    assert len(chunks) == -(-size // (1 << 20))


def test_the_cli_reads_a_file_that_grows_as_it_is_read_to_its_new_end(tmp_path: Path) -> None:
    f = tmp_path / "a.jsonl"
    f.write_bytes(b"a" * ((1 << 20) + 10))
    got: list[bytes] = []
    for chunk in Library([str(f)]).chunks(str(f)):
        if not got:
            with f.open("ab") as grow:
                grow.write(b"b" * 100_000)
        got.append(chunk)
    assert b"".join(got) == b"a" * ((1 << 20) + 10) + b"b" * 100_000
