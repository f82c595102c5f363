"""The yardstick every figure is given against (``bench/analysis/_yardstick.py``), alone, and numpy
sorting 2 million random doubles beside it, the unit of earlier reports.

    pytest tests/benchmarks/test_yardstick_perf.py -m perf
"""

import time

import numpy as np

from bench.analysis import _yardstick
from tests.benchmarks.conftest import rng

DOUBLES = rng(37).random(2_000_000)


def test_yardstick(benchmark):
    _yardstick.warm()
    benchmark.pedantic(_yardstick._classify, args=(_yardstick.hands(),), rounds=15, iterations=1)
    sorts = []
    for _ in range(15):
        started = time.perf_counter()
        np.sort(DOUBLES)
        sorts.append(time.perf_counter() - started)
    benchmark.extra_info["median_ms"] = benchmark.stats.stats.median * 1e3
    benchmark.extra_info["numpy_sort_ms"] = float(np.median(sorts) * 1e3)
