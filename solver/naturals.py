"""Naturals: special 13-card hands declared instead of arranging (docs/rules.md, optional).

- dragon: all thirteen ranks, A to 2;
- four trips: four three-of-a-kinds plus one card (a four of a kind holds a three of a kind);
- three straights: each row a straight, the front three consecutive ranks (A-2-3 and
  Q-K-A count, K-A-2 does not wrap);
- three flushes: each row one suit, the front included;
- six pairs: six pairs among the 13 cards (a four of a kind is two pairs, trips one).

The rules do not order different naturals; here the rarer ranks higher: dragon (about
1 hand in 9,460), four trips, three straights, six pairs, three flushes (in 20,000
random hands: none, 0.34%, 0.47%, 0.92%; ``python -m bench.cli.studies frequencies``). Two of
the same natural compare as the rules say: six pairs by their pairs from the top, three flushes and three straights back
first, then middle, then front; any other tie is a tie.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from solver._evaluator import CATEGORY_SHIFT, STRAIGHT, STRAIGHT_FLUSH
from solver.arrangement import Arrangement
from solver.cards import Card, CardsLike, parse_hand
from solver.rules import NATURALS, Rules
from solver.splits import all_splits, split_tables


@dataclass(frozen=True)
class Natural:
    """A natural a hand qualifies for, with what decides between two of the same kind."""

    kind: str  # one of NATURALS
    key: tuple[int, ...]  # compared from the left when both players hold this kind
    arrangement: Arrangement | None = None  # the rows that make three flushes / straights

    @property
    def rank(self) -> int:
        """Higher is better: the rarer natural (the order of NATURALS)."""
        return len(NATURALS) - NATURALS.index(self.kind)


def _three_row_natural(cards: tuple[Card, ...], kind: str) -> Natural | None:
    splits = all_splits(cards)
    t = split_tables()
    hand = np.array(cards, np.int64)
    suits, ranks = hand & 3, hand >> 2
    # Each test is made once per row of cards (286 fronts, 1,287 rows of five) and then looked up
    # for every split, which names its rows by their index in combos3 and combos5.
    if kind == "three flushes":
        s3, s5 = suits[t.combos3], suits[t.combos5]
        one_suit3, one_suit5 = (s3 == s3[:, :1]).all(axis=1), (s5 == s5[:, :1]).all(axis=1)
        ok = one_suit3[t.front] & one_suit5[t.middle] & one_suit5[t.back]
        keys = np.stack([splits.back, splits.middle, splits.front], axis=1).astype(np.int64)
    else:
        straights = (STRAIGHT, STRAIGHT_FLUSH)
        ok = np.isin(splits.middle >> CATEGORY_SHIFT, straights) & np.isin(splits.back >> CATEGORY_SHIFT, straights)
        r = np.sort(ranks[t.combos3], axis=1)
        run = (r[:, 1] == r[:, 0] + 1) & (r[:, 2] == r[:, 1] + 1)
        low_ace = (r[:, 0] == 0) & (r[:, 1] == 1) & (r[:, 2] == 12)  # A-2-3
        ok &= (run | low_ace)[t.front]
        front_top = np.where(low_ace, 1, r[:, 2])[t.front]
        # Straights compare by their top card only: the low bits of the value hold its run.
        keys = np.stack([splits.back & 0x1FFF, splits.middle & 0x1FFF, front_top], axis=1).astype(np.int64)
    ok &= splits.legal  # the rows a natural shows must be in order, like any arrangement
    found = np.flatnonzero(ok)
    if found.size == 0:
        return None
    best = found[np.lexsort(keys[found].T[::-1])[-1]]
    return Natural(kind, tuple(int(k) for k in keys[best]), splits.arrangement(int(best)))


@functools.cache
def _straight_patterns() -> np.ndarray:
    """(n, 13) rank counts of every back straight + middle straight + front run."""
    fives = []
    for top in range(3, 13):  # 5-high (the wheel) to A-high
        counts = np.zeros(13, np.int64)
        counts[[(top - k) % 13 if top - k >= 0 else 12 for k in range(5)]] += 1
        fives.append(counts)
    runs = []
    for top in range(1, 13):  # A-2-3 (top 3 = rank 1) to Q-K-A
        counts = np.zeros(13, np.int64)
        counts[[top - 2 if top >= 2 else 12, top - 1, top]] += 1
        runs.append(counts)
    patterns = {tuple(a + b + c) for a in fives for b in fives for c in runs}
    return np.array(sorted(patterns), np.int64)


def _could_be_three_straights(cards: tuple[Card, ...]) -> bool:
    counts = np.bincount([c.rank for c in cards], minlength=13)
    return bool((_straight_patterns() == counts).all(axis=1).any())


def _could_be_three_flushes(cards: tuple[Card, ...]) -> bool:
    suits = sorted(n for n in Counter(c.suit for c in cards).values())
    return suits in ([3, 5, 5], [5, 8], [3, 10], [13])


def naturals_of(hand: CardsLike) -> list[Natural]:
    """Every natural the hand qualifies for, in the order of NATURALS.

    Args:
        hand: The 13 cards, as text or a sequence of cards.

    Returns:
        The naturals, rarest first; three flushes and three straights carry the best
            legal rows that make them. Empty for most hands.

    Raises:
        CardError: The hand is not 13 distinct cards.

    Examples:
        >>> [n.kind for n in naturals_of("AS KD QH JC TS 9D 8H 7C 6S 5D 4H 3C 2S")]
        ['dragon', 'three straights']
        >>> naturals_of("AS AD KH KC QS QD JH JC TS TD 9H 9C 2S")[0].key
        (12, 11, 10, 9, 8, 7)
        >>> naturals_of("AS KS QS JS 9S AH KH QH JH 9H 2C 3D 4C")
        []
    """
    cards = parse_hand(hand)
    counts = Counter(c.rank for c in cards)
    found = []
    if len(counts) == 13:
        found.append(Natural("dragon", ()))
    if sum(1 for n in counts.values() if n >= 3) >= 4:
        found.append(Natural("four trips", ()))
    pairs = sorted((r for r, n in counts.items() for _ in range(n // 2)), reverse=True)
    if len(pairs) >= 6:
        found.append(Natural("six pairs", tuple(pairs[:6])))
    if _could_be_three_flushes(cards):
        natural = _three_row_natural(cards, "three flushes")
        if natural:
            found.append(natural)
    if _could_be_three_straights(cards):
        natural = _three_row_natural(cards, "three straights")
        if natural:
            found.append(natural)
    order = {kind: i for i, kind in enumerate(NATURALS)}
    return sorted(found, key=lambda n: order[n.kind])


def best_natural(hand: CardsLike, rules: Rules) -> Natural | None:
    """The natural this hand would declare under ``rules``: the best paid, then the highest.

    Whether the rules allow naturals is not checked here; only their payouts are read.

    Args:
        hand: The 13 cards, as text or a sequence of cards.
        rules: The rule set whose payouts decide.

    Returns:
        The natural, or ``None`` when the hand holds none.

    Raises:
        CardError: The hand is not 13 distinct cards.
    """
    found = naturals_of(hand)
    if not found:
        return None
    payouts = rules.payouts()
    return max(found, key=lambda n: (payouts[n.kind], n.rank))


def compare_naturals(a: Natural, b: Natural) -> int:
    """Which of two naturals wins: the rarer kind, then by ``key`` within a kind.

    Args:
        a: A's natural.
        b: B's natural.

    Returns:
        +1 when ``a`` beats ``b``, -1 when it loses, 0 for a tie.
    """
    ra, rb = a.rank, b.rank
    if ra != rb:
        return 1 if ra > rb else -1
    if a.kind != b.kind:
        return 0
    return (a.key > b.key) - (a.key < b.key)


def settle_naturals(a: Natural | None, b: Natural | None, rules: Rules) -> int | None:
    """Units A wins from B when a natural is declared, or None when neither declared one.

    A natural beats an ordinary hand and collects its payout; between two naturals the
    higher collects its payout and a tie pays nothing.

    Args:
        a: A's declared natural, or ``None`` when A plays rows.
        b: B's declared natural, or ``None`` when B plays rows.
        rules: The rule set whose payouts are paid.

    Returns:
        The units A wins (negative when A loses), or ``None`` when neither declared one
            (the hands are then settled by rows).
    """
    if a is None and b is None:
        return None
    payouts = rules.payouts()
    if b is None:
        return payouts[a.kind]  # type: ignore[union-attr]
    if a is None:
        return -payouts[b.kind]
    sign = compare_naturals(a, b)
    return sign * payouts[(a if sign > 0 else b).kind] if sign else 0


def natural_mask(hands: np.ndarray) -> np.ndarray:
    """Which hands of an (n, 13) array of card ids may hold a natural.

    A fast, exact pre-check: only these need ``naturals_of``.

    Args:
        hands: The hands, one a line, as card ids; they are not checked.

    Returns:
        A bool array of length ``n``.
    """
    hands = np.asarray(hands, np.int64)
    n = len(hands)
    ranks = np.zeros((n, 13), np.int64)
    np.add.at(ranks, (np.arange(n)[:, None], hands >> 2), 1)
    suits = np.zeros((n, 4), np.int64)
    np.add.at(suits, (np.arange(n)[:, None], hands & 3), 1)
    dragon = (ranks == 1).all(axis=1)
    trips = (ranks >= 3).sum(axis=1) >= 4
    pairs = (ranks // 2).sum(axis=1) >= 6
    s = np.sort(suits, axis=1)
    flushes = np.zeros(n, bool)
    for shape in ([0, 3, 5, 5], [0, 0, 5, 8], [0, 0, 3, 10], [0, 0, 0, 13]):
        flushes |= (s == shape).all(axis=1)
    straights = np.isin(ranks @ _RANK_COUNT_KEY, _straight_pattern_keys())  # rank counts as one number each
    return dragon | trips | pairs | flushes | straights


_RANK_COUNT_KEY = 5 ** np.arange(13, dtype=np.int64)  # a hand's 13 rank counts (0 to 4) as the digits of one number


@functools.cache
def _straight_pattern_keys() -> np.ndarray:
    """``_straight_patterns`` with each row's rank counts as one number (``_RANK_COUNT_KEY``)."""
    return _straight_patterns() @ _RANK_COUNT_KEY


def held_natural(hand: CardsLike) -> str | None:
    """The rarest natural a hand holds, whatever the rules.

    Args:
        hand: The 13 cards, as text or a sequence of cards.

    Returns:
        The natural's kind (one of ``NATURALS``), or ``None`` for most hands.

    Raises:
        CardError: The hand is not 13 distinct cards.
    """
    cards = parse_hand(hand)
    if not natural_mask(np.array([cards], np.int64))[0]:
        return None
    found = naturals_of(cards)
    return found[0].kind if found else None
