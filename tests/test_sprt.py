"""The SPRT of ``bench match``: what it refuses, when it must not decide, and what it says."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bench.analysis.sprt import Moments, Sprt, SprtError
from bench.cli import main as bench_main
from bench.cli.parsing import NUMBER_LIST
from solver import system
from tests.helpers import ENV, ROOT
from tests.helpers import bench as _bench


class SlowBot:
    """Plays like greedy, but on a hand with the ace of spades leaves a mark (the file named by
    SLOW_BOT_MARK) and sleeps a minute: a match with it cannot finish its first look."""

    name = "slow"

    def arrange(self, cards, rng):
        from bots import make_bot

        if 51 in [int(c) for c in cards]:
            Path(os.environ["SLOW_BOT_MARK"]).touch()
            time.sleep(60)
        return make_bot("greedy").arrange(cards, rng)


# --- the test itself --------------------------------------------------------------------------


@pytest.mark.parametrize("observations", [[0.0] * 64, [0.25] * 16, [-1.5] * 1000, [3.0, 3.0 + 1e-12] * 50])
def test_no_spread_decides_nothing(observations):
    """Identical (or all but identical) deal results carry no variance: the ratio is 0, not ±inf."""
    for h0, h1 in [(0.0, 0.05), (-0.01, 0.01), (0.2, 0.3), (-2.0, -1.0)]:
        test = Sprt(h0, h1)
        assert test.llr(observations) == 0.0
        assert test.decide(test.llr(observations)) is None
        assert "no variance" in test.no_evidence(observations)
        paths = test.llr_paths(np.array([observations]))
        assert np.isfinite(paths).all() and (paths == 0).all()


def test_a_little_spread_is_enough_and_the_ratio_stays_finite():
    """One deal in a hundred differing: the variance is small but real; the ratio is finite and
    points the right way (the mean is near 0, far below H1)."""
    x = [0.0] * 99 + [0.5]
    test = Sprt(0.0, 0.05)
    assert test.no_evidence(x) is None
    llr = test.llr(x)
    assert math.isfinite(llr) and llr < test.lower


def test_the_ratio_is_the_normal_glr_with_estimated_variance():
    """Against the likelihoods written out: normal densities with each hypothesis's maximum
    likelihood variance; and no ratio at all on a stream with no spread."""
    x = np.random.default_rng(3).normal(0.02, 0.8, 200)
    test = Sprt(-0.01, 0.05)

    def log_likelihood(h):
        var = np.mean((x - h) ** 2)
        return float(np.sum(-0.5 * np.log(2 * np.pi * var) - (x - h) ** 2 / (2 * var)))

    assert test.llr(x) == pytest.approx(log_likelihood(0.05) - log_likelihood(-0.01), rel=1e-9)
    assert test.llr(np.full(200, 0.05)) == 0.0


BAD_TESTS = [
    (0.0, math.inf, 0.05, 0.05, "must be finite"),
    (-math.inf, 0.0, 0.05, 0.05, "must be finite"),
    (math.nan, 0.1, 0.05, 0.05, "must be finite"),
    (0.0, 0.0, 0.05, 0.05, "H0 must be below H1"),
    (0.1, 0.0, 0.05, 0.05, "H0 must be below H1"),
    (-1e308, 1e308, 0.05, 0.05, "too far apart"),
    (0.0, 0.1, 0.0, 0.05, "alpha must be above 0"),
    (0.0, 0.1, 1.0, 0.05, "alpha must be above 0"),
    (0.0, 0.1, math.nan, 0.05, "alpha must be above 0"),
    (0.0, 0.1, 0.05, 0.5, "beta must be above 0"),
    (0.0, 0.1, 0.05, -0.1, "beta must be above 0"),
]


def test_hypotheses_and_rates_that_make_no_test_are_refused():
    for h0, h1, alpha, beta, message in BAD_TESTS:
        with pytest.raises(SprtError, match=message):
            Sprt(h0, h1, alpha, beta)


@pytest.mark.parametrize("alpha, beta", [(1e-320, 0.05), (1e-320, 1e-320), (5e-324, 5e-324)])
def test_the_bounds_are_finite_for_every_accepted_rate(alpha, beta):
    """Rates too small for (1 - beta) / alpha to be a float still give bounds the ratio can
    reach: ln(1 - beta) - ln(alpha)."""
    test = Sprt(0.0, 0.05, alpha, beta)
    assert math.isfinite(test.lower) and math.isfinite(test.upper)
    assert test.upper == pytest.approx(math.log(1 - beta) - math.log(alpha))
    assert test.lower == pytest.approx(math.log(beta) - math.log(1 - alpha))
    assert test.decide(test.upper) == "H1" and test.decide(test.lower) == "H0"


def test_non_finite_observations_are_refused():
    with pytest.raises(SprtError, match="finite"):
        Sprt(0.0, 0.1).llr([0.0, math.nan, 1.0])


def test_moments_merged_look_by_look_give_the_ratio_of_all_the_deals():
    """A match keeps the count, mean and squared deviations of the deals, merged every 16
    deals: the ratio and the no-spread rule come out as from every observation at once."""
    x = np.random.default_rng(7).normal(0.03, 1.3, 16 * 40 + 5)
    merged = Moments()
    for start in range(0, x.size, 16):
        merged = merged.add(x[start:start + 16])
    test = Sprt(0.0, 0.05)
    assert merged.n == x.size and merged.mean == pytest.approx(x.mean(), rel=1e-12)
    assert merged.variance == pytest.approx(x.var(), rel=1e-12)
    assert test.llr(merged) == pytest.approx(test.llr(x), rel=1e-9)
    flat = Moments()
    for _ in range(100):
        flat = flat.add([-0.5] * 16)
    assert flat.m2 == 0.0 and test.llr(flat) == 0.0 and test.no_evidence(flat)


def test_a_match_too_long_to_plan_is_refused_before_any_work(monkeypatch, capsys):
    """--max-deals whose plan of deals would not fit in the memory left: one line naming the
    estimate and the limit, exit 2, no deal played."""
    monkeypatch.setattr(system, "available_memory", lambda: 2**30)
    status = bench_main(["match", "greedy", "table", "--max-deals", "6000000", "--seed", "1", "--jobs", "1"])
    out = capsys.readouterr()
    assert status == 2 and out.out == "", out
    assert "--max-deals 6,000,000 would need about 1.1 GiB of memory" in out.err and "1.0 GiB available" in out.err


def test_verdicts_name_what_was_accepted():
    assert Sprt(-0.01, 0.01).verdict("H1") == "H1 (+0.01) accepted over H0 (-0.01) at alpha=beta=0.05"
    assert Sprt(0, 0.5, 0.01, 0.1).verdict("H0") == "H0 (+0) accepted over H1 (+0.5) at alpha=0.01, beta=0.1"


# --- bench match ------------------------------------------------------------------------------


@pytest.mark.slow
def test_two_bots_that_play_alike_decide_nothing_and_say_why():
    """table and table:rules=basic play every hand the same: each deal scores 0, and the match
    must run to --max-deals undecided, saying that there was no variance."""
    done = _bench("match", "table", "table:rules=basic", "--max-deals", "48", "--seed", "1", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert "no decision before --max-deals, after 48 deals" in first and "no variance" in first, done.stdout
    as_json = json.loads(_bench("match", "table", "table:rules=basic", "--max-deals", "48", "--seed", "1",
                                "--jobs", "1", "--json").stdout)
    assert as_json["decision"] == "none" and as_json["llr"] == 0 and "no variance" in as_json["no_evidence"]


@pytest.mark.slow
def test_bench_match_refuses_bounds_that_make_no_test():
    for value, message in [("-inf,0", "must be finite"), ("0,inf", "must be finite"), ("nan,1", "must be finite"),
                           ("0,0", "H0 must be below H1"), ("1,2,3", "--sprt takes two numbers")]:
        done = _bench("match", "greedy", "table", f"--sprt={value}", "--seed", "1", "--jobs", "1", "--max-deals", "16")
        assert done.returncode == 2, (value, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr, (value, done.stderr)


@pytest.mark.slow
@pytest.mark.parametrize("flag", [["--alpha", "0"], ["--beta", "1"], ["--alpha", "nan"], ["--beta", "inf"]])
def test_bench_match_refuses_error_rates_that_make_no_test(flag):
    done = _bench("match", "greedy", "table", *flag, "--seed", "1", "--jobs", "1", "--max-deals", "16")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "must be above 0 and below 0.5" in done.stderr


@pytest.mark.slow
def test_a_negative_first_bound_is_a_value():
    """``--sprt -0.01,0.01``, written the natural way, reaches the test; its verdict names what
    was accepted, with A's mean and 95% interval beside it."""
    done = _bench("match", "greedy", "table", "--sprt", "-0.01,0.01", "--seed", "1", "--jobs", "1",
                  "--estimator", "duplicate")  # decides at the minimum, 528 deals
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert "H0 (-0.01) accepted over H1 (+0.01) at alpha=beta=0.05" in first, done.stdout
    assert "A's mean -" in first and "95% interval [" in first
    assert NUMBER_LIST.match("-0.01,0.01") and NUMBER_LIST.match("-inf,0") and not NUMBER_LIST.match("--sprt")


@pytest.mark.slow
def test_fewer_deals_than_one_look():
    """--max-deals below the 16 deals of a look: the test is looked at once, on what was played."""
    done = _bench("match", "greedy", "table", "--max-deals", "5", "--seed", "1", "--jobs", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["deal_count"] == 5
    one = _bench("match", "greedy", "table", "--max-deals", "1", "--seed", "1", "--jobs", "1")
    assert one.returncode == 0 and "after 1 deal " in one.stdout and "cannot show a variance" in one.stdout, one


@pytest.mark.slow
@pytest.mark.parametrize("backend", [["--backend", "sequential", "--jobs", "1"], ["--jobs", "2"]])
def test_ctrl_c_before_the_first_look_prints_what_it_has(tmp_path, backend):
    """A bot that sleeps a minute on the first look's deals: Ctrl-C then must end the match
    promptly with its (empty) result, exit 130, and no internal error."""
    mark = tmp_path / "sleeping"
    process = subprocess.Popen([sys.executable, "-m", "bench.cli", "match", "tests.test_sprt:SlowBot", "greedy",
                                "--seed", "1", *backend], cwd=ROOT, env=ENV | {"SLOW_BOT_MARK": str(mark)},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not mark.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        assert mark.exists(), process.communicate(timeout=60)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=50)  # far below the bot's minute of sleep
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr
    assert "no decision (stopped) after 0 deals" in stdout, stdout
