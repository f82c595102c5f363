"""Row evaluation kernels: 3- and 5-card rows onto one integer scale, higher is better.

A row value is ``category << 26 | major << 13 | minor``:

    category  0 high card, 1 pair, 2 two pair, 3 three of a kind, 4 straight,
              5 flush, 6 full house, 7 four of a kind, 8 straight flush
    major     13-bit rank mask of the deciding group: the quads, the trips (also of a
              full house), the pair or pairs; 0 for high card, flush and straights
    minor     13-bit rank mask of what decides next: the kickers (the pair of a full
              house); all ranks for high card and flush; for straights only the top
              card's run (a wheel is 2-3-4-5, 0b1111)

Bit r of a mask is rank r (0 = deuce .. 12 = ace). Comparing two masks of distinct
ranks as integers is comparing their ranks from the top down, with a missing kicker
below any real card, which is exactly how the rules (docs/rules.md) compare a 3-card
front with a 5-card middle. Suits only ever decide "flush or not".

Cards are ``rank * 4 + suit`` (see ``solver.cards``). The kernels take and return
integer arrays; ``solver.evaluator`` is the friendly layer.
"""

import numpy as np
from numba import prange

from solver._jit import inline, kernel, parallel_kernel

CATEGORY_SHIFT = 26
MAJOR_SHIFT = 13
RANK_MASK = 0x1FFF
WHEEL = 0x100F  # A 5 4 3 2
STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT = 8, 7, 6, 5, 4
TRIPS, TWO_PAIR, PAIR, HIGH_CARD = 3, 2, 1, 0


@inline
def _compose(ones, twos, fours, flush, straight_run):
    """Value from bit-sliced rank counts (count = ones + 2 twos + 4 fours)."""
    quads = fours
    trips = ones & twos
    pairs = twos & ~ones
    singles = ones & ~twos
    full_house = (trips != 0) & (pairs != 0)
    two_pair = (pairs & (pairs - 1)) != 0
    major = np.int32(trips) if full_house else np.int32(quads | trips | pairs)
    minor = np.int32(pairs) if full_house else np.int32(singles)
    category = np.int32(0)
    category = np.int32(PAIR) if pairs != 0 else category
    category = np.int32(TWO_PAIR) if two_pair else category
    category = np.int32(TRIPS) if trips != 0 else category
    category = np.int32(FULL_HOUSE) if full_house else category
    category = np.int32(QUADS) if quads != 0 else category
    # Straights and flushes have five distinct ranks, so none of the groups above.
    made = straight_run != 0
    category = np.int32(STRAIGHT) if made else category
    category = np.int32(FLUSH) if flush else category
    category = np.int32(STRAIGHT_FLUSH) if (flush & made) else category
    minor = np.int32(straight_run) if made else minor
    return (category << CATEGORY_SHIFT) | (major << MAJOR_SHIFT) | minor


@inline
def _add_rank(bit, ones, twos, fours):
    carry = ones & bit
    ones ^= bit
    fours |= twos & carry
    twos ^= carry
    return ones, twos, fours


@inline
def eval5(c0, c1, c2, c3, c4):
    """Value of five distinct cards."""
    r0 = np.int32(1) << (c0 >> 2)
    r1 = np.int32(1) << (c1 >> 2)
    r2 = np.int32(1) << (c2 >> 2)
    r3 = np.int32(1) << (c3 >> 2)
    r4 = np.int32(1) << (c4 >> 2)
    ones, twos, fours = r0, np.int32(0), np.int32(0)
    ones, twos, fours = _add_rank(r1, ones, twos, fours)
    ones, twos, fours = _add_rank(r2, ones, twos, fours)
    ones, twos, fours = _add_rank(r3, ones, twos, fours)
    ones, twos, fours = _add_rank(r4, ones, twos, fours)
    s = c0 & 3
    flush = ((c1 & 3) == s) & ((c2 & 3) == s) & ((c3 & 3) == s) & ((c4 & 3) == s)
    ranks = r0 | r1 | r2 | r3 | r4
    run = ranks & (ranks >> 1) & (ranks >> 2) & (ranks >> 3) & (ranks >> 4)
    straight_run = np.int32(ranks) if run != 0 else np.int32(0)
    straight_run = np.int32(0b1111) if ranks == WHEEL else straight_run
    return _compose(ones, twos, fours, flush, straight_run)


@inline
def eval3(c0, c1, c2):
    """Value of three distinct cards (a front: no straights or flushes)."""
    r0 = np.int32(1) << (c0 >> 2)
    r1 = np.int32(1) << (c1 >> 2)
    r2 = np.int32(1) << (c2 >> 2)
    ones, twos, fours = r0, np.int32(0), np.int32(0)
    ones, twos, fours = _add_rank(r1, ones, twos, fours)
    ones, twos, fours = _add_rank(r2, ones, twos, fours)
    return _compose(ones, twos, fours, False, np.int32(0))


@kernel
def eval5_columns(cards):
    """Values of the rows ``cards[:, i]`` of a ``(5, n)`` uint8 array, on one core.

    Column layout (one array per card slot) lets LLVM vectorise the loop; so does writing
    into an array made here, which nothing else can alias. Other kernels call this one
    rather than inline ``eval5``, so it is compiled once for all of them."""
    n = cards.shape[1]
    out = np.empty(n, np.int32)
    for i in range(n):
        out[i] = eval5(np.int32(cards[0, i]), np.int32(cards[1, i]), np.int32(cards[2, i]),
                       np.int32(cards[3, i]), np.int32(cards[4, i]))
    return out


@parallel_kernel
def eval5_columns_parallel(cards):
    """``eval5_columns`` split over all cores."""
    n = cards.shape[1]
    out = np.empty(n, np.int32)
    for i in prange(n):
        out[i] = eval5(np.int32(cards[0, i]), np.int32(cards[1, i]), np.int32(cards[2, i]),
                       np.int32(cards[3, i]), np.int32(cards[4, i]))
    return out


@kernel
def eval3_columns(cards):
    """Values of the rows ``cards[:, i]`` of a ``(3, n)`` uint8 array (as ``eval5_columns``)."""
    n = cards.shape[1]
    out = np.empty(n, np.int32)
    for i in range(n):
        out[i] = eval3(np.int32(cards[0, i]), np.int32(cards[1, i]), np.int32(cards[2, i]))
    return out


@kernel
def name_keys(values):
    """``solver.evaluator.hand_keys`` of an int64 array: each value without its kickers (a
    straight or full house keeps all of it, a flush or high card its top rank, the other
    categories their major ranks)."""
    out = np.empty(values.shape[0], np.int64)
    for i in range(values.shape[0]):
        v = values[i]
        category = v >> CATEGORY_SHIFT
        if category == STRAIGHT or category == STRAIGHT_FLUSH or category == FULL_HOUSE:
            out[i] = v
        elif category == FLUSH or category == HIGH_CARD:
            minor = v & RANK_MASK
            top = np.int64(minor > 0)
            while minor > 1:
                minor >>= 1
                top <<= 1
            out[i] = (category << CATEGORY_SHIFT) | top
        else:
            out[i] = (category << CATEGORY_SHIFT) | (((v >> MAJOR_SHIFT) & RANK_MASK) << MAJOR_SHIFT)
    return out


@kernel
def arranged_values(hands):
    """(n, 3) int64 row values (front, middle, back) of an (n, 13) uint8 array of hands set
    front | middle | back."""
    n = hands.shape[0]
    out = np.empty((n, 3), np.int64)
    for i in range(n):
        out[i, 0] = eval3(np.int32(hands[i, 0]), np.int32(hands[i, 1]), np.int32(hands[i, 2]))
        out[i, 1] = eval5(np.int32(hands[i, 3]), np.int32(hands[i, 4]), np.int32(hands[i, 5]), np.int32(hands[i, 6]),
                          np.int32(hands[i, 7]))
        out[i, 2] = eval5(np.int32(hands[i, 8]), np.int32(hands[i, 9]), np.int32(hands[i, 10]),
                          np.int32(hands[i, 11]), np.int32(hands[i, 12]))
    return out
