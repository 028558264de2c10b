"""The drift report counted as a translator decodes (``Drift.decode``, one decode for a line with
nothing new) is the report of the reference pass over the raw lines (``drift_of``: a decode of
each line's top-level keys), on every fixture, the shared corpus and lines made to be awkward."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from _corpus import FIXTURES, HAVE_SHARED, NO_SHARED, SHARED_REAL

from relayscope import drift
from relayscope.analysis import Analyzer
from relayscope.drift import COMMON, Drift, drift_of
from relayscope.web import model
from relayscope.wire import Event, Frame, decode_line, split_lines

FIXTURE_FILES = sorted(p for p in FIXTURES.parent.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".log", ".txt"))
SHARED_FILES = sorted(p for p in SHARED_REAL.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".log")) \
    if HAVE_SHARED else []

INIT = {"type": "system", "subtype": "init", "session_id": "s1", "model": "m", "tools": [], "cwd": "/"}
AWKWARD = [
    json.dumps(INIT).encode(),
    b"\xef\xbb\xbf" + json.dumps({"type": "brand_new", "zz": 1}).encode(),  # a BOM before a new type
    json.dumps({"type": None, "uuid": "u"}).encode(),  # a null type: "?" in the reference
    json.dumps({"uuid": "u2"}).encode(),  # no type at all
    json.dumps({"type": "system", "subtype": None}).encode(),  # a null subtype
    json.dumps({"type": "system", "content": "bare"}).encode(),  # a bare system line (known)
    json.dumps({"type": 5, "new_f": 1}).encode(),  # a type of the wrong type (salvaged)
    json.dumps({"type": "assistant", "message": "not an object"}).encode(),
    b'{"type": "user", "version": "2.1", "userType": "external", "gitBranch": "x"}',  # common known fields
    b'{"type": "result", "hookInfos": [], "stopReason": null}',  # rarer known fields
    b'{"type": "result", "hookInfos": [], "zz_new": 1}',  # a rare known field and a new one
    b'{"type": "user", "text": "caf\xe9 bad bytes", "qq": 2}',  # not UTF-8
    b'{"type": "user", "message": {"content": "\\ud83d cut"}, "q2": 1}',  # a lone surrogate escape
    b'{"type": "foo", "type": "system", "subtype": "bar"}',  # a key twice: the last wins
    b'{"type": "tick"}\r',  # CRLF
    b"", b"   ", b"not json", b"[1, 2]", b'"a string"', b"{",
    json.dumps({"type": "system", "subtype": "brand_new_sub", "session_id": "s"}).encode(),
    b'{"type": "assistant", "message": {"role": "assistant", "content": []}, "brand_new_field": {"a": [1]}}',
]


def counted(lines: list[bytes], fmt: str = "auto") -> drift.DriftReport:
    a = Analyzer("lineage", fmt, keep=False, drift=True)
    for line in lines:
        a.feed_line(line)
    a.finish()
    assert a.drift is not None
    return a.drift.report()


def plain(frame: Frame) -> dict[str, Any]:
    """A frame as values, its event's ``Event`` fields only (``Known`` has more)."""
    out = msgspec.structs.asdict(frame)
    ev = out.pop("event")
    out["event"] = None if ev is None else {f: getattr(ev, f) for f in Event.__struct_fields__}
    return out


def test_decode_gives_the_frame_decode_line_gives_and_the_reference_report_on_awkward_lines() -> None:
    d = Drift()
    for number, line in enumerate(AWKWARD, 1):
        assert plain(d.decode(line, number)) == plain(decode_line(line, number)), line
    d = Drift()
    for number, line in enumerate(AWKWARD, 1):
        d.decode(line, number)
    want = drift_of(AWKWARD)
    assert d.report() == want
    assert want.records == 11 and "?" in want.types and "system/?" in want.types  # the reference's own words


@pytest.mark.parametrize("fmt", ["stream-json", "session"])
def test_the_translation_counts_the_reference_report_on_awkward_lines(fmt: str) -> None:
    assert counted(AWKWARD, fmt) == drift_of(AWKWARD)


@pytest.mark.parametrize("path", FIXTURE_FILES + SHARED_FILES, ids=lambda p: p.name)
def test_the_translation_counts_the_reference_report_on_every_input(path: Path) -> None:
    lines = split_lines(path.read_bytes())
    assert counted(lines) == drift_of(lines)


def test_the_shared_corpus_was_swept() -> None:
    if not HAVE_SHARED:
        pytest.skip(NO_SHARED)
    assert len(SHARED_FILES) > 20


def test_a_line_with_nothing_new_is_decoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of ``Drift.decode``: no second decode of a line whose keys are all common."""
    calls = []
    real = drift.drift_line
    monkeypatch.setattr(drift, "drift_line", lambda text: calls.append(text) or real(text))
    known = [json.dumps(INIT).encode(), b'{"type": "user", "version": "2", "userType": "external", "session_id": "s"}',
             b'{"type": "stream_event", "event": {"type": "message_stop"}, "session_id": "s"}']
    assert counted(known).empty and calls == []
    assert counted([b'{"type": "user", "qq_new": 1}']).fields == {"qq_new": 1} and len(calls) == 1
    assert all(f in drift.FIELDS for f in COMMON)


def test_the_workspace_counts_drift_during_the_load_and_gives_it_publicly() -> None:
    text = b"\n".join(AWKWARD)
    ws = model.Workspace()
    for _ in ws.load(text):
        pass
    assert ws.drift_report() == drift_of(AWKWARD)
    files = {"a.jsonl": text, "b.jsonl": b"\n".join(AWKWARD[:3])}
    many = model.Workspace()
    for _ in many.load(files):
        pass
    ref = Drift()
    for name, content in files.items():
        for number, line in enumerate(split_lines(content), 1):
            ref.add(number, line, name)
    assert many.drift_report() == ref.report()


def test_a_session_folder_on_the_page_counts_what_the_reference_counts() -> None:
    """A folder's session files are translated together (sub-agent files after their spawn): the
    same records, types, fields and (file, line) as the reference over each file in turn."""
    folder = FIXTURES / "session-jsonl" / "d-kimuson__claude-code-viewer"
    files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    files["made-up.jsonl"] = b"\n".join(AWKWARD)  # and something new, so that there is drift to compare
    ws = model.Workspace()
    for _ in ws.load(files):
        pass
    ref = Drift()
    for name, content in files.items():
        if not name.endswith(".meta.json"):
            for number, line in enumerate(split_lines(content), 1):
                ref.add(number, line, name)
    got, want = ws.drift_report(), ref.report()
    assert got is not None and want.records > 0
    assert (got.records, got.types, got.fields) == (want.records, want.types, want.fields)
    assert sorted(zip(got.files, got.lines, strict=True), key=str) == sorted(zip(want.files, want.lines, strict=True), key=str)


def test_translate_of_a_session_folder_says_each_files_drift_as_its_translation_counted_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Files translated together (a session folder): each file's line on stderr, from the count
    the session translator kept per file; only lines with something new are read again."""
    folder = FIXTURES / "session-jsonl" / "d-kimuson__claude-code-viewer" / "mock-global-claude-dir" / "projects"
    for p in folder.rglob("*.jsonl"):
        lines = split_lines(p.read_bytes())
        record = json.loads(lines[0])
        record["zz_brand_new"] = 1
        (tmp_path / p.name).write_bytes(b"\n".join([*lines, json.dumps(record).encode()]) + b"\n")
    calls = []
    real = drift.drift_line
    monkeypatch.setattr(drift, "drift_line", lambda text: calls.append(text) or real(text))
    from relayscope import cli
    assert cli.main(["translate", str(tmp_path)]) == 0
    read_again = len(calls)
    err = capsys.readouterr().err
    names = sorted(p.name for p in tmp_path.iterdir())
    for name in names:
        n = len(split_lines((tmp_path / name).read_bytes()))
        assert f"{name}: records with fields new to relayscope" in err, err
        assert drift_of(split_lines((tmp_path / name).read_bytes())).fields == {"zz_brand_new": 1}, n
    total = sum(len(split_lines((tmp_path / name).read_bytes())) for name in names)
    assert read_again <= 4 < total, (read_again, total)  # the new lines (and few others), not every line again


def test_steps_made_again_from_checkpoints_do_not_count_drift_twice() -> None:
    """A step looked at is made again by a fresh translator restored from a checkpoint; the drift the
    load counted must stay what the input holds, however many steps are made again."""
    lines = [json.dumps({"type": "system", "subtype": "init", "session_id": "s", "model": "m", "tools": []})]
    for i in range(300):
        lines.append(json.dumps({"type": "assistant", "message": {"id": f"msg_{i}", "role": "assistant", "content": [
            {"type": "text", "text": f"t{i}"}]}, "session_id": "s", "future_field": i}))
        if i % 7 == 0:
            lines.append(json.dumps({"type": "brand_new_record", "n": i}))
    ws = model.Workspace()
    for _ in ws.load(("\n".join(lines) + "\n").encode()):
        pass
    before = ws.drift_report()
    assert before is not None and before.types == {"brand_new_record": 43} and before.fields["future_field"] == 300
    n = ws.step_count()
    for i in (n - 1, 0, n // 2, 5, n - 2):
        ws.step(i)
    assert ws.drift_report() == before
