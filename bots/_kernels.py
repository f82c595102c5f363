"""Strategy kernels: the split each bot plays, for a batch of hands.

Row classes, subset values and settlement come from ``solver.kernels``; the hands
are ``(n, 13)`` uint8 arrays of card ids and the tables those of
``solver.splits.split_tables``. Each kernel returns one split number per hand.
"""

import numpy as np

from solver.kernels import class_number, expected_units, inline, kernel, subset_values


@kernel
def _best_with_back(b, best, best_split, v3, v5, by_back, back_middle, back_front, base, middle_points,
                    front_points, front_cap):
    """Improve (best, best_split) with the splits whose back is five number ``b``."""
    vb = v5[b]
    for j in range(back_middle.shape[1]):
        m = back_middle[b, j]
        vm = v5[m]
        if vm > vb:
            continue
        partial = base + middle_points[m]
        if partial + front_cap[m] <= best:
            continue
        f = back_front[b, j]
        if v3[f] > vm:
            continue
        total = partial + front_points[f]
        if total > best:
            best = total
            best_split = by_back[b, j]
    return best, best_split


@kernel
def best_by_class_points(hands, columns3, columns5, by_back, back_middle, back_front, keys, numbers,
                         front, middle, back, front_upto, middle_upto):
    """Best split of each hand when each row scores by its class (``bots.points.RowPoints``).

    Exact branch and bound. A split with back ``b`` scores at most the back's points plus
    the best middle and front at or below it (``*_upto``) and available in the hand;
    backs that cannot beat the best split so far are skipped whole, and so is a middle
    that cannot with the best front it allows. The most promising back goes first; the
    first split found keeps a tie. Each subset's points are looked up once per hand, so
    the search reads plain per-subset arrays."""
    n = hands.shape[0]
    out = np.empty(n, np.int32)
    n3 = 286
    n5 = back_middle.shape[0]
    v3 = np.empty(n3, np.int32)
    v5 = np.empty(n5, np.int32)
    cards3 = np.empty(columns3.shape, np.uint8)
    cards5 = np.empty(columns5.shape, np.uint8)
    c5 = np.empty(n5, np.int32)
    front_points = np.empty(n3, np.float64)
    middle_points = np.empty(n5, np.float64)
    back_points = np.empty(n5, np.float64)
    front_cap = np.empty(n5, np.float64)  # the best front a middle of this five allows
    bound = np.empty(n5, np.float64)
    for h in range(n):
        subset_values(hands[h], columns3, columns5, cards3, cards5, v3, v5)
        hand_front = -np.inf
        for k in range(n3):
            front_points[k] = front[class_number(keys, numbers, v3[k])]
            hand_front = max(hand_front, front_points[k])
        hand_middle = -np.inf
        for k in range(n5):
            c = class_number(keys, numbers, v5[k])
            c5[k] = c
            middle_points[k] = middle[c]
            back_points[k] = back[c]
            front_cap[k] = min(front_upto[c], hand_front)
            hand_middle = max(hand_middle, middle_points[k])
        top = 0
        for k in range(n5):
            bound[k] = back_points[k] + min(middle_upto[c5[k]], hand_middle) + front_cap[k]
            if bound[k] > bound[top]:
                top = k
        best = -np.inf
        best_split = np.int64(-1)  # typed, so that _best_with_back is compiled for one signature
        for i in range(n5 + 1):  # the top back first, then the others in order
            b = top if i == 0 else i - 1
            if i == 0 or (b != top and bound[b] > best):
                best, best_split = _best_with_back(b, best, best_split, v3, v5, by_back, back_middle, back_front,
                                                   back_points[b], middle_points, front_points, front_cap)
        out[h] = best_split
    return out


@kernel
def greedy_splits(hands, columns3, columns5, masks5, split_of):
    """Greedy: the best five to the back, the best five of the other eight to the middle.

    Ties go to the first subset in lexicographic order of positions. ``split_of[b, m]``
    is the split number with back ``b`` and middle ``m`` (both rows of ``combos5``)."""
    n = hands.shape[0]
    out = np.empty(n, np.int32)
    v3 = np.empty(columns3.shape[1], np.int32)
    v5 = np.empty(columns5.shape[1], np.int32)
    cards3 = np.empty(columns3.shape, np.uint8)
    cards5 = np.empty(columns5.shape, np.uint8)
    for h in range(n):
        subset_values(hands[h], columns3, columns5, cards3, cards5, v3, v5)
        back = 0
        for k in range(v5.shape[0]):
            if v5[k] > v5[back]:
                back = k
        middle = -1
        for k in range(v5.shape[0]):
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


@kernel
def best_by_class_joint(hands, columns3, columns5, canon_front, canon_a, canon_b, canon_split, canon_twin, keys,
                        numbers, win, tie, extra, scoring):
    """Best split of each hand for a bonus rule, rows taken as independent.

    ``win``/``tie`` (3, classes) are each row's chances against the field, ``extra``
    (3, classes) separable points (royalties); every legal split is scored by the
    canonical scan, its value ``expected_units`` of the settlement kernels."""
    n = hands.shape[0]
    out = np.empty(n, np.int32)
    v3 = np.empty(286, np.int32)
    v5 = np.empty(1287, np.int32)
    cards3 = np.empty(columns3.shape, np.uint8)
    cards5 = np.empty(columns5.shape, np.uint8)
    c3 = np.empty(286, np.int32)
    c5 = np.empty(1287, np.int32)
    for h in range(n):
        subset_values(hands[h], columns3, columns5, cards3, cards5, v3, v5)
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
            value = expected_units(w0, t0, w1, t1, w2, t2, scoring) + extra[0, cf] + extra[1, cm] + extra[2, ck]
            if value > best:
                best = value
                best_split = canon_split[e] if m == a else canon_twin[e]
        out[h] = best_split
    return out
