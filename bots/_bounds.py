"""The best five and the best three of the cards a back leaves: a bound for the searches.

A split's middle and front come from the eight cards outside its back. The values of the
best five and of the best three of those eight cards (each on the evaluator's scale,
``solver._evaluator``) bound what any middle and front of that back can be; the bonus-rule
search (``bots._kernels.best_by_class_joint``) skips a back whose bound, taken at those
values, cannot reach the best split found so far.

The values come from bit operations, not from valuing the 56 fives and 56 threes: the
cards' ranks by suit, packed in one int64 (suit q in bits 13 q .. 13 q + 12), give the
rank counts as bit-slices, and each category's best hand of those counts is formed
directly; the highest category present wins, as the evaluator's layout orders them. A
hand's packed ranks of any set of its positions come from two tables of 128 and 64
entries, made once a hand (``suit_tables``).
"""

import numpy as np

from solver._bits import leading_zeros, popcount
from solver._evaluator import (
    CATEGORY_SHIFT,
    FLUSH,
    FULL_HOUSE,
    MAJOR_SHIFT,
    PAIR,
    QUADS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
)
from solver._jit import inline, kernel

RANKS = 0x1FFF  # the 13 rank bits of one suit
WHEEL = 0x100F  # A 2 3 4 5
WHEEL_RUN = 0xF  # a 5-high straight's ranks on the evaluator's scale (its run stops at the 5)


@inline
def top_bit(m):
    """The highest set bit of ``m`` >= 0, or 0."""
    return (np.int64(1) << (np.int64(63) - leading_zeros(m | np.int64(1)))) & m


@inline
def top_two(m):
    a = top_bit(m)
    return a | top_bit(m ^ a)


@inline
def top_three(m):
    a = top_bit(m)
    m ^= a
    b = top_bit(m)
    return a | b | top_bit(m ^ b)


@inline
def top_five(m):
    """The five highest set bits of a mask with at most eight set."""
    for _ in range(3):
        if popcount(m) > 5:
            m &= m - 1
    return m


@inline
def suit_tables(hand, low, high):
    """Fill ``low`` (128) and ``high`` (64): the packed ranks of the hand's cards at each set of
    positions 0..6 and 7..12. Whether some suit holds five of the hand's cards."""
    low[0] = 0
    for p in range(7):
        c = np.int64(hand[p])
        bit = np.int64(1) << ((c >> 2) + 13 * (c & 3))
        for s in range(1 << p):
            low[s | (1 << p)] = low[s] | bit
    high[0] = 0
    for p in range(6):
        c = np.int64(hand[p + 7])
        bit = np.int64(1) << ((c >> 2) + 13 * (c & 3))
        for s in range(1 << p):
            high[s | (1 << p)] = high[s] | bit
    x = low[127] | high[63]
    most = 0
    for q in range(4):
        most = max(most, popcount((x >> (13 * q)) & RANKS))
    return most >= 5


@inline
def best_five_and_three(positions, low, high, flushes):
    """The values of the best five and of the best three of the hand's cards at ``positions``
    (a 13-bit set of at least eight), with the hand's ``suit_tables``; ``flushes`` as they
    returned (without a suit of five in the hand, no subset holds a flush)."""
    x = low[positions & 127] | high[positions >> 7]
    a = x & RANKS
    b = (x >> 13) & RANKS
    c = (x >> 26) & RANKS
    d = (x >> 39) & RANKS
    # Each rank's count, as bits: odd (ones), 2 or 3 (twos), 4 (fours).
    x1 = a ^ b
    c1 = a & b
    y1 = c ^ d
    d1 = c & d
    ones = x1 ^ y1
    carry = x1 & y1
    twos = c1 ^ d1 ^ carry
    fours = (c1 & d1) | (carry & (c1 ^ d1))
    present = a | b | c | d
    trips = ones & twos  # exactly three
    pairs = twos & ~ones  # exactly two
    # A candidate short of cards (a pair's kickers when few ranks are left, say) only arises
    # when a higher category is there, which beats it.
    five = top_five(present)
    p1 = top_bit(pairs)
    p2 = top_bit(pairs ^ p1)
    t = top_bit(trips)
    q = top_bit(fours)
    if p1:
        five = max(five, (np.int64(PAIR) << CATEGORY_SHIFT) | (p1 << MAJOR_SHIFT) | top_three(present & ~p1))
    if p2:
        five = max(five, (np.int64(TWO_PAIR) << CATEGORY_SHIFT) | ((p1 | p2) << MAJOR_SHIFT)
                   | top_bit(present & ~(p1 | p2)))
    if t:
        five = max(five, (np.int64(TRIPS) << CATEGORY_SHIFT) | (t << MAJOR_SHIFT) | top_two(present & ~t))
        other = top_bit((trips | pairs) & ~t)
        if other:
            five = max(five, (np.int64(FULL_HOUSE) << CATEGORY_SHIFT) | (t << MAJOR_SHIFT) | other)
    if q:
        five = max(five, (np.int64(QUADS) << CATEGORY_SHIFT) | (q << MAJOR_SHIFT) | top_bit(present & ~q))
    five = max(five, _straight(present, STRAIGHT))
    if flushes:
        for s in (a, b, c, d):
            if popcount(s) >= 5:
                five = max(five, (np.int64(FLUSH) << CATEGORY_SHIFT) | top_five(s), _straight(s, STRAIGHT_FLUSH))
    # Threes: a high card, a pair with the best kicker, trips.
    three = top_three(present)
    g2 = top_bit(twos | fours)
    g3 = top_bit(trips | fours)
    if g2:
        three = max(three, (np.int64(PAIR) << CATEGORY_SHIFT) | (g2 << MAJOR_SHIFT) | top_bit(present & ~g2))
    if g3:
        three = max(three, (np.int64(TRIPS) << CATEGORY_SHIFT) | (g3 << MAJOR_SHIFT))
    return five, three


@inline
def _straight(ranks, category):
    """The best straight of ``ranks`` as a ``category`` (a straight or a straight flush), or 0."""
    run = ranks & (ranks >> 1) & (ranks >> 2) & (ranks >> 3) & (ranks >> 4)
    if run:
        return (np.int64(category) << CATEGORY_SHIFT) | (np.int64(0x1F) * top_bit(run))
    if (ranks & WHEEL) == WHEEL:
        return (np.int64(category) << CATEGORY_SHIFT) | WHEEL_RUN
    return np.int64(0)


@kernel
def best_of_positions(hand, positions):
    """``best_five_and_three`` of one hand's cards at each 13-bit set of ``positions``: (n, 2)."""
    low = np.empty(128, np.int64)
    high = np.empty(64, np.int64)
    flushes = suit_tables(hand, low, high)
    out = np.empty((positions.shape[0], 2), np.int64)
    for i in range(positions.shape[0]):
        out[i, 0], out[i, 1] = best_five_and_three(positions[i], low, high, flushes)
    return out
