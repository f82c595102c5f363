"""A sequential probability ratio test for the mean result of a match.

Each observation is one deal's duplicate result (player A's units averaged over both
seatings), so the luck of the cards cancels. H0 says A's mean advantage is ``h0``, H1 that
it is ``h1``. With the variance unknown, the log-likelihood ratio is the generalised one for
a normal mean, ``n/2 * ln(s0^2 / s1^2)`` where ``sk^2`` is the mean squared distance of the
observations from ``hk``, as the chess testing tools do for their "normalized" model. The
test stops when the ratio leaves ``[ln(beta / (1 - alpha)), ln((1 - beta) / alpha)]``:
below, H0 is accepted (error rate about ``beta``); above, H1 (about ``alpha``).

>>> test = Sprt(0.0, 0.5)
>>> round(test.lower, 3), round(test.upper, 3)
(-2.944, 2.944)
>>> test.decide(test.llr([0.4, 0.7, 0.5, 0.6] * 10))
'H1'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


class SprtError(ValueError):
    """Hypotheses or error rates that make no test."""


@dataclass(frozen=True)
class Sprt:
    h0: float
    h1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.h0 < self.h1:
            raise SprtError(f"H0 must be below H1, got H0 = {self.h0:g} and H1 = {self.h1:g}")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < rate < 0.5:
                raise SprtError(f"{name} must be between 0 and 0.5, got {rate:g}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, observations) -> float:
        """The log-likelihood ratio of H1 against H0 for these observations."""
        x = np.asarray(observations, np.float64)
        if x.size < 2:
            return 0.0
        s0 = float(np.mean((x - self.h0) ** 2))
        s1 = float(np.mean((x - self.h1) ** 2))
        if s0 == s1:
            return 0.0
        if s1 == 0:
            return math.inf
        if s0 == 0:
            return -math.inf
        return x.size / 2 * math.log(s0 / s1)

    def decide(self, llr: float) -> str | None:
        """"H1" above the upper bound, "H0" below the lower one, else None (go on)."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def llr_paths(self, streams: np.ndarray) -> np.ndarray:
        """The ratio after each observation of each row of ``streams`` (for simulations)."""
        x = np.asarray(streams, np.float64)
        n = np.arange(1, x.shape[1] + 1)
        s0 = np.cumsum((x - self.h0) ** 2, axis=1) / n
        s1 = np.cumsum((x - self.h1) ** 2, axis=1) / n
        with np.errstate(divide="ignore", invalid="ignore"):
            out = n / 2 * np.log(s0 / s1)
        out[:, 0] = 0.0
        return np.nan_to_num(out, nan=0.0)
