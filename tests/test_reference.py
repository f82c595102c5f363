"""The project against tests/data/reference.json, made by the slow reference alone
(``python -m tests.data.make_reference``): pairs settled under seven rule sets, naturals
included; legal splits counted and greedy played by brute force; naturals found. These run
in a plain clone, as do the independent rule vectors of tests/data/vectors (tests/conftest.py)."""

import json
from pathlib import Path

import numpy as np
import pytest

from bots import make_bot
from solver import Arrangement, count_legal, parse_hand, score_pair
from solver.naturals import best_natural, naturals_of
from solver.rules import Rules

REFERENCE = json.loads((Path(__file__).parent / "data" / "reference.json").read_text())


@pytest.mark.parametrize("rule", REFERENCE["rule_sets"])
def test_pairs_score_as_the_reference_says(rule):
    rules = Rules.parse(rule)
    for case in REFERENCE["pairs"]:
        a, b = Arrangement.parse(case["a"]), Arrangement.parse(case["b"])
        if rules.naturals:
            a = best_natural(a.cards, rules) or a
            b = best_natural(b.cards, rules) or b
        assert score_pair(a, b, rules) == case["scores"][rule], (case, rule)


def test_legal_splits_and_greedy_as_the_reference_says():
    greedy = make_bot("greedy")
    for case in REFERENCE["splits"]:
        hand = parse_hand(case["hand"])
        assert int(count_legal(np.array([hand], np.uint8))[0]) == case["legal_splits"]
        played = greedy.arrange(hand, np.random.default_rng(0))
        assert [sorted(map(str, row)) for row in played.rows] == \
            [sorted(case["greedy"][row].split()) for row in ("front", "middle", "back")]


def test_naturals_as_the_reference_says():
    found = 0
    for case in REFERENCE["naturals"]:
        kinds = sorted(n.kind for n in naturals_of(case["hand"]))
        assert kinds == case["naturals"], case["hand"]
        found += bool(kinds)
    assert found >= 20  # the file holds hands with naturals, not only without
