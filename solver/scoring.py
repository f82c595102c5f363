"""Scoring: settle arrangements against each other (basic scoring, RULES.md).

Every pair of players is settled separately, row against row: +1 for a row won, -1
for a row lost, 0 for a tie. A legal hand takes +3 from a fouled one; two fouled
hands score 0. A player's table score is the sum over opponents, so a table is
zero-sum.

>>> a = "2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC"
>>> b = "3S 3H 4D / 6C 6D 8S 5C 2D / 9C 9D TH TS AS"
>>> score_pair(a, b), score_pair(b, a)
(1, -1)
"""

from __future__ import annotations

from collections.abc import Sequence

from solver.arrangement import Arrangement, as_arrangement
from solver.cards import CardError, DuplicateCardError

FOUL_PENALTY = 3  # a fouled hand loses all three rows


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def row_results(a: Arrangement | str, b: Arrangement | str) -> tuple[int, int, int]:
    """+1 / 0 / -1 for A's front, middle and back against B's (fouls included)."""
    va, vb = as_arrangement(a).values(), as_arrangement(b).values()
    foul_a = not (va[0] <= va[1] <= va[2])
    foul_b = not (vb[0] <= vb[1] <= vb[2])
    if foul_a or foul_b:
        result = _sign(int(foul_b) - int(foul_a))  # 0 when both foul
        return (result, result, result)
    return tuple(_sign(x - y) for x, y in zip(va, vb))  # type: ignore[return-value]


def score_pair(a: Arrangement | str, b: Arrangement | str) -> int:
    """Units A wins from B under basic scoring (negative when A loses)."""
    return sum(row_results(a, b))


def score_table(arrangements: Sequence[Arrangement | str]) -> tuple[int, ...]:
    """Each player's score against every other at a table of 2 to 4; sums to zero.

    >>> score_table(["2S 2H AD / 7C 7D 9S 5H 3D / TC JC QC KC AC",
    ...              "3S 3H 4D / 6C 6D 8S 5C 2D / 9C 9D TH TS AS"])
    (1, -1)
    """
    arrs = [as_arrangement(a) for a in arrangements]
    if not 2 <= len(arrs) <= 4:
        raise CardError(f"a table seats 2 to 4 players, got {len(arrs)}")
    seen: dict[int, int] = {}
    for seat, arr in enumerate(arrs):
        for card in arr.cards:
            if card in seen:
                raise DuplicateCardError(f"card '{card}' is dealt to both player {seen[card] + 1} and player {seat + 1}")
            seen[card] = seat
    scores = [0] * len(arrs)
    for i in range(len(arrs)):
        for j in range(i + 1, len(arrs)):
            s = score_pair(arrs[i], arrs[j])
            scores[i] += s
            scores[j] -= s
    return tuple(scores)
