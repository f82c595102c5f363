"""What a record's deal is: which cards deal ``d`` deals, who deals it, and who sits where.

The game (docs/rules.md): 2 to 4 players, one deck, 13 cards each dealt one at a time
clockwise from the dealer's left; the deal passes to the left each hand; a session is
8 hands.

Duplicate: every deal is replayed with the bots rotated through the seats, so the luck
of the deal cancels. With as many bots as seats, the seatings are all orderings of the
bots (24 for 4); with more bots than seats, every ordered choice of distinct bots
(12 for 4 bots at 2 seats); with fewer, the bots repeated in turn to fill the seats
(A B A B) and every distinct ordering of that line-up (6 for 2 bots at 4 seats).

Randomness: deal ``d`` shuffles with ``SeedSequence(entropy, spawn_key=(d,))`` and a bot
with spec ``spec`` in seat ``s`` draws from ``SeedSequence(entropy, spawn_key=(d, s,
crc32(spec)))``; the same spec gives the same stream, so a bot against itself scores
exactly 0. The engine plays these deals (``bench.run.play``), the record checker deals them
again to check a record's hands (``bench.records.check``), and the web page deals its
sessions from them.
"""

from __future__ import annotations

import itertools
import math
import zlib

import numpy as np

HANDS_PER_SESSION = 8


def seatings(n_bots: int, players: int) -> list[tuple[int, ...]]:
    """Which bot sits in each seat, for every replay of a deal.

    >>> seatings(2, 2)
    [(0, 1), (1, 0)]
    >>> len(seatings(4, 4)), len(seatings(4, 2)), len(seatings(3, 2)), seatings(2, 4)[:2]
    (24, 12, 6, [(0, 0, 1, 1), (0, 1, 0, 1)])
    """
    if n_bots >= players:
        return list(itertools.permutations(range(n_bots), players))
    lineup = [i % n_bots for i in range(players)]
    return sorted(set(itertools.permutations(lineup)))


def dealer_of(deal: int, players: int) -> int:
    """The dealer's seat: seat 0 deals the first hand of a session, then the deal passes left."""
    return (deal % HANDS_PER_SESSION) % players


def deal_table(entropy: int, deal: int, players: int) -> np.ndarray:
    """The ``(players, 13)`` hands of one deal, card by card clockwise from the dealer's left."""
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(deal,)))
    deck = rng.permutation(52).astype(np.uint8)[: 13 * players]
    first = (dealer_of(deal, players) + 1) % players
    hands = np.empty((players, 13), np.uint8)
    for k in range(players):
        seat = (first + k) % players
        hands[seat] = np.sort(deck[k::players])
    return hands


def seat_seed(entropy: int, deal: int, seat: int, spec: str) -> np.random.SeedSequence:
    """Where the bot with ``spec`` in ``seat`` of ``deal`` draws its randomness from: the same
    spec in the same seat of the same deal always draws the same stream.

    >>> seat_seed(7, 3, 1, "greedy").spawn_key  # (deal, seat, the CRC-32 of the spec's text)
    (3, 1, 1301103663)
    """
    return np.random.SeedSequence(entropy, spawn_key=(deal, seat, zlib.crc32(spec.encode())))


def seating_count(n_bots: int, players: int) -> int:
    """How many seatings a deal is replayed in (``seatings``), counted without
    listing them.

    >>> seating_count(4, 4), seating_count(4, 2), seating_count(2, 4), seating_count(50_000, 4)
    (24, 12, 6, 6249250027499700000)
    """
    if n_bots >= players:
        return math.perm(n_bots, players)
    return len(set(itertools.permutations([i % n_bots for i in range(players)])))
