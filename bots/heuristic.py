"""The ``heuristic`` bot: rules of thumb of experienced players, written as row points."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from bots.base import arrangement_from_row, takes_cards
from bots.points import RowPoints, play_points
from solver import Arrangement, Card
from solver.classes import row_classes
from solver.evaluator import CATEGORY_SHIFT, MAJOR_SHIFT, RANK_MASK

# Rough chance that a row wins, by position and category, before the rank adjustment.
# Category order: high card, pair, two pair, trips, straight, flush, full house, quads, straight flush.
_FRONT_BASE = (0.00, 0.50, 0.0, 1.00, 0.0, 0.0, 0.0, 0.0, 0.0)
_FRONT_STEP = (0.05, 0.04, 0.0, 0.00, 0.0, 0.0, 0.0, 0.0, 0.0)
_MIDDLE_BASE = (0.00, 0.20, 0.55, 0.75, 0.85, 0.90, 0.96, 0.995, 1.0)
_MIDDLE_STEP = (0.02, 0.02, 0.02, 0.01, 0.005, 0.005, 0.002, 0.0, 0.0)
_BACK_BASE = (0.00, 0.03, 0.15, 0.40, 0.55, 0.70, 0.85, 0.98, 1.0)
_BACK_STEP = (0.00, 0.01, 0.02, 0.015, 0.015, 0.015, 0.01, 0.0, 0.0)


def _top_rank(values: np.ndarray) -> np.ndarray:
    """Rank (0..12) of the top card of each row's deciding group."""
    major = (values >> MAJOR_SHIFT) & RANK_MASK
    minor = values & RANK_MASK
    deciding = np.where(major > 0, major, minor)
    return np.floor(np.log2(deciding)).astype(np.int64)


@functools.cache
def heuristic_points() -> RowPoints:
    """Points of every row class as a front, a middle and a back (computed once a process).

    Returns:
        The heuristic bot's points, each a rough chance of winning the row, with the
            kickers breaking ties within a class by a hair.
    """
    classes = row_classes().astype(np.int64)
    category = classes >> CATEGORY_SHIFT
    top = _top_rank(classes)
    # Within a class the stronger row is better by a hair, so kickers break ties.
    hair = classes / float(1 << 30) * 1e-3

    def points(base: tuple[float, ...], step: tuple[float, ...], offset: int) -> np.ndarray:
        b, s = np.array(base)[category], np.array(step)[category]
        return np.clip(b + s * np.maximum(top - offset, 0), 0.0, 1.0) + hair

    front = points(_FRONT_BASE, _FRONT_STEP, 5)  # high card counts from an 8 up: 0.05 a rank above a 7
    front[category == 1] = (0.50 + 0.04 * top + hair)[category == 1]  # pairs from 2s (0.50) to aces (0.98)
    middle = points(_MIDDLE_BASE, _MIDDLE_STEP, 0)
    back = points(_BACK_BASE, _BACK_STEP, 0)
    return RowPoints.build(front, middle, back)


@dataclass(frozen=True)
class HeuristicBot:
    """Rule-based play in the spirit of experienced players: balance the three rows.

    Strategy: every legal split is scored by hand-set points per row, a rough chance of
    winning that row, and the best total is played. The points encode the usual rules:
    - a pair in front is worth a lot (0.50 for 2s up to 0.98 for aces) and trips more,
      so a pair goes to the front when the middle and back can spare it;
    - high cards in front count only from an 8 up (an A-high front is 0.35);
    - the same made hand is worth more in the middle than in the back (middles are
      weaker on average), so two pair or trips are kept in the middle where they win;
    - made hands (straights, flushes, full houses) stay whole: splitting one costs
      more in the back than it gains elsewhere;
    - within a class, the higher kickers win ties.
    Cost: an exact branch and bound (``bots.points.play_points``): each subset's points
    are looked up once, and backs and middles that cannot beat the best split found so far
    are skipped whole; about 0.03 ms per hand in a batch, 0.06 ms one hand a call. Never
    fouls: only legal splits are scored.
    """

    name: ClassVar[str] = "heuristic"
    batch_safe: ClassVar[bool] = True  # arrange_many sets each hand as arrange does, without the rng

    @takes_cards
    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        """The legal split with the most points (``heuristic_points``).

        Args:
            cards: The 13 cards dealt; as text or any sequence of cards too (``takes_cards``).
            rng: Not drawn from; None is taken too.

        Returns:
            The arrangement, as ``arrange_many`` sets the hand.
        """
        return arrangement_from_row(self.arrange_many(np.array([cards], np.uint8), rng)[0])

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Set a batch of hands, each as ``arrange`` would.

        Args:
            hands: The hands, ``(n, 13)`` card ids.
            rng: Not drawn from.

        Returns:
            The hands ``(n, 13)``, each row reordered front | middle | back.
        """
        return play_points(hands, heuristic_points())
