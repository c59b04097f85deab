"""Fuzz every entry point of the engine core that reads outside data, each for N seconds.

``python benchmarks/fuzz.py --seconds N [--target NAME ...]`` builds the fuzz targets of
``cpmodels/_core/fuzz`` with clang's libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer
(the core's invariants checked too: ``-DCPCORE_DEBUG``), once for a given set of sources
(``build/fuzz/<hash>``), seeds each with what the package itself hands the core on the
bundled specs and hostile inputs (``benchmarks/fuzz_seeds.py``, written to ``build/fuzz``),
runs each target in turn for N seconds, one line each (its executions, coverage as libFuzzer
counts it, ``cov``: edges, ``ft``: features, its corpus, its findings), and ends with a line
counting the findings (``... 0 findings``). A finding's input is kept in ``--crashes``
(``build/fuzz/crashes`` unless told) and the exit status is 1. The corpus each target grows
is kept in ``build/fuzz/corpus/NAME`` from run to run.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "cpmodels" / "_core"
FUZZ = CORE / "fuzz"
BUILD = ROOT / "build" / "fuzz"
SANITIZERS = "address,undefined"
# A large table's sizes made small (cpcore/table.hpp): the targets' tables of 64 and 128
# slots grow, from the first live slots their input gives, as a sweep's millions do.
FLAGS = ["-std=c++17", "-gline-tables-only", "-O1", "-fno-omit-frame-pointer", "-Wno-psabi",
         "-fno-sanitize-recover=all", "-DCPCORE_DEBUG", "-DCPCORE_CHECK_REPORT",
         "-DCPCORE_FIRST_LIVE=16", "-DCPCORE_GROWS_ABOVE=32", "-DCPCORE_QUARTER_FROM=64",
         "-I", str(CORE / "include")]
CLANG_NAMES = ["clang++"] + [f"clang++-{v}" for v in range(20, 12, -1)]


@dataclass
class Outcome:
    """One target's run: its executions, coverage (edges and features), corpus and
    findings (inputs that crashed, hung or broke a promise)."""

    name: str
    executions: int
    cov: int
    ft: int
    corpus: int
    findings: list[Path]
    seconds: float

    def line(self) -> str:
        return (f"{self.name}: {self.executions:,} executions in {self.seconds:.0f} s, "
                f"cov: {self.cov:,} ft: {self.ft:,}, corpus {self.corpus:,}, "
                f"{len(self.findings)} finding{'' if len(self.findings) == 1 else 's'}")


def targets() -> list[str]:
    """The fuzz targets: one per ``cpmodels/_core/fuzz/*.cpp``."""
    return sorted(path.stem for path in FUZZ.glob("*.cpp"))


def fuzzer_compiler() -> tuple[str | None, str]:
    """A clang++ that links libFuzzer with the sanitizers, or None and why not."""
    for name in CLANG_NAMES:
        found = shutil.which(name)
        if found is None:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            probe = Path(tmp) / "probe.cpp"
            probe.write_text('#include <stddef.h>\n#include <stdint.h>\nextern "C" int '
                             "LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n")
            made = subprocess.run([found, f"-fsanitize=fuzzer,{SANITIZERS}", str(probe),
                                   "-o", str(Path(tmp) / "probe")],
                                  capture_output=True, text=True, timeout=300)
            if made.returncode == 0:
                return found, ""
    return None, ("no clang++ with libFuzzer and the sanitizers on this machine "
                  "(Debian: apt-get install clang)")


def _sources() -> list[Path]:
    """Every file a fuzz target is built from."""
    return sorted([*(CORE / "src").glob("*.cpp"), *(CORE / "include" / "cpcore").glob("*"),
                   *FUZZ.glob("*.[ch]pp")])


def build(clang: str, names: list[str]) -> dict[str, Path]:
    """The named targets built (each once for a given set of sources, flags and compiler):
    the core's sources compiled once, each target linked with them."""
    digest = hashlib.sha256()
    version = subprocess.run([clang, "--version"], capture_output=True, text=True).stdout
    for part in (clang, version, " ".join(FLAGS)):
        digest.update(part.encode())
    for path in _sources():
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    out = BUILD / digest.hexdigest()[:16]
    for old in BUILD.glob("?" * 16):  # the builds of sources since changed
        if old != out and re.fullmatch("[0-9a-f]{16}", old.name):
            shutil.rmtree(old, ignore_errors=True)
    objects = out / "core"
    objects.mkdir(parents=True, exist_ok=True)
    core = {objects / (source.stem + ".o"): [
        clang, *FLAGS, f"-fsanitize=fuzzer-no-link,{SANITIZERS}", "-ffreestanding",
        "-fno-exceptions", "-fno-rtti", "-c", str(source)]
        for source in sorted((CORE / "src").glob("*.cpp"))}
    _compile_all(core)
    linked = [str(obj) for obj in core]
    built = {name: out / name for name in names}
    _compile_all({binary: [clang, *FLAGS, f"-fsanitize=fuzzer,{SANITIZERS}",
                           str(FUZZ / f"{name}.cpp"), *linked]
                  for name, binary in built.items()})
    return built


def _compile_all(commands: dict[Path, list[str]]) -> None:
    """Each compile or link (its output: its command) not yet done, as many at once as
    there are processors: the steps are independent of one another."""
    todo = {output: command for output, command in commands.items() if not output.exists()}
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for done in [pool.submit(_compile, command, output)
                     for output, command in todo.items()]:
            done.result()


def _compile(command: list[str], output: Path) -> None:
    """Run one compile or link into ``output`` (written whole or not at all: a step
    another run makes at once writes its own partial file)."""
    partial = output.with_name(f"{output.name}.{os.getpid()}.{threading.get_ident()}.partial")
    try:
        subprocess.run([*command, "-o", str(partial)], check=True, timeout=900)
        partial.replace(output)
    finally:
        partial.unlink(missing_ok=True)


def seeds(names: list[str]) -> dict[str, Path]:
    """Each target's seed folder (written by fuzz_seeds.py, again when it or a spec changed)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import fuzz_seeds

    return fuzz_seeds.seed_folders(BUILD / "seeds", names)


def _last(pattern: str, text: str) -> int:
    found = re.findall(pattern, text)
    return int(found[-1]) if found else 0


def run(name: str, binary: Path, seconds: int, seed_folder: Path | None,
        crashes: Path) -> Outcome:
    """Fuzz one target for ``seconds`` from its kept corpus and its seeds."""
    corpus = BUILD / "corpus" / name
    corpus.mkdir(parents=True, exist_ok=True)
    crashes.mkdir(parents=True, exist_ok=True)
    before = set(crashes.iterdir())
    folders = [str(corpus)] + ([str(seed_folder)] if seed_folder else [])
    command = [str(binary), *folders, f"-max_total_time={seconds}", "-timeout=20",
               "-rss_limit_mb=2048", "-print_final_stats=1",
               f"-artifact_prefix={crashes}/{name}-"]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:handle_sigill=1",
               UBSAN_OPTIONS="print_stacktrace=1")
    began = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env,
                          timeout=seconds + 600)
    log = done.stderr
    findings = sorted(set(crashes.iterdir()) - before)
    if done.returncode != 0 and not findings:
        kept = crashes / f"{name}-log.txt"
        kept.write_text(log)
        findings = [kept]
    if findings:
        (crashes / f"{name}-last-log.txt").write_text(log)
    return Outcome(name, _last(r"stat::number_of_executed_units:\s*(\d+)", log),
                   _last(r"cov: (\d+)", log), _last(r"ft: (\d+)", log),
                   sum(1 for _ in corpus.iterdir()), findings, time.monotonic() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60, help="seconds per target")
    parser.add_argument("--target", action="append", choices=targets(),
                        help="fuzz this target only (again to add one)")
    parser.add_argument("--crashes", type=Path, default=BUILD / "crashes",
                        help="where a finding's input is kept")
    args = parser.parse_args(argv)
    clang, why = fuzzer_compiler()
    if clang is None:
        print(f"fuzz: {why}", file=sys.stderr)
        return 2
    names = args.target or targets()
    binaries = build(clang, names)
    folders = seeds(names)
    outcomes = []
    for name in names:
        outcome = run(name, binaries[name], args.seconds, folders.get(name), args.crashes)
        print(outcome.line(), flush=True)
        outcomes.append(outcome)
    found = sum(len(o.findings) for o in outcomes)
    executions = sum(o.executions for o in outcomes)
    print(f"{len(outcomes)} targets, {executions:,} executions, "
          f"{found} finding{'' if found == 1 else 's'}")
    if found:
        print(f"the inputs are kept in {args.crashes}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
