"""The ``greedy`` bot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from bots._kernels import greedy_splits
from bots.base import arrangement_from_row, takes_cards
from bots.points import cards_by_split
from solver import Arrangement, Card
from solver.splits import checked_hands, split_tables


@dataclass(frozen=True)
class GreedyBot:
    """The best five cards to the back, the best five of the other eight to the middle.

    Strategy: maximise the back, then the middle; the last three cards go in front.
    Ties go to the first five in the hand's order. Cost: 1,287 five-card evaluations
    per hand (a few microseconds). Never fouls: the middle is at most the back because
    the back was the best of all fives, and the front is at most the middle because the
    middle beats every five drawn from the same eight cards, among them the front plus
    two cards, and adding cards never lowers a row's value.
    """

    name: ClassVar[str] = "greedy"
    batch_safe: ClassVar[bool] = True  # arrange_many sets each hand as arrange does, without the rng

    @takes_cards
    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        """The best five cards to the back, the best five of the other eight to the middle.

        Args:
            cards: The 13 cards dealt; as text or any sequence of cards too (``takes_cards``).
            rng: Not drawn from; None is taken too.

        Returns:
            The arrangement, as ``arrange_many`` sets the hand.
        """
        return arrangement_from_row(self.arrange_many(np.array([cards], np.uint8), rng)[0])

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Set a batch of hands greedily, each as ``arrange`` would.

        Args:
            hands: The hands, ``(n, 13)`` card ids (``solver.splits.checked_hands``).
            rng: Not drawn from.

        Returns:
            The hands ``(n, 13)``, each row reordered front | middle | back.
        """
        t = split_tables()
        hands = checked_hands(hands)
        return cards_by_split(hands, greedy_splits(hands, t.columns3, t.columns5, t.masks5, t.split_of))
