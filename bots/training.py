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

import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

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


@dataclass
class TrainingState:
    """Where training stands after a round: enough to continue to the same tables.

    ``field`` is the blended field so far, ``previous`` the check hands as last set, and
    ``previous_middle`` the middle points of the round before (for the change report)."""

    settings: dict[str, Any]  # hands, rounds, seed, check_hands, rules (its name)
    round: int
    field: FieldTables
    previous: np.ndarray
    previous_middle: np.ndarray | None
    reports: list[RoundReport]

    def save(self, path: str | Path) -> None:
        """Write the state to ``path`` (an .npz file), replacing it whole or not at all."""
        path = Path(path)
        temporary = path.with_name(path.name + ".tmp.npz")
        np.savez(temporary, front=self.field.front, middle=self.field.middle, back=self.field.back,
                 previous=self.previous,
                 previous_middle=self.previous_middle if self.previous_middle is not None else np.zeros(0),
                 meta=np.array(json.dumps({"settings": self.settings, "round": self.round,
                                           "has_previous_middle": self.previous_middle is not None,
                                           "reports": [asdict(r) for r in self.reports]})))
        os.replace(temporary, path)

    @classmethod
    def load(cls, path: str | Path) -> TrainingState:
        """A state written by :meth:`save`; ``ValueError`` when the file is not one."""
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                field = FieldTables(data["front"].copy(), data["middle"].copy(), data["back"].copy())
                previous = data["previous"].copy()
                previous_middle = data["previous_middle"].copy() if meta["has_previous_middle"] else None
            reports = [RoundReport(**r) for r in meta["reports"]]
            return cls(meta["settings"], int(meta["round"]), field, previous, previous_middle, reports)
        except OSError as error:
            raise ValueError(f"cannot read training checkpoint {str(path)!r}: {error.strerror or error}") from None
        except Exception as error:  # zipfile, numpy and json each have their errors
            raise ValueError(f"{str(path)!r} is not a training checkpoint ({type(error).__name__}: {error})") from None


def train(
    hands: int = 200_000,
    rounds: int = 24,
    seed: int = 0,
    check_hands: int = 10_000,
    jobs: int = 1,
    on_round: Callable[[RoundReport], None] | None = None,
    rules: Rules | str | None = None,
    checkpoint: Callable[[TrainingState], None] | None = None,
    resume: TrainingState | None = None,
) -> tuple[FieldTables, list[RoundReport]]:
    """Tables for the ``table`` bot by ``rounds`` rounds of fictitious play under ``rules``
    (its scoring method; basic by default).

    ``checkpoint`` is handed the state after every round; ``resume`` continues from such a
    state (its settings win over the arguments), and the tables are then the same as those
    of an uninterrupted run."""
    rules = as_rules(rules)
    settings: dict[str, Any] = {"hands": hands, "rounds": rounds, "seed": seed, "check_hands": check_hands,
                                "rules": rules.name}
    if resume is not None:
        settings = dict(resume.settings)
        hands, rounds, seed, check_hands = (int(settings[k]) for k in ("hands", "rounds", "seed", "check_hands"))
        rules = as_rules(str(settings["rules"]))
    if hands < 1 or rounds < 0 or check_hands < 1:
        raise ValueError("hands and check_hands must be positive and rounds at least 0")
    from bots.heuristic import heuristic_points

    root = np.random.SeedSequence(seed)
    check = training_hands(check_hands, np.random.SeedSequence(root.entropy, spawn_key=(CHECK_KEY,)))
    if resume is None:
        start = heuristic_points()
        first = training_hands(hands, np.random.SeedSequence(root.entropy, spawn_key=(0,)))
        field = FieldTables.from_arranged(_arrange(first, start, BASIC, jobs))
        previous = _arrange(check, start, BASIC, jobs)
        previous_middle: np.ndarray | None = None
        reports: list[RoundReport] = []
        done = 0
    else:
        field, previous, previous_middle = resume.field, resume.previous, resume.previous_middle
        reports, done = list(resume.reports), resume.round
    for r in range(done + 1, rounds + 1):
        policy = field.policy(rules)
        points = field.points()
        dealt = training_hands(hands, np.random.SeedSequence(root.entropy, spawn_key=(r,)))
        response = FieldTables.from_arranged(_arrange(dealt, policy, rules, jobs))
        field = field.blend(response, 1.0 / (r + 1))
        current = _arrange(check, policy, rules, jobs)
        moved = float(np.mean(np.any(current != previous, axis=1)))
        delta = float("nan")
        if previous_middle is not None:
            finite = np.isfinite(points.middle)
            delta = float(np.max(np.abs(points.middle[finite] - previous_middle[finite])))
        report = RoundReport(round=r, changed=moved, points_change=delta)
        reports.append(report)
        previous, previous_middle = current, np.asarray(points.middle)
        if checkpoint is not None:
            checkpoint(TrainingState(settings, r, field, previous, previous_middle, list(reports)))
        if on_round is not None:
            on_round(report)
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
