"""The studies behind the README's rule-set figures, so that anyone can run them again.

    python -m bench.cli.studies rules --hands 200 --samples 1000 --seed 1
    python -m bench.cli.studies naturals --hands 150 --samples 1000 --seed 1
    python -m bench.cli.studies frequencies --hands 20000 --seed 1
    python -m bench.cli.studies speed --hands 10 --samples 1000 --seed 5

``rules``: how often the best play under each optional rule set differs from the basic
one (rows compared as sets of cards), and the median time of a solve. ``naturals``: on
random hands that hold a natural, how often declaring it is worth more than the best play
(``naturals`` rules, 4 players), and the best play's EV. ``frequencies``: the share of
random hands that hold each natural. ``speed``: the median time of a solve under basic,
2-4 and 1-6 scoring, in milliseconds and in yardsticks (``bench/analysis/_yardstick.py``, timed
just before each solve in the same process: the median solve over the median yardstick),
with the median standard errors of the best play's EV and of its paired difference to the
runner-up.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from bench.analysis import _yardstick
from bots import solve_hand
from solver.naturals import natural_mask, naturals_of

RULE_SETS = ("basic", "1-6", "2-4", "royalties", "2-4+royalties")


def _hands(n: int, rng: np.random.Generator) -> list[list[int]]:
    return [sorted(rng.permutation(52)[:13].tolist()) for _ in range(n)]


def rule_study(hands: int, samples: int, entropy: int) -> dict[str, Any]:
    rng = np.random.default_rng(entropy)
    dealt = _hands(hands, rng)
    plays: dict[str, list[tuple[frozenset[int], ...]]] = {r: [] for r in RULE_SETS}
    seconds: dict[str, list[float]] = {r: [] for r in RULE_SETS}
    for i, hand in enumerate(dealt):
        for rules in RULE_SETS:
            started = time.perf_counter()
            solution = solve_hand(hand, rules=rules, samples=samples, seed=entropy + i, top=0)
            seconds[rules].append(time.perf_counter() - started)
            plays[rules].append(tuple(frozenset(map(int, row)) for row in solution.arrangement.rows))
    differ = {r: float(np.mean([a != b for a, b in zip(plays[r], plays["basic"])])) for r in RULE_SETS[1:]}
    return {"hands": hands, "samples": samples, "seed": entropy, "differs_from_basic": differ,
            "bonus_methods_differ": float(np.mean([a != b for a, b in zip(plays["1-6"], plays["2-4"])])),
            "median_seconds": {r: float(np.median(v)) for r, v in seconds.items()}}


def natural_study(hands: int, samples: int, entropy: int) -> dict[str, Any]:
    rng = np.random.default_rng(entropy)
    found: list[list[int]] = []
    while len(found) < hands:
        batch = np.argsort(rng.random((4096, 52)), axis=1)[:, :13]
        found += [sorted(h) for h in batch[natural_mask(batch)].tolist()][: hands - len(found)]
    declare: list[bool] = []
    best_play: list[float] = []
    kinds: dict[str, int] = {}
    for i, hand in enumerate(found):
        solution = solve_hand(hand, rules="naturals", samples=samples, seed=entropy + i, top=0, players=4)
        declare.append(solution.declare)
        best_play.append(solution.ev / solution.opponents)
        kind = str(solution.natural)
        kinds[kind] = kinds.get(kind, 0) + 1
    return {"hands": hands, "samples": samples, "seed": entropy, "declare_share": float(np.mean(declare)),
            "best_play_ev_per_opponent": {"max": float(np.max(best_play)), "median": float(np.median(best_play))},
            "naturals": kinds}


def frequency_study(hands: int, entropy: int) -> dict[str, Any]:
    rng = np.random.default_rng(entropy)
    dealt = np.argsort(rng.random((hands, 52)), axis=1)[:, :13]
    counts: dict[str, int] = {}
    for hand in dealt[natural_mask(dealt)].tolist():
        for natural in naturals_of(hand):
            counts[natural.kind] = counts.get(natural.kind, 0) + 1
    return {"hands": hands, "seed": entropy, "share": {k: v / hands for k, v in sorted(counts.items())},
            "dragon_exact": 4 ** 13 / 635_013_559_600}  # 13 ranks, any suit each, of C(52, 13) hands


def speed_study(hands: int, samples: int, entropy: int) -> dict[str, Any]:
    rng = np.random.default_rng(entropy)
    dealt = _hands(hands, rng)
    out: dict[str, Any] = {"hands": hands, "samples": samples, "seed": entropy}
    for rules in ("basic", "2-4", "1-6"):
        solve_hand(dealt[0], rules=rules, samples=samples, seed=0)  # compiled and loaded before timing
        seconds, sticks, ses, diff_ses = [], [], [], []
        for i, hand in enumerate(dealt):
            sticks.append(_yardstick.one_ms())
            started = time.perf_counter()
            solution = solve_hand(hand, rules=rules, samples=samples, seed=entropy + i)
            seconds.append((time.perf_counter() - started) * 1e3)
            ses.append(solution.ev_se)
            diff_ses += [solution.alternatives[0].diff_se] if solution.alternatives else []
        ms, stick = float(np.median(seconds)), float(np.median(sticks))
        ratio = float(np.median(np.divide(seconds, sticks)))  # each hand over the yardstick timed just before it
        out[rules] = {"median_ms": ms, "yardstick_ms": stick, "median_yardsticks": ratio,
                      "ev_se": float(np.median(ses)), "diff_se": float(np.median(diff_ses)) if diff_ses else None}
    return out
