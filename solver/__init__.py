"""Closed 13-card Chinese Poker: cards, rows, arrangements, scoring and splits.

The public API is friendly Python (cards as strings or :class:`Card`, frozen
dataclasses); the hot paths are Numba kernels in the private ``solver._*`` modules,
which take and return plain integer arrays.
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
from solver.evaluator import CATEGORY_NAMES, category, category_name, describe, describe_value, evaluate, evaluate_many
from solver.scoring import row_results, score_pair, score_table
from solver.solution import Alternative, RowResult, Solution, SolveError, solve
from solver.splits import N_SPLITS, Splits, all_splits, count_legal, split_arrangement, split_tables

__all__ = [
    "CATEGORY_NAMES", "N_SPLITS", "ROWS", "Alternative", "Arrangement", "RowResult", "Solution", "SolveError",
    "solve", "Card", "CardCountError", "CardError",
    "DuplicateCardError", "Splits", "UnknownCardError", "all_splits", "as_arrangement", "category",
    "category_name", "count_legal", "deck", "describe", "describe_value", "evaluate", "evaluate_many",
    "format_cards", "foul_reason", "is_foul", "parse_card", "parse_cards", "parse_hand", "row_results",
    "score_pair", "score_table", "split_arrangement", "split_tables",
]  # fmt: skip
