"""The web page's jobs: what its worker processes compute.

Each job takes plain, already validated arguments (registered bots by their canonical
spec, rules by their preset names) and returns a JSON-ready dict. Bad cards or
arrangements raise ``ValueError`` subclasses with a readable message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.records.deals import deal_table, seat_seed
from bots import checked_arrangement, grade_hand, make_bot_for, solve_hand
from bots.base import declared_natural
from solver import ROWS, Arrangement, Card, Rules, SolveError, describe, foul_reason, row_results, score_pair
from solver.naturals import best_natural

if TYPE_CHECKING:
    from solver import Arrangement, Card, Rules
    from solver.naturals import Natural

WARM_UP_HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
GRADE_KEY = 0x67726164  # the spawn key that sets a session's grading streams apart from its deals ("grad")


def solve(hand: str, opponent: str, samples: int, seed: int | None, players: int, top: int, rules: str) -> dict[str, Any]:
    return solve_hand(hand, opponent, samples=samples, seed=seed, players=players, top=top, rules=rules).to_dict()


def grade(hand: str, arrangement: str, opponent: str, samples: int, seed: int | None, players: int,
          rules: str) -> dict[str, Any]:
    return grade_hand(hand, arrangement, opponent, samples=samples, seed=seed, players=players, rules=rules).to_dict()


def play(seed: int, hand_number: int, players: int, bots: list[str], arrangement: str | None, declare: bool,
         rules: str, samples: int) -> dict[str, Any]:
    """One hand of a session: the bots set their cards (and declare what naturals they hold),
    the table is settled pair by pair, and the player's choice is graded against the best one
    (seat 0 is the player; bot k sits in seat k)."""
    played = Rules.parse(rules)
    hands = deal_table(seed, hand_number, players)
    dealt = tuple(Card(int(c)) for c in hands[0])
    natural = best_natural(dealt, played) if played.naturals else None
    mine = _your_arrangement(dealt, arrangement, declare, natural)
    yours = natural if declare else mine
    assert yours is not None  # _your_arrangement refuses a declaration without a natural
    plays: list[Arrangement | Natural] = [yours, *_bot_plays(bots, hands, seed, hand_number, played)]
    pairs = [[score_pair(a, b, played) if i != j else 0 for j, b in enumerate(plays)] for i, a in enumerate(plays)]
    rows = [[dict(zip(ROWS, row_results(a, b))) if i != j and isinstance(a, Arrangement) and isinstance(b, Arrangement)
             else None for j, b in enumerate(plays)] for i, a in enumerate(plays)]
    doc, review = _review(dealt, mine, natural, grading_seed(seed, hand_number), players, samples, played)
    return {"seats": _seats(["you", *bots], plays), "pairs": pairs, "row_results": rows, "scores": [sum(r) for r in pairs],
            "grade": doc, "review": review}


def grading_seed(seed: int, hand_number: int) -> int:
    """The seed a session's hand is graded with: printed with the grade so that
    ``solve --grade --seed`` replays it, yet drawn from its own stream of the session's seed,
    so that it tells nothing of the session's deals. Below 2**53, so JSON keeps it exact.

    >>> grading_seed(9, 0) == grading_seed(9, 0) != grading_seed(9, 1)
    True
    """
    state = np.random.SeedSequence(seed, spawn_key=(hand_number, GRADE_KEY)).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(11))


def _your_arrangement(dealt: tuple[Card, ...], arrangement: str | None, declare: bool,
                      natural: Natural | None) -> Arrangement | None:
    """The player's arrangement, checked to hold the cards dealt; None when they declare their natural."""
    if declare:
        if natural is None:
            raise SolveError("there is no natural to declare: this hand holds none under these rules")
        return None
    if arrangement is None:
        raise SolveError("set your 13 cards (or declare your natural) first")
    mine = Arrangement.parse(arrangement)
    if sorted(int(c) for c in mine.cards) != sorted(int(c) for c in dealt):
        raise SolveError("the arrangement holds other cards than the hand dealt to you")
    return mine


def _bot_plays(bots: list[str], hands: np.ndarray, seed: int, hand_number: int,
               played: Rules) -> list[Arrangement | Natural]:
    """What each bot plays from its seat (bot k in seat k): a natural it declares, else its arrangement."""
    plays: list[Arrangement | Natural] = []
    for seat, spec in enumerate(bots, start=1):
        bot = make_bot_for(spec, played)
        cards = tuple(Card(int(c)) for c in hands[seat])
        seat_entropy = seat_seed(seed, hand_number, seat, spec)
        theirs = declared_natural(bot, cards, seat_entropy, played)
        plays.append(theirs if theirs is not None else checked_arrangement(bot, cards, np.random.default_rng(seat_entropy)))
    return plays


def _seats(names: list[str], plays: list[Arrangement | Natural]) -> list[dict[str, Any]]:
    """Each seat's play as the page shows it: an arrangement with its hands, or a declared natural."""
    seats: list[dict[str, Any]] = []
    for index, (name, chosen) in enumerate(zip(names, plays)):
        if isinstance(chosen, Arrangement):
            reason = foul_reason(chosen)
            seats.append({"seat": index, "name": name, "arrangement": rows_of(chosen.format()),
                          "rows": {row: {"hand": describe(cards)} for row, cards in zip(ROWS, chosen.rows)},
                          "foul": reason is not None, "foul_reason": reason, "natural": None})
        else:
            seats.append({"seat": index, "name": name, "arrangement": None, "rows": None, "foul": False,
                          "foul_reason": None, "natural": chosen.kind})
    return seats


def rows_of(text: str | None) -> dict[str, str] | None:
    """``"F / M / B"`` as ``{"front": F, "middle": M, "back": B}`` (None stays None)."""
    return None if text is None else dict(zip(ROWS, text.split(" / ")))


def _review(dealt: tuple[Card, ...], mine: Arrangement | None, natural: Natural | None, grading_seed: int, players: int,
            samples: int, played: Rules) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The player's choice against the best one (by ``table`` opponents): the grade document
    when they set their cards, and the review the page shows."""
    if mine is not None:
        graded = grade_hand(dealt, mine, "table", samples=samples, seed=grading_seed, players=players, rules=played)
        best, doc = graded.solution, graded.to_dict()
        yours, described = graded.ev, mine.format()
    else:
        best = solve_hand(dealt, "table", samples=samples, seed=grading_seed, players=players, rules=played, top=0)
        doc = None
    best_play = best.ev
    natural_ev = best.natural_ev if natural is not None else None
    if mine is None:  # declared: _your_arrangement refuses a declaration without a natural, and a natural has its EV
        assert natural is not None and natural_ev is not None
        yours, described = float(natural_ev), "declared " + natural.kind
    best_choice = max(best_play, natural_ev) if natural_ev is not None else best_play
    review = {
        "hand": " ".join(str(c) for c in sorted(dealt, reverse=True)),
        "yours": described,
        "best": f"declare {natural.kind}" if natural is not None and natural_ev is not None and natural_ev > best_play
        else best.arrangement.format(),
        "best_arrangement": rows_of(best.arrangement.format()),
        "ev": round(yours, 6),
        "best_ev": round(best_choice, 6),
        "lost": round(max(0.0, best_choice - yours), 6),
        "natural": natural.kind if natural else None,
        "natural_ev": None if natural_ev is None else round(natural_ev, 6),
        "play_ev": round(best_play, 6),
        "sample_count": samples,
        "seed": grading_seed,  # with the rules, the players and table as the opponent, Solve shows these figures again
        "opponent": "table",
        "player_count": players,
        "rules": played.name,
    }
    return doc, review


def warm_up() -> None:
    """Compile (or load from Numba's cache) the kernels every kind of request uses, before the
    worker takes one: a solve with each opponent model, a grade, and hands of Play that seat
    each kind of bot, tiny, under rules with and without a bonus, royalties and naturals.
    On a fresh install this takes the compiling off the first requests, which would otherwise
    spend most of their time limit on it (tests/test_web_limits.py finds what it leaves out)."""
    arrangement = "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"  # of WARM_UP_HAND
    natural = "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C"  # six pairs
    opponents = ("greedy", "heuristic", "random", "table")  # each opponent model the page offers (app.OPPONENTS)
    seats = ("exhaustive:samples=10:opponent=table", "greedy", "heuristic", "random", "table")  # each bot it seats
    samples = 20
    for rules in ("basic", "1-6+naturals", "2-4+royalties+naturals"):  # the kernels differ with a bonus, with royalties
        for opponent in opponents:
            solve(WARM_UP_HAND, opponent, samples=samples, seed=0, players=2, top=1, rules=rules)
        solve(natural, "table", samples=samples, seed=0, players=2, top=1, rules=rules)
        grade(WARM_UP_HAND, arrangement, "table", samples=samples, seed=0, players=2, rules=rules)
        for first in range(0, len(seats), 3):  # at most 3 bots a table
            bots = list(seats[first:first + 3])
            players = len(bots) + 1
            dealt = sorted((Card(int(c)) for c in deal_table(0, 0, players)[0]), reverse=True)
            mine = Arrangement(tuple(dealt[10:]), tuple(dealt[5:10]), tuple(dealt[:5])).format()  # fouled or not
            play(0, 0, players, bots, mine, False, rules, samples)


JOBS: dict[str, Callable[..., dict[str, Any]]] = {"solve": solve, "grade": grade, "play": play}
