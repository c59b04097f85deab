"""The layering the code promises: the engine's one door, render free of solvers, modules
a reader can hold."""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "cpmodels"
ENGINE = PACKAGE / "backends" / "engine"
MAX_LINES = 600


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _engine_submodules() -> set[str]:
    return {p.stem for p in ENGINE.glob("*.py") if p.stem != "__init__"}


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
    """Features reach the engine through ``cpmodels.backends.engine`` alone."""
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


def test_no_module_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in _modules()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


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


def _run_time_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:`` (never run)."""
    found: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            todo += node.orelse
            continue
        todo += ast.iter_child_nodes(node)
    return found


def test_no_import_cycle_in_the_package():
    """Every import that runs, at module level or inside a function, points one way: a
    module never reaches itself again (imports for type checkers alone do not run).
    ``from pkg import sub`` depends on ``pkg.sub`` alone when ``sub`` is a module, and on
    ``pkg`` when it takes a name from the package's ``__init__``."""
    names = {_module_name(path): path for path in _modules()}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        needs = graph.setdefault(name, set())
        for node in _run_time_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                needs |= {alias.name for alias in node.names if alias.name in names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                subs = [f"{node.module}.{alias.name}" for alias in node.names]
                needs |= {sub for sub in subs if sub in names}
                if node.module in names and any(sub not in names for sub in subs):
                    needs.add(node.module)
        needs.discard(name)
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as cycle:
        pytest.fail("import cycle: " + " -> ".join(cycle.args[1]))


# Where threads and processes may be started: the run layer, the web server (its pool and
# its streams' producer and timer), the engine below its session for its own searches, and
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
    starts a thread or a process, except the server's own and the engine's below its
    session."""
    offenders = []
    for path in _modules():
        where = str(path.relative_to(ROOT))
        if ENGINE in path.parents or where in STARTS_WORK:
            continue
        offenders += [f"{where}:{line}" for line in _starts_work(ast.parse(path.read_text()))]
    assert offenders == []


def test_the_rule_on_threads_sees_a_thread_started():
    code = "import threading\nthreading.Thread(target=print).start()\n"
    assert _starts_work(ast.parse(code)) == [2]
    assert _starts_work(ast.parse("from concurrent.futures import ThreadPoolExecutor\n")) == [1]
