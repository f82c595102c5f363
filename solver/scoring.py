"""Scoring: settle hands against each other (RULES.md).

Every pair of players is settled separately, row against row: +1 for a row won, -1
for a row lost, 0 for a tie. A legal hand wins all three rows against a fouled one;
two fouled hands score 0. Basic scoring (the default) adds the rows up; the optional
rule sets (``solver.rules``) add scoop or majority bonuses, royalties and naturals. A
player's table score is the sum over opponents, so a table is zero-sum.

>>> a = "2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC"
>>> b = "3S 3H 4D / 6C 6D 8S 5C 2D / 9C 9D TH TS AS"
>>> score_pair(a, b), score_pair(b, a)
(1, -1)
>>> score_pair(a, b, rules="royalties")  # A's back straight flush: 1 + 10
11
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from solver.arrangement import ROWS, Arrangement, as_arrangement
from solver.cards import CardError, DuplicateCardError
from solver.evaluator import CATEGORY_NAMES
from solver.naturals import Natural, settle_naturals
from solver.rules import Rules, RulesError, as_rules


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def row_results(a: Arrangement | str, b: Arrangement | str) -> tuple[int, int, int]:
    """+1 / 0 / -1 for A's front, middle and back against B's (fouls included)."""
    va, vb = as_arrangement(a).values(), as_arrangement(b).values()
    foul_a = not (va[0] <= va[1] <= va[2])
    foul_b = not (vb[0] <= vb[1] <= vb[2])
    if foul_a or foul_b:
        result = _sign(int(foul_b) - int(foul_a))  # 0 when both foul
        return (result, result, result)
    return tuple(_sign(x - y) for x, y in zip(va, vb))  # type: ignore[return-value]


def royalty_array(rules: Rules) -> np.ndarray:
    """(3, 9) units for each row and category under ``rules`` (zeros without royalties)."""
    table = np.zeros((3, len(CATEGORY_NAMES)), np.int64)
    for (row, category), units in rules.royalties:
        table[ROWS.index(row), CATEGORY_NAMES.index(category)] = units
    return table


def settle(rows: ArrayLike, foul_a: ArrayLike, foul_b: ArrayLike, cat_a: ArrayLike, cat_b: ArrayLike,
           rules: Rules) -> np.ndarray:
    """Units A wins from B, for arrays of pairings (numpy broadcasting).

    ``rows`` (..., 3) are A's row results with fouls already applied (see
    ``row_results``), ``foul_*`` (...) booleans and ``cat_*`` (..., 3) the row categories."""
    rows = np.asarray(rows, np.int64)
    score = rows.sum(axis=-1)
    wins = (rows == 1).sum(axis=-1)
    losses = (rows == -1).sum(axis=-1)
    if rules.scoring == "1-6":
        score = np.where(wins == 3, 6, np.where(losses == 3, -6, score))
    elif rules.scoring == "2-4":
        score = score + np.sign(wins - losses)
    if rules.royalties:
        table = royalty_array(rules)
        row_index = np.arange(3)
        roy_a = table[row_index, np.asarray(cat_a)]
        roy_b = table[row_index, np.asarray(cat_b)]
        if rules.royalty_needs_win:
            roy_a = roy_a * (rows == 1)
            roy_b = roy_b * (rows == -1)
        score = score + np.where(foul_a, 0, roy_a.sum(axis=-1)) - np.where(foul_b, 0, roy_b.sum(axis=-1))
    return score


def score_pair(a: Arrangement | str | Natural, b: Arrangement | str | Natural, rules: Rules | str | None = None) -> int:
    """Units A wins from B (negative when A loses), under basic scoring unless ``rules`` says otherwise.

    ``a`` or ``b`` may be a declared :class:`~solver.naturals.Natural` when the rules allow naturals."""
    rules = as_rules(rules)
    if isinstance(a, Natural) or isinstance(b, Natural):
        if not rules.naturals:
            raise RulesError("a natural was declared but these rules have no naturals (add +naturals)")
        result = settle_naturals(a if isinstance(a, Natural) else None, b if isinstance(b, Natural) else None, rules)
        assert result is not None  # a natural was declared
        return int(result)
    arr_a, arr_b = as_arrangement(a), as_arrangement(b)
    va, vb = arr_a.values(), arr_b.values()
    rows = np.array(row_results(arr_a, arr_b))
    foul_a = not (va[0] <= va[1] <= va[2])
    foul_b = not (vb[0] <= vb[1] <= vb[2])
    cats_a = np.array([v >> 26 for v in va])
    cats_b = np.array([v >> 26 for v in vb])
    return int(settle(rows, np.bool_(foul_a), np.bool_(foul_b), cats_a, cats_b, rules))


def score_table(arrangements: Sequence[Arrangement | str | Natural], rules: Rules | str | None = None) -> tuple[int, ...]:
    """Each player's score against every other at a table of 2 to 4; sums to zero.

    >>> score_table(["2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC",
    ...              "3S 3H 4D / 6C 6D 8S 5C 2D / 9C 9D TH TS AS"])
    (1, -1)
    """
    hands = [a if isinstance(a, Natural) else as_arrangement(a) for a in arrangements]
    if not 2 <= len(hands) <= 4:
        raise CardError(f"a table seats 2 to 4 players, got {len(hands)}")
    seen: dict[int, int] = {}
    for seat, hand in enumerate(hands):
        cards = hand.arrangement.cards if isinstance(hand, Natural) and hand.arrangement else (
            () if isinstance(hand, Natural) else hand.cards)
        for card in cards:
            if card in seen:
                raise DuplicateCardError(f"card '{card}' is dealt to both player {seen[card] + 1} and player {seat + 1}")
            seen[card] = seat
    scores = [0] * len(hands)
    for i in range(len(hands)):
        for j in range(i + 1, len(hands)):
            s = score_pair(hands[i], hands[j], rules)
            scores[i] += s
            scores[j] -= s
    return tuple(scores)
