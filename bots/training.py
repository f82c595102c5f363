"""Training the ``table`` bot by self-play (fictitious play).

Round 0 measures how a starting strategy (``heuristic``) sets its rows: the field.
Each round then deals fresh hands, sets them with the best response to the field (the
``table`` strategy on the field's tables), and blends what it measured into the field
with weight ``1 / (round + 1)``, so the field is the average of every strategy played so
far. The strategy stops changing when few hands of a fixed check set change their
arrangement from one round to the next.

Everything is drawn from ``SeedSequence(seed)``: round r's hands from
``spawn_key=(r,)``, the check set from ``spawn_key=(10**6,)``. Work is split into a
fixed number of chunks, so the tables do not depend on the number of workers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bots.table import FieldTables, play_tables
from solver.rules import BASIC, Rules, as_rules

CHUNKS = 16
CHECK_KEY = 10**6


def training_hands(n: int, seed: np.random.SeedSequence) -> np.ndarray:
    """``n`` random 13-card hands; each shuffled deck gives four (card removal within a deal)."""
    rng = np.random.default_rng(seed)
    decks = np.argsort(rng.random(((n + 3) // 4, 52)), axis=1).astype(np.uint8)
    return np.ascontiguousarray(decks.reshape(-1, 13)[:n])


def _arrange(hands: np.ndarray, policy, rules: Rules, jobs: int) -> np.ndarray:
    chunks = np.array_split(hands, CHUNKS)
    if jobs == 1:
        parts = [play_tables(c, policy, rules) for c in chunks]
    else:
        import joblib

        parts = joblib.Parallel(n_jobs=jobs, backend="threading")(
            joblib.delayed(play_tables)(c, policy, rules) for c in chunks
        )  # the kernels release the GIL (nogil), so threads run them in parallel
    return np.concatenate(parts)


@dataclass(frozen=True)
class RoundReport:
    round: int
    changed: float  # share of the check set whose arrangement changed this round
    points_change: float  # largest change of a middle row's expected score since the last round (nan in round 1)


def train(
    hands: int = 200_000,
    rounds: int = 24,
    seed: int = 0,
    check_hands: int = 10_000,
    jobs: int = 1,
    on_round: Callable[[RoundReport], None] | None = None,
    rules: Rules | str | None = None,
) -> tuple[FieldTables, list[RoundReport]]:
    """Tables for the ``table`` bot by ``rounds`` rounds of fictitious play under ``rules``
    (its scoring method; basic by default)."""
    rules = as_rules(rules)
    if hands < 1 or rounds < 0 or check_hands < 1:
        raise ValueError("hands and check_hands must be positive and rounds at least 0")
    from bots.heuristic import heuristic_points

    root = np.random.SeedSequence(seed)
    check = training_hands(check_hands, np.random.SeedSequence(root.entropy, spawn_key=(CHECK_KEY,)))
    start = heuristic_points()
    first = training_hands(hands, np.random.SeedSequence(root.entropy, spawn_key=(0,)))
    field = FieldTables.from_arranged(_arrange(first, start, BASIC, jobs))
    previous = _arrange(check, start, BASIC, jobs)
    previous_points = None
    reports = []
    for r in range(1, rounds + 1):
        policy = field.policy(rules)
        points = field.points()
        dealt = training_hands(hands, np.random.SeedSequence(root.entropy, spawn_key=(r,)))
        response = FieldTables.from_arranged(_arrange(dealt, policy, rules, jobs))
        field = field.blend(response, 1.0 / (r + 1))
        current = _arrange(check, policy, rules, jobs)
        moved = float(np.mean(np.any(current != previous, axis=1)))
        delta = float("nan")
        if previous_points is not None:
            finite = np.isfinite(points.middle)
            delta = float(np.max(np.abs(points.middle[finite] - previous_points.middle[finite])))
        report = RoundReport(round=r, changed=moved, points_change=delta)
        reports.append(report)
        if on_round is not None:
            on_round(report)
        previous, previous_points = current, points
    info = {
        "method": "fictitious play from heuristic, field blended with weight 1/(round+1)",
        "rules": rules.name,
        "hands_per_round": hands,
        "rounds": rounds,
        "seed": seed,
        "check_hands": check_hands,
        "changed_last_round": reports[-1].changed if reports else None,
    }
    return FieldTables(field.front, field.middle, field.back, info=info), reports
