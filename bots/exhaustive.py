"""The ``exhaustive`` bot: the solver as a player."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from typing import ClassVar

import numpy as np

from bots.base import BotError, takes_cards
from bots.table import rules_of
from solver import Arrangement, Card, config
from solver.limits import check
from solver.opponent import OpponentModel
from solver.rules import Rules
from solver.sampling import check_memory
from solver.solution import Solution, solve

OpponentModels = Callable[[str, Rules], OpponentModel]  # (bot spec, rules) -> the model of that bot


@dataclass(frozen=True)
class ExhaustiveBot:
    """Every legal split scored by Monte Carlo against simulated opponents; the best is played.

    Strategy: ``solver.solve`` with ``samples`` opponents dealt from the other 39 cards
    and set by the ``opponent`` bot; the split with the highest expected score wins.
    Cost: about ``samples`` opponent arrangements per hand (milliseconds to tens of
    milliseconds). Never fouls: fouled splits are never candidates. ``rules`` names the
    rule set it plays for (``solver.rules``); its opponents play for the same rules, and
    with naturals on it declares one when the solver says declaring is worth more than
    playing. ``opponent_models`` turns the ``opponent`` spec into a model: the registry
    (``bots.make_bot("exhaustive")``) gives its own, which can make any bot it lists.
    """

    name: ClassVar[str] = "exhaustive"
    samples: int = config.DEFAULT_SAMPLES
    opponent: str = config.DEFAULT_OPPONENT
    rules: Rules | str = "basic"
    opponent_models: InitVar[OpponentModels | None] = None
    _models: OpponentModels = field(init=False, repr=False, compare=False)

    def __post_init__(self, opponent_models: OpponentModels | None) -> None:
        if isinstance(self.samples, bool) or not isinstance(self.samples, int) or self.samples < 1:
            raise ValueError(f"samples must be a positive whole number, got {self.samples!r}")

        check("samples", self.samples)  # when the bot is made, not as its fault at the first hand
        check_memory(self.samples)
        if opponent_models is None:
            raise BotError("the exhaustive bot needs opponent_models to make its opponent; "
                           "make it with bots.make_bot('exhaustive')")
        object.__setattr__(self, "_models", opponent_models)
        self._model(rules_of(self.rules))  # an unknown rule set or opponent fails when the bot is made

    def _model(self, rules: Rules) -> OpponentModel:
        return self._models(self.opponent, rules)

    def _solve(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Solution:
        rules = rules_of(self.rules)
        seed = int(rng.integers(2**63 - 1))
        return solve(cards, self._model(rules), samples=self.samples, seed=seed, top=0, rules=rules)

    @takes_cards
    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        """The split with the highest expected score against ``samples`` simulated opponents.

        Args:
            cards: The 13 cards dealt; as text or any sequence of cards too (``takes_cards``).
            rng: The generator the seed of the solver's sample is drawn from, or None for one seeded 0.

        Returns:
            The solver's best arrangement (``solver.solve``).
        """
        return self._solve(cards, rng).arrangement

    @takes_cards
    def declare(self, cards: tuple[Card, ...], rng: np.random.Generator) -> bool:
        """Declare a natural when, by the solver, it is worth more than the best arrangement.

        Args:
            cards: The 13 cards dealt; as text or any sequence of cards too (``takes_cards``).
            rng: The generator the seed of the solver's sample is drawn from, or None for one seeded 0.

        Returns:
            The solver's ``declare`` for the hand: True to declare the natural.
        """
        return self._solve(cards, rng).declare
