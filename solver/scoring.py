"""Scoring: settle hands against each other (the rules: docs/rules.md).

Every pair of players is settled separately, row against row: +1 for a row won, -1
for a row lost, 0 for a tie. A legal hand wins all three rows against a fouled one;
two fouled hands score 0. Basic scoring (the default) adds the rows up; the optional
rule sets (``solver.rules``) add scoop or majority bonuses, royalties and naturals. A
player's table score is the sum over opponents, so a table is zero-sum.

The units themselves are computed in one place, the kernels of ``solver._settle``;
this module turns cards, arrangements and rules into their integer arguments.

>>> a = "2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC"
>>> b = "3S 3H 4D / 6C 6D 8S 5C 2D / 9C 9D TH TS AS"
>>> score_pair(a, b), score_pair(b, a)
(1, -1)
>>> score_pair(a, b, rules="royalties")  # A's back royal flush: 1 + 7
8
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from solver import _settle
from solver.arrangement import ROWS, Arrangement, as_arrangement
from solver.cards import CardError, DuplicateCardError
from solver.evaluator import CATEGORY_SHIFT
from solver.naturals import Natural, settle_naturals
from solver.rules import ROYALTY_HANDS, Rules, RulesError, as_rules

STRAIGHT_FLUSH_LINE = ROYALTY_HANDS.index("straight flush")
ROYAL_FLUSH_LINE = ROYALTY_HANDS.index("royal flush")


@functools.cache
def royalty_array(rules: Rules) -> np.ndarray:
    """(3, 10) units for each row and royalty hand (the categories, then the royal flush).

    A row earns only the line that names its hand; a royal flush is a straight flush, so
    it pays the straight-flush line unless the table names the royal flush apart.

    Args:
        rules: The rule set whose royalty table is laid out.

    Returns:
        A read-only int64 array: rows front, middle, back; columns the lines of
            ``ROYALTY_HANDS``. All zero without royalties. Cached per rule set.
    """
    table = np.zeros((3, len(ROYALTY_HANDS)), np.int64)
    named = rules.royalty_table()
    for (row, hand), units in named.items():
        table[ROWS.index(row), ROYALTY_HANDS.index(hand)] = units
    for row in ROWS:
        if (row, "royal flush") not in named:
            table[ROWS.index(row), ROYAL_FLUSH_LINE] = table[ROWS.index(row), STRAIGHT_FLUSH_LINE]
    table.setflags(write=False)
    return table


def royalty_lines(values: ArrayLike) -> np.ndarray:
    """The royalty line (index into ``ROYALTY_HANDS``) of each row value.

    Args:
        values: Row values from ``solver.evaluator.evaluate``, an array of any shape.

    Returns:
        The lines, an int64 array of the same shape: the category, or ``ROYAL_FLUSH_LINE``
            for an ace-high straight flush.
    """
    values = np.asarray(values, np.int64)
    lines = values >> CATEGORY_SHIFT
    return np.where((lines == STRAIGHT_FLUSH_LINE) & ((values & _settle.ACE_BIT) != 0), ROYAL_FLUSH_LINE, lines)


def fouls(values: ArrayLike) -> np.ndarray:
    """Which hands of an (..., 3) array of row values are fouled (rows out of order).

    Args:
        values: Row values, the last axis front, middle, back.

    Returns:
        A bool array of the shape of ``values`` without its last axis: ``True`` where
            front > middle or middle > back.
    """
    v = np.asarray(values)
    return ~((v[..., 0] <= v[..., 1]) & (v[..., 1] <= v[..., 2]))


def _as_values(values: ArrayLike) -> np.ndarray:
    array = np.ascontiguousarray(values, np.int64)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"expected an (n, 3) array of row values, got shape {array.shape}")
    return array


def _as_pairs(a: ArrayLike, b: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Two (n, 3) arrays of row values with the same n: the kernels read ``b[i]`` for every ``a[i]``."""
    a, b = _as_values(a), _as_values(b)
    if len(a) != len(b):
        raise ValueError(f"expected as many hands on each side, got {len(a)} against {len(b)}")
    return a, b


def settle_values(a: ArrayLike, b: ArrayLike, rules: Rules | str | None = None) -> np.ndarray:
    """Units ``a[i]`` wins from ``b[i]``, for two (n, 3) arrays of row values (fouls included).

    Args:
        a: The first hands' row values (front, middle, back), shape ``(n, 3)``.
        b: Their opponents' row values, shape ``(n, 3)``.
        rules: The rule set, by name or as ``Rules``; basic by default. Naturals are not
            settled here (``solver.naturals.settle_naturals`` does that).

    Returns:
        The units each hand of ``a`` wins (negative when it loses), an int64 array of
            length ``n``.

    Raises:
        ValueError: ``a`` or ``b`` is not of shape ``(n, 3)``, or they differ in ``n``.
        RulesError: ``rules`` names no rule set.
    """
    rules = as_rules(rules)
    a, b = _as_pairs(a, b)
    return _settle.settle_rows(a, b, royalty_array(rules), rules.royalty_needs_win, rules.scoring_code)


def row_results_of(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """(n, 3) row results (+1 / 0 / -1, fouls applied) of ``a[i]`` against ``b[i]``.

    Args:
        a: The first hands' row values (front, middle, back), shape ``(n, 3)``.
        b: Their opponents' row values, shape ``(n, 3)``.

    Returns:
        An int8 array of shape ``(n, 3)``: +1 where ``a``'s row wins, -1 where it loses, 0
            for a tie or two fouled hands.

    Raises:
        ValueError: ``a`` or ``b`` is not of shape ``(n, 3)``, or they differ in ``n``.
    """
    return _settle.row_results(*_as_pairs(a, b))


def row_results(a: Arrangement | str, b: Arrangement | str) -> tuple[int, int, int]:
    """+1 / 0 / -1 for A's front, middle and back against B's (fouls included).

    Args:
        a: A's arrangement, or its text (``"front / middle / back"``).
        b: B's arrangement, or its text.

    Returns:
        The results of A's front, middle and back.

    Raises:
        CardError: An arrangement cannot be read.
    """
    rows = row_results_of([as_arrangement(a).values()], [as_arrangement(b).values()])[0]
    return (int(rows[0]), int(rows[1]), int(rows[2]))


def score_pair(a: Arrangement | str | Natural, b: Arrangement | str | Natural, rules: Rules | str | None = None) -> int:
    """Units A wins from B (negative when A loses), under basic scoring unless ``rules`` says otherwise.

    Args:
        a: A's arrangement or its text, or a declared ``solver.naturals.Natural`` when the
            rules allow naturals.
        b: B's, in the same forms.
        rules: The rule set, by name or as ``Rules``; basic by default.

    Returns:
        The units A wins from B.

    Raises:
        RulesError: A natural is declared under rules without naturals, or ``rules`` names
            no rule set.
        CardError: An arrangement cannot be read.
    """
    rules = as_rules(rules)
    if isinstance(a, Natural) or isinstance(b, Natural):
        if not rules.naturals:
            raise RulesError("a natural was declared but these rules have no naturals (add +naturals)")
        result = settle_naturals(a if isinstance(a, Natural) else None, b if isinstance(b, Natural) else None, rules)
        assert result is not None  # a natural was declared
        return int(result)
    return int(settle_values([as_arrangement(a).values()], [as_arrangement(b).values()], rules)[0])


def score_table(arrangements: Sequence[Arrangement | str | Natural], rules: Rules | str | None = None) -> tuple[int, ...]:
    """Each player's score against every other at a table of 2 to 4; sums to zero.

    Args:
        arrangements: Each player's arrangement, its text, or a declared
            ``solver.naturals.Natural``, in seat order.
        rules: The rule set, by name or as ``Rules``; basic by default.

    Returns:
        Each player's units, in seat order.

    Raises:
        CardError: There are not 2 to 4 players, or an arrangement cannot be read.
        DuplicateCardError: A card is dealt to two players.
        RulesError: A natural is declared under rules without naturals, or ``rules`` names
            no rule set.

    Examples:
        >>> score_table(["2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC",
        ...              "3S 3H 4D / 6C 6D 8S 5C 2D / 9C 9D TH TS AS"])
        (1, -1)
    """
    hands = [a if isinstance(a, Natural) else as_arrangement(a) for a in arrangements]
    if not 2 <= len(hands) <= 4:
        raise CardError(f"a table seats 2 to 4 players, got {len(hands)}")
    seen: dict[int, int] = {}
    for seat, hand in enumerate(hands):
        cards = hand.cards if isinstance(hand, Arrangement) else (hand.arrangement.cards if hand.arrangement else ())
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


def expected_rows(ours: ArrayLike, theirs: np.ndarray, weights: np.ndarray, row: int, rules: Rules, *,
                  foul_weight: float = 0.0, counted_weight: float | None = None,
                  total: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Expected result of each of our row values against a field's row in the same position.

    Weights may be counts (then the sums are exact) or shares. The royalties the field
    earns whatever our row does (without the win switch) are the same for every split and
    are left out.

    This is the separable part of ``solver._settle.settle_pair``: under basic scoring a
    hand's expected units are the sum of its three rows' (plus that constant).

    Args:
        ours: Our row values.
        theirs: The field's row values, sorted ascending.
        weights: The weight of each of ``theirs``.
        row: The row's index: 0 front, 1 middle, 2 back (its line of the royalty table).
        rules: The rule set; its scoring method is not read here, only its royalties.
        foul_weight: The weight of the field's fouled hands (we win the row, it pays nothing).
        counted_weight: The weight of the pairings settled by rows at all, not by a natural;
            ``None`` counts all (the sum of ``weights`` and ``foul_weight``).
        total: The weight of everything.

    Returns:
        For each of ``ours``, as float arrays: P(win), P(lose) and the expected units of
            the row, royalties included.
    """
    ours = np.asarray(ours, np.int64)
    cumulative = np.concatenate([[0.0], np.cumsum(weights)])
    below = cumulative[np.searchsorted(theirs, ours, side="left")]
    at_or_below = cumulative[np.searchsorted(theirs, ours, side="right")]
    win = (below + foul_weight) / total
    lose = (cumulative[-1] - at_or_below) / total
    units = win - lose
    if rules.royalties:
        table = royalty_array(rules)[row]
        earned = table[royalty_lines(ours)]
        counted = (cumulative[-1] + foul_weight if counted_weight is None else counted_weight) / total
        units = units + earned * (win if rules.royalty_needs_win else counted)
        if rules.royalty_needs_win:  # the field's royalty on the rows it wins from us
            paid = np.concatenate([np.cumsum((weights * table[royalty_lines(theirs)])[::-1])[::-1], [0.0]])
            units = units - paid[np.searchsorted(theirs, ours, side="right")] / total
    return win, lose, units
