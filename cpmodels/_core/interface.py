"""The core's interface read from its one description, ``cpcore/entry.h``.

entry.h is plain C: structs of integers and pointers (``typedef struct cpcore_x {...}
cpcore_x;``), functions over them, and constants (``#define CPCORE_*``, and the
enumerators of enums). :func:`parse` reads it strictly (anything else is an error naming
its line), and :func:`source` writes the C++ of ``cpcore_interface``, the entry point that
tells a caller the structs' fields with the offsets and sizes its compiler gave them (and,
for a pointer, what it points to and the shape its comment gives), each function's
parameter kinds and each constant's value. The build compiles that source into the Python
module and into engine.wasm, so the browser's loader (``engine.js``) reads the layout of
every struct from the engine itself, and the Python side the shapes of the layouts' arrays
(``layouts/described.py``). The tests type their ctypes calls with :func:`ctypes_typed`.
What entry.h declares inside ``#ifndef __wasm__`` is the native module's alone
(``Interface.native``): the source leaves it out of engine.wasm's description.

    python cpmodels/_core/interface.py cpmodels/_core/include/cpcore/entry.h interface.cpp

A field's or a parameter's kind: ``p`` a pointer, ``u64``/``i64`` a 64-bit whole number,
``u32``/``i32`` a 32-bit one; a function's return kind may also be ``void``.
"""

from __future__ import annotations

import ctypes
import re
import sys
from dataclasses import dataclass
from pathlib import Path

#: The whole-number types entry.h may use, by kind.
KINDS = {"uint64_t": "u64", "int64_t": "i64", "uint32_t": "u32", "int32_t": "i32",
         "int": "i32", "unsigned": "u32"}
#: Types that may be pointed to (besides the structs entry.h declares).
POINTEES = {*KINDS, "uint8_t", "int8_t", "char", "void"}
#: A pointer's shape: its comment's leading brackets, each extent an expression of whole
#: numbers and names (sizes measured or given) with + - * ** and max(...), such as
#: ``/* [max(n_branch, 1), degree] */``. A comment that does not read so gives no shape.
SHAPE = re.compile(r"/\*\s*\[([^\]]*)\]")
_EXTENT = re.compile(r"\s*(\d+|[A-Za-z_]\w*|\*\*|[-+*(),])")
#: Token kinds: comments (kept for their line numbers), preprocessor lines, words, the rest.
_TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|#(?:[^\n/]|/(?![*/]))*|"[^"\n]*"|[A-Za-z_]\w*|-?\d+|\S',
                    re.S)


@dataclass(frozen=True)
class Field:
    """A struct's field or a function's parameter: its name, C type and kind."""

    name: str
    ctype: str
    kind: str
    shape: tuple[str, ...] = ()  # a pointer's shape, from its comment (see SHAPE)

    @property
    def pointee(self) -> str:
        """The type a pointer points to ("" for a whole number)."""
        return self.ctype.removeprefix("const ").removesuffix("*") if self.kind == "p" else ""


@dataclass(frozen=True)
class Function:
    """An entry point: its return kind and its parameters."""

    name: str
    returns: str
    params: tuple[Field, ...]


@dataclass(frozen=True)
class Interface:
    """What entry.h declares, in its order."""

    structs: dict[str, tuple[Field, ...]]
    functions: dict[str, Function]
    constants: tuple[str, ...]
    #: What is declared inside ``#ifndef __wasm__``: the native module's alone (engine.wasm
    #: neither builds nor describes it).
    native: frozenset[str] = frozenset()

    def for_wasm(self) -> Interface:
        """The interface engine.wasm carries: without what is the native module's alone."""
        return Interface({k: v for k, v in self.structs.items() if k not in self.native},
                         {k: v for k, v in self.functions.items() if k not in self.native},
                         tuple(c for c in self.constants if c not in self.native))


class InterfaceError(ValueError):
    """entry.h holds something the description does not read."""


def parse(text: str) -> Interface:
    """Read entry.h's structs, functions and constants (an :class:`InterfaceError` naming
    the line of anything else)."""
    tokens: list[tuple[str, int]] = []
    constants: list[str] = []
    shapes: dict[int, tuple[str, ...]] = {}
    native: set[str] = set()
    native_lines: list[tuple[int, int]] = []  # the lines of each #ifndef __wasm__ block
    blocks: list[int] = []  # the open conditionals: the line of each #ifndef __wasm__, or 0
    for match in _TOKEN.finditer(text):
        token, line = match.group(), text.count("\n", 0, match.start()) + 1
        if token.startswith(("/*", "//")):
            shape = _shape(token)
            if shape and line not in shapes:
                shapes[line] = shape
            continue
        if token.startswith("#"):
            define = re.match(r"#define\s+(CPCORE_\w+)\s+\S", token)
            if define:
                constants.append(define.group(1))
                if any(blocks):
                    native.add(define.group(1))
            elif re.match(r"#(ifdef|ifndef)\b", token):
                blocks.append(line if re.fullmatch(r"#ifndef\s+__wasm__\s*", token) else 0)
            elif re.match(r"#endif\b", token):
                if not blocks:
                    raise InterfaceError(f"line {line}: #endif without its #if")
                opened = blocks.pop()
                if opened:
                    native_lines.append((opened, line))
            elif re.match(r"#else\b", token) and blocks and blocks[-1]:
                raise InterfaceError(f"line {line}: #else in #ifndef __wasm__: not read")
            elif not re.match(r"#(pragma|include|else|define)\b", token):
                raise InterfaceError(f"line {line}: {token}: not a directive entry.h may use")
            continue
        tokens.append((token, line))
    reader = _Reader(tokens, shapes)
    structs: dict[str, tuple[Field, ...]] = {}
    functions: dict[str, Function] = {}
    while not reader.done():
        first = reader.tokens[reader.at][1]
        if any(start < first < end for start, end in native_lines):
            known = {*structs, *functions, *constants}
            _declaration(reader, structs, functions, constants)
            native.update({*structs, *functions, *constants} - known)
        else:
            _declaration(reader, structs, functions, constants)
    return Interface(structs, functions, tuple(constants), frozenset(native))


def _declaration(reader: _Reader, structs: dict[str, tuple[Field, ...]],
                 functions: dict[str, Function], constants: list[str]) -> None:
    """One declaration of entry.h (or the brackets of ``extern "C"``), added to its kind."""
    if reader.take_if("extern"):
        reader.expect('"C"')
        reader.expect("{")
    elif reader.take_if("}"):
        return
    elif reader.peek() == "enum" or reader.peek(1) == "enum":
        constants += _enum(reader)
    elif reader.take_if("typedef"):
        name, fields = _struct(reader, structs)
        structs[name] = fields
    else:
        function = _function(reader, structs)
        if function.name in functions:
            raise reader.error(f"{function.name} is declared twice")
        functions[function.name] = function


def read(path: Path) -> Interface:
    """The interface of the entry.h at ``path``."""
    return parse(path.read_text())


def _shape(comment: str) -> tuple[str, ...]:
    """The extents of a comment's leading brackets, when each reads as an extent."""
    found = SHAPE.match(comment)
    if not found:
        return ()
    extents = [e.strip() for e in _split(found.group(1))]
    for extent in extents:
        words = _EXTENT.findall(extent)
        whole = bool(extent) and "".join(words) == re.sub(r"\s", "", extent)
        calls = [w for w, after in zip(words, [*words[1:], ""])
                 if after == "(" and w.isidentifier()]
        if not whole or any(call != "max" for call in calls):
            return ()
    return tuple(extents)


def _split(text: str) -> list[str]:
    """``text`` split at its commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    return [*parts, text[start:]]


class _Reader:
    def __init__(self, tokens: list[tuple[str, int]],
                 shapes: dict[int, tuple[str, ...]] | None = None) -> None:
        self.tokens = tokens
        self.shapes = shapes or {}
        self.kinds = dict(KINDS)  # with the enums read so far
        self.at = 0

    def line(self) -> int:
        """The line of the token last taken."""
        return self.tokens[self.at - 1][1]

    def done(self) -> bool:
        return self.at >= len(self.tokens)

    def peek(self, ahead: int = 0) -> str:
        at = self.at + ahead
        return self.tokens[at][0] if at < len(self.tokens) else ""

    def error(self, message: str) -> InterfaceError:
        line = self.tokens[min(self.at, len(self.tokens) - 1)][1]
        return InterfaceError(f"line {line}: {message}")

    def take(self) -> str:
        if self.done():
            raise self.error("entry.h ends inside a declaration")
        self.at += 1
        return self.tokens[self.at - 1][0]

    def take_if(self, token: str) -> bool:
        if self.peek() == token:
            self.at += 1
            return True
        return False

    def expect(self, token: str) -> None:
        if self.take() != token:
            raise self.error(f"expected {token!r}")

    def name(self) -> str:
        word = self.take()
        if not re.fullmatch(r"[A-Za-z_]\w*", word):
            raise self.error(f"expected a name, not {word!r}")
        return word


def _type(reader: _Reader, structs: dict[str, tuple[Field, ...]]) -> tuple[str, bool]:
    """A declaration's base type ("const" kept) and whether it is a whole number (else it
    starts a pointer)."""
    const = reader.take_if("const")
    base = reader.name()
    if base not in POINTEES and base not in structs and base not in reader.kinds:
        raise reader.error(f"{base}: not a type entry.h may use")
    return ("const " if const else "") + base, base in reader.kinds


def _enum(reader: _Reader) -> list[str]:
    """An enum (``typedef enum cpcore_x {...} cpcore_x;`` or ``enum cpcore_x {...};``): its
    enumerators, constants; a typedef's name becomes a type of kind i32."""
    typedef = reader.take_if("typedef")
    reader.expect("enum")
    name = reader.name() if reader.peek() != "{" else ""
    if name and not name.startswith("cpcore_"):
        raise reader.error(f"{name}: an enum's name starts with cpcore_")
    reader.expect("{")
    names: list[str] = []
    while not reader.take_if("}"):
        if names:
            reader.expect(",")
            if reader.take_if("}"):
                break
        names.append(reader.name())
        if not names[-1].startswith("CPCORE_"):
            raise reader.error(f"{names[-1]}: an enumerator's name starts with CPCORE_")
        depth = 0
        while depth or reader.peek() not in (",", "}"):
            token = reader.take()
            depth += (token == "(") - (token == ")")
    if typedef:
        alias = reader.name()
        if name and alias != name:
            raise reader.error(f"typedef enum {name} is named {alias} after its enumerators")
        reader.kinds[alias] = "i32"
    reader.expect(";")
    return names


def _declarator(reader: _Reader, base: str, whole: bool) -> Field:
    """One declarator after its base type: ``name`` or ``*name``, its kind."""
    pointer = reader.take_if("*")
    if reader.peek() == "*":
        raise reader.error("pointers to pointers are not read")
    name = reader.name()
    if reader.peek() == "[":
        raise reader.error(f"{name}: arrays are not read (use a pointer and a length)")
    if pointer:
        return Field(name, base + "*", "p")
    if not whole:
        raise reader.error(f"{name}: a {base} is read only through a pointer")
    return Field(name, base, reader.kinds[base.removeprefix("const ")])


def _struct(reader: _Reader,
            structs: dict[str, tuple[Field, ...]]) -> tuple[str, tuple[Field, ...]]:
    reader.expect("struct")
    name = reader.name()
    if not name.startswith("cpcore_") or name in structs:
        raise reader.error(f"{name}: a struct's name is cpcore_ and a name of its own")
    reader.expect("{")
    fields: list[Field] = []
    structs[name] = ()  # (a struct may point to one of its kind)
    while not reader.take_if("}"):
        base, whole = _type(reader, structs)
        declared = [_declarator(reader, base, whole)]
        while reader.take_if(","):
            declared.append(_declarator(reader, base, whole))
        reader.expect(";")
        shape = reader.shapes.get(reader.line(), ())
        if len(declared) == 1 and declared[0].kind == "p" and shape:
            declared[0] = Field(declared[0].name, declared[0].ctype, "p", shape)
        fields += declared
    if reader.name() != name:
        raise reader.error(f"typedef struct {name} is named {name} again after its fields")
    reader.expect(";")
    if not fields or len({f.name for f in fields}) != len(fields):
        raise reader.error(f"{name}: no fields, or two of one name")
    return name, tuple(fields)


def _function(reader: _Reader, structs: dict[str, tuple[Field, ...]]) -> Function:
    if reader.peek() == "void" and reader.peek(1) != "*":
        reader.take()
        returns = "void"
    else:
        base, whole = _type(reader, structs)
        returns = "p" if reader.take_if("*") else reader.kinds.get(base.removeprefix("const "), "")
        if not returns:
            raise reader.error(f"{base}: a function returns a pointer or a whole number")
    name = reader.name()
    if not name.startswith("cpcore_"):
        raise reader.error(f"{name}: an entry point's name starts with cpcore_")
    reader.expect("(")
    params: list[Field] = []
    if reader.peek() == "void" and reader.peek(1) == ")":
        reader.take()
    while not reader.take_if(")"):
        if params:
            reader.expect(",")
        base, whole = _type(reader, structs)
        params.append(_declarator(reader, base, whole))
    reader.expect(";")
    return Function(name, returns, tuple(params))


def _c_literal(text: str) -> str:
    """``text`` inside a C string literal's quotes."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def source(interface: Interface, header: str = "cpcore/entry.h") -> str:
    """The C++ of ``cpcore_interface(char* out, uint64_t capacity)``: it writes the
    interface as JSON, with no spaces (up to ``capacity`` bytes) and returns its length in
    bytes. The JSON:
    ``{"structs": {name: {"size": bytes, "fields": [[name, kind, offset, pointee, shape],
    ...]}}, "functions": {name: [return kind, [parameter kinds]]}, "constants": {name:
    value}}``, offsets and sizes as the compiler lays the structs out. The text is one table
    of pieces, each a literal and the number after it (a compile-time constant). What is
    the native module's alone (``Interface.native``) is left out of engine.wasm's table."""
    lines = [
        f"// Generated from {header} by cpmodels/_core/interface.py: do not edit.",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        f'#include "{header}"',
        "",
    ]
    if interface.native:
        lines += ["#ifdef __wasm__", *_tables(interface.for_wasm()), "#else",
                  *_tables(interface), "#endif"]
    else:
        lines += _tables(interface)
    lines += [
        "",
        'extern "C" uint64_t cpcore_interface(char* out, uint64_t capacity) {',
        "    if (!out) capacity = 0;",
        "    uint64_t length = 0;",
        "    const uint64_t n = sizeof NUMBERS / sizeof NUMBERS[0] + 1;  // the pieces",
        "    const char* s = TEXT;",
        "    for (uint64_t k = 0; k < n; ++k, ++s) {",
        "        for (; *s; ++s, ++length)",
        "            if (length < capacity) out[length] = *s;",
        "        if (k + 1 == n) break;",
        "        char digits[24];",
        "        int count = 0;",
        "        const int64_t v = NUMBERS[k];",
        "        uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;",
        "        do digits[count++] = (char)('0' + u % 10); while (u /= 10);",
        "        if (v < 0) digits[count++] = '-';",
        "        while (count--) {",
        "            if (length < capacity) out[length] = digits[count];",
        "            ++length;",
        "        }",
        "    }",
        "    if (length < capacity) out[length] = 0;",
        "    return length;",
        "}",
        "",
    ]
    return "\n".join(lines)


def _tables(interface: Interface) -> list[str]:
    """The checks of the structs' fields and the table of pieces (TEXT, NUMBERS) of
    :func:`source`."""
    pieces: list[tuple[str, str]] = []  # (text, C expression of the number after it, or "")
    text: list[str] = []

    def put(more: str, number: str = "") -> None:
        text.append(more)
        if number:
            pieces.append(("".join(text), number))
            text.clear()

    put('{"structs":{')
    for k, (name, fields) in enumerate(interface.structs.items()):
        put(("," if k else "") + f'"{name}":{{"size":', f"sizeof({name})")
        put(',"fields":[')
        for j, f in enumerate(fields):
            put(("," if j else "") + f'["{f.name}","{f.kind}",', f"offsetof({name}, {f.name})")
            shape = ",".join(f'"{e}"' for e in f.shape)
            put(f',"{f.pointee}",[{shape}]]')
        put("]}")
    put('},"functions":{')
    for k, fn in enumerate(interface.functions.values()):
        kinds = ",".join(f'"{p.kind}"' for p in fn.params)
        put(("," if k else "") + f'"{fn.name}":["{fn.returns}",[{kinds}]]')
    put('},"constants":{')
    for k, constant in enumerate(interface.constants):
        put(("," if k else "") + f'"{constant}":', f"({constant})")
    put("}}")
    pieces.append(("".join(text), ""))
    sizes = {"p": "sizeof(void*)", "u64": "8", "i64": "8", "u32": "4", "i32": "4"}
    lines = []
    for name, fields in interface.structs.items():
        for f in fields:
            lines.append(f"static_assert(sizeof({name}::{f.name}) == {sizes[f.kind]}, "
                         f'"{name}.{f.name}: not a {f.kind}");')
    return [
        *lines,
        "",
        "namespace {",
        "",
        "// The literals, each ended by a zero byte, and the number after each (none after the",
        "// last): one text and one table of 32-bit numbers, the smallest form of the pieces.",
        "const char TEXT[] =",
        *(f'    "{_c_literal(piece)}\\0"' for piece, _ in pieces),
        "    ;",
        "const int32_t NUMBERS[] = {",
        *(f"    (int32_t)({number})," for piece, number in pieces if number),
        "};",
        "",
        *(f"static_assert((int64_t)({number}) >= INT32_MIN && (int64_t)({number}) <= INT32_MAX, "
          f'"{_c_literal(number)}: past 32 bits");' for _, number in pieces if number),
        "",
        "}  // namespace",
    ]


_CTYPES = {"p": ctypes.c_void_p, "u64": ctypes.c_uint64, "i64": ctypes.c_int64,
           "u32": ctypes.c_uint32, "i32": ctypes.c_int32}


def ctypes_structs(interface: Interface) -> dict[str, type[ctypes.Structure]]:
    """Each struct of the interface as a ctypes Structure of the same fields (pointers as
    ``c_void_p``), by its name less ``cpcore_``."""
    return {name.removeprefix("cpcore_"): type(name, (ctypes.Structure,), {
        "_fields_": [(f.name, _CTYPES[f.kind]) for f in fields]})
        for name, fields in interface.structs.items()}


def ctypes_typed(library: ctypes.CDLL, interface: Interface) -> ctypes.CDLL:
    """``library`` with each entry point it defines typed as the interface declares it
    (pointers as ``c_void_p``: pass arrays' addresses, or ``ctypes.byref`` of a struct)."""
    for fn in interface.functions.values():
        try:
            entry = getattr(library, fn.name)
        except AttributeError:
            continue
        entry.restype = None if fn.returns == "void" else _CTYPES[fn.returns]
        entry.argtypes = [_CTYPES[p.kind] for p in fn.params]
    return library


def main(argv: list[str]) -> int:
    """Write the source of ``cpcore_interface`` for the entry.h at argv[0] to argv[1]."""
    if len(argv) != 2:
        print("usage: interface.py ENTRY_H OUT_CPP", file=sys.stderr)
        return 2
    try:
        made = source(read(Path(argv[0])))
    except InterfaceError as e:
        print(f"{argv[0]}: {e}", file=sys.stderr)
        return 1
    out = Path(argv[1])
    if not out.is_file() or out.read_text() != made:
        out.write_text(made)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
