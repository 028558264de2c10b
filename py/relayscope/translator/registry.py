"""The strategies by name: the catalogue the CLI and the page choose from."""

from __future__ import annotations

from typing import Final, NewType

from .lineage import LineageDedup
from .strategies import FingerprintDedup, IndexDedup, NoDedup, Strategy

STRATEGIES: Final[dict[str, type[Strategy]]] = {
    cls.name: cls for cls in (NoDedup, IndexDedup, FingerprintDedup, LineageDedup)
}
# The catalogue, for whoever lists or holds a strategy (the CLI's choices, the page's selects and
# help): a name is checked once where it comes in (``strategy_named``), then held as the type.
StrategyName = NewType("StrategyName", str)
STRATEGY_NAMES: Final[tuple[StrategyName, ...]] = tuple(StrategyName(name) for name in STRATEGIES)
DEFAULT_STRATEGY: Final = StrategyName(LineageDedup.name)


def strategy_named(name: object) -> StrategyName:
    """``name`` as a strategy; ValueError, naming the choices, if it is none."""
    if not isinstance(name, str) or name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    return StrategyName(name)


