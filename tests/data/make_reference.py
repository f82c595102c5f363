"""Makes tests/data/reference.json from the slow reference alone (tests/naive.py).

    python -m tests.data.make_reference

Nothing here calls the project's code: hands are dealt with Python's own random module,
rows ranked, fouls and scores settled, splits counted and greedy played by the reference,
written from the rules text. tests/test_reference.py checks the project against it, so a
clone with no other files beside it still runs every kind of check.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

from tests import naive

RULE_SETS = {  # name: (scoring, royalty table, paid only on rows won, naturals)
    "basic": ("basic", {}, False, False),
    "1-6": ("1-6", {}, False, False),
    "2-4": ("2-4", {}, False, False),
    "royalties": ("basic", "eastern", False, False),
    "royalties-win": ("basic", "eastern", True, False),
    "1-6+royalties": ("1-6", "eastern", False, False),
    "2-4+royalties-win+naturals": ("2-4", "eastern", True, True),
}
EASTERN = {  # the common preset, from the rules text
    ("front", "three of a kind"): 3,
    ("middle", "full house"): 2, ("middle", "four of a kind"): 8, ("middle", "straight flush"): 10,
    ("middle", "royal flush"): 14,
    ("back", "four of a kind"): 4, ("back", "straight flush"): 5, ("back", "royal flush"): 7,
}


def text(cards: list[int]) -> str:
    return " ".join(naive.card_text(c) for c in cards)


def settle(a: list[int], b: list[int], rule: str) -> int:
    scoring, table, needs_win, naturals = RULE_SETS[rule]
    if naturals:
        mine, theirs = naive.best_natural(a), naive.best_natural(b)
        if mine or theirs:
            return _settle_naturals(mine, theirs, a, b)
    rows_a, rows_b = (a[:3], a[3:8], a[8:]), (b[:3], b[3:8], b[8:])
    return naive.settle(rows_a, rows_b, scoring, EASTERN if table else {}, needs_win)


def _settle_naturals(mine: str | None, theirs: str | None, a: list[int], b: list[int]) -> int:
    if theirs is None:
        return naive.NATURAL_PAYOUT[mine]
    if mine is None:
        return -naive.NATURAL_PAYOUT[theirs]
    order = naive.NATURAL_ORDER
    if mine != theirs:
        winner = max(mine, theirs, key=order.index)
        return naive.NATURAL_PAYOUT[winner] * (1 if winner == mine else -1)
    return None  # the same natural: compared by what decides between two of a kind; not in this file


def splits_of(hand: list[int]):
    """Every (front, middle, back) of 13 cards, as position tuples."""
    positions = range(13)
    for front in itertools.combinations(positions, 3):
        rest = [p for p in positions if p not in front]
        for middle in itertools.combinations(rest, 5):
            back = tuple(p for p in rest if p not in middle)
            yield front, middle, back


def legal_splits(hand: list[int]) -> int:
    strengths: dict[tuple[int, ...], tuple] = {}

    def strength(positions):
        if positions not in strengths:
            strengths[positions] = naive.strength([hand[p] for p in positions])
        return strengths[positions]

    return sum(strength(f) <= strength(m) <= strength(b) for f, m, b in splits_of(hand))


def greedy(hand: list[int]) -> dict[str, str]:
    """The best five to the back, the best five of the other eight to the middle (first in
    lexicographic order of positions on a tie)."""
    fives = list(itertools.combinations(range(13), 5))
    back = max(fives, key=lambda c: (naive.strength([hand[p] for p in c]), [-p for p in c]))
    rest = [p for p in range(13) if p not in back]
    middle = max(itertools.combinations(rest, 5), key=lambda c: (naive.strength([hand[p] for p in c]), [-p for p in c]))
    front = [p for p in rest if p not in middle]
    return {"front": text([hand[p] for p in front]), "middle": text([hand[p] for p in middle]),
            "back": text([hand[p] for p in back])}


def main() -> None:
    rng = random.Random(20261130)
    pairs = []
    while len(pairs) < 1500:
        deck = rng.sample(range(52), 26)
        a, b = deck[:13], deck[13:]
        scores = {rule: settle(a, b, rule) for rule in RULE_SETS}
        if any(s is None for s in scores.values()):
            continue
        pairs.append({"a": " / ".join(text(r) for r in (a[:3], a[3:8], a[8:])),
                      "b": " / ".join(text(r) for r in (b[:3], b[3:8], b[8:])), "scores": scores})
    hands = [sorted(rng.sample(range(52), 13), reverse=True) for _ in range(12)]
    splits = [{"hand": text(h), "legal_splits": legal_splits(h), "greedy": greedy(h)} for h in hands]
    naturals_hands = [rng.sample(range(52), 13) for _ in range(3000)]
    naturals = [{"hand": text(h), "naturals": sorted(naive.naturals(h))} for h in naturals_hands]
    document = {"about": __doc__.strip().splitlines()[0], "rule_sets": list(RULE_SETS), "pairs": pairs,
                "splits": splits, "naturals": naturals}
    path = Path(__file__).with_name("reference.json")
    path.write_text(json.dumps(document, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {path}: {len(pairs)} pairs, {len(splits)} hands' splits, {len(naturals)} hands' naturals")


if __name__ == "__main__":
    main()
