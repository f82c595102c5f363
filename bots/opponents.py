"""Bots as the solver's opponent model, and solving against a bot named by its spec.

The solver asks an opponent model to set thousands of simulated hands at once
(``solver.opponent``). Any bot can be one: bots with ``arrange_many`` set a batch in one
call, the others hand by hand. By default the opponents are set by ``table`` playing for
the same rules as the solver, royalties and bonuses included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bots.base import Bot, BotError, arrange_many
from bots.exhaustive import DEFAULT_OPPONENT
from bots.registry import make_bot_for, parse_spec
from solver.cards import CardsLike
from solver.errors import SolveError
from solver.opponent import OpponentModel
from solver.rules import Rules, RulesError, as_rules
from solver.solution import Grade, Solution, grade, solve


class BotOpponent:
    """A bot seen as an opponent model: ``arrange_many`` over a batch of hands."""

    def __init__(self, bot: Bot, name: str):
        self.bot = bot
        self.name = name

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return arrange_many(self.bot, hands, rng)

    def __repr__(self) -> str:
        return f"BotOpponent({self.name!r})"


def opponent_model(spec: str | Bot | OpponentModel = DEFAULT_OPPONENT, rules: Rules | str | None = None) -> OpponentModel:
    """The opponent model named by a bot spec, playing for ``rules`` unless the spec names its own.

    >>> opponent_model("table", "1-6").name
    'table:rules=1-6'
    >>> opponent_model("exhaustive")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bots.base.BotError: the exhaustive bot cannot be the opponent model: it would solve every simulated opponent; ...
    """
    played = as_rules(rules)
    if not isinstance(spec, str):
        if callable(getattr(spec, "arrange_many", None)):
            return spec  # type: ignore[return-value]
        if callable(getattr(spec, "arrange", None)):
            return BotOpponent(spec, str(getattr(spec, "name", type(spec).__name__)))  # type: ignore[arg-type]
        raise BotError(f"an opponent must be a bot spec, a bot or an opponent model, got {spec!r}")
    name, params = parse_spec(spec)
    if name == "exhaustive":
        raise BotError("the exhaustive bot cannot be the opponent model: it would solve every simulated opponent; "
                       "choose a fast bot such as table, heuristic or greedy")
    bot = make_bot_for(spec, played)
    label = spec.strip()
    if getattr(bot, "rules", None) is played:  # the rules were filled in: say so
        label += f":rules={played.name}"
    return BotOpponent(bot, label)


def solve_hand(hand: CardsLike, opponent: str | Bot | OpponentModel = DEFAULT_OPPONENT, *,
               rules: Rules | str | None = None, **options: Any) -> Solution:
    """``solver.solve`` against opponents set by a bot named by its spec (``table`` by default,
    playing for the same rules).

    >>> print(solve_hand("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", samples=200, seed=1).arrangement)
    9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS
    """
    try:
        rules = as_rules(rules)
        model = opponent_model(opponent, rules)
    except (BotError, RulesError) as error:
        raise SolveError(str(error)) from None
    return solve(hand, model, rules=rules, **options)


def grade_hand(hand: CardsLike, arrangement: Any, opponent: str | Bot | OpponentModel = DEFAULT_OPPONENT, *,
               rules: Rules | str | None = None, **options: Any) -> Grade:
    """``solver.grade`` against opponents set by a bot named by its spec (``table`` by default,
    playing for the same rules): what a player's own arrangement cost."""
    try:
        rules = as_rules(rules)
        model = opponent_model(opponent, rules)
    except (BotError, RulesError) as error:
        raise SolveError(str(error)) from None
    return grade(hand, arrangement, model, rules=rules, **options)
