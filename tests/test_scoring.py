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
    """Random rows for each seat; where the middle beats the back the two are swapped, so
    that about half the hands are legal and both kinds of pairing are common."""
    cards = random_hands(rng, 1, size=13 * players)[0].tolist()
    hands = []
    for p in range(players):
        front, middle, back = cards[13 * p: 13 * p + 3], cards[13 * p + 3: 13 * p + 8], cards[13 * p + 8: 13 * p + 13]
        if naive.compare(middle, back) > 0:
            middle, back = back, middle
        hands.append(Arrangement(front, middle, back))
    return hands


@pytest.mark.parametrize("players", [2, 3, 4])
def test_tables_agree_with_the_reference(rng, players):
    """Each seat's table score is the sum, over every other seat, of the reference's
    settlement (tests/naive.py), and each pairing is antisymmetric. Fails if a pairing is
    dropped, counted twice, or settled with the wrong sign or the wrong foul rule."""
    kinds = set()
    for _ in range(300):
        arrs = _random_arrangements(rng, players)
        scores = score_table(arrs)
        rows = [([int(c) for c in a.front], [int(c) for c in a.middle], [int(c) for c in a.back]) for a in arrs]
        for i in range(players):
            assert scores[i] == sum(naive.score_pair(rows[i], rows[j]) for j in range(players) if j != i)
            for j in range(i + 1, players):
                assert score_pair(arrs[i], arrs[j]) == naive.score_pair(rows[i], rows[j]) == -score_pair(arrs[j], arrs[i])
                kinds.add((naive.fouled(*rows[i]), naive.fouled(*rows[j])))
    assert kinds == {(False, False), (False, True), (True, False), (True, True)}  # every foul case was met


def test_bad_tables(rng):
    arrs = _random_arrangements(rng, 4)
    with pytest.raises(CardError, match="a table seats 2 to 4 players, got 1"):
        score_table(arrs[:1])
    with pytest.raises(CardError, match="got 5"):
        score_table(arrs + arrs[:1])
    with pytest.raises(DuplicateCardError, match="dealt to both player 1 and player 2"):
        score_table([arrs[0], arrs[0]])


# Four seats worked out by hand: A and B are the rules' worked example; C fouls (its front,
# a pair of kings, beats its middle, a pair of 7s); D's middle ties B's (pair of 6s, 8 5 2).
TABLE = (
    A,
    B,
    "KH KS AH / 7H 7S 3C 4S 5S / 8D 8H 9H TD JS",
    "4C 4H KD / 6H 6S 8C 5D 2C / QD QH QS JD JH",
)


def test_a_table_of_four_worked_by_hand():
    """A v B +1 (the rules); A v C +3 and B v C +3 (C fouls); A v D: D's pair of 4s takes the
    front, A's 7s the middle and its royal flush the back, +1; B v D: D takes the front and
    its full house the back, the middles tie, -2; C v D -3. So A 1+3+1 = 5, B -1+3-2 = 0,
    C -9, D -1+2+3 = 4."""
    assert score_table(TABLE) == (5, 0, -9, 4)
    assert score_table(TABLE[::-1]) == (4, -9, 0, 5)
    assert score_table(TABLE[1:]) == (1, -6, 5)  # without A: B 3-2, C -3-3, D 2+3
    assert row_results(TABLE[1], TABLE[3]) == (-1, 0, -1)


@pytest.mark.slow
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
def test_mean_settlement_by_bits_agrees_with_the_reference(scoring):
    """The kernel that scores a bonus rule's candidates jointly (no royalties, legal
    candidates, fouled opponents given as rows of -1): its means equal the reference's
    settlement, opponents who declared a natural left out of the sum. Over two words of
    opponents, with rows that tie: some hands come twice, once with their suits relabelled."""
    from solver import _settle
    from solver.rules import Rules

    rng = np.random.default_rng(12)
    hands = random_hands(rng, 100)
    relabelled = hands[:40] - (hands[:40] & 3) + (3 - (hands[:40] & 3))  # suit q -> 3 - q: the same values
    hands = np.concatenate([hands, relabelled])
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


@pytest.mark.parametrize("scoring", ["basic", "1-6", "2-4"])
def test_mean_settlement_by_bits_with_rows_that_tie(scoring):
    """The same kernel on row values drawn from a handful, so that every pattern of won, tied
    and lost rows occurs: its means equal those of ``settle_values``, which settles one pair
    at a time (and agrees with the reference, above). Fouled opponents are rows out of order,
    given to the kernel as -1."""
    from solver import _settle, settle_values
    from solver.rules import Rules

    rules = Rules(scoring=scoring)
    rng = np.random.default_rng(13)
    opponents = np.sort(rng.integers(1, 5, (300, 3)), axis=1)
    fouled = rng.random(300) < 0.1
    opponents[fouled] = opponents[fouled][:, ::-1] + [1, 0, 0]  # front above back
    counted = rng.random(300) < 0.9
    candidates = np.unique(np.sort(rng.integers(1, 5, (60, 3)), axis=1), axis=0)
    columns = [np.ascontiguousarray(np.where(fouled, -1, opponents[:, i])) for i in range(3)]
    means = _settle.mean_against_rows(candidates, *columns, counted, rules.scoring_code)
    for mean, play in zip(means, candidates):
        each = settle_values(np.broadcast_to(play, opponents.shape), opponents, rules)
        assert mean == pytest.approx((each * counted).sum() / len(opponents), abs=1e-12)
