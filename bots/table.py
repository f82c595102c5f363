"""The ``table`` bot: per-row win probabilities against a field, trained by self-play."""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import IO, Any, ClassVar

import numpy as np

from bots import _kernels
from bots.base import BotError, arrangement_from_row, takes_cards
from bots.points import RowPoints, cards_by_split, over_cores, play_points
from solver import ROWS, Arrangement, Card, config, evaluate_many, files
from solver._evaluator import CATEGORY_SHIFT, FLUSH, STRAIGHT_FLUSH
from solver.classes import class_hash, class_rank_counts, five_card_class_mask, rank_classes, row_classes
from solver.documents import strict_json
from solver.rules import BASIC, Rules, RulesError, as_rules
from solver.scoring import expected_rows, fouls
from solver.splits import checked_hands, split_tables


@dataclass(frozen=True)
class JointPolicy:
    """A row's chances against the field and its extra points, by row and class, for a bonus
    rule (1-6, 2-4): ``win``/``tie``/``extra`` are (3, classes). ``separable`` holds each
    row's value without the bonus (P(win) - P(loss) + extra) as RowPoints, whose bounds
    let the search skip most splits; ``tie_max`` the most each row ties, and ``by_class``
    all of these for each class side by side, as the search reads them
    (``bots._kernels.best_by_class_joint``)."""

    win: np.ndarray
    tie: np.ndarray
    extra: np.ndarray
    separable: RowPoints
    tie_max: np.ndarray
    by_class: np.ndarray

    @classmethod
    def build(cls, win: np.ndarray, tie: np.ndarray, extra: np.ndarray) -> JointPolicy:
        """The policy of these chances and extra points, with what the search reads derived from them.

        Args:
            win: (3, classes) the chance that a row of each class beats the field's row.
            tie: (3, classes) the chance that it ties the field's row.
            extra: (3, classes) the points each row adds without the bonus (``FieldTables.extra``).

        Returns:
            The policy: ``separable`` from ``2 * win + tie - 1 + extra`` (P(win) - P(loss) +
                extra), ``tie_max`` each row's largest tie chance, and ``by_class`` read-only.
        """
        rows = 2 * win + tie - 1 + extra
        separable = RowPoints.build(rows[0], rows[1], rows[2])
        k = _kernels
        by_class = np.zeros((win.shape[1], k.CLASS_COLUMNS), np.float64)
        for column, values in ((k.SEP0, separable.front), (k.SEP1, separable.middle), (k.SEP2, separable.back),
                               (k.WIN0, win[0]), (k.WIN1, win[1]), (k.WIN2, win[2]), (k.TIE0, tie[0]),
                               (k.TIE1, tie[1]), (k.TIE2, tie[2]), (k.EXTRA0, extra[0]), (k.EXTRA1, extra[1]),
                               (k.EXTRA2, extra[2]), (k.FRONT_UPTO, separable.front_upto),
                               (k.MIDDLE_UPTO, separable.middle_upto)):
            by_class[:, column] = values
        by_class.setflags(write=False)
        return cls(win, tie, extra, separable, tie.max(axis=1), by_class)


RANK_HELD = np.array([[math.comb(4 - k, n) / math.comb(4, n) for n in range(5)] for k in range(1, 5)])
"""RANK_HELD[k - 1, n]: the chance that a hand holding n cards of a rank misses k given cards of that rank."""


def rank_counts(hands: np.ndarray) -> np.ndarray:
    """How many cards of each rank each hand holds.

    Args:
        hands: The hands, ``(n, 13)`` card ids.

    Returns:
        ``(n, 13)`` int64 counts, rank 2 first.
    """
    counts = np.zeros((len(hands), 13), np.int64)
    for j in range(hands.shape[1]):
        counts[np.arange(len(hands)), hands[:, j] >> 2] += 1
    return counts


def row_class_numbers(arranged: np.ndarray) -> np.ndarray:
    """The row class of each row of hands already set (``solver.classes.row_classes``).

    Args:
        arranged: The hands, ``(n, 13)`` card ids, each set front | middle | back.

    Returns:
        ``(n, 3)`` int64 class numbers, front, middle, back.
    """
    classes = row_classes()
    return np.stack([np.searchsorted(classes, evaluate_many(np.ascontiguousarray(row)))
                     for row in (arranged[:, :3], arranged[:, 3:8], arranged[:, 8:])], axis=1).astype(np.int64)


@dataclass(frozen=True)
class Removal:
    """How the field's rows change when it cannot hold the player's cards, rank by rank.

    Measured on a sample of the field (random hands set by these tables as they are, the
    ``table:removal=false`` strategy): ``shares`` (3, classes) are its rows' shares, and
    ``factors[i, r, k - 1, c]`` the mean of ``RANK_HELD[k - 1, n]`` over its hands whose row ``i`` is of class ``c``, ``n``
    being the hand's cards of rank ``r``: the chance that such a hand misses ``k`` given cards
    of that rank, suits taken as alike. A player holding ``k_r`` cards of each rank ``r``
    faces each class with the share times the factors of the ranks held
    (``bots._kernels.field_given_hand``): the ranks are taken as independent given the class."""

    shares: np.ndarray  # (3, classes) float64, each row summing to 1
    factors: np.ndarray  # (3, 13, 4, classes) float32, in [0, 1]

    @classmethod
    def measure(cls, hands: np.ndarray, arranged: np.ndarray) -> Removal:
        """The field's shares and factors, measured on a sample of hands.

        Args:
            hands: Random hands, ``(n, 13)`` card ids.
            arranged: The same hands, in the same order, each reordered front | middle | back.

        Returns:
            The card-removal arrays; a factor of a class no sampled row has is 1.
        """
        size = row_classes().size
        counts = rank_counts(hands)
        shares = np.empty((3, size))
        factors = np.ones((3, 13, 4, size), np.float32)
        for i, numbers in enumerate(row_class_numbers(arranged).T):
            seen = np.bincount(numbers, minlength=size).astype(np.float64)
            shares[i] = seen / len(hands)
            for r in range(13):
                for k in range(4):
                    missed = np.bincount(numbers, weights=RANK_HELD[k][counts[:, r]], minlength=size)
                    factors[i, r, k] = np.where(seen > 0, missed / np.maximum(seen, 1.0), 1.0)
        return cls(shares, factors)

    def problem(self) -> str | None:
        """What is wrong with arrays read from a file, or None.

        Returns:
            A phrase naming the first problem (the shapes, shares that are not numbers >= 0
                summing to 1 per row, factors outside 0 to 1), or None when there is none.
        """
        size = row_classes().size
        if self.shares.shape != (3, size) or self.factors.shape != (3, 13, 4, size):
            return f"the card-removal arrays have shapes {self.shares.shape} and {self.factors.shape}"
        if not np.isfinite(self.shares).all() or (self.shares < 0).any() or not np.allclose(self.shares.sum(axis=1), 1):
            return "the card-removal shares must be numbers >= 0, each row summing to 1"
        if not np.isfinite(self.factors).all() or (self.factors < 0).any() or (self.factors > 1).any():
            return "the card-removal factors must be numbers from 0 to 1"
        return None

    @functools.cached_property
    def listed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The classes each row of the sample has, listed row after row, as
        ``bots._kernels.field_given_hand`` reads them: the classes, their shares, their factors
        (13, 4, listed) and where each row's list starts."""
        seen = [np.flatnonzero(row) for row in self.shares]
        offsets = np.cumsum([0] + [len(x) for x in seen]).astype(np.int64)
        shares = np.concatenate([row[x] for row, x in zip(self.shares, seen)])
        factors = np.concatenate([self.factors[i][:, :, x] for i, x in enumerate(seen)], axis=2)
        return (np.concatenate(seen).astype(np.int64), shares, np.ascontiguousarray(factors, np.float64), offsets)


@dataclass(frozen=True)
class FieldTables:
    """How a field sets its rows: the share of each row class (``solver.classes``) per row.

    From these follow, for any row value, the chance of beating, tying or losing to
    the field's row in the same position, which is all basic scoring needs."""

    front: np.ndarray  # (7917,) shares, summing to 1
    middle: np.ndarray
    back: np.ndarray
    info: dict[str, Any] = field(default_factory=dict, compare=False)
    removal: Removal | None = field(default=None, compare=False)  # for ``table:removal=true``
    coupling: CouplingSample | None = field(default=None, compare=False)  # for ``table:coupling=true``
    sha256: str | None = field(default=None, compare=False)  # of the file's bytes, when read from one

    def shares(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three rows' shares.

        Returns:
            ``(front, middle, back)``, the arrays themselves, not copies.
        """
        return (self.front, self.middle, self.back)

    def win_tie(self) -> tuple[np.ndarray, np.ndarray]:
        """The chance that a row of each class beats or ties the field's row in its position.

        Returns:
            ``(win, tie)``, each (3, 7917): ``win`` the share of the field's rows of a lower
                class, ``tie`` the share of the same class.
        """
        shares = np.stack(self.shares())
        return np.cumsum(shares, axis=1) - shares, shares

    def expected_units(self, rules: Rules = BASIC) -> np.ndarray:
        """Expected units of a row of each class against the field's row under a separable
        rule set (``solver.scoring.expected_rows``).

        Args:
            rules: The rule set; basic by default.

        Returns:
            (3, 7917) the units, royalties included, the field's royalties that every split
                pays alike left out.
        """
        classes = row_classes()
        return np.stack([expected_rows(classes, classes, shares, i, rules)[2] for i, shares in enumerate(self.shares())])

    def points(self, rules: Rules = BASIC) -> RowPoints:
        """Expected row units for a separable rule set: P(win) - P(lose), plus royalties.

        Args:
            rules: The rule set; basic by default.

        Returns:
            The units of ``expected_units`` as row points.
        """
        units = self.expected_units(rules)
        return RowPoints.build(units[0], units[1], units[2])

    def policy(self, rules: Rules) -> RowPoints | JointPolicy:
        """What ``play_tables`` needs to play these tables under ``rules``.

        Args:
            rules: The rule set played.

        Returns:
            RowPoints (``points``) for separable rules, else a JointPolicy for the joint
                objective, whose bonus couples the rows.
        """
        if rules.is_separable:
            return self.points(rules)
        win, tie = self.win_tie()
        return JointPolicy.build(win, tie, self.extra(rules))

    @classmethod
    def from_arranged(cls, arranged: np.ndarray, info: dict[str, Any] | None = None) -> FieldTables:
        """The shares of each row class among hands already set.

        Args:
            arranged: The hands, ``(n, 13)`` card ids, each set front | middle | back.
            info: What the tables record of how they were made; empty by default.

        Returns:
            The tables, without a card-removal sample.
        """
        size = row_classes().size
        shares = [np.bincount(numbers, minlength=size) / len(arranged) for numbers in row_class_numbers(arranged).T]
        return cls(shares[0], shares[1], shares[2], info=info or {})

    def blend(self, other: FieldTables, weight: float) -> FieldTables:
        """``(1 - weight) * self + weight * other``, row by row.

        Args:
            other: The tables blended in.
            weight: The weight of ``other``, from 0 to 1.

        Returns:
            The blended tables, with a copy of this one's ``info`` and no card-removal sample.
        """
        mixed = [(1 - weight) * a + weight * b for a, b in zip(self.shares(), other.shares())]
        return FieldTables(mixed[0], mixed[1], mixed[2], info=dict(self.info))

    def save(self, path: str | Path | IO[bytes]) -> None:
        """The tables as an ``.npz`` archive, with ``info`` and the card-removal sample if any.

        Args:
            path: A file object, written to as it is, or a path, written whole or not at all
                (``solver.files.write_atomic``).
        """
        arrays: dict[str, Any] = {"front": self.front, "middle": self.middle, "back": self.back,
                                  "info": np.array(json.dumps(self.info))}
        if self.removal is not None:
            arrays |= {"removal_shares": self.removal.shares, "removal_factors": self.removal.factors}
        if self.coupling is not None:
            arrays |= {"coupling_rows": self.coupling.rows, "coupling_counts": self.coupling.counts}
        target = path if not isinstance(path, (str, Path)) else io.BytesIO()
        np.savez_compressed(target, **arrays)
        if isinstance(path, (str, Path)) and isinstance(target, io.BytesIO):
            files.write_atomic(path, target.getvalue())

    def extra(self, rules: Rules) -> np.ndarray:
        """What ``rules`` add to each row's P(win) - P(loss) without a bonus: its expected
        royalties against this field.

        Args:
            rules: The rule set; only its royalties and ``royalty_needs_win`` are read.

        Returns:
            (3, classes) the expected royalties of a row of each class.
        """
        plain = self.expected_units(Rules(scoring="basic"))
        return self.expected_units(Rules(scoring="basic", royalties=rules.royalties,
                                         royalty_needs_win=rules.royalty_needs_win)) - plain

    @classmethod
    def load(cls, path: str | Path) -> FieldTables:
        """Tables saved by ``save``, read through ``solver.files.arrays`` (a regular file, a
        link followed to one, of bounded size, without pickles).

        Args:
            path: The ``.npz`` file.

        Returns:
            The tables, with their ``info``, card-removal sample and coupling sample when the
                file holds them, and the sha256 of the bytes they were read from.

        Raises:
            BotError: The file cannot be read, is damaged, lacks an array, or holds shares
                that are not 7,917 numbers >= 0 summing to 1 per row, or a bad card-removal
                or coupling sample.
        """
        try:
            with files.arrays_with_digest(path) as (data, digest):
                arrays = [np.ascontiguousarray(data[r], np.float64) for r in _present(data, path, ROWS)]
                info = strict_json(str(data["info"]), "its info") if "info" in data else {}
                removal = coupling = None
                if _present(data, path, ("removal_shares", "removal_factors"), optional=True):
                    removal = Removal(np.ascontiguousarray(data["removal_shares"], np.float64),
                                      np.ascontiguousarray(data["removal_factors"], np.float32))
                if _present(data, path, ("coupling_rows", "coupling_counts"), optional=True):
                    coupling = CouplingSample(data["coupling_rows"], data["coupling_counts"])
        except OSError as error:
            raise BotError(f"cannot read tables from {str(path)!r}: {error.strerror or error}") from None
        except BotError:
            raise
        except Exception as error:  # a truncated or corrupt archive: zipfile, numpy and json each have their errors
            raise BotError(f"tables file {str(path)!r} is damaged or not made by bench train "
                           f"({type(error).__name__}: {error})") from None
        size = row_classes().size
        for name, array in zip(ROWS, arrays):
            if array.shape != (size,) or not np.isclose(array.sum(), 1.0) or (array < 0).any():
                raise BotError(f"tables in {str(path)!r}: the {name} shares must be {size} numbers >= 0 summing to 1")
        problem = (removal.problem() if removal is not None else None) or (
            coupling.problem() if coupling is not None else None)
        if problem:
            raise BotError(f"tables in {str(path)!r}: {problem}")
        if coupling is not None:
            coupling = CouplingSample(np.ascontiguousarray(coupling.rows, np.int64),
                                      np.ascontiguousarray(coupling.counts, np.int64))
        return cls(arrays[0], arrays[1], arrays[2], info=info, removal=removal, coupling=coupling, sha256=digest)


def _present(data: Any, path: str | Path, names: tuple[str, ...], optional: bool = False) -> tuple[str, ...]:
    """``names`` when the archive ``data`` holds every one; with ``optional``, none when it holds
    none of them. A missing array raises BotError naming it."""
    if optional and not set(names) & set(data.files):
        return ()
    for name in names:
        if name not in data.files:
            raise BotError(f"tables file {str(path)!r} has no {name!r} array; make one with bench train")
    return names


_READ: dict[str, FieldTables] = {}  # the tables read from each file by this process, by its absolute path
_EXPECTED: dict[str, str] = {}  # the sha256 a run's first process read of each file, by absolute path (expect_tables)
_READING = threading.Lock()


def tables_read() -> dict[str, str]:
    """The sha256 of each tables file this process has read (``read_tables``), by its absolute path.

    Returns:
        A new dict.
    """
    with _READING:
        return {path: str(tables.sha256) for path, tables in _READ.items()}


def expect_tables(expected: Mapping[str, str]) -> None:
    """Make this process read these tables files as these versions only: what the process that
    started a run had read of them (``tables_read``), which its workers, other processes that
    make their bots of the same specs, must play too (``bench.run.runner.run_chunks``).

    Args:
        expected: The sha256 of each file, by absolute path; they replace what was expected before.
    """
    with _READING:
        _EXPECTED.update(expected)


def read_tables(path: str) -> FieldTables:
    """The tables in the file at ``path``, read again and checked to be the version this process
    read first: a process plays one version of a tables file, so that every bot it makes of the
    file, in every thread, plays the same tables, and what a bot records of the file (its sha256,
    ``TableBot.files_played``) is what it plays.

    Args:
        path: The tables file, by its absolute path (``TableBot.source``); a link is one file,
            whatever it points to.

    Returns:
        The tables, read once a process and shared.

    Raises:
        BotError: The file cannot be read or is damaged (``FieldTables.load``), or it was
            replaced since this process first read it.
    """
    with _READING:
        first, expected = _READ.get(path), _EXPECTED.get(path)
    now: str
    if first is not None:  # read again only to hash it: parsing and checking it once is enough
        try:
            now = hashlib.sha256(files.read_bytes(path, config.ARRAYS_BYTES)).hexdigest()
        except OSError as error:
            raise BotError(f"cannot read tables from {path!r}: {files.describe(error)}") from None
    else:
        tables = FieldTables.load(path)
        now = str(tables.sha256)
    if expected is not None and expected != now:
        raise _replaced(path, expected, now)
    if first is None:
        with _READING:
            first = _READ.setdefault(path, tables)
    if first.sha256 != now:
        raise _replaced(path, str(first.sha256), now)
    return first


def _replaced(path: str, was: str, now: str) -> BotError:
    return BotError(f"tables file {path!r} was replaced after this process, or the run it plays in, first read it "
                    f"(sha256 {was[:12]}, now {now[:12]}): a run plays one version of a file, so start a new "
                    "one to play the new file")


@functools.cache
def _load(path: str | None, scoring: str) -> FieldTables:
    if path is None:
        with resources.as_file(resources.files("bots.data") / f"table_{scoring}.npz") as shipped:
            return FieldTables.load(shipped)
    with _READING:
        if path in _READ:
            return _READ[path]
    return read_tables(path)


@functools.cache
def _policy(path: str | None, rules: Rules) -> RowPoints | JointPolicy:
    return _load(path, rules.scoring).policy(rules)


def coupled_tables_path(scoring: str) -> str | None:
    """The tables shipped for ``table:coupling=true`` under a bonus scoring method
    (``bench train --rules 1-6 --coupling``, ``--rules 2-4 --coupling``).

    Args:
        scoring: The scoring method's name.

    Returns:
        The file's path, or None when none ships for that method (basic: its rows do not couple).
    """
    shipped = resources.files("bots.data") / f"table_{scoring}_coupling.npz"
    return str(shipped) if shipped.is_file() else None


def shipped_tables(rules: Rules = BASIC) -> FieldTables:
    """The tables that ship with the package for ``rules``' scoring method (``bench train`` reproduces them).

    Args:
        rules: The rule set; only its scoring method is read. Basic by default.

    Returns:
        The tables, loaded once a process and shared.
    """
    return _load(None, rules.scoring)


def play_tables(hands: np.ndarray, policy: RowPoints | JointPolicy, rules: Rules,
                coupling: CouplingSample | None = None) -> np.ndarray:
    """Hands set by the table strategy.

    Args:
        hands: The hands, ``(n, 13)`` card ids.
        policy: RowPoints for separable rules, else a JointPolicy (``FieldTables.policy``).
        rules: The rule set; its scoring method is read with a JointPolicy.
        coupling: With a JointPolicy, the field's sample that the best splits are weighed
            again on (``CouplingSample``); None plays the best split with the rows taken as
            independent.

    Returns:
        The hands ``(n, 13)``, each row reordered front | middle | back.
    """
    if isinstance(policy, RowPoints):
        return play_points(hands, policy)
    t = split_tables()
    keys, numbers = class_hash()
    p = policy
    hands = checked_hands(hands)
    keep, margin, rows, _ = CouplingSample.arguments(coupling)

    def best(part: np.ndarray) -> np.ndarray:
        return _kernels.best_by_class_joint(part, t.by_back, t.back_middle, t.back_front, t.canon_of, t.canon_a,
                                            t.masks5, rank_classes().arrays, keys, numbers, p.by_class, p.tie_max,
                                            rules.scoring_code, keep, margin, rows)

    return cards_by_split(hands, over_cores(best, hands))


@functools.cache
def _removal_inputs(path: str | None, rules: Rules) -> tuple[Removal, np.ndarray, np.ndarray]:
    """The card-removal sample of the tables at ``path`` (shipped: None), what ``rules`` add to
    each row class (``FieldTables.extra``) and which classes are five-card rows."""
    tables = _load(path, rules.scoring)
    if tables.removal is None:
        where = "the shipped tables" if path is None else f"tables {path!r}"
        raise BotError(f"{where} have no card-removal sample (bench train --removal-hands 0, or an older bench "
                       "train): make them with bench train, or play table:removal=false")
    extra = np.ascontiguousarray(tables.extra(rules), np.float64)
    return tables.removal, extra, np.ascontiguousarray(five_card_class_mask())


def play_with_removal(hands: np.ndarray, path: str | None, rules: Rules,
                      coupling: CouplingSample | None = None) -> np.ndarray:
    """Hands set by the table strategy against the field as it is once it cannot hold
    each hand's cards (``Removal``).

    Args:
        hands: The hands, ``(n, 13)`` card ids.
        path: The tables file; None: the shipped tables of the rules' scoring method.
        rules: The rule set played.
        coupling: Under a bonus rule, the field's sample that the best splits are weighed
            again on, each of its hands by the chance that it misses the hand's cards
            (``CouplingSample``); None plays the best split with the rows taken as independent.

    Returns:
        The hands ``(n, 13)``, each row reordered front | middle | back.

    Raises:
        BotError: The tables hold no card-removal sample, or cannot be read.
    """
    removal, extra, five = _removal_inputs(path, rules)
    seen, shares, factors, offsets = removal.listed
    t = split_tables()
    keys, numbers = class_hash()
    hands = checked_hands(hands)
    keep, margin, rows, counts = CouplingSample.arguments(coupling)

    def best(part: np.ndarray) -> np.ndarray:
        if rules.is_separable:
            return _kernels.best_with_removal_points(part, t.by_back, t.back_middle, t.back_front, rank_classes().arrays,
                                                     seen, shares, factors, offsets, extra, five)
        return _kernels.best_with_removal_joint(part, t.by_back, t.back_middle, t.back_front, t.canon_of, t.canon_a,
                                                t.masks5, rank_classes().arrays, keys, numbers, seen, shares, factors,
                                                offsets, extra, five, rules.scoring_code, keep, margin, rows, counts,
                                                RANK_HELD)

    return cards_by_split(hands, over_cores(best, hands))


COUPLING_KEEP = 16  # the best splits (rows taken as independent) weighed again for the coupling of the rows
COUPLING_MARGIN = 0.2  # of those, only the ones within this many units of the best
COUPLING_HANDS = 4000  # hands in the field's sample that weighs them
COUPLING_SEED = 20261204  # the seed those hands are dealt from
COUPLING_LIMIT = 100_000  # the most hands a tables file's coupling sample may hold


def coupling_hands(n: int = COUPLING_HANDS) -> np.ndarray:
    """The hands of the field's sample that ``table:coupling=true`` weighs its splits on:
    ``n`` random hands from ``COUPLING_SEED``, the same in every process.

    Args:
        n: How many hands.

    Returns:
        The hands, ``(n, 13)`` uint8 card ids.
    """
    rng = np.random.default_rng(np.random.SeedSequence(COUPLING_SEED))
    return np.argsort(rng.random((n, 52)), axis=1)[:, :13].astype(np.uint8)


def _settable(hand: np.ndarray, rows: np.ndarray) -> bool:
    """Whether some split of ``hand``'s cards has rows of the classes ``rows`` (front, middle,
    back), given that the classes' ranks are the hand's (``_unsettable``)."""
    return _unsettable(hand[None], rows[None]) == -1


def _unsettable(hands: np.ndarray, rows: np.ndarray) -> int:
    """The first of ``hands`` whose rows, of the classes ``rows`` (n, 3), no split of its cards
    can make, or -1: the classes' ranks must be the hand's already, and a middle or back of
    five ranks is a flush exactly when its class is, which depends on which card of each rank
    goes where (``bots._kernels.unsettable_rows``)."""
    need = np.ascontiguousarray(class_rank_counts()[rows], np.int64)
    flush = np.isin(row_classes()[rows] >> CATEGORY_SHIFT, (FLUSH, STRAIGHT_FLUSH))
    return int(_kernels.unsettable_rows(np.ascontiguousarray(hands, np.int64), need, flush))


@dataclass(frozen=True)
class CouplingSample:
    """A sample of the field's hands, set as the field sets them, on which ``table:coupling=true``
    weighs its best splits again under a bonus rule.

    The joint search takes the field's rows as independent, but they are not: a field hand with a
    strong back tends to have a strong middle too, and the 1-6 and 2-4 bonuses depend on all
    three rows at once. So the ``COUPLING_KEEP`` best splits within ``COUPLING_MARGIN`` of the
    best are each given their value plus a correction measured on this sample: the split's mean
    score against the sample's hands minus the score the same sample gives when its rows are
    taken as independent (``bots._kernels.coupled_pick``). With card removal each sample hand
    counts by the chance that it misses the player's cards, rank by rank (``RANK_HELD``).

    ``rows`` (n, 3) are the classes of each hand's rows (``solver.classes.row_classes``),
    ``counts`` (n, 13) its cards of each rank. The hands are dealt from ``COUPLING_SEED`` and
    set by the same tables without the correction, so the sample is the same in every process."""

    rows: np.ndarray  # (n, 3) int64 row classes
    counts: np.ndarray  # (n, 13) int64 cards of each rank

    @classmethod
    def deal(cls, arrange: Callable[[np.ndarray], np.ndarray], hands: int = COUPLING_HANDS) -> CouplingSample:
        """The sample: ``hands`` random hands dealt from ``COUPLING_SEED``, set by ``arrange``.

        Args:
            arrange: Sets a batch of hands ``(n, 13)``, returning them front | middle | back.
            hands: How many hands.

        Returns:
            The sample's row classes and rank counts.
        """
        dealt = coupling_hands(hands)
        return cls(row_class_numbers(arrange(dealt)), rank_counts(dealt))

    @classmethod
    def mixture(cls, plays: np.ndarray) -> CouplingSample:
        """The sample of a field that plays, with equal weights, each of several strategies:
        hand ``j`` of ``coupling_hands`` as strategy ``j mod k`` set it.

        Args:
            plays: ``(k, n, 13)``: the ``n`` hands of ``coupling_hands(n)``, as each of the
                ``k`` strategies set them, front | middle | back.

        Returns:
            The sample's row classes and rank counts.
        """
        k, n = plays.shape[:2]
        return cls.deal(lambda dealt: plays[np.arange(n) % k, np.arange(n)], n)

    def problem(self) -> str | None:
        """What is wrong with arrays read from a file, or None.

        Returns:
            A phrase naming the first problem (the shapes, row classes that are not class
                numbers, rank counts that are not a hand's, rows of the wrong size for their
                place or out of order, counts that are not the rows' ranks), or None when
                there is none.
        """
        rows, counts = self.rows, self.counts
        if (rows.ndim != 2 or rows.shape[1] != 3 or counts.shape != (rows.shape[0], 13)
                or not 1 <= rows.shape[0] <= COUPLING_LIMIT):
            return (f"the coupling arrays have shapes {rows.shape} and {counts.shape}, not (n, 3) and (n, 13) "
                    f"for n from 1 to {COUPLING_LIMIT:,}")
        if rows.dtype.kind not in "iu" or counts.dtype.kind not in "iu":
            return "the coupling arrays must hold whole numbers"
        if (rows < 0).any() or (rows >= row_classes().size).any():
            return "the coupling rows must be row class numbers"
        if (counts < 0).any() or (counts > 4).any() or (counts.sum(axis=1) != 13).any():
            return "the coupling counts must be a hand's cards of each rank: 0 to 4, 13 in all"
        five = five_card_class_mask()
        if five[rows[:, 0]].any() or not five[rows[:, 1:]].all():
            return "the coupling rows must be a three-card front, then a five-card middle and back"
        if fouls(row_classes()[rows]).any():
            return "the coupling rows must be in order, front to back, as the field never fouls"
        if (class_rank_counts()[rows].sum(axis=1) != counts).any():
            return "the coupling counts must be the cards of each rank in the hand's three rows"
        dealt = coupling_hands(len(rows))
        if (rank_counts(dealt) != counts).any():
            return "the coupling counts must be those of the sample's hands, dealt from COUPLING_SEED"
        unsettable = _unsettable(dealt, rows)
        if unsettable >= 0:
            return f"the coupling rows of hand {unsettable} are not a split its cards can make (a flush it cannot hold)"
        return None

    @staticmethod
    def arguments(sample: CouplingSample | None) -> tuple[int, float, np.ndarray, np.ndarray]:
        """What the joint kernels take for a sample or for none.

        Args:
            sample: The sample, or None for the best split alone.

        Returns:
            ``(keep, margin, rows, counts)``: a buffer of one and empty arrays for None.
        """
        if sample is None:
            return 1, 0.0, np.zeros((0, 3), np.int64), np.zeros((0, 13), np.int64)
        return COUPLING_KEEP, COUPLING_MARGIN, sample.rows, sample.counts


@functools.cache
def _coupling(path: str | None, rules: Rules, removal: bool) -> CouplingSample | None:
    """The coupling sample of the tables at ``path`` under ``rules``, set with or without card
    removal as the bot plays; None under a separable rule set, whose rows do not couple."""
    if rules.is_separable:
        return None
    carried = _load(path, rules.scoring).coupling
    if carried is not None:  # tables trained with the coupling weighed (bench train --coupling) carry their field's
        return carried
    if removal:
        return CouplingSample.deal(lambda hands: play_with_removal(hands, path, rules))
    return CouplingSample.deal(lambda hands: play_tables(hands, _policy(path, rules), rules))


@functools.cache
def rules_of(value: Rules | str) -> Rules:
    """A bot's ``rules`` parameter as Rules.

    Args:
        value: A preset name, a file, or Rules already.

    Returns:
        The rules.

    Raises:
        BotError: ``value`` is not a rule set.
    """
    try:
        return as_rules(value)
    except RulesError as error:
        raise BotError(str(error)) from None


@dataclass(frozen=True)
class TableBot:
    """Plays the split with the highest expected score against a trained field.

    Strategy: for each row and each of the 7,917 row classes, the chance of winning and
    tying that row against the field's row, from tables trained by self-play
    (``bench train``; fictitious play starting from ``heuristic``). The legal split with
    the highest sum of P(win) - P(lose) over its rows is played, found exactly by a
    branch and bound that skips the backs and middles that cannot beat the best split so
    far. Cost, without card removal: about 0.01 ms per hand in a batch, 0.07 ms one hand a
    call. Never fouls.

    ``rules`` names the rule set it plays for: royalties add each row's expected
    royalties to its points; under 1-6 or 2-4 it maximises the expected pair score with
    the bonus, taking the rows as independent, by a branch and bound of its own (about
    0.08 ms a hand, twice that with ``coupling``), with tables trained for that scoring method. ``tables`` names a file made by
    ``bench train`` instead of the shipped one.

    ``removal`` (the default) plays against the field as it is once it cannot hold this
    hand's cards, rank by rank (``Removal``, measured on a sample of the field that ships
    with the tables): each row class's chances against the field are those of the field
    given the hand, and the same search finds the best split. About 0.10 ms a hand on one
    core, 0.05 ms in a batch on two, 0.25 ms one hand a call. ``removal=false`` plays the
    tables as they are; so does the ``table`` opponent model unless its spec asks
    (``bots.opponent_model``), which takes the rows as independent too (``coupling``).

    ``coupling`` (the default) weighs the best splits again under 1-6 and 2-4, whose
    bonus couples the rows while the search takes the field's rows as independent: the
    ``COUPLING_KEEP`` best within ``COUPLING_MARGIN`` of the best each gain a correction
    measured on a sample of the field's hands (``CouplingSample``). Without ``tables`` it
    plays the tables trained with the coupling weighed (``coupled_tables_path``, ``bench
    train --coupling``) and the sample they carry; tables without one have their sample dealt
    once a process and set by themselves. It about doubles the time a hand takes under 1-6
    and 2-4. ``coupling=false`` plays the best split with the rows taken as independent, on
    the plain tables (``bench train --rules 1-6``, ``--rules 2-4``). Under a separable rule
    set both play alike.
    """

    name: ClassVar[str] = "table"
    played_parameters: ClassVar[tuple[str, ...]] = ("tables",)  # files_played records that file as it was read
    batch_safe: ClassVar[bool] = True  # arrange_many sets each hand as arrange does, without the rng
    tables: str | None = None
    rules: Rules | str = "basic"
    removal: bool = True
    coupling: bool = True
    tables_sha256: str | None = field(default=None, init=False, repr=False)  # of the tables file played
    tables_file: str | None = field(default=None, init=False, repr=False)  # that file, links resolved

    def __post_init__(self) -> None:
        for name in ("removal", "coupling"):
            if not isinstance(getattr(self, name), bool):
                raise BotError(f"table: {name} must be true or false, got {getattr(self, name)!r}")
        if self.source is not None:  # read again: a file replaced since this process read it is refused here
            object.__setattr__(self, "tables_sha256", read_tables(self.source).sha256)
            object.__setattr__(self, "tables_file", os.path.realpath(self.source))
        _policy(self.source, rules_of(self.rules))  # a bad file or rule set fails here, when the bot is made
        if self.removal:
            _removal_inputs(self.source, rules_of(self.rules))

    @functools.cached_property
    def source(self) -> str | None:
        """The tables file played, by its absolute path, which is how a process keeps what it
        read (``read_tables``): ``tables``; else, with ``coupling`` under 1-6 or 2-4,
        the tables shipped for it (``coupled_tables_path``); else None, the shipped tables."""
        rules = rules_of(self.rules)
        if self.tables is None and self.coupling and not rules.is_separable:
            path = coupled_tables_path(rules.scoring)
            return None if path is None else os.path.abspath(path)
        return None if self.tables is None else os.path.abspath(self.tables)

    def files_played(self) -> dict[str, str]:
        """The tables file this bot plays, by its absolute path (links resolved when it was
        made), with the sha256 of the bytes it read then, which ``bots.identity`` records in place of the
        file's sha256 now; empty for the shipped tables, which the package's version names.

        Returns:
            The path and its sha256, or nothing.
        """
        if self.tables_file is None or self.tables_sha256 is None:
            return {}
        return {self.tables_file: self.tables_sha256}

    @takes_cards
    def arrange(self, cards: tuple[Card, ...], rng: np.random.Generator) -> Arrangement:
        """The legal split with the highest expected score against the trained field.

        Args:
            cards: The 13 cards dealt; as text or any sequence of cards too (``takes_cards``).
            rng: Not drawn from; None is taken too.

        Returns:
            The arrangement, as ``arrange_many`` sets the hand.
        """
        return arrangement_from_row(self.arrange_many(np.array([cards], np.uint8), rng)[0])

    def arrange_many(self, hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Set a batch of hands, each as ``arrange`` would: with card removal unless ``removal`` is off.

        Args:
            hands: The hands, ``(n, 13)`` card ids.
            rng: Not drawn from.

        Returns:
            The hands ``(n, 13)``, each row reordered front | middle | back.
        """
        rules = rules_of(self.rules)
        if self.source is not None and _load(self.source, rules.scoring).sha256 != self.tables_sha256:
            raise BotError(f"tables file {self.source!r} was replaced after this bot was made from it: "
                           "make the bot again to play the new file")
        coupling = _coupling(self.source, rules, self.removal) if self.coupling else None
        if self.removal:
            return play_with_removal(hands, self.source, rules, coupling)
        return play_tables(hands, _policy(self.source, rules), rules, coupling)
