"""Bounded memory for the de-dup state of endless streams.

``Recent`` is a set that forgets its oldest members past a limit. Ids only ever repeat close
to where they first appeared (a message's rows are consecutive, a tool's result follows its
call), so a long window keeps every decision the same while memory stays constant however
long the stream runs.

These sit on the translator's per-line path, so each insertion is one Python call: no
``super()`` (a dict subclass's overridden ``__setitem__`` and a ``super()`` hop each cost
about as much as the insertion itself). Forgetting is O(1) too: the keys are also kept in a
deque, oldest first. Finding the oldest key with ``next(iter(dict))`` instead walks past every
entry deleted before it, which at the limit cost ~5 us per insertion for 4,096 entries and
~50 us for 65,536 (a stream past the limit slowed to a crawl).

Entries leave only that way or by ``clear``: no ``del``/``pop`` of single keys, and insertions go
through ``[key] = value`` / ``add`` (``setdefault`` and ``update`` would bypass the bound).

State: whatever each instance holds, up to its limit; cleared only by its owner. ``checkpoint``
gives it as immutable values (the keys oldest first, their values) and ``restore`` puts such values
back: a tuple of keys is a quarter of a copy's size and ~4 times faster to take (the web page keeps
checkpoints of a translator, ``Translator.checkpoint``). Imports nothing from relayscope.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Final, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
LIMIT: Final = 1 << 16
# Messages a ``system/model_refusal_fallback`` may withdraw (the translator's and the audit's
# memory of which content relays and blocks each recent message had): it names the messages of
# the request just refused, never old ones, and a window of LIMIT cost ~16 MB per translator.
WITHDRAW_WINDOW: Final = 1 << 12

_dict_setitem: Final = dict.__setitem__
_dict_clear: Final = dict.clear
_dict_update: Final = dict.update


class RecentMap(dict[K, V], Generic[K, V]):
    """A dict that drops its oldest entries past ``limit`` (insertion order)."""

    def __init__(self, limit: int = LIMIT) -> None:
        super().__init__()
        self.limit = limit
        self._order: deque[K] = deque()  # the keys, oldest first

    def __setitem__(self, key: K, value: V) -> None:
        if key in self:  # a new value keeps the key's place, as in a dict
            _dict_setitem(self, key, value)
            return
        _dict_setitem(self, key, value)
        order = self._order
        order.append(key)
        if len(order) > self.limit:
            del self[order.popleft()]

    def clear(self) -> None:
        _dict_clear(self)
        self._order.clear()

    def checkpoint(self) -> tuple[int, tuple[K, ...], tuple[V, ...]]:
        """The limit, the keys oldest first and their values: immutable, for ``restore``. The
        values themselves are the map's: an owner whose values change in place copies them."""
        # the dict's order is the keys' (insertion order; only the oldest leave), so values() pairs up
        return self.limit, tuple(self._order), tuple(self.values())

    def restore(self, checkpoint: tuple[int, tuple[K, ...], tuple[V, ...]]) -> None:
        """Hold what ``checkpoint`` held, and nothing else."""
        self.limit, keys, values = checkpoint
        _dict_clear(self)
        _dict_update(self, zip(keys, values, strict=True))
        self._order = deque(keys)


class Recent(RecentMap[K, None]):
    """A set that forgets its oldest members past ``limit``."""

    def checkpoint(self) -> tuple[int, tuple[K, ...], tuple[None, ...]]:
        return self.limit, tuple(self._order), ()  # the values are all None: not kept

    def restore(self, checkpoint: tuple[int, tuple[K, ...], tuple[None, ...]]) -> None:
        self.limit, keys, _ = checkpoint
        _dict_clear(self)
        _dict_update(self, dict.fromkeys(keys))
        self._order = deque(keys)

    def add(self, key: K) -> None:
        # RecentMap.__setitem__ written out again: a shared helper would be a second call per id
        if key in self:  # re-adding a member keeps its place
            return
        _dict_setitem(self, key, None)
        order = self._order
        order.append(key)
        if len(order) > self.limit:
            del self[order.popleft()]
