"""``trace`` and ``audit`` of one input in constant memory: the trace written as its lines come (the
same bytes as the whole input rendered at once), the audit in one pass with every strategy fed
each line in turn (or, of a file read again, a strategy a pass) and of each block only a
digest, its line, first seqs and deflated words kept in flat arrays. Peak memory itself is measured
by bench/memory_bench.py, never asserted here."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from _corpus import FIXTURE_STREAM_JSON, REAL_FILES, ROOT, SEEDS, SESSION_FILES, sweep

from relayscope import relay as R
from relayscope._bounded import WITHDRAW_WINDOW
from relayscope.analysis import Analyzer
from relayscope.audit import Audit, Inventory, StrategyAudit, digest
from relayscope.cli import reading
from relayscope.cli.commands.trace import Table
from relayscope.inputs import Input
from relayscope.multifile import audit_input
from relayscope.redact import Redactor
from relayscope.textout import Names
from relayscope.translator import STRATEGIES
from relayscope.wire import split_lines

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
STREAMING = FIXTURE_STREAM_JSON / "foksa__open-claude-agent-sdk__tests__snapshots__streaming-haiku.jsonl"
MULTITURN = FIXTURE_STREAM_JSON / "GuhyupLee__waifu-agent__tests__fixtures__claude-multiturn.jsonl"


def whole_table(path: Path, json: bool, strategy: str = "lineage") -> bytes:
    """The trace of a file rendered at once from the whole input: what streaming must write."""
    lines = split_lines(path.read_bytes())
    a = Analyzer(strategy, trace=True, keep=True)
    for line in lines:
        a.feed_line(line)
    a.finish()
    args = argparse.Namespace(json=json, lane=None, color="never")
    table = Table(args, Names([], [str(path)]), None)
    return table.render(a.trace, a.relays, lambda s: lines[s.line - 1] if 0 < s.line <= len(lines) else b"")


def streamed_table(path: Path, *extra: str) -> bytes:
    p = subprocess.run([sys.executable, "-m", "relayscope", "trace", "--color", "never", *extra, str(path)],
                       capture_output=True, env={**ENV, "COLUMNS": ""}, timeout=60, check=False)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout


CASES = [*REAL_FILES[:12], *SESSION_FILES[:6], SEEDS / "fleet-parallel.sse", SEEDS / "gotchas.ndjson"]


@pytest.mark.parametrize("path", sweep(CASES, ids=lambda p: p.name[:40]))
def test_trace_written_as_it_comes_is_the_whole_inputs_table(path: Path) -> None:
    assert streamed_table(path) == whole_table(path, json=False)
    assert streamed_table(path, "--json", "-s", "index") == whole_table(path, json=True, strategy="index")


def test_trace_of_a_pipe_writes_each_step_as_its_line_comes() -> None:
    lines = MULTITURN.read_bytes().splitlines(keepends=True)
    proc = subprocess.Popen([sys.executable, "-m", "relayscope", "trace", "--json", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=ENV)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b"".join(lines[:12]))
        proc.stdin.flush()
        first = proc.stdout.read1(1 << 16)  # before the input ends: the steps of the lines so far
        assert first.startswith(b'[{"line":1,')
        proc.stdin.write(b"".join(lines[12:]))
        proc.stdin.close()
        rest = proc.stdout.read()
    finally:
        proc.kill()
        proc.wait()
    assert first + rest == whole_table(MULTITURN, json=True)


def test_audit_of_lines_read_once_is_the_audit_of_the_whole_text() -> None:
    for path in [*REAL_FILES[:8], STREAMING]:
        data = path.read_bytes()
        taken: list[int] = []

        def once(data: bytes = data, taken: list[int] = taken) -> Iterator[bytes]:
            for n, line in enumerate(split_lines(data), 1):
                taken.append(n)
                yield line

        (lazy,) = audit_input(once(), name=path.name, items=False)
        (whole,) = audit_input(data, name=path.name)
        assert lazy.audits == whole.audits and lazy.errors == whole.errors
        assert taken == list(range(1, len(split_lines(data)) + 1))  # each line taken once, in order
        assert lazy.items == {} and len(whole.items) == whole.audits[0].blocks


def one_pass(path: Path, strategies: list[str]) -> tuple[Audit, Inventory, list[StrategyAudit]]:
    lines = split_lines(path.read_bytes())
    inv = Inventory(keep=False)
    audit = Audit(strategies)
    translators = [Analyzer(s, keep=False) for s in strategies]
    for n, line in enumerate(lines, 1):
        inv.add_line(n, line)
        audit.take(inv)
        for k, a in enumerate(translators):
            audit.feed(k, a.feed_line(line))
    for k, a in enumerate(translators):
        audit.feed(k, a.finish())
    inv.finish()
    audit.take(inv)
    return audit, inv, audit.finish()


def test_audit_keeps_of_each_block_a_digest_a_line_and_first_seqs_in_flat_arrays() -> None:
    audit, inv, (none, lineage) = one_pass(SEEDS / "cumulative-dedup.ndjson", ["none", "lineage"])
    assert none.lost == lineage.lost == 0 and none.duplicated == 2 and lineage.duplicated == 0
    n = len(audit.blocks)
    assert n == none.blocks and len(audit.blocks.digests) == 16 * n and len(audit.lines) == len(audit.words) == n
    assert audit.emitted == [b"\x01" * n] * 2  # every block emitted by both: of an ended strategy, a byte a block
    assert inv.items == {}
    audit, _, (index, lineage) = one_pass(SEEDS / "gotchas.ndjson", ["index", "lineage"])
    assert index.lost == 3 and lineage.lost == 0
    assert audit.emitted[0] is not None
    assert sorted(audit.words[b] for b, done in enumerate(audit.emitted[0]) if not done) == sorted(index.lost_keys)


def test_audit_of_a_file_read_again_is_the_audit_of_one_pass() -> None:
    """A file the audit may read again is translated a strategy a pass (only its translator's windows
    held at once), the inventory along the first pass: the same audit as one pass over a pipe."""
    for path in [*REAL_FILES[:8], STREAMING, SEEDS / "gotchas.ndjson"]:
        data = path.read_bytes()
        reads: list[int] = []

        def again(data: bytes = data, reads: list[int] = reads) -> Iterator[bytes]:
            reads.append(1)
            yield from split_lines(data)

        (passes,) = audit_input(iter(split_lines(data)), name=path.name, items=False, again=again)
        (once,) = audit_input(iter(split_lines(data)), name=path.name, items=False)
        assert passes.audits == once.audits and passes.errors == once.errors, path.name
        assert len(reads) == len(STRATEGIES) - 1  # a pass a strategy


def test_a_file_read_again_is_read_as_far_as_the_first_pass_read_it() -> None:
    """A file that grows while it is audited (a session still written) is audited as it was when
    the first pass reached its end: the later passes read no further."""
    data = STREAMING.read_bytes()
    grown = data + b"".join(split_lines((SEEDS / "gotchas.ndjson").read_bytes()))
    (passes,) = audit_input(iter(split_lines(data)), items=False, again=lambda: iter(split_lines(grown)))
    (once,) = audit_input(data, items=False)
    assert passes.audits == once.audits


def test_a_streamed_block_is_found_when_its_message_ends_not_at_the_end_of_the_input() -> None:
    lines = split_lines(STREAMING.read_bytes())
    inv = Inventory(keep=False)
    found_at: dict[bytes, int] = {}
    for n, line in enumerate(lines, 1):
        inv.add_line(n, line)
        for key, _, _ in inv.fresh:
            found_at.setdefault(digest(key), n)
        inv.fresh.clear()
        if b'"type":"result"' in line:
            assert inv.streams == {}  # the run ended: no streamed text held past it
    inv.finish()
    streamed = [d for d, n in found_at.items() if n < len(lines)]
    assert streamed and not inv.fresh


def test_audit_command_reads_a_pipe_without_holding_it_and_says_the_same() -> None:
    data = STREAMING.read_bytes()
    piped = subprocess.run([sys.executable, "-m", "relayscope", "audit", "--json", "-"], input=data,
                           capture_output=True, env=ENV, timeout=60, check=False)
    named = subprocess.run([sys.executable, "-m", "relayscope", "audit", "--json", str(STREAMING)],
                           capture_output=True, env=ENV, timeout=60, check=False)
    assert piped.returncode == named.returncode == 0 and piped.stdout == named.stdout
    assert [a["strategy"] for a in json.loads(piped.stdout)] == list(STRATEGIES)


def test_trace_ended_by_ctrl_c_mid_way_closes_its_json_array() -> None:
    lines = MULTITURN.read_bytes().splitlines(keepends=True)
    proc = subprocess.Popen([sys.executable, "-m", "relayscope", "trace", "--json", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=ENV)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(lines[:12]))
    proc.stdin.flush()
    first = proc.stdout.read1(1 << 16)
    time.sleep(0.2)
    proc.send_signal(2)
    rest = proc.stdout.read()
    proc.stdin.close()
    assert proc.wait(timeout=30) == 130
    out = io.BytesIO(first + rest).getvalue()
    assert out.startswith(b"[") and out.endswith(b"]\n")
    json.loads(out)


def test_a_refusal_fallback_withdraws_recent_messages_only_in_translator_and_audit() -> None:
    """What a fallback may withdraw is remembered for the last WITHDRAW_WINDOW messages (it names
    the request just refused), by the translator and the audit alike: the memory of 64 K messages'
    relays per translator was the largest part of the commands' peak."""

    def asst(n: int) -> dict[str, object]:
        return {"type": "assistant", "uuid": f"u-{n}", "parent_tool_use_id": None, "session_id": "s",
                "message": {"id": f"msg_{n}", "role": "assistant", "content": [{"type": "text", "text": f"t{n}"}]}}

    old, recent = 0, WITHDRAW_WINDOW + 1
    lines = [json.dumps(x).encode() for x in [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "m", "tools": []},
        *(asst(n) for n in range(recent + 1)),
        {"type": "system", "subtype": "model_refusal_fallback", "retracted_message_uuids": [f"u-{old}", f"u-{recent}"]},
    ]]
    a = Analyzer("lineage", keep=True)
    for line in lines:
        a.feed_line(line)
    a.finish()
    (fallback,) = [r for r in a.relays if isinstance(r, R.System)]
    texts = {r.seq: r.text for r in a.relays if isinstance(r, R.TextDelta)}
    assert [texts[q] for q in fallback.retracts] == [f"t{recent}"]
    (lineage,) = audit_input(lines, ["lineage"], items=False)[0].audits
    assert lineage.retracted == 1 and lineage.lost == 0


def test_one_pass_audit_pauses_as_often_as_one_translator_would() -> None:
    """The page pauses the audit between slices to answer the reader: with every strategy fed each
    line in one pass, a slice is SLICE_BYTES of one translator's work, not of four at once."""
    from relayscope.analysis import SLICE_BYTES
    from relayscope.multifile import audit_steps

    lines = [line for p in REAL_FILES[:12] for line in split_lines(p.read_bytes())]
    steps = audit_steps(lines)
    pauses = []
    while True:
        try:
            pauses.append(next(steps))
        except StopIteration:
            break
    work = sum(map(len, lines)) * (len(STRATEGIES) + 1)
    assert len(pauses) >= 0.8 * work / SLICE_BYTES  # (one pass counted by its bytes alone: a fifth of this)
    assert pauses == sorted(pauses) and pauses[-1] == 1.0


def test_an_audit_for_a_table_keeps_no_list_of_lost_blocks_and_counts_the_same() -> None:
    """The table prints the first lost and duplicated block of each strategy, never the lists: the
    text form builds none (the words of tens of thousands of lost blocks, at the end of a long run)."""
    lists: list[str] = []
    for seed in ("gotchas.ndjson", "cumulative-dedup.ndjson"):
        data = (SEEDS / seed).read_bytes()
        (table,) = audit_input(data, items=False, keys=False)
        (whole,) = audit_input(data, items=False)
        lists += [k for a in whole.audits for k in (*a.lost_keys, *a.duplicated_keys)]
        assert all(a.lost_keys == [] and a.duplicated_keys == [] for a in table.audits)
        blank = [msgspec.structs.replace(a, lost_keys=[], duplicated_keys=[]) for a in whole.audits]
        assert table.audits == blank
    assert lists  # the seeds have lost and duplicated blocks to leave out


def test_only_a_file_over_the_one_pass_size_is_read_again(tmp_path: Path) -> None:
    """Under ``reading.ONE_PASS_BYTES`` one pass holds little and a second read would only cost time;
    above it the audit reads the file a strategy a pass (a sparse file: no bytes written)."""
    args = argparse.Namespace(redact=False)
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    small.write_bytes((SEEDS / "gotchas.ndjson").read_bytes())
    with big.open("wb") as f:
        f.truncate(reading.ONE_PASS_BYTES)
    assert reading.read_again(Input(str(small)), args) is None
    assert callable(reading.read_again(Input(str(big)), args))
    assert reading.read_again(Input(str(big)), argparse.Namespace(redact=True, _redactor=Redactor())) is None
