"""Bit counts for the kernels, as LLVM's own instructions: ``popcount``, ``leading_zeros`` and
``trailing_zeros`` of an int64 (``numba.extending.intrinsic``; call them from kernels only)."""

from numba import types
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
