"""Bounded memory for the de-dup state of endless streams.

``Recent`` is a set that forgets its oldest members past a limit. Ids only ever repeat close
to where they first appeared (a message's rows are consecutive, a tool's result follows its
call), so a long window keeps every decision the same while memory stays constant however
long the stream runs.

These sit on the translator's per-line path, so each insertion is one Python call: no
``super()`` (a dict subclass's overridden ``__setitem__`` and a ``super()`` hop each cost
about as much as the insertion itself).

State: whatever each instance holds, up to its limit; cleared only by its owner. Imports nothing
from relayscope.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
LIMIT: Final = 1 << 16

_dict_setitem: Final = dict.__setitem__


class RecentMap(dict[K, V], Generic[K, V]):
    """A dict that drops its oldest entries past ``limit`` (insertion order)."""

    def __init__(self, limit: int = LIMIT) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: K, value: V) -> None:
        _dict_setitem(self, key, value)
        if len(self) > self.limit:
            del self[next(iter(self))]


class Recent(RecentMap[K, None]):
    """A set that forgets its oldest members past ``limit``."""

    def add(self, key: K) -> None:
        # setdefault is the C insertion, bypassing the overridden __setitem__; for a set it is
        # the same thing (re-adding a member keeps its place, as assignment does).
        self.setdefault(key, None)
        if len(self) > self.limit:
            del self[next(iter(self))]
