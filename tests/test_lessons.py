"""What a graded hand teaches (solver.lessons): the verdict's thresholds, the decision classes
against a slow reference written from their definition (docs/web.md), and the why's sentences."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots import grade_hand
from solver import Arrangement, Card, SolveError
from solver.lessons import DECISIONS, decision, verdict

HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
BEST = "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"


@pytest.mark.parametrize("per_opponent, expected", [
    (0.0, "best"), (1e-6, "fine"), (0.05, "fine"), (0.0501, "inaccuracy"), (0.2, "inaccuracy"), (0.2001, "mistake"),
    (0.6, "mistake"), (0.6001, "blunder"), (9.0, "blunder"),
])
@pytest.mark.parametrize("opponents", [1, 2, 3])
def test_a_verdict_reads_the_cost_per_opponent(per_opponent, expected, opponents):
    assert verdict(per_opponent * opponents, opponents) == expected


def _back_is_straight_or_better(cards: list[Card]) -> bool:
    """From the rules text: five cards of one suit, five ranks in a row (the ace low in
    A-2-3-4-5 too), a full house or four of a kind."""
    ranks = sorted(c.rank for c in cards)
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    run = len(set(ranks)) == 5 and (ranks[-1] - ranks[0] == 4 or ranks == [0, 1, 2, 3, 12])
    return flush or run or counts[0] == 4 or counts[:2] == [3, 2]


def _kind(row) -> int:
    """0 high card .. 8 straight flush, from the rank counts and suits of five cards."""
    ranks = sorted(c.rank for c in row)
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    flush = len({c.suit for c in row}) == 1
    run = len(set(ranks)) == 5 and (ranks[-1] - ranks[0] == 4 or ranks == [0, 1, 2, 3, 12])
    if run and flush:
        return 8
    made = {(4, 1): 7, (3, 2): 6}.get(tuple(counts[:2]))
    if made:
        return made
    if flush:
        return 5
    if run:
        return 4
    return {(3, 1): 3, (2, 2): 2, (2, 1): 1}.get(tuple(counts[:2]), 0)


def _reference(hand: list[Card], yours: Arrangement, best: Arrangement, declare: bool) -> str:
    """The decision classes as docs/web.md defines them, counted card by card."""
    if declare:
        return "naturals"
    rows = [[sorted(int(c) for c in row) for row in play.rows] for play in (yours, best)]
    if rows[0] == rows[1]:
        return "same as the best play"
    made = [_back_is_straight_or_better(list(play.rows[2])) for play in (yours, best)]
    if any(made) and _kind(yours.rows[2]) != _kind(best.rows[2]):
        return "flush or straight in back"
    ranks = [r for r in range(13) if sum(1 for c in hand if c.rank == r) >= 2]
    where = [{r: [sum(1 for c in row if c.rank == r) for row in play.rows] for r in ranks} for play in (yours, best)]
    kept = [any(sum(1 for r in ranks if w[r][i] >= 2) >= 2 for i in range(3)) for w in where]
    if len(ranks) >= 2 and kept[0] != kept[1]:
        return "splitting two pair"
    if where[0] != where[1]:
        return "where the pair goes"
    return "the front's kicker" if rows[0][0] != rows[1][0] else "the other kickers"


@settings(max_examples=400, deadline=None)
@given(st.permutations(range(52)), st.permutations(range(13)), st.booleans())
def test_decision_classes_match_the_reference(deck, order, declare):
    """Any 13 cards set two ways (as dealt, and shuffled, or with only the front's cards
    trading places): the class is the reference's."""
    cards = [Card(c) for c in deck[:13]]
    best = Arrangement(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:]))
    other = [cards[i] for i in order] if order[0] >= 3 else cards[:3][::-1] + cards[3:]
    yours = Arrangement(tuple(other[:3]), tuple(other[3:8]), tuple(other[8:]))
    assert decision(cards, yours, best, declare=declare) == _reference(cards, yours, best, declare)


def test_each_class_is_found():
    best = Arrangement.parse("9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS")
    found = {decision(best.cards, Arrangement.parse(rows), best) for rows in (
        "9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS", "9H 9D 4S / 8C 7C 6D 5H 2C / AS KS QS JS TS",
        "9H 9D 2C / AS KS QS JS TS / 8C 7C 6D 5H 4S", "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS")}
    two_pair = Arrangement.parse("2C 3D 4H / 9H 9D 8C 8D 5S / AS KS QS JS TS")
    split = Arrangement.parse("9H 9D 4H / 8C 8D 2C 3D 5S / AS KS QS JS TS")
    kickers = Arrangement.parse("2C 3D 5S / 9H 9D 8C 8D 4H / AS KS QS JS TS")
    found |= {decision(two_pair.cards, split, two_pair), decision(two_pair.cards, kickers, two_pair)}
    six_pairs = Arrangement.parse("9S 9H 2C / AS KS QS JS TS / AH KH QH JH TH")
    found.add(decision(six_pairs.cards, six_pairs, six_pairs, declare=True))
    aces = Arrangement.parse("2C 3D 4H / 9H 9D 8C 8D 6S / AS AD KS QH 7C")
    found.add(decision(aces.cards, Arrangement.parse("2C 3D 4H / 9H 9D 8C 8D 7C / AS AD KS QH 6S"), aces))
    assert found == {*DECISIONS, "same as the best play"}


def test_why_names_the_costliest_row_first_and_the_best_play_in_one_sentence():
    worse = grade_hand(HAND, "9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS", "table", samples=300, seed=1)
    assert worse.verdict == "blunder" and worse.decision == "where the pair goes"
    assert worse.why[0].startswith("The front: your 9-high") and "pair of 9s" in worse.why[0]
    assert len(worse.why) == 2  # the back is the same cards: no sentence
    best = grade_hand(HAND, BEST, "table", samples=300, seed=1)
    assert best.verdict == "best" and best.why == ["Your play is the best play."]
    fouled = grade_hand(HAND, "AS KS QS / 9H 9D JS TS 8C / 7C 6D 5H 4S 2C", "table", samples=300, seed=1)
    assert fouled.why[0].startswith("Your play fouls (middle") and fouled.verdict == "blunder"


def test_why_says_when_declaring_was_the_best_choice():
    six_pairs = "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C"
    graded = grade_hand(six_pairs, "9S 9H 2C / AS KS QS JS TS / AH KH QH JH TH", "table", samples=300, seed=3,
                        rules="naturals")
    assert graded.decision == "naturals" and graded.why[0].startswith("Declaring six pairs is worth")
    assert graded.verdict != "best"


THREE_STRAIGHTS = "AC 2D 3C 9S TS JS QS KS 9H TH JH QH KH"  # two straight flushes played out: royalties beat declaring


@pytest.mark.parametrize("players", [2, 3])
def test_a_declared_natural_is_graded_against_the_best_choice(players):
    """Declared, three straights wins 3 units from each opponent who holds no natural (the
    rules' payout); where it was the best choice it costs 0, and where royalties make playing
    it out better it costs the difference, with no rows of its own."""
    declared = grade_hand(THREE_STRAIGHTS, "declare", "table", samples=200, seed=1, rules="naturals", players=players)
    assert declared.declared and declared.arrangement is None and declared.rows == ()
    assert declared.ev <= 3.0 * (players - 1) + 1e-9  # an opponent's higher natural takes its units
    if declared.solution.opponents_with_naturals == 0:
        assert declared.ev == pytest.approx(3.0 * (players - 1))
    assert declared.declare and declared.lost == 0 and declared.verdict == "best"
    assert declared.decision == "same as the best play" and declared.why[0].startswith("You declared three straights")
    assert declared.diff == pytest.approx(declared.ev - declared.solution.ev)
    played = grade_hand(THREE_STRAIGHTS, "declare", "table", samples=200, seed=1, rules="royalties+naturals",
                        players=players)
    assert not played.declare and played.solution.ev > played.ev
    assert played.lost == pytest.approx(played.solution.ev - played.ev) and played.verdict == "blunder"
    assert played.decision == "naturals" and "playing it out was the better choice" in played.why[0]
    doc = played.to_dict()
    assert doc["declared"] is True and doc["arrangement"] is None and doc["rows"] is None and doc["foul"] is False


@pytest.mark.parametrize("hand, rules, why", [
    (THREE_STRAIGHTS, "basic", "these rules have no naturals"),
    ("AS KD 7C 2H 9S 4D JC 3H 8S 6D TC 5H 5S", "naturals", "this hand holds none under these rules"),
])
def test_declaring_without_a_natural_is_refused(hand, rules, why):
    with pytest.raises(SolveError, match=f"there is no natural to declare: {why}"):
        grade_hand(hand, "declare", "table", samples=50, seed=1, rules=rules)
