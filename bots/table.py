"""The ``table`` bot: per-row win probabilities against a field, trained by self-play."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from bots.base import BotError, arrangement_from_row, play_points
from solver import Arrangement, Card, evaluate_many
from solver.classes import RowPoints, row_classes
from solver.rules import BASIC, Rules
from solver.scoring import royalty_array

ROWS = ("front", "middle", "back")


@dataclass(frozen=True)
class FieldTables:
    """How a field sets its rows: the share of each row class (``solver.classes``) per row.

    From these follow, for any row value, the chance of beating, tying or losing to
    the field's row in the same position, which is all basic scoring needs."""

    front: np.ndarray  # (7917,) shares, summing to 1
    middle: np.ndarray
    back: np.ndarray
    info: dict[str, Any] = field(default_factory=dict, compare=False)

    def shares(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (self.front, self.middle, self.back)

    def win_tie(self) -> tuple[np.ndarray, np.ndarray]:
        """(3, 7917) chance that a row of each class beats / ties the field's row."""
        shares = np.stack(self.shares())
        below = np.cumsum(shares, axis=1) - shares
        return below, shares

    def points(self, rules: Rules = BASIC) -> RowPoints:
        """Expected row score for a separable rule set: P(win) - P(lose), plus royalties."""
        win, tie = self.win_tie()
        score = win - (1.0 - win - tie) + self.royalty_points(rules)
        return RowPoints.build(score[0], score[1], score[2])

    def policy(self, rules: Rules):
        """What ``play_tables`` needs: RowPoints for separable rules, else (win, tie, extra)."""
        if rules.is_separable:
            return self.points(rules)
        win, tie = self.win_tie()
        return (win, tie, self.royalty_points(rules))

    def royalty_points(self, rules: Rules) -> np.ndarray:
        """(3, classes) expected royalties a row of each class collects, less those it pays.

        Royalties the field's rows earn whatever ours do cost every split the same and
        are left out; with ``royalty_needs_win`` a row pays the field's royalty only when
        the field's row beats it."""
        extra = np.zeros((3, row_classes().size))
        if not rules.royalties:
            return extra
        table = royalty_array(rules)
        categories = row_classes().astype(np.int64) >> 26
        win, _ = self.win_tie()
        for i, shares in enumerate(self.shares()):
            earned = table[i, categories]
            if rules.royalty_needs_win:
                above = np.concatenate([np.cumsum((shares * earned)[::-1])[::-1][1:], [0.0]])
                extra[i] = earned * win[i] - above
            else:
                extra[i] = earned
        return extra

    @classmethod
    def from_arranged(cls, arranged: np.ndarray, info: dict[str, Any] | None = None) -> FieldTables:
        """Shares of an ``(n, 13)`` array of hands set front | middle | back."""
        classes = row_classes()
        counts = []
        for row in (arranged[:, :3], arranged[:, 3:8], arranged[:, 8:]):
            numbers = np.searchsorted(classes, evaluate_many(row))
            counts.append(np.bincount(numbers, minlength=classes.size) / len(arranged))
        return cls(counts[0], counts[1], counts[2], info=info or {})

    def blend(self, other: FieldTables, weight: float) -> FieldTables:
        """``(1 - weight) * self + weight * other``, row by row."""
        mixed = [(1 - weight) * a + weight * b for a, b in zip(self.shares(), other.shares())]
        return FieldTables(mixed[0], mixed[1], mixed[2], info=dict(self.info))

    def save(self, path: str | Path) -> None:
        np.savez_compressed(
            path, front=self.front, middle=self.middle, back=self.back, info=np.array(json.dumps(self.info))
        )

    @classmethod
    def load(cls, path: str | Path) -> FieldTables:
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = [np.asarray(data[r], np.float64) for r in ROWS]
                info = json.loads(str(data["info"])) if "info" in data else {}
        except (OSError, KeyError, ValueError) as error:
            raise BotError(f"cannot read tables from {str(path)!r}: {error}") from None
        size = row_classes().size
        for name, array in zip(ROWS, arrays):
            if array.shape != (size,) or not np.isclose(array.sum(), 1.0) or (array < 0).any():
                raise BotError(f"tables in {str(path)!r}: the {name} shares must be {size} numbers >= 0 summing to 1")
        return cls(arrays[0], arrays[1], arrays[2], info=info)


@functools.cache
def _load(path: str | None, scoring: str) -> FieldTables:
    if path is None:
        with resources.as_file(resources.files("bots.data") / f"table_{scoring}.npz") as shipped:
            return FieldTables.load(shipped)
    return FieldTables.load(path)


@functools.cache
def _policy(path: str | None, rules: Rules):
    return _load(path, rules.scoring).policy(rules)


def shipped_tables(rules: Rules = BASIC) -> FieldTables:
    """The tables that ship with the package for ``rules``' scoring method (``bench train`` reproduces them)."""
    return _load(None, rules.scoring)


def play_tables(hands: np.ndarray, policy, rules: Rules) -> np.ndarray:
    """Hands (n, 13) set by the table strategy: ``policy`` is RowPoints for separable rules,
    else (win, tie, extra) arrays for the joint objective."""
    if rules.is_separable:
        return play_points(hands, policy)
    from solver._search import best_by_class_joint, splits_to_cards
    from solver.classes import class_hash
    from solver.splits import split_tables

    t = split_tables()
    keys, numbers = class_hash()
    win, tie, extra = policy
    hands = np.ascontiguousarray(hands, np.uint8)
    splits = best_by_class_joint(hands, t.canon_front, t.canon_a, t.canon_b, t.canon_split, t.canon_twin, keys, numbers,
                                 win, tie, extra, SCORING_CODES[rules.scoring])
    return splits_to_cards(hands, splits, t.combos3, t.combos5, t.front, t.middle, t.back)


SCORING_CODES = {"basic": 0, "1-6": 1, "2-4": 2}


@functools.cache
def _parse(rules: str) -> Rules:
    return Rules.parse(rules)


@dataclass(frozen=True)
class TableBot:
    """Plays the split with the highest expected score against a trained field.

    Strategy: for each row and each of the 7,917 row classes, the chance of winning and
    tying that row against the field's row, from tables trained by self-play
    (``bench train``; fictitious play starting from ``heuristic``). The legal split with
    the highest sum of P(win) - P(lose) over its rows is played, found exactly by
    branch and bound over all 72,072 splits. Cost: about 0.05 ms per hand. Never fouls.

    ``rules`` names the rule set it plays for: royalties add each row's expected
    royalties to its points; under 1-6 or 2-4 it maximises the expected pair score with
    the bonus, taking the rows as independent, over every legal split (about 0.3 ms),
    with tables trained for that scoring method. ``tables`` names a file made by
    ``bench train`` instead of the shipped one.
    """

    name: ClassVar[str] = "table"
    tables: str | None = None
    rules: str = "basic"

    def __post_init__(self) -> None:
        _policy(self.tables, _parse(self.rules))  # a bad file or rule set fails here, when the bot is made

    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        return arrangement_from_row(self.arrange_many(np.array([cards], np.uint8), rng)[0])

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        rules = _parse(self.rules)
        return play_tables(hands, _policy(self.tables, rules), rules)
