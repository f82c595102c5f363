"""A pool of opponents set once and shared by many hands.

Setting a simulated opponent is the costly part of a solve: ``table`` with card removal and,
under 1-6 and 2-4, the coupling of the rows takes about 0.07 ms a hand on two free cores, and a run that
measures thousands of hands against tens of thousands of opponents each sets them again for
every hand. A pool deals ``size`` opponents once, each 13 cards from the whole deck, and sets
them once. A hand then draws its opponents from the pool: the first ``count`` members, in the
pool's order, that share no card with it.

Those are exactly what ``solver.sampling`` deals: the members are independent and each is a
uniform 13 of the 52 cards, so one that shares no card with the hand is a uniform 13 of the
39 the hand leaves, and taking the first ones that qualify (a rule that looks at each member
alone, in turn) keeps them independent. A member qualifies for a given hand with the chance
``DISJOINT`` = C(39, 13) / C(52, 13), about 1.28%, whatever the hand, so a pool serves every
hand once it holds ``pool_size(count)`` members.

What a pool does not give is independence between hands: two hands may draw the same
member (about 1.3% of a hand's opponents on average, where the pool is just large enough). A figure
averaged over hands then has a variance above the spread between its hands over their number;
``bench.analysis.exploit`` adds that part, member by member.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from solver.cards import Card
from solver.errors import SolveError
from solver.opponent import OpponentModel, arrange_checked, model_name

DISJOINT = math.comb(39, 13) / math.comb(52, 13)  # the chance a member shares no card with a given hand
SPARE_SDS = 8  # a pool holds this many standard deviations of spare members above the mean need
CHUNK = 65_536  # members dealt and set at a time, each chunk from its own seed
BYTES_PER_MEMBER = 48  # a member: its 13 cards set, its mask and a run's sum of its deviations (8 each), a hand's draw (9)


def pool_size(count: int) -> int:
    """The members a pool needs so that every hand finds ``count`` opponents in it.

    The members that qualify for a hand are binomial with the chance ``DISJOINT``; the size
    puts ``count`` ``SPARE_SDS`` standard deviations below their mean, so that a hand finds too
    few with a chance below 1e-15.

    Args:
        count: The opponents a hand draws.

    Returns:
        The pool's size.

    Examples:
        >>> pool_size(1000), pool_size(32000)
        (100531, 2616840)
    """
    size = math.ceil(count / DISJOINT)
    while size * DISJOINT - SPARE_SDS * math.sqrt(size * DISJOINT * (1 - DISJOINT)) < count:
        size += max(1, size // 1000)
    return size


def _masks(cards: np.ndarray) -> np.ndarray:
    """Each row's cards as one 52-bit mask."""
    return np.bitwise_or.reduce(np.left_shift(np.uint64(1), cards.astype(np.uint64)), axis=1)


class OpponentPool:
    """``size`` opponents dealt from the whole deck and set by ``model``, once.

    It is an opponent model too: ``arrange_many`` sets hands as the model does, so that what
    checks a model takes it. ``solver.sampling.simulate`` draws a hand's opponents from it.

    Args:
        model: The opponent model that sets every member.
        size: How many members.
        entropy: The seed: chunk ``c`` of ``CHUNK`` members is dealt and set from child ``c`` of it.
        on_chunk: Called with the number of members set so far, after each chunk.

    Raises:
        OpponentError: The model failed or set its hands wrongly.
    """

    def __init__(self, model: OpponentModel, size: int, entropy: int,
                 on_chunk: Callable[[int], None] | None = None):
        self.model = model
        self.name = model_name(model)
        self.size = int(size)
        self.entropy = int(entropy)
        self.arranged = np.empty((self.size, 13), np.uint8)
        self.masks = np.empty(self.size, np.uint64)
        seeds = np.random.SeedSequence(self.entropy).spawn(-(-self.size // CHUNK))
        for c, child in enumerate(seeds):  # a chunk at a time, so that what is made meanwhile stays small
            deal_seed, bot_seed = child.spawn(2)
            start, stop = c * CHUNK, min((c + 1) * CHUNK, self.size)
            deals = np.argsort(np.random.default_rng(deal_seed).random((stop - start, 52)), axis=1)[:, :13]
            self.arranged[start:stop] = arrange_checked(model, deals.astype(np.uint8), np.random.default_rng(bot_seed))
            self.masks[start:stop] = _masks(self.arranged[start:stop])
            if on_chunk is not None:
                on_chunk(stop)

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Set hands as the pool's model does.

        Args:
            hands: The hands, an ``(n, 13)`` uint8 array of card ids.
            rng: The random generator passed to the model.

        Returns:
            The hands set front | middle | back.
        """
        return self.model.arrange_many(hands, rng)

    def members_for(self, cards: tuple[Card, ...], count: int) -> np.ndarray:
        """The first ``count`` members, in the pool's order, that share no card with ``cards``.

        Args:
            cards: The player's 13 cards.
            count: How many opponents to draw.

        Returns:
            Their indices in the pool, ascending.

        Raises:
            SolveError: The pool holds fewer than ``count`` such members.
        """
        mine = np.bitwise_or.reduce(np.left_shift(np.uint64(1), np.array(cards, np.uint64)))
        found = np.flatnonzero((self.masks & mine) == 0)
        if len(found) < count:
            raise SolveError(f"the pool of {self.size:,} opponents holds {len(found):,} that share no card with "
                             f"this hand, fewer than the {count:,} asked for; use a pool of at least "
                             f"{pool_size(count):,}")
        return found[:count]

    def draw(self, cards: tuple[Card, ...], count: int) -> np.ndarray:
        """The set hands of ``members_for(cards, count)``.

        Args:
            cards: The player's 13 cards.
            count: How many opponents to draw.

        Returns:
            A ``(count, 13)`` uint8 array, each row front | middle | back.
        """
        return self.arranged[self.members_for(cards, count)]
