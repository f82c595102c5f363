"""What docs/rules.md and docs/bots.md promise, tested from the promise itself: each expected
number here is worked out from the rules text (or by tests/naive.py, written from it), never
taken from the code under test."""

from __future__ import annotations

import numpy as np
import pytest

from bots.table import FieldTables
from solver import evaluate, score_pair
from solver.classes import row_classes
from solver.rules import Rules
from solver.scoring import expected_rows
from tests import naive

# The "Eastern" table of docs/rules.md, as written there.
EASTERN = {("front", "three of a kind"): 3, ("middle", "full house"): 2, ("middle", "four of a kind"): 8,
           ("back", "four of a kind"): 4, ("middle", "straight flush"): 10, ("back", "straight flush"): 5,
           ("middle", "royal flush"): 14, ("back", "royal flush"): 7}


# --- royalties: a royal flush where the house table names no royal-flush line ----------------------


def _house(tmp_path, text: str) -> Rules:
    path = tmp_path / "house.toml"
    path.write_text(text)
    return Rules.parse(str(path))


def test_a_royal_flush_is_paid_as_a_straight_flush_where_the_table_names_no_royal_flush(tmp_path):
    """docs/rules.md: "In a house table that names no royal-flush line, a royal flush is paid as
    a straight flush." A royal flush in the middle and another in the back; B wins the front."""
    house = _house(tmp_path, '[royalties.middle]\n"straight flush" = 10\n[royalties.back]\n"straight flush" = 5\n')
    a = "2C 3D 4C / TH JH QH KH AH / TS JS QS KS AS"
    b = "3S 3H 4D / 6C 6D 8S 5C 2D / 9C 9D TC TD AD"
    assert score_pair(a, b, house) == (-1 + 1 + 1) + 10 + 5
    assert score_pair(b, a, house) == -((-1 + 1 + 1) + 10 + 5)
    # A royal flush named apart is paid its own line, never the straight-flush line as well.
    own = _house(tmp_path, '[royalties.back]\n"straight flush" = 5\n"royal flush" = 20\n')
    assert score_pair(a, b, own) == (-1 + 1 + 1) + 20
    # A table of royal flushes alone pays nothing for a straight flush that is not royal.
    royal_only = _house(tmp_path, '[royalties.back]\n"royal flush" = 20\n')
    straight_flush = "2C 3D 4C / 7H 7S 5H 6H 2H / 9S TS JS QS KS"
    assert score_pair(straight_flush, b, royal_only) == -1 + 1 + 1
    assert score_pair(straight_flush, b, house) == (-1 + 1 + 1) + 5


# --- royalties-win: a tied row pays no royalty, to either side ----------------------------------------


FIELD_BACKS = ["9S 8S 7S 6S 5S",  # a 9-high straight flush: ties ours
               "AD KD QD JD TD",  # a royal flush: beats ours and collects its royalty
               "8C 7C 6C 5C 4C",  # a lower straight flush: ours wins and collects
               "2C 2D 2H 2S 3C"]  # four of a kind: ours wins and collects
OURS = "9H 8H 7H 6H 5H"


def _by_the_rules(ours: str, theirs: str, table: dict, needs_win: bool) -> float:
    """Units a back row wins from a valid field's back row, royalties included, by docs/rules.md;
    without the win switch the field's royalty is left out (every split pays it alike)."""
    result = naive.compare(naive.parse(ours), naive.parse(theirs))
    mine = table.get(("back", naive.royalty_hand(naive.parse(ours), "back", table)), 0)
    their = table.get(("back", naive.royalty_hand(naive.parse(theirs), "back", table)), 0)
    if not needs_win:
        return result + mine
    return result + (mine if result == 1 else 0) - (their if result == -1 else 0)


@pytest.mark.parametrize("rules", ["royalties-win", "royalties"])
def test_a_rows_expected_units_against_a_field_pay_no_royalty_on_a_tie(rules):
    """docs/rules.md: "With royalties-win, a royalty changes hands only with a row won: a tied
    row pays none." Our 9-high straight flush in the back against a field of four backs, one of
    them the same straight flush in another suit (suits never break a tie)."""
    needs_win = rules == "royalties-win"
    theirs = sorted(evaluate(row) for row in FIELD_BACKS)
    expected = np.mean([_by_the_rules(OURS, row, EASTERN, needs_win) for row in FIELD_BACKS])
    assert expected == (pytest.approx((0 - 1 - 7 + 1 + 5 + 1 + 5) / 4) if needs_win else pytest.approx((0 - 1 + 1 + 1) / 4 + 5))
    win, lose, units = expected_rows([evaluate(OURS)], np.array(theirs, np.int64), np.ones(4), 2, Rules.parse(rules),
                                     total=4.0)
    assert (win[0], lose[0]) == (0.5, 0.25)
    assert units[0] == pytest.approx(expected)


@pytest.mark.parametrize("rules", ["royalties-win", "royalties"])
def test_the_table_bots_row_points_pay_no_royalty_on_a_tie(rules):
    """The table bot's expected units of a row against its field (docs/bots.md: "the chance of
    beating and tying the field's row") under the same rule: the field's back is one of the four
    backs above, each a quarter of the time."""
    classes = row_classes()
    back = np.zeros(classes.size)
    for row in FIELD_BACKS:
        back[np.searchsorted(classes, evaluate(row))] += 0.25
    other = np.zeros(classes.size)
    other[0] = 1.0
    field = FieldTables(other, other, back)
    needs_win = rules == "royalties-win"
    expected = np.mean([_by_the_rules(OURS, row, EASTERN, needs_win) for row in FIELD_BACKS])
    units = field.expected_units(Rules.parse(rules))
    assert units[2, np.searchsorted(classes, evaluate(OURS))] == pytest.approx(expected)


def test_a_solves_royalties_on_rows_that_often_tie_are_those_the_rules_settle(tmp_path):
    """A house table that pays straights, only on rows won: straights of the same height tie
    often (suits never break a tie), and a tie pays nothing either way. The solve's royalties
    part and its EV are what tests/naive.py settles, opponent by opponent, over the very
    opponents of the solve."""
    from bots import opponent_model
    from solver import solve

    house = _house(tmp_path, 'royalty_needs_win = true\n[royalties.middle]\nstraight = 4\n'
                             '[royalties.back]\nstraight = 2\n"three of a kind" = 1\n')
    table = house.royalty_table()
    solution = solve("9C 8D 7H 6S 5C KD QH JS 3C 2D 2H 4S TD", opponent_model("table", house), samples=1000, seed=3,
                     rules=house, keep_sample=True, top=0)
    mine = tuple(naive.parse(" ".join(str(c) for c in row)) for row in solution.arrangement.rows)
    assert [naive.strength(row)[0] for row in mine[1:]] == [naive.STRAIGHT, naive.STRAIGHT]
    royalties, units, ties = [], [], 0
    for opponent in solution.sample:
        theirs = ([int(c) for c in opponent[:3]], [int(c) for c in opponent[3:8]], [int(c) for c in opponent[8:]])
        settled = naive.settle(mine, theirs, royalties=table, needs_win=True)
        royalties.append(settled - naive.settle(mine, theirs))
        units.append(settled)
        ties += not naive.fouled(*theirs) and any(naive.compare(m, t) == 0 for m, t in zip(mine[1:], theirs[1:]))
    assert ties >= 20  # the point of the test: many tied straights
    assert solution.parts["royalties"] == pytest.approx(np.mean(royalties), abs=1e-12)
    assert solution.ev == pytest.approx(np.mean(units), abs=1e-12)


# --- the solver answers to its opponent model ------------------------------------------------------


class FoulingField:
    """An opponent model that fouls every hand: its rows are reshuffled until tests/naive.py
    finds them out of order. It keeps what it answered."""

    name = "fouling"

    def __init__(self) -> None:
        self.answered: list[np.ndarray] = []

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        out = np.array(hands, np.uint8)
        for row in out:
            while not naive.fouled(row[:3].tolist(), row[3:8].tolist(), row[8:].tolist()):
                rng.shuffle(row)
        self.answered.append(out.copy())
        return out


HAND = "AS AH AD AC KS QS JS TS 9S 2C 3D 4H 7C"  # four aces and a king-high straight flush


def test_against_a_field_that_always_fouls_every_legal_play_wins_every_row():
    """docs/rules.md: "A valid hand wins all three rows (+3) against a fouled hand, whatever the
    cards." Against opponents set by a model that fouls every hand, the EV is exactly +3 a
    opponent, with no spread; against the table bot's field, which never fouls (docs/bots.md),
    the same play loses rows and is worth less. A solver that set its opponents some other way
    than by the model it is given cannot find the +3."""
    from bots import opponent_model
    from solver import grade, solve

    field = FoulingField()
    solution = solve(HAND, field, samples=200, seed=5, players=3, keep_sample=True)
    assert np.array_equal(solution.sample, np.concatenate(field.answered))
    assert solution.ev == 2 * 3.0 and solution.ev_se == 0.0
    assert [row.win for row in solution.rows] == [1.0, 1.0, 1.0]
    assert grade(HAND, solution.arrangement, opponent_model("table"), samples=200, seed=5).ev < 3.0 - 0.1
    fouled = "AS AH AD / AC KS QS JS TS / 9S 2C 3D 4H 7C"  # two fouled hands score 0
    assert grade(HAND, fouled, FoulingField(), samples=200, seed=5).ev == 0.0


def test_against_a_field_that_always_fouls_the_best_play_collects_the_most_royalties():
    """Under the Eastern table a fouled hand pays the royalties of every valid opponent, so
    against a field that always fouls, every legal play wins its three rows and the best one
    is the legal play with the most royalties: the four aces in the middle (8) below the
    straight flush in the back (5), +3 +13 a opponent. (The straight flush in the middle, 10,
    would foul over four aces in the back.)"""
    from solver import solve

    solution = solve(HAND, FoulingField(), samples=200, seed=5, rules="royalties", top=0)
    assert solution.ev == 3 + 8 + 5
    assert {"AC", "AD", "AH", "AS"} <= set(map(str, solution.arrangement.middle))
    assert sorted(map(str, solution.arrangement.back)) == sorted("KS QS JS TS 9S".split())


# --- who declares a natural -------------------------------------------------------------------------


SIX_LOW_PAIRS = "2C 2D 3C 3D 4H 4S 5C 5D 6H 6S 7C 7D 9H"  # six pairs, and little to play
SHOWN_STRAIGHTS = "2C 3C 4C 9H TH JH QH KH TS JS QS KS AS"  # three straights (and three flushes): a royal flush too


@pytest.mark.parametrize("spec", ["greedy", "heuristic", "random", "table"])
def test_every_built_in_bot_but_exhaustive_declares_the_best_paid_natural_it_holds(spec):
    """docs/rules.md: "Every built-in bot declares the natural it holds (the best paid one),
    except exhaustive". The straights hand holds three straights and three flushes; three
    straights ranks higher."""
    from bots import make_bot_for
    from bots.base import declared_natural
    from solver import parse_hand

    rules = Rules.parse("royalties+naturals")
    bot = make_bot_for(spec, rules)
    rng = 0  # the seed of declare's generator
    assert declared_natural(bot, parse_hand(SIX_LOW_PAIRS), rng, rules).kind == "six pairs"
    assert declared_natural(bot, parse_hand(SHOWN_STRAIGHTS), rng, rules).kind == "three straights"
    assert declared_natural(bot, parse_hand(HAND), rng, rules) is None


def test_the_exhaustive_bot_declares_when_declaring_is_worth_more_than_playing_out():
    """docs/rules.md: exhaustive "asks the solver whether playing the cards out is worth more".
    Six low pairs collect 3 units for sure, more than any play of them is worth (a play wins at
    most 3 a opponent, and these rows are weak); three straights that hold a royal flush and a
    king-high straight flush are worth more played out under royalties (7 + 10 in royalties
    alone) than the 3 the natural collects."""
    from bots import make_bot_for
    from bots.base import declared_natural
    from solver import parse_hand

    rules = Rules.parse("royalties+naturals")
    bot = make_bot_for("exhaustive:samples=300", rules)
    rng = 0  # the seed of declare's generator
    assert declared_natural(bot, parse_hand(SIX_LOW_PAIRS), rng, rules).kind == "six pairs"
    assert declared_natural(bot, parse_hand(SHOWN_STRAIGHTS), rng, rules) is None
