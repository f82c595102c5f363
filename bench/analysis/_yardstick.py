"""The yardstick every speed figure is given against: a fixed Numba kernel of integer card
work, timed in the same process as the figure, so that a figure reads as a ratio that moves
little between busy runs and between machines whose numpy differs.

The kernel classifies 1,000,000 fixed 5-card hands (ids 0..51, rank = id // 4) into the nine
categories, plainly, on one core: rank counts, a flush test, a straight test. It is not the
project's evaluator and never becomes it. ``_deal`` and ``_classify`` are the shared
yardstick's own (``../shared/tools/yardstick.py`` beside a source checkout); a test keeps
them equal.
"""

from __future__ import annotations

import time
from functools import cache

import numba as nb
import numpy as np


def _deal(n: int = 1_000_000, seed: int = 20261201) -> np.ndarray:
    rng = np.random.default_rng(seed)
    parts = [np.argsort(rng.random((50_000, 52)), axis=1)[:, :5].copy() for _ in range(n // 50_000)]
    return np.ascontiguousarray(np.concatenate(parts), dtype=np.int64)


@cache
def hands() -> np.ndarray:
    """The yardstick's 1,000,000 hands, dealt once per process."""
    return _deal()


@nb.njit(cache=False, nogil=True)
def _classify(hands: np.ndarray) -> int:
    total = 0
    counts = np.zeros(13, np.int64)
    for i in range(hands.shape[0]):
        counts[:] = 0
        suit0 = hands[i, 0] & 3
        flush = True
        mask = 0
        for j in range(5):
            c = hands[i, j]
            counts[c >> 2] += 1
            mask |= 1 << (c >> 2)
            if (c & 3) != suit0:
                flush = False
        pairs = trips = quads = 0
        for r in range(13):
            k = counts[r]
            if k == 2:
                pairs += 1
            elif k == 3:
                trips += 1
            elif k == 4:
                quads += 1
        straight = False
        for top in range(4, 13):
            window = 0b11111 << (top - 4)
            if mask & window == window:
                straight = True
        if mask == 0b1000000001111:  # the wheel, A-2-3-4-5
            straight = True
        if straight and flush:
            cat = 8
        elif quads:
            cat = 7
        elif trips and pairs:
            cat = 6
        elif flush:
            cat = 5
        elif straight:
            cat = 4
        elif trips:
            cat = 3
        elif pairs == 2:
            cat = 2
        elif pairs == 1:
            cat = 1
        else:
            cat = 0
        total += cat
    return total


def warm() -> None:
    """Deal the hands and compile the kernel, so that the first timing times the work only."""
    _classify(hands()[:10])


def one_ms() -> float:
    """One timing of the kernel over its 1,000,000 hands, in milliseconds."""
    warm()
    started = time.perf_counter()
    _classify(hands())
    return (time.perf_counter() - started) * 1e3


def yardstick_ms(repeats: int = 1) -> float:
    """Median wall time of the kernel over ``repeats`` runs, in milliseconds (compiled first)."""
    return float(np.median([one_ms() for _ in range(repeats)]))
