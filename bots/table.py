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

SHIPPED = "table_basic.npz"
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

    def points(self) -> RowPoints:
        """Expected row score under basic scoring: P(win) - P(lose)."""
        win, tie = self.win_tie()
        lose = 1.0 - win - tie
        score = win - lose
        return RowPoints.build(score[0], score[1], score[2])

    @classmethod
    def from_arranged(cls, arranged: np.ndarray, info: dict[str, Any] | None = None) -> FieldTables:
        """Shares of an ``(n, 13)`` array of hands set front | middle | back."""
        classes = row_classes()
        counts = []
        for row in (arranged[:, :3], arranged[:, 3:8], arranged[:, 8:]):
            numbers = np.searchsorted(classes, evaluate_many(row))
            counts.append(np.bincount(numbers, minlength=classes.size) / len(arranged))
        return cls(*counts, info=info or {})

    def blend(self, other: FieldTables, weight: float) -> FieldTables:
        """``(1 - weight) * self + weight * other``, row by row."""
        mixed = [(1 - weight) * a + weight * b for a, b in zip(self.shares(), other.shares())]
        return FieldTables(*mixed, info=dict(self.info))

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
        return cls(*arrays, info=info)


@functools.cache
def _load_tables(path: str | None) -> tuple[FieldTables, RowPoints]:
    if path is None:
        with resources.as_file(resources.files("bots.data") / SHIPPED) as shipped:
            tables = FieldTables.load(shipped)
    else:
        tables = FieldTables.load(path)
    return tables, tables.points()


def shipped_tables() -> FieldTables:
    """The tables that ship with the package (``bench train`` reproduces them)."""
    return _load_tables(None)[0]


@dataclass(frozen=True)
class TableBot:
    """Plays the split with the highest expected score against a trained field.

    Strategy: for each row and each of the 7,917 row classes, the chance of winning and
    tying that row against the field's row, from tables trained by self-play
    (``bench train``; fictitious play starting from ``heuristic``). The legal split with
    the highest sum of P(win) - P(lose) over its rows is played, found exactly by
    branch and bound over all 72,072 splits. Cost: about 0.05 ms per hand. Never fouls.
    ``tables`` names a file made by ``bench train`` instead of the shipped one.
    """

    name: ClassVar[str] = "table"
    tables: str | None = None

    def __post_init__(self) -> None:
        _load_tables(self.tables)  # a bad file fails here, when the bot is made

    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        return arrangement_from_row(self.arrange_many(np.array([cards], np.uint8), rng)[0])

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return play_points(hands, _load_tables(self.tables)[1])
