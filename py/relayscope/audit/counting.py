"""Each strategy's relays counted against the inventory: kept, lost, repeated."""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from .. import relay as R
from .._compact import DigestIndex, Texts
from ..lanes import Lane
from ..subagents import LaneStates, check_states
from ..usage import Tally
from .items import Digest, Inventory, Item, Key, StrategyAudit, describe, digest
from .keys import RelayKeys

_STREAMED: Final = (R.TextDelta, R.ThinkingDelta)


class Audit:
    """Each strategy's relays (``feed(k, relays)``, strategy ``k`` of ``strategies``) counted against
    the blocks the inventories found (``take``), as both come: the module doc says what is kept.
    A relay's block is looked up when it is whole; one no inventory has found yet waits for ``finish``.
    The strategies may be fed one after another (each over the whole input, the inventory taken
    along the first) or side by side. ``finish`` gives a :class:`StrategyAudit` per strategy."""

    def __init__(self, strategies: Sequence[str]) -> None:
        self.strategies = list(strategies)
        n = len(self.strategies)
        # of block b (numbered as found): its digest's number is b; the line it was found on; the
        # first seq + 1 each strategy emitted it with (0: not yet), from its first relay to its end,
        # then only whether it did (a byte); its words (deflated)
        self.blocks = DigestIndex()
        self.lines = array("I")
        self.firsts = [array("I") for _ in range(n)]
        self.emitted: list[bytes | None] = [None] * n
        self._growing: dict[int, array[int]] = {}  # the firsts of the strategies fed and not ended
        self.words = Texts()
        self.files: dict[int, str] = {}  # the file of a block found in one of several
        self.withdrawn: set[Digest] = set()
        self._keys = [RelayKeys(ends=True) for _ in range(n)]
        self._dups: list[dict[int, list[Any]]] = [{} for _ in range(n)]  # block -> [words, line, seqs]
        self._waiting: list[list[tuple[Key, int]]] = [[] for _ in range(n)]
        self._relays = [0] * n
        self._tokens = [Tally() for _ in range(n)]
        self._states = [LaneStates() for _ in range(n)]  # sub-agent lanes as the relays tell (subagents)
        self._results: list[list[R.TurnComplete]] = [[] for _ in range(n)]  # with the CLI's sub-agent count
        self._ended: list[tuple[dict[str, Any], dict[str, Any]] | None] = [None] * n  # (tokens, subagents)
        self._unmatched = [0] * n

    def take(self, inventory: Inventory) -> None:
        """The blocks ``inventory`` found since the last take (and those its lines withdrew)."""
        for key, line, d in inventory.fresh:
            self._found(key, line, inventory.file, d)
        inventory.fresh.clear()
        self.withdrawn |= inventory.withdrawn

    def add_items(self, items: dict[Key, Item]) -> None:
        """Blocks found beforehand (an inventory kept whole)."""
        for key, item in items.items():
            d = digest(key)
            self._found(key, item.line, item.file, d)
            if item.retracted:
                self.withdrawn.add(d)

    def _found(self, key: Key, line: int, file: str | None, d: Digest) -> None:
        blocks = self.blocks
        n = len(blocks)
        if blocks.add(d) == n:
            self.lines.append(line)
            for firsts in self._growing.values():
                firsts.append(0)
            self.words.append(describe(key))
            if file is not None:
                self.files[n] = file

    def _start(self, k: int) -> None:
        """Strategy ``k``'s first relays: its firsts kept from now (a strategy translated in a later
        pass holds none while the first pass runs)."""
        firsts = self.firsts[k]
        if k not in self._growing:
            firsts.frombytes(bytes(firsts.itemsize * (len(self.blocks) - len(firsts))))
            self._growing[k] = firsts

    def feed(self, k: int, relays: Sequence[R.Relay]) -> None:
        if k not in self._growing:
            self._start(k)
        keys, count = self._keys[k], self._count
        self._relays[k] += len(relays)
        self._tokens[k].feed(relays)
        states, results = self._states[k], self._results[k]
        for relay in relays:
            states.add(relay)
            if type(relay) is R.TurnComplete and "subagent_stats" in relay.extra:
                results.append(relay)
            found = keys.feed(relay)
            if keys.ended:
                for key, first in keys.ended:
                    count(k, key, first)
                keys.ended.clear()
            if found is not None and not isinstance(relay, _STREAMED):
                count(k, found[0], found[1])

    def _count(self, k: int, key: Key, seq: int) -> None:
        b = self.blocks.find(digest(key))
        if b < 0:
            self._waiting[k].append((key, seq))
            return
        firsts = self.firsts[k]
        first = firsts[b]
        if first == 0:
            firsts[b] = seq + 1
            return
        dup = self._dups[k].get(b)
        if dup is None:
            self._dups[k][b] = [describe(key), self.lines[b], [first - 1, seq]]
        else:
            dup[2].append(seq)

    def end(self, k: int, lanes: Mapping[str, Lane] | None = None) -> None:
        """No relay of strategy ``k`` follows and no block is found after (the inventories taken and
        finished): its last streamed blocks are whole, its relays whose blocks were found late counted,
        its tokens and sub-agents (``lanes``: as in ``finish``) too, and what counted them let go."""
        if self._ended[k] is not None:
            return
        self._start(k)
        keys = self._keys[k]
        keys.end()
        for key, first in keys.ended:
            self._count(k, key, first)
        keys.ended.clear()
        waiting, self._waiting[k] = self._waiting[k], []
        for key, seq in waiting:  # found after its relays came, or never
            if self.blocks.find(digest(key)) >= 0:
                self._count(k, key, seq)
            else:
                self._unmatched[k] += 1
        firsts = self._growing.pop(k)
        self.emitted[k], self.firsts[k] = bytes(map(bool, firsts)), array("I")
        found = check_states(self._states[k], self._results[k], lanes)
        self._ended[k] = (msgspec.to_builtins(self._tokens[k].report()),
                          msgspec.to_builtins(found) if found is not None else {})
        self._tokens[k], self._states[k], self._results[k] = Tally(), LaneStates(), []

    def finish(self, lanes: Sequence[Mapping[str, Lane] | None] = (), keys: bool = True) -> list[StrategyAudit]:
        """End of the input (the inventories taken and finished before); ``lanes``: each strategy's
        translator's, whose sub-agent transcripts the input lacks (a session's) are named (of a
        strategy not ended yet: see ``end``). Without ``keys``, ``lost_keys`` and ``duplicated_keys``
        are left empty (a table prints only the first of each)."""
        for k in range(len(self.strategies)):
            self.end(k, lanes[k] if k < len(lanes) else None)
        withdrawn = {b for b in map(self.blocks.find, self.withdrawn) if b >= 0}
        return [self._audit(k, strategy, withdrawn, keys) for k, strategy in enumerate(self.strategies)]

    def _audit(self, k: int, strategy: str, withdrawn: set[int], keys: bool) -> StrategyAudit:
        lines, words, emitted = self.lines, self.words, self.emitted[k] or b""
        # by line, else in the order found (near that order: each deflated chunk of words read once)
        lost = sorted((b for b in range(len(self.blocks)) if (b >= len(emitted) or not emitted[b])
                       and b not in withdrawn), key=lines.__getitem__)
        dups = [dup for b, dup in self._dups[k].items() if b not in withdrawn]
        for dup in dups:
            dup[2].sort()
        dups.sort(key=lambda dup: dup[2][0])  # in the order the blocks were first emitted
        first_dup = min(dups, key=lambda dup: dup[2][1], default=None)
        tokens, subagents = self._ended[k] or ({}, {})
        return StrategyAudit(
            strategy=strategy,
            relays=self._relays[k],
            blocks=len(self.blocks),
            emitted=len(self.blocks) - len(withdrawn) - len(lost),
            lost=len(lost),
            duplicated=len(dups),
            extra_emissions=sum(len(dup[2]) - 1 for dup in dups),
            unmatched=self._unmatched[k],
            first_lost=None if not lost else {"block": words[lost[0]], "line": lines[lost[0]],
                                               "file": self.files.get(lost[0])},
            first_duplicated=None if first_dup is None else {
                "block": first_dup[0], "line": first_dup[1], "seqs": first_dup[2]},
            lost_keys=[words[b] for b in lost] if keys else [],
            duplicated_keys=[dup[0] for dup in dups] if keys else [],
            retracted=len(withdrawn),
            tokens=tokens,
            subagents=subagents,
        )


def audit_relays(strategy: str, relays: list[R.Relay], items: dict[Key, Item],
                 lanes: Mapping[str, Lane] | None = None) -> StrategyAudit:
    """One strategy's relays against an inventory kept whole; ``lanes`` (a session's) name the
    sub-agent transcripts the input lacks."""
    audit = Audit([strategy])
    audit.add_items(items)
    audit.feed(0, relays)
    (result,) = audit.finish([lanes])
    return result


