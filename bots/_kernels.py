"""Strategy kernels: the split each bot plays, for a batch of hands.

Row classes, subset values and settlement come from ``solver.kernels``; the hands
are ``(n, 13)`` uint8 arrays of card ids and the tables those of
``solver.splits.split_tables``. Each kernel returns one split number per hand.
"""

import numpy as np

from bots._bounds import best_five_and_three, suit_tables
from solver._bits import trailing_zeros
from solver._classes import FIVES
from solver.kernels import class_number, expected_units, inline, kernel, row_units, subset_values

SLACK = 1e-9  # the searches sum bounds and values in different orders: never prune on a rounding


MASK_SHIFT = 16  # where a subset's card positions sit in its packed number (``subset_classes``)
SUIT_SHIFT = 32  # and its suit counts, four bits a suit
FLUSH_TEST = 0x3333  # added to four suit counts below 8, sets the top bit of each count of 5 or more


@kernel
def subset_classes(hand, ranks, c3, c5, points5, column, points_out):
    """Class of each of the hand's 3- and 5-card subsets (rows of ``combos3``/``combos5``) into
    ``c3``/``c5``, from its ranks (``ranks``: the arrays of ``solver.classes.RankClasses``)
    without valuing it; each five's ``points5[class, column]`` into ``points_out``. Returns the
    most of those points.

    The hand's cards are taken in rank order, so each subset the nested loops meet has its
    ranks sorted, and one add a card gives three numbers packed in an int64: its ranks' dense
    number (the low 16 bits), its card positions (a 13-bit mask) and its suit counts (four
    bits a suit, for the flush test)."""
    weights5, weights3, fives_of, threes_of, subset = ranks
    held = np.int64(0)
    where = np.empty(52, np.int64)
    for p in range(13):
        held |= np.int64(1) << np.int64(hand[p])
        where[hand[p]] = p
    add5 = np.empty((5, 13), np.int64)
    add3 = np.empty((3, 13), np.int64)
    i = 0
    for card in range(52):  # the cards in rank order
        if (held >> card) & 1:
            r = card >> 2
            extra = (np.int64(1) << (MASK_SHIFT + where[card])) + (np.int64(1) << (SUIT_SHIFT + 4 * (card & 3)))
            for slot in range(5):
                add5[slot, i] = weights5[slot, r] + extra
            for slot in range(3):
                add3[slot, i] = weights3[slot, r] + extra
            i += 1
    for a in range(11):
        xa = add3[0, a]
        for b in range(a + 1, 12):
            xb = xa + add3[1, b]
            for c in range(b + 1, 13):
                x = xb + add3[2, c]
                c3[subset[(x >> MASK_SHIFT) & 0x1FFF]] = threes_of[x & 0xFFFF]
    most = -np.inf
    for a in range(9):
        xa = add5[0, a]
        for b in range(a + 1, 10):
            xb = xa + add5[1, b]
            for c in range(b + 1, 11):
                xc = xb + add5[2, c]
                for d in range(c + 1, 12):
                    xd = xc + add5[3, d]
                    for e in range(d + 1, 13):
                        x = xd + add5[4, e]
                        flush = (((x >> SUIT_SHIFT) + FLUSH_TEST) & 0x8888) != 0
                        number = fives_of[(x & 0xFFFF) + (FIVES if flush else 0)]
                        k = subset[(x >> MASK_SHIFT) & 0x1FFF]
                        c5[k] = number
                        points_out[k] = points5[number, column]
                        most = max(most, points_out[k])
    return most


@kernel
def _best_with_back(b, best, best_split, c3, c5, by_back, back_middle, back_front, base, middle_points,
                    front_points, middle_cap):
    """Improve (best, best_split) with the splits whose back is five number ``b``.

    ``middle_cap[m]`` is the most a middle ``m`` and a front below it can add. The 56 middles
    are screened first, without branches (LLVM vectorises it): a bit for each whose cap beats
    the best by more than SLACK. Only those are then visited, in order, and a split is kept
    when its total beats the best, so the first split found keeps a tie. The cap is summed in
    another order than the totals, and the slack keeps every middle that the totals could
    count as an improvement; legality compares classes, which are ordered as values."""
    cb = c5[b]
    need = best - base - SLACK
    screened = np.int64(0)
    for j in range(56):
        screened |= np.int64(middle_cap[back_middle[b, j]] > need) << j
    while screened != 0:
        j = trailing_zeros(screened)
        screened &= screened - 1
        m = back_middle[b, j]
        cm = c5[m]
        if cm > cb:
            continue
        f = back_front[b, j]
        if c3[f] > cm:
            continue
        total = base + middle_points[m] + front_points[f]
        if total > best:
            best = total
            best_split = by_back[b, j]
    return best, best_split


@kernel
def best_by_class_points(hands, by_back, back_middle, back_front, ranks, front, fives):
    """Best split of each hand when each row scores by its class (``bots.points.RowPoints``:
    ``front`` its front points, ``fives`` its numbers for each five); ``ranks`` the arrays of
    ``solver.classes.rank_classes()``.

    Exact branch and bound. A split with back ``b`` scores at most the back's points plus
    the best middle and front at or below it (``*_upto``) and available in the hand;
    backs that cannot beat the best split so far are skipped whole, and so is a middle
    that cannot with the best front it allows. The most promising back goes first; the
    first split found keeps a tie. Each subset's class and points are taken once per hand
    (``subset_classes``), so the search reads plain per-subset arrays."""
    n = hands.shape[0]
    out = np.empty(n, np.int32)
    n3 = 286
    n5 = back_middle.shape[0]
    c3 = np.empty(n3, np.int16)
    c5 = np.empty(n5, np.int16)
    front_points = np.empty(n3, np.float64)
    middle_points = np.empty(n5, np.float64)
    middle_cap = np.empty(n5, np.float64)  # this five's points as a middle plus the best front it allows
    bound = np.empty(n5, np.float64)
    for h in range(n):
        hand_middle = subset_classes(hands[h], ranks, c3, c5, fives, 0, middle_points)
        hand_front = -np.inf
        for k in range(n3):
            front_points[k] = front[c3[k]]
            hand_front = max(hand_front, front_points[k])
        top = 0
        top_bound = -np.inf
        for k in range(n5):
            c = c5[k]
            front_cap = min(fives[c, 2], hand_front)
            middle_cap[k] = middle_points[k] + front_cap
            bound[k] = fives[c, 1] + min(fives[c, 3], hand_middle) + front_cap
            if bound[k] > top_bound:
                top = k
                top_bound = bound[k]
        best = -np.inf
        best_split = np.int64(-1)  # typed, so that _best_with_back is compiled for one signature
        for i in range(n5 + 1):  # the top back first, then the others in order
            b = top if i == 0 else i - 1
            if i == 0 or (b != top and bound[b] > best):
                best, best_split = _best_with_back(b, best, best_split, c3, c5, by_back, back_middle, back_front,
                                                   fives[c5[b], 1], middle_points, front_points, middle_cap)
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
def _bonus_cap(w0, w1, w2, scoring):
    """A quick cap on ``_bonus_ceiling`` for rows that win at most ``wi``: under 1-6 the bonus
    is at most 3 P(all won) <= 3 min(wi); under 2-4 at most P(some row won) <= min(1, w0 + w1 + w2)."""
    if scoring == 1:
        return 3.0 * min(w0, w1, w2)
    return min(1.0, w0 + w1 + w2)


@inline
def _middle_bounds(out, m, separable, front_cap, w0, t0, w1, t1, scoring):
    """Row ``m`` of ``out``: the most a middle and a front below it can add, split so that a back
    finishes it with two products: ``out[m, 0] + w2 * out[m, 1] + t2 * out[m, 2]``.

    The bonus part is a looser ceiling than ``_bonus_ceiling`` that leaves out the chance of
    paying the bonus: under 1-6 at most 3 P(all won); under 2-4 at most P(two or three won)
    + P(one won, two tied), that is w0 w1 + w2 (w0 + w1 - 2 w0 w1 + t0 t1) + t2 (w0 t1 + w1 t0)
    for a front that wins at most w0 and ties at most t0."""
    out[m, 0] = separable + front_cap
    if scoring == 1:
        out[m, 1] = 3.0 * w0 * w1
        out[m, 2] = 0.0
    else:
        out[m, 0] += w0 * w1
        out[m, 1] = w0 + w1 - 2.0 * w0 * w1 + t0 * t1
        out[m, 2] = w0 * t1 + w1 * t0


# Columns of JointPolicy.by_class: what the joint search reads for one class, side by side.
SEP1, WIN1, TIE1, EXTRA1, WIN0, FRONT_UPTO, SEP2, MIDDLE_UPTO, WIN2, TIE2, EXTRA2, SEP0, TIE0, EXTRA0 = range(14)
CLASS_COLUMNS = 16  # 14 used, two cache lines a class


@inline
def _floor(kept_value, count, margin):
    """The lowest value a split may have and still be kept: within ``margin`` of the best so far,
    and above the last one kept once the buffer is full; -inf while it is empty."""
    if count == 0:
        return -np.inf
    keep = kept_value.shape[0]
    floor = kept_value[0] - margin
    if count == keep:
        floor = max(floor, kept_value[keep - 1])
    return floor


@inline
def _keep_split(value, entry, split, front, middle, back, kept_value, kept_entry, kept_split, kept_rows, count):
    """Put a split into the buffer, best first (a higher value, then a lower canonical entry);
    the last one kept drops out of a full buffer. The number kept after."""
    keep = kept_value.shape[0]
    p = count
    while p > 0 and (value > kept_value[p - 1] or (value == kept_value[p - 1] and entry < kept_entry[p - 1])):
        p -= 1
    if p >= keep:
        return count
    q = min(count, keep - 1)
    while q > p:
        kept_value[q] = kept_value[q - 1]
        kept_entry[q] = kept_entry[q - 1]
        kept_split[q] = kept_split[q - 1]
        for i in range(3):
            kept_rows[q, i] = kept_rows[q - 1, i]
        q -= 1
    kept_value[p] = value
    kept_entry[p] = entry
    kept_split[p] = split
    kept_rows[p, 0] = front
    kept_rows[p, 1] = middle
    kept_rows[p, 2] = back
    return min(count + 1, keep)


@kernel
def _joint_with_back(b, kept, count, margin, c3, c5, by_back, back_middle, back_front, canon_of, canon_a,
                     w2, t2, e2, separable2, threes, fives, middle_bounds, scoring):
    """Keep the splits whose back is five ``b`` that come within ``margin`` of the best (``kept``:
    values, canonical entries, splits and row classes, best first, ``count`` of them so far;
    ``_floor``). The back wins, ties and adds ``w2``, ``t2``, ``e2`` and ``separable2``; the front
    is the only row left unknown, so a middle is skipped by its bound. The number kept after.

    ``threes`` (3, 286) holds each three's P(win), P(tie) and extra as a front; ``fives``
    (4, 1287) each five's separable value, P(win), P(tie) and extra as a middle;
    ``middle_bounds`` (1287, 3) the most a middle and its front can add (``_middle_bounds``).
    The 56 middles are screened by their bounds first, without branches, and only those that
    pass are visited, in order (as in ``_best_with_back``); legality compares classes."""
    kept_value, kept_entry, kept_split, kept_rows = kept
    cb = c5[b]
    floor = _floor(kept_value, count, margin)
    need = floor - separable2 - SLACK
    screened = np.int64(0)
    for j in range(56):
        m = back_middle[b, j]
        screened |= np.int64(middle_bounds[m, 0] + w2 * middle_bounds[m, 1] + t2 * middle_bounds[m, 2] >= need) << j
    while screened != 0:
        j = trailing_zeros(screened)
        screened &= screened - 1
        m = back_middle[b, j]
        cm = c5[m]
        if cm > cb:
            continue
        f = back_front[b, j]
        if c3[f] > cm:
            continue
        s = by_back[b, j]
        if cm == cb and m != canon_a[canon_of[s]]:
            continue  # equal fives: the canonical scan plays its first five as the middle
        value = expected_units(threes[0, f], threes[1, f], fives[1, m], fives[2, m], w2, t2, scoring) + threes[2, f] + \
            fives[3, m] + e2
        if value >= floor:  # the canonical entry, looked up only here, settles a tie
            count = _keep_split(value, canon_of[s], s, c3[f], cm, cb, kept_value, kept_entry, kept_split, kept_rows,
                                count)
            floor = _floor(kept_value, count, margin)
    return count


@kernel
def _joint_threes(c3, by_class, threes):
    """Each three's chances and extras as a front (``threes``), and the hand's best front value
    and chance of winning, for :func:`best_by_class_joint`."""
    hand_front = -np.inf
    hand_front_win = 0.0
    for k in range(286):
        c = c3[k]
        threes[0, k] = by_class[c, WIN0]
        threes[1, k] = by_class[c, TIE0]
        threes[2, k] = by_class[c, EXTRA0]
        hand_front = max(hand_front, by_class[c, SEP0])
        hand_front_win = max(hand_front_win, by_class[c, WIN0])
    return hand_front, hand_front_win


@kernel
def _joint_fives(c5, by_class, fives, front_win, front_cap, middle_bounds, bound, quick, hand_front, hand_front_win,
                 hand_middle, tie_max, scoring):
    """Each five as a middle (``fives``, ``middle_bounds``), and as a back its bound with a
    quick bonus cap (``bound``, ``quick``), for :func:`best_by_class_joint`; the back with the
    highest quick cap."""
    top = 0
    for k in range(c5.shape[0]):
        c = c5[k]
        fives[1, k] = by_class[c, WIN1]
        fives[2, k] = by_class[c, TIE1]
        fives[3, k] = by_class[c, EXTRA1]
        front_win[k] = min(by_class[c, WIN0], hand_front_win)
        front_cap[k] = min(by_class[c, FRONT_UPTO], hand_front)
        _middle_bounds(middle_bounds, k, fives[0, k], front_cap[k], front_win[k], tie_max[0], fives[1, k],
                       fives[2, k], scoring)
        bound[k] = by_class[c, SEP2] + min(by_class[c, MIDDLE_UPTO], hand_middle) + front_cap[k]
        quick[k] = bound[k] + _bonus_cap(front_win[k], fives[1, k], by_class[c, WIN2], scoring)
        if quick[k] > quick[top]:
            top = k
    return top


@kernel
def _left_ceiling(left, c, low, high, flushes, keys, numbers, by_class, hand_middle, hand_front, hand_front_win,
                  tie_max, scoring):
    """The most a split with a back of class ``c`` is worth, bounded by the eight cards it
    leaves (``left``, a mask of the hand's positions): no middle beats their best five, no
    front their best three (``bots._bounds``), for :func:`best_by_class_joint`."""
    five, three = best_five_and_three(left, low, high, flushes)
    cm = min(class_number(keys, numbers, five), c)  # the middle's class is at most this
    cf = min(class_number(keys, numbers, three), c)  # and the front's this
    w2 = by_class[c, WIN2]
    t2 = by_class[c, TIE2]
    return by_class[c, SEP2] + min(by_class[cm, MIDDLE_UPTO], hand_middle) + \
        min(by_class[cf, FRONT_UPTO], hand_front) + \
        _bonus_ceiling(min(by_class[cf, WIN0], hand_front_win), tie_max[0], by_class[cm, WIN1], tie_max[1], w2, t2,
                       scoring)


@kernel
def joint_scratch(n5, keep):
    """Scratch for :func:`joint_candidates`: the subsets' classes and numbers, the suit tables, and a
    buffer of ``keep`` splits (values, canonical entries, splits, row classes)."""
    scratch = (np.empty(286, np.int16), np.empty(n5, np.int16), np.empty((3, 286), np.float64),
               np.empty((4, n5), np.float64), np.empty(n5, np.float64), np.empty(n5, np.float64),
               np.empty((n5, 3), np.float64), np.empty(n5, np.float64), np.empty(n5, np.float64),
               np.empty(128, np.int64), np.empty(64, np.int64))
    kept = (np.empty(keep, np.float64), np.empty(keep, np.int64), np.empty(keep, np.int64),
            np.empty((keep, 3), np.int64))
    return scratch, kept


@kernel
def joint_candidates(hand, by_back, back_middle, back_front, canon_of, canon_a, masks5, ranks, keys, numbers,
                     by_class, tie_max, scoring, margin, scratch, kept):
    """The best splits of one hand for a bonus rule, rows taken as independent: those within
    ``margin`` of the best, at most as many as ``kept`` holds (``joint_scratch``), best first
    (equal values in the order the canonical scan meets them). The number kept; with a buffer
    of one and no margin, the best split alone, as :func:`best_by_class_joint` plays it."""
    c3, c5, threes, fives, front_win, front_cap, middle_bounds, bound, quick, low, high = scratch
    kept_value = kept[0]
    n5 = back_middle.shape[0]
    hand_middle = subset_classes(hand, ranks, c3, c5, by_class, SEP1, fives[0])
    flushes = suit_tables(hand, low, high)
    hand_front, hand_front_win = _joint_threes(c3, by_class, threes)
    top = _joint_fives(c5, by_class, fives, front_win, front_cap, middle_bounds, bound, quick, hand_front,
                       hand_front_win, hand_middle, tie_max, scoring)
    count = 0
    for i in range(n5 + 1):  # the top back first, then the others in order
        b = top if i == 0 else i - 1
        floor = _floor(kept_value, count, margin)
        if i > 0 and (b == top or quick[b] + SLACK < floor):
            continue
        c = c5[b]
        w2 = by_class[c, WIN2]
        t2 = by_class[c, TIE2]
        if i > 0:
            ceiling = bound[b] + _bonus_ceiling(front_win[b], tie_max[0], by_class[c, WIN1], tie_max[1], w2, t2,
                                                scoring)
            if ceiling + SLACK < floor or _left_ceiling(0x1FFF ^ masks5[b], c, low, high, flushes, keys, numbers,
                                                        by_class, hand_middle, hand_front, hand_front_win,
                                                        tie_max, scoring) + SLACK < floor:
                continue
        count = _joint_with_back(b, kept, count, margin, c3, c5, by_back, back_middle, back_front, canon_of, canon_a,
                                 w2, t2, by_class[c, EXTRA2], by_class[c, SEP2], threes, fives, middle_bounds, scoring)
    return count


@kernel
def coupled_pick(kept, count, margin, sample_rows, weights, scoring):
    """The split to play among those kept (``joint_candidates``), each one's value corrected for
    the coupling of the field's rows.

    ``sample_rows`` (n, 3) are the row classes of a sample of the field's hands, ``weights``
    their weights (the chance that each misses the player's cards). A split's value takes the
    field's rows as independent; on the sample its mean score (before royalties) is measured
    both as it is and from the sample's own chances row by row, and the difference is added.
    Only splits within ``margin`` of the best are weighed; equal values go to the lower
    canonical entry. A sample whose every hand weighs 0 leaves the best split as it is."""
    kept_value, kept_entry, kept_split, kept_rows = kept
    total = weights.sum()
    if total <= 0.0:  # no sample hand can be dealt beside this hand: nothing to correct by
        return kept_split[0]
    units = np.empty(27, np.float64)
    for r0 in range(3):
        for r1 in range(3):
            for r2 in range(3):
                units[r0 * 9 + r1 * 3 + r2] = row_units(r0 - 1, r1 - 1, r2 - 1, scoring)
    pick = 0
    best = -np.inf
    for k in range(count):
        if kept_value[k] < kept_value[0] - margin:
            break
        seen = False  # the same row classes as a split before it: the same value, and that one comes first
        for q in range(k):
            seen = seen or (kept_rows[q, 0] == kept_rows[k, 0] and kept_rows[q, 1] == kept_rows[k, 1] and
                            kept_rows[q, 2] == kept_rows[k, 2])
        if seen:
            continue
        joint = 0.0
        w0 = t0 = w1 = t1 = w2 = t2 = 0.0
        a0 = kept_rows[k, 0]
        a1 = kept_rows[k, 1]
        a2 = kept_rows[k, 2]
        for s in range(sample_rows.shape[0]):
            w = weights[s]
            r0 = np.int64(a0 > sample_rows[s, 0]) - np.int64(a0 < sample_rows[s, 0])
            r1 = np.int64(a1 > sample_rows[s, 1]) - np.int64(a1 < sample_rows[s, 1])
            r2 = np.int64(a2 > sample_rows[s, 2]) - np.int64(a2 < sample_rows[s, 2])
            joint += w * units[(r0 + 1) * 9 + (r1 + 1) * 3 + r2 + 1]
            w0 += w * (r0 == 1)
            t0 += w * (r0 == 0)
            w1 += w * (r1 == 1)
            t1 += w * (r1 == 0)
            w2 += w * (r2 == 1)
            t2 += w * (r2 == 0)
        value = kept_value[k] + joint / total - expected_units(w0 / total, t0 / total, w1 / total, t1 / total,
                                                               w2 / total, t2 / total, scoring)
        if value > best or (value == best and kept_entry[k] < kept_entry[pick]):
            best = value
            pick = k
    return kept_split[pick]


@kernel
def sample_weights(hand, sample_counts, held, weights):
    """``weights``: for each hand of a sample (``sample_counts`` (n, 13): its cards of each
    rank) the chance that it misses ``hand``'s cards, rank by rank (``held``: ``RANK_HELD``)."""
    k = np.zeros(13, np.int64)
    for j in range(hand.shape[0]):
        k[hand[j] >> 2] += 1
    ranks = np.empty(13, np.int64)  # the ranks held, and how many of each
    many = np.empty(13, np.int64)
    n = 0
    for r in range(13):
        if k[r] > 0:
            ranks[n] = r
            many[n] = k[r] - 1
            n += 1
    for s in range(sample_counts.shape[0]):
        w = 1.0
        for i in range(n):
            w *= held[many[i], sample_counts[s, ranks[i]]]
        weights[s] = w


@kernel
def best_by_class_joint(hands, by_back, back_middle, back_front, canon_of, canon_a, masks5, ranks, keys, numbers,
                        by_class, tie_max, scoring, keep, margin, sample_rows):
    """Best split of each hand for a bonus rule.

    ``by_class`` (classes, CLASS_COLUMNS) holds each class's numbers as a row (columns named
    above): its chances against the field (``WIN*``, ``TIE*``; ``tie_max`` the most each
    row ties), separable points (``EXTRA*``: royalties), value without the bonus
    (``SEP*``: P(win) - P(loss) + extra) and the best of that value at or below it as a
    front and as a middle (``*_UPTO``). A split's value is ``expected_units`` of the
    settlement kernels plus its extras, rows taken as independent. Exact branch and bound over backs, then middles,
    as for row points: a split is worth at most its separable bound plus the most the
    bonus can add when each row wins and ties no more often than bounds allow (a row's
    chance of winning grows with its class; ``tie_max`` bounds its ties): for a back
    ``_bonus_ceiling``, for a middle the looser one of ``_middle_bounds``. A back that passes
    is bounded once more by the eight cards it leaves (``masks5``: each five's positions;
    :func:`_left_ceiling`): the ``*_UPTO`` columns and the chances grow with the class. Equal values go to
    the split the canonical scan meets first (the lowest canonical entry). Each subset's
    numbers are looked up once per hand.

    With ``keep`` above 1, the ``keep`` best splits within ``margin`` of the best are weighed
    again with the coupling of the rows measured on the field's sample ``sample_rows``, all
    its hands alike (:func:`coupled_pick`)."""
    n = hands.shape[0]
    out = np.empty(n, np.int32)
    scratch, kept = joint_scratch(back_middle.shape[0], keep)
    weights = np.ones(sample_rows.shape[0], np.float64)
    for h in range(n):
        count = joint_candidates(hands[h], by_back, back_middle, back_front, canon_of, canon_a, masks5, ranks, keys,
                                 numbers, by_class, tie_max, scoring, margin, scratch, kept)
        out[h] = kept[2][0] if keep == 1 else coupled_pick(kept, count, margin, sample_rows, weights, scoring)
    return out


@kernel
def field_given_hand(hand, shares, factors, offsets, given):
    """``given``: the field's share of each row class it has once it cannot hold the hand's
    cards, rank by rank (``bots.table.Removal``).

    The classes the field's sample has are listed row after row (row ``i``'s from
    ``offsets[i]`` to ``offsets[i + 1]``, ascending), with their shares in ``shares`` and in
    ``factors[r, k - 1]`` the chance, on average over the sample's rows of the class, that the
    field's hand misses ``k`` given cards of rank ``r``. A class's share is multiplied by the
    factor of each rank the hand holds, and each row's shares are scaled to sum to 1; a class
    the sample never had has a share of 0 (``win_tie``). A row whose every class the hand
    rules out (only a small sample can do that) keeps the sample's shares."""
    held = np.zeros(13, np.int64)
    for j in range(hand.shape[0]):
        held[hand[j] >> 2] += 1
    given[:] = shares
    for r in range(13):
        if held[r] > 0:
            given *= factors[r, held[r] - 1]
    for i in range(3):
        lo = offsets[i]
        hi = offsets[i + 1]
        total = given[lo:hi].sum()
        if total == 0.0:  # the hand rules out every class the sample has: the row keeps the sample's shares
            given[lo:hi] = shares[lo:hi]
            total = given[lo:hi].sum()
        for j in range(lo, hi):
            given[j] = given[j] / total


@kernel
def win_tie(seen, given, offsets, win, tie):
    """Each class's chance of beating and of tying the field's row, row by row, from the
    listed classes' shares ``given`` (``field_given_hand``; ``seen`` their class numbers)."""
    for i in range(3):
        below = 0.0
        j = offsets[i]
        hi = offsets[i + 1]
        for c in range(win.shape[1]):
            win[i, c] = below
            tie[i, c] = 0.0
            if j < hi and seen[j] == c:
                tie[i, c] = given[j]
                below += given[j]
                j += 1


@kernel
def _given_scratch(listed, classes):
    """Scratch for the searches against the field given a hand: the listed classes' shares,
    then each class's P(win) and P(tie) by row."""
    return np.empty(listed, np.float64), np.empty((3, classes), np.float64), np.empty((3, classes), np.float64)


@kernel
def best_with_removal_points(hands, by_back, back_middle, back_front, ranks, seen, shares, factors, offsets, extra,
                             five):
    """``best_by_class_points`` for each hand with points against the field given that hand
    (``field_given_hand``): a row of class ``c`` scores P(win) - P(loss) + ``extra[i, c]``;
    ``five`` marks the five-card classes (no front) and the three-card ones (no middle or back)."""
    n = hands.shape[0]
    classes = extra.shape[1]
    out = np.empty(n, np.int32)
    given, win, tie = _given_scratch(shares.shape[0], classes)
    front = np.empty(classes, np.float64)
    fives = np.empty((classes, 4), np.float64)
    for h in range(n):
        field_given_hand(hands[h], shares, factors, offsets, given)
        win_tie(seen, given, offsets, win, tie)
        front_upto = -np.inf
        middle_upto = -np.inf
        for c in range(classes):
            if five[c]:
                front[c] = -np.inf
                fives[c, 0] = 2.0 * win[1, c] + tie[1, c] - 1.0 + extra[1, c]
                fives[c, 1] = 2.0 * win[2, c] + tie[2, c] - 1.0 + extra[2, c]
            else:
                front[c] = 2.0 * win[0, c] + tie[0, c] - 1.0 + extra[0, c]
                fives[c, 0] = -np.inf
                fives[c, 1] = -np.inf
            front_upto = max(front_upto, front[c])
            middle_upto = max(middle_upto, fives[c, 0])
            fives[c, 2] = front_upto
            fives[c, 3] = middle_upto
        out[h] = best_by_class_points(hands[h:h + 1], by_back, back_middle, back_front, ranks, front, fives)[0]
    return out


@kernel
def best_with_removal_joint(hands, by_back, back_middle, back_front, canon_of, canon_a, masks5, ranks, keys, numbers,
                            seen, shares, factors, offsets, extra, five, scoring, keep, margin, sample_rows,
                            sample_counts, held):
    """``best_by_class_joint`` for each hand with each row's chances against the field given
    that hand (``field_given_hand``); ``extra`` and ``five`` as for ``best_with_removal_points``.
    With ``keep`` above 1, each sample hand is weighed by the chance that it misses the hand's
    cards (``sample_weights``; ``sample_counts`` its cards of each rank, ``held`` ``RANK_HELD``)."""
    n = hands.shape[0]
    classes = extra.shape[1]
    out = np.empty(n, np.int32)
    given, win, tie = _given_scratch(shares.shape[0], classes)
    by_class = np.zeros((classes, CLASS_COLUMNS), np.float64)
    tie_max = np.empty(3, np.float64)
    scratch, kept = joint_scratch(back_middle.shape[0], keep)
    weights = np.ones(sample_rows.shape[0], np.float64)
    for h in range(n):
        field_given_hand(hands[h], shares, factors, offsets, given)
        win_tie(seen, given, offsets, win, tie)
        front_upto = -np.inf
        middle_upto = -np.inf
        for i in range(3):
            tie_max[i] = 0.0
        for c in range(classes):
            sep0 = 2.0 * win[0, c] + tie[0, c] - 1.0 + extra[0, c]
            sep1 = 2.0 * win[1, c] + tie[1, c] - 1.0 + extra[1, c]
            sep2 = 2.0 * win[2, c] + tie[2, c] - 1.0 + extra[2, c]
            if five[c]:
                sep0 = -np.inf
            else:
                sep1 = -np.inf
                sep2 = -np.inf
            front_upto = max(front_upto, sep0)
            middle_upto = max(middle_upto, sep1)
            by_class[c, SEP0] = sep0
            by_class[c, SEP1] = sep1
            by_class[c, SEP2] = sep2
            by_class[c, WIN0] = win[0, c]
            by_class[c, WIN1] = win[1, c]
            by_class[c, WIN2] = win[2, c]
            by_class[c, TIE0] = tie[0, c]
            by_class[c, TIE1] = tie[1, c]
            by_class[c, TIE2] = tie[2, c]
            by_class[c, EXTRA0] = extra[0, c]
            by_class[c, EXTRA1] = extra[1, c]
            by_class[c, EXTRA2] = extra[2, c]
            by_class[c, FRONT_UPTO] = front_upto
            by_class[c, MIDDLE_UPTO] = middle_upto
            for i in range(3):
                tie_max[i] = max(tie_max[i], tie[i, c])
        count = joint_candidates(hands[h], by_back, back_middle, back_front, canon_of, canon_a, masks5, ranks, keys,
                                 numbers, by_class, tie_max, scoring, margin, scratch, kept)
        if keep == 1:
            out[h] = kept[2][0]
        else:
            sample_weights(hands[h], sample_counts, held, weights)
            out[h] = coupled_pick(kept, count, margin, sample_rows, weights, scoring)
    return out


@kernel
def unsettable_rows(hands, need, flush):
    """The first hand whose rows no split of its cards can make, or -1 when every hand's can.

    ``need`` (n, 3, 13) holds each hand's rows' cards of each rank (front, middle, back), which
    must be the hand's own; ``flush`` (n, 3) marks the rows whose class is a flush or a
    straight flush. A middle or back of five ranks is a flush exactly when its five cards
    share a suit, which depends on which card of each rank goes to which row; any other row
    takes any of the hand's cards of its ranks. Every way of sending a card of each such rank
    to the middle and the back is tried, until one gives each of the two rows a suit exactly
    when its class is a flush."""
    for h in range(hands.shape[0]):
        suits = np.zeros((13, 4), np.int64)  # the suits the hand holds of each rank
        held = np.zeros(13, np.int64)
        for j in range(hands.shape[1]):
            r = hands[h, j] >> 2
            suits[r, held[r]] = hands[h, j] & 3
            held[r] += 1
        five = np.zeros(3, np.bool_)  # the middle and back of five ranks: the rows whose suits matter
        for row in range(1, 3):
            five[row] = True
            for r in range(13):
                five[row] = five[row] and need[h, row, r] <= 1
        if not (five[1] or five[2]):
            continue
        ranks = np.empty(13, np.int64)  # the ranks those rows take, and each one's ways of sending cards to them
        ways = np.empty(13, np.int64)
        to_middle = np.zeros(13, np.bool_)  # whether the middle, the back, takes a card of the rank
        to_back = np.zeros(13, np.bool_)
        m = 0
        for r in range(13):
            middle = five[1] and need[h, 1, r] == 1
            back = five[2] and need[h, 2, r] == 1
            if middle or back:
                ranks[m] = r
                to_middle[m] = middle
                to_back[m] = back
                ways[m] = held[r] * (held[r] - 1) if middle and back else held[r]
                m += 1
        if not _suits_can_fit(suits, held, ranks[:m], ways[:m], to_middle[:m], to_back[:m], five, flush[h]):
            return h
    return -1


@kernel
def _suits_can_fit(suits, held, ranks, ways, to_middle, to_back, five, flush):
    """Whether some way of sending a card of each of ``ranks`` to the rows that take it (see
    ``unsettable_rows``) gives each row of ``five`` a single suit exactly when ``flush`` says so."""
    m = ranks.shape[0]
    for i in range(m):
        if ways[i] == 0:  # one card of a rank both rows need: no split has these rows
            return False
    way = np.zeros(m, np.int64)
    while True:
        masks = np.zeros(3, np.int64)  # the suits each row is sent
        for i in range(m):
            r = ranks[i]
            first = way[i] // (held[r] - 1) if to_middle[i] and to_back[i] else way[i]
            if to_middle[i]:
                masks[1] |= 1 << suits[r, first]
                if to_back[i]:  # the back takes another of the rank's cards
                    second = way[i] % (held[r] - 1)
                    second += second >= first
                    masks[2] |= 1 << suits[r, second]
            else:
                masks[2] |= 1 << suits[r, first]
        found = True
        for row in range(1, 3):
            if five[row]:
                one_suit = masks[row] & (masks[row] - 1) == 0
                found = found and one_suit == flush[row]
        if found:
            return True
        i = 0  # the next way: an odometer over the ranks
        while i < m and way[i] == ways[i] - 1:
            way[i] = 0
            i += 1
        if i == m:
            return False
        way[i] += 1
