"""Slow, obvious reference rules written straight from the rules text (docs/rules.md), for tests only.

Nothing here shares code with the kernels: a row's strength is a plain tuple
``(category, ranks...)`` compared the Python way, where a shorter tuple that agrees
so far is smaller (the rules: a missing kicker ranks below any real card).
"""

from __future__ import annotations

import functools
from collections import Counter

RANKS = "23456789TJQKA"
SUITS = "CDHS"

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


def card_text(card: int) -> str:
    return RANKS[card // 4] + SUITS[card % 4]


def parse(text: str) -> list[int]:
    out = []
    for token in text.split():
        token = token.upper().replace("10", "T")
        out.append(RANKS.index(token[0]) * 4 + SUITS.index(token[1]))
    return out


def strength(cards: list[int]) -> tuple:
    """(category, deciding ranks in order) of a 3- or 5-card row."""
    ranks = sorted((c // 4 for c in cards), reverse=True)
    suits = {c % 4 for c in cards}
    counts = Counter(ranks)
    # Groups first (bigger group first, then higher rank), kickers after, high to low.
    ordered = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if len(cards) == 5:
        is_flush = len(suits) == 1
        straight_top = None
        if len(counts) == 5:
            if ranks[0] - ranks[4] == 4:
                straight_top = ranks[0]
            elif ranks == [12, 3, 2, 1, 0]:
                straight_top = 3  # the wheel's top card is the 5
        if straight_top is not None and is_flush:
            return (STRAIGHT_FLUSH, straight_top)
        if shape == [4, 1]:
            return (QUADS, ordered[0][0], ordered[1][0])
        if shape == [3, 2]:
            return (FULL_HOUSE, ordered[0][0], ordered[1][0])
        if is_flush:
            return (FLUSH, *ranks)
        if straight_top is not None:
            return (STRAIGHT, straight_top)
    if shape[0] == 3:
        return (TRIPS, *(r for r, _ in ordered))
    if shape[:2] == [2, 2]:
        return (TWO_PAIR, *(r for r, _ in ordered))
    if shape[0] == 2:
        return (PAIR, *(r for r, _ in ordered))
    return (HIGH_CARD, *ranks)


def compare(a: list[int], b: list[int]) -> int:
    sa, sb = strength(a), strength(b)
    return (sa > sb) - (sa < sb)


def fouled(front: list[int], middle: list[int], back: list[int]) -> bool:
    return not (strength(front) <= strength(middle) <= strength(back))


def score_pair(a: tuple[list[int], list[int], list[int]], b: tuple[list[int], list[int], list[int]]) -> int:
    foul_a, foul_b = fouled(*a), fouled(*b)
    if foul_a and foul_b:
        return 0
    if foul_a:
        return -3
    if foul_b:
        return 3
    return sum(compare(x, y) for x, y in zip(a, b))


CATEGORY_WORDS = ("high card", "pair", "two pair", "three of a kind", "straight", "flush", "full house",
                  "four of a kind", "straight flush")


def royalty_hand(row: list[int], row_name: str, royalties: dict) -> str:
    """The line of a royalty table a row earns: its category, or "royal flush" for an
    A-high straight flush when the table names that line (else it is a straight flush)."""
    found = strength(row)
    if found[0] == STRAIGHT_FLUSH and found[1] == 12 and (row_name, "royal flush") in royalties:
        return "royal flush"
    return CATEGORY_WORDS[found[0]]


def settle(a, b, scoring="basic", royalties=None, needs_win=False) -> int:
    """Units A wins from B under an optional rule set, straight from the rules text.

    ``royalties`` maps (row name, hand words) to units; a hand is a category or "royal flush"."""
    royalties = royalties or {}
    foul_a, foul_b = fouled(*a), fouled(*b)
    if foul_a and foul_b:
        return 0
    if foul_a or foul_b:
        rows = [-1 if foul_a else 1] * 3
    else:
        rows = [compare(x, y) for x, y in zip(a, b)]
    wins, losses = rows.count(1), rows.count(-1)
    if scoring == "1-6" and wins == 3:
        total = 6
    elif scoring == "1-6" and losses == 3:
        total = -6
    else:
        total = sum(rows)
        if scoring == "2-4":
            total += (wins > losses) - (losses > wins)

    def royalty(hand, foul, sign):
        if foul:
            return 0
        units = 0
        for name, row, result in zip(("front", "middle", "back"), hand, rows):
            if needs_win and result != sign:
                continue
            units += royalties.get((name, royalty_hand(row, name, royalties)), 0)
        return units

    return total + royalty(a, foul_a, 1) - royalty(b, foul_b, -1)


# --- naturals (optional): straight from the rules text --------------------------------------

NATURAL_ORDER = ("three flushes", "six pairs", "three straights", "four trips", "dragon")  # weakest first
NATURAL_PAYOUT = {"dragon": 3, "four trips": 4, "three straights": 3, "six pairs": 3, "three flushes": 3}


def _runs(length: int) -> list[list[int]]:
    """Rank lists of every run of ``length`` consecutive ranks, ace low or high, no wrapping."""
    sequence = [12] + list(range(13))  # A 2 3 ... K A
    return [sequence[i:i + length] for i in range(len(sequence) - length + 1)]


def naturals(cards: list[int]) -> set[str]:
    """Every natural a hand of 13 card ids qualifies for."""
    ranks = Counter(c // 4 for c in cards)
    suits = Counter(c % 4 for c in cards)
    found = set()
    if len(ranks) == 13:
        found.add("dragon")
    if sum(1 for n in ranks.values() if n >= 3) >= 4:  # a four of a kind holds a three of a kind
        found.add("four trips")
    if sum(n // 2 for n in ranks.values()) >= 6:  # a four of a kind is two pairs
        found.add("six pairs")
    for rows in _assignments(4, 3):  # the suit of the front, middle and back
        need = Counter()
        for suit, size in zip(rows, (3, 5, 5)):
            need[suit] += size
        if need == suits:
            found.add("three flushes")
    if tuple(sorted(c // 4 for c in cards)) in _three_straights():
        found.add("three straights")
    return found


@functools.cache
def _three_straights() -> frozenset[tuple[int, ...]]:
    """The sorted ranks of every front run of 3 with a middle and a back run of 5."""
    return frozenset(tuple(sorted(front + middle + back))
                     for front in _runs(3) for middle in _runs(5) for back in _runs(5))


def _assignments(choices: int, length: int):
    if length == 0:
        yield ()
        return
    for first in range(choices):
        for rest in _assignments(choices, length - 1):
            yield (first, *rest)


def best_natural(cards: list[int], payouts: dict[str, int] | None = None) -> str | None:
    """The natural a player declares: the best paid, then the rarest."""
    payouts = payouts or NATURAL_PAYOUT
    held = naturals(cards)
    return max(held, key=lambda kind: (payouts[kind], NATURAL_ORDER.index(kind))) if held else None


# --- the parts of an expected score, each on its own ----------------------------------------


def ev_parts(mine, opponents, scoring="basic", royalties=None, needs_win=False, payouts=None) -> dict[str, float]:
    """Units per opponent of the set hand ``mine`` (three rows of card ids) against
    ``opponents`` (13 card ids each, set front | middle | back), taken apart: each row's result
    (+1 / 0 / -1; a fouled opponent loses every row), the bonus 1-6 or 2-4 adds to the rows,
    the royalties won less those paid, and what opponents who declare a natural collect.

    Each part is computed for itself, from the rules text: they are means over every
    opponent, and only their sum is the expected score. ``payouts`` (natural -> units) means
    the rules have naturals: an opponent holding one declares the best paid and is not played
    against, so no row, bonus or royalty is settled with them."""
    royalties = royalties or {}
    names = ("front", "middle", "back")
    totals = dict.fromkeys(names, 0)
    bonus = royalty = natural = 0
    for cards in opponents:
        cards = [int(c) for c in cards]
        if payouts is not None:
            held = best_natural(cards, payouts)
            if held is not None:
                natural -= payouts[held]
                continue
        theirs = (cards[:3], cards[3:8], cards[8:])
        foul_mine, foul_theirs = fouled(*mine), fouled(*theirs)
        for name, result in zip(names, _row_results(mine, foul_mine, theirs, foul_theirs)):
            totals[name] += result
        royalty += _royalties(mine, foul_mine, theirs, foul_theirs, royalties, needs_win)
        bonus += _bonus(mine, foul_mine, theirs, foul_theirs, scoring)
    n = len(opponents)
    parts = {name: totals[name] / n for name in names}
    if scoring != "basic":
        parts["bonus"] = bonus / n
    if royalties:
        parts["royalties"] = royalty / n
    if payouts is not None:
        parts["naturals"] = natural / n
    return parts


def _row_results(a, foul_a, b, foul_b) -> list[int]:
    if foul_a and foul_b:
        return [0, 0, 0]
    if foul_a or foul_b:
        return [foul_b - foul_a] * 3
    return [compare(x, y) for x, y in zip(a, b)]


def _bonus(a, foul_a, b, foul_b, scoring) -> int:
    """What a scoring method adds to the sum of the rows: 1-6 pays a scoop 6 instead of 3,
    2-4 one more unit to whoever won more rows."""
    rows = _row_results(a, foul_a, b, foul_b)
    wins, losses = rows.count(1), rows.count(-1)
    if scoring == "1-6":
        return 3 * ((wins == 3) - (losses == 3))
    if scoring == "2-4":
        return (wins > losses) - (losses > wins)
    return 0


def _royalties(a, foul_a, b, foul_b, royalties, needs_win) -> int:
    """Royalties A collects from B less those B collects from A; a fouled hand earns none."""
    rows = _row_results(a, foul_a, b, foul_b)
    units = 0
    for name, mine, theirs, result in zip(("front", "middle", "back"), a, b, rows):
        if not foul_a and (not needs_win or result == 1):
            units += royalties.get((name, royalty_hand(mine, name, royalties)), 0)
        if not foul_b and (not needs_win or result == -1):
            units -= royalties.get((name, royalty_hand(theirs, name, royalties)), 0)
    return units


def parts_of(solution) -> dict[str, float]:
    """:func:`ev_parts` of a solver's play against the opponents it sampled (solved with
    ``keep_sample=True``), under its rules."""
    rules = solution.rules
    mine = [[int(c) for c in row] for row in solution.arrangement.rows]
    return ev_parts(mine, solution.sample, rules.scoring, rules.royalty_table(), rules.royalty_needs_win,
                    rules.payouts() if rules.naturals else None)
