"""_compact: digests numbered in flat arrays, and strings kept deflated, read back as they went in."""

from __future__ import annotations

from hashlib import blake2b

import pytest

from relayscope._compact import CHUNK, DIGEST, DigestIndex, Texts


def d(n: int) -> bytes:
    return blake2b(str(n).encode(), digest_size=DIGEST).digest()


def test_digests_are_numbered_in_the_order_added_and_found_by_their_bytes() -> None:
    index = DigestIndex()
    count = 20_000  # the table grows several times
    assert [index.add(d(n)) for n in range(count)] == list(range(count))
    assert [index.add(d(n)) for n in range(0, count, 7)] == list(range(0, count, 7))  # added again: its number
    assert len(index) == count and len(index.digests) == DIGEST * count
    assert all(index.find(d(n)) == n for n in range(count))
    assert index.find(d(count)) == index.find(d(-1)) == -1


def test_digests_that_share_their_low_bytes_are_told_apart() -> None:
    index = DigestIndex()
    same_low = [bytes(8) + bytes([n]) * 8 for n in range(1, 200)]  # every one hashed to the same slot
    assert [index.add(x) for x in same_low] == list(range(199))
    assert [index.find(x) for x in reversed(same_low)] == list(reversed(range(199)))
    with pytest.raises(ValueError, match="16 bytes"):
        index.add(b"short")


def test_texts_come_back_as_appended_across_chunks_whatever_they_hold() -> None:
    texts = Texts()
    made = [f"text {n} \n\x00 \ud800 \u2028 é {'x' * (n % 97)}" for n in range(3 * CHUNK + 5)]
    made[CHUNK - 1] = ""
    for text in made:
        texts.append(text)
    assert len(texts) == len(made)
    assert [texts[n] for n in range(len(made))] == made  # in order: each chunk read once
    assert [texts[n] for n in reversed(range(len(made)))] == list(reversed(made))
    assert texts[2 * CHUNK + 1] == made[2 * CHUNK + 1] and texts[1] == made[1]
    with pytest.raises(IndexError):
        texts[len(made)]
