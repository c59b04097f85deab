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

import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "cpmodels" / "_core"

# The tests that call the core directly (bindings and entry points), the hostile inputs'
# refusals and the fuzzer's regressions among them. The whole of them takes about a minute
# on a plain build. They run in two processes at once (each file in one), of about the
# same work each: a machine's second processor, idle while the suite runs a test at a
# time, takes half.
CORE_TESTS = [["test_words.py", "test_core_cover.py", "test_core_towers.py",
               "test_core_packing.py", "test_core_findings.py", "test_core_layouts.py",
               "test_cut_core.py", "test_design_sets.py", "test_symmetry_core.py"],
              ["test_one_word_tally.py", "test_engrave.py", "test_geometry_core.py",
               "test_play_layout_core.py", "test_core_one_word.py",
               "test_core_one_word_layout.py", "test_sweep_cover_core.py",
               "test_core_design.py"]]
# Left to the plain build: the heaviest searches, and the page's glyph table made again
# (matplotlib's text layout of every pair of characters: nothing of the core runs in it).
LEFT_TO_THE_PLAIN_BUILD = ["test_threads_count_at_once", "test_pentomino_boxes",
                           "test_the_pages_glyph_table_is_what_the_generator_writes"]

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


# Each step's bound: configuring, building, and the core's tests on the build (each of them
# bounded in turn by the suite's own timeout per test). The test's bound is their sum: the
# suite's bound per test (900 s, pyproject.toml) is shorter than a build on a busy machine,
# and would end the test with no word of the step it was in.
CONFIGURE_SECONDS = 600
BUILD_SECONDS = 1800
RUN_SECONDS = 1500


def _ran(argv: list[str], timeout: float) -> None:
    """Run a build step; a failure says the step's own last words (the compiler's error,
    or how long it ran)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        said = (exc.stdout or "")[-3000:] + (exc.stderr or "")[-3000:]
        pytest.fail(f"{argv[:3]} ran past {timeout:g} s:\n{said}")
    if done.returncode != 0:
        pytest.fail(f"{argv[:3]} failed with status {done.returncode}:\n"
                    f"{done.stdout[-3000:]}{done.stderr[-3000:]}")


@contextmanager
def _locked(path: Path, kind: int = fcntl.LOCK_EX) -> Iterator[bool]:
    """Hold the lock ``kind`` on the file ``path`` (made if missing) for the block; with
    ``fcntl.LOCK_NB`` in ``kind`` it may not be had: the block is told False."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, kind)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _sources_digest(compiler: str) -> str:
    """The name of the sanitized build of the core's sources as they are now."""
    digest = hashlib.sha256(f"{compiler} {sys.executable} {sys.version}".encode())
    sources = sorted([ROOT / "CMakeLists.txt", *CORE.glob("src/*.cpp"),
                      *CORE.glob("include/cpcore/*"), *CORE.glob("python/*.[ch]pp")])
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


@contextmanager
def _sanitized_module(compiler: str, cmake: str) -> Iterator[Path]:
    """The sanitized module, built once for these sources (``build/sanitized/<hash>``) and
    kept for the block. Runs at once in one checkout (two test runs, or a run and an
    edit of the sources) take turns building (``build/sanitized/.lock``); each holds its
    build's ``in-use`` lock while its tests run, and builds of other sources are removed
    only when no run holds them."""
    builds = ROOT / "build" / "sanitized"
    folder = builds / _sources_digest(compiler)
    with _locked(builds / ".lock"):
        for old in builds.glob("*"):  # the builds of sources since changed, not in use
            if old != folder and old.is_dir():
                with _locked(old / "in-use", fcntl.LOCK_EX | fcntl.LOCK_NB) as free:
                    if free:
                        shutil.rmtree(old, ignore_errors=True)
        if not sorted(folder.glob("_native*.so")):
            # Built beside, then moved in whole: a module in the folder is always complete.
            work = builds / f"{folder.name}.building"
            shutil.rmtree(work, ignore_errors=True)
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            _ran([cmake, "-S", str(ROOT), "-B", str(work), *generator,
                  # No build type: nanobind's library as the compiler makes it by default
                  # (no debug information, no link-time optimisation); the module's own
                  # flags (-O1, line tables, the sanitizers) are CMakeLists.txt's.
                  "-DCMAKE_BUILD_TYPE=", f"-DCMAKE_CXX_COMPILER={compiler}",
                  f"-DPython_EXECUTABLE={sys.executable}", "-DCPMODELS_SANITIZE=ON",
                  "-DCPMODELS_WASM=OFF"], CONFIGURE_SECONDS)
            # As many compiles at once as there are processors, with Ninja or Make alike.
            _ran([cmake, "--build", str(work), "--target", "_native", "--parallel",
                  str(os.cpu_count() or 1)], BUILD_SECONDS)
            built = sorted(work.glob("_native*.so"))
            assert built, f"the sanitized build made no module in {work}"
            if _sources_digest(compiler) != folder.name:
                pytest.fail("the core's sources changed while the sanitized build ran: what "
                            "it built is no build of them (run the test again)")
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            shutil.move(str(built[0]), str(folder / built[0].name))
            shutil.rmtree(work, ignore_errors=True)
        in_use = _locked(folder / "in-use", fcntl.LOCK_SH)
        in_use.__enter__()
    try:
        yield sorted(folder.glob("_native*.so"))[0]
    finally:
        in_use.__exit__(None, None, None)


MISSING = "the sanitizer runtimes (g++'s libasan and libubsan) or cmake are missing"


def sanitized_run(scratch: Path) -> None:
    """The core's tests on the sanitized build, raising when any fails or a sanitizer
    speaks; :data:`MISSING` said, and nothing run, where they cannot run."""
    compiler = shutil.which("g++")
    cmake = _cmake()
    runtimes = [_runtime(compiler, name) for name in ("libasan.so", "libubsan.so")] \
        if compiler else [None]
    if compiler is None or cmake is None or None in runtimes:
        print(MISSING)
        return
    scratch.mkdir(parents=True, exist_ok=True)
    with _sanitized_module(compiler, cmake) as module:
        _run_the_core_tests(module, runtimes, scratch)


def _sanitized_command(scratch: Path) -> list[str]:
    return [sys.executable, "-c", "import sys; from pathlib import Path; "
            f"sys.path.insert(0, {str(ROOT / 'tests')!r}); import test_sanitized; "
            "test_sanitized.sanitized_run(Path(sys.argv[1]))", str(scratch)]


@pytest.mark.early.with_args(_sanitized_command)
@pytest.mark.timeout(CONFIGURE_SECONDS + BUILD_SECONDS + RUN_SECONDS + 60)
def test_the_core_tests_pass_under_asan_and_ubsan(early):
    """The core's tests on the sanitized build: all pass, no sanitizer says anything (the
    build and the run start with the session)."""
    assert early.returncode == 0, early.stdout[-6000:] + early.stderr[-12000:]
    if early.stdout.strip() == MISSING:
        pytest.skip(MISSING)


def _run_the_core_tests(module: Path, runtimes: list[str], tmp_path: Path) -> None:
    """The core's tests on ``module``, each group of :data:`CORE_TESTS` in a process of its
    own, the groups at once. Their output is not buffered, and each test is named as it
    starts, so that however a run ends (a sanitizer's report, a signal, a test that hangs:
    its threads' stacks are dumped after ten minutes) the failure says which test it was in
    and what was said last."""
    plugin = tmp_path / "sanitized_core.py"
    plugin.write_text(PLUGIN.format(path=str(module)))
    with ThreadPoolExecutor(max_workers=len(CORE_TESTS)) as pool:
        runs = [pool.submit(_run_group, module, runtimes, tmp_path, group)
                for group in CORE_TESTS]
        failures = [said for run in runs if (said := run.result())]
    assert not failures, "\n\n".join(failures)


def _run_group(module: Path, runtimes: list[str], tmp_path: Path,
               group: list[str]) -> str | None:
    """The tests of ``group`` on ``module`` in a subprocess: None when all pass and no
    sanitizer says anything, else what went wrong and what the run said last."""
    env = dict(os.environ, LD_PRELOAD=":".join(runtimes), CPMODELS_TEST_SANITIZED="1",
               PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT / "tests"),
                                           os.environ.get("PYTHONPATH", "")]),
               ASAN_OPTIONS="detect_leaks=0:handle_sigill=1:halt_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    deselect = " or ".join(LEFT_TO_THE_PLAIN_BUILD)
    argv = [sys.executable, "-m", "pytest", "-v", "-p", "sanitized_core", "-p",
            "no:cacheprovider", "-o", "faulthandler_timeout=600", "-k",
            f"not ({deselect})", *(str(ROOT / "tests" / name) for name in group)]
    try:
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=RUN_SECONDS)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr or ""
        return (f"the sanitized tests of {group} ran past {RUN_SECONDS} s; the last said:\n"
                f"{out[-4000:]}{err[-4000:]}")
    report = f"{group}:\n{done.stdout[-6000:]}{done.stderr[-6000:]}"
    if done.returncode < 0:
        return (f"the sanitized tests' process ended by signal "
                f"{signal.Signals(-done.returncode).name}; the last said:\n{report}")
    if f"sanitized core: {module}" not in done.stderr:
        return f"the sanitized core was not loaded:\n{report}"
    for said in ("ERROR: AddressSanitizer", "runtime error:", "SUMMARY: UndefinedBehavior"):
        if said in done.stdout + done.stderr:
            return f"{said}:\n{report}"
    return None if done.returncode == 0 else f"status {done.returncode}:\n{report}"
