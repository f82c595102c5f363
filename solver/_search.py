"""Search kernels: the best legal split of a hand under per-row scores.

A "row score" array gives a number for each 3-card subset (``s3``, indexed like
``combos3``) or 5-card subset (``sm`` as a middle, ``sb`` as a back, indexed like
``combos5``). A split's score is the sum of its rows' scores. The canonical scan
(``solver.splits``) visits each front and unordered pair of fives once, with the
stronger five in the back; that covers every legal split.
"""

import numpy as np

from solver._jit import inline, kernel
from solver._splits import subset_values

HASH_BITS = 15  # class table: 32,768 slots for 7,917 row classes (solver.classes.class_hash)
HASH_MULTIPLIER = 0x9E3779B1


@inline
def _scan(v3, v5, s3, sm, sb, canon_front, canon_a, canon_b, canon_split, canon_twin, evs, splits):
    """Score every canonical entry (``-inf`` when fouled); return the best split."""
    best = -np.inf
    best_split = -1
    for e in range(canon_front.shape[0]):
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
        if evs.shape[0] > 0:
            evs[e] = total
            splits[e] = split
        if total > best:
            best = total
            best_split = split
    return best_split


@kernel
def score_canonical(v3, v5, s3, sm, sb, canon_front, canon_a, canon_b, canon_split, canon_twin):
    """Score of every canonical entry of one hand (``-inf`` when fouled) and its split."""
    n = canon_front.shape[0]
    evs = np.empty(n, np.float64)
    splits = np.empty(n, np.int32)
    _scan(v3, v5, s3, sm, sb, canon_front, canon_a, canon_b, canon_split, canon_twin, evs, splits)
    return evs, splits


@inline
def class_number(keys, numbers, value):
    """Class of a row value through the open-addressing table of ``solver.classes``."""
    slot = ((np.int64(value) * HASH_MULTIPLIER) & 0xFFFFFFFF) >> (32 - HASH_BITS)
    while keys[slot] != value:
        slot = (slot + 1) & ((1 << HASH_BITS) - 1)
    return numbers[slot]


@inline
def _best_with_back(b, best, best_split, v3, v5, c3, c5, split_front, split_middle, by_back, front, middle, back,
                    front_upto, hand_front):
    """Improve (best, best_split) with the splits whose back is five number ``b``."""
    vb = v5[b]
    base = back[c5[b]]
    for j in range(by_back.shape[1]):
        s = by_back[b, j]
        m = split_middle[s]
        vm = v5[m]
        if vm > vb:
            continue
        cm = c5[m]
        partial = base + middle[cm]
        if partial + min(front_upto[cm], hand_front) <= best:
            continue
        f = split_front[s]
        if v3[f] > vm:
            continue
        total = partial + front[c3[f]]
        if total > best:
            best = total
            best_split = s
    return best, best_split


@kernel
def best_by_class_points(hands, combos3, combos5, split_front, split_middle, by_back, keys, numbers,
                         front, middle, back, front_upto, middle_upto):
    """Best split of each hand when each row scores by its class (``solver.classes.RowPoints``).

    Exact branch and bound. A split with back ``b`` scores at most the back's points plus
    the best middle and front at or below it (``*_upto``) and available in the hand;
    backs that cannot beat the best split so far are skipped whole, and so is a middle
    that cannot with the best front it allows. The most promising back goes first; the
    first split found keeps a tie. Returns one split number per hand."""
    n = hands.shape[0]
    out = np.empty(n, np.int32)
    v3 = np.empty(combos3.shape[0], np.int32)
    v5 = np.empty(combos5.shape[0], np.int32)
    c3 = np.empty(combos3.shape[0], np.int32)
    c5 = np.empty(combos5.shape[0], np.int32)
    bound = np.empty(combos5.shape[0], np.float64)
    for h in range(n):
        subset_values(hands[h], v3, v5)
        hand_front = -np.inf
        for k in range(v3.shape[0]):
            c3[k] = class_number(keys, numbers, v3[k])
            hand_front = max(hand_front, front[c3[k]])
        hand_middle = -np.inf
        for k in range(v5.shape[0]):
            c5[k] = class_number(keys, numbers, v5[k])
            hand_middle = max(hand_middle, middle[c5[k]])
        top = 0
        for k in range(v5.shape[0]):
            c = c5[k]
            bound[k] = back[c] + min(middle_upto[c], hand_middle) + min(front_upto[c], hand_front)
            if bound[k] > bound[top]:
                top = k
        best, best_split = _best_with_back(top, -np.inf, -1, v3, v5, c3, c5, split_front, split_middle, by_back,
                                           front, middle, back, front_upto, hand_front)
        for b in range(v5.shape[0]):
            if bound[b] > best and b != top:
                best, best_split = _best_with_back(b, best, best_split, v3, v5, c3, c5, split_front, split_middle,
                                                   by_back, front, middle, back, front_upto, hand_front)
        out[h] = best_split
    return out


@kernel
def greedy_splits(hands, combos5, masks5, split_of):
    """Greedy: the best five to the back, the best five of the other eight to the middle.

    Ties go to the first subset in lexicographic order of positions. ``split_of[b, m]``
    is the split number with back ``b`` and middle ``m`` (both rows of ``combos5``)."""
    n = hands.shape[0]
    out = np.empty(n, np.int32)
    v3 = np.empty(286, np.int32)
    v5 = np.empty(combos5.shape[0], np.int32)
    for h in range(n):
        subset_values(hands[h], v3, v5)
        back = 0
        for k in range(combos5.shape[0]):
            if v5[k] > v5[back]:
                back = k
        middle = -1
        for k in range(combos5.shape[0]):
            if (masks5[k] & masks5[back]) == 0 and (middle < 0 or v5[k] > v5[middle]):
                middle = k
        out[h] = split_of[back, middle]
    return out


@kernel
def splits_to_cards(hands, splits, combos3, combos5, split_front, split_middle, split_back):
    """Each hand's cards reordered by its split: front (3), middle (5), back (5)."""
    n = hands.shape[0]
    out = np.empty((n, 13), np.uint8)
    for h in range(n):
        s = splits[h]
        for j in range(3):
            out[h, j] = hands[h, combos3[split_front[s], j]]
        for j in range(5):
            out[h, 3 + j] = hands[h, combos5[split_middle[s], j]]
            out[h, 8 + j] = hands[h, combos5[split_back[s], j]]
    return out


@inline
def _joint_value(w0, t0, w1, t1, w2, t2, scoring):
    """Expected pair score of three independent rows with these win/tie chances.

    scoring 0: basic; 1: 1-6 (a scoop pays 6); 2: 2-4 (one more unit for more rows won)."""
    l0 = 1.0 - w0 - t0
    l1 = 1.0 - w1 - t1
    l2 = 1.0 - w2 - t2
    value = (w0 - l0) + (w1 - l1) + (w2 - l2)
    if scoring == 1:
        value += 3.0 * (w0 * w1 * w2 - l0 * l1 * l2)
    elif scoring == 2:
        # Distribution of wins minus losses over the three rows, -3..3.
        d = np.zeros(7)
        for a in range(3):
            pa = l0 if a == 0 else (t0 if a == 1 else w0)
            for b in range(3):
                pb = l1 if b == 0 else (t1 if b == 1 else w1)
                for c in range(3):
                    pc = l2 if c == 0 else (t2 if c == 1 else w2)
                    d[a + b + c] += pa * pb * pc
        value += (d[4] + d[5] + d[6]) - (d[0] + d[1] + d[2])
    return value


@kernel
def best_by_class_joint(hands, canon_front, canon_a, canon_b, canon_split, canon_twin, keys, numbers,
                        win, tie, extra, scoring):
    """Best split of each hand for a bonus rule, rows taken as independent.

    ``win``/``tie`` (3, classes) are each row's chances against the field, ``extra``
    (3, classes) separable points (royalties); every legal split is scored by the
    canonical scan. Returns one split number per hand."""
    n = hands.shape[0]
    out = np.empty(n, np.int32)
    v3 = np.empty(286, np.int32)
    v5 = np.empty(1287, np.int32)
    c3 = np.empty(286, np.int32)
    c5 = np.empty(1287, np.int32)
    for h in range(n):
        subset_values(hands[h], v3, v5)
        for k in range(286):
            c3[k] = class_number(keys, numbers, v3[k])
        for k in range(1287):
            c5[k] = class_number(keys, numbers, v5[k])
        best = -np.inf
        best_split = -1
        for e in range(canon_front.shape[0]):
            f = canon_front[e]
            a = canon_a[e]
            b = canon_b[e]
            low = min(v5[a], v5[b])
            if v3[f] > low:
                continue
            m, k = (a, b) if v5[a] <= v5[b] else (b, a)
            cf, cm, ck = c3[f], c5[m], c5[k]
            w0, w1, w2 = win[0, cf], win[1, cm], win[2, ck]
            t0, t1, t2 = tie[0, cf], tie[1, cm], tie[2, ck]
            separable = (2 * w0 + t0 - 1) + (2 * w1 + t1 - 1) + (2 * w2 + t2 - 1)
            separable += extra[0, cf] + extra[1, cm] + extra[2, ck]
            # The bonus is at most 3 P(scoop) (1-6) or P(some row won) (2-4).
            if scoring == 1:
                ceiling = 3.0 * w0 * w1 * w2
            else:
                ceiling = 1.0 - (1.0 - w0) * (1.0 - w1) * (1.0 - w2)
            if separable + ceiling <= best:
                continue
            value = _joint_value(w0, t0, w1, t1, w2, t2, scoring) + extra[0, cf] + extra[1, cm] + extra[2, ck]
            if value > best:
                best = value
                best_split = canon_split[e] if m == a else canon_twin[e]
        out[h] = best_split
    return out


@kernel
def joint_means(cand, opp, opp_foul, plain, royalties, needs_win, scoring):
    """Mean settlement of each candidate (k, 3) row values against the sampled opponents
    (n, 3), over the samples settled by rows (``plain``), divided by all n samples.

    Same rules as ``solver.scoring.settle``: fouls, scoring 0 basic / 1 1-6 / 2 2-4, and
    the royalty table (3, 9), paid only on rows won when ``needs_win``."""
    k = cand.shape[0]
    n = opp.shape[0]
    out = np.zeros(k)
    for c in range(k):
        total = 0.0
        for s in range(n):
            if not plain[s]:
                continue
            wins = 0
            losses = 0
            score = 0
            roy_a = 0
            roy_b = 0
            for i in range(3):
                if opp_foul[s]:
                    r = 1
                else:
                    r = (cand[c, i] > opp[s, i]) - (cand[c, i] < opp[s, i])
                score += r
                wins += r == 1
                losses += r == -1
                if not needs_win or r == 1:
                    roy_a += royalties[i, cand[c, i] >> 26]
                if not opp_foul[s] and (not needs_win or r == -1):
                    roy_b += royalties[i, opp[s, i] >> 26]
            if scoring == 1:
                if wins == 3:
                    score = 6
                elif losses == 3:
                    score = -6
            elif scoring == 2:
                score += (wins > losses) - (losses > wins)
            total += score + roy_a - roy_b
        out[c] = total / n
    return out
