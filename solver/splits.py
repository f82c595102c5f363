"""The 72,072 ways to split 13 cards into front (3), middle (5) and back (5).

Split order (documented, stable): fronts in lexicographic order of their card
positions (286 of them); for each front, the middles in lexicographic order of
positions among the 10 cards left (252 of them); the back is the rest. So split
``s`` has front ``s // 252`` and middle ``s % 252`` within that front's rest.

All tables hold card *positions* 0..12 within the hand, never cards, so they are built
once per process and serve every hand.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from solver import _splits
from solver.arrangement import Arrangement
from solver.cards import Card, CardCountError, CardsLike, DuplicateCardError, UnknownCardError, parse_hand

N_SPLITS = 72_072
MIDDLES_PER_FRONT = 252


@dataclass(frozen=True, slots=True)
class SplitTables:
    """Index tables over card positions; see the module docstring for the order."""

    combos3: np.ndarray  # (286, 3) positions, lexicographic
    combos5: np.ndarray  # (1287, 5) positions, lexicographic
    front: np.ndarray  # (72072,) row of combos3 for each split
    middle: np.ndarray  # (72072,) row of combos5
    back: np.ndarray  # (72072,) row of combos5
    canon_front: np.ndarray  # (36036,) row of combos3
    canon_a: np.ndarray  # (36036,) row of combos5: the five holding the lowest free position
    canon_b: np.ndarray  # (36036,) row of combos5: the other five
    canon_split: np.ndarray  # (36036,) the split with canon_a as middle, canon_b as back
    canon_twin: np.ndarray  # (36036,) the split with the fives swapped
    canon_of: np.ndarray  # (72072,) the canonical entry of each split (it is that entry's split or twin)
    columns3: np.ndarray  # (3, 286) combos3 transposed: the subsets' positions slot by slot
    columns5: np.ndarray  # (5, 1287) combos5 transposed
    masks5: np.ndarray  # (1287,) bit p set when position p is in the five
    split_of: np.ndarray  # (1287, 1287) split number with back b and middle m (-1: overlapping)
    by_back: np.ndarray  # (1287, 56) the splits with back b, in split order
    back_middle: np.ndarray  # (1287, 56) the middle (row of combos5) of each split in by_back
    back_front: np.ndarray  # (1287, 56) the front (row of combos3) of each split in by_back


def _mask(positions: np.ndarray) -> np.ndarray:
    return (1 << np.asarray(positions, np.int64)).sum(axis=-1)


@functools.cache
def split_tables() -> SplitTables:
    """The tables, built on first use (a few milliseconds) and shared after that.

    Returns:
        The tables; their arrays are read-only.
    """
    combos3 = np.array(list(itertools.combinations(range(13), 3)), np.int8)
    combos5 = np.array(list(itertools.combinations(range(13), 5)), np.int8)
    index5 = np.full(1 << 13, -1, np.int32)
    index5[_mask(combos5)] = np.arange(len(combos5))
    local5 = np.array(list(itertools.combinations(range(10), 5)), np.int64)  # (252, 5)

    everything = np.arange(13)
    rests = np.array([np.setdiff1d(everything, f) for f in combos3])  # (286, 10)
    middles = rests[:, local5]  # (286, 252, 5) positions
    full = (1 << 13) - 1
    front_mask = _mask(combos3)[:, None]
    middle_mask = _mask(middles)
    back_mask = full ^ front_mask ^ middle_mask

    front = np.repeat(np.arange(len(combos3), dtype=np.int16), MIDDLES_PER_FRONT)
    middle = index5[middle_mask].astype(np.int16).ravel()
    back = index5[back_mask].astype(np.int16).ravel()

    # In lexicographic order the middles holding the rest's lowest position come first
    # (126 = C(9, 4) of them); each one's twin has the fives swapped.
    half = MIDDLES_PER_FRONT // 2
    fronts = np.arange(len(combos3))
    where = np.full((len(combos3), len(combos5)), -1, np.int32)  # (front, five) -> middle no.
    where[fronts[:, None], index5[middle_mask]] = np.arange(MIDDLES_PER_FRONT)
    first = (fronts[:, None] * MIDDLES_PER_FRONT + np.arange(half)).ravel()
    twin = front[first].astype(np.int64) * MIDDLES_PER_FRONT + where[front[first], back[first]]
    split_of = np.full((len(combos5), len(combos5)), -1, np.int32)
    split_of[back, middle] = np.arange(N_SPLITS)
    by_back = np.argsort(back, kind="stable").astype(np.int32).reshape(len(combos5), 56)
    canon_of = np.empty(N_SPLITS, np.int32)
    canon_of[first] = np.arange(len(first))
    canon_of[twin] = np.arange(len(first))
    tables = SplitTables(
        combos3=combos3,
        combos5=combos5,
        front=front,
        middle=middle,
        back=back,
        canon_front=front[first],
        canon_a=middle[first],
        canon_b=back[first],
        canon_split=first.astype(np.int32),
        canon_twin=twin.astype(np.int32),
        canon_of=canon_of,
        columns3=np.ascontiguousarray(combos3.T),
        columns5=np.ascontiguousarray(combos5.T),
        masks5=_mask(combos5).astype(np.int32),
        split_of=split_of,
        by_back=by_back,
        back_middle=middle[by_back],
        back_front=front[by_back],
    )
    for array in (tables.combos3, tables.combos5, tables.columns3, tables.columns5, tables.front, tables.middle,
                  tables.back, tables.split_of, tables.by_back, tables.back_middle, tables.back_front, tables.canon_of):
        array.setflags(write=False)
    return tables


@dataclass(frozen=True, slots=True)
class Splits:
    """Every split of one hand: row values (the ``solver.evaluate`` scale) and legality.

    Arrays are indexed by split number in the module's documented order.
    """

    hand: tuple[Card, ...]
    front: np.ndarray  # (72072,) int32
    middle: np.ndarray  # (72072,) int32
    back: np.ndarray  # (72072,) int32
    legal: np.ndarray  # (72072,) bool: front <= middle <= back

    def arrangement(self, split: int) -> Arrangement:
        """The arrangement that split number ``split`` makes of this hand.

        Args:
            split: The split number, ``0..72071``.

        Returns:
            The arrangement.

        Raises:
            IndexError: ``split`` is out of range.
        """
        return split_arrangement(self.hand, split)

    @property
    def n_legal(self) -> int:
        return int(self.legal.sum())


def subset_values(cards: CardsLike) -> tuple[np.ndarray, np.ndarray]:
    """Values of a hand's 286 three-card and 1,287 five-card subsets, by the kernel the bots' searches use.

    Args:
        cards: The hand's 13 cards, as text (``"AS KS ..."``) or a sequence of cards or ids.

    Returns:
        The int32 values of the three-card subsets (the rows of ``combos3``) and of the
            five-card subsets (the rows of ``combos5``).

    Raises:
        CardError: ``cards`` is not 13 distinct cards.
    """
    t = split_tables()
    hand = np.array([int(card) for card in parse_hand(cards)], np.uint8)
    return _splits.subset_values(hand, t.columns3, t.columns5, np.empty(t.columns3.shape, np.uint8),
                                 np.empty(t.columns5.shape, np.uint8))


def split_positions(split: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Card positions (front, middle, back) of split number ``split``.

    Args:
        split: The split number, ``0..72071``.

    Returns:
        The positions ``0..12`` within the hand of the front's 3, the middle's 5 and the
            back's 5 cards, each in increasing order.

    Raises:
        IndexError: ``split`` is out of range.
    """
    if not 0 <= split < N_SPLITS:
        raise IndexError(f"split {split} is out of range; splits are 0..{N_SPLITS - 1}")
    t = split_tables()
    return (
        tuple(int(p) for p in t.combos3[t.front[split]]),
        tuple(int(p) for p in t.combos5[t.middle[split]]),
        tuple(int(p) for p in t.combos5[t.back[split]]),
    )


def split_arrangement(hand: CardsLike, split: int) -> Arrangement:
    """The arrangement that split number ``split`` makes of ``hand``.

    Args:
        hand: The 13 cards, as text or a sequence of cards.
        split: The split number, ``0..72071``.

    Returns:
        The arrangement, which may be a foul.

    Raises:
        CardError: The hand is not 13 distinct cards.
        IndexError: ``split`` is out of range.

    Examples:
        >>> str(split_arrangement("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", 0))
        'AS KS QS / 9H 9D JS TS 8C / 7C 6D 5H 4S 2C'
    """
    cards = parse_hand(hand)
    front, middle, back = split_positions(split)
    return Arrangement(
        tuple(cards[p] for p in front), tuple(cards[p] for p in middle), tuple(cards[p] for p in back)
    )


def all_splits(hand: CardsLike) -> Splits:
    """Row values and legality of all 72,072 splits of a 13-card hand.

    Args:
        hand: The 13 cards, as text or a sequence of cards.

    Returns:
        The row values and legality of every split, in split order.

    Raises:
        CardError: The hand is not 13 distinct cards.

    Examples:
        >>> splits = all_splits("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C")
        >>> len(splits.legal), splits.n_legal
        (72072, 18642)
    """
    cards = parse_hand(hand)
    t = split_tables()
    v3, v5 = subset_values(cards)
    front, middle, back, legal = _splits.split_rows(v3, v5, t.front, t.middle, t.back)
    return Splits(cards, front, middle, back, legal)


def count_legal(hands: np.ndarray, canonical: bool = True) -> np.ndarray:
    """Legal splits of each hand of an ``(n, 13)`` array of card ids, in one kernel call.

    Args:
        hands: The hands, one a line.
        canonical: Count by the canonical scan, which reads each pair of fives once (the
            36,036 entries of ``SplitTables.canon_split``); ``False`` reads all 72,072 splits.
            The counts are the same.

    Returns:
        The number of legal splits of each hand, an int32 array of length ``n``.

    Raises:
        CardError: The array is not of shape ``(n, 13)``, or a hand is not 13 distinct cards
            (``checked_hands``).
    """
    hands = checked_hands(hands)
    t = split_tables()
    if canonical:
        return _splits.count_legal_canonical(hands, t.columns3, t.columns5, t.canon_front, t.canon_a, t.canon_b)
    return _splits.count_legal_splits(hands, t.columns3, t.columns5, t.front, t.middle, t.back)


def checked_hands(hands: object) -> np.ndarray:
    """``hands`` as a contiguous (n, 13) uint8 array of card ids, each row thirteen cards no two alike.

    Args:
        hands: The hands: anything ``numpy.asarray`` reads as an ``(n, 13)`` integer array.

    Returns:
        The hands as a contiguous ``(n, 13)`` uint8 array.

    Raises:
        CardCountError: ``hands`` is not an ``(n, 13)`` array of integers.
        UnknownCardError: A hand holds an id outside ``0..51``; the message names the first.
        DuplicateCardError: A hand holds a card twice; the message names the first.

    Examples:
        >>> checked_hands([[0] * 13])
        Traceback (most recent call last):
        ...
        solver.cards.DuplicateCardError: hand 0 of the batch holds a card twice: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    """
    array = np.asarray(hands)
    if array.ndim != 2 or array.shape[1] != 13 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
        raise CardCountError(f"expected an (n, 13) array of card ids, got {array.dtype} of shape {array.shape}")
    if array.size and (array.min() < 0 or array.max() > 51):
        row = int(np.flatnonzero(((array < 0) | (array > 51)).any(axis=1))[0])
        raise UnknownCardError(f"hand {row} of the batch holds an id that is not a card (0..51): {array[row].tolist()}")
    ids = np.ascontiguousarray(array, np.uint8)
    row = int(_splits.first_bad_hand(ids))
    if row >= 0:
        raise DuplicateCardError(f"hand {row} of the batch holds a card twice: {ids[row].tolist()}")
    return ids
