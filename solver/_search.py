"""Search kernel: every canonical split of one hand scored from per-row scores.

A "row score" array gives a number for each 3-card subset (``s3``, indexed like
``combos3``) or 5-card subset (``sm`` as a middle, ``sb`` as a back, indexed like
``combos5``). A split's score is the sum of its rows' scores. The canonical scan
(``solver.splits``) visits each front and unordered pair of fives once, with the
stronger five in the back; that covers every legal split.
"""

import numpy as np

from solver._jit import inline, kernel


@inline
def canonical_entry(e, v3, v5, canon_front, canon_a, canon_b, canon_split, canon_twin):
    """Canonical entry ``e`` of one hand as a play: (front, middle, back) subsets and split,
    the stronger five in the back, and how many legal splits it stands for: 0 when fouled, 2
    when its fives are equal (either may be the middle), else 1."""
    f = canon_front[e]
    a = canon_a[e]
    b = canon_b[e]
    x = v5[a]
    y = v5[b]
    if x <= y:
        return f, a, b, canon_split[e], (v3[f] <= x) * (1 + (x == y))
    return f, b, a, canon_twin[e], np.int64(v3[f] <= y)


@kernel
def score_canonical(v3, v5, s3, sm, sb, canon_front, canon_a, canon_b, canon_split, canon_twin):
    """Score of every canonical entry of one hand (``-inf`` when fouled), its split, and the
    number of legal splits of the hand (an entry whose fives are equal stands for two)."""
    n = canon_front.shape[0]
    evs = np.empty(n, np.float64)
    splits = np.empty(n, np.int32)
    legal = 0
    for e in range(n):
        f, m, b, split, count = canonical_entry(e, v3, v5, canon_front, canon_a, canon_b, canon_split, canon_twin)
        evs[e] = s3[f] + sm[m] + sb[b] if count else -np.inf
        splits[e] = split
        legal += count
    return evs, splits, legal


@kernel
def bonus_bounds(v3, v5, s3, sm, sb, canon_front, canon_a, canon_b, canon_split, canon_twin, win3, win_m, win_b, lose3,
                 lose_m, lose_b, constant, share, scoring):
    """Bounds on the expectation of every legal split of one hand under a bonus rule, in one pass
    of the canonical scan (as ``score_canonical``, whose row scores ``s3``/``sm``/``sb`` give the
    separable part), from its rows' chances of winning and losing by subset: ``win3``/``lose3``
    as a front, ``win_m``/``lose_m`` as a middle and ``win_b``/``lose_b`` as a back
    (``solver.solution._joint_plays`` says why they hold). Returns, for the legal entries
    in canonical order, their split, their front, middle and back subsets (3, n), the lower
    and upper bounds; and the number of legal splits (an entry whose fives are equal stands
    for two)."""
    n = canon_front.shape[0]
    splits = np.empty(n, np.int32)
    rows = np.empty((3, n), np.int64)
    lower = np.empty(n, np.float64)
    upper = np.empty(n, np.float64)
    legal = 0
    k = 0
    for e in range(n):
        f, m, back, split, count = canonical_entry(e, v3, v5, canon_front, canon_a, canon_b, canon_split, canon_twin)
        if count == 0:
            continue
        legal += count
        w0, w1, w2 = win3[f], win_m[m], win_b[back]
        l0, l1, l2 = lose3[f], lose_m[m], lose_b[back]
        base = s3[f] + sm[m] + sb[back] + constant
        if scoring == 1:
            rows_mean = w0 + w1 + w2 - l0 - l1 - l2
            upper[k] = base + min(3 * min(w0, w1, w2), 0.6 * (rows_mean + 2 * share))
            lower[k] = base + max(-3 * min(l0, l1, l2), 0.6 * (rows_mean - 2 * share))
        else:
            won = w0 + w1 + w2
            lost = l0 + l1 + l2
            half = (won - lost + share) / 2
            upper[k] = base + min(share, won, half)
            lower[k] = base - min(share, lost, share - half)
        splits[k] = split
        rows[0, k] = f
        rows[1, k] = m
        rows[2, k] = back
        k += 1
    return splits[:k], rows[:, :k], lower[:k], upper[:k], legal
