"""When the SPRT of ``bench match`` decides, and on what, by docs/match.md: Wald's bounds, the
GSPRT ratio written out for small samples by hand, the range of hypotheses a deal allows, the
rates, the no-spread rule, and the ratio after each observation equal to the ratio of that
prefix. Fast: nothing here plays a deal."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.analysis.sprt import Moments, Sprt, SprtError


@pytest.mark.parametrize("alpha, beta", [(0.05, 0.05), (0.01, 0.1), (0.2, 0.001), (0.49, 0.3)])
def test_walds_bounds(alpha, beta):
    """docs/match.md: H1 when the LLR reaches ln((1 - beta) / alpha), H0 when it falls to
    ln(beta / (1 - alpha)); between them the match goes on."""
    test = Sprt(0.0, 0.1, alpha, beta)
    upper, lower = math.log((1 - beta) / alpha), math.log(beta / (1 - alpha))
    assert (test.upper, test.lower) == (pytest.approx(upper, rel=1e-12), pytest.approx(lower, rel=1e-12))
    assert test.decide(test.upper) == "H1" and test.decide(test.upper + 1e-9) == "H1"
    assert test.decide(test.lower) == "H0" and test.decide(test.lower - 1e-9) == "H0"
    assert test.decide(math.nextafter(test.upper, 0)) is None and test.decide(math.nextafter(test.lower, 0)) is None
    assert test.decide(0.0) is None


def test_the_default_bounds_are_2_944():
    """docs/match.md: ±2.944 for alpha = beta = 0.05, the defaults."""
    test = Sprt(-0.01, 0.01)
    assert (test.alpha, test.beta) == (0.05, 0.05)
    assert round(test.upper, 3) == 2.944 and round(test.lower, 3) == -2.944


@pytest.mark.parametrize("x, h0, h1", [
    ([0.0, 1.0], 0.0, 0.5),  # m = 0.5, v = 0.25: s0² = 0.5, s1² = 0.25
    ([1.0, 1.0, -1.0, 3.0], -0.5, 0.25),  # m = 1, v = 2: s0² = 4.25, s1² = 2.5625
    ([-2.0, -1.0, 0.0], -1.0, 1.0),  # m = -1, v = 2/3: s0² = 2/3, s1² = 4 + 2/3
])
def test_the_ratio_is_n_over_2_ln_s0_over_s1(x, h0, h1):
    """docs/match.md: LLR = n/2 ln(s0² / s1²), sk² = v + (m - Hk)², v the variance about the
    mean (over n); worked for each sample by hand."""
    n, m = len(x), sum(x) / len(x)
    v = sum((xi - m) ** 2 for xi in x) / n
    expected = n / 2 * math.log((v + (m - h0) ** 2) / (v + (m - h1) ** 2))
    test = Sprt(h0, h1)
    assert test.llr(x) == pytest.approx(expected, rel=1e-12)
    assert test.llr(Moments.of(x)) == pytest.approx(expected, rel=1e-12)
    assert Sprt(0.0, 0.5).llr([0.0, 1.0]) == pytest.approx(math.log(2), rel=1e-12)


def test_hypotheses_within_what_a_deal_can_score():
    """docs/match.md: H0 and H1 within what a deal can score under the match's rules (±3 units
    under basic, ±6 under 1-6, ``most``), the limits themselves included."""
    Sprt(-3.0, 3.0)
    Sprt(-6.0, 6.0, most=6.0)
    Sprt(2.99, 3.0)
    for h0, h1, most in [(-3.001, 0.0, 3.0), (0.0, 3.001, 3.0), (-6.5, 0.0, 6.0), (0.0, 4.0, 3.0)]:
        with pytest.raises(SprtError, match=f"-{most:g} to \\+{most:g} units"):
            Sprt(h0, h1, most=most)


@pytest.mark.parametrize("rate", [1e-9, 0.25, 0.4999])
def test_rates_above_0_and_below_0_5_are_accepted(rate):
    assert Sprt(0.0, 0.1, rate, rate).alpha == rate
    for bad in (0.0, 0.5, -rate, 1.0 - rate):
        with pytest.raises(SprtError, match="alpha must be above 0 and below 0.5"):
            Sprt(0.0, 0.1, bad, rate)
        with pytest.raises(SprtError, match="beta must be above 0 and below 0.5"):
            Sprt(0.0, 0.1, rate, bad)


def test_the_refusals_name_the_hypotheses():
    with pytest.raises(SprtError, match=r"H0 must be below H1, got H0 = 0.2 and H1 = 0.1"):
        Sprt(0.2, 0.1)
    with pytest.raises(SprtError, match=r"H0 and H1 must be finite numbers, got H0 = nan and H1 = 0.1"):
        Sprt(math.nan, 0.1)


def test_too_close_to_test():
    """H1 - H0 so small that a millionth of it is no number above 0: refused."""
    with pytest.raises(SprtError, match="too far apart or too close"):
        Sprt(0.0, 5e-324)
    Sprt(0.0, 1e-300)


@pytest.mark.parametrize("h0, h1", [(0.0, 0.05), (-1.0, 1.0)])
def test_a_spread_below_a_millionth_of_h1_minus_h0_decides_nothing(h0, h1):
    """docs/match.md: while the standard deviation is zero or below a millionth of H1 - H0 the
    LLR is 0 and nothing is decided; just above it, the ratio speaks."""
    width = h1 - h0
    test = Sprt(h0, h1)
    for sd, no_spread in [(0.5e-6 * width, True), (0.99e-6 * width, True), (1.5e-6 * width, False), (1e-3, False)]:
        x = [h1 - sd, h1 + sd] * 20  # the mean at H1, standard deviation sd
        assert (test.no_evidence(x) is not None) == no_spread, sd
        assert (test.llr(x) == 0.0) == no_spread, sd
        if not no_spread:
            assert test.llr(x) > 0 and test.decide(test.llr(x)) == "H1"


def test_no_deal_and_one_deal_show_no_variance():
    test = Sprt(0.0, 0.1)
    assert test.no_evidence([]) == "0 deals cannot show a variance" and test.llr([]) == 0.0
    assert test.no_evidence([2.5]) == "1 deal cannot show a variance" and test.llr([2.5]) == 0.0
    assert test.no_evidence([0.0, 1.0]) is None


def test_evidence_for_h0_decides_h0():
    x = np.random.default_rng(1).normal(-0.2, 0.5, 400)
    test = Sprt(-0.2, 0.2)
    assert test.llr(x) < test.lower and test.decide(test.llr(x)) == "H0"


def test_the_ratio_after_each_observation_is_the_ratio_of_that_prefix():
    """llr_paths: the ratio after each observation of each stream, as ``llr`` gives it for
    the deals up to there; 0 after one deal and while a stream has shown no spread; the
    streams' levels far from 0 do not cost the variance its digits."""
    rng = np.random.default_rng(5)
    streams = np.stack([rng.normal(0.1, 1.0, 60), rng.normal(-0.1, 0.3, 60), np.r_[np.full(20, 0.5), rng.normal(0.5, 1, 40)],
                        2.5 + rng.normal(0, 1e-3, 60)])
    test = Sprt(-0.05, 0.15)
    paths = test.llr_paths(streams)
    assert paths.shape == streams.shape
    for row, path in zip(streams, paths):
        for k in range(1, len(row) + 1):
            assert path[k - 1] == pytest.approx(test.llr(row[:k]), rel=1e-7, abs=1e-9), k
    assert (paths[:, 0] == 0).all() and (paths[2, :20] == 0).all() and (paths[2, 20:] != 0).all()


def test_moments_of_nothing_and_of_moments():
    """Moments of no observations: n 0, variance 0; adding nothing changes nothing; adding to
    nothing gives what was added; the moments of moments are themselves."""
    empty = Moments.of([])
    assert (empty.n, empty.mean, empty.m2, empty.variance) == (0, 0.0, 0.0, 0.0)
    some = Moments.of([1.0, 2.0, 6.0])
    assert (some.n, some.mean, some.m2, some.variance) == (3, 3.0, 14.0, pytest.approx(14 / 3))
    assert some.add([]) == some and empty.add(some) == some and Moments.of(some) is some
    both = Moments.of([1.0, 2.0]).add([6.0])
    assert (both.n, both.mean, both.m2) == (3, pytest.approx(3.0), pytest.approx(14.0))


@pytest.mark.parametrize("level", [0.0, 1e-300, 0.5])
def test_no_spread_decides_nothing_where_a_millionth_of_h1_minus_h0_is_below_every_float(level):
    """Observations that are all equal show a variance of exactly zero, which is no evidence
    (bench/analysis/sprt.py, docs/match.md), even where H1 - H0 is so small that the square of a
    millionth of it is 0 as a float: the ratio stays 0 and finite, after each deal too."""
    test = Sprt(0.0, 1e-300)
    x = [level] * 40
    assert test.llr(x) == 0.0 and test.decide(test.llr(x)) is None
    assert test.no_evidence(x) == f"every deal came out the same ({level:+g} units), so there is no variance to weigh " \
                                  "the evidence by"
    paths = test.llr_paths(np.array([x]))
    assert np.isfinite(paths).all() and (paths == 0).all()
