"""fates (the page's name for it): each block's fate lives in the core now, ``relayscope.fates``,
where ``relayscope trace`` uses it too; the web modules keep importing it from here.

Must not: hold any logic of its own (a re-export only).
"""

from __future__ import annotations

from ..fates import (
    DUPLICATE,
    EMITTED,
    LOST,
    STREAMED,
    BlockFate,
    Fates,
    LostBlock,
    Tracker,
    compute,
    every_block,
    of_step,
)

__all__ = ["DUPLICATE", "EMITTED", "LOST", "STREAMED", "BlockFate", "Fates", "LostBlock", "Tracker", "compute",
           "every_block", "of_step"]
