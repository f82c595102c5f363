"""``solve`` per decision, where its time goes, its precision per time, and the command end to end.

    pytest tests/benchmarks/test_solve_perf.py -m perf

Precision per time: a Monte Carlo standard error falls as one over the square root of the
work, so SE x sqrt(time) stays put when only the sample count changes, and falls when the
same precision costs less time. ``extra_info`` gives it for the best play's EV (``ev_se``)
and for the paired difference to the runner-up (``diff_se``), in ms and in yardsticks.
"""

import math
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from bots import solve_hand as solve
from tests.benchmarks.conftest import SEED, random_hands

HANDS = random_hands(64, stream=31)


def _precision(info: dict, found: list) -> None:
    info["ev_se"] = float(np.median([s.ev_se for s in found]))
    diffs = [s.alternatives[0].diff_se for s in found if s.alternatives]
    info["diff_se"] = float(np.median(diffs)) if diffs else None
    for name in ("ev_se", "diff_se"):
        se = info[name]
        info[f"{name}_root_ms"] = se * math.sqrt(info["median_ms"]) if se is not None else None
        info[f"{name}_root_yardsticks"] = se * math.sqrt(info["yardsticks"]) if se is not None else None


def _solve_rounds(benchmark, timed, samples: int, rules: str = "basic") -> None:
    solve(HANDS[0].tolist(), samples=samples, seed=SEED, rules=rules)
    cycle = iter(range(10**9))
    found = []

    def one():
        i = next(cycle)
        found.append(solve(HANDS[i % len(HANDS)].tolist(), samples=samples, seed=SEED + i, rules=rules))

    timed(one, rounds=30)
    info = benchmark.extra_info
    info.update(rules=rules, sample_count=samples, hand_count=min(30, len(HANDS)),
                median_ms=benchmark.stats.stats.median * 1e3)
    for part in ("deal", "arrange", "score"):
        info[f"{part}_ms"] = float(np.median([s.timings[part] for s in found]) * 1e3)
    _precision(info, found)


@pytest.mark.parametrize("samples", [250, 1000, 4000])
def test_solve_per_decision(benchmark, timed, samples):
    _solve_rounds(benchmark, timed, samples)


@pytest.mark.parametrize("rules", ["1-6", "2-4"])
def test_solve_bonus_rules(benchmark, timed, rules):
    """1,000 opponents under a bonus rule: the opponents' table search couples the rows."""
    _solve_rounds(benchmark, timed, 1000, rules)


COMMAND = ["-m", "bench.cli.solve", "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", "--seed", str(SEED), "--json"]


def test_solve_command_end_to_end(benchmark, timed, tmp_path):
    """Wall time of the whole command: first with an empty Numba cache, then warm."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))

    def run() -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, *COMMAND], env=env, check=True, capture_output=True)
        return time.perf_counter() - start

    benchmark.extra_info["cold_s"] = run()
    timed(run, rounds=5)
