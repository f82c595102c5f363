"""Settlement kernels: row values of two hands in, units out. The only place rows become units.

A hand is three row values (front, middle, back) on the ``solver._evaluator`` scale. The
rules reach the kernels as plain numbers:

    scoring     0 basic, 1 1-6 (a scoop takes 6), 2 2-4 (one more unit for more rows won)
    royalties   (3, 10) int64 units by row and royalty hand (``royalty_hand``)
    needs_win   a royalty is paid only on a row its owner wins

Naturals are declared instead of rows and settled apart (``solver.naturals``).
``solver.scoring`` is the friendly layer over these.
"""

import numpy as np

from solver._bits import popcount
from solver._evaluator import CATEGORY_SHIFT, STRAIGHT_FLUSH
from solver._jit import inline, kernel

ROYAL_FLUSH = 9  # royalty hand of an ace-high straight flush; 0..8 are the categories
ACE_BIT = 1 << 12  # in a straight flush's rank mask: the run reaches the ace (the wheel's run stops at 5)


@inline
def is_foul(front, middle, back):
    """A hand is fouled when its rows are out of order."""
    return not (front <= middle and middle <= back)


@inline
def royalty_hand(value):
    """The royalty line a row value names: its category, or ``ROYAL_FLUSH``."""
    category = value >> CATEGORY_SHIFT
    if category == STRAIGHT_FLUSH and (value & ACE_BIT) != 0:
        return ROYAL_FLUSH
    return category


@inline
def units_of(total, wins, losses, scoring):
    """Units from the sum of three row results and how many were won and lost, before royalties."""
    if scoring == 1:
        if wins == 3:
            return 6
        if losses == 3:
            return -6
    elif scoring == 2:
        total += int(wins > losses) - int(losses > wins)  # int(): numpy bools do not subtract (NUMBA_DISABLE_JIT)
    return total


@inline
def row_units(r0, r1, r2, scoring):
    """Units from three row results (+1 / 0 / -1) under a scoring method, before royalties."""
    return units_of(r0 + r1 + r2, (r0 == 1) + (r1 == 1) + (r2 == 1), (r0 == -1) + (r1 == -1) + (r2 == -1), scoring)


@inline
def row_result(a, b, foul_a, foul_b):
    """+1 / 0 / -1 for A's row against B's: a valid hand wins every row against a fouled one."""
    if foul_a or foul_b:
        return np.int64(foul_b) - np.int64(foul_a)
    return np.int64(a > b) - np.int64(a < b)


@inline
def settle_pair(a0, a1, a2, b0, b1, b2, royalties, needs_win, scoring):
    """Units A wins from B. Two fouled hands score 0; a fouled hand earns no royalties.

    One loop over the rows: each helper is inlined once, which keeps the compile short."""
    foul_a = is_foul(a0, a1, a2)
    foul_b = is_foul(b0, b1, b2)
    a = (a0, a1, a2)
    b = (b0, b1, b2)
    total = 0
    wins = 0
    losses = 0
    royalty = 0
    for r in range(3):
        result = row_result(a[r], b[r], foul_a, foul_b)
        total += result
        wins += result == 1
        losses += result == -1
        if not foul_a and (not needs_win or result == 1):
            royalty += royalties[r, royalty_hand(a[r])]
        if not foul_b and (not needs_win or result == -1):
            royalty -= royalties[r, royalty_hand(b[r])]
    return units_of(total, wins, losses, scoring) + royalty


@kernel
def settle_rows(a, b, royalties, needs_win, scoring):
    """Units ``a[i]`` wins from ``b[i]`` for two (n, 3) arrays of row values."""
    n = a.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = settle_pair(a[i, 0], a[i, 1], a[i, 2], b[i, 0], b[i, 1], b[i, 2], royalties, needs_win, scoring)
    return out


@kernel
def row_results(a, b):
    """(n, 3) row results (+1 / 0 / -1, fouls applied) of ``a[i]`` against ``b[i]``."""
    n = a.shape[0]
    out = np.empty((n, 3), np.int8)
    for i in range(n):
        foul_a = is_foul(a[i, 0], a[i, 1], a[i, 2])
        foul_b = is_foul(b[i, 0], b[i, 1], b[i, 2])
        for r in range(3):
            out[i, r] = row_result(a[i, r], b[i, r], foul_a, foul_b)
    return out


@kernel
def mean_against(candidates, opponents, counted, royalties, needs_win, scoring):
    """Mean units of each candidate (k, 3) against the (n, 3) opponents, summed over those
    ``counted`` (settled by their rows) and divided by all n."""
    k = candidates.shape[0]
    n = opponents.shape[0]
    out = np.zeros(k)
    for c in range(k):
        a0, a1, a2 = candidates[c, 0], candidates[c, 1], candidates[c, 2]
        total = 0
        for s in range(n):
            if counted[s]:
                total += settle_pair(a0, a1, a2, opponents[s, 0], opponents[s, 1], opponents[s, 2],
                                     royalties, needs_win, scoring)
        out[c] = total / n
    return out


@kernel
def _row_bits(values, opponents, counted, words):
    """For each of the sorted distinct ``values``, the counted opponents whose row (``opponents``)
    is below it and those whose row equals it, as bit sets of ``words`` int64 words (opponent
    s at bit s % 64 of word s // 64), and how many of each."""
    k = values.shape[0]
    below = np.zeros((k, words), np.int64)
    equal = np.zeros((k, words), np.int64)
    n_below = np.zeros(k, np.int64)
    n_equal = np.zeros(k, np.int64)
    order = np.argsort(opponents)
    running = np.zeros(words, np.int64)
    count = 0
    i = 0
    for j in range(k):
        while i < order.shape[0] and opponents[order[i]] < values[j]:
            s = order[i]
            if counted[s]:
                running[s >> 6] |= np.int64(1) << (s & 63)
                count += 1
            i += 1
        below[j, :] = running
        n_below[j] = count
        e = i
        while e < order.shape[0] and opponents[order[e]] == values[j]:
            s = order[e]
            if counted[s]:
                equal[j, s >> 6] |= np.int64(1) << (s & 63)
                n_equal[j] += 1
            e += 1
    return below, equal, n_below, n_equal


@kernel
def mean_against_rows(candidates, front, middle, back, counted, scoring):
    """``mean_against`` without royalties, for candidates that do not foul: the opponents'
    rows come as three columns, a fouled opponent's as values below any row (-1), which
    every row beats, as every valid hand beats a fouled one.

    Through bit sets: for each distinct row value of the candidates (a hand's candidates
    share most of theirs), the opponents it beats and ties (``_row_bits``); a candidate's
    rows are then counts read once, and its bonus a few word operations over the opponents,
    64 at a time. The sums are whole numbers, divided by n once."""
    k = candidates.shape[0]
    n = front.shape[0]
    words = (n + 63) >> 6
    everyone = np.zeros(words, np.int64)  # the opponents settled by rows
    settled = 0
    for s in range(n):
        if counted[s]:
            everyone[s >> 6] |= np.int64(1) << (s & 63)
            settled += 1
    out = np.zeros(k)
    rows = (front, middle, back)
    tables = []
    where = np.empty((3, k), np.int64)
    for r in range(3):
        values = np.unique(candidates[:, r])
        tables.append(_row_bits(values, rows[r], counted, words))
        where[r, :] = np.searchsorted(values, candidates[:, r])
    w0, t0, nw0, nt0 = tables[0]
    w1, t1, nw1, nt1 = tables[1]
    w2, t2, nw2, nt2 = tables[2]
    for c in range(k):
        a, b, d = where[0, c], where[1, c], where[2, c]
        total = 0
        for row_won, row_tied in ((nw0[a], nt0[a]), (nw1[b], nt1[b]), (nw2[d], nt2[d])):
            total += 2 * row_won + row_tied - settled  # won less lost
        bonus = 0
        for x in range(words):
            win0, win1, win2 = w0[a, x], w1[b, x], w2[d, x]
            tie0, tie1, tie2 = t0[a, x], t1[b, x], t2[d, x]
            lost0 = everyone[x] & ~(win0 | tie0)
            lost1 = everyone[x] & ~(win1 | tie1)
            lost2 = everyone[x] & ~(win2 | tie2)
            if scoring == 1:
                bonus += 3 * (popcount(win0 & win1 & win2) - popcount(lost0 & lost1 & lost2))
            elif scoring == 2:
                more = (win0 & win1) | (win0 & win2) | (win1 & win2) | (win0 & tie1 & tie2) | (tie0 & win1 & tie2) | \
                    (tie0 & tie1 & win2)
                fewer = (lost0 & lost1) | (lost0 & lost2) | (lost1 & lost2) | (lost0 & tie1 & tie2) | \
                    (tie0 & lost1 & tie2) | (tie0 & tie1 & lost2)
                bonus += popcount(more) - popcount(fewer)
        out[c] = (total + bonus) / n
    return out


@inline
def expected_units(w0, t0, w1, t1, w2, t2, scoring):
    """Expected units (before royalties) of three independent rows with these win/tie chances:
    ``row_units`` averaged over the 27 outcomes, in closed form.

    Each row adds P(win) - P(loss). Under 1-6 a scoop turns 3 into 6 and being scooped -3
    into -6: 3 P(all won) - 3 P(all lost) more. Under 2-4 the unit for more rows won goes
    to whoever won more: two or three rows won, or one won and the other two tied, and
    the same for losses."""
    l0 = 1.0 - w0 - t0
    l1 = 1.0 - w1 - t1
    l2 = 1.0 - w2 - t2
    value = (w0 - l0) + (w1 - l1) + (w2 - l2)
    if scoring == 1:
        return value + 3.0 * (w0 * w1 * w2 - l0 * l1 * l2)
    if scoring == 2:
        more = w0 * w1 + w0 * w2 + w1 * w2 - 2.0 * w0 * w1 * w2 + w0 * t1 * t2 + w1 * t0 * t2 + w2 * t0 * t1
        fewer = l0 * l1 + l0 * l2 + l1 * l2 - 2.0 * l0 * l1 * l2 + l0 * t1 * t2 + l1 * t0 * t2 + l2 * t0 * t1
        return value + more - fewer
    return value
