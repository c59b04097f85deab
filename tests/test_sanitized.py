"""The core's own tests run on the core built with AddressSanitizer and
UndefinedBehaviorSanitizer, its invariants checked (CPCORE_DEBUG): the module ``_native`` (all
of ``cpmodels/_core/src`` and ``python``) built by CMake with ``-DCPMODELS_SANITIZE=ON``
into ``build/sanitized/<hash of the sources>`` (so a second run builds nothing), then the
tests run in a subprocess that preloads the compiler's sanitizer runtimes and imports that
module in place of the installed one (a pytest plugin of the build folder puts it in
``sys.modules`` before anything imports ``cpmodels._native``; the sources the tests build
alone, conftest's ``core_library``, are sanitized there too). Any sanitizer report, or a
failed invariant, fails the test with the report."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "cpmodels" / "_core"

# The tests that call the core directly (bindings and entry points), the hostile inputs'
# refusals and the fuzzer's regressions among them. The whole of them takes about a minute
# on a plain build; the heaviest searches are left to the plain build.
CORE_TESTS = ["test_core_cover.py", "test_core_layouts.py", "test_core_one_word.py",
              "test_core_one_word_layout.py", "test_core_packing.py", "test_core_towers.py",
              "test_core_findings.py", "test_geometry_core.py", "test_play_layout_core.py",
              "test_sweep_cover_core.py", "test_words.py", "test_one_word_tally.py",
              "test_cut_core.py", "test_core_design.py"]
LEFT_TO_THE_PLAIN_BUILD = ["test_threads_count_at_once", "test_pentomino_boxes"]

PLUGIN = '''"""Loads the sanitized core as cpmodels._native before any test imports it."""
import importlib.util
import sys

import cpmodels

_spec = importlib.util.spec_from_file_location("cpmodels._native", {path!r})
_module = importlib.util.module_from_spec(_spec)
sys.modules["cpmodels._native"] = _module
_spec.loader.exec_module(_module)
cpmodels._native = _module
print("sanitized core:", _module.__file__, file=sys.stderr)
'''


def _runtime(compiler: str, name: str) -> str | None:
    """The compiler's shared sanitizer runtime ``name`` (libasan.so, libubsan.so), or None."""
    found = subprocess.run([compiler, f"-print-file-name={name}"], capture_output=True,
                           text=True).stdout.strip()
    return found if found and Path(found).is_file() else None


def _cmake() -> str | None:
    found = shutil.which("cmake")
    if found:
        return found
    try:
        import cmake
    except ImportError:
        return None
    return str(Path(cmake.CMAKE_BIN_DIR) / "cmake")


def _sanitized_module(compiler: str, cmake: str) -> Path:
    """The sanitized module, built once for these sources (``build/sanitized/<hash>``)."""
    digest = hashlib.sha256(f"{compiler} {sys.executable} {sys.version}".encode())
    sources = sorted([ROOT / "CMakeLists.txt", *CORE.glob("src/*.cpp"),
                      *CORE.glob("include/cpcore/*"), *CORE.glob("python/*.[ch]pp")])
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    folder = ROOT / "build" / "sanitized" / digest.hexdigest()[:16]
    for old in folder.parent.glob("*"):  # the builds of sources since changed
        if old != folder and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    built = sorted(folder.glob("_native*.so"))
    if built:
        return built[0]
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run([cmake, "-S", str(ROOT), "-B", str(folder), *generator,
                    "-DCMAKE_BUILD_TYPE=Debug", f"-DCMAKE_CXX_COMPILER={compiler}",
                    f"-DPython_EXECUTABLE={sys.executable}", "-DCPMODELS_SANITIZE=ON",
                    "-DCPMODELS_WASM=OFF"], check=True, capture_output=True, timeout=600)
    subprocess.run([cmake, "--build", str(folder), "--target", "_native"], check=True,
                   capture_output=True, timeout=1800)
    built = sorted(folder.glob("_native*.so"))
    assert built, f"the sanitized build made no module in {folder}"
    return built[0]


def test_the_core_tests_pass_under_asan_and_ubsan(tmp_path):
    """The core's tests on the sanitized build: all pass, no sanitizer says anything."""
    compiler = shutil.which("g++")
    cmake = _cmake()
    runtimes = [_runtime(compiler, name) for name in ("libasan.so", "libubsan.so")] \
        if compiler else [None]
    if compiler is None or cmake is None or None in runtimes:
        pytest.skip("the sanitizer runtimes (g++'s libasan and libubsan) or cmake are missing")
    module = _sanitized_module(compiler, cmake)
    plugin = tmp_path / "sanitized_core.py"
    plugin.write_text(PLUGIN.format(path=str(module)))
    env = dict(os.environ, LD_PRELOAD=":".join(runtimes), CPMODELS_TEST_SANITIZED="1",
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT / "tests"),
                                           os.environ.get("PYTHONPATH", "")]),
               ASAN_OPTIONS="detect_leaks=0:handle_sigill=1:halt_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    deselect = " or ".join(LEFT_TO_THE_PLAIN_BUILD)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "sanitized_core", "-p", "no:cacheprovider",
         "-k", f"not ({deselect})", *(str(ROOT / "tests" / name) for name in CORE_TESTS)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    report = done.stdout[-6000:] + done.stderr[-6000:]
    assert f"sanitized core: {module}" in done.stderr, report
    for said in ("ERROR: AddressSanitizer", "runtime error:", "SUMMARY: UndefinedBehavior"):
        assert said not in done.stdout + done.stderr, report
    assert done.returncode == 0, report
