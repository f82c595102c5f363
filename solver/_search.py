"""Search kernel: every canonical split of one hand scored from per-row scores.

A "row score" array gives a number for each 3-card subset (``s3``, indexed like
``combos3``) or 5-card subset (``sm`` as a middle, ``sb`` as a back, indexed like
``combos5``). A split's score is the sum of its rows' scores. The canonical scan
(``solver.splits``) visits each front and unordered pair of fives once, with the
stronger five in the back; that covers every legal split.
"""

import numpy as np

from solver._jit import kernel


@kernel
def score_canonical(v3, v5, s3, sm, sb, canon_front, canon_a, canon_b, canon_split, canon_twin):
    """Score of every canonical entry of one hand (``-inf`` when fouled), its split, and the
    number of legal splits of the hand (an entry whose fives are equal stands for two)."""
    n = canon_front.shape[0]
    evs = np.empty(n, np.float64)
    splits = np.empty(n, np.int32)
    legal = 0
    for e in range(n):
        cf = canon_front[e]
        a = canon_a[e]
        b = canon_b[e]
        f = v3[cf]
        x = v5[a]
        y = v5[b]
        total = -np.inf
        split = canon_split[e]
        if x <= y:
            if f <= x:
                total = s3[cf] + sm[a] + sb[b]
                legal += 1 + (x == y)
        elif f <= y:
            total = s3[cf] + sm[b] + sb[a]
            split = canon_twin[e]
            legal += 1
        evs[e] = total
        splits[e] = split
    return evs, splits, legal


@kernel
def bonus_bounds(evs, splits, split_front, split_middle, split_back, win3, win_m, win_b, lose3, lose_m, lose_b,
                 constant, share, scoring):
    """Bounds on the expectation of every legal canonical entry under a bonus rule, from its
    separable score (``evs``, ``-inf`` when fouled) and its rows' chances of winning and
    losing, by subset: ``win3``/``lose3`` as a front, ``win_m``/``lose_m`` as a middle and
    ``win_b``/``lose_b`` as a back (``solver.solution._joint_candidates``
    says why they hold): the legal entries, their front, middle and back subsets, and the
    lower and upper bounds."""
    n = 0
    for e in range(evs.shape[0]):
        n += evs[e] > -np.inf
    entries = np.empty(n, np.int64)
    rows = np.empty((3, n), np.int64)
    lower = np.empty(n, np.float64)
    upper = np.empty(n, np.float64)
    k = 0
    for e in range(evs.shape[0]):
        if evs[e] == -np.inf:
            continue
        s = splits[e]
        f = split_front[s]
        m = split_middle[s]
        b = split_back[s]
        w0, w1, w2 = win3[f], win_m[m], win_b[b]
        l0, l1, l2 = lose3[f], lose_m[m], lose_b[b]
        base = evs[e] + constant
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
        entries[k] = e
        rows[0, k] = f
        rows[1, k] = m
        rows[2, k] = b
        k += 1
    return entries, rows, lower, upper
