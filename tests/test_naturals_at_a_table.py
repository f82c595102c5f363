"""Declared naturals at a table of three (docs/rules.md, "Naturals"): a natural collects from
every opponent, the others settle their rows as usual; a natural's shown rows are cards dealt
like any others, so a card in two players' hands is refused."""

from __future__ import annotations

import pytest

from solver import DuplicateCardError, score_pair, score_table
from solver.naturals import best_natural
from solver.rules import Rules

A = "2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC"  # the rules' worked example: A +1 against B
B = "3S 3H 4D / 6C 6D 8S 5C 2D / 9C 9D TH TS AS"
SIX_PAIRS = "4H 4S 6H 6S 7H 7S 8C 8D JD JH QD QH 2C"  # none of A's or B's cards
SHOWN = "2C 3C 4C 5D 8D TD JD QD 9H JH QH KH AH"  # three straights (and flushes): shares JD JH QD QH with SIX_PAIRS

RULES = Rules.parse("naturals")


def test_a_natural_collects_from_every_opponent_and_the_others_settle_their_rows():
    six = best_natural(SIX_PAIRS, RULES)
    assert six is not None and six.kind == "six pairs"
    assert score_pair(A, B, RULES) == 1
    assert score_table([six, A, B], RULES) == (3 + 3, -3 + 1, -3 - 1)
    assert score_table([A, six, B], RULES) == (-3 + 1, 3 + 3, -3 - 1)
    assert score_table([A, B, six], RULES) == (-3 + 1, -3 - 1, 3 + 3)


def test_a_naturals_shown_rows_are_dealt_cards():
    """Three straights are shown as rows; a card of them in another hand is dealt twice."""
    shown = best_natural(SHOWN, RULES)
    set_out = "4H 4S 6H / 6S 7H 7S 8C 8D / JD JH QD QH 2C"  # the six pairs' cards, set as rows
    assert shown is not None and shown.kind == "three straights" and shown.arrangement is not None
    assert score_table([shown, A], RULES) == (3, -3)
    with pytest.raises(DuplicateCardError, match="is dealt to both player 1 and player 2"):
        score_table([shown, set_out], RULES)
    with pytest.raises(DuplicateCardError, match="is dealt to both player 2 and player 3"):
        score_table([B, shown, set_out], RULES)
