"""What a graded hand teaches: a verdict on the play, why it cost what it did, and the decision
it turned on.

The verdict reads the cost per opponent (units a hand against one opponent), so the same
misplay gets the same verdict at a table of two or of four. The decision classes sort
a play by the first choice where it parts from the best play (a play that does not is ``same
as the best play``), so that the EV lost adds up by the kind of mistake:

* ``naturals``: declaring the natural the hand holds was the best choice, and it was played out;
* ``flush or straight in back``: the backs differ in kind and one is a straight or better;
* ``splitting two pair``: one play keeps two pairs in one row, the other does not;
* ``where the pair goes``: a pair (or trips) of the hand lies in other rows;
* ``the front's kicker``: only unpaired cards of the front differ;
* ``the other kickers``: only unpaired cards of the middle and the back differ.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from solver.arrangement import Arrangement
from solver.cards import Card
from solver.evaluator import CATEGORY_NAMES, category

# (highest cost per opponent, verdict), in order; a cost above the last is a blunder. 0 is "best".
VERDICTS: tuple[tuple[float, str], ...] = ((0.0, "best"), (0.05, "fine"), (0.2, "inaccuracy"), (0.6, "mistake"))
BLUNDER = "blunder"
STRAIGHT = CATEGORY_NAMES.index("straight")
DECISIONS = ("naturals", "flush or straight in back", "splitting two pair", "where the pair goes", "the front's kicker",
             "the other kickers")
SAME = "same as the best play"


def verdict(lost: float, opponents: int) -> str:
    """The verdict on a play that cost ``lost`` units a hand against ``opponents`` opponents.

    Args:
        lost: What the play cost against the best choice (>= 0), over all the opponents.
        opponents: The opponents at the table (1 to 3).

    Returns:
        ``best`` (cost 0), ``fine`` (up to 0.05 a hand per opponent), ``inaccuracy`` (up to
            0.2), ``mistake`` (up to 0.6) or ``blunder``.

    Examples:
        >>> verdict(0.0, 1), verdict(0.04, 1), verdict(0.3, 3), verdict(0.3, 1), verdict(1.5, 3), verdict(2.5, 1)
        ('best', 'fine', 'inaccuracy', 'mistake', 'mistake', 'blunder')
    """
    per_opponent = lost / opponents
    for highest, name in VERDICTS:
        if per_opponent <= highest + 1e-9:  # a threshold holds its own value whatever the rounding of lost / opponents
            return name
    return BLUNDER


def decision(hand: Sequence[Card], yours: Arrangement | None, best: Arrangement, *, declare: bool = False) -> str:
    """The decision a play of a hand turned on: the first of ``DECISIONS`` where it parts from
    the best play (``SAME`` where it does not).

    Args:
        hand: The 13 cards.
        yours: The play graded; None where the player declared the natural the hand holds.
        best: The best play of three rows.
        declare: Declaring the natural the hand holds was the best choice (a play of rows is
            then a natural not declared, whatever its rows; a declaration is the best choice).

    Returns:
        One of ``DECISIONS`` (in their order, the first that fits), or ``SAME``.

    Examples:
        >>> best = Arrangement.parse("9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS")
        >>> def of(rows): return decision(best.cards, Arrangement.parse(rows), best)
        >>> of("9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"), of("9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS")
        ('same as the best play', 'where the pair goes')
        >>> of("9H 9D 2C / AS KS QS JS TS / 8C 7C 6D 5H 4S"), of("9H 9D 4S / 8C 7C 6D 5H 2C / AS KS QS JS TS")
        ('flush or straight in back', "the front's kicker")
    """
    cards = [Card(int(c)) for c in hand]
    if yours is None:
        return SAME if declare else DECISIONS[0]
    if declare:
        return DECISIONS[0]
    mine, theirs = [[sorted(row) for row in play.rows] for play in (yours, best)]
    if mine == theirs:
        return SAME
    kinds = category(yours.values()[2]), category(best.values()[2])
    if kinds[0] != kinds[1] and max(kinds) >= STRAIGHT:
        return DECISIONS[1]
    paired = [rank for rank, n in Counter(c.rank for c in cards).items() if n >= 2]

    def spread(play: Arrangement, rank: int) -> tuple[int, ...]:  # how many cards of the rank each row holds
        return tuple(sum(1 for c in row if c.rank == rank) for row in play.rows)

    def together(play: Arrangement) -> bool:  # two of the hand's pairs in one row
        return any(sum(1 for rank in paired if spread(play, rank)[i] >= 2) >= 2 for i in range(3))

    if len(paired) >= 2 and together(yours) != together(best):
        return DECISIONS[2]
    if any(spread(yours, rank) != spread(best, rank) for rank in paired):
        return DECISIONS[3]
    if mine[0] != theirs[0]:
        return DECISIONS[4]
    return DECISIONS[5]


class _Row(Protocol):
    """What ``why`` reads of a row's result (``solver.solution.RowResult``)."""

    @property
    def row(self) -> str: ...
    @property
    def cards(self) -> tuple[Card, ...]: ...
    @property
    def hand(self) -> str: ...
    @property
    def win(self) -> float: ...
    @property
    def tie(self) -> float: ...
    @property
    def ev(self) -> float: ...


class _Best(Protocol):
    """What ``why`` reads of the best play (``solver.solution.Solution``)."""

    @property
    def opponents(self) -> int: ...
    @property
    def ev(self) -> float: ...
    @property
    def natural(self) -> str | None: ...
    @property
    def natural_ev(self) -> float | None: ...
    @property
    def rows(self) -> tuple[_Row, ...]: ...


class _Graded(Protocol):
    """What ``why`` reads of a grade (``solver.solution.Grade``, which imports this module)."""

    @property
    def solution(self) -> _Best: ...
    @property
    def declare(self) -> bool: ...
    @property
    def foul(self) -> bool: ...
    @property
    def foul_reason(self) -> str | None: ...
    @property
    def rows(self) -> tuple[_Row, ...]: ...
    @property
    def lost(self) -> float: ...
    @property
    def declared(self) -> bool: ...


def why(grade: _Graded) -> list[str]:
    """Why a play cost what it did, in sentences: the natural it did not declare, its foul, and
    each row it set otherwise than the best play, with both rows' chances against one opponent
    and the difference in units over all of them; for a natural declared, what declaring won
    against the best play of three rows.

    Args:
        grade: The grade of the play.

    Returns:
        The sentences, the most costly row first; one sentence when the play is the best play.
    """
    best = grade.solution
    n = best.opponents
    if grade.declared:
        worth = f"You declared {best.natural}, worth {best.natural_ev:+.3f} units a hand; the best play of three rows "
        if grade.declare:
            return [worth + f"{best.ev:+.3f}: declaring was the best choice."]
        return [worth + f"scores {best.ev:+.3f}: playing it out was the better choice, by {grade.lost:.3f} units "
                        "a hand."]
    lines: list[str] = []
    if grade.declare:
        lines.append(f"Declaring {best.natural} is worth {best.natural_ev:+.3f} units a hand, the best play of three "
                     f"rows {best.ev:+.3f}: declaring was the best choice.")
    if grade.foul:
        lines.append(f"Your play fouls ({grade.foul_reason}): it loses all three rows to every opponent who does not "
                     "foul too.")
    changed = [(mine, theirs) for mine, theirs in zip(grade.rows, best.rows) if sorted(mine.cards) != sorted(theirs.cards)]
    if not changed and not grade.declare:
        return ["Your play is the best play."]
    changed.sort(key=lambda pair: pair[0].ev - pair[1].ev)
    if not grade.foul:
        for mine, theirs in changed:
            lines.append(f"The {mine.row}: your {mine.hand} wins it {_share(mine.win)} against one opponent (ties "
                         f"{_share(mine.tie)}), the best play's {theirs.hand} {_share(theirs.win)} (ties "
                         f"{_share(theirs.tie)}): {n * (mine.ev - theirs.ev):+.3f} units a hand.")
    if grade.lost == 0 and changed and not grade.declare:
        lines.append("On these opponents your play scores as well as the best play.")
    return lines


def _share(x: float) -> str:
    return "—" if x != x else f"{100 * x:.0f}%"
