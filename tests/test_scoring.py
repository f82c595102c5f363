import numpy as np
import pytest

from solver import Arrangement, CardError, DuplicateCardError, row_results, score_pair, score_table
from tests import naive
from tests.conftest import load_vectors, random_hands

A = "2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC"
B = "3S 3H 4D / 6C 6D 8S 5C 2D / 9C 9D TH TS AS"


def test_worked_example_from_the_rules():
    assert row_results(A, B) == (-1, 1, 1)
    assert score_pair(A, B) == 1 and score_pair(B, A) == -1
    assert score_table([A, B]) == (1, -1)


def test_fouls():
    fouled = "AS AH AD / 9S 9H 5C 6C 8D / KS KH KD 7C 7D"
    weak = "2C 3D 4H / 5C 6D 8H 9S JC / 2D 3H 4S 7H QC"
    other_foul = "JS JH 2S / 3C 3S 4D 6C 7S / 2H 4C 5D 8C TD"
    assert score_pair(weak, fouled) == 3 and score_pair(fouled, weak) == -3
    assert score_pair(fouled, other_foul) == 0


def test_rule_vectors_scores():
    vectors = load_vectors("scores.json")
    for v in vectors:
        a = Arrangement(v["a"]["front"], v["a"]["middle"], v["a"]["back"])
        b = Arrangement(v["b"]["front"], v["b"]["middle"], v["b"]["back"])
        assert score_pair(a, b) == v["score_a"], v
        assert score_pair(b, a) == -v["score_a"]
    assert len(vectors) > 1000


def _random_arrangements(rng, players):
    cards = random_hands(rng, 1, size=13 * players)[0].tolist()
    return [Arrangement(cards[13 * p: 13 * p + 3], cards[13 * p + 3: 13 * p + 8], cards[13 * p + 8: 13 * p + 13])
            for p in range(players)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_tables_are_zero_sum_and_agree_with_the_reference(rng, players):
    for _ in range(300):
        arrs = _random_arrangements(rng, players)
        scores = score_table(arrs)
        assert sum(scores) == 0
        rows = [([int(c) for c in a.front], [int(c) for c in a.middle], [int(c) for c in a.back]) for a in arrs]
        for i in range(players):
            assert scores[i] == sum(naive.score_pair(rows[i], rows[j]) for j in range(players) if j != i)
            for j in range(players):
                assert score_pair(arrs[i], arrs[j]) == -score_pair(arrs[j], arrs[i])


def test_bad_tables(rng):
    arrs = _random_arrangements(rng, 4)
    with pytest.raises(CardError, match="a table seats 2 to 4 players, got 1"):
        score_table(arrs[:1])
    with pytest.raises(CardError, match="got 5"):
        score_table(arrs + arrs[:1])
    with pytest.raises(DuplicateCardError, match="dealt to both player 1 and player 2"):
        score_table([arrs[0], arrs[0]])
    assert np.isfinite(score_table(arrs)).all()


def test_rule_vectors_under_every_rule_set():
    """3,000 pairs scored independently under seven rule sets (royalties by the Eastern
    preset); fails on any settlement that differs, in the kernel or in the slow reference."""
    from solver.rules import Rules

    data = load_vectors("rule_scores.json")
    rulesets = {name: Rules.parse(name) for name in data["rulesets"]}
    for case in data["cases"]:
        for name, expected in case["scores"].items():
            assert score_pair(case["a"], case["b"], rulesets[name]) == expected, (case, name)
    for case in data["cases"][:500]:
        a, b = ([naive.parse(row) for row in x.split("/")] for x in (case["a"], case["b"]))
        for name, expected in case["scores"].items():
            rules = rulesets[name]
            assert naive.settle(a, b, rules.scoring, rules.royalty_table(), rules.royalty_needs_win) == expected


@pytest.mark.parametrize("scoring", ["basic", "1-6", "2-4"])
def test_branch_free_mean_settlement_agrees_with_the_reference(scoring):
    """The kernel that scores a bonus rule's candidates jointly (no royalties, legal
    candidates, fouled opponents given as rows of -1): its means equal the reference's
    settlement, opponents who declared a natural left out of the sum."""
    from solver import _settle
    from solver.rules import Rules

    rng = np.random.default_rng(12)
    hands = random_hands(rng, 60)
    rows = [(h[:3].tolist(), h[3:8].tolist(), h[8:].tolist()) for h in hands]
    values = np.array([Arrangement(*r).values() for r in rows], np.int64)
    legal = [i for i, r in enumerate(rows) if not naive.fouled(*r)]
    counted = rng.random(len(rows)) < 0.9
    assert len(legal) >= 5 and len(legal) < len(rows)  # both kinds of opponent are there
    fouled = np.array([naive.fouled(*r) for r in rows])
    columns = [np.ascontiguousarray(np.where(fouled, -1, values[:, i])) for i in range(3)]
    means = _settle.mean_against_rows(values[legal], *columns, counted, Rules(scoring=scoring).scoring_code)
    for mean, i in zip(means, legal):
        expected = sum(naive.settle(rows[i], rows[j], scoring) for j in range(len(rows)) if counted[j]) / len(rows)
        assert mean == pytest.approx(expected, abs=1e-12)
