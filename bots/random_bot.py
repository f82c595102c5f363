"""The ``random`` bot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from bots.base import takes_cards
from solver import Arrangement, Card, all_splits


@dataclass(frozen=True)
class RandomBot:
    """A uniformly random legal arrangement.

    Strategy: list the hand's legal splits and pick one with the rng, each equally
    likely. Cost: all 72,072 splits evaluated (about 0.1 ms). Never fouls. It is the
    floor every other bot should clear.
    """

    name: ClassVar[str] = "random"

    @takes_cards
    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        """One of the hand's legal splits, each equally likely.

        Args:
            cards: The 13 cards dealt; as text or any sequence of cards too (``takes_cards``).
            rng: The generator that picks the split, or None for one seeded 0.

        Returns:
            The arrangement picked.
        """
        splits = all_splits(cards)
        legal = np.flatnonzero(splits.legal)
        return splits.arrangement(int(legal[rng.integers(len(legal))]))
