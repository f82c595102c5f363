"""Solving and grading against a bot named by its spec.

The solver asks an opponent model to set thousands of simulated hands at once
(``solver.opponent``). Any bot can be one (``bots.registry.opponent_model``): bots with
``arrange_many`` set a batch in one call, the others hand by hand. By default the opponents
are set by ``table`` playing for the same rules as the solver, royalties and bonuses included.
"""

from __future__ import annotations

from typing import Any

from bots.base import Bot, BotError
from bots.registry import opponent_model
from solver import config
from solver.cards import CardsLike
from solver.errors import SolveError
from solver.opponent import OpponentModel
from solver.rules import Rules, RulesError, as_rules
from solver.solution import Grade, Solution, grade, solve


def solve_hand(hand: CardsLike, opponent: str | Bot | OpponentModel = config.DEFAULT_OPPONENT, *,
               rules: Rules | str | None = None, **options: Any) -> Solution:
    """``solver.solve`` against opponents set by a bot named by its spec (``table`` by default,
    playing for the same rules).

    Args:
        hand: The 13 cards, as text or a sequence of cards.
        opponent: The bot that sets every sampled opponent: a spec, a bot, or an opponent
            model (``bots.registry.opponent_model``).
        rules: The rule set (``solver.rules``), by name or as ``Rules``; basic by default.
        **options: The other keyword arguments of ``solver.solve`` (``samples``, ``seed``, ...).

    Returns:
        The solver's ``Solution``.

    Raises:
        SolveError: The rule set or the opponent is not valid, or ``solver.solve`` refuses
            the hand or a setting.

    Examples:
        >>> print(solve_hand("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", samples=200, seed=1).arrangement)
        9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS
    """
    try:
        rules = as_rules(rules)
        model = opponent_model(opponent, rules)
    except (BotError, RulesError) as error:
        raise SolveError(str(error)) from None
    return solve(hand, model, rules=rules, **options)


def grade_hand(hand: CardsLike, arrangement: Any, opponent: str | Bot | OpponentModel = config.DEFAULT_OPPONENT, *,
               rules: Rules | str | None = None, **options: Any) -> Grade:
    """``solver.grade`` against opponents set by a bot named by its spec (``table`` by default,
    playing for the same rules): what a player's own arrangement cost.

    Args:
        hand: The 13 cards, as text or a sequence of cards.
        arrangement: The player's arrangement of ``hand``, an Arrangement or its text; a fouled
            one is graded as the foul it is.
        opponent: The bot that sets every sampled opponent: a spec, a bot, or an opponent
            model (``bots.registry.opponent_model``).
        rules: The rule set (``solver.rules``), by name or as ``Rules``; basic by default.
        **options: The other keyword arguments of ``solver.grade`` (``samples``, ``seed``, ...).

    Returns:
        The solver's ``Grade`` of the arrangement.

    Raises:
        SolveError: The rule set or the opponent is not valid, or ``solver.grade`` refuses
            the hand, the arrangement or a setting.
    """
    try:
        rules = as_rules(rules)
        model = opponent_model(opponent, rules)
    except (BotError, RulesError) as error:
        raise SolveError(str(error)) from None
    return grade(hand, arrangement, model, rules=rules, **options)
