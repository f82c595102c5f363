"""Numba flags, in one place. Only kernel modules (``solver/_*.py``) import this."""

import numba

kernel = numba.njit(cache=True, nogil=True)  # a hot loop over integer arrays
parallel_kernel = numba.njit(cache=True, nogil=True, parallel=True)  # the same, over all cores
inline = numba.njit(cache=True, nogil=True, inline="always")  # a helper the kernels inline
