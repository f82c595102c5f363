"""Checking a sequential test's error rates on real outcomes, by resampling them.

A match's outcomes need not be normal: under the field estimator most deals of two bots that
play alike come out exactly 0 and the mean rests on a few large differences. To see whether a
test keeps its stated error rates on such outcomes, real per-deal outcomes of a pair are
*tilted* to each hypothesis and resampled: outcome ``x_i`` is drawn with weight proportional
to ``exp(theta * x_i)``, ``theta`` chosen so that the weighted mean is H0 (or H1). The tilt
keeps the outcomes' shape (the same values, the same exact zeros) and moves their mean, and
of all reweightings with that mean it is the one closest to the original (in relative
entropy). Simulated matches drawn from the H0 tilt estimate the rate of accepting H1 when H0
holds (alpha), those from the H1 tilt the rate of accepting H0 when H1 holds (beta).

Each simulated match is read as ``bench match`` reads a real one: each deal's outcome an
observation (or each block's mean, with ``block``), the test looked at every ``look``
observations from its ``minimum``-th on (``Sprt.decision``), until a decision or ``max_deals``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bench.analysis.sprt import Sprt, SprtError


def tilt(outcomes: ArrayLike, target: float) -> np.ndarray:
    """The weights that move the outcomes' mean to ``target`` by exponential tilting.

    Args:
        outcomes: The outcomes (read flat); at least one below and one above ``target``
            unless their mean is ``target`` already.
        target: The mean the weights give.

    Returns:
        One weight per outcome, summing to 1, proportional to ``exp(theta * x)``.

    Raises:
        SprtError: ``target`` is not strictly between the smallest and the largest outcome
            (no weights on these values have that mean).

    Examples:
        >>> w = tilt([0.0, 0.0, 0.0, 1.0], 0.5)
        >>> round(float(w @ [0.0, 0.0, 0.0, 1.0]), 9)
        0.5
    """
    x = np.asarray(outcomes, np.float64).ravel()
    if not x.size or not np.isfinite(x).all():
        raise SprtError("tilting needs finite outcomes")
    if not x.min() < target < x.max():
        raise SprtError(f"no tilt of outcomes from {x.min():+g} to {x.max():+g} has the mean {target:+g}")
    scale = max(abs(x.min()), abs(x.max()))

    def weights(theta: float) -> np.ndarray:
        z = theta * x
        w = np.exp(z - z.max())
        return np.asarray(w / w.sum())

    low, high = -1.0 / scale, 1.0 / scale
    while float(weights(low) @ x) > target:
        low *= 2
    while float(weights(high) @ x) < target:
        high *= 2
    for _ in range(200):  # the tilted mean rises with theta
        middle = (low + high) / 2
        if float(weights(middle) @ x) < target:
            low = middle
        else:
            high = middle
    return weights((low + high) / 2)


@dataclass(frozen=True)
class Rates:
    """What simulated matches under one hypothesis did: how many there were, the share that
    accepted H1, H0 or neither (``max_deals`` reached), and the deals they took (mean, and the
    99th percentile of those that decided)."""

    runs: int
    h1: float
    h0: float
    undecided: float
    mean_deals: float
    p99_deals: float

    def error(self, truth: str) -> float:
        """The share that accepted the hypothesis that is not ``truth``."""
        return self.h0 if truth == "H1" else self.h1


def simulate(test: Sprt, outcomes: ArrayLike, weights: ArrayLike | None, *, block: int = 1, look: int = 1,
             max_deals: int, runs: int, seed: int, batch: int = 2000) -> Rates:
    """Matches of deals drawn from ``outcomes`` (with ``weights``), read by ``test`` in blocks.

    Args:
        test: The test (its hypotheses, error rates and ``minimum`` of observations).
        outcomes: The per-deal outcomes to draw from.
        weights: Their probabilities (``tilt``), or None for equal ones.
        block: Deals an observation averages.
        look: Observations between two looks at the test (``bench match``: 16 deals).
        max_deals: Deals a match may take before it ends undecided (whole blocks are used).
        runs: How many matches to simulate.
        seed: The seed of the draws.
        batch: Matches drawn at once (memory: ``batch * max_deals`` floats).

    Returns:
        The shares of matches that accepted each hypothesis or none, and their deals.

    Raises:
        SprtError: ``block``, ``max_deals`` or ``runs`` is below 1, or ``max_deals`` is
            below one block.
    """
    if block < 1 or runs < 1 or max_deals < block:
        raise SprtError(f"a simulation needs block >= 1, runs >= 1 and max_deals >= block, got {block}, {runs}, "
                        f"{max_deals}")
    x = np.asarray(outcomes, np.float64).ravel()
    cdf = np.cumsum(np.full(x.size, 1.0 / x.size) if weights is None else np.asarray(weights, np.float64).ravel())
    cdf /= cdf[-1]
    blocks = max_deals // block
    rng = np.random.default_rng(seed)
    counts = {"H1": 0, "H0": 0}
    used: list[np.ndarray] = []
    decided_deals: list[np.ndarray] = []
    for start in range(0, runs, batch):
        n = min(batch, runs - start)
        def draw(matches: np.ndarray, offset: int, width: int) -> np.ndarray:
            index = np.searchsorted(cdf, rng.random((matches.size, width * block)), side="right")
            return np.asarray(x[np.minimum(index, x.size - 1)].reshape(matches.size, width, block).mean(axis=2))

        outcome, length = read_matches(test, draw, n, blocks, look=look)
        counts["H1"] += int((outcome == 1).sum())
        counts["H0"] += int((outcome == -1).sum())
        used.append(length * block)
        decided_deals.append(length[outcome != 0] * block)
    decided = np.concatenate(decided_deals)
    undecided = runs - counts["H1"] - counts["H0"]
    return Rates(runs, counts["H1"] / runs, counts["H0"] / runs, undecided / runs, float(np.concatenate(used).mean()),
                 float(np.percentile(decided, 99)) if decided.size else math.nan)


def read_matches(test: Sprt, draw: Callable[[np.ndarray, int, int], np.ndarray], n: int, most: int, *,
                 look: int = 1, segment: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """``n`` matches read by ``test`` as ``bench match`` reads one, ``segment`` observations at a
    time, the decided ones dropped as they go.

    Args:
        test: The test.
        draw: ``draw(matches, offset, w)`` gives observations ``offset .. offset + w - 1`` of
            the matches still running (their numbers, ascending), one row each.
        n: How many matches.
        most: Observations a match may read before it ends undecided.
        look: The test is looked at after every ``look`` observations, and after ``most``.
        segment: Observations drawn at once.

    Returns:
        Each match's outcome (1 for H1, -1 for H0, 0 for none) and the observations it read.
    """
    blocks = most
    outcome = np.zeros(n, np.int8)
    length = np.full(n, blocks)
    alive = np.arange(n)
    first = np.zeros(n)  # each match's first observation: the sums are kept about it, for their digits
    total = np.zeros(n)  # sum of (y - first)
    squares = np.zeros(n)  # sum of (y - first)^2
    for offset in range(0, blocks, segment):
        if not alive.size:
            break
        width = min(segment, blocks - offset)
        y = draw(alive, offset, width)
        if offset == 0:
            first[alive] = y[:, 0]
        d = y - first[alive, None]
        count = offset + np.arange(1, width + 1)
        md = (total[alive, None] + np.cumsum(d, axis=1)) / count
        v = np.maximum((squares[alive, None] + np.cumsum(d**2, axis=1)) / count - md**2, 0.0)
        m = md + first[alive, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            llr = count / 2 * np.log((v + (m - test.h0) ** 2) / (v + (m - test.h1) ** 2))
        llr[(v <= test.min_variance) | (count < test.minimum) | ((count % look != 0) & (count != most))] = 0.0
        up, down = llr >= test.upper, llr <= test.lower
        crossed = up | down
        hit = crossed.any(axis=1)
        at = crossed.argmax(axis=1)
        rows = alive[hit]
        outcome[rows] = np.where(up[hit, at[hit]], 1, -1)
        length[rows] = offset + at[hit] + 1
        total[alive] += d.sum(axis=1)
        squares[alive] += (d**2).sum(axis=1)
        alive = alive[~hit]
    return outcome, length


def error_rates(test: Sprt, outcomes: ArrayLike, *, block: int = 1, look: int = 1, max_deals: int, runs: int,
                seed: int) -> dict[str, Rates]:
    """Simulated matches from the outcomes tilted to H0 and to H1 (``tilt``, ``simulate``).

    Args:
        test: The test.
        outcomes: Real per-deal outcomes of a pair.
        block: Deals an observation averages.
        look: Observations between two looks at the test.
        max_deals: Deals a match may take.
        runs: Matches simulated under each hypothesis.
        seed: The seed of the draws (H0's and H1's matches draw from its two children).

    Returns:
        ``{"H0": rates, "H1": rates}``: under H0, ``rates.h1`` estimates alpha; under H1,
            ``rates.h0`` estimates beta.

    Raises:
        SprtError: A hypothesis lies outside the outcomes' range (``tilt``).
    """
    seeds = np.random.SeedSequence(seed).spawn(2)
    return {name: simulate(test, outcomes, tilt(outcomes, mean), block=block, look=look, max_deals=max_deals,
                           runs=runs, seed=int(s.generate_state(1)[0]))
            for name, mean, s in (("H0", test.h0, seeds[0]), ("H1", test.h1, seeds[1]))}


TESTS = ((0.0, 0.005, 0.05), (-0.002, 0.002, 0.05), (-0.002, 0.002, 0.001))  # (H0, H1, alpha = beta)


def sprt_study(outcomes: dict[str, np.ndarray], minimum: Callable[[float, float], int], *,
               tests: tuple[tuple[float, float, float], ...] = TESTS, max_deals: int = 8192, seed: int = 1,
               look: int = 16) -> list[dict[str, Any]]:
    """The error rates of the plain test (free to decide from the second deal) and of the test
    with ``minimum(alpha, beta)`` deals first, on each pair's outcomes tilted to H0 and H1.

    Args:
        outcomes: Each pair's real per-deal outcomes, by name.
        minimum: The deals before a decision, for the error rates (``bench match``'s
            ``deals_minimum``).
        tests: The tests, as (H0, H1, alpha = beta).
        max_deals: Deals a simulated match may take.
        seed: The seed of the draws.
        look: Deals between two looks at the test.

    Returns:
        One row per pair and test: ``pair``, ``h0``, ``h1``, ``alpha``, ``runs`` (4,000 a
            hypothesis, 20,000 below alpha 0.01), the ``minimum``, and for ``plain`` and
            ``with_minimum`` each: ``alpha`` and ``beta`` (the simulated error rates) and
            ``mean_deals`` (under H0 and under H1).
    """
    rows = []
    for name, x in outcomes.items():
        for h0, h1, alpha in tests:
            runs = 20_000 if alpha < 0.01 else 4_000
            row: dict[str, Any] = {"pair": name, "h0": h0, "h1": h1, "alpha": alpha, "runs": runs,
                                   "minimum": minimum(alpha, alpha)}
            for label, least in (("plain", 2), ("with_minimum", row["minimum"])):
                rates = error_rates(Sprt(h0, h1, alpha, alpha, minimum=least), x, look=look, max_deals=max_deals,
                                    runs=runs, seed=seed)
                row[label] = {"alpha": rates["H0"].h1, "beta": rates["H1"].h0,
                              "mean_deals": [rates["H0"].mean_deals, rates["H1"].mean_deals]}
            rows.append(row)
    return rows
