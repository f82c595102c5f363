"""The settlement building blocks other kernels compile in (``solver.kernels``: ``row_units``,
``expected_units``) and the solver's mean over a sample (``mean_against``), against the rules
of docs/rules.md written out here or settled by tests/naive.py; and row results where either
hand fouls in either way."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from solver import Arrangement, _settle, row_results
from solver.kernels import expected_units, row_units
from solver.rules import COMMON_ROYALTIES, Rules
from solver.scoring import royalty_array
from tests import naive
from tests.conftest import random_hands

OUTCOMES = list(itertools.product((1, 0, -1), repeat=3))  # won, tied, lost, for each row


def _units_by_the_rules(rows: tuple[int, int, int], scoring: str) -> int:
    """docs/rules.md: +1 a row won, -1 a row lost; 1-6: a scoop takes 6 (and being scooped
    gives 6); 2-4: one unit more to whoever won more rows."""
    wins, losses = rows.count(1), rows.count(-1)
    if scoring == "1-6" and wins == 3:
        return 6
    if scoring == "1-6" and losses == 3:
        return -6
    if scoring == "2-4":
        return sum(rows) + (wins > losses) - (losses > wins)
    return sum(rows)


@pytest.mark.parametrize("scoring", ["basic", "1-6", "2-4"])
def test_row_units_of_every_outcome(scoring):
    code = Rules(scoring=scoring).scoring_code
    for rows in OUTCOMES:
        assert row_units(*rows, code) == _units_by_the_rules(rows, scoring), (rows, scoring)


@pytest.mark.parametrize("scoring", ["basic", "1-6", "2-4"])
def test_expected_units_of_independent_rows_average_the_27_outcomes(scoring):
    """Three rows won and tied with given chances, independently: the expected units are the
    rules' units of each of the 27 outcomes weighted by its chance."""
    code = Rules(scoring=scoring).scoring_code
    rng = np.random.default_rng(4)
    for chances in [rng.dirichlet(np.ones(3), 3) for _ in range(30)] + [np.array([[0.5, 0.5, 0.0]] * 3),
                                                                         np.array([[0.0, 0.0, 1.0]] * 3)]:
        win, tie = chances[:, 0], chances[:, 1]
        expected = 0.0
        for rows in OUTCOMES:
            p = np.prod([chances[r, {1: 0, 0: 1, -1: 2}[result]] for r, result in enumerate(rows)])
            expected += p * _units_by_the_rules(rows, scoring)
        got = expected_units(win[0], tie[0], win[1], tie[1], win[2], tie[2], code)
        assert got == pytest.approx(expected, abs=1e-12), (chances, scoring)


def _hands(rng, n):
    hands = random_hands(rng, n)
    rows = [(h[:3].tolist(), h[3:8].tolist(), h[8:].tolist()) for h in hands]
    values = np.array([Arrangement(*r).values() for r in rows], np.int64)
    return rows, values


@pytest.mark.parametrize("rules", ["basic", "1-6+royalties", "2-4+royalties-win", "royalties-win"])
def test_mean_against_a_sample_is_the_rules_settlement_averaged(rules):
    """The solver's mean over its sample with royalties (``mean_against``): each candidate's
    units against every counted opponent, settled by the reference, summed and divided by all
    the opponents (those not counted settle by a natural, elsewhere). Random hands: about
    half foul, on both sides."""
    parsed = Rules.parse(rules)
    table = dict(COMMON_ROYALTIES) if parsed.royalties else {}
    rng = np.random.default_rng(8)
    mine, candidates = _hands(rng, 12)
    theirs, opponents = _hands(rng, 70)
    counted = rng.random(70) < 0.8
    means = _settle.mean_against(candidates, opponents, counted, royalty_array(parsed), parsed.royalty_needs_win,
                                 parsed.scoring_code)
    assert len(means) == len(mine)
    for mean, hand in zip(means, mine):
        settled = [naive.settle(hand, other, parsed.scoring, table, parsed.royalty_needs_win)
                   for other, c in zip(theirs, counted) if c]
        assert mean == pytest.approx(sum(settled) / len(theirs), abs=1e-12)


VALID = "2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC"
FRONT_OVER_MIDDLE = "KH KS AH / 7H 7S 3C 4S 5S / 8D 8H 9H TD JS"  # kings in front over sevens
MIDDLE_OVER_BACK = "2C 3C 4D / QD QH QS JD JH / 6C 6D 6H 8S 5C"  # a full house over trips
TOO_STRONG_FRONT = "AC AS AH / KD QH JS 9C 2D / 3S 4H 6S 8C TH"  # trips in front, high cards behind


@pytest.mark.parametrize("fouled", [FRONT_OVER_MIDDLE, MIDDLE_OVER_BACK, TOO_STRONG_FRONT])
def test_a_valid_hand_wins_every_row_against_a_foul_of_any_kind(fouled):
    """docs/rules.md: a valid hand wins all three rows against a fouled hand, whatever the
    cards; two fouled hands tie every row."""
    assert row_results(VALID, fouled) == (1, 1, 1)
    assert row_results(fouled, VALID) == (-1, -1, -1)
    for other in (FRONT_OVER_MIDDLE, MIDDLE_OVER_BACK, TOO_STRONG_FRONT):
        assert row_results(fouled, other) == (0, 0, 0)


@pytest.mark.parametrize("scoring", ["basic", "1-6", "2-4"])
def test_mean_by_rows_of_candidates_that_beat_or_lose_to_every_opponent(scoring):
    """The solver's joint mean without royalties (``mean_against_rows``) where a candidate's
    row is above every opponent's (a scoop of every hand) or below it: the rules' settlement
    by the reference, averaged over all the opponents. 129 opponents: the last one alone in
    a third 64-bit word of the kernel's bit sets."""
    rng = np.random.default_rng(9)
    theirs, opponents = _hands(rng, 129)
    top = (naive.parse("KS KH KD"), naive.parse("AS AH AD AC 2D"), naive.parse("9C TC JC QC KC"))
    low = (naive.parse("2C 3D 4H"), naive.parse("5C 6D 7H 9S JC"), naive.parse("5D 6H 7S 9C QD"))
    mine = [top, low]
    candidates = np.array([Arrangement(*hand).values() for hand in mine], np.int64)
    fouled = np.array([naive.fouled(*t) for t in theirs])
    columns = [np.ascontiguousarray(np.where(fouled, -1, opponents[:, i])) for i in range(3)]
    counted = rng.random(129) < 0.85
    counted[-1] = True
    means = _settle.mean_against_rows(candidates, *columns, counted, Rules(scoring=scoring).scoring_code)
    assert len(means) == 2
    for mean, hand in zip(means, mine):
        expected = sum(naive.settle(hand, other, scoring) for other, c in zip(theirs, counted) if c) / len(theirs)
        assert mean == pytest.approx(expected, abs=1e-12)
