"""Bit counts for the kernels, as LLVM's own instructions: ``popcount``, ``leading_zeros`` and
``trailing_zeros`` of an int64 (``numba.extending.intrinsic``; call them from kernels only).

Under ``NUMBA_DISABLE_JIT=1`` the kernels run as Python (for coverage and mutation testing,
docs/testing.md), where an intrinsic cannot be called: there each is a Python function with
the same results on the int64's 64 bits."""

from numba import types
from numba.core import config
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, x):
    """Set bits of an int64 (LLVM's ctpop)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@intrinsic
def leading_zeros(typingctx, x):
    """Leading zero bits of an int64 (LLVM's ctlz; 64 for 0)."""
    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], context.get_constant(types.boolean, False))

    return types.int64(types.int64), codegen


@intrinsic
def trailing_zeros(typingctx, x):
    """Trailing zero bits of an int64 (LLVM's cttz; 64 for 0)."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return types.int64(types.int64), codegen


if config.DISABLE_JIT:  # type: ignore[attr-defined]  # numba declares its settings at run time
    _BITS = (1 << 64) - 1

    # The same counts, in Python (mypy: a function where an intrinsic was, on purpose)
    def popcount(x):  # type: ignore[misc]  # noqa: F811
        return bin(int(x) & _BITS).count("1")

    def leading_zeros(x):  # type: ignore[misc]  # noqa: F811
        return 64 - (int(x) & _BITS).bit_length()

    def trailing_zeros(x):  # type: ignore[misc]  # noqa: F811
        x = int(x) & _BITS
        return (x & -x).bit_length() - 1 if x else 64
