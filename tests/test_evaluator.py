"""The evaluator: exhaustive counts, the slow reference, edge cases and the vectors."""

import itertools

import numpy as np
import pytest

from solver import CATEGORY_NAMES, CardCountError, category, category_name, describe, evaluate, evaluate_many
from tests import naive
from tests.conftest import load_vectors, random_hands


@pytest.fixture(scope="module")
def all_fives() -> np.ndarray:
    return np.array(list(itertools.combinations(range(52), 5)), np.uint8)


@pytest.fixture(scope="module")
def all_threes() -> np.ndarray:
    return np.array(list(itertools.combinations(range(52), 3)), np.uint8)


@pytest.mark.slow
def test_all_five_card_hands_category_counts(all_fives):
    values = evaluate_many(all_fives)
    counts = np.bincount(values >> 26, minlength=9)
    # high card .. straight flush
    assert counts.tolist() == [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40]
    assert len(np.unique(values)) == 7_462


def test_all_three_card_hands_category_counts(all_threes):
    values = evaluate_many(all_threes)
    assert np.bincount(values >> 26, minlength=9).tolist() == [18_304, 3_744, 0, 52, 0, 0, 0, 0, 0]
    assert len(np.unique(values)) == 455


def test_three_and_five_card_classes_do_not_collide(all_fives, all_threes):
    classes = np.union1d(evaluate_many(all_fives), evaluate_many(all_threes))
    assert len(classes) == 7_917


def _assert_same_order(values: np.ndarray, rows: np.ndarray) -> None:
    """Kernel values are a strictly increasing function of the reference strength."""
    key_of_value: dict[int, tuple] = {}
    for value, row in zip(values.tolist(), rows.tolist()):
        key = naive.strength(row)
        seen = key_of_value.setdefault(value, key)
        assert seen == key, f"value {value} given to {seen} and {key}"
    by_value = [key_of_value[v] for v in sorted(key_of_value)]
    assert by_value == sorted(by_value)
    assert len(set(by_value)) == len(by_value)


@pytest.mark.slow
def test_every_five_card_hand_orders_like_the_reference(all_fives):
    _assert_same_order(evaluate_many(all_fives), all_fives)


def test_every_three_card_hand_orders_like_the_reference(all_threes):
    _assert_same_order(evaluate_many(all_threes), all_threes)


def test_fronts_against_middles_match_the_reference(rng):
    hands = random_hands(rng, 20_000, size=8)
    fronts, middles = hands[:, :3], hands[:, 3:]
    # Bias towards equal groups so the missing-kicker rule is exercised often.
    fronts = np.where(rng.random((len(hands), 1)) < 0.5, fronts, middles[:, :3] ^ 1)
    ours = np.sign(evaluate_many(fronts).astype(np.int64) - evaluate_many(middles))
    for f, m, sign in zip(fronts.tolist(), middles.tolist(), ours.tolist()):
        assert naive.compare(f, m) == sign, (f, m)


@pytest.mark.parametrize(
    "stronger, weaker",
    [
        ("6C 5D 4H 3S 2C", "AS 2H 3D 4C 5S"),  # the wheel is the lowest straight
        ("AS 2H 3D 4C 5S", "AS KH QD JC 9S"),  # ... but a straight all the same
        ("6S 5S 4S 3S 2S", "AS 2S 3S 4S 5S"),  # the wheel straight flush is the lowest
        ("AS 2S 3S 4S 5S", "KD KC KH KS AC"),  # ... and beats four of a kind
        ("AS KH QD JC TS", "KS QH JD TC 9S"),
        ("QS KH AD 2C 4S", "QD KC AH 2S 3C"),  # Q-K-A-2-3 does not wrap: high card
        ("7S 7H KD 5C 3D", "7C 7D KS"),  # a missing kicker ranks below any card
        ("AS KH QD", "AC KS JD 9H 3C"),
        ("AC KS QH 4D 2C", "AS KH QD"),
        ("QS QH QD", "2S 2H 2D 3C 4C"),
        ("AC AD 3S 4H 5C", "AS AH 2D"),
        ("KD KC 9H 9S 3D", "KS KH 9D 9C 2S"),
        ("2C 2D 2H 3S 3C", "AS KS QS JS 9S"),
    ],
)
def test_edge_cases(stronger, weaker):
    assert evaluate(stronger) > evaluate(weaker)
    assert naive.compare(naive.parse(stronger), naive.parse(weaker)) == 1


@pytest.mark.parametrize(
    "a, b",
    [
        ("AS KS QS JS 9S", "AH KH QH JH 9H"),  # suits never break a tie
        ("AS 2H 3D 4C 5S", "AH 2D 3C 4S 5D"),
        ("7S 7H KD", "7C 7D KS"),
        ("TS JS QS KS AS", "TH JH QH KH AH"),
    ],
)
def test_equal_rows_tie(a, b):
    assert evaluate(a) == evaluate(b)


def test_shuffling_and_relabelling_suits_change_nothing(rng):
    hands = random_hands(rng, 50_000, size=5)
    values = evaluate_many(hands)
    shuffled = np.take_along_axis(hands, np.argsort(rng.random(hands.shape), axis=1), axis=1)
    assert (evaluate_many(shuffled) == values).all()
    for permutation in itertools.permutations(range(4)):
        relabelled = (hands & ~np.uint8(3)) | np.array(permutation, np.uint8)[hands & 3]
        assert (evaluate_many(relabelled) == values).all()


def test_rule_vectors_rows():
    vectors = load_vectors("rows.json")
    for v in vectors:
        va, vb = evaluate(v["a"]), evaluate(v["b"])
        assert (va > vb) - (va < vb) == v["sign"], v
        assert category_name(va) == v["a_category"] and category_name(vb) == v["b_category"], v
    assert len(vectors) > 1000


@pytest.mark.parametrize(
    "cards, name",
    [
        ("7S 7H KD", "pair of 7s, K kicker"),
        ("7C 7D KS 5H 3C", "pair of 7s, K 5 3 kickers"),
        ("AS JS 8S 5S 3S", "A-high flush, A J 8 5 3"),
        ("AD 2C 3H 4S 5D", "5-high straight"),
        ("9S 9H 9D", "three 9s"),
        ("9S 9H 9D AC 4C", "three 9s, A 4 kickers"),
        ("KS KH 9D 9C 2S", "two pair, kings and 9s, 2 kicker"),
        ("QS QH QD 4C 4S", "queens full of 4s"),
        ("TS TH TD TC AS", "four tens, A kicker"),
        ("9H TH JH QH KH", "K-high straight flush"),
        ("TC JC QC KC AC", "royal flush"),
        ("AS KH QD", "A-high, A K Q"),
    ],
)
def test_describe(cards, name):
    assert describe(cards) == name


def test_categories_are_named_in_order():
    assert category(evaluate("AS 2S 3S 4S 5S")) == 8
    assert CATEGORY_NAMES[0] == "high card" and CATEGORY_NAMES[-1] == "straight flush"


def test_bad_rows():
    with pytest.raises(CardCountError, match="expected 3 or 5 cards for a row, got 4: 'AS KS QS JS'"):
        evaluate("AS KS QS JS")
    with pytest.raises(ValueError, match="same card twice"):
        evaluate_many(np.array([[1, 1, 2, 3, 4]]))
    with pytest.raises(ValueError, match="0..51"):
        evaluate_many(np.array([[1, 2, 3, 4, 60]]))
    with pytest.raises(ValueError, match=r"\(n, 5\) or \(n, 3\)"):
        evaluate_many(np.zeros((3, 4), np.uint8))


def test_hand_keys_name_a_row_without_its_kickers():
    """Over every row class: two values share a key exactly when their names agree once the
    kickers are dropped (the ", Q kicker" of a pair, the ranks listed after a flush or a high
    card), so "pair of 9s" groups its kickers and "two pair, aces and kings" its fifth card."""
    from solver.classes import row_classes
    from solver.evaluator import describe_value, hand_keys

    def without_kickers(name: str) -> str:
        parts = name.split(", ")
        last = parts[-1].split()
        if len(parts) > 1 and (last[-1] in ("kicker", "kickers") or all(len(t) == 1 for t in last)):
            parts = parts[:-1]
        return ", ".join(parts)

    values = row_classes().astype(np.int64)
    keys = hand_keys(values).tolist()
    names = [without_kickers(describe_value(int(v))) for v in values]
    assert len(set(zip(keys, names))) == len(set(keys)) == len(set(names)) == 312
    assert hand_keys(values.reshape(1, -1)).shape == (1, len(values))


@pytest.mark.slow
def test_a_rows_class_fixes_its_ranks(all_fives, all_threes):
    """Over every five-card and three-card row: the rank counts of its class are the row's own,
    counted from its cards."""
    from solver.classes import class_rank_counts, row_classes

    table = class_rank_counts()
    for rows in (all_fives, all_threes):
        numbers = np.searchsorted(row_classes(), evaluate_many(rows))
        counts = np.zeros((len(rows), 13), np.int8)
        for column in rows.T:
            np.add.at(counts, (np.arange(len(rows)), column >> 2), 1)
        assert np.array_equal(table[numbers], counts)
