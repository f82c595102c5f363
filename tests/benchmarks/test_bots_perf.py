"""Decision time of every bot, one hand at a time and (where offered) in a batch.

    pytest tests/benchmarks/test_bots_perf.py -m perf
"""

import numpy as np
import pytest

from bots import BOTS, arrange_many, make_bot
from solver import Card, config
from tests.benchmarks.conftest import random_hands, rng


def _hands(n: int) -> np.ndarray:
    return random_hands(n, stream=21)


def _percentiles(benchmark) -> None:
    data = np.array(benchmark.stats.stats.data)
    benchmark.extra_info["median_ms"] = float(np.median(data) * 1e3)
    benchmark.extra_info["p95_ms"] = float(np.percentile(data, 95) * 1e3)


@pytest.mark.parametrize("name", sorted(BOTS))
def test_one_decision(benchmark, timed, name):
    bot = make_bot(name)
    hands = [tuple(Card(int(c)) for c in h) for h in _hands(200)]
    generator = rng(0)
    bot.arrange(hands[0], generator)
    cycle = iter(range(10**9))
    rounds = 30 if name == "exhaustive" else 200
    timed(lambda: bot.arrange(hands[next(cycle) % len(hands)], generator), rounds=rounds)
    _percentiles(benchmark)


def _batch_of_1000(benchmark, timed, name: str) -> None:
    bot = make_bot(name)
    hands = _hands(1_000)
    generator = rng(0)
    arrange_many(bot, hands[:2], generator)
    timed(arrange_many, rounds=20, args=(bot, hands, generator))
    benchmark.extra_info["ms_per_hand"] = benchmark.stats.stats.median / len(hands) * 1e3
    benchmark.extra_info["yardsticks_per_hand"] = benchmark.extra_info["yardsticks"] / len(hands)


@pytest.mark.parametrize("name", ["greedy", "heuristic", "table"])
def test_batch_of_1000(benchmark, timed, name):
    _batch_of_1000(benchmark, timed, name)


@pytest.mark.parametrize("name", ["greedy", "heuristic", "table"])
def test_batch_of_1000_one_core(benchmark, timed, monkeypatch, name):
    """As above with the batch kept on one core (large batches are otherwise split over the cores)."""

    monkeypatch.setattr(config, "PARALLEL_BATCH", 10**9)
    _batch_of_1000(benchmark, timed, name)


@pytest.mark.parametrize("name", ["table:rules=2-4:coupling=false", "table:rules=2-4", "table:rules=1-6:coupling=false",
                                  "table:rules=1-6"])
def test_bonus_rule_batch_of_1000(benchmark, timed, name):
    """``table`` under a bonus rule, with and without the coupling of the rows weighed again."""
    _batch_of_1000(benchmark, timed, name)
