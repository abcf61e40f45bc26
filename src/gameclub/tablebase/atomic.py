"""Atomic updates of array elements inside numba's parallel loops.

Numba offers no atomic operations on the CPU, and a parallel breadth-first step of
retrograde analysis needs two: claiming a position (compare-and-swap of its cell,
so that one thread settles it and decrements are not lost) and taking a slot at
the end of the shared queue (fetch-and-add). Both are one LLVM instruction,
emitted here as numba intrinsics on a C-contiguous array's element.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _element_pointer(context, builder, array_type, array, index):
    view = context.make_array(array_type)(context, builder, array)
    return cgutils.get_item_pointer(context, builder, array_type, view, [index])


@intrinsic
def compare_and_swap(typingctx, array, index, expected, new):
    """``array[index] = new`` if it holds ``expected``; the value it held (atomically)."""
    if not isinstance(array, types.Array) or not isinstance(array.dtype, types.Integer):
        return None
    dtype = array.dtype
    signature = dtype(array, index, expected, new)

    def codegen(context, builder, sig, args):
        array_value, index_value, expected_value, new_value = args
        pointer = _element_pointer(context, builder, sig.args[0], array_value, index_value)
        old = context.cast(builder, expected_value, sig.args[2], dtype)
        replacement = context.cast(builder, new_value, sig.args[3], dtype)
        pair = builder.cmpxchg(pointer, old, replacement, "acq_rel", "acquire")
        return builder.extract_value(pair, 0)

    return signature, codegen


@intrinsic
def fetch_add(typingctx, array, index, amount):
    """``array[index] += amount`` atomically; the value it held before."""
    if not isinstance(array, types.Array) or not isinstance(array.dtype, types.Integer):
        return None
    dtype = array.dtype
    signature = dtype(array, index, amount)

    def codegen(context, builder, sig, args):
        array_value, index_value, amount_value = args
        pointer = _element_pointer(context, builder, sig.args[0], array_value, index_value)
        step = context.cast(builder, amount_value, sig.args[2], dtype)
        return builder.atomic_rmw("add", pointer, step, "acq_rel")

    return signature, codegen


__all__ = ["compare_and_swap", "fetch_add"]
