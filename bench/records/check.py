"""The one check of a run's records, wherever they are read back: a resumed run's journal
(``bench tournament --resume``) and a results.json (``bench report``) pass the same checks,
and a tournament is refused before it starts where its records would be refused after.

The cheap checks come first: the size of the run (bots, seats, sessions, seatings: the
limits of ``solver.limits``) before any record is looked at, then each record against the
run (its deal number once and in range, its dealer, the very hands the seed deals, a play
per bot and seat), then each play against the seat's hand: an arrangement of those cards
whose row values, foul and foul reason are its own (computed again, in one batch), a fault
only where the run could record one, and a natural declared only where the rules have
naturals and the hand holds that very natural, the one it would declare. Every score is then
a function of what passed, computed again, never read.

>>> from dataclasses import replace
>>> from bench.records.model import EXAMPLE_RECORD
>>> from solver.rules import BASIC
>>> run = Run(("greedy", "greedy"), players=2, sessions=1, seed=1, rules=BASIC)
>>> print(records_problem([replace(EXAMPLE_RECORD, dealer=1)], run))
deal 0 names dealer 1, not 0
>>> size_problem(20, 4, 10)  # doctest: +ELLIPSIS
'20 bots at 4-player tables make 116,280 seatings, more than the limit of 100,000 (every deal is replayed ...)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bench.records.deals import HANDS_PER_SESSION, deal_table, dealer_of, seating_count
from bench.records.model import FAULT, FAULT_VALUES, DealRecord, Play, RunPlan
from solver import format_cards
from solver.arrangement import foul_reason
from solver.evaluator import row_values
from solver.limits import LIMITS, ceiling, problem
from solver.naturals import best_natural
from solver.rules import Rules
from solver.scoring import fouls


def size_problem(n_bots: int, players: int, sessions: int) -> str | None:
    """The limit a run exceeds (bots, players, sessions, seatings, plays), or None.

    Counts only: no record is read.

    Args:
        n_bots: How many bots the run has.
        players: How many players sit at a table.
        sessions: How many sessions the run has (8 deals each).

    Returns:
        The first limit of ``solver.limits`` the run exceeds, with the count and why, in one
            line; None when it is within every limit.
    """
    found = problem("bots", n_bots, "the bot count") or problem("players", players, "the player count") or \
        problem("sessions", sessions, "the session count")
    if found:
        return found
    seats = seating_count(n_bots, players)
    if seats > ceiling("seatings"):
        return (f"{n_bots} bots at {players}-player tables make {seats:,} seatings, more than the limit of "
                f"{ceiling('seatings'):,} ({LIMITS['seatings'].reason})")
    plays = n_bots * players * sessions * HANDS_PER_SESSION
    if plays > ceiling("plays"):
        return (f"{sessions:,} sessions of {n_bots} bots at {players}-player tables record {plays:,} plays, more than "
                f"the limit of {ceiling('plays'):,} ({LIMITS['plays'].reason})")
    return None


@dataclass(frozen=True)
class Run:
    """What records are checked against: the run's bots (their names), seats, sessions, seed
    and rules, and its fault policy (None where the record does not say, as a results.json
    written before the policy was stored: its faults are then unproven)."""

    names: tuple[str, ...]
    players: int
    sessions: int
    seed: int
    rules: Rules
    on_fault: str | None = None

    @classmethod
    def of_plan(cls, plan: RunPlan) -> Run:
        """The run a journal's header describes.

        Args:
            plan: The run's settings, as its journal's header holds them.

        Returns:
            The run, its names the plan's bot specs and its rules read from the plan's
                (``Rules.from_dict``).

        Raises:
            RulesError: The plan's rules hold a setting that is unknown or not valid.
        """
        return cls(plan.bots, plan.players, plan.sessions, plan.seed, Rules.from_dict(plan.rules), plan.on_fault)

    @property
    def deals(self) -> int:
        return self.sessions * HANDS_PER_SESSION


def records_problem(records: Sequence[DealRecord], run: Run) -> str | None:
    """What keeps ``records`` from being records of ``run``, or None.

    The cheap checks come first: the size of the run (``size_problem``), then each record
    against the run, then each play against its seat's hand (the module's text lists them).

    Args:
        records: The records, in memory, as ``bench.records.model`` builds them, in any order.
        run: The run they must be records of.

    Returns:
        The first problem found, in one line; None when the records pass every check.
    """
    found = size_problem(len(run.names), run.players, run.sessions)
    if found:
        return found
    if len(records) > run.deals:
        return f"{len(records):,} records, more than the {run.deals:,} deals of {run.sessions:,} sessions"
    dealt: dict[tuple[int, int], str] = {}
    plays: list[tuple[str, int, int, Play]] = []
    found = _records(records, run, dealt, plays)
    return found or _plays(plays, run, dealt)


def _records(records: Sequence[DealRecord], run: Run, dealt: dict[tuple[int, int], str],
             plays: list[tuple[str, int, int, Play]]) -> str | None:
    """Each record against the run: its deal, dealer, hands and the shape of its plays; the
    plays are gathered in ``plays`` and each seat's hand in ``dealt``."""
    seen: set[int] = set()
    for record in records:
        deal = record.deal
        if deal >= run.deals:
            return f"deal {deal} is outside the {run.deals:,} deals of {run.sessions:,} sessions"
        if deal in seen:
            return f"deal {deal} is recorded more than once"
        seen.add(deal)
        if record.dealer != dealer_of(deal, run.players):
            return f"deal {deal} names dealer {record.dealer}, not {dealer_of(deal, run.players)}"
        if len(record.plays) != len(run.names) or any(len(row) != run.players for row in record.plays):
            return f"deal {deal} does not hold one play per bot ({len(run.names)}) and seat ({run.players})"
        if len(record.hands) != run.players or any(len(h.split()) != 13 for h in record.hands):
            return f"deal {deal} holds a hand that is not 13 cards, or not one hand a seat ({run.players} seats)"
        hands = tuple(format_cards(h) for h in deal_table(run.seed, deal, run.players).tolist())
        if record.hands != hands:
            return f"deal {deal} holds other hands than seed {run.seed} deals"
        for seat, hand in enumerate(hands):
            dealt[deal, seat] = hand
        for b, row in enumerate(record.plays):
            for seat, play in enumerate(row):
                plays.append((f"deal {deal}, {run.names[b]!r} in seat {seat}", deal, seat, play))
    return None


def _fault_problem(who: str, play: Play, run: Run) -> str | None:
    """A failed decision: scored as a foul with its error as the reason, under a policy that records faults."""
    if play.arrangement != FAULT or play.values != FAULT_VALUES or play.fault is None or play.foul is not True:
        return f"{who}: a faulted play without the values of a foul or its reason"
    if play.foul_reason != play.fault:
        return f"{who}: a faulted play whose foul_reason is not its fault's text"
    if run.on_fault is not None and run.on_fault != "foul":
        return (f"{who}: a fault that this run cannot have recorded (its fault policy is {run.on_fault!r}: "
                f"a run under it ends at its first fault and records none)")
    return None


def _plays(plays: list[tuple[str, int, int, Play]], run: Run,
           dealt: dict[tuple[int, int], str]) -> str | None:
    """Each play against the seat's hand: its cards, row values, foul, foul reason and natural."""
    card = {name: index for index, name in enumerate(_card_names())}
    rows: list[list[int]] = []
    kept: list[tuple[str, Play]] = []
    for who, deal, seat, play in plays:
        if play.arrangement == FAULT or play.fault is not None:
            found = _fault_problem(who, play, run)
            if found:
                return found
            continue
        text = play.arrangement
        parts = [[card.get(token, -1) for token in part.split(" ")] for part in text.split(" / ")]
        cards = sum(parts, [])
        if [len(part) for part in parts] != [3, 5, 5] or -1 in cards or len(set(cards)) != 13:
            return f"{who}: {text[:60]!r} is not an arrangement of 13 cards"
        if set(cards) != {card[token] for token in dealt[deal, seat].split(" ")}:
            return f"{who}: the arrangement holds cards that were not dealt to that seat"
        found = _natural_problem(who, deal, play, dealt[deal, seat], run)
        if found:
            return found
        rows.append(cards)
        kept.append((who, play))
    if not rows:
        return None
    values = np.stack(row_values(np.array(rows, np.uint8)), axis=1)
    foul = fouls(values)
    for i, (who, play) in enumerate(kept):
        if play.values != tuple(values[i].tolist()):
            return f"{who}: the row values are not those of the arrangement"
        if play.foul != bool(foul[i]):
            return f"{who}: a play marked {'' if play.foul else 'not '}fouled whose rows say otherwise"
        reason = foul_reason(play.arrangement) if foul[i] else None
        if play.foul_reason != reason:
            said = "no foul_reason" if play.foul_reason is None else f"foul_reason {play.foul_reason[:60]!r}"
            return f"{who}: the play gives {said}, but its rows say {reason or 'it does not foul'}"
    return None


def _natural_problem(who: str, deal: int, play: Play, hand: str, run: Run) -> str | None:
    """A declared natural is the one the seat's hand would declare under the run's rules
    (``solver.naturals.best_natural``): its kind and the key that settles ties."""
    natural = play.natural
    if natural is None:
        return None
    if not run.rules.naturals:
        return f"deal {deal} declares a natural, but its rules have none"
    held = best_natural(hand, run.rules)
    if held is None:
        return f"{who}: declares {natural.kind[:40]!r}, but the hand {hand} holds no natural"
    if (natural.kind, tuple(natural.key)) != (held.kind, tuple(held.key)):
        return (f"{who}: declares {natural.kind[:40]!r} (key {list(natural.key)}), but the hand {hand} declares "
                f"{held.kind!r} (key {list(held.key)})")
    return None


def _card_names() -> list[str]:
    return [format_cards([c]) for c in range(52)]
