"""A sequential probability ratio test for the mean result of a match.

Each observation is one deal's duplicate result (player A's units averaged over both
seatings), so the luck of the cards cancels. H0 says A's mean advantage is ``h0``, H1 that
it is ``h1``, in units per deal. The observations are modelled as normal with a variance
that is not known, and the test is a generalised SPRT (GSPRT) on their raw mean: under each
hypothesis the variance is estimated by maximum likelihood, ``sk^2 = v + (m - hk)^2`` (``m``
the mean, ``v`` the variance of the observations about it), and the log-likelihood ratio is
``n/2 * ln(s0^2 / s1^2)``. The test stops when the ratio leaves
``[ln(beta / (1 - alpha)), ln((1 - beta) / alpha)]``: below, H0 is accepted (error rate
about ``beta``); above, H1 (about ``alpha``).

Observations with no spread give no evidence: when ``v`` is zero or tiny (a standard
deviation below a millionth of ``h1 - h0``), the ratio is 0 and nothing is decided, since
the variance the ratio rests on has not been seen.

>>> test = Sprt(0.0, 0.5)
>>> round(test.lower, 3), round(test.upper, 3)
(-2.944, 2.944)
>>> test.decide(test.llr([0.4, 0.7, 0.5, 0.6] * 10))
'H1'
>>> test.llr([0.0] * 64), test.no_evidence([0.0] * 64)
(0.0, 'every deal came out the same (+0 units), so there is no variance to weigh the evidence by')
>>> Sprt(0.0, math.inf)
Traceback (most recent call last):
...
bench.analysis.sprt.SprtError: H0 and H1 must be finite numbers, got H0 = 0 and H1 = inf
>>> Sprt(0.0, 1e308)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
bench.analysis.sprt.SprtError: H0 and H1 must lie within the results a deal can have under the rules, -3 to +3 units, ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from solver import config
from solver.errors import InputError


class SprtError(InputError, ValueError):
    """Hypotheses or error rates that make no test."""


@dataclass(frozen=True)
class Moments:
    """The count, mean and sum of squared deviations from the mean of some observations,
    merged chunk by chunk (Chan's update) so that a long match keeps three numbers, not every
    deal; observations that are all equal keep ``m2`` exactly 0.

    >>> Moments.of([1.0, 2.0]).add([3.0, 4.0]) == Moments.of([1.0, 2.0, 3.0, 4.0])
    True
    >>> Moments.of([0.5] * 16).add([0.5] * 16).m2
    0.0
    """

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    @classmethod
    def of(cls, observations: Moments | ArrayLike) -> Moments:
        """The moments of some observations.

        Args:
            observations: The observations (any array-like, read flat), or their ``Moments``,
                returned as they are.

        Returns:
            Their count, mean and sum of squared deviations from the mean; all 0 for no
                observations.

        Raises:
            SprtError: An observation is not a finite number.
        """
        if isinstance(observations, Moments):
            return observations
        x = np.asarray(observations, np.float64).ravel()
        if not np.isfinite(x).all():
            raise SprtError("the observations must be finite numbers")
        if not x.size:
            return cls()
        mean = float(np.mean(x))
        return cls(int(x.size), mean, float(np.sum((x - mean) ** 2)))

    def add(self, observations: Moments | ArrayLike) -> Moments:
        """These moments merged with those of more observations (Chan's update).

        Args:
            observations: The new observations, or their ``Moments``.

        Returns:
            The moments of the observations of both.

        Raises:
            SprtError: An observation is not a finite number.
        """
        other = Moments.of(observations)
        if not other.n:
            return self
        if not self.n:
            return other
        n = self.n + other.n
        delta = other.mean - self.mean
        return Moments(n, self.mean + delta * other.n / n, self.m2 + other.m2 + delta**2 * self.n * other.n / n)

    @property
    def variance(self) -> float:
        """About the mean, over n (the maximum-likelihood variance)."""
        return self.m2 / self.n if self.n else 0.0


@dataclass(frozen=True)
class Sprt:
    h0: float
    h1: float
    alpha: float = 0.05
    beta: float = 0.05
    most: float = 3.0  # the most units a deal's result can be either way: ``Rules.most_units`` (3 under basic)
    minimum: int = 2  # observations before the test may decide

    def __post_init__(self) -> None:
        if not (math.isfinite(self.h0) and math.isfinite(self.h1)):
            raise SprtError(f"H0 and H1 must be finite numbers, got H0 = {self.h0:g} and H1 = {self.h1:g}")
        if not self.h0 < self.h1:
            raise SprtError(f"H0 must be below H1, got H0 = {self.h0:g} and H1 = {self.h1:g}")
        if not math.isfinite(self.h1 - self.h0) or not (self.h1 - self.h0) * config.NO_SPREAD > 0:
            raise SprtError(f"H0 and H1 are too far apart or too close to test, got H0 = {self.h0:g} "
                            f"and H1 = {self.h1:g}")
        if not -self.most <= self.h0 < self.h1 <= self.most:
            raise SprtError(f"H0 and H1 must lie within the results a deal can have under the rules, -{self.most:g} "
                            f"to +{self.most:g} units, got H0 = {self.h0:g} and H1 = {self.h1:g}")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < rate < 0.5:
                raise SprtError(f"{name} must be above 0 and below 0.5, got {rate:g}")
        if not (isinstance(self.minimum, int) and self.minimum >= 2):
            raise SprtError(f"the test needs at least 2 observations before a decision, got {self.minimum!r}")

    @property
    def lower(self) -> float:
        return math.log(self.beta) - math.log1p(-self.alpha)

    @property
    def upper(self) -> float:
        return math.log1p(-self.beta) - math.log(self.alpha)

    @property
    def min_variance(self) -> float:
        """The variance at or below which observations are taken to have no spread."""
        return (config.NO_SPREAD * (self.h1 - self.h0)) ** 2

    def no_evidence(self, observations: Moments | ArrayLike) -> str | None:
        """Why these observations cannot move the test, or None when they can.

        Args:
            observations: The observations, or their ``Moments``.

        Returns:
            Why, in one line: fewer than 2 observations, or a variance at or below
                ``min_variance``; None when they can move the test.

        Raises:
            SprtError: An observation is not a finite number.
        """
        seen = Moments.of(observations)
        if seen.n < 2:
            return f"{seen.n} deal{'' if seen.n == 1 else 's'} cannot show a variance"
        if seen.variance <= self.min_variance:
            return f"every deal came out the same ({seen.mean:+g} units), so there is no variance to weigh the evidence by"
        return None

    def llr(self, observations: Moments | ArrayLike) -> float:
        """The log-likelihood ratio of H1 against H0 for these observations.

        Args:
            observations: The observations, or their ``Moments``.

        Returns:
            ``n/2 * ln(s0^2 / s1^2)``; 0 when they cannot move the test (``no_evidence``).

        Raises:
            SprtError: An observation is not a finite number.
        """
        seen = Moments.of(observations)
        if self.no_evidence(seen):
            return 0.0
        m, v = seen.mean, seen.variance
        return seen.n / 2 * math.log((v + (m - self.h0) ** 2) / (v + (m - self.h1) ** 2))

    def decide(self, llr: float) -> str | None:
        """Whether the test stops, and on which hypothesis.

        Args:
            llr: A log-likelihood ratio (``llr``).

        Returns:
            ``"H1"`` at or above the upper bound, ``"H0"`` at or below the lower one, else None
                (go on).
        """
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def decision(self, observations: Moments | ArrayLike) -> str | None:
        """Whether the test stops on these observations, and on which hypothesis.

        Args:
            observations: The observations so far, or their ``Moments``.

        Returns:
            ``decide(llr(observations))`` once there are ``minimum`` observations; None before.

        Raises:
            SprtError: An observation is not a finite number.
        """
        seen = Moments.of(observations)
        return self.decide(self.llr(seen)) if seen.n >= self.minimum else None

    def verdict(self, decision: str) -> str:
        """What the test accepted, in words.

        Args:
            decision: ``"H1"``, or anything else for H0 (``decide`` gives ``"H0"``).

        Returns:
            The hypothesis accepted and its value, the other one's, and the error rates.

        Examples:
            >>> Sprt(-0.01, 0.01).verdict("H1")
            'H1 (+0.01) accepted over H0 (-0.01) at alpha=beta=0.05'
            >>> Sprt(0, 0.5, alpha=0.01, beta=0.1).verdict("H0")
            'H0 (+0) accepted over H1 (+0.5) at alpha=0.01, beta=0.1'
        """
        rates = f"alpha=beta={self.alpha:g}" if self.alpha == self.beta else f"alpha={self.alpha:g}, beta={self.beta:g}"
        if decision == "H1":
            return f"H1 ({self.h1:+g}) accepted over H0 ({self.h0:+g}) at {rates}"
        return f"H0 ({self.h0:+g}) accepted over H1 ({self.h1:+g}) at {rates}"

    def llr_paths(self, streams: np.ndarray) -> np.ndarray:
        """The ratio after each observation of each row of ``streams`` (for simulations).

        Args:
            streams: Observations, one stream a row (2-D).

        Returns:
            An array of the shape of ``streams``: the log-likelihood ratio after each
                observation; 0 after the first one, and wherever the variance so far is at or below
                ``min_variance``.
        """
        x = np.asarray(streams, np.float64)
        n = np.arange(1, x.shape[1] + 1)
        d = x - x[:, :1]  # the variance, shifted by each row's first value to keep its digits
        md = np.cumsum(d, axis=1) / n
        v = np.maximum(np.cumsum(d**2, axis=1) / n - md**2, 0.0)
        m = md + x[:, :1]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = n / 2 * np.log((v + (m - self.h0) ** 2) / (v + (m - self.h1) ** 2))
        out[v <= self.min_variance] = 0.0
        out[:, 0] = 0.0
        return out
