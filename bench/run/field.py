"""The field estimator: every bot's play of the same hand, scored against the same simulated opponents.

Every bot of a run sets every seat's hand of a deal. For a hand ``h`` and a play ``p`` of it,
``m_F(p; h)`` is what ``p`` wins on average from an opponent dealt 13 of the 39 cards ``h``
leaves and set by the *field* bot ``F``. Bot A's edge over bot B on the hand is
``m_F(A(h); h) - m_F(B(h); h)``, and on a deal the mean of that over its hands.

Heads-up (``bench match``), with ``F = B`` the expected edge is A's expected result against B,
the figure a duplicate match estimates: ``E_h m_B(A(h); h)`` is it, and ``E_h m_B(B(h); h)``
is 0 (a bot against itself). ``F = A`` gives the same figure from the other side. Any other
field gives how much more A wins than B from that field.

At a table of ``P`` players (``bench tournament``), a play faces ``P - 1`` opponents dealt
together from the same 39 cards; but every rule set the estimator takes settles each pairing
on its own, and each opponent's hand is alone a uniform 13 of the 39, so by linearity the
play's expected score against them is ``P - 1`` times ``m_F`` (as ``solve`` scores a split).
The edges are kept against one opponent and scaled by ``P - 1`` where a table's figure is given.

Every play of a seat's hand faces the same ``samples`` opponents
(``solver.solution.play_scores``), so a play with the same row values as another counts
exactly the same, no opponent dealt for it, and the opponent's cards and play are averaged
over ``samples`` deals instead of one: for bots that play alike most deals cost nothing and
count exactly 0, which is where the estimator gains most over duplicate results.

Randomness: the opponents of seat ``s``'s hand of deal ``d`` come from
``SeedSequence(entropy, spawn_key=(d, s, FIELD_KEY))``; ``FIELD_KEY`` is ``2**32``, above any
CRC-32 a bot's seat seed carries (``bench.records.deals.seat_seed``), so the two never meet.

Rules with naturals are refused: a declared natural is not a play of three rows, and the
scores here are of rows.
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np

from bench.records.model import DealRecord, FieldPlan
from bots import BotError, parse_spec
from bots.registry import BUILT_IN, outside_code, shared_opponent_model
from solver.arrangement import Arrangement
from solver.errors import BotFault, InputError
from solver.limits import LimitError, check
from solver.rules import Rules
from solver.sampling import check_memory
from solver.solution import play_scores

FIELD_KEY = 2**32  # the third word of a field seed's spawn key: no CRC-32 reaches it


class FieldError(InputError, ValueError):
    """A field estimator that cannot be used as asked."""


def check_plan(plan: FieldPlan, rules: Rules) -> None:
    """Refuse, before any deal, a field estimator that cannot run.

    Args:
        plan: The field bot and the simulated opponents a hand.
        rules: The run's rules.

    Raises:
        FieldError: The rules have naturals, the sample count is outside its limit or does not
            fit in memory, or the field bot cannot set simulated opponents (a protocol bot, the
            exhaustive bot, or a spec that makes no bot).
    """
    check_rules(rules)
    check_samples(plan.samples)
    try:
        name, _ = parse_spec(plan.spec)
    except BotError as error:
        raise FieldError(f"--field {plan.spec!r}: {error}") from None
    if name.startswith("cmd:") or name.endswith(".toml"):
        raise FieldError(f"the field bot {plan.spec!r} runs in another process: it would be asked for "
                         f"{plan.samples:,} opponents a hand; choose a bot of this package as the field")
    try:
        shared_opponent_model(plan.model_spec, rules)
    except (BotError, BotFault) as error:  # a fault too: the batch check sets hands with it
        raise FieldError(f"the field bot {plan.spec!r} cannot set the simulated opponents: {error}") from None


SPEC_CHARACTERS = 1000  # the longest field spec a document holds (results.schema.json)


def check_samples(samples: int) -> None:
    """Refuse a number of simulated opponents a hand outside its limit or the memory left.

    Args:
        samples: The simulated opponents a hand.

    Raises:
        FieldError: The count is outside the limit ``samples`` or does not fit in memory.
    """
    try:
        check("samples", samples, "--field-samples")
        check_memory(samples)
    except (LimitError, InputError) as error:
        raise FieldError(str(error)) from None


def field_problem(plan: FieldPlan, rules: Rules, bots: int) -> str | None:
    """Why ``plan`` cannot be a tournament's field estimator, in one line, or None.

    ``bench report`` and ``bench verify`` make the field bot again, from the document, to check
    the figures, so it must be one of this package's (no other code is loaded from a document)
    and read no file of its own (none is recorded); the run must have two bots or more, and
    the plan must pass ``check_plan``.

    Args:
        plan: The field bot and the simulated opponents a hand.
        rules: The run's rules.
        bots: How many bots the run has.

    Returns:
        The problem, or None when the plan can run.
    """
    if bots < 2:
        return "the field estimator measures bots against each other: a run of it needs two bots or more"
    if len(plan.spec) > SPEC_CHARACTERS:
        return f"--field is {len(plan.spec):,} characters long, above the {SPEC_CHARACTERS:,} a results.json holds"
    try:
        name, params = parse_spec(plan.spec)
        outside = outside_code(plan.spec)
    except BotError as error:
        return f"--field {plan.spec!r}: {error}"
    if name in BUILT_IN and outside is not None:
        return (f"the field bot {plan.spec!r} makes {outside!r}, which is not a bot of this package: the field's "
                "figures are checked again by making it, and only this package's bots are made from a document")
    if name not in BUILT_IN:
        return (f"the field bot {plan.spec!r} is not a bot of this package ({', '.join(sorted(BUILT_IN))}): the "
                "field's figures are checked again by making it, and only those bots are made from a document")
    for key, value in params.items():
        text = str(value).strip() if isinstance(value, str) else ""
        if text and any(os.path.isfile(part) for part in (text, *text.split("+")) if part):
            return (f"the field bot {plan.spec!r} reads the file {text!r} ({key}=): the field's figures are checked "
                    "again from the document, which records no file; use a field bot that reads only this "
                    "package's files")
    try:
        check_plan(plan, rules)
    except FieldError as error:
        return str(error)
    return None


def check_rules(rules: Rules) -> None:
    """Refuse rules with naturals: a natural is declared instead of a play of three rows.

    Args:
        rules: The run's rules.

    Raises:
        FieldError: The rules have naturals.
    """
    if rules.naturals:
        raise FieldError("the field estimator scores plays of three rows, and a natural is declared instead of "
                         "them: under rules with naturals use --estimator duplicate")


def field_seed(entropy: int, deal: int, seat: int) -> int:
    """The seed of the simulated opponents of seat ``seat``'s hand of deal ``deal``.

    Args:
        entropy: The run's seed entropy.
        deal: The deal's number.
        seat: The seat whose hand the opponents are dealt against.

    Returns:
        A whole number >= 0 drawn from ``SeedSequence(entropy, spawn_key=(deal, seat, FIELD_KEY))``.
    """
    sequence = np.random.SeedSequence(entropy, spawn_key=(deal, seat, FIELD_KEY))
    return int(sequence.generate_state(1, np.uint64)[0])


def seat_scores(record: DealRecord, plan: FieldPlan, rules: Rules, entropy: int) -> tuple[tuple[float, ...], ...]:
    """Each bot's play of each seat's hand against the field, less the first bot's play.

    Every play of a seat's hand faces the same ``plan.samples`` opponents (``field_seed``), so
    the differences are paired; a play with the same row values as the first bot's is exactly
    0 with no opponent dealt, and a seat's hand that every bot sets alike costs nothing.

    Args:
        record: The deal's record (``plays[bot][seat]``).
        plan: The field bot and the simulated opponents a hand.
        rules: The run's rules (without naturals).
        entropy: The run's seed entropy.

    Returns:
        ``scores[bot][seat]``: the bot's play's mean units against one of the seat's simulated
            opponents, less the first bot's play's (so ``scores[0]`` is all 0).

    Raises:
        FieldError: The record holds a failed decision (a fault has no play to score).
        OpponentError: The field bot set a simulated opponent wrongly.
    """
    model = shared_opponent_model(plan.model_spec, rules)
    seats = len(record.hands)
    scores = [[0.0] * seats for _ in record.plays]
    for seat, hand in enumerate(record.hands):
        plays = [row[seat] for row in record.plays]
        if any(play.faulted for play in plays):
            raise FieldError(f"deal {record.deal}, seat {seat}: a failed decision has no play for the field "
                             "estimator to score")
        distinct: dict[tuple[int, ...], int] = {}  # row values -> index among the scored plays
        arrangements: list[Arrangement | str] = []
        for play in plays:
            if play.values not in distinct:
                distinct[play.values] = len(arrangements)
                arrangements.append(play.arrangement)
        if len(arrangements) == 1:
            continue
        played = play_scores(hand, arrangements, model,
                             samples=plan.samples, seed=field_seed(entropy, record.deal, seat), rules=rules)
        for bot, play in enumerate(plays):
            index = distinct[play.values]
            if index:
                scores[bot][seat] = float(np.mean(played[index] - played[0]))
    return tuple(tuple(row) for row in scores)


def scored(record: DealRecord, plan: FieldPlan, rules: Rules, entropy: int) -> DealRecord:
    """The record with its field scores (``seat_scores``) in ``field``.

    Args:
        record: A deal's record.
        plan: The field bot and the simulated opponents a hand.
        rules: The run's rules (without naturals).
        entropy: The run's seed entropy.

    Returns:
        The same record, ``field`` set to ``seat_scores``.

    Raises:
        FieldError: As ``seat_scores``.
        OpponentError: As ``seat_scores``.
    """
    return replace(record, field=seat_scores(record, plan, rules, entropy))


def deal_outcome(record: DealRecord, a: int = 0, b: int = 1) -> float:
    """A deal's field outcome: bot ``a``'s edge over bot ``b``, averaged over the deal's hands,
    in units against one opponent.

    Args:
        record: A record scored by ``scored``.
        a: The bot whose edge it is (its index in the record's plays).
        b: The bot it is measured against.

    Returns:
        The mean over seats of ``record.field[a][seat] - record.field[b][seat]``.

    Raises:
        FieldError: The record was not scored.
    """
    if not record.field:
        raise FieldError(f"deal {record.deal} has no field scores")
    mine, theirs = record.field[a], record.field[b]
    return sum(x - y for x, y in zip(mine, theirs)) / len(mine)
