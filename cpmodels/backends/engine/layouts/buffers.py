"""Arrays for the compiled core without numpy: typed, C-ordered buffers of the standard
library that the native module reads (and writes) in place by the buffer protocol.

A plain count of a bundled spec needs only these (its layout, its table, its tasks and its
answers), so it loads no numpy; the searches that do more with their arrays (sweeps,
design, solids, the general layouts) keep numpy's. A buffer here is a ``memoryview`` of the
shape asked, of ``int64`` (``"q"``), ``uint64`` (``"Q"``) or bool (``"?"``): indexed by
whole numbers (``m[i]``, ``m[i, j]``), ``len``, ``tolist()``, and ``numpy.asarray(m)`` views
it without a copy. A shape of several dimensions with an extent of 0 is one a memoryview
cannot have: such a buffer is numpy's empty array of that shape.
"""

from __future__ import annotations

import mmap
from array import array
from collections.abc import Iterable, Sequence
from contextlib import suppress
from math import prod
from typing import Any

FORMATS = {"q": 8, "Q": 8, "?": 1}  # int64, uint64, bool: the core's element types
SMALL = 1 << 16  # bytes below which a buffer is a bytearray, above an anonymous map
HUGE = 4 << 20  # bytes from which a map asks for huge pages (as numpy's arrays do)


def zeros(shape: int | Sequence[int], fmt: str = "q") -> Any:
    """A zero-filled buffer of ``shape`` and format ``fmt``. A large one is an anonymous
    map, committed page by page as it is touched, in huge pages where the system has them
    (as numpy's zeros are: a table of sub-board counts faults in fewer pages); MemoryError
    when the process may not map it."""
    dims = [shape] if isinstance(shape, int) else [int(e) for e in shape]
    if len(dims) > 1 and 0 in dims:
        return _empty(dims, fmt)
    size = prod(dims) * FORMATS[fmt]
    if size < SMALL:
        raw = memoryview(bytearray(size))
    else:
        try:
            # Private: a forked worker gets its own copy, as of memory from malloc (a
            # shared map would be one table and one stop flag for every worker).
            mapped = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
        except OSError as error:  # ENOMEM: past an address-space limit
            raise MemoryError(str(error)) from None
        if size >= HUGE and hasattr(mmap, "MADV_HUGEPAGE"):
            with suppress(OSError):  # a system without transparent huge pages
                mapped.madvise(mmap.MADV_HUGEPAGE)
        raw = memoryview(mapped)
    return _shaped(raw, fmt, dims)


def of(values: Iterable[int], fmt: str = "q", shape: Sequence[int] | None = None) -> Any:
    """A buffer of ``values`` (whole numbers, or truth values for ``"?"``), one-dimensional
    or of ``shape`` (C order). Values that are already such a buffer (an ``array`` of the
    format's type code, a C-contiguous writable memoryview of the format, a bytearray for
    ``"?"``) are read in place, not copied: the buffer is theirs."""
    if isinstance(values, array) and values.typecode == fmt:
        raw = memoryview(values)
    elif (isinstance(values, memoryview) and values.format == fmt and values.c_contiguous
          and not values.readonly):
        raw = values
    elif fmt == "?" and isinstance(values, bytearray):
        raw = memoryview(values)
    else:
        raw = memoryview(bytearray(bytes(bool(v) for v in values)) if fmt == "?"
                         else array(fmt, values))
    dims = [raw.nbytes // FORMATS[fmt]] if shape is None else [int(e) for e in shape]
    if len(dims) > 1 and 0 in dims:
        return _empty(dims, fmt)
    return _shaped(raw, fmt, dims)


def _shaped(raw: memoryview, fmt: str, dims: list[int]) -> memoryview:
    """``raw``'s bytes read as ``fmt`` in ``dims``."""
    typed: memoryview = raw.cast("B").cast(fmt)  # type: ignore[call-overload]
    return typed if len(dims) == 1 else typed.cast("B").cast(fmt, dims)  # type: ignore[call-overload]


def _empty(dims: list[int], fmt: str) -> Any:
    """numpy's empty array of ``dims`` (an extent of 0 among several) and format ``fmt``."""
    import numpy as np

    return np.zeros(dims, dtype={"q": np.int64, "Q": np.uint64, "?": np.bool_}[fmt])
