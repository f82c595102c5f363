"""solver.pool: opponents set once and drawn by many hands, as the sampling would deal them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bots import opponent_model
from solver import solve
from solver.cards import Card
from solver.errors import SolveError
from solver.pool import DISJOINT, OpponentPool, pool_size
from solver.sampling import simulate

HAND = tuple(Card(text) for text in "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C".split())


@pytest.fixture(scope="module")
def pool() -> OpponentPool:
    return OpponentPool(opponent_model("greedy"), 150_000, entropy=11)


def test_the_chance_a_member_qualifies_is_the_share_of_hands_of_the_39_unseen_cards():
    assert DISJOINT == pytest.approx(8_122_425_444 / 635_013_559_600, rel=1e-15)  # C(39,13) / C(52,13)


@pytest.mark.parametrize("count", [1, 60, 1000, 32_000, 1_000_000])
def test_a_pool_of_pool_size_members_leaves_eight_standard_deviations_of_spare_and_little_more(count):
    def spare(size: int) -> float:
        mean = size * DISJOINT
        return (mean - count) / math.sqrt(mean * (1 - DISJOINT))

    size = pool_size(count)
    assert spare(size) >= 8
    assert spare(int(size * 0.99)) < 8


def test_every_member_is_13_cards_of_the_deck_set_as_the_model_sets_them():
    class Recording:
        name = "recording"

        def __init__(self) -> None:
            self.model, self.asked, self.answered = opponent_model("greedy"), [], []

        def arrange_many(self, hands, rng):
            self.asked.append(hands.copy())
            self.answered.append(self.model.arrange_many(hands, rng))
            return self.answered[-1]

    model = Recording()
    made = OpponentPool(model, 70_000, entropy=3)
    asked, answered = np.concatenate(model.asked), np.concatenate(model.answered)
    assert made.arranged.shape == asked.shape == (70_000, 13) and len(model.asked) == 2  # in chunks of 65,536
    assert (made.arranged == answered).all()
    assert (np.sort(asked, axis=1) == np.sort(made.arranged, axis=1)).all()
    assert all(len(set(row)) == 13 for row in asked.tolist()) and int(asked.max()) < 52
    assert made.name == "recording"


def test_a_hand_draws_the_first_members_that_share_no_card_with_it_in_the_pools_order(pool):
    members = pool.members_for(HAND, 1000)
    held = set(HAND)
    qualifying = [i for i, row in enumerate(pool.arranged.tolist()) if not held & set(row)]
    assert members.tolist() == qualifying[:1000]
    assert (pool.draw(HAND, 1000) == pool.arranged[members]).all()
    deals, arranged, _ = simulate(HAND, pool, 1000, entropy=123)  # the seed plays no part
    assert (arranged == pool.arranged[members]).all() and (deals == arranged).all()


def test_the_drawn_opponents_are_uniform_hands_of_the_unseen_cards(pool):
    """Every unseen card is held by a third of the opponents (13 of 39), and the number of hearts
    an opponent holds follows the hypergeometric law of 13 cards from the 39: the chi-square
    statistic over its values stays well below what a wrong law gives on this many hands."""
    drawn = pool.draw(HAND, 1800)
    held = np.zeros(52, int)
    np.add.at(held, drawn.ravel(), 1)
    assert held[list(HAND)].sum() == 0
    unseen = np.setdiff1d(np.arange(52), np.array(HAND))
    third, sd = 1800 / 3, math.sqrt(1800 * (1 / 3) * (2 / 3))
    assert np.abs(held[unseen] - third).max() < 4.5 * sd
    hearts = unseen[unseen % 4 == 2]
    counts = np.bincount(np.isin(drawn, hearts).sum(axis=1), minlength=14)
    law = np.array([math.comb(len(hearts), k) * math.comb(39 - len(hearts), 13 - k) for k in range(14)]) / math.comb(39, 13)
    expected = 1800 * law
    kept = expected >= 5
    chi2 = float((((counts - expected) ** 2)[kept] / expected[kept]).sum())
    assert chi2 < 30, (counts.tolist(), expected.round(1).tolist())  # about 8 degrees of freedom: 30 is p < 0.001


def test_a_pool_too_small_for_the_hand_says_how_large_it_must_be(pool):
    with pytest.raises(SolveError, match=f"holds 1,9[0-9][0-9] that share no card with this hand, fewer than the 12,000 "
                       f"asked for; use a pool of at least {pool_size(12_000):,}"):
        pool.members_for(HAND, 12_000)


def test_a_solve_against_a_pool_scores_every_split_against_the_hands_members(pool):
    pooled = solve(HAND, pool, samples=500, seed=1, keep_sample=True)
    assert pooled.sample is not None and (pooled.sample == pool.draw(HAND, 500)).all()
    assert pooled.opponent == "greedy"


def test_the_same_seed_sets_the_same_pool_and_another_seed_another():
    model = opponent_model("greedy")
    one, again, other = (OpponentPool(model, 70_000, entropy) for entropy in (5, 5, 6))
    assert (one.arranged == again.arranged).all() and not (one.arranged == other.arranged).all()
