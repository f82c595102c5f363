"""Means you can cite: the mean with its standard error, n and 95% interval."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

Z95 = 1.959964  # two-sided 95% quantile of the normal distribution
Z95_ONE_SIDED = 1.644854  # one-sided 95% quantile: mean + this x se is a 95% upper bound


@dataclass(frozen=True)
class Estimate:
    """A mean with its standard error, n and 95% interval.

    >>> e = Estimate.of([1.0, 2.0, 3.0, 4.0])
    >>> e.mean, round(e.se, 4), e.n
    (2.5, 0.6455, 4)
    """

    mean: float
    se: float
    n: int

    @classmethod
    def of(cls, samples: Any) -> Estimate:
        """The estimate of the mean of ``samples``.

        Args:
            samples: The values, anything ``numpy.asarray`` reads as floats (all of its
                entries count, whatever its shape).

        Returns:
            Their mean, its standard error (NaN for fewer than two values; the mean is NaN
                for none) and their number.
        """
        samples = np.asarray(samples, np.float64)
        n = samples.size
        se = float(samples.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
        return cls(float(samples.mean()) if n else float("nan"), se, n)

    @property
    def low(self) -> float:
        return self.mean - Z95 * self.se

    @property
    def high(self) -> float:
        return self.mean + Z95 * self.se

    @property
    def lower95(self) -> float:
        """The one-sided 95% lower bound: the mean is above it with 95% confidence."""
        return self.mean - Z95_ONE_SIDED * self.se

    @property
    def upper95(self) -> float:
        """The one-sided 95% upper bound: the mean is below it with 95% confidence."""
        return self.mean + Z95_ONE_SIDED * self.se

    @property
    def significant(self) -> bool:
        """The 95% interval excludes 0."""
        return bool(self.se > 0 and abs(self.mean) > Z95 * self.se) or (self.se == 0 and self.mean != 0)

    def to_dict(self) -> dict[str, Any]:
        """The estimate as the JSON documents give it.

        Returns:
            ``mean``, ``se``, ``n`` and ``ci95``, the two-sided 95% interval as ``[low, high]``.
        """
        return {"mean": self.mean, "se": self.se, "n": self.n, "ci95": [self.low, self.high]}
