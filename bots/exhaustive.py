"""The ``exhaustive`` bot: the solver as a player."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from bots.base import takes_cards
from bots.table import rules_of
from solver import Arrangement, Card
from solver.opponent import OpponentModel
from solver.rules import Rules
from solver.solution import DEFAULT_SAMPLES, Solution, solve

DEFAULT_OPPONENT = "table"


@functools.cache
def _model(opponent: str, rules: Rules) -> OpponentModel:
    from bots.opponents import opponent_model  # the registry, which lists this bot, builds the model

    return opponent_model(opponent, rules)


@dataclass(frozen=True)
class ExhaustiveBot:
    """Every legal split scored by Monte Carlo against simulated opponents; the best is played.

    Strategy: ``solver.solve`` with ``samples`` opponents dealt from the other 39 cards
    and set by the ``opponent`` bot; the split with the highest expected score wins.
    Cost: about ``samples`` opponent arrangements per hand (milliseconds to tens of
    milliseconds). Never fouls: fouled splits are never candidates. ``rules`` names the
    rule set it plays for (``solver.rules``); its opponents play for the same rules, and
    with naturals on it declares one when the solver says declaring is worth more than
    playing.
    """

    name: ClassVar[str] = "exhaustive"
    samples: int = DEFAULT_SAMPLES
    opponent: str = DEFAULT_OPPONENT
    rules: Rules | str = "basic"

    def __post_init__(self) -> None:
        if isinstance(self.samples, bool) or not isinstance(self.samples, int) or self.samples < 1:
            raise ValueError(f"samples must be a positive whole number, got {self.samples!r}")
        _model(self.opponent, rules_of(self.rules))  # an unknown rule set or opponent fails when the bot is made

    def _solve(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Solution:
        rules = rules_of(self.rules)
        seed = int(rng.integers(2**63 - 1))
        return solve(cards, _model(self.opponent, rules), samples=self.samples, seed=seed, top=0, rules=rules)

    @takes_cards
    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        return self._solve(cards, rng).arrangement

    def declare(self, cards: tuple[Card, ...], rng: np.random.Generator) -> bool:
        """Declare a natural when, by the solver, it is worth more than the best arrangement."""
        return self._solve(cards, rng).declare
