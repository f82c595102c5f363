"""``table:coupling=true``: under a bonus rule, the best splits weighed again on a sample of the
field's hands, each checked against a plain computation over every legal split."""

import itertools

import numpy as np
import pytest

import bots.table as table
from bots import BotError, make_bot
from bots._kernels import sample_weights
from bots.table import RANK_HELD, CouplingSample, play_tables, play_with_removal, shipped_tables
from solver import all_splits
from solver.classes import row_classes
from solver.evaluator import evaluate_many
from solver.rules import as_rules
from tests.conftest import random_hands
from tests.test_removal import _given
from tests.test_table import _joint_reference


def _units(results: np.ndarray, scoring: str) -> np.ndarray:
    """Units of each (+1 / 0 / -1) row triple, before royalties, from the rules text: a unit a
    row; under 1-6 three rows won are 6 and three lost -6; under 2-4 one more to whoever won
    more rows."""
    wins, losses = (results == 1).sum(axis=1), (results == -1).sum(axis=1)
    total = results.sum(axis=1)
    if scoring == "1-6":
        return np.where(wins == 3, 6, np.where(losses == 3, -6, total))
    return total + np.sign(wins - losses)


def _chance_of_missing(hand: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """For each sample hand (its cards of each rank), the chance that its suits, dealt at
    random, miss every card of ``hand``: suit sets counted one by one."""
    out = np.ones(len(counts))
    for r in range(13):
        held = {int(c) % 4 for c in hand if c // 4 == r}
        if not held:
            continue
        for s, n in enumerate(counts[:, r]):
            sets = list(itertools.combinations(range(4), int(n)))
            out[s] *= sum(not held & set(x) for x in sets) / len(sets)
    return out


def _best_corrected(hand, win, tie, extra, sample, weights, scoring, margin):
    """Over every legal split within ``margin`` of the best by the independent value, each one's
    value plus the correction: its mean units against the weighted sample less those of the
    sample's own row chances taken as independent. The best corrected value, and each split's
    row classes with its corrected value."""
    classes = row_classes()
    splits = all_splits(hand.tolist())
    legal = np.flatnonzero(splits.legal)
    k = [np.searchsorted(classes, rows[legal]) for rows in (splits.front, splits.middle, splits.back)]
    value = _joint_reference([win[i, k[i]] for i in range(3)], [tie[i, k[i]] for i in range(3)], scoring) + \
        sum(extra[i, k[i]] for i in range(3))
    near = value >= value.max() - margin
    corrected = {}
    w = weights / weights.sum()
    for a0, a1, a2, v in zip(k[0][near], k[1][near], k[2][near], value[near]):
        results = np.sign(np.array([a0, a1, a2]) - sample.rows)
        joint = (w * _units(results, scoring)).sum()
        wins = [(w * (results[:, i] == 1)).sum() for i in range(3)]
        ties = [(w * (results[:, i] == 0)).sum() for i in range(3)]
        corrected[(a0, a1, a2)] = v + joint - _joint_reference(wins, ties, scoring)
    return max(corrected.values()), corrected


def _rows_of(arranged: np.ndarray) -> tuple[int, int, int]:
    classes = row_classes()
    return tuple(int(np.searchsorted(classes, evaluate_many(arranged[None, a:b])[0]))
                 for a, b in ((0, 3), (3, 8), (8, 13)))


@pytest.fixture(scope="module")
def small_sample():
    """400 field hands set by table:removal=false under 2-4."""
    rules = as_rules("2-4")
    return CouplingSample.deal(lambda hands: play_tables(hands, shipped_tables(rules).policy(rules), rules), 400)


@pytest.mark.parametrize("rules", ["2-4", "1-6", "2-4+royalties"])
def test_the_play_is_the_best_corrected_split_among_those_near_the_best(rules, small_sample, monkeypatch):
    """With a buffer that holds every split near the best, the play's corrected value is the best
    corrected value of any legal split within the margin, all sample hands alike."""
    monkeypatch.setattr(table, "COUPLING_KEEP", 20_000)
    played = as_rules(rules)
    policy = shipped_tables(played).policy(played)
    hands = random_hands(np.random.default_rng(31), 8)
    for hand, arranged in zip(hands, play_tables(hands, policy, played, small_sample)):
        best, corrected = _best_corrected(hand, policy.win, policy.tie, policy.extra, small_sample,
                                          np.ones(len(small_sample.rows)), played.scoring, table.COUPLING_MARGIN)
        assert corrected[_rows_of(arranged)] == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("rules", ["2-4", "1-6"])
def test_with_card_removal_each_sample_hand_counts_by_its_chance_of_missing_the_cards(rules, small_sample,
                                                                                       monkeypatch):
    """Against the field given the hand (``tests.test_removal._given``), the play's corrected value
    is the best, each sample hand weighed by the chance that it misses the hand's cards."""
    monkeypatch.setattr(table, "COUPLING_KEEP", 20_000)
    played = as_rules(rules)
    tables = shipped_tables(played)
    extra = tables.extra(played)
    hands = random_hands(np.random.default_rng(32), 6)
    for hand, arranged in zip(hands, play_with_removal(hands, None, played, small_sample)):
        tie = _given(tables.removal, hand)
        win = np.cumsum(tie, axis=1) - tie
        weights = _chance_of_missing(hand, small_sample.counts)
        best, corrected = _best_corrected(hand, win, tie, extra, small_sample, weights, played.scoring,
                                          table.COUPLING_MARGIN)
        assert corrected[_rows_of(arranged)] == pytest.approx(best, abs=1e-9)


def test_the_weights_are_the_chance_of_missing_the_cards_held():
    rng = np.random.default_rng(33)
    counts = np.stack([np.bincount(h // 4, minlength=13) for h in random_hands(rng, 60)]).astype(np.int64)
    for hand in random_hands(rng, 10):
        got = np.empty(len(counts))
        sample_weights(hand, counts, RANK_HELD, got)
        assert got == pytest.approx(_chance_of_missing(hand, counts), abs=1e-12)


def test_the_correction_changes_plays_under_2_4_and_only_among_the_best():
    """On 300 random hands the play coupled on the plain tables' own field differs from the plain
    one on some, never by more than the margin in the plain objective."""
    played = as_rules("2-4")
    hands = random_hands(np.random.default_rng(34), 300)
    plain = make_bot("table:rules=2-4:coupling=false").arrange_many(hands, np.random.default_rng(0))
    sample = CouplingSample.deal(lambda dealt: play_with_removal(dealt, None, played))  # the plain tables' field
    coupled = play_with_removal(hands, None, played, sample)
    differ = (plain != coupled).any(axis=1)
    assert 0.02 < differ.mean() < 0.5
    tables = shipped_tables(played)
    extra = tables.extra(played)
    for hand, a, b in zip(hands[differ][:5], plain[differ][:5], coupled[differ][:5]):
        tie = _given(tables.removal, hand)
        win = np.cumsum(tie, axis=1) - tie
        values = [_joint_reference([win[i, k[i]] for i in range(3)], [tie[i, k[i]] for i in range(3)], "2-4")
                  + sum(extra[i, k[i]] for i in range(3)) for k in (_rows_of(a), _rows_of(b))]
        assert values[1] <= values[0] + 1e-12 and values[1] >= values[0] - table.COUPLING_MARGIN - 1e-12


def test_a_sample_that_cannot_be_dealt_beside_the_hand_leaves_the_best_split():
    """Every sample hand holding four of every rank weighs 0: the plain best split is played."""
    played = as_rules("2-4")
    hands = random_hands(np.random.default_rng(35), 20)
    impossible = CouplingSample(np.zeros((50, 3), np.int64), np.full((50, 13), 4, np.int64))
    assert np.array_equal(play_with_removal(hands, None, played, impossible),
                          play_with_removal(hands, None, played, None))


def test_the_sample_is_dealt_the_same_every_time_and_the_parameter_is_checked():
    first = CouplingSample.deal(lambda hands: hands, 50)
    again = CouplingSample.deal(lambda hands: hands, 50)
    assert np.array_equal(first.rows, again.rows) and np.array_equal(first.counts, again.counts)
    assert (first.counts.sum(axis=1) == 13).all()
    hands = random_hands(np.random.default_rng(36), 40)  # basic: the rows do not couple
    assert np.array_equal(make_bot("table:coupling=true").arrange_many(hands, None),
                          make_bot("table").arrange_many(hands, None))
    with pytest.raises(BotError, match="coupling must be true or false"):
        make_bot("table:coupling=2")
