"""The one check of a run's records (``bench.records.check``), by docs/security.md ("Records and
numbers", "What a record proves"): honest records of a small run pass; each kind of record a
run cannot have made is refused, naming the deal and what is wrong. In-process and small:
records of a few deals, made by the tournament's own play."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from bench.records.check import Run, records_problem, size_problem
from bench.records.deals import seating_count, seatings
from bench.records.model import FAULT_VALUES, DealRecord, Play
from bench.run.play import play_deals
from solver import parse_hand
from solver.arrangement import foul_reason
from solver.evaluator import row_values
from solver.limits import ceiling
from solver.naturals import Natural
from solver.rules import Rules

SEED = 1
NATURAL_DEAL = 10  # seed 1 deals seat 1 of a 2-player table three flushes here (a test below checks it)
BOTS = ["greedy", "random"]


@pytest.fixture(scope="module")
def honest() -> list[dict]:
    """Deals 8 to 11 of a 2-session run (16 deals) with naturals: deal 10 holds a declared natural."""
    return _as_dicts(play_deals(BOTS, 2, SEED, [8, 9, NATURAL_DEAL, 11], "naturals"))


def _as_dicts(records: list[DealRecord]) -> list[dict]:
    """Records as plain dicts a test can doctor (each arrangement as one line of text)."""
    def play(p: Play) -> dict:
        natural = {"natural": {"kind": p.natural.kind, "key": list(p.natural.key)}} if p.natural else {}
        return {"arrangement": p.arrangement, "values": list(p.values), "foul": p.foul, "foul_reason": p.foul_reason,
                "seconds": p.seconds} | natural | ({"fault": p.fault} if p.fault is not None else {})

    return [{"deal": r.deal, "dealer": r.dealer, "hands": list(r.hands), "plays": [[play(p) for p in row] for row in r.plays]}
            for r in records]


def _problem(records: list[dict], run: Run) -> str | None:
    """``records_problem`` of doctored records, made records again."""
    def play(p: dict) -> Play:
        natural = Natural(p["natural"]["kind"], tuple(p["natural"]["key"])) if p.get("natural") else None
        return Play(p["arrangement"], tuple(p["values"]), p["foul"], p["foul_reason"], p.get("seconds", 0.0), natural,
                    p.get("fault"))

    return records_problem([DealRecord(r["deal"], r["dealer"], tuple(r["hands"]),
                                       tuple(tuple(play(p) for p in row) for row in r["plays"])) for r in records], run)


def _run(rules: str = "naturals", on_fault: str | None = "foul", sessions: int = 2) -> Run:
    return Run(tuple(BOTS), 2, sessions, SEED, Rules.parse(rules), on_fault)


def _changed(records: list[dict], change) -> list[dict]:
    doctored = copy.deepcopy(records)
    change(doctored)
    return doctored


def test_honest_records_pass(honest):
    assert _problem(honest, _run()) is None
    assert _problem(honest[::-1], _run()) is None  # in any order
    assert _problem([], _run()) is None
    assert honest[2]["plays"][0][1]["natural"]["kind"] == "three flushes"


@pytest.mark.parametrize("change, message", [
    (lambda r: r[0].update(deal=16), "deal 16 is outside the 16 deals of 2 sessions"),
    (lambda r: r[1].update(deal=8), "deal 8 is recorded more than once"),
    (lambda r: r[0].update(dealer=1), "deal 8 names dealer 1, not 0"),
    (lambda r: r[1].update(dealer=0), "deal 9 names dealer 0, not 1"),
    (lambda r: r[0]["plays"].pop(), "deal 8 does not hold one play per bot (2) and seat (2)"),
    (lambda r: r[0]["plays"][1].pop(), "deal 8 does not hold one play per bot (2) and seat (2)"),
    (lambda r: r[0]["hands"].pop(), "deal 8 holds a hand that is not 13 cards, or not one hand a seat (2 seats)"),
    (lambda r: r[0]["hands"].__setitem__(0, r[0]["hands"][0][3:]), "deal 8 holds a hand that is not 13 cards"),
    (lambda r: r[3]["hands"].reverse(), "deal 11 holds other hands than seed 1 deals"),
])
def test_records_that_are_not_the_runs_deals_are_refused(honest, change, message):
    """Each record against the run: its deal number once and in range, its dealer (the deal
    moves one seat after every hand), the very hands the seed deals, a play per bot and seat."""
    found = _problem(_changed(honest, change), _run())
    assert found is not None and found.startswith(message), found


def test_more_records_than_deals_are_refused(honest):
    found = _problem(honest * 5, _run())
    assert found == "20 records, more than the 16 deals of 2 sessions"


def _play(records: list[dict], deal_index: int = 0, bot: int = 0, seat: int = 0) -> dict:
    return records[deal_index]["plays"][bot][seat]


def test_plays_that_are_not_an_arrangement_of_the_seats_hand_are_refused(honest):
    """Each play against the seat's hand: an arrangement of those 13 cards (3, 5 and 5)."""
    who = "deal 8, 'greedy' in seat 0"

    def rows(text):
        return lambda r: _play(r).update(arrangement=text)

    front, middle, back = _play(honest)["arrangement"].split(" / ")
    other = _play(honest, seat=1)["arrangement"]
    for change in [rows(f"{middle} / {front} / {back}"), rows(f"{front} {middle} / {back}"),
                   rows(f"{front} / {middle} / {back[:-3]} XX"), rows(f"{front} / {middle} / {back[:-3]} {back[:2]}")]:
        found = _problem(_changed(honest, change), _run())
        assert found is not None and found.startswith(f"{who}: ") and found.endswith("is not an arrangement of 13 cards")
    found = _problem(_changed(honest, rows(other)), _run())
    assert found == f"{who}: the arrangement holds cards that were not dealt to that seat"


def test_a_plays_values_foul_and_reason_are_its_own(honest):
    """Its row values, foul and foul reason are those its rows give, computed again."""
    who = "deal 9, 'random' in seat 1"
    play = _play(honest, 1, 1, 1)
    assert play["foul"] is False

    def values(r):
        _play(r, 1, 1, 1)["values"][2] += 1

    assert _problem(_changed(honest, values), _run()) == f"{who}: the row values are not those of the arrangement"
    marked = _problem(_changed(honest, lambda r: _play(r, 1, 1, 1).update(foul=True)), _run())
    assert marked == f"{who}: a play marked fouled whose rows say otherwise"
    reason = _problem(_changed(honest, lambda r: _play(r, 1, 1, 1).update(foul_reason="no")), _run())
    assert reason == f"{who}: the play gives foul_reason 'no', but its rows say it does not foul"


def test_a_fouled_play_must_say_so_and_why(honest):
    """A fouled arrangement of the right cards (the back and middle swapped where the back is
    stronger): accepted with the foul and the solver's reason, refused without either."""
    def back_and_middle_swapped(record: dict) -> str:
        front, middle, back = record["plays"][0][0]["arrangement"].split(" / ")
        return f"{front} / {back} / {middle}"

    index = next(i for i, record in enumerate(honest) if foul_reason(back_and_middle_swapped(record)))
    swapped = back_and_middle_swapped(honest[index])
    who = f"deal {honest[index]['deal']}, 'greedy' in seat 0"
    cards = np.array([[int(c) for c in parse_hand(swapped.replace(" / ", " "))]], np.uint8)
    fouled = {"arrangement": swapped, "values": [int(v[0]) for v in row_values(cards)], "foul": True,
              "foul_reason": foul_reason(swapped)}
    good = _changed(honest, lambda r: r[index]["plays"][0][0].update(fouled))
    assert _problem(good, _run()) is None
    unmarked = _changed(good, lambda r: r[index]["plays"][0][0].update(foul=False))
    assert _problem(unmarked, _run()) == f"{who}: a play marked not fouled whose rows say otherwise"
    unexplained = _changed(good, lambda r: r[index]["plays"][0][0].update(foul_reason=None))
    assert _problem(unexplained, _run()) == (f"{who}: the play gives no foul_reason, but its rows say "
                                                    f"{foul_reason(swapped)}")


def _fault(message: str = "bot 'greedy' failed: it raised ValueError") -> dict:
    return {"arrangement": "fault", "values": list(FAULT_VALUES), "foul": True, "foul_reason": message, "seconds": 0.5,
            "fault": message}


def test_a_fault_is_a_foul_with_its_reason_under_a_policy_that_records_faults(honest):
    """docs/security.md: a run under --on-fault stop ends at its first fault and records none,
    so a fault in a run that says stop is refused; a fault is scored as a foul (the values of
    a foul) whose reason is the fault's text. A run that does not say its policy (a
    results.json written before it was stored) is read, its faults unproven."""
    who = "deal 8, 'greedy' in seat 0"
    faulted = _changed(honest, lambda r: r[0]["plays"][0].__setitem__(0, _fault()))
    assert _problem(faulted, _run(on_fault="foul")) is None
    assert _problem(faulted, _run(on_fault=None)) is None
    stop = _problem(faulted, _run(on_fault="stop"))
    assert stop is not None and stop.startswith(f"{who}: a fault that this run cannot have recorded (its fault policy is "
                                                "'stop'")
    for change in [lambda p: p.update(values=[0, 0, 0]), lambda p: p.update(foul=False), lambda p: p.pop("fault"),
                   lambda p: p.update(arrangement=_play(honest)["arrangement"])]:
        doctored = _changed(faulted, lambda r, change=change: change(_play(r)))
        assert _problem(doctored, _run()) == f"{who}: a faulted play without the values of a foul or its reason"
    other_reason = _changed(faulted, lambda r: _play(r).update(foul_reason="something else"))
    assert _problem(other_reason, _run()) == f"{who}: a faulted play whose foul_reason is not its fault's text"


def test_a_natural_is_declared_only_where_the_rules_have_naturals_and_the_hand_holds_it(honest):
    """The declared natural is the one the seat's hand would declare (its kind and the key that
    settles ties)."""
    natural = _play(honest, 2, 0, 1)["natural"]
    assert _problem(honest, _run("basic")) == f"deal {NATURAL_DEAL} declares a natural, but its rules have none"
    who = "deal 11, 'greedy' in seat 0"
    hand = honest[3]["hands"][0]
    claimed = _problem(_changed(honest, lambda r: _play(r, 3).update(natural=dict(natural))), _run())
    assert claimed == f"{who}: declares 'three flushes', but the hand {hand} holds no natural"
    wrong_kind = dict(natural, kind="six pairs")
    other = _problem(_changed(honest, lambda r: _play(r, 2, 0, 1).update(natural=wrong_kind)), _run())
    assert other is not None and other.startswith(f"deal {NATURAL_DEAL}, 'greedy' in seat 1: declares 'six pairs' (key ")
    assert other.endswith(f"declares 'three flushes' (key {natural['key']})")
    wrong_key = dict(natural, key=natural["key"][::-1])
    assert "declares 'three flushes' (key" in _problem(
        _changed(honest, lambda r: _play(r, 2, 0, 1).update(natural=wrong_key)), _run())


def test_seatings_are_counted_as_the_tournament_seats_them():
    """As many seatings as the tournament replays each deal in (``bench.records.deals.seatings``),
    counted without listing them: every ordered choice of distinct bots, or with fewer bots
    than seats, every distinct order of the bots repeated round the table."""
    for bots in range(1, 7):
        for players in range(2, 5):
            assert seating_count(bots, players) == len(seatings(bots, players)), (bots, players)
    assert seating_count(4, 4) == 24 and seating_count(2, 4) == 6 and seating_count(3, 4) == 12


def test_the_size_of_a_run_is_checked_first():
    """docs/security.md: the size of the run against the limits before any record is read."""
    assert size_problem(2, 2, 1) is None
    assert size_problem(0, 2, 1) is not None and "bot count" in size_problem(0, 2, 1)
    assert "player count" in size_problem(2, 5, 1)
    assert "session count" in size_problem(2, 2, 0)
    found = size_problem(20, 4, 10)
    assert found is not None and found.startswith("20 bots at 4-player tables make 116,280 seatings, more than the "
                                                  f"limit of {ceiling('seatings'):,}")
    sessions = ceiling("plays") // (2 * 2 * 8) + 1
    found = size_problem(2, 2, sessions)
    assert found is not None and f"record {2 * 2 * sessions * 8:,} plays, more than the limit of " in found
    assert size_problem(2, 2, ceiling("plays") // (2 * 2 * 8)) is None
    assert _problem([], _run(sessions=0)) == size_problem(2, 2, 0)


def test_the_plays_after_a_fault_are_checked_too(honest):
    """A fault is a play of its own: the plays after it are checked like any other."""
    def fault_then_wrong_values(records):
        records[0]["plays"][0][0] = _fault()
        _play(records, 3, 1, 1)["values"][0] += 1

    found = _problem(_changed(honest, fault_then_wrong_values), _run())
    assert found == "deal 11, 'random' in seat 1: the row values are not those of the arrangement"
