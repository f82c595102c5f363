"""The line protocol's own cost: decisions per second with a bot that answers at once.

    pytest tests/benchmarks/test_protocol_perf.py -m perf
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from bots.base import checked_arrangement
from bots.protocol import ProtocolBot, ProtocolSpec
from solver import parse_hand
from tests.benchmarks.conftest import SEED

ECHO = Path(__file__).resolve().parents[1] / "protocol" / "echo_bot.py"


@pytest.mark.perf
def test_protocol_decisions_per_second(benchmark, timed):
    bot = ProtocolBot(ProtocolSpec("echo", (sys.executable, str(ECHO))))
    cards = parse_hand("AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C")
    rng = np.random.default_rng(SEED)
    try:
        for _ in range(100):
            checked_arrangement(bot, cards, rng)
        timed(lambda: checked_arrangement(bot, cards, rng), rounds=2000)
    finally:
        bot.close()
    benchmark.extra_info["per_second"] = 1.0 / benchmark.stats.stats.median
