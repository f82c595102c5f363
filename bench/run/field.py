"""The field estimator: both bots' plays of the same hand, scored against the same simulated opponents.

A heads-up deal deals two hands. Bot A and bot B each set both (every deal is played in both
seats). For a hand ``h`` and a play ``p`` of it, ``m_F(p; h)`` is what ``p`` wins on average
from an opponent dealt 13 of the 39 cards ``h`` leaves and set by the *field* bot ``F``. A's
edge on the hand is ``m_F(A(h); h) - m_F(B(h); h)``, and a deal's outcome is the mean of its
two hands' edges.

With ``F = B`` the expected outcome is A's expected result against B heads-up, the figure a
duplicate match estimates: ``E_h m_B(A(h); h)`` is it, and ``E_h m_B(B(h); h)`` is 0 (a bot
against itself). ``F = A`` gives the same figure from the other side. Any other field gives
how much more A wins than B from that field.

Both plays face the same ``samples`` opponents (``solver.solution.play_scores``), so a hand
the two bots set with the same row values counts exactly 0, no opponent dealt, and the
opponent's cards and play are averaged over ``samples`` deals instead of one: for bots that
play alike most deals cost nothing and count exactly 0, which is where the estimator gains
most over duplicate results.

Randomness: the opponents of seat ``s``'s hand of deal ``d`` come from
``SeedSequence(entropy, spawn_key=(d, s, FIELD_KEY))``; ``FIELD_KEY`` is ``2**32``, above any
CRC-32 a bot's seat seed carries (``bench.records.deals.seat_seed``), so the two never meet.

Rules with naturals are refused: a declared natural is not a play of three rows, and the
scores here are of rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bench.records.model import DealRecord
from bots import BotError, parse_spec
from bots.registry import playing_as, shared_opponent_model
from solver import config
from solver.errors import InputError
from solver.limits import LimitError, check
from solver.rules import Rules
from solver.sampling import check_memory
from solver.solution import play_scores

FIELD_KEY = 2**32  # the third word of a field seed's spawn key: no CRC-32 reaches it


class FieldError(InputError, ValueError):
    """A field estimator that cannot be used as asked."""


@dataclass(frozen=True)
class FieldPlan:
    """The field estimator of a run: the field bot's spec (as given; it sets the opponents as it
    plays, ``bots.registry.playing_as``) and the simulated opponents a hand."""

    spec: str
    samples: int = config.DEFAULT_SAMPLES

    @property
    def model_spec(self) -> str:
        return playing_as(self.spec)


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
    try:
        check("samples", plan.samples, "--field-samples")
        check_memory(plan.samples)
    except (LimitError, InputError) as error:
        raise FieldError(str(error)) from None
    try:
        name, _ = parse_spec(plan.spec)
    except BotError as error:
        raise FieldError(f"--field {plan.spec!r}: {error}") from None
    if name.startswith("cmd:") or name.endswith(".toml"):
        raise FieldError(f"the field bot {plan.spec!r} runs in another process: it would be asked for "
                         f"{plan.samples:,} opponents a hand; choose a bot of this package as the field")
    try:
        shared_opponent_model(plan.model_spec, rules)
    except BotError as error:
        raise FieldError(f"--field {plan.spec!r} cannot set the simulated opponents: {error}") from None


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


def hand_edges(record: DealRecord, plan: FieldPlan, rules: Rules, entropy: int) -> tuple[float, ...]:
    """A's edge over B on each seat's hand of a heads-up deal, against the field.

    Args:
        record: The deal's record: bot A's plays first (``plays[0]``), bot B's second.
        plan: The field bot and the simulated opponents a hand.
        rules: The run's rules (without naturals).
        entropy: The run's seed entropy.

    Returns:
        For each seat, A's play's mean score against the seat's simulated opponents minus B's;
            exactly 0 where the two plays have the same row values.

    Raises:
        FieldError: The record is not of two bots, or holds a failed decision (a fault has no
            play to score).
        OpponentError: The field bot set a simulated opponent wrongly.
    """
    if len(record.plays) != 2:
        raise FieldError(f"the field estimator compares two bots; deal {record.deal} has {len(record.plays)}")
    model = shared_opponent_model(plan.model_spec, rules)
    edges = []
    for seat, hand in enumerate(record.hands):
        a, b = record.plays[0][seat], record.plays[1][seat]
        if a.faulted or b.faulted:
            raise FieldError(f"deal {record.deal}, seat {seat}: a failed decision has no play for the field "
                             "estimator to score")
        if a.values == b.values:
            edges.append(0.0)
            continue
        scores = play_scores(hand, [a.arrangement, b.arrangement], model, samples=plan.samples,
                             seed=field_seed(entropy, record.deal, seat), rules=rules)
        edges.append(float(np.mean(scores[0] - scores[1])))
    return tuple(edges)


def scored(record: DealRecord, plan: FieldPlan, rules: Rules, entropy: int) -> DealRecord:
    """The record with its field edges (``hand_edges``) in ``field``.

    Args:
        record: A heads-up deal's record.
        plan: The field bot and the simulated opponents a hand.
        rules: The run's rules (without naturals).
        entropy: The run's seed entropy.

    Returns:
        The same record, ``field`` set to A's edge on each seat's hand.

    Raises:
        FieldError: As ``hand_edges``.
        OpponentError: As ``hand_edges``.
    """
    return replace(record, field=hand_edges(record, plan, rules, entropy))


def deal_outcome(record: DealRecord) -> float:
    """A deal's field outcome: A's edge averaged over its hands.

    Args:
        record: A record scored by ``scored``.

    Returns:
        The mean of ``record.field``.

    Raises:
        FieldError: The record was not scored.
    """
    if not record.field:
        raise FieldError(f"deal {record.deal} has no field edges")
    return sum(record.field) / len(record.field)
