"""Evaluator and all-splits throughput, with Python-callable evaluators as baselines.

    pytest tests/benchmarks -m perf --benchmark-json=perf.json

Ratios are taken within one run; ``extra_info`` carries evaluations per second.
"""

import os
import subprocess
import sys
import time

import numba
import pytest

from solver import _evaluator
from solver.splits import count_legal
from tests.benchmarks.conftest import random_hands

BASELINE_HANDS = 20_000


def _per_second(benchmark, n: int) -> None:
    benchmark.extra_info["per_second"] = n / benchmark.stats.stats.median


def test_eval5_one_core(benchmark, timed, five_card_columns):
    _evaluator.eval5_columns(five_card_columns[:, :10])
    timed(_evaluator.eval5_columns, rounds=30, args=(five_card_columns,))
    _per_second(benchmark, five_card_columns.shape[1])


def test_eval5_all_cores(benchmark, timed, five_card_columns):
    _evaluator.eval5_columns_parallel(five_card_columns[:, :10])
    timed(_evaluator.eval5_columns_parallel, rounds=30, args=(five_card_columns,))
    _per_second(benchmark, five_card_columns.shape[1])
    benchmark.extra_info["threads"] = numba.get_num_threads()


def test_baseline_phevaluator(benchmark, timed, five_card_columns):
    phevaluator = pytest.importorskip("phevaluator")
    # phevaluator's ids are rank * 4 + suit too (suits in another order, which is irrelevant here).
    hands = five_card_columns[:, :BASELINE_HANDS].T.tolist()
    evaluate = phevaluator.evaluate_cards
    timed(lambda: [evaluate(*h) for h in hands], rounds=10)
    _per_second(benchmark, BASELINE_HANDS)


def test_baseline_eval7(benchmark, timed, five_card_columns):
    eval7 = pytest.importorskip("eval7")
    names = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    deck = [eval7.Card(n) for n in names]
    hands = [[deck[c] for c in h] for h in five_card_columns[:, :BASELINE_HANDS].T.tolist()]
    evaluate = eval7.evaluate
    timed(lambda: [evaluate(h) for h in hands], rounds=10)
    _per_second(benchmark, BASELINE_HANDS)


def test_baseline_treys(benchmark, timed, five_card_columns):
    treys = pytest.importorskip("treys")
    names = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    deck = [treys.Card.new(n) for n in names]
    hands = [[deck[c] for c in h] for h in five_card_columns[:, :BASELINE_HANDS].T.tolist()]
    evaluator = treys.Evaluator()
    evaluate = evaluator._five
    timed(lambda: [evaluate(h) for h in hands], rounds=10)
    _per_second(benchmark, BASELINE_HANDS)


def test_baseline_pokerkit(benchmark, timed, five_card_columns):
    pokerkit = pytest.importorskip("pokerkit")
    names = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    deck = [list(pokerkit.Card.parse(n))[0] for n in names]
    hands = [[deck[c] for c in h] for h in five_card_columns[:, :BASELINE_HANDS // 4].T.tolist()]
    evaluate = pokerkit.StandardHighHand
    timed(lambda: [evaluate(h) for h in hands], rounds=10)
    _per_second(benchmark, len(hands))


@pytest.mark.parametrize("canonical", [True, False], ids=["canonical", "full"])
def test_all_splits_one_core(benchmark, timed, canonical):
    """All 72,072 splits of 1,000 hands evaluated and foul-checked, in one kernel call."""
    hands = random_hands(1_000, stream=7)
    count_legal(hands[:2], canonical=canonical)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        timed(count_legal, rounds=10, args=(hands, canonical))
    finally:
        numba.set_num_threads(threads)
    benchmark.extra_info["ms_per_hand"] = benchmark.stats.stats.median / len(hands) * 1e3


_FIRST_CALLS = """
import time
t0 = time.perf_counter()
import numpy as np
import solver
from solver import _evaluator
t1 = time.perf_counter()
_evaluator.eval5_columns(np.zeros((5, 1), np.uint8))
_evaluator.eval3_columns(np.zeros((3, 1), np.uint8))
solver.count_legal(np.arange(13, dtype=np.uint8)[None, :])
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def test_compile_then_warm_start(benchmark, timed, tmp_path):
    """A process with an empty Numba cache (compiling) against one that starts warm."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))

    def run() -> tuple[float, float, float]:
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", _FIRST_CALLS], env=env, check=True, capture_output=True, text=True)
        imported, first_calls = map(float, out.stdout.split())
        return time.perf_counter() - start, imported, first_calls

    cold_wall, _, cold_calls = run()
    warm = timed(run, rounds=3)
    benchmark.extra_info.update(
        cold_wall_s=cold_wall, cold_first_calls_s=cold_calls, warm_wall_s=warm[0], warm_first_calls_s=warm[2]
    )
