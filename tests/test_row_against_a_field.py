"""A row's expected result against a field's row (``solver.scoring.expected_rows``, what the
solver and the table bot sum up), and the array helpers beside it, against their docstrings
and docs/rules.md: each expected number is worked out here from the rules, through
tests/naive.py, never taken from the code under test."""

from __future__ import annotations

import numpy as np
import pytest

from solver import evaluate
from solver.rules import ROYALTY_HANDS, Rules
from solver.scoring import expected_rows, fouls, row_results_of, royalty_lines, settle_values
from tests import naive

# The "Eastern" table of docs/rules.md, as written there.
EASTERN = {("front", "three of a kind"): 3, ("middle", "full house"): 2, ("middle", "four of a kind"): 8,
           ("back", "four of a kind"): 4, ("middle", "straight flush"): 10, ("back", "straight flush"): 5,
           ("middle", "royal flush"): 14, ("back", "royal flush"): 7}

# A field's middle row: each with a weight (counts, not shares), two of them equal in value
# (suits never break a tie), several earning a middle royalty.
FIELD = [("2C 3D 5H 8S JC", 3.0),  # high card
         ("7C 7D 9S 5H 3D", 1.0),  # a pair
         ("4C 4D 4H 9C 9D", 2.0),  # full house, 2 in the middle
         ("4S 4C 4D 9H 9S", 0.5),  # the same full house in other suits
         ("QC QD QH QS 2D", 1.5),  # four of a kind, 8
         ("9H TH JH QH KH", 2.5),  # straight flush, 10
         ("TD JD QD KD AD", 1.0)]  # royal flush, 14
OURS = ["2D 3H 4S 6C 9D",  # 9-high: below every row of the field
        "3C 3D 6H 8H TS",  # a pair: beats only the high card
        "4H 4S 4C 9S 9C",  # full house: ties both full houses
        "5C 5D 5H 5S 3H",  # four of a kind: beats the full houses, loses to the flushes
        "TS JS QS KS AS",  # royal flush: ties the royal flush
        "AH 2H 3H 4H 5H"]  # the steel wheel: a straight flush, but not a royal one
FOUL = 4.0  # weight of the field's hands that foul
NATURAL = 1.5  # weight of the pairings settled by a natural, not by rows


def _field():
    values = np.array([evaluate(row) for row, _ in FIELD], np.int64)
    order = np.argsort(values, kind="stable")
    return values[order], np.array([w for _, w in FIELD])[order]


def _by_the_rules(ours: str, table: dict, needs_win: bool) -> tuple[float, float, float]:
    """P(win), P(lose) and expected units of a middle row, from docs/rules.md: a row wins or
    loses against each field row; every row wins against a fouled hand; a natural settles
    the pairing without rows (so no row result, and no royalty changes hands). Royalties: a
    row earns the line that names its own hand; with the win switch only on a row won, and
    the field's royalty is paid on the rows it wins from us; without it the field's royalty
    is the same whatever we play and is left out (expected_rows' docstring)."""
    total = sum(w for _, w in FIELD) + FOUL + NATURAL
    mine = naive.parse(ours)
    won = lost = paid = 0.0
    for row, weight in FIELD:
        result = naive.compare(mine, naive.parse(row))
        won += weight * (result == 1)
        lost += weight * (result == -1)
        if result == -1:
            paid += weight * table.get(("middle", naive.royalty_hand(naive.parse(row), "middle", table)), 0)
    won += FOUL
    earned = table.get(("middle", naive.royalty_hand(mine, "middle", table)), 0)
    if needs_win:
        units = (won - lost) / total + earned * won / total - paid / total
    else:
        units = (won - lost) / total + earned * (total - NATURAL) / total
    return won / total, lost / total, units


@pytest.mark.parametrize("rules", ["basic", "1-6", "royalties", "royalties-win", "house"])
def test_a_rows_chances_and_units_against_a_weighted_field_are_the_rules(rules, tmp_path):
    """Weights as counts, a share of the field fouling and a share declaring naturals: the
    chance of winning and losing the row and its expected units, royalties included, for rows
    that beat, tie and lose to the field's. The house table names no royal-flush line, so a
    royal flush is paid as a straight flush there (docs/rules.md)."""
    if rules == "house":
        path = tmp_path / "house.toml"
        path.write_text('royalty_needs_win = true\n[royalties.middle]\n"straight flush" = 6\n"full house" = 1\n')
        parsed = Rules.parse(str(path))
        table = {("middle", "straight flush"): 6, ("middle", "full house"): 1}
    else:
        parsed = Rules.parse(rules)
        table = EASTERN if parsed.royalties else {}
    theirs, weights = _field()
    total = weights.sum() + FOUL + NATURAL
    win, lose, units = expected_rows([evaluate(row) for row in OURS], theirs, weights, 1, parsed, foul_weight=FOUL,
                                     counted_weight=weights.sum() + FOUL, total=total)
    for i, ours in enumerate(OURS):
        expected = _by_the_rules(ours, table, parsed.royalty_needs_win)
        assert (win[i], lose[i], units[i]) == pytest.approx(expected, abs=1e-12), (rules, ours)


@pytest.mark.parametrize("rules", ["royalties", "royalties-win"])
def test_without_naturals_every_pairing_is_settled_by_rows(rules):
    """``counted_weight`` left out: every pairing, the field's fouled hands included, is settled
    by rows, so a row's royalty is collected from all of them."""
    parsed = Rules.parse(rules)
    theirs, weights = _field()
    total = weights.sum() + FOUL
    ours = [evaluate(row) for row in OURS]
    by_default = expected_rows(ours, theirs, weights, 1, parsed, foul_weight=FOUL, total=total)
    said = expected_rows(ours, theirs, weights, 1, parsed, foul_weight=FOUL, counted_weight=total, total=total)
    for got, expected in zip(by_default, said):
        assert got == pytest.approx(expected, abs=1e-12)
    _, _, units = by_default
    royal = OURS.index("TS JS QS KS AS")
    if not parsed.royalty_needs_win:
        assert units[royal] - (by_default[0][royal] - by_default[1][royal]) == pytest.approx(14)


def test_shares_give_the_same_chances_as_counts():
    """Weights may be counts or shares (the docstring): the field's weights divided by their
    total, with total left at 1 and no fouls, give the chances the counts give."""
    theirs, weights = _field()
    rules = Rules.parse("royalties")
    by_counts = expected_rows([evaluate(row) for row in OURS], theirs, weights, 1, rules, total=weights.sum())
    by_shares = expected_rows([evaluate(row) for row in OURS], theirs, weights / weights.sum(), 1, rules)
    for counted, shared in zip(by_counts, by_shares):
        assert shared == pytest.approx(counted, abs=1e-12)
    win, lose, _ = by_shares
    assert (win[0], lose[0]) == (0.0, pytest.approx(1.0))  # the 9-high loses to every row
    assert win[1] == pytest.approx(3.0 / weights.sum()) and lose[1] == pytest.approx(1 - 3.0 / weights.sum())


def test_which_hands_foul():
    """docs/rules.md: the back at least as strong as the middle, the middle at least as strong
    as the front; equal is fine. For arrays of row values of any leading shape."""
    legal, equal, middle_over_back, front_over_middle = [1, 2, 3], [5, 5, 5], [1, 3, 2], [4, 3, 9]
    assert fouls([legal, equal, middle_over_back, front_over_middle]).tolist() == [False, False, True, True]
    assert fouls([[legal, middle_over_back], [equal, equal]]).tolist() == [[False, True], [False, False]]
    rows = [naive.parse(r) for r in ("7S 7H KD", "7C 7D KS 5H 3C", "2C 2D 2H 9S 9D")]
    assert not fouls([[evaluate(r) for r in rows]])[0]  # the front below the middle: the missing kickers count lower
    assert fouls([[evaluate(r) for r in (rows[1], rows[0], rows[2])]])[0]


def test_the_royalty_line_of_a_row_names_its_own_hand():
    """A row's line is its category; the royal flush, the ace-high straight flush, has its own
    line; the five-high straight flush (A-2-3-4-5, whose top card is the 5) is not royal."""
    rows = {"AS KS QS JS TS": "royal flush", "5H 4H 3H 2H AH": "straight flush", "KD QD JD TD 9D": "straight flush",
            "AC AD AH AS KC": "four of a kind", "AC AD AH KS KC": "full house", "AS KS QS JS 9S": "flush",
            "AS KD QH JC TS": "straight", "AS AD 2C": "pair", "AS AD AC": "three of a kind", "AS KD QH": "high card"}
    lines = royalty_lines([evaluate(row) for row in rows])
    assert [ROYALTY_HANDS[line] for line in lines] == list(rows.values())


def test_rows_of_values_of_the_wrong_shape_are_refused():
    """settle_values takes two (n, 3) arrays of row values and names the shape it was given."""
    with pytest.raises(ValueError, match=r"expected an \(n, 3\) array of row values, got shape \(3,\)"):
        settle_values([1, 2, 3], [[1, 2, 3]])
    with pytest.raises(ValueError, match=r"got shape \(1, 2\)"):
        settle_values([[1, 2, 3]], [[1, 2]])
    for short in ([[1, 2, 3]], np.zeros((0, 3))):  # the kernels would read past the end of b
        with pytest.raises(ValueError, match="as many hands on each side, got 4 against"):
            settle_values([[1, 2, 3]] * 4, short)
        with pytest.raises(ValueError, match="as many hands on each side, got 4 against"):
            row_results_of([[1, 2, 3]] * 4, short)
    assert settle_values([[1, 2, 3], [3, 2, 1]], [[1, 2, 4], [1, 2, 3]]).tolist() == [-1, -3]


def test_row_results_of_arrays_are_one_row_of_three_a_pair():
    """``row_results_of``: (n, 3) row results, +1 / 0 / -1, fouls applied (the middle row over
    the back fouls the second pair's first hand)."""
    results = row_results_of([[1, 2, 3], [1, 3, 2]], [[1, 1, 4], [1, 2, 3]])
    assert results.shape == (2, 3) and results.tolist() == [[0, 1, -1], [-1, -1, -1]]
