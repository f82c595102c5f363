"""The yardstick every timing is also given against: numpy sorting 2 million random doubles.

A ratio to it, measured in the same run, moves far less than seconds do on a busy machine.

    pytest tests/benchmarks/test_yardstick_perf.py -m perf
"""

import numpy as np

YARDSTICK = np.random.default_rng(37).random(2_000_000)


def test_yardstick(benchmark):
    benchmark.pedantic(lambda: np.sort(YARDSTICK), rounds=15, iterations=1)
    benchmark.extra_info["median_ms"] = benchmark.stats.stats.median * 1e3
