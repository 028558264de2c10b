"""Never raise, never drop: property tests over every entry point with hostile,
structured input (``_gen``). For each: no exception escapes, every input line is accounted
for (a trace step of its own: emitted, skipped with a reason, ignored, or an ``error``
relay), and every relay matches docs/relay-events.md (``_schema``).

Deterministic under ``make test`` (profile ``ci``); ``make fuzz`` runs them randomized."""

from __future__ import annotations

from typing import Any

import _gen
from _schema import check_relays
from hypothesis import given
from hypothesis import strategies as st

from relayscope import relay as R
from relayscope import trace as T
from relayscope.analysis import Analyzer
from relayscope.audit import inventory
from relayscope.emitter import Emitter
from relayscope.formats.session import SessionTranslator
from relayscope.formats.sse import FleetTranslator
from relayscope.multifile import audit_input, audit_lines, translate_files
from relayscope.translator import STRATEGIES, Translator
from relayscope.web.model import Workspace, decode_share, encode_share

strategies = st.sampled_from(sorted(STRATEGIES))


def accounted(steps: list[T.TraceStep], relays: list[R.Relay], n: int) -> None:
    """Every line 1..n has a step; a step that is an error has its error relay."""
    lines = sorted({s.line for s in steps if s.kind != "end of input"} | {
        line for s in steps if s.to_line is not None for line in range(s.line, s.to_line + 1)})
    assert lines == list(range(1, n + 1)), "some input lines have no trace step"
    errors = {r.seq for r in relays if isinstance(r, R.Error)}
    for s in steps:
        if s.decision == T.ERROR:
            assert errors.intersection(s.seqs), f"line {s.line}: an error step without its error relay"


def survives(t: Emitter, lines: list[bytes] | list[str]) -> None:
    """Feed ``lines`` one by one and finish: relays match the schema, every line is accounted."""
    relays = [r for line in lines for r in t.feed_line(line)] + t.finish()
    check_relays(relays)
    accounted(t.trace, relays, len(lines))


def physical_lines(data: bytes) -> int:
    """Lines as the package splits them: on \\n, a final newline ending the last line."""
    return 0 if not data else data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


@given(_gen.streams(), strategies)
def test_translator_survives_anything(lines: list[bytes], strategy: str) -> None:
    t = Translator(strategy, trace=True)
    survives(t, lines)


@given(_gen.streams().map(lambda lines: [line.decode("utf-8", "surrogateescape") for line in lines]), strategies)
def test_translator_survives_any_str(lines: list[str], strategy: str) -> None:
    """``str`` input as a browser hands it over: may hold lone surrogates (here: escaped bytes)."""
    t = Translator(strategy, trace=True)
    survives(t, lines)


@given(_gen.streams(), st.lists(st.integers(0, 10_000), max_size=4), strategies)
def test_analyzer_in_any_chunks(lines: list[bytes], cuts: list[int], strategy: str) -> None:
    data = b"\n".join(lines)
    a = Analyzer(strategy, trace=True)
    at = 0
    for cut in sorted(c % (len(data) + 1) for c in cuts):
        a.feed_text(data[at:cut])
        at = cut
    a.feed_text(data[at:])
    relays = a.finish()
    check_relays(a.relays)
    assert relays == [] or relays[-1] in a.relays
    accounted(a.trace, a.relays, physical_lines(data))


@given(_gen.sse_streams())
def test_sse_survives_anything(lines: list[bytes]) -> None:
    t = FleetTranslator(trace=True)
    survives(t, lines)


@given(_gen.streams(), strategies)
def test_session_translator_survives_anything(lines: list[bytes], strategy: str) -> None:
    t = SessionTranslator(strategy, trace=True)
    survives(t, lines)


FILE_NAMES = ["s.jsonl", "agent-a1.jsonl", "s/subagents/agent-u1.jsonl", "agent-a1.meta.json",
              "s/subagents/agent-u1.meta.json", "fleet.sse", "x.jsonl"]


@st.composite
def file_sets(draw: st.DrawFn) -> dict[str, bytes]:
    files = {}
    for name in draw(st.lists(st.sampled_from(FILE_NAMES), max_size=4, unique=True)):
        if name.endswith(".meta.json"):
            files[name] = draw(st.sampled_from([b'{"toolUseId":"toolu_A","agentType":"x"}', b"\xff{", b"[]",
                                                b'{"toolUseId":5}', b'{"spawnDepth":"deep"}']))
        elif name.endswith(".sse"):
            files[name] = b"\n".join(draw(_gen.sse_streams()))
        else:
            files[name] = b"\n".join(draw(_gen.streams()))
    return files


@given(file_sets(), strategies)
def test_translate_files_survives_anything(files: dict[str, bytes], strategy: str) -> None:
    for result in translate_files(files, strategy, trace=True):
        check_relays(result.relays)
        for name in result.files:
            n = physical_lines(files[name])
            steps = [s for s in result.trace if s.file == name or (s.file is None and len(result.files) == 1)]
            if result.format != "sse":
                got = sorted({s.line for s in steps if s.kind != "end of input"})
                assert got == list(range(1, n + 1)), name


@given(_gen.streams())
def test_audit_survives_anything(lines: list[bytes]) -> None:
    inventory(lines)
    for a in audit_lines(lines):
        assert a.blocks >= 0 and a.lost >= 0
    for group in audit_input(b"\n".join(lines)):
        assert all(a.unmatched >= 0 for a in group.audits)


@given(file_sets())
def test_audit_of_any_files_survives(files: dict[str, bytes]) -> None:
    for group in audit_input(files):
        assert all(a.blocks >= 0 for a in group.audits)


@given(st.one_of(_gen.streams().map(lambda lines: b"\n".join(lines)),
                 _gen.sse_streams().map(lambda lines: b"\n".join(lines)), file_sets()),
       strategies)
def test_workspace_survives_anything(data: Any, strategy: str) -> None:
    ws = Workspace()
    for _ in ws.load(data, name="input", strategy=strategy):
        pass
    check_relays(ws.relays)
    for _ in ws.run_audit():
        pass
    assert ws.audit is not None or ws.audit_error is not None
    for seq in range(min(len(ws.relays), 5)):
        row = ws.row(seq)
        assert row.detail is not None and row.raw is not None
    for i in range(min(ws.step_count(), 5)):
        ws.step(i)
    ws.filter("a b", types=["text_delta"])
    ws.error_summary()
    ws.not_a_transcript()


@given(st.one_of(st.text(max_size=60), st.text(max_size=60).map(lambda s: "v1." + s),
                 st.binary(max_size=60).map(lambda b: "v1." + b.hex())))
def test_decode_share_only_ever_says_no_in_words(fragment: str) -> None:
    try:
        text, state = decode_share(fragment)
    except ValueError as exc:
        assert str(exc)
    else:
        assert isinstance(text, str) and isinstance(state, dict)


@given(_gen.streams())
def test_share_links_round_trip(lines: list[bytes]) -> None:
    text = b"\n".join(lines).decode("utf-8", "replace")
    fragment = encode_share(text, {"strategy": "index"})
    if fragment is not None:
        assert decode_share(fragment) == (text, {"strategy": "index"})
