"""The bot in examples/bots works the way the README says: by import path, from the command
line, with its parameters read from the spec."""

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.helpers import ROOT, bench

HAND = "AS AD KH KC QS QD JH JC TS TD 9H 9C 2S"


def _bench(*args: str) -> subprocess.CompletedProcess:
    return bench(*args, env=os.environ | {"PYTHONPATH": str(ROOT / "examples" / "bots")})


@pytest.mark.slow
def test_the_example_bot_plays_from_the_command_line():
    """Fails if the README's example commands stop working or the parameter is not read."""
    done = _bench("arrange", "--bot", "pair_first:PairFirstBot:min_pair=8", HAND, "--json")
    assert done.returncode == 0, done.stderr
    assert '"front": "AS AD' in done.stdout and '"foul": false' in done.stdout
    done = _bench("tournament", "--bots", "pair_first:PairFirstBot:min_pair=8,greedy", "--sessions", "1",
                  "--seed", "1", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert "pair_first:PairFirstBot:min_pair=8" in done.stdout
    done = _bench("exploit", "--bot", "pair_first:PairFirstBot:min_pair=8", "--hands", "2", "--seed", "1",
                  "--samples", "30", "--eval-samples", "30")
    assert done.returncode == 0, done.stderr
    assert "exhaustive:samples=30 against pair_first:PairFirstBot:min_pair=8" in done.stdout
    done = _bench("arrange", "--bot", "pair_first:PairFirstBot:min_pair=20", HAND)
    assert done.returncode == 2 and "min_pair must be a rank from 2 to 14" in done.stderr


def test_the_example_bot_never_fouls_and_keeps_its_cards():
    sys.path.insert(0, str(ROOT / "examples" / "bots"))
    try:
        from pair_first import PairFirstBot
    finally:
        sys.path.pop(0)
    from bots import checked_arrangement
    from solver import Card, is_foul
    from tests.conftest import random_hands

    bot = PairFirstBot(min_pair=6)
    for hand in random_hands(np.random.default_rng(8), 200):
        arrangement = checked_arrangement(bot, tuple(Card(int(c)) for c in hand), np.random.default_rng(0))
        assert not is_foul(arrangement)
    with pytest.raises(ValueError, match="min_pair"):
        PairFirstBot(min_pair=1)


def test_the_readme_studies_run():
    """The studies behind the README's rule-set figures run (on tiny sizes here)."""
    from bench.analysis.studies import natural_study, rule_study

    rules = rule_study(hands=2, samples=50, entropy=1)
    assert set(rules["differs_from_basic"]) == {"1-6", "2-4", "royalties", "2-4+royalties"}
    naturals = natural_study(hands=2, samples=50, entropy=1)
    assert sum(naturals["naturals"].values()) == 2 and 0 <= naturals["declare_share"] <= 1


def test_the_speed_study_takes_medians_of_times_and_of_ratios(monkeypatch):
    """The study on a clock of its own, so that its figures are known exactly (no speed is
    measured or asserted): every reading of the clock advances it 1 ms, the yardsticks timed
    before the three hands take 1, 3 and 2 ms, and each solve advances the clock by a set
    amount, so a hand's time is that amount plus 1 ms. For basic, solves of 9, 29 and 4 ms
    make times of 10, 30 and 5 ms: median 10 ms; ratios 10, 10 and 2.5, median 10 (the
    ratio of the medians would be 5). The standard errors are the medians of the
    solutions'. Fails if the study times the wrong thing, takes a mean, divides the other
    way or by another hand's yardstick, or solves with other seeds than seed + i."""
    import itertools
    import types

    from bench.analysis import _yardstick, studies

    extra = {"basic": [9, 29, 4], "2-4": [19, 1, 49], "1-6": [5, 5, 99]}  # ms a solve of hand i takes
    clock = [0.0]
    solved = []

    def perf_counter() -> float:
        clock[0] += 0.001
        return clock[0]

    def solve_hand(hand, *, rules, samples, seed):
        solved.append((tuple(hand), rules, samples, seed))
        if seed == 0:  # the warm-up solve, before the timed ones
            return types.SimpleNamespace(ev_se=None, alternatives=[])
        clock[0] += extra[rules][seed - 5] / 1000
        runner_up = types.SimpleNamespace(diff_se=seed / 100)
        return types.SimpleNamespace(ev_se=seed / 10, alternatives=[runner_up])

    monkeypatch.setattr(studies, "time", types.SimpleNamespace(perf_counter=perf_counter))
    sticks = itertools.cycle([1.0, 3.0, 2.0])
    monkeypatch.setattr(_yardstick, "one_ms", lambda: next(sticks))
    monkeypatch.setattr(studies, "solve_hand", solve_hand)
    result = studies.speed_study(hands=3, samples=20, entropy=5)
    expected = {"basic": (10, 10), "2-4": (20, 20), "1-6": (6, 6)}  # 2-4: 20, 2, 50 ms; 1-6: 6, 6, 100 ms
    for rules, (ms, ratio) in expected.items():
        assert result[rules]["median_ms"] == pytest.approx(ms, abs=1e-9)
        assert result[rules]["yardstick_ms"] == 2.0
        assert result[rules]["median_yardsticks"] == pytest.approx(ratio, abs=1e-9)
        assert result[rules]["ev_se"] == pytest.approx(0.6) and result[rules]["diff_se"] == pytest.approx(0.06)
        timed = [(hand, seed) for hand, r, samples, seed in solved if r == rules and samples == 20 and seed]
        assert [seed for _, seed in timed] == [5, 6, 7]
        assert len({hand for hand, _ in timed}) == 3 and all(len(set(h)) == 13 for h, _ in timed)
    assert (result["hands"], result["samples"], result["seed"]) == (3, 20, 5)
