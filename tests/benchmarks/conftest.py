"""Shared by the benchmarks: the run's seed, and timing interleaved with the yardstick.

Every figure is timed round by round with the yardstick (``bench/analysis/_yardstick.py``) timed
between its rounds, so that load on the machine weighs on both alike; ``extra_info`` then
holds ``yardstick_ms`` (the median of those yardstick timings) and ``yardsticks`` (the
median over the rounds of each round's time over the yardstick timed just before it, so
that a busy spell weighs on a round and its yardstick together). The seed comes from ``BENCH_PERF_SEED`` (``bench perf --seed``).
"""

import os

import numpy as np
import pytest

from bench.analysis import _yardstick

SEED = int(os.environ.get("BENCH_PERF_SEED", "1"))
YARDSTICK_TIMINGS = 30  # at most this many yardstick timings per figure, spread over its rounds


def pytest_collection_modifyitems(items):
    for item in items:
        if "benchmarks" in item.path.parts:
            item.add_marker(pytest.mark.perf)
            item.add_marker(pytest.mark.slow)  # -m "not slow" replaces addopts' -m "not perf": keep them out still


def pytest_benchmark_update_json(config, benchmarks, output_json):
    from bench.analysis.perf import BASELINES
    from bench.run.versions import installed_version

    output_json["seed"] = SEED
    output_json["select"] = config.option.keyword or None
    output_json["version_by_package"] = {name: installed_version(name) for name in ("numpy", "numba", *BASELINES)}


def rng(stream: int) -> np.random.Generator:
    """The generator of one named use of randomness in the suite, from the run's seed."""
    return np.random.default_rng([stream, SEED])


def random_hands(n: int, stream: int, size: int = 13) -> np.ndarray:
    """``n`` random hands of ``size`` distinct cards, as (n, size) uint8."""
    return np.argsort(rng(stream).random((n, 52)), axis=1)[:, :size].astype(np.uint8)


@pytest.fixture
def timed(benchmark):
    """``timed(target, rounds)``: pytest-benchmark's pedantic rounds, with the yardstick timed
    before every round (or every few rounds), untimed by the benchmark itself."""
    def run(target, rounds: int, args: tuple = ()):
        _yardstick.warm()
        every = max(1, rounds // YARDSTICK_TIMINGS)
        sticks: list[float] = []
        beside: list[float] = []  # for each round, the yardstick timed last before it
        count = iter(range(10**9))

        def setup():
            if next(count) % every == 0:
                sticks.append(_yardstick.one_ms())
            beside.append(sticks[-1])
            return args, {}

        result = benchmark.pedantic(target, setup=setup, rounds=rounds, iterations=1)
        rounds_ms = np.array(benchmark.stats.stats.data) * 1e3
        benchmark.extra_info["yardstick_ms"] = float(np.median(sticks))
        benchmark.extra_info["yardsticks"] = float(np.median(rounds_ms / np.array(beside[-len(rounds_ms):])))
        return result

    return run


@pytest.fixture(scope="session")
def five_card_columns() -> np.ndarray:
    """2,000,000 random five-card rows, as the (5, n) uint8 layout the kernels take."""
    rows = np.argsort(rng(5).random((2_000_000, 52), dtype=np.float32), axis=1)[:, :5]
    return np.ascontiguousarray(rows.T, np.uint8)
