"""Row points: a strategy that scores each row by its class, and the split it plays.

The ``heuristic`` and ``table`` bots are both of this kind: a number for every row class
(``solver.classes.row_classes``) as a front, a middle and a back; a hand is set by the
legal split whose three rows score most, found exactly by branch and bound.
"""

from __future__ import annotations

import concurrent.futures
import functools
import itertools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from bots import _kernels
from solver import config, system
from solver.classes import five_card_class_mask, rank_classes
from solver.interrupts import held
from solver.splits import checked_hands, split_tables


@dataclass(frozen=True, slots=True)
class RowPoints:
    """Points of every row class as front, middle and back.

    ``front``/``middle``/``back`` are indexed by class number (``row_classes``); the
    ``*_upto`` arrays hold the best points of any class at or below each class, which
    bound what a split can still score and let the search skip most of the 72,072
    splits while still finding the exact best one. ``fives`` (classes, 4) holds what the
    search reads for each five, side by side: its points as middle and as back, then
    ``front_upto`` and ``middle_upto``, so that one five costs one read of memory."""

    front: np.ndarray
    middle: np.ndarray
    back: np.ndarray
    front_upto: np.ndarray
    middle_upto: np.ndarray
    fives: np.ndarray

    @classmethod
    def build(cls, front: np.ndarray, middle: np.ndarray, back: np.ndarray) -> RowPoints:
        five = five_card_class_mask()
        arrays = [np.asarray(a, np.float64).copy() for a in (front, middle, back)]
        for a in arrays:
            if a.shape != five.shape:
                raise ValueError(f"expected one point per row class ({five.size}), got shape {a.shape}")
        front_pts, middle_pts, back_pts = arrays
        front_pts[five] = -np.inf
        middle_pts[~five] = -np.inf
        back_pts[~five] = -np.inf
        front_upto = np.maximum.accumulate(front_pts)
        middle_upto = np.maximum.accumulate(middle_pts)
        fives = np.ascontiguousarray(np.stack([middle_pts, back_pts, front_upto, middle_upto], axis=1))
        out = cls(front_pts, middle_pts, back_pts, front_upto, middle_upto, fives)
        for a in (front_pts, middle_pts, back_pts, front_upto, middle_upto, fives):
            a.setflags(write=False)
        return out


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=system.available_cores(), thread_name_prefix="bots-kernel")


def over_cores(function: Callable[[np.ndarray], np.ndarray], hands: np.ndarray) -> np.ndarray:
    """``function(hands)`` for a batch of hands, split over the cores when it is large.

    The kernels release the GIL (nogil), so threads run them in parallel; each hand is set
    on its own, so the result is the same however the batch is split. The batch goes out
    in a few chunks a core, which the calling thread and ``cores - 1`` others take in turn:
    the caller works rather than waits, which saves a thread's wake-up on every batch. An
    error in any chunk is raised here, once no thread is still working on this batch."""
    hands = np.ascontiguousarray(hands, np.uint8)
    cores = min(system.available_cores(), len(hands) // config.PARALLEL_BATCH)
    if cores < 2:
        return function(hands)
    parts = np.array_split(hands, max(cores, min(config.CHUNKS_PER_CORE * cores, len(hands) // 64),
                                      -(-len(hands) // config.MOST_A_CHUNK)))
    results: list[np.ndarray] = [hands[:0]] * len(parts)
    taken = itertools.count()  # next() is atomic under the GIL: each chunk goes to one thread
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            i = next(taken)
            if i >= len(parts):
                return
            results[i] = function(parts[i])

    helpers: list[concurrent.futures.Future[None]] = []
    try:
        with held():  # a pool that a signal stops while it adds a thread loses that thread at exit
            helpers.extend(_pool().submit(work) for _ in range(cores - 1))
        work()
    finally:
        stop.set()  # on an error or Ctrl-C here, the others stop after their chunk
        concurrent.futures.wait(helpers)  # every one, before any error of theirs is raised
    for helper in helpers:
        helper.result()
    return np.concatenate(results)


def best_splits_by_points(hands: np.ndarray, points: RowPoints) -> np.ndarray:
    """The split number that scores most under ``points``, for each hand of an (n, 13) array."""
    t = split_tables()
    ranks = rank_classes().arrays
    # Writable copies (a few hundred KiB) of the points, which are kept read-only: the kernel is
    # then compiled for the very types best_with_removal_points passes it, once for both.
    front, fives = np.array(points.front), np.array(points.fives)

    def best(part: np.ndarray) -> np.ndarray:
        return _kernels.best_by_class_points(part, t.by_back, t.back_middle, t.back_front, ranks, front, fives)

    return over_cores(best, hands)


def cards_by_split(hands: np.ndarray, splits: np.ndarray) -> np.ndarray:
    """Hands (n, 13) reordered front | middle | back by one split number each."""
    t = split_tables()
    return _kernels.splits_to_cards(np.ascontiguousarray(hands, np.uint8), splits, t.combos3, t.combos5,
                                    t.front, t.middle, t.back)


def play_points(hands: np.ndarray, points: RowPoints) -> np.ndarray:
    """Hands (n, 13) set by the split that scores most under ``points`` (``solver.cards.CardError``
    for a row that is not thirteen cards, no two alike)."""
    hands = checked_hands(hands)
    return cards_by_split(hands, best_splits_by_points(hands, points))
