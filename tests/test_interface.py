"""The core's interface is described once, in ``cpcore/entry.h``: read by
``cpmodels/_core/interface.py``, which writes the source of ``cpcore_interface`` (each
struct's fields, kinds, offsets and size as a compiler lays them out). engine.wasm carries
it, and engine.js reads the layout of every struct from it; the tests' ctypes structs are
made from it; the layouts' named tuples are checked against it here. And every file a
comment of the core or of the engine names exists."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import shutil
import subprocess
import tokenize
from importlib import resources
from pathlib import Path

import cpmodels._native as _native
import numpy as np
import pytest
from conftest import ENTRY, ROOT, core_struct

from cpmodels._core import interface
from cpmodels.backends.engine.kernels.choice import EXISTS, OFFER_BITS, SOLUTIONS, TALLY, Offers
from cpmodels.backends.engine.kernels.memo import Table
from cpmodels.backends.engine.kernels.words import WordLayout
from cpmodels.backends.engine.layouts.cover import Layout, OneWord
from cpmodels.backends.engine.layouts.described import extent, layout_arrays, struct_of
from cpmodels.backends.engine.layouts.reach import ReachLayout, ReachRegions
from cpmodels.backends.engine.layouts.tally import OneTallies, Tallies

CORE = ROOT / "cpmodels" / "_core"
ENTRY_H = CORE / "include" / "cpcore" / "entry.h"
ENGINE = resources.files("cpmodels.web").joinpath("static/engine")
PROBE_MAIN = """#include <stdio.h>
#include <stdint.h>
extern "C" uint64_t cpcore_interface(char* out, uint64_t capacity);
int main() {
    static char text[1 << 20];
    const uint64_t n = cpcore_interface(text, sizeof text);
    fwrite(text, 1, n, stdout);
    return n < sizeof text ? 0 : 1;
}
"""
# The browser's view: cpcore_interface called in engine.wasm (by node), its JSON printed.
WASM_PROBE = """const fs = await import("node:fs");
const { instance } = await WebAssembly.instantiate(fs.readFileSync(process.argv[2]), {});
const x = instance.exports;
const at = Math.ceil(Number(x.__heap_base.value) / 8) * 8;
const n = Number(x.cpcore_interface(0, 0n));
x.memory.grow(Math.ceil(n / 65536) + 1);
x.cpcore_interface(at, BigInt(n));
process.stdout.write(new TextDecoder().decode(new Uint8Array(x.memory.buffer, at, n)));
"""
SIZES = {"u64": 8, "i64": 8, "u32": 4, "i32": 4}


def test_entry_h_is_read_whole():
    """Every struct, entry point and constant of entry.h is in its description."""
    text = ENTRY_H.read_text()
    assert set(ENTRY.structs) == set(re.findall(r"^typedef struct (cpcore_\w+)", text, re.M))
    assert set(ENTRY.functions) == set(re.findall(r"\b(cpcore_\w+)\(", text))
    defines = re.findall(r"^#define (CPCORE_\w+) ", text, re.M)
    assert [c for c in ENTRY.constants if c in defines] == defines
    assert all(re.search(rf"\b{c}\b", text) for c in ENTRY.constants)
    sweep = ENTRY.functions["cpcore_sweep_cover"]
    assert [p.kind for p in sweep.params] == ["p", "p"] and sweep.returns == "i64"
    fields = {f.name: f for f in ENTRY.structs["cpcore_one_word"]}
    assert (fields["start"].kind, fields["start"].pointee) == ("p", "uint64_t")
    assert fields["start"].shape == ("64 * n_pieces + 1",)
    assert (fields["isolated_dead"].kind, fields["region_limit"].kind) == ("i32", "i64")
    # the layouts the browser allocates: every array with its type and shape
    for name in ("cpcore_cover_layout", "cpcore_tally_layout", "cpcore_one_word_layout"):
        for f in ENTRY.structs[name]:
            assert f.kind == "p" and f.pointee in ("uint64_t", "int64_t", "uint8_t"), f
            assert f.shape, f"{name}.{f.name}: its comment gives no shape"
    cell_nb = {f.name: f for f in ENTRY.structs["cpcore_cover_layout"]}["cell_nb"]
    assert cell_nb.shape == ("max(n_branch, 1)", "degree")


@pytest.mark.parametrize("comment, shape", [
    ("/* [n_items] */", ("n_items",)),
    ("/* [2**n_tally, max(n_tally, 1)] the vectors */", ("2**n_tally", "max(n_tally, 1)")),
    ("/* [masks * cols + 1] */", ("masks * cols + 1",)),
    ("/* [len(anchor_opts)] */", ()),   # a call other than max: no shape
    ("/* the end [n] */", ()),          # brackets not first
    ("/* [] */", ()),
])
def test_a_pointers_comment_gives_its_shape(comment, shape):
    text = f"typedef struct cpcore_a {{\n    const int64_t* x;  {comment}\n}} cpcore_a;"
    assert interface.parse(text).structs["cpcore_a"][0].shape == shape


def test_enums_and_a_defines_comment_over_lines_are_read():
    text = """#define CPCORE_A (-1)  /* a comment that goes on (with
                                a second line) */
typedef enum cpcore_ask { CPCORE_ASK_X = 0, CPCORE_ASK_Y = (1 << 2), } cpcore_ask;
enum cpcore_other { CPCORE_OTHER };
int cpcore_f(cpcore_ask ask, const int64_t* at);
"""
    read = interface.parse(text)
    assert read.constants == ("CPCORE_A", "CPCORE_ASK_X", "CPCORE_ASK_Y", "CPCORE_OTHER")
    assert [p.kind for p in read.functions["cpcore_f"].params] == ["i32", "p"]


def test_what_is_inside_ifndef_wasm_is_the_native_modules_alone():
    """A declaration inside ``#ifndef __wasm__`` is described, marked native: engine.wasm
    neither builds nor describes it (its generated table leaves it out)."""
    text = """#ifdef __wasm__
#pragma GCC visibility push(default)
#endif
int cpcore_both(void);
#ifndef __wasm__
#define CPCORE_NATIVE_ONLY 3
typedef struct cpcore_here { int64_t x; } cpcore_here;
int64_t cpcore_native(const cpcore_here* in);
#endif
#define CPCORE_BOTH 1
"""
    read = interface.parse(text)
    assert list(read.functions) == ["cpcore_both", "cpcore_native"]
    assert read.native == {"CPCORE_NATIVE_ONLY", "cpcore_here", "cpcore_native"}
    wasm = read.for_wasm()
    assert (list(wasm.functions), list(wasm.structs), wasm.constants) == \
        (["cpcore_both"], [], ("CPCORE_BOTH",))
    made = interface.source(read)
    assert made.count("#ifdef __wasm__") == 1 and "cpcore_native" in made
    wasm_part = made.split("#ifdef __wasm__")[1].split("#else")[0]
    assert "cpcore_native" not in wasm_part and "cpcore_both" in wasm_part
    assert {"cpcore_option_symmetries", "cpcore_symmetry_input"} <= ENTRY.native


@pytest.mark.parametrize("text, says", [
    ("typedef struct cpcore_a { uint64_t x[4]; } cpcore_a;", "arrays are not read"),
    ("typedef struct cpcore_a { float x; } cpcore_a;", "float: not a type"),
    ("typedef struct cpcore_a { uint64_t** x; } cpcore_a;", "pointers to pointers"),
    ("typedef struct cpcore_a { uint8_t x; } cpcore_a;", "only through a pointer"),
    ("typedef struct cpcore_a { int x; } cpcore_b;", "named cpcore_a again"),
    ("typedef struct other { int x; } other;", "a struct's name is cpcore_"),
    ("int other(void);", "starts with cpcore_"),
    ("double cpcore_f(void);", "double: not a type"),
    ("int cpcore_f(int x);\nint cpcore_f(int y);", "line 2: cpcore_f is declared twice"),
    ("#if X\nint cpcore_f(void);", "line 1: #if X: not a directive"),
    ("#ifndef __wasm__\n#else\n#endif", "line 2: #else in #ifndef __wasm__"),
    ("#endif", "line 1: #endif without its #if"),
    ("int cpcore_f(int x", "ends inside a declaration"),
    ("enum other { CPCORE_A };", "an enum's name starts with cpcore_"),
    ("enum cpcore_e { A };", "A: an enumerator's name starts with CPCORE_"),
    ("typedef enum cpcore_e { CPCORE_A } cpcore_f;", "is named cpcore_f"),
])
def test_the_reader_refuses_what_it_does_not_read(text, says):
    with pytest.raises(interface.InterfaceError, match=re.escape(says)):
        interface.parse(text)


def _same_interface(described: dict, pointer: int) -> None:
    """``described`` (cpcore_interface's JSON from a build) is entry.h's, laid out by C's
    rules for pointers of ``pointer`` bytes; engine.wasm's (4-byte pointers) without what is
    the native module's alone (``#ifndef __wasm__``)."""
    entry = ENTRY.for_wasm() if pointer == 4 else ENTRY
    assert list(described["structs"]) == list(entry.structs)
    for name, fields in entry.structs.items():
        got = described["structs"][name]
        assert [(f.name, f.kind, f.pointee, list(f.shape)) for f in fields] == \
            [(n, k, pointee, shape) for n, k, _, pointee, shape in got["fields"]], name
        at = widest = 0
        for _, kind, offset, *_ in got["fields"]:
            size = SIZES.get(kind, pointer)
            at = -(-at // size) * size  # each field aligned on its size
            assert offset == at, (name, got["fields"])
            at, widest = at + size, max(widest, size)
        assert got["size"] == -(-at // widest) * widest, name
    assert {name: [fn.returns, [p.kind for p in fn.params]]
            for name, fn in entry.functions.items()} == described["functions"]
    assert list(described["constants"]) == list(entry.constants)
    assert described["constants"]["CPCORE_MAX_COORDINATE"] == 2**30
    assert described["constants"]["CPCORE_CAPPED"] == -3  # the statuses: STOPPED is -1


def test_the_host_build_lays_out_what_entry_h_says(tmp_path):
    """The generated source compiled for this machine (64-bit pointers) reports entry.h's
    structs, each field where C puts it."""
    compiler = shutil.which("g++") or shutil.which("clang++")
    if compiler is None:
        pytest.skip("no C++ compiler (g++ or clang++) on this machine")
    source = tmp_path / "interface.cpp"
    assert interface.main([str(ENTRY_H), str(source)]) == 0
    assert source.read_text().startswith("// Generated from cpcore/entry.h")
    (tmp_path / "main.cpp").write_text(PROBE_MAIN)
    subprocess.run([compiler, "-std=c++17", "-Wall", "-Werror", "-I", str(CORE / "include"),
                    str(source), str(tmp_path / "main.cpp"), "-o", str(tmp_path / "probe")],
                   check=True, timeout=300)
    probe = subprocess.run([str(tmp_path / "probe")], capture_output=True, check=True)
    _same_interface(json.loads(probe.stdout), pointer=8)


def test_the_module_describes_the_entry_h_it_was_built_from():
    """The compiled module carries the same description (what the layouts' arrays are
    made from on the Python side)."""
    _same_interface(json.loads(_native.interface()), pointer=8)


@pytest.mark.parametrize("text, sizes, value", [
    ("n_items", {"n_items": 5}, 5),
    ("max(n_branch, 1)", {"n_branch": 0}, 1),
    ("64 * n_pieces + 1", {"n_pieces": 3}, 193),
    ("2**n_tally", {"n_tally": 4}, 16),
    ("masks * cols + 1 - 1", {"masks": 4, "cols": 2}, 8),
])
def test_an_extent_of_a_shape_is_worked_out(text, sizes, value):
    assert extent(text, sizes) == value


@pytest.mark.parametrize("text", ["n_other", "len(x)", "n / 2", "1 - 2", "__import__('os')"])
def test_an_extent_that_is_not_one_is_refused(text):
    with pytest.raises(ValueError):
        extent(text, {"n": 4})


def test_layout_arrays_are_made_as_entry_h_says():
    out = layout_arrays("cpcore_cover_layout", {
        "n_items": 5, "n_options": 7, "n_words": 2, "n_branch": 0, "n_anchored": 3,
        "n_counters": 1, "degree": 4, "n_opt_nb": 6, "n_board_cells": 2})
    assert list(out) == [f.name for f in ENTRY.structs["cpcore_cover_layout"]]
    assert out["opt_mask"].shape == (7, 2) and out["opt_mask"].dtype == np.uint64
    assert out["cell_nb"].shape == (1, 4) and out["fillable"].dtype == np.bool_
    with pytest.raises(ValueError, match="no array type and shape"):
        layout_arrays("cpcore_cover_input", {})


def test_a_structs_bytes_are_read_by_its_fields():
    """The sizes the layout bindings hand back as bytes are read by entry.h's fields."""
    made = core_struct("one_word_sizes", error=3, suits=1, all_pieces=2**64 - 1,
                       region_limit=-2)
    got = struct_of("cpcore_one_word_sizes", bytes(made))
    assert list(got) == [f.name for f in ENTRY.structs["cpcore_one_word_sizes"]]
    assert (got["error"], got["suits"], got["all_pieces"], got["region_limit"],
            got["n_flat"]) == (3, 1, 2**64 - 1, -2, 0)
    with pytest.raises(ValueError, match="bytes"):
        struct_of("cpcore_one_word_sizes", b"\0")


def test_engine_wasm_describes_the_entry_h_it_was_built_from(tmp_path):
    """The installed engine.wasm (wasm32: 4-byte pointers) describes this tree's entry.h:
    what engine.js reads of it is what the core was compiled with."""
    node = shutil.which("node")
    wasm = ENGINE.joinpath("engine.wasm")
    if node is None or not wasm.is_file():
        pytest.skip("node or engine.wasm is not here")
    script = tmp_path / "probe.mjs"
    script.write_text(WASM_PROBE)
    probe = subprocess.run([node, str(script), str(wasm)], capture_output=True, text=True,
                           check=True, timeout=120)
    _same_interface(json.loads(probe.stdout), pointer=4)


def test_engine_js_writes_no_struct_by_hand():
    """engine.js takes the structs' fields and offsets from engine.wasm: no list of a
    struct's fields or kinds of its own."""
    js = ENGINE.joinpath("engine.js").read_text()
    assert "cpcore_interface" in js
    kinds = {"p", "u64", "i64", "u32", "i32"}
    fields = re.findall(r'\["(\w+)", "(?:p|u64|i64|i32|u32)"\]', js)
    assert [name for name in fields if name not in kinds] == []


def test_the_choice_of_search_is_asked_in_entry_hs_numbers():
    """The questions and offers cpcore_choose_search reads are entry.h's constants alone:
    Python (choice.py) and engine.js take them from the interface description, the fields of
    Offers are the CPCORE_OFFERS_* names, each a bit of its own, and engine.js writes no
    number of them."""
    asks = [c for c in ENTRY.constants if c.startswith("CPCORE_ASK_")]
    offers = [c for c in ENTRY.constants if c.startswith("CPCORE_OFFERS_")]
    assert asks == ["CPCORE_ASK_TALLY", "CPCORE_ASK_EXISTS", "CPCORE_ASK_SOLUTIONS"]
    names = [c.removeprefix("CPCORE_OFFERS_").lower() for c in offers]
    assert [f.name for f in dataclasses.fields(Offers)] == names
    described = json.loads(_native.interface())["constants"]
    assert tuple(described[c] for c in asks) == (TALLY, EXISTS, SOLUTIONS)
    bits = [described[c] for c in offers]
    assert tuple(zip(names, bits, strict=True)) == OFFER_BITS
    assert all(b > 0 and b & (b - 1) == 0 for b in bits) and len(set(bits)) == len(bits)
    assert Offers(**dict.fromkeys(names, True)).bits_word == sum(bits)
    js = ENGINE.joinpath("engine.js").read_text()
    assert '"CPCORE_ASK_"' in js and '"CPCORE_OFFERS_"' in js
    assert not re.search(rf"\b({'|'.join(['tally', 'exists', *names])})\s*:\s*\d", js)


# The named tuples the bindings read, each against the structs of entry.h it fills: a
# pointer field is an array of the tuple of the same name; a whole-number field absent from
# the tuple is measured from its arrays (a length or a shape).
TUPLES = [((Layout,), ("cpcore_packing_cover", "cpcore_n_words")),
          ((WordLayout,), ("cpcore_packing_cover", "cpcore_two_words")),
          ((Tallies,), ("cpcore_tallies",)),
          ((OneTallies,), ("cpcore_one_tallies",)),
          ((OneWord,), ("cpcore_one_word",)),
          ((ReachLayout, ReachRegions), ("cpcore_reach_layout",)),
          ((Table,), ("cpcore_table", "cpcore_one_word_table"))]
# Fields a tuple names otherwise, and those a tuple has that no struct reads.
RENAMED = {"tag_word": "opt_tag_word", "tag_bit": "opt_tag_bit"}
TUPLE_ONLY = {"OneWord": {"areas"}, "WordLayout": {"tag_a", "tag_b"},
              "ReachLayout": {"n_cells", "last_group"}}


@pytest.mark.parametrize("tuples, structs", TUPLES,
                         ids=[t[0].__name__ for t, _ in TUPLES])
def test_a_layouts_named_tuple_has_the_fields_of_its_structs(tuples, structs):
    have = {field: t.__name__ for t in tuples for field in t._fields}
    fields = [f for s in structs for f in ENTRY.structs[s]]
    for f in fields:
        name = RENAMED.get(f.name, f.name)
        assert name in have or f.kind != "p", f"{structs}: {f.name} is no field of {tuples}"
    names = {RENAMED.get(f.name, f.name) for f in fields}
    for field, owner in have.items():
        assert field in names or field in TUPLE_ONLY.get(owner, ()), \
            f"{owner}.{field}: no field of {structs}"


def test_the_bindings_read_the_named_tuples_fields():
    """Each name a search's binding reads of a layout (``field<T>(L, "start")``,
    ``.attr("isolated_dead")``) is a field of one of the named tuples."""
    fields = {field for tuples, _ in TUPLES for t in tuples for field in t._fields}
    read = set()
    for name in ("one_word.cpp", "packing.cpp"):
        text = (CORE / "python" / name).read_text()
        for argument, attribute in re.findall(r'\(\s*\w+\s*,\s*"(\w+)"|attr\("(\w+)"\)',
                                              text):
            read.add(argument or attribute)
    assert len(read) > 50
    assert read - fields == set()


# Entry points whose parameters are the searches' own (their structs are being made anew).
SEARCHES = re.compile(r"cpcore_(count_one_word|tally_one_word|reach|bit_cover_\w+|links_\w+|"
                      r"first_solution_nodes|search_\w+)$")


def test_long_parameter_lists_take_a_struct():
    long = [name for name, fn in ENTRY.functions.items()
            if len(fn.params) > 8 and not SEARCHES.match(name)]
    assert long == [], f"{long}: more than 8 parameters (make a struct of the inputs)"


# --- every file a comment names exists ---------------------------------------------------

NAMED = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.(?:py|hpp|h|cpp|js|cmake|md))\b")
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# Files named that are made by the build, not kept in the tree, and the standard headers.
BUILT = {"engine.wasm", "interface.cpp", "stdint.h", "stddef.h", "stdio.h"}


def _comments(path: Path) -> list[tuple[int, str]]:
    """The comments of a source file with their lines (a Python file's docstrings too)."""
    text = path.read_text()
    if path.suffix == ".py":
        return [(tok.start[0], tok.string)
                for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                if tok.type in (tokenize.COMMENT, tokenize.STRING)]
    return [(text.count("\n", 0, m.start()) + 1, m.group()) for m in C_COMMENT.finditer(text)]


def test_every_file_a_comment_of_the_core_names_exists():
    """A path in a comment of the core, its bindings, the engine's Python or engine.js is a
    file of the tree (a name with folders ends a file's path, a bare name is some file's
    name; standard and nanobind headers aside)."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    files += [str(p.relative_to(ROOT)) for p in CORE.rglob("*") if p.is_file()]
    names = {Path(f).name for f in files} | BUILT
    sources = [p for p in [*CORE.rglob("*"), *(ROOT / "cpmodels/backends/engine").rglob("*.py"),
                           *(ROOT / "cpmodels/web/static/engine").glob("*.js")]
               if p.suffix in (".py", ".h", ".hpp", ".cpp", ".js", ".cmake")]
    assert len(sources) > 40
    stale = []
    for path in sources:
        for line, comment in _comments(path):
            for named in NAMED.findall(comment):
                found = (any(f == named or f.endswith("/" + named) for f in files)
                         if "/" in named else named in names)
                if not found:
                    stale.append(f"{path.relative_to(ROOT)}:{line}: {named}")
    assert stale == []


def test_the_rule_on_names_sees_a_stale_one(tmp_path):
    source = tmp_path / "x.cpp"
    source.write_text("// see cpmodels/backends/engine/layout.py\nint x; /* and one.py */\n")
    assert [n for _, c in _comments(source) for n in NAMED.findall(c)] == \
        ["cpmodels/backends/engine/layout.py", "one.py"]
