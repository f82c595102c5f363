"""Tournament throughput for 4-player fields of one bot, one worker.

    pytest tests/benchmarks/test_tournament_perf.py -m perf

A hand here is one player's 13 cards of a deal, set by its bot and scored in every
seating; a field of four copies of one spec sets each hand once.
"""

import pytest

from bench.run.runner import run_deals
from tests.benchmarks.conftest import SEED

FIELDS = {"greedy": ("greedy", 64), "table": ("table", 64), "exhaustive": ("exhaustive", 4)}


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_four_player_field(benchmark, timed, field):
    spec, deals = FIELDS[field]
    specs = [spec] * 4
    run_deals(specs, 4, entropy=SEED, n_deals=2)
    timed(run_deals, rounds=3, args=(specs, 4, SEED, deals))
    benchmark.extra_info["deals_per_second"] = deals / benchmark.stats.stats.median
    benchmark.extra_info["hands_per_second"] = deals * 4 / benchmark.stats.stats.median
