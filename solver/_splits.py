"""Split kernels: every (front, middle, back) split of a 13-card hand by table look-up.

The tables (``solver.splits``) hold card *positions* 0..12, so they are built once and
serve every hand. Per hand, the 286 three-card and 1,287 five-card subsets are
evaluated once; a split is then three look-ups and two comparisons.
"""

import numpy as np
from numba import prange

from solver._evaluator import eval3, eval5
from solver._jit import inline, kernel, parallel_kernel


@inline
def subset_values(hand, combos3, combos5, v3, v5):
    """Fill ``v3``/``v5`` with the values of the hand's 3- and 5-card subsets."""
    for k in range(combos3.shape[0]):
        v3[k] = eval3(np.int32(hand[combos3[k, 0]]), np.int32(hand[combos3[k, 1]]),
                      np.int32(hand[combos3[k, 2]]))
    for k in range(combos5.shape[0]):
        v5[k] = eval5(np.int32(hand[combos5[k, 0]]), np.int32(hand[combos5[k, 1]]),
                      np.int32(hand[combos5[k, 2]]), np.int32(hand[combos5[k, 3]]),
                      np.int32(hand[combos5[k, 4]]))


@kernel
def hand_subset_values(hand, combos3, combos5):
    """The values of one hand's 286 three-card and 1,287 five-card subsets."""
    v3 = np.empty(combos3.shape[0], np.int32)
    v5 = np.empty(combos5.shape[0], np.int32)
    subset_values(hand, combos3, combos5, v3, v5)
    return v3, v5


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
def count_legal_splits(hands, combos3, combos5, split_front, split_middle, split_back):
    """Number of legal splits of each hand of an ``(n, 13)`` array."""
    n = hands.shape[0]
    out = np.zeros(n, np.int32)
    for h in prange(n):
        v3 = np.empty(combos3.shape[0], np.int32)
        v5 = np.empty(combos5.shape[0], np.int32)
        subset_values(hands[h], combos3, combos5, v3, v5)
        count = 0
        for s in range(split_front.shape[0]):
            f = v3[split_front[s]]
            m = v5[split_middle[s]]
            b = v5[split_back[s]]
            count += (f <= m) & (m <= b)
        out[h] = count
    return out


@parallel_kernel
def count_legal_canonical(hands, combos3, combos5, canon_front, canon_a, canon_b):
    """``count_legal_splits`` by the canonical scan: the stronger five go to the back.

    Each entry is a front and an unordered pair of fives; it stands for two splits,
    both legal when the fives tie and the front is no stronger than them."""
    n = hands.shape[0]
    out = np.zeros(n, np.int32)
    for h in prange(n):
        v3 = np.empty(combos3.shape[0], np.int32)
        v5 = np.empty(combos5.shape[0], np.int32)
        subset_values(hands[h], combos3, combos5, v3, v5)
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
