"""Numba building blocks that other layers compile into kernels of their own.

Bots that search splits (``bots._kernels``) need the solver's per-hand subset values,
row classes and settlement inside their loops, where a Python call would cost more
than the work. These are those pieces, named here so that no other layer reaches into
the solver's private modules. Each is an inlined ``numba.njit`` function over plain
integers and arrays.
"""

from solver._classes import HASH_BITS, HASH_MULTIPLIER, class_number
from solver._jit import inline, kernel, parallel_kernel
from solver._settle import expected_units, is_foul, row_units
from solver._splits import subset_values

__all__ = [
    "HASH_BITS", "HASH_MULTIPLIER", "class_number", "expected_units", "inline", "is_foul", "kernel",
    "parallel_kernel", "row_units", "subset_values",
]  # fmt: skip
