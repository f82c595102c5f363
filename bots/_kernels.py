"""Strategy kernels: the split each bot plays, for a batch of hands.

Row classes, subset values and settlement come from ``solver.kernels``; the hands
are ``(n, 13)`` uint8 arrays of card ids and the tables those of
``solver.splits.split_tables``. Each kernel returns one split number per hand.
"""

import numpy as np

from solver.kernels import class_number, expected_units, inline, kernel, subset_values

SLACK = 1e-9  # the joint search's bounds and values are summed in different orders: never prune on a rounding


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
    cards3 = np.empty(columns3.shape, np.uint8)
    cards5 = np.empty(columns5.shape, np.uint8)
    c5 = np.empty(n5, np.int32)
    front_points = np.empty(n3, np.float64)
    middle_points = np.empty(n5, np.float64)
    back_points = np.empty(n5, np.float64)
    front_cap = np.empty(n5, np.float64)  # the best front a middle of this five allows
    bound = np.empty(n5, np.float64)
    for h in range(n):
        v3, v5 = subset_values(hands[h], columns3, columns5, cards3, cards5)
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
    cards3 = np.empty(columns3.shape, np.uint8)
    cards5 = np.empty(columns5.shape, np.uint8)
    for h in range(n):
        v3, v5 = subset_values(hands[h], columns3, columns5, cards3, cards5)
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


@inline
def _bonus_ceiling(w0, t0, w1, t1, w2, t2, scoring):
    """The most a bonus rule adds to the rows' separable value when row i wins with chance at
    most ``wi`` and ties with chance at most ``ti``.

    The bonus (1-6: 3 P(all won) - 3 P(all lost); 2-4: P(more rows won than lost) -
    P(fewer)) never falls when a row's chance moves from losing to tying or from tying to
    winning. So it is largest for rows that win as often as allowed, tie as often as is
    left, and lose as little as possible; that bonus is the ceiling."""
    t0 = min(t0, 1.0 - w0)
    t1 = min(t1, 1.0 - w1)
    t2 = min(t2, 1.0 - w2)
    separable = (2.0 * w0 + t0 - 1.0) + (2.0 * w1 + t1 - 1.0) + (2.0 * w2 + t2 - 1.0)
    return expected_units(w0, t0, w1, t1, w2, t2, scoring) - separable


@inline
def _quick_bonus_ceiling(w0, t0, w1, t1, w2, t2, scoring):
    """A looser ceiling than ``_bonus_ceiling`` at a fraction of its cost, for the same
    arguments: it leaves out the chance of paying the bonus. Under 1-6 the bonus is at most
    3 P(all won); under 2-4 at most P(two or three won) + P(one won, two tied)."""
    if scoring == 1:
        return 3.0 * w0 * w1 * w2
    return w0 * w1 + w0 * w2 + w1 * w2 - 2.0 * w0 * w1 * w2 + w0 * t1 * t2 + w1 * t0 * t2 + w2 * t0 * t1


@kernel
def _joint_with_back(b, best, best_entry, best_split, v3, v5, c5, by_back, back_middle, back_front, canon_of,
                     canon_a, win, tie, tie_max, extra, separable, threes, fives, scoring):
    """Improve the best split (value, canonical entry, split) with the splits whose back is five ``b``;
    the front is the only row left unknown, so a middle is skipped by the quick ceiling.

    ``threes`` (3, 286) holds each three's P(win), P(tie) and extra as a front; ``fives``
    (6, 1287) each five's separable value, P(win), P(tie) and extra as a middle, then the
    most a front below it can win and add (see ``best_by_class_joint``)."""
    vb = v5[b]
    cb = c5[b]
    w2 = win[2, cb]
    t2 = tie[2, cb]
    e2 = extra[2, cb]
    back_part = separable[2, cb]
    for j in range(back_middle.shape[1]):
        m = back_middle[b, j]
        vm = v5[m]
        if vm > vb:
            continue
        w1 = fives[1, m]
        ceiling = _quick_bonus_ceiling(fives[4, m], tie_max[0], w1, fives[2, m], w2, t2, scoring)
        if back_part + fives[0, m] + fives[5, m] + ceiling + SLACK < best:
            continue
        f = back_front[b, j]
        if v3[f] > vm:
            continue
        s = by_back[b, j]
        e = canon_of[s]
        if vm == vb and m != canon_a[e]:
            continue  # equal fives: the canonical scan plays its first five as the middle
        value = expected_units(threes[0, f], threes[1, f], w1, fives[2, m], w2, t2, scoring) + threes[2, f] + \
            fives[3, m] + e2
        if value > best or (value == best and e < best_entry):
            best = value
            best_entry = e
            best_split = s
    return best, best_entry, best_split


@kernel
def best_by_class_joint(hands, columns3, columns5, by_back, back_middle, back_front, canon_of, canon_a, keys, numbers,
                        win, tie, tie_max, extra, separable, front_upto, middle_upto, scoring):
    """Best split of each hand for a bonus rule, rows taken as independent.

    ``win``/``tie`` (3, classes) are each row's chances against the field (``tie_max`` the
    most each row ties), ``extra`` (3, classes) separable points (royalties); a split's
    value is ``expected_units`` of the settlement kernels plus its extras. ``separable``
    (3, classes) is each row's value without the bonus, P(win) - P(loss) + extra, and
    ``*_upto`` its best at or below each class. Exact branch and bound over backs, then
    middles, as for row points: a split is worth at most its separable bound plus the most
    the bonus can add when each row wins and ties no more often than bounds allow (a row's
    chance of winning grows with its class; ``tie_max`` bounds its ties): for a back
    ``_bonus_ceiling``, for a middle the quicker ``_quick_bonus_ceiling``. Equal values go
    to the split the canonical scan meets first (the lowest canonical entry). Each
    subset's numbers are looked up once per hand."""
    n = hands.shape[0]
    out = np.empty(n, np.int32)
    n5 = back_middle.shape[0]
    cards3 = np.empty(columns3.shape, np.uint8)
    cards5 = np.empty(columns5.shape, np.uint8)
    c3 = np.empty(286, np.int32)
    c5 = np.empty(n5, np.int32)
    threes = np.empty((3, 286), np.float64)
    fives = np.empty((6, n5), np.float64)
    bound = np.empty(n5, np.float64)
    for h in range(n):
        v3, v5 = subset_values(hands[h], columns3, columns5, cards3, cards5)
        hand_front = -np.inf
        hand_front_win = 0.0
        for k in range(286):
            c = class_number(keys, numbers, v3[k])
            c3[k] = c
            threes[0, k] = win[0, c]
            threes[1, k] = tie[0, c]
            threes[2, k] = extra[0, c]
            hand_front = max(hand_front, separable[0, c])
            hand_front_win = max(hand_front_win, win[0, c])
        hand_middle = -np.inf
        hand_middle_win = 0.0
        for k in range(n5):
            c = class_number(keys, numbers, v5[k])
            c5[k] = c
            fives[0, k] = separable[1, c]
            fives[1, k] = win[1, c]
            fives[2, k] = tie[1, c]
            fives[3, k] = extra[1, c]
            fives[4, k] = min(win[0, c], hand_front_win)  # a front at or below this five wins at most this often
            fives[5, k] = min(front_upto[c], hand_front)  # and adds at most this much
            hand_middle = max(hand_middle, separable[1, c])
            hand_middle_win = max(hand_middle_win, win[1, c])
        top = 0
        for k in range(n5):
            c = c5[k]
            bound[k] = separable[2, c] + min(middle_upto[c], hand_middle) + fives[5, k] + _bonus_ceiling(
                fives[4, k], tie_max[0], min(win[1, c], hand_middle_win), tie_max[1], win[2, c], tie[2, c], scoring)
            if bound[k] > bound[top]:
                top = k
        best = -np.inf
        best_entry = np.int64(canon_of.shape[0])
        best_split = np.int64(-1)
        for i in range(n5 + 1):  # the top back first, then the others in order
            b = top if i == 0 else i - 1
            if i == 0 or (b != top and bound[b] + SLACK >= best):
                best, best_entry, best_split = _joint_with_back(
                    b, best, best_entry, best_split, v3, v5, c5, by_back, back_middle, back_front, canon_of,
                    canon_a, win, tie, tie_max, extra, separable, threes, fives, scoring)
        out[h] = best_split
    return out
