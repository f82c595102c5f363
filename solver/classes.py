"""Row classes: every distinct row value, 7,462 five-card and 455 three-card.

Strategies that score a row by its value alone (the ``heuristic`` and ``table`` bots)
keep one number per class; ``np.searchsorted(row_classes(), value)`` finds it, and so
does ``solver.kernels.class_number`` inside a kernel.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from solver._classes import FIVES, HASH_BITS, HASH_MULTIPLIER, THREES
from solver.evaluator import evaluate_many


def _multisets(size: int, most: int) -> np.ndarray:
    """Sorted rank multisets of ``size`` ranks, each rank at most ``most`` times."""
    sets = [c for c in itertools.combinations_with_replacement(range(13), size) if max(c.count(r) for r in c) <= most]
    return np.array(sets, np.int64)


@functools.cache
def row_classes() -> np.ndarray:
    """Every distinct row value, sorted ascending (7,917 of them).

    Returns:
        The values (int32, read-only), built on first use and shared after that; a value's
            index is its class number.
    """
    fives = _multisets(5, 4)
    threes = _multisets(3, 3)
    # Suits 0,1,2,3,0 down the sorted ranks: equal ranks get distinct suits, never a flush.
    rows5 = fives * 4 + np.array([0, 1, 2, 3, 0])
    rows3 = threes * 4 + np.array([0, 1, 2])
    distinct = np.array(list(itertools.combinations(range(13), 5)), np.int64)
    flushes = distinct * 4 + 3
    values = np.concatenate(
        [evaluate_many(rows5), evaluate_many(flushes), evaluate_many(rows3)]
    )
    classes = np.unique(values)
    classes.setflags(write=False)
    return classes


@functools.cache
def class_hash() -> tuple[np.ndarray, np.ndarray]:
    """Open-addressing table from row value to class number, for the kernels.

    A value's first slot is ``((value * HASH_MULTIPLIER) mod 2**32) >> (32 - HASH_BITS)``,
    then the next ones.

    Returns:
        ``keys`` and ``numbers``, both of ``2**HASH_BITS`` slots and read-only: ``keys[h]``
            holds a value (or -1, int32) and ``numbers[h]`` its class (int16).
    """
    size = 1 << HASH_BITS
    keys = np.full(size, -1, np.int32)
    numbers = np.zeros(size, np.int16)
    for number, value in enumerate(row_classes().tolist()):
        slot = ((value * HASH_MULTIPLIER) & 0xFFFFFFFF) >> (32 - HASH_BITS)
        while keys[slot] != -1:
            slot = (slot + 1) & (size - 1)
        keys[slot] = value
        numbers[slot] = number
    keys.setflags(write=False)
    numbers.setflags(write=False)
    return keys, numbers


@functools.cache
def five_card_class_mask() -> np.ndarray:
    """True for the classes of five-card rows, False for three-card ones.

    Returns:
        A bool array, one entry per class of ``row_classes``.
    """
    classes = row_classes()
    fives = _multisets(5, 4) * 4 + np.array([0, 1, 2, 3, 0])
    flushes = np.array(list(itertools.combinations(range(13), 5)), np.int64) * 4 + 3
    five_values = np.union1d(evaluate_many(fives), evaluate_many(flushes))
    return np.isin(classes, five_values)


@dataclass(frozen=True)
class RankClasses:
    """Row classes by rank multiset, for kernels that class a hand's subsets without valuing them.

    A row's class depends only on its ranks and on whether it is a flush. Ranks sorted
    ``r0 <= r1 <= ...`` get a dense number by the combinatorial number system:
    ``sum(weights[i, r_i])`` with ``weights[i, r] = C(r + i, i + 1)``, below 6,188 for fives
    and 455 for threes; ``fives[number]`` is the class of a five of those ranks,
    ``fives[FIVES + number]`` of a flush of them (-1 where none exists), ``threes[number]``
    of a three. ``subset[mask]`` is the subset number (row of ``combos3``/``combos5``) of a
    set of card positions in a hand, a 13-bit mask."""

    weights5: np.ndarray  # (5, 13) int64
    weights3: np.ndarray  # (3, 13) int64
    fives: np.ndarray  # (2 * FIVES,) int16
    threes: np.ndarray  # (THREES,) int16
    subset: np.ndarray  # (8192,) int16

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        """The tables as the kernels take them (``bots._kernels.subset_classes``)."""
        return (self.weights5, self.weights3, self.fives, self.threes, self.subset)


@functools.cache
def rank_classes() -> RankClasses:
    """The tables of ``RankClasses``, made from ``row_classes``.

    Returns:
        The tables (read-only arrays), built on first use and shared after that.
    """
    classes = row_classes()
    assert (FIVES, THREES) == (math.comb(17, 5), math.comb(15, 3))
    weights5 = np.array([[math.comb(r + i, i + 1) for r in range(13)] for i in range(5)], np.int64)
    weights3 = np.array([[math.comb(r + i, i + 1) for r in range(13)] for i in range(3)], np.int64)
    fives = np.full(2 * FIVES, -1, np.int16)
    ranks = _multisets(5, 4)
    fives[weights5[np.arange(5), ranks].sum(axis=1)] = np.searchsorted(
        classes, evaluate_many(ranks * 4 + np.array([0, 1, 2, 3, 0])))  # suits 0,1,2,3,0: never a flush
    distinct = np.array(list(itertools.combinations(range(13), 5)), np.int64)
    fives[FIVES + weights5[np.arange(5), distinct].sum(axis=1)] = np.searchsorted(classes, evaluate_many(distinct * 4 + 3))
    threes = np.full(THREES, -1, np.int16)
    ranks = _multisets(3, 3)
    threes[weights3[np.arange(3), ranks].sum(axis=1)] = np.searchsorted(
        classes, evaluate_many(ranks * 4 + np.array([0, 1, 2])))
    subset = np.full(1 << 13, -1, np.int16)
    for size in (3, 5):
        for number, positions in enumerate(itertools.combinations(range(13), size)):
            subset[sum(1 << p for p in positions)] = number
    tables = RankClasses(weights5, weights3, fives, threes, subset)
    for array in (weights5, weights3, fives, threes, subset):
        array.setflags(write=False)
    return tables


@functools.cache
def class_rank_counts() -> np.ndarray:
    """The cards of each rank in a row of each class: a class fixes its row's ranks, not its suits.

    Returns:
        ``(classes, 13)`` int8 counts, rank 2 first, read-only; a three-card class's sum to 3, a
            five-card class's to 5.
    """
    classes = row_classes()
    counts = np.zeros((classes.size, 13), np.int8)
    for ranks, suits in ((_multisets(5, 4), [0, 1, 2, 3, 0]),
                         (np.array(list(itertools.combinations(range(13), 5)), np.int64), [3, 3, 3, 3, 3]),
                         (_multisets(3, 3), [0, 1, 2])):
        numbers = np.searchsorted(classes, evaluate_many(ranks * 4 + np.array(suits)))
        for column in ranks.T:
            np.add.at(counts, (numbers, column), 1)
    counts.setflags(write=False)
    return counts
