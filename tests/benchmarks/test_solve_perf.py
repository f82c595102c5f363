"""``solve`` per decision, where its time goes, and the command end to end.

    pytest tests/benchmarks/test_solve_perf.py -m perf
"""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from bots import solve_hand as solve

HANDS = np.argsort(np.random.default_rng(31).random((64, 52)), axis=1)[:, :13].astype(np.uint8)


def _solve_rounds(benchmark, samples: int, rules: str = "basic") -> None:
    solve(HANDS[0].tolist(), samples=samples, seed=0, rules=rules)
    cycle = iter(range(10**9))
    found = []

    def one():
        i = next(cycle)
        found.append(solve(HANDS[i % len(HANDS)].tolist(), samples=samples, seed=i, rules=rules))

    benchmark.pedantic(one, rounds=30, iterations=1)
    for part in ("deal", "arrange", "score"):
        benchmark.extra_info[f"{part}_ms"] = float(np.median([s.timings[part] for s in found]) * 1e3)
    benchmark.extra_info["ev_se"] = float(np.median([s.ev_se for s in found]))


@pytest.mark.parametrize("samples", [250, 1000, 4000])
def test_solve_per_decision(benchmark, samples):
    _solve_rounds(benchmark, samples)


@pytest.mark.parametrize("rules", ["1-6", "2-4"])
def test_solve_bonus_rules(benchmark, rules):
    """1,000 opponents under a bonus rule: the opponents' table search couples the rows."""
    _solve_rounds(benchmark, 1000, rules)


COMMAND = ["-m", "bench.solve", "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C", "--seed", "1", "--json"]


def test_solve_command_end_to_end(benchmark, tmp_path):
    """Wall time of the whole command: first with an empty Numba cache, then warm."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))

    def run() -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, *COMMAND], env=env, check=True, capture_output=True)
        return time.perf_counter() - start

    benchmark.extra_info["cold_s"] = run()
    benchmark.pedantic(run, rounds=5, iterations=1)
