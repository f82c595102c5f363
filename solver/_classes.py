"""Row-class kernels: a row value's class number through an open-addressing table.

The table is built by ``solver.classes.class_hash``: ``keys[h]`` holds a value (or -1)
and ``numbers[h]`` its class; a value's first slot is
``((value * HASH_MULTIPLIER) mod 2**32) >> (32 - HASH_BITS)``, then the next ones.
"""

import numpy as np

from solver._jit import inline

HASH_BITS = 15  # 32,768 slots for 7,917 row classes
HASH_MULTIPLIER = 0x9E3779B1
FIVES = 6188  # rank multisets of five, repeats allowed: C(17, 5) (``solver.classes.RankClasses``)
THREES = 455  # of three: C(15, 3)


@inline
def class_number(keys, numbers, value):
    """Class of a row value through the open-addressing table."""
    slot = ((np.int64(value) * HASH_MULTIPLIER) & 0xFFFFFFFF) >> (32 - HASH_BITS)
    while keys[slot] != value:
        slot = (slot + 1) & ((1 << HASH_BITS) - 1)
    return numbers[slot]
