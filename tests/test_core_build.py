"""The engine core's searches are freestanding: each source under ``cpmodels/_core/src``
compiles with no C++ standard library, exceptions or RTTI, and its object file needs nothing
from outside but what a compiler may emit for copying memory (so the same sources build for
WebAssembly)."""

from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT

from cpmodels._core import interface

CORE = ROOT / "cpmodels" / "_core"
ALLOWED = {"memcpy", "memset", "memmove"}
# The core's own entry points (entry.h), which one source may call in another (the design
# question calls cpcore_reach): within the core, not from outside it.
ENTRY_POINTS = set(interface.read(CORE / "include" / "cpcore" / "entry.h").functions)
SOURCES = sorted((CORE / "src").glob("*.cpp"))
HEADERS = sorted((CORE / "include").rglob("*.h*"))
FREESTANDING = ["-std=c++17", "-O2", "-ffreestanding", "-fno-exceptions", "-fno-rtti",
                "-nostdinc++", "-fno-asynchronous-unwind-tables"]


def _compiler() -> str:
    for name in ("g++", "clang++", "c++"):
        if shutil.which(name):
            return name
    pytest.skip("no C++ compiler (g++ or clang++) on this machine")


@pytest.mark.parametrize("source", SOURCES, ids=[s.name for s in SOURCES])
def test_a_search_source_is_freestanding(source: Path, tmp_path):
    arch = ["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else []
    obj = tmp_path / "search.o"
    built = subprocess.run(
        [_compiler(), *FREESTANDING, *arch, "-I", str(CORE / "include"), "-c", str(source),
         "-o", str(obj)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    listed = subprocess.run(["nm", "-u", "--format=just-symbols", str(obj)],
                            capture_output=True, text=True, check=True, timeout=60)
    needed = set(listed.stdout.split()) - ALLOWED - ENTRY_POINTS
    assert not needed, f"{source.name} needs {sorted(needed)}"


@pytest.mark.parametrize("header", HEADERS, ids=[h.name for h in HEADERS])
def test_a_core_header_stands_alone_and_freestanding(header: Path, tmp_path):
    """Each header compiles on its own with no C++ standard library."""
    unit = tmp_path / "unit.cpp"
    unit.write_text(f'#include "{header.relative_to(CORE / "include").as_posix()}"\n')
    built = subprocess.run(
        [_compiler(), *FREESTANDING, "-I", str(CORE / "include"), "-fsyntax-only",
         str(unit)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr


def test_the_module_loads_fast_and_alone():
    """The compiled module imports without numpy or any solver."""
    code = ("import sys, cpmodels._native; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'ortools', 'pysat', 'numba')))")
    shown = subprocess.run([str(Path(__import__('sys').executable)), "-c", code],
                           capture_output=True, text=True, check=True, timeout=120)
    assert shown.stdout.strip() == "[]"
