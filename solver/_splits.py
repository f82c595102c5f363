"""Split kernels: every (front, middle, back) split of a 13-card hand by table look-up.

The tables (``solver.splits``) hold card *positions* 0..12, so they are built once and
serve every hand. Per hand, the 286 three-card and 1,287 five-card subsets are
evaluated once; a split is then three look-ups and two comparisons.
"""

import numpy as np
from numba import prange

from solver._evaluator import eval3_columns, eval5_columns
from solver._jit import inline, kernel, parallel_kernel


@kernel
def subset_values(hand, columns3, columns5, cards3, cards5):
    """The values of the hand's 3- and 5-card subsets: two new arrays (286,) and (1287,).

    ``columns3``/``columns5`` are the subsets' card positions slot by slot ((3, 286) and
    (5, 1287), the transposed ``combos3``/``combos5``); ``cards3``/``cards5`` are uint8
    scratch arrays of those shapes. The subsets' cards are gathered there and valued by
    the evaluator's column kernels, which LLVM vectorises: faster than sharing the rank
    counts of common prefixes, and compiled once for every kernel that calls it."""
    for j in range(5):
        for i in range(columns5.shape[1]):
            cards5[j, i] = hand[columns5[j, i]]
    for j in range(3):
        for i in range(columns3.shape[1]):
            cards3[j, i] = hand[columns3[j, i]]
    return eval3_columns(cards3), eval5_columns(cards5)


@kernel
def split_rows(v3, v5, split_front, split_middle, split_back):
    """Row values of every split and whether it is legal (front <= middle <= back)."""
    n = split_front.shape[0]
    front = np.empty(n, np.int32)
    middle = np.empty(n, np.int32)
    back = np.empty(n, np.int32)
    legal = np.empty(n, np.bool_)
    for s in range(n):
        f = v3[split_front[s]]
        m = v5[split_middle[s]]
        b = v5[split_back[s]]
        front[s] = f
        middle[s] = m
        back[s] = b
        legal[s] = (f <= m) & (m <= b)
    return front, middle, back, legal


@parallel_kernel
def count_legal_splits(hands, columns3, columns5, split_front, split_middle, split_back):
    """Number of legal splits of each hand of an ``(n, 13)`` array."""
    n = hands.shape[0]
    out = np.zeros(n, np.int32)
    for h in prange(n):
        v3, v5 = subset_values(hands[h], columns3, columns5, np.empty(columns3.shape, np.uint8),
                               np.empty(columns5.shape, np.uint8))
        count = 0
        for s in range(split_front.shape[0]):
            f = v3[split_front[s]]
            m = v5[split_middle[s]]
            b = v5[split_back[s]]
            count += (f <= m) & (m <= b)
        out[h] = count
    return out


@parallel_kernel
def count_legal_canonical(hands, columns3, columns5, canon_front, canon_a, canon_b):
    """``count_legal_splits`` by the canonical scan: the stronger five go to the back.

    Each entry is a front and an unordered pair of fives; it stands for two splits,
    both legal when the fives tie and the front is no stronger than them."""
    n = hands.shape[0]
    out = np.zeros(n, np.int32)
    for h in prange(n):
        v3, v5 = subset_values(hands[h], columns3, columns5, np.empty(columns3.shape, np.uint8),
                               np.empty(columns5.shape, np.uint8))
        count = 0
        for s in range(canon_front.shape[0]):
            f = v3[canon_front[s]]
            x = v5[canon_a[s]]
            y = v5[canon_b[s]]
            low = min(x, y)
            ok = f <= low
            count += ok + (ok & (x == y))
        out[h] = count
    return out


@inline
def card_set(row):
    """A row's card ids as a set of bits, or 0 when an id is not a card (0..51) or comes twice."""
    seen = np.uint64(0)
    for c in row:
        if c < 0 or c > 51:
            return np.uint64(0)
        bit = np.uint64(1) << np.uint64(c)
        if seen & bit:
            return np.uint64(0)
        seen |= bit
    return seen


@kernel
def first_foreign_row(hands, arranged):
    """The first row of ``arranged`` (n, 13) int64 that is not a reordering of the same row of
    ``hands`` (n, 13) uint8, or -1 when every row is. A row is one when its thirteen ids are
    cards (0..51), no two alike, and the hand holds each of them."""
    for h in range(hands.shape[0]):
        held = np.uint64(0)
        for c in hands[h]:
            held |= np.uint64(1) << np.uint64(c)
        if card_set(arranged[h]) != held:
            return h
    return -1


@kernel
def first_bad_hand(hands):
    """The first row of ``hands`` (n, 13) whose ids are not thirteen cards (0..51), no two alike,
    or -1 when every row is a hand."""
    for h in range(hands.shape[0]):
        if hands.shape[1] != 13 or card_set(hands[h]) == 0:
            return h
    return -1
