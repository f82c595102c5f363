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
    """Score of every canonical entry of one hand (``-inf`` when fouled) and its split."""
    n = canon_front.shape[0]
    evs = np.empty(n, np.float64)
    splits = np.empty(n, np.int32)
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
        elif f <= y:
            total = s3[cf] + sm[b] + sb[a]
            split = canon_twin[e]
        evs[e] = total
        splits[e] = split
    return evs, splits
