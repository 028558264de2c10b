"""Bounded memory for the de-dup state of endless streams.

``Recent`` is a set that forgets its oldest members past a limit. Ids only ever repeat close
to where they first appeared (a message's rows are consecutive, a tool's result follows its
call), so a long window keeps every decision the same while memory stays constant however
long the stream runs.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
LIMIT: Final = 1 << 16


class RecentMap(dict[K, V], Generic[K, V]):
    """A dict that drops its oldest entries past ``limit`` (insertion order)."""

    def __init__(self, limit: int = LIMIT) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        if len(self) > self.limit:
            del self[next(iter(self))]


class Recent(RecentMap[K, None]):
    """A set that forgets its oldest members past ``limit``."""

    def add(self, key: K) -> None:
        self[key] = None
