"""A cover's layouts as plain data, for the engine core built for the browser.

``cpmodels/web/static/engine/engine.js`` runs the core's entry points (``engine.wasm``) on
the same layouts the Python side hands the native module: each named tuple becomes an
object of the same field names, each array ``{"dtype", "shape", "base64"}`` (its bytes,
little-endian, C order) and each number a JSON number, or a decimal string past 2**53.
"""

from __future__ import annotations

import base64
from typing import Any

DTYPES = {"uint64": "uint64", "int64": "int64", "bool": "bool"}  # numpy's names: the page's
SAFE = 2**53  # whole numbers JSON carries exactly to JavaScript


def plain(layout: Any) -> dict[str, Any]:
    """The fields of a layout (a named tuple of arrays and numbers) as plain data."""
    return {name: _value(name, value) for name, value in layout._asdict().items()}


def _value(name: str, value: Any) -> Any:
    import numpy as np

    if isinstance(value, memoryview):  # a buffer of the standard library (buffers.py)
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        kind = DTYPES.get(value.dtype.name)
        if kind is None:
            raise ValueError(f"{name}: the browser's engine takes no {value.dtype} arrays")
        data = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<"))
        return {"dtype": kind, "shape": list(value.shape),
                "base64": base64.b64encode(data.tobytes()).decode("ascii")}
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        number = int(value)
        return number if -SAFE <= number <= SAFE else str(number)
    raise ValueError(f"{name}: not an array or a number")
