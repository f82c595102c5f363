import itertools

import numpy as np
import pytest

from solver import N_SPLITS, Arrangement, all_splits, count_legal, evaluate, is_foul, split_arrangement, split_tables
from solver.cards import CardError, parse_hand
from solver.splits import split_positions, subset_values
from tests import naive
from tests.conftest import load_vectors, random_hands


def test_tables_cover_every_split_once():
    t = split_tables()
    assert t.combos3.shape == (286, 3) and t.combos5.shape == (1287, 5) and len(t.front) == N_SPLITS == 72_072
    masks = set()
    for s in range(N_SPLITS):
        f, m, b = (t.combos3[t.front[s]], t.combos5[t.middle[s]], t.combos5[t.back[s]])
        rows = [sum(1 << int(p) for p in row) for row in (f, m, b)]
        assert rows[0] | rows[1] | rows[2] == (1 << 13) - 1 and bin(rows[0] | rows[1]).count("1") == 8
        masks.add(tuple(rows))
    assert len(masks) == N_SPLITS


def test_documented_order():
    order = []
    for front in itertools.combinations(range(13), 3):
        rest = [p for p in range(13) if p not in front]
        for middle in itertools.combinations(rest, 5):
            order.append((front, middle, tuple(p for p in rest if p not in middle)))
    assert [split_positions(s) for s in range(0, N_SPLITS, 997)] == order[::997]
    assert split_positions(N_SPLITS - 1) == order[-1]


def test_canonical_pairs_are_twins():
    t = split_tables()
    assert len(t.canon_split) == 36_036
    assert (t.front[t.canon_twin] == t.canon_front).all()
    assert (t.middle[t.canon_twin] == t.canon_b).all() and (t.back[t.canon_twin] == t.canon_a).all()
    together = np.concatenate([t.canon_split, t.canon_twin])
    assert len(np.unique(together)) == N_SPLITS


def test_all_splits_agree_with_the_reference(rng):
    for hand in random_hands(rng, 3).tolist():
        splits = all_splits(hand)
        for s in rng.integers(0, N_SPLITS, 400).tolist():
            arr = splits.arrangement(s)
            rows = [[int(c) for c in r] for r in arr.rows]
            assert splits.legal[s] == (not naive.fouled(*rows)) == (not is_foul(arr))
            assert (splits.front[s], splits.middle[s], splits.back[s]) == arr.values()


@pytest.mark.slow
def test_rule_vectors_splits():
    vectors = load_vectors("splits.json")
    hands = np.array([[int(c) for c in all_splits(v["hand"]).hand] for v in vectors], np.uint8)
    for v in vectors:
        assert v["total_splits"] == N_SPLITS
        assert all_splits(v["hand"]).n_legal == v["valid_splits"], v["hand"]
    expected = [v["valid_splits"] for v in vectors]
    assert count_legal(hands).tolist() == expected
    assert count_legal(hands, canonical=False).tolist() == expected


def test_canonical_scan_counts_like_the_full_scan(rng):
    hands = random_hands(rng, 200)
    # Hands rich in equal fives: two identical flush shapes in different suits.
    hands[0] = [int(c) for c in Arrangement("2C 3D 4H", "AS KS QS JS 9S", "AH KH QH JH 9H").cards]
    assert (count_legal(hands) == count_legal(hands, canonical=False)).all()


def test_split_arrangement_round_trip():
    hand = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
    splits = all_splits(hand)
    best = int(np.flatnonzero(splits.legal)[0])
    arr = split_arrangement(hand, best)
    assert sorted(arr.cards) == sorted(splits.hand)
    assert arr.values() == (evaluate(arr.front), evaluate(arr.middle), evaluate(arr.back))
    with pytest.raises(IndexError, match="split 72072 is out of range"):
        split_arrangement(hand, N_SPLITS)


def test_count_legal_and_subset_values_refuse_what_is_not_a_hand():
    """Ids outside 0..51 would wrap round in the uint8 the kernels read, a card twice would be
    counted as two: both are refused, naming the hand, as text is read as text."""
    good = list(range(13))
    for bad in ([good[:12] + [300]], [good[:12] + [-1]], [good[:12] + [0]], [good[:12]]):
        with pytest.raises(CardError):
            count_legal(np.array(bad))
    for bad in (good[:12] + [300], good[:12] + [0], good[:12], "AS KS"):
        with pytest.raises(CardError):
            subset_values(bad)
    text = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
    by_text, by_ids = subset_values(text), subset_values([int(card) for card in parse_hand(text)])
    assert all((x == y).all() for x, y in zip(by_text, by_ids))
