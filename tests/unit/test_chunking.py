"""Feeding a transcript whole, line by line, or in random chunks gives identical relays
(after h11's test_io: the same input in any framing, the same events)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from _corpus import REAL_FILES, SEEDS, sweep

from relayscope.analysis import Analyzer
from relayscope.relay import encode_ndjson

INPUTS = [*sorted(SEEDS.glob("*.ndjson")), SEEDS / "fleet-parallel.sse",
          *(p for p in REAL_FILES if p.stat().st_size < 1_000_000)]


def run(chunks: list[bytes] | list[str], strategy: str) -> bytes:
    a = Analyzer(strategy)
    for chunk in chunks:
        a.feed_text(chunk)
    a.finish()
    return encode_ndjson(a.relays)


def random_split(data: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(1, 60))))
    return [data[i:j] for i, j in zip([0, *cuts], [*cuts, len(data)], strict=True)]


@pytest.mark.parametrize("path", sweep(INPUTS, lambda p: p.name[:50]))
@pytest.mark.parametrize("strategy", ["lineage", "fingerprint"])
def test_whole_lines_and_random_chunks_agree(path: Path, strategy: str) -> None:
    data = path.read_bytes()
    whole = run([data], strategy)
    assert whole, "nothing emitted"
    assert run([line + b"\n" for line in data.split(b"\n")], strategy) == whole
    rng = random.Random(path.name)
    for _ in range(3):
        assert run(random_split(data, rng), strategy) == whole
    # text (str) input and a one-character-at-a-time feed of the first lines, too
    assert run([data.decode()], strategy) == whole
    head = data[:3000].decode("utf-8", "ignore")
    assert run(list(head), strategy) == run([head], strategy)


def test_crlf_input_gives_the_same_relays() -> None:
    data = (SEEDS / "interleaved-subagents.ndjson").read_bytes()
    assert run([data.replace(b"\n", b"\r\n")], "lineage") == run([data], "lineage")


def test_u2028_inside_json_strings_does_not_split_lines() -> None:
    line = '{"type":"user","message":{"content":"a\u2028b\u0085c"}}\n'
    a = Analyzer("lineage", "stream-json")
    a.feed_text(line * 2)
    a.finish()
    assert a.lines == 2 and not a.errors
