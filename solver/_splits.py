"""Split kernels: every (front, middle, back) split of a 13-card hand by table look-up.

The tables (``solver.splits``) hold card *positions* 0..12, so they are built once and
serve every hand. Per hand, the 286 three-card and 1,287 five-card subsets are
evaluated once; a split is then three look-ups and two comparisons.
"""

import numpy as np
from numba import prange

from solver._evaluator import WHEEL, _add_rank, _compose
from solver._jit import inline, kernel, parallel_kernel


@inline
def _straight_run(ranks):
    run = ranks & (ranks >> 1) & (ranks >> 2) & (ranks >> 3) & (ranks >> 4)
    top_run = np.int32(ranks) if run != 0 else np.int32(0)
    return np.int32(0b1111) if ranks == WHEEL else top_run


@inline
def subset_values(hand, v3, v5):
    """Fill ``v3``/``v5`` with the values of the hand's 3- and 5-card subsets.

    Nested loops visit the subsets in lexicographic order of positions (the order of
    ``combos3``/``combos5``) and share the rank counts of common prefixes."""
    r = np.empty(13, np.int32)
    s = np.empty(13, np.int32)
    for i in range(13):
        r[i] = np.int32(1) << (np.int32(hand[i]) >> 2)
        s[i] = np.int32(hand[i]) & 3
    zero = np.int32(0)
    k5 = 0
    for a in range(9):
        for b in range(a + 1, 10):
            o2, t2, f2 = _add_rank(r[b], r[a], zero, zero)
            same2 = s[a] == s[b]
            for c in range(b + 1, 11):
                o3, t3, f3 = _add_rank(r[c], o2, t2, f2)
                same3 = same2 & (s[c] == s[a])
                for d in range(c + 1, 12):
                    o4, t4, f4 = _add_rank(r[d], o3, t3, f3)
                    same4 = same3 & (s[d] == s[a])
                    for e in range(d + 1, 13):
                        o5, t5, f5 = _add_rank(r[e], o4, t4, f4)
                        flush = same4 & (s[e] == s[a])
                        v5[k5] = _compose(o5, t5, f5, flush, _straight_run(r[a] | r[b] | r[c] | r[d] | r[e]))
                        k5 += 1
    k3 = 0
    for a in range(11):
        for b in range(a + 1, 12):
            o2, t2, f2 = _add_rank(r[b], r[a], zero, zero)
            for c in range(b + 1, 13):
                o3, t3, f3 = _add_rank(r[c], o2, t2, f2)
                v3[k3] = _compose(o3, t3, f3, False, zero)
                k3 += 1


@kernel
def hand_subset_values(hand, combos3, combos5):
    """The values of one hand's 286 three-card and 1,287 five-card subsets."""
    v3 = np.empty(combos3.shape[0], np.int32)
    v5 = np.empty(combos5.shape[0], np.int32)
    subset_values(hand, v3, v5)
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
        subset_values(hands[h], v3, v5)
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
        subset_values(hands[h], v3, v5)
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
