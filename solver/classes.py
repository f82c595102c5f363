"""Row classes: every distinct row value, 7,462 five-card and 455 three-card.

Strategies that score a row by its value alone (the ``heuristic`` and ``table`` bots)
keep one number per class; ``np.searchsorted(row_classes(), value)`` finds it, and so
does ``solver.kernels.class_number`` inside a kernel.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from solver._classes import HASH_BITS, HASH_MULTIPLIER
from solver.evaluator import evaluate_many


def _multisets(size: int, most: int) -> np.ndarray:
    """Sorted rank multisets of ``size`` ranks, each rank at most ``most`` times."""
    sets = [c for c in itertools.combinations_with_replacement(range(13), size) if max(c.count(r) for r in c) <= most]
    return np.array(sets, np.int64)


@functools.cache
def row_classes() -> np.ndarray:
    """Every distinct row value, sorted ascending (7,917 of them)."""
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

    ``keys[h]`` holds a value (or -1) and ``numbers[h]`` its class; a value's first slot
    is ``((value * HASH_MULTIPLIER) mod 2**32) >> (32 - HASH_BITS)``, then the next ones."""
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
    """True for the classes of five-card rows, False for three-card ones."""
    classes = row_classes()
    fives = _multisets(5, 4) * 4 + np.array([0, 1, 2, 3, 0])
    flushes = np.array(list(itertools.combinations(range(13), 5)), np.int64) * 4 + 3
    five_values = np.union1d(evaluate_many(fives), evaluate_many(flushes))
    return np.isin(classes, five_values)
