"""Bots: strategies that arrange 13 cards, behind one small protocol.

>>> from bots import make_bot
>>> import numpy as np
>>> str(make_bot("greedy").arrange(parse_hand("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"), np.random.default_rng(0)))
'9D 4S 2C / 9H 8C 7C 6D 5H / AS KS QS JS TS'
"""

from bots.base import Bot, BotError, BotFault, arrange_many, arrangement_from_row, checked_arrangement, describe_bot
from bots.opponents import grade_hand, solve_hand
from bots.points import RowPoints
from bots.registry import (
    BOTS,
    ENTRY_POINT_GROUP,
    BotOpponent,
    bot_names,
    bot_parameters,
    bot_spec,
    make_bot,
    make_bot_for,
    opponent_model,
    parse_spec,
    resolve_factory,
)
from bots.table import FieldTables, shipped_tables
from bots.training import train, training_hands
from solver import parse_hand  # noqa: F401  (used by the doctest above)

__all__ = [
    "BOTS", "ENTRY_POINT_GROUP", "Bot", "BotError", "BotFault", "BotOpponent", "RowPoints", "arrange_many",
    "arrangement_from_row", "bot_names", "bot_parameters", "bot_spec", "checked_arrangement", "describe_bot",
    "FieldTables", "grade_hand", "make_bot", "make_bot_for", "opponent_model", "parse_spec", "resolve_factory", "shipped_tables",
    "solve_hand", "train", "training_hands",
]  # fmt: skip
