"""The arrays of a layout the core fills, made as ``cpcore/entry.h`` describes them.

A layout struct of entry.h (``cpcore_cover_layout``, ``cpcore_tally_layout``,
``cpcore_one_word_layout``) points to arrays whose type is what each pointer points to and
whose shape its comment gives in brackets, in the sizes the core measured (``[n_options,
n_words]``). The compiled module carries that description (``_native.interface()``,
generated from entry.h by the build), so the Python side names no array of them by hand,
nor a field of the sizes the core measures them in (:func:`struct_of`).
"""

from __future__ import annotations

import ast
import json
import operator
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import cpmodels._native as _native
from cpmodels.backends.engine.layouts.buffers import zeros

if TYPE_CHECKING:
    import numpy as np

# Each pointee's numpy type, and its buffer format (layouts/buffers.py).
DTYPES = {"uint64_t": "uint64", "int64_t": "int64", "uint8_t": "bool"}
FORMATS = {"uint64_t": "Q", "int64_t": "q", "uint8_t": "?"}
WIDTHS = {"u64": 8, "i64": 8, "u32": 4, "i32": 4}
OPERATIONS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Pow: operator.pow}


def structs() -> Mapping[str, Any]:
    """The structs of the module's description, for the calls that follow (each of the
    functions below reads it again without one): each struct's description is read from
    the module's text when it is first asked for."""
    return _Described(_native.interface())


class _Described(Mapping[str, Any]):
    """The structs of the module's description (its JSON text), each read from the text
    when first asked for (the whole text only to list them)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.end = text.find('},"functions":{')  # where the structs end
        self.read: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self.read:
            at = -1 if self.end < 0 else self.text.find(json.dumps(name) + ':{"size":', 0,
                                                         self.end)
            if at < 0:
                raise KeyError(name)
            start = at + len(json.dumps(name)) + 1
            self.read[name] = json.JSONDecoder().raw_decode(self.text, start)[0]
        return self.read[name]

    def _all(self) -> dict[str, Any]:
        return dict(json.loads(self.text)["structs"])

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __bool__(self) -> bool:
        return True  # (without reading the whole text)



def layout_arrays(struct: str, sizes: Mapping[str, int],
                  described: Mapping[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Room for each array the entry.h struct ``struct`` points to, by field name, each of
    the type and shape entry.h gives it (its extents' names read from ``sizes``); the
    structs as :func:`structs` read them."""
    import numpy as np

    return {name: np.empty(dims, dtype=DTYPES[pointee])
            for name, pointee, dims in _fields(struct, sizes, described)}


def layout_buffers(struct: str, sizes: Mapping[str, int],
                   described: Mapping[str, Any] | None = None) -> dict[str, memoryview]:
    """:func:`layout_arrays` as zero-filled buffers of the standard library
    (``layouts/buffers.py``), for the calls that load no numpy."""
    return {name: zeros(dims, FORMATS[pointee])
            for name, pointee, dims in _fields(struct, sizes, described)}


def _fields(struct: str, sizes: Mapping[str, int], described: Mapping[str, Any] | None,
            ) -> list[tuple[str, str, tuple[int, ...]]]:
    """Each array of ``struct``: its field's name, its pointee and its extents."""
    described = (structs() if described is None else described)[struct]
    out = []
    for name, kind, _, pointee, shape in described["fields"]:
        if kind != "p" or pointee not in DTYPES or not shape:
            raise ValueError(f"{struct}.{name}: entry.h gives no array type and shape")
        out.append((name, pointee, tuple(extent(e, sizes) for e in shape)))
    return out


def struct_of(struct: str, raw: bytes,
              described: Mapping[str, Any] | None = None) -> Mapping[str, int]:
    """The fields of the entry.h struct ``struct`` (whole numbers only, such as the layouts'
    sizes the bindings hand back) read from its bytes as this build lays it out, by name
    (each decoded when it is read); the structs as :func:`structs` read them."""
    described = (structs() if described is None else described)[struct]
    if len(raw) != described["size"]:
        raise ValueError(f"{struct}: {len(raw)} bytes, not {described['size']}")
    return _Fields(raw, {name: (at, kind) for name, kind, at, *_ in described["fields"]})


class _Fields(Mapping[str, int]):
    """A struct's whole-number fields, each decoded from its bytes when read."""

    def __init__(self, raw: bytes, fields: dict[str, tuple[int, str]]) -> None:
        self.raw, self.fields = raw, fields

    def __getitem__(self, name: str) -> int:
        at, kind = self.fields[name]
        return int.from_bytes(self.raw[at:at + WIDTHS[kind]], sys.byteorder,
                              signed=kind.startswith("i"))

    def __iter__(self) -> Iterator[str]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)


def constants(prefix: str) -> dict[str, int]:
    """entry.h's constants whose names start with ``prefix``, by the rest of their names in
    lower case (``constants("CPCORE_ASK_")``: ``{"tally": 0, ...}``), in entry.h's order."""
    described = json.loads(_native.interface())["constants"]
    return {name.removeprefix(prefix).lower(): int(value)
            for name, value in described.items() if name.startswith(prefix)}


def extent(text: str, sizes: Mapping[str, int]) -> int:
    """The value of one extent of a shape in entry.h: whole numbers and names of ``sizes``
    with ``+ - * **`` and ``max(...)``."""

    def value(node: ast.expr) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name) and node.id in sizes:
            return int(sizes[node.id])
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATIONS:
            return OPERATIONS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "max" and node.args and not node.keywords:
            return max(value(arg) for arg in node.args)
        raise ValueError(f"{text}: not an extent of sizes {sorted(sizes)}")

    found = value(ast.parse(text, mode="eval").body)
    if found < 0:
        raise ValueError(f"{text}: a negative extent")
    return found
