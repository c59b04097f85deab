"""The layering the code promises: imports one way (no cycle, even through an import inside
a function or for type checkers), the engine's one door, render free of solvers, a command
line that loads what its command uses, adapters over the run layer and the engine's
session."""

from __future__ import annotations

import ast
import graphlib
import itertools
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "cpmodels"
ENGINE = PACKAGE / "backends" / "engine"


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _engine_submodules() -> set[str]:
    """Every module and folder below the facade, by its dotted name under it."""
    names = set()
    for path in ENGINE.rglob("*.py"):
        parts = path.relative_to(ENGINE).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if parts:
            names.add(".".join(parts))
    return names


def _imported(tree: ast.AST) -> list[tuple[str, int]]:
    """Every module an import statement names (``from a import b`` names ``a`` and
    ``a.b``, since ``b`` may be a module), with its line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, node.lineno))
            found += [(f"{node.module}.{alias.name}", node.lineno) for alias in node.names]
    return found


def test_nothing_outside_the_engine_imports_its_modules():
    """Features reach the engine through ``cpmodels.backends.engine`` alone: none imports
    its session, its choice of searches, nor a module of its folders."""
    assert {"session", "searches", "layouts", "kernels", "placement",
            "kernels.memo", "placement.scheduling"} <= _engine_submodules()
    inner = {f"cpmodels.backends.engine.{name}" for name in _engine_submodules()}
    offenders = []
    for path in _modules():
        if ENGINE in path.parents:
            continue
        for name, line in _imported(ast.parse(path.read_text())):
            if name in inner or any(name.startswith(m + ".") for m in inner):
                offenders.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert offenders == []


@pytest.mark.parametrize("module", ["cpmodels.render", "cpmodels.towers", "cpmodels.spec",
                                    "cpmodels.web.play", "cpmodels.make"])
def test_pictures_and_specs_load_no_solver(module):
    code = (f"import sys, {module}; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'ortools', 'pysat'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.strip()
    assert out == "[]"


def test_the_cli_is_thin():
    """The command modules call the library; none does a search or a file format itself."""
    inner = {f"cpmodels.backends.engine.{name}" for name in _engine_submodules()}
    low_level = ("numba", "ortools", "pysat", "cpmodels.towers.programme",
                 "cpmodels.towers.certificate", "cpmodels.towers.model")
    for path in (PACKAGE / "cli").glob("*.py"):
        names = {name for name, _ in _imported(ast.parse(path.read_text()))}
        assert not names & inner, path.name
        assert not any(name.startswith(low_level) for name in names), path.name


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _under_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")


def _statements(nodes: Iterable[ast.AST], on_load: bool = True
                ) -> Iterator[tuple[ast.AST, bool]]:
    """Every import statement in ``nodes``, and whether it runs as its module loads (not
    inside a function, nor under ``if TYPE_CHECKING:``, which never runs)."""
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, on_load
        elif isinstance(node, ast.If) and _under_type_checking(node):
            yield from _statements(node.body, False)
            yield from _statements(node.orelse, on_load)
        else:
            inside = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            yield from _statements(ast.iter_child_nodes(node), on_load and not inside)


def _targets(node: ast.AST, module: str, is_package: bool, known: set[str]) -> list[str]:
    """What an import statement of ``module`` loads: ``from pkg import sub`` the module
    ``pkg.sub`` when ``sub`` is one, and ``pkg`` when it takes a name from the package's
    ``__init__``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    base = node.module or ""
    if node.level:
        parts = module.split(".")[: len(module.split(".")) - node.level + is_package]
        base = ".".join([*parts, *([base] if base else [])])
    subs = [f"{base}.{alias.name}" for alias in node.names]
    found = [sub for sub in subs if sub in known]
    if any(sub not in known for sub in subs):
        found.append(base)
    return found


def _graph(sources: dict[str, tuple[str, bool]], on_load: bool = False
           ) -> dict[str, dict[str, int]]:
    """Module -> the modules it imports (those of ``sources``, and others by their top
    level name), each with the line of the import: every import, or with ``on_load`` those
    that run as the module loads. ``sources``: module name -> (its text, is a package)."""
    known = set(sources)
    graph: dict[str, dict[str, int]] = {}
    for name, (text, is_package) in sources.items():
        needs = graph.setdefault(name, {})
        for node, loads in _statements([ast.parse(text)]):
            if on_load and not loads:
                continue
            for target in _targets(node, name, is_package, known):
                if target not in known:
                    target = target.split(".")[0]
                if target != name:
                    needs.setdefault(target, node.lineno)
    return graph


def _package_sources() -> dict[str, tuple[str, bool]]:
    return {_module_name(path): (path.read_text(encoding="utf-8"), path.stem == "__init__")
            for path in _modules()}


@pytest.fixture(scope="module")
def every_import() -> dict[str, dict[str, int]]:
    return _graph(_package_sources())


@pytest.fixture(scope="module")
def imports_on_load() -> dict[str, dict[str, int]]:
    return _graph(_package_sources(), on_load=True)


def _cycle(graph: dict[str, dict[str, int]]) -> str | None:
    """A cycle of ``graph``, each import with its line (``a:12 -> b``), or None."""
    try:
        list(graphlib.TopologicalSorter({k: set(v) for k, v in graph.items()}).static_order())
    except graphlib.CycleError as found:
        ring = found.args[1]  # [a, ..., a]: each imported by the one after it
        ring = ring[::-1]
        return " -> ".join(f"{a}:{graph[a][b]}" for a, b in itertools.pairwise(ring)) + \
            f" -> {ring[-1]}"
    return None


def test_no_import_cycle_in_the_package(every_import):
    """Every import points one way, at module level, inside a function or for type
    checkers alone: a module never reaches itself again (``module:line`` names each import
    of a cycle)."""
    cycle = _cycle(every_import)
    assert cycle is None, f"import cycle: {cycle}"


ENGINE_PACKAGE = "cpmodels.backends.engine"
# Inside the engine: the session asks questions and :class:`Searches` chooses the kernel
# call, so they alone import the kernels, and the session alone asks :class:`Searches`
# (every search runs in the session's turn, within its time limit and stop flag: placement
# and the facade reach the kernels through the session); a kernel knows no session nor
# placement, a layout no kernel.
KERNEL_USERS = ("session", "searches")
SEARCHES_USERS = ("session",)
MUST_NOT_IMPORT = {"kernels": ("session", "searches", "placement"),
                   "layouts": ("kernels", "session", "searches", "placement")}


def _engine_offenders(graph: dict[str, dict[str, int]]) -> list[str]:
    """Each import of an engine part (a folder or a module below the facade) that breaks
    :data:`KERNEL_USERS` or :data:`MUST_NOT_IMPORT` (``module:line imports target``)."""
    def part(name: str) -> str | None:
        if not _is(name, (ENGINE_PACKAGE,)) or name == ENGINE_PACKAGE:
            return None
        return name[len(ENGINE_PACKAGE) + 1:].split(".")[0]

    offenders = []
    for name, needs in graph.items():
        here = part(name)
        for target, line in needs.items():
            there = part(target)
            if there is None or there == here:
                continue
            if (there == "kernels" and here not in KERNEL_USERS) \
                    or (there == "searches" and here not in SEARCHES_USERS) \
                    or there in MUST_NOT_IMPORT.get(here or "", ()):
                offenders.append(f"{name}:{line} imports {target}")
    return offenders


def test_the_engine_is_layered_session_searches_kernels_layouts(every_import):
    """Only the session and its choice of searches import the kernels, and only the session
    its choice of searches (placement and the facade reach every search through the
    session); the kernels import no placement, session nor choice; the layouts import no
    kernel (every import, in a function or for type checkers too)."""
    assert _engine_offenders(every_import) == []


def test_the_engine_rules_see_a_layer_crossed():
    e = ENGINE_PACKAGE
    sources = {"cpmodels": ("", True), "cpmodels.backends": ("", True), e: ("", True),
               f"{e}.kernels": ("", True), f"{e}.layouts": ("", True),
               f"{e}.placement": ("", True),
               f"{e}.kernels.memo": ("", False),
               f"{e}.kernels.general": (f"from {e}.placement import cluster\n", False),
               f"{e}.layouts.cover": (f"def f():\n    from {e}.kernels import memo\n", False),
               f"{e}.placement.cluster": (f"from {e}.kernels.memo import Memo\n", False),
               f"{e}.placement.scheduling": (f"from {e}.searches import Call\n", False),
               f"{e}.searches": (f"from {e}.kernels.memo import Memo\n", False),
               f"{e}.session": (f"from {e}.searches import Searches\n", False)}
    assert sorted(_engine_offenders(_graph(sources))) == [
        f"{e}.kernels.general:1 imports {e}.placement.cluster",
        f"{e}.layouts.cover:2 imports {e}.kernels.memo",
        f"{e}.placement.cluster:1 imports {e}.kernels.memo",
        f"{e}.placement.scheduling:1 imports {e}.searches"]


def test_the_cycle_finder_sees_imports_in_functions_and_for_type_checkers():
    helper = "def f():\n    from pkg.b import g\n"
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import f\n"
    sources = {"pkg": ("", True), "pkg.a": (helper, False), "pkg.b": (typed, False)}
    assert _cycle(_graph(sources)) in ("pkg.a:2 -> pkg.b:3 -> pkg.a",
                                       "pkg.b:3 -> pkg.a:2 -> pkg.b")
    assert _cycle(_graph(sources, on_load=True)) is None
    relative = {"pkg": ("", True), "pkg.a": ("from .b import g\n", False),
                "pkg.b": ("def g():\n    from . import a\n", False)}
    assert _cycle(_graph(relative)) in ("pkg.a:1 -> pkg.b:2 -> pkg.a",
                                        "pkg.b:2 -> pkg.a:1 -> pkg.b")


def _loaded_with(modules: list[str], graph: dict[str, dict[str, int]]) -> set[str]:
    """Every module that loads when ``modules`` do: what they import as they load, in
    turn, and the packages above each."""
    seen: set[str] = set()
    todo = list(modules)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for above in (".".join(parts[:k]) for k in range(1, len(parts) + 1)):
            if above not in seen:
                seen.add(above)
                todo += graph.get(above, {})
    return seen


# What a command line that only reads its arguments, or an adapter, must not load as it
# loads: a solver, the engine, the run layer that starts its work.
BACKEND_MODULES = ("cpmodels.backends.engine", "cpmodels.backends.cpsat",
                   "cpmodels.backends.cnf", "cpmodels.cpsat_runtime", "cpmodels.drup",
                   "cpmodels.towers.model", "cpmodels.towers.programme", "cpmodels._native",
                   "numba", "ortools", "pysat")


def _is(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_command_line_builds_its_parser_on_the_standard_library(imports_on_load):
    """``cpmodels --help`` loads the command modules to build its parser: as they load they
    import nothing outside the standard library (no pydantic, numpy, solver or engine;
    each command imports what it uses when it runs), so every command starts at once."""
    front = ["cpmodels.__main__", "cpmodels.cli",
             *(f"cpmodels.cli.{p.stem}" for p in (PACKAGE / "cli").glob("*.py"))]
    loaded = _loaded_with(front, imports_on_load)
    outside = {name for name in loaded if not name.startswith("cpmodels")
               and name not in sys.stdlib_module_names and name != "__future__"}
    assert outside == set()
    assert {name for name in loaded if _is(name, (*BACKEND_MODULES, "cpmodels.running",
                                                  "cpmodels.spec"))} == set()


def test_the_adapters_reach_the_backends_through_the_run_layer_and_the_session(
        imports_on_load):
    """The Python API and the web server import, as they load, no backend module: they
    ask the run layer, the engine's session (``cpmodels.backends.engine``, its one door)
    and the table of backends, which loads a solver when it is used."""
    assert _adapters_over_backends(imports_on_load) == []


def _adapters_over_backends(graph: dict[str, dict[str, int]]) -> list[str]:
    """Each import of a backend module an adapter makes as it loads (``module:line``)."""
    offenders = []
    for name, needs in graph.items():
        if name == "cpmodels.api" or _is(name, ("cpmodels.web",)):
            offenders += [f"{name}:{line} imports {target}" for target, line in needs.items()
                          if _is(target, BACKEND_MODULES)
                          and target != "cpmodels.backends.engine"]
    return offenders


def test_the_rule_on_adapters_sees_a_backend_loaded_with_the_server():
    sources = {"cpmodels": ("", True), "cpmodels.web": ("", True),
               "cpmodels.web.app": ("from cpmodels.backends import engine\n"
                                    "from cpmodels.backends.cpsat import solve\n", False),
               "cpmodels.backends": ("", True), "cpmodels.backends.engine": ("", True),
               "cpmodels.backends.cpsat": ("import ortools\n", False)}
    assert _adapters_over_backends(_graph(sources, on_load=True)) == [
        "cpmodels.web.app:2 imports cpmodels.backends.cpsat"]


# Where threads and processes may be started: the run layer, the web server (its pool and
# its streams' producer and timer), the engine's placement of units of tasks, and
# the one solver call run in a thread of its own for Ctrl-C (interrupt.py, CP-SAT).
STARTS_WORK = {"cpmodels/running.py", "cpmodels/web/limits.py", "cpmodels/web/streams.py",
               "cpmodels/interrupt.py", "cpmodels/backends/cpsat.py"}
WORK_STARTERS = ("Thread", "Timer", "ThreadPoolExecutor", "ProcessPoolExecutor", "Process",
                 "Pool", "get_context")


def _starts_work(tree: ast.AST) -> list[int]:
    """Lines that start a thread or a process, or import what does (``threading.Thread``,
    ``Timer``, executors, ``multiprocessing``)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else \
                node.func.id if isinstance(node.func, ast.Name) else ""
            if name in WORK_STARTERS:
                lines.append(node.lineno)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + ([node.module] if isinstance(
                node, ast.ImportFrom) and node.module else [])
            if any(n.split(".")[0] in ("multiprocessing", "concurrent") for n in names):
                lines.append(node.lineno)
    return lines


def test_threads_and_processes_are_started_by_the_run_layer_alone():
    """Features describe their work and ``cpmodels/running.py`` runs it: no other module
    starts a thread or a process, except the server's own and the engine's placement
    (``placement/``, where the session's units run on worker processes or a cluster). No
    kernel, layout, choice of search nor the session keeps threads of its own: a search
    runs in the session's turn, in the thread that asks."""
    offenders = []
    for path in _modules():
        where = str(path.relative_to(ROOT))
        if ENGINE / "placement" in path.parents or where in STARTS_WORK:
            continue
        offenders += [f"{where}:{line}" for line in _starts_work(ast.parse(path.read_text()))]
    assert offenders == []


def test_the_rule_on_threads_sees_a_thread_started():
    code = "import threading\nthreading.Thread(target=print).start()\n"
    assert _starts_work(ast.parse(code)) == [2]
    assert _starts_work(ast.parse("from concurrent.futures import ThreadPoolExecutor\n")) == [1]
