"""Closed 13-card Chinese Poker: cards, rows, arrangements, scoring and splits.

The public API is friendly Python (cards as strings or :class:`Card`, frozen
dataclasses); the hot paths are Numba kernels in the private ``solver._*`` modules,
which take and return plain integer arrays (``solver.kernels`` names the building
blocks other layers compile into kernels of their own). The solver imports nothing
from ``bots`` or ``bench``: layers import one way, ``solver`` <- ``bots`` <- ``bench``.
"""

from solver.arrangement import ROWS, Arrangement, as_arrangement, foul_reason, is_foul
from solver.cards import (
    Card,
    CardCountError,
    CardError,
    DuplicateCardError,
    UnknownCardError,
    deck,
    format_cards,
    parse_card,
    parse_cards,
    parse_hand,
)
from solver.classes import row_classes
from solver.errors import OpponentError, SolveError
from solver.evaluator import (
    CATEGORY_NAMES,
    category,
    category_name,
    describe,
    describe_value,
    evaluate,
    evaluate_many,
    row_values,
)
from solver.opponent import OpponentModel
from solver.rules import Rules, RulesError
from solver.scoring import row_results, score_pair, score_table, settle_values
from solver.solution import DECLARE, Alternative, Grade, RowResult, Solution, grade, solve
from solver.splits import N_SPLITS, Splits, all_splits, count_legal, split_arrangement, split_tables
from solver.statistics import Estimate

__all__ = [
    "CATEGORY_NAMES", "DECLARE", "N_SPLITS", "ROWS", "Alternative", "Arrangement", "Estimate", "Grade", "grade", "OpponentError",
    "OpponentModel",
    "RowResult", "Rules", "RulesError", "Solution", "SolveError", "settle_values", "solve", "Card", "CardCountError", "CardError",
    "DuplicateCardError", "Splits", "UnknownCardError", "all_splits", "as_arrangement", "category",
    "category_name", "count_legal", "deck", "describe", "describe_value", "evaluate", "evaluate_many",
    "format_cards", "foul_reason", "is_foul", "parse_card", "parse_cards", "parse_hand", "row_classes", "row_results",
    "row_values",
    "score_pair", "score_table", "split_arrangement", "split_tables",
]  # fmt: skip
