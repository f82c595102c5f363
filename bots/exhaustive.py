"""The ``exhaustive`` bot: the solver as a player."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from solver import Arrangement, Card
from solver.rules import Rules
from solver.solution import DEFAULT_OPPONENT, DEFAULT_SAMPLES, solve


@dataclass(frozen=True)
class ExhaustiveBot:
    """Every legal split scored by Monte Carlo against simulated opponents; the best is played.

    Strategy: ``solver.solve`` with ``samples`` opponents dealt from the other 39 cards
    and set by the ``opponent`` bot; the split with the highest expected score wins.
    Cost: about ``samples`` opponent arrangements per hand (milliseconds to tens of
    milliseconds). Never fouls: fouled splits are never candidates. ``rules`` names the
    rule set it plays for (``solver.rules``); with naturals on, it declares one when the
    solver says declaring is worth more than playing.
    """

    name: ClassVar[str] = "exhaustive"
    samples: int = DEFAULT_SAMPLES
    opponent: str = DEFAULT_OPPONENT
    rules: str = "basic"

    def __post_init__(self) -> None:
        if isinstance(self.samples, bool) or not isinstance(self.samples, int) or self.samples < 1:
            raise ValueError(f"samples must be a positive whole number, got {self.samples!r}")
        Rules.parse(self.rules)  # an unknown rule set fails when the bot is made

    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        seed = int(rng.integers(2**63 - 1))
        return solve(cards, samples=self.samples, seed=seed, opponent=self.opponent, top=0, rules=self.rules).arrangement

    def declare(self, cards: tuple[Card, ...], rng: np.random.Generator) -> bool:
        """Declare a natural when, by the solver, it is worth more than the best arrangement."""
        seed = int(rng.integers(2**63 - 1))
        solution = solve(cards, samples=self.samples, seed=seed, opponent=self.opponent, top=0, rules=self.rules)
        return solution.declare
