"""Property-based tests (hypothesis) against the slow reference in tests/naive.py.

Each property is checked on generated inputs, including fouled hands and every rule set:
a failure prints the smallest input that breaks it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import Arrangement, Card, format_cards, parse_card, parse_cards, score_pair, score_table
from solver.naturals import naturals_of
from solver.rules import Rules
from tests import naive

RULE_SETS = ["basic", "1-6", "2-4", "royalties", "royalties-win", "1-6+royalties", "2-4+royalties-win"]
RULES = {name: Rules.parse(name) for name in RULE_SETS}
deals = st.permutations(list(range(52)))
SUITS = dict(zip("CDHS", "♣♦♥♠"))


def _arrangement(cards: list[int]) -> Arrangement:
    return Arrangement(cards[:3], cards[3:8], cards[8:13])


def _rows(cards: list[int]) -> tuple[list[int], list[int], list[int]]:
    return cards[:3], cards[3:8], cards[8:13]


@given(st.integers(0, 51), st.booleans(), st.booleans())
def test_a_card_reads_back_in_every_spelling(card, lower, symbol):
    text = str(Card(card))
    if symbol:
        text = text[0] + SUITS[text[1]]
    if lower:
        text = text.lower()
    if text[0] in "tT" and lower:
        text = "10" + text[1:]
    assert parse_card(text) == card


@given(deals, st.integers(1, 13))
def test_cards_round_trip_through_text(deck, n):
    cards = deck[:n]
    assert [int(c) for c in parse_cards(format_cards(cards))] == cards
    assert [int(c) for c in parse_cards(", ".join(format_cards(cards, symbols=True).split()))] == cards


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(deals, st.sampled_from(RULE_SETS))
def test_score_pair_equals_the_reference_and_is_antisymmetric(deck, name):
    """Any two hands, fouled or not, under every rule set (with royal flushes and royalties)."""
    rules = RULES[name]
    a, b = deck[:13], deck[13:26]
    expected = naive.settle(_rows(a), _rows(b), rules.scoring, rules.royalty_table(), rules.royalty_needs_win)
    assert score_pair(_arrangement(a), _arrangement(b), rules) == expected
    assert score_pair(_arrangement(b), _arrangement(a), rules) == -expected


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(deals, st.integers(2, 4), st.sampled_from(RULE_SETS))
def test_score_table_is_the_sum_of_the_reference_pairs_in_any_seating(deck, players, name):
    """Each seat's score equals the reference's settlements against every other seat summed,
    and seating the players in reverse order reverses the table (each pairing is then
    settled from the other side). Fails if a pairing is dropped, doubled or mis-signed."""
    rules = RULES[name]
    hands = [deck[13 * p:13 * p + 13] for p in range(players)]
    table = score_table([_arrangement(h) for h in hands], rules)
    expected = tuple(sum(naive.settle(_rows(mine), _rows(other), rules.scoring, rules.royalty_table(),
                                      rules.royalty_needs_win) for j, other in enumerate(hands) if j != i)
                     for i, mine in enumerate(hands))
    assert table == expected
    assert score_table([_arrangement(h) for h in hands[::-1]], rules) == expected[::-1]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(deals)
def test_a_rows_value_does_not_depend_on_the_order_of_its_cards(deck):
    from solver import evaluate

    row = deck[:5]
    assert evaluate(row) == evaluate(row[::-1]) == evaluate(sorted(row))
    assert naive.compare(row, row[::-1]) == 0


# Hands rich in naturals: few ranks or few suits, so that pairs, trips, runs and flushes abound.
rich_hands = st.one_of(
    deals.map(lambda d: d[:13]),
    st.lists(st.integers(0, 51), min_size=13, max_size=13, unique=True).filter(
        lambda h: len({c // 4 for c in h}) <= 7),
    st.lists(st.integers(0, 51), min_size=13, max_size=13, unique=True).filter(
        lambda h: len({c % 4 for c in h}) <= 3),
)


@pytest.mark.slow
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much], deadline=None)
@given(rich_hands)
def test_naturals_are_found_as_the_rules_define_them(hand):
    assert {n.kind for n in naturals_of(hand)} == naive.naturals(hand)


def test_naturals_on_hands_built_to_hold_them():
    """The reference and the code agree on hands made to hold each natural (and near misses)."""
    rng = np.random.default_rng(5)
    built = {
        "dragon": [r * 4 + int(rng.integers(4)) for r in range(13)],
        "four trips": [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 51],
        "six pairs": [0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 51],
        "three flushes": [0, 4, 8, 1, 5, 9, 13, 17, 2, 6, 10, 14, 18],
        "three straights": [48, 1, 6, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47],
    }
    for kind, hand in built.items():
        assert kind in naive.naturals(hand)
        assert {n.kind for n in naturals_of(hand)} == naive.naturals(hand)
        near = hand[:-1] + [c for c in range(52) if c not in hand][:1]
        assert {n.kind for n in naturals_of(near)} == naive.naturals(near)
