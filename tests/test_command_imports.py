"""Each command loads what it uses: run in a process of its own, it loads no solver, engine
or library it does not need (the modules in ``sys.modules`` as it ends, which counts those
loaded through ``importlib.import_module`` too, as ``-X importtime`` does not)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

import pytest
from conftest import ROOT, early_call, figures_of, write_figures

SOLVERS = ("ortools", "pysat")
ENGINE = ("numba", "cpmodels.backends.engine", "cpmodels.running")
# The compiled core: its searches, and the geometry every spec's pieces are read with (a
# piece's orientations), so a command that reads specs loads it (2.5 ms), and nothing else.
CORE = ("cpmodels._native",)
READS_SPECS = ("pydantic", "yaml")
# What reading a spec's file and validating it loads: YAML, the loader, and pydantic's
# plugins (looked up as a model first builds its validator).
VALIDATES = ("yaml", "cpmodels.spec.loading", "pydantic.plugin._loader")
# The Dask side of the engine, and the worker processes of a count too long for this one.
ELSEWHERE = ("cpmodels.backends.engine.placement.cluster", "distributed", "multiprocessing")


# ``python -m cpmodels ARGV``, which writes the names of the modules loaded as it leaves.
RUN_LISTING = """\
import atexit, json, runpy, sys
listing = sys.argv.pop(1)
def write():
    with open(listing, "w") as out:
        json.dump(sorted(sys.modules), out)
atexit.register(write)
runpy.run_module("cpmodels", run_name="__main__", alter_sys=True)
"""


def _loaded(*argv: str) -> tuple[int, set[str]]:
    """The exit status of ``cpmodels ARGV`` and every module it loaded."""
    with tempfile.TemporaryDirectory() as folder:
        listing = f"{folder}/modules.json"
        done = subprocess.run([sys.executable, "-c", RUN_LISTING, listing, *argv],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
        with open(listing) as read:
            modules = set(json.load(read))
    assert "cpmodels.cli" in modules, done.stderr
    return done.returncode, modules


def _among(modules: set[str], names: tuple[str, ...]) -> set[str]:
    return {m for m in modules if any(m == n or m.startswith(n + ".") for n in names)}


# The commands whose loaded modules the tests read ("{copy}": a copy of the bundled weekday
# calendar, "{tiny}": TINY_BOX, each in the scratch folder), with what a test says each
# does not load.
ARGUMENTS_ONLY = [["--version"], ["--help"], ["solve", "--help"], ["site", "--help"]]
KNOWN_VALID = [["specs"], ["specs", "--format", "json"],
               ["validate", "specs/calendar_week.yaml"],
               ["validate", "calendar_day", "specs/pentominoes_6x10.yaml"]]
WITH_MODELS = [["validate", "specs/designs/weekday_pentominoes_tetrominoes.yaml"], ["schema"],
               ["validate", "{copy}"]]
SOLVE = ["solve", "calendar_week", "--date", "2026-12-25"]
ON_CP_SAT = [(SOLVE, ("numpy",)),
             (["count", "{tiny}", "--backend", "cpsat"], ()),
             (["enumerate", "{tiny}", "--backend", "cpsat", "--out", "{tiny}.jsonl"], ())]
# What ``count`` and ``solve`` of a bundled spec do not load besides (their record is
# searched: no model, no YAML, no validation): ``count`` (the engine, its layouts, tables
# and answers buffers of the standard library) no solver and no numpy, raw or distinct (the
# symmetries, and the counts of the solutions a symmetry fixes: 8x8_centre), a solid's too;
# ``solve`` (CP-SAT) no engine and no numpy, ``solve`` on the engine (its solution stream)
# no solver and no numpy.
ON_THE_ENGINE = ("cpmodels.files", "numpy", *SOLVERS)
FROM_THE_RECORD = [
    (["count", "pentominoes_6x10", "--distinct"], ON_THE_ENGINE),
    (["count", "specs/pentominoes_6x10.yaml", "--distinct"], ON_THE_ENGINE),
    (["count", "pentominoes_8x8_centre"], ON_THE_ENGINE),
    (["count", "pentominoes_8x8_centre", "--distinct"], ON_THE_ENGINE),
    (["count", "soma", "--distinct"], ON_THE_ENGINE),
    (["count", "specs/calendar_week.yaml", "--labels", "Jun", "7", "Tue"], ON_THE_ENGINE),
    (["solve", "calendar_week", "--backend", "engine"], ON_THE_ENGINE),
    (["solve", "specs/calendar_week.yaml"], ("cpmodels.files", "numpy", "pysat", *ENGINE)),
    (["solve", "pentominoes_6x10"], ("cpmodels.files", "numpy", "pysat", *ENGINE)),
    (["solve", "towers", "--time-limit", "5"], ENGINE)]
USERS_COUNT = ["count", "{copy}", "--labels", "Jun", "7", "Tue"]
COUNT = ["count", "calendar_week", "--labels", "Jun", "7", "Tue"]
SWEEP = ["sweep", "calendar_day", "--quiet", "--out", "{tiny}.csv"]
LISTED = [*ARGUMENTS_ONLY, *KNOWN_VALID, *WITH_MODELS, *(argv for argv, _ in ON_CP_SAT),
          *(argv for argv, _ in FROM_THE_RECORD), USERS_COUNT, COUNT, SWEEP]


def listings(scratch: Path) -> None:
    """The exit status and the modules loaded of every command of :data:`LISTED`, each run
    as :func:`_loaded` runs it, in ``scratch``. Started with the session (the tests' early
    command): the second processor runs the commands while the suite runs."""
    scratch.mkdir(parents=True, exist_ok=True)
    copy = scratch / "calendar_week.yaml"
    copy.write_bytes((ROOT / "specs" / "calendar_week.yaml").read_bytes())
    tiny = scratch / "tiny.yaml"
    tiny.write_text(TINY_BOX)

    def listed(argv: list[str]) -> tuple[int, list[str]]:
        code, modules = _loaded(*(arg.format(copy=copy, tiny=tiny) for arg in argv))
        return code, sorted(modules)

    write_figures({" ".join(argv): partial(listed, argv) for argv in LISTED}, scratch)


EARLY_LISTINGS = pytest.mark.early.with_args(partial(early_call, "test_command_imports",
                                                     "listings"))


def _listed(early, argv: list[str]) -> tuple[int, set[str]]:
    """What :func:`listings` found of ``argv``: its exit status and every module it loaded."""
    code, modules = figures_of(early, " ".join(argv))
    return code, set(modules)


@EARLY_LISTINGS
@pytest.mark.parametrize("argv", ARGUMENTS_ONLY)
def test_reading_the_arguments_loads_the_standard_library_alone(argv, early):
    code, modules = _listed(early, argv)
    assert code == 0
    assert _among(modules, (*SOLVERS, *ENGINE, *CORE, *READS_SPECS, "numpy", "tqdm",
                            "cpmodels.spec", "shutil")) == set()


@EARLY_LISTINGS
@pytest.mark.parametrize("argv", KNOWN_VALID)
def test_the_bundled_specs_known_valid_are_read_without_their_models(argv, early):
    """Listing the bundled specs, or validating those the catalogue knows valid as they
    are (specs/validated.json), loads neither the spec models nor YAML."""
    code, modules = _listed(early, argv)
    assert code == 0
    assert _among(modules, (*SOLVERS, *ENGINE, *CORE, *READS_SPECS, "numpy", "shutil",
                            "cpmodels.spec.loading", "cpmodels.spec.models")) == set()


@EARLY_LISTINGS
@pytest.mark.parametrize("argv", WITH_MODELS)
def test_the_commands_that_read_specs_load_no_solver_and_no_engine(argv, early):
    """A design (its board is read too), the schema, and a spec of the user's (here a
    bundled one's copy) are read with the spec models."""
    code, modules = _listed(early, argv)
    assert code == 0
    assert "pydantic" in modules  # it did read them
    assert _among(modules, (*SOLVERS, *ENGINE, "numpy")) == set()


@EARLY_LISTINGS
def test_solve_loads_cp_sat_and_not_the_engine(early):
    code, modules = _listed(early, SOLVE)
    assert code == 0
    assert "ortools" in modules
    assert _among(modules, (*ENGINE, "pysat")) == set()


TINY_BOX = """\
kind: packing
name: tiny
board: ["....", "...."]
pieces:
  - {name: L, shape: "###/#.."}
  - {name: O, shape: "#../###"}
"""


@EARLY_LISTINGS
@pytest.mark.parametrize(("argv", "unused"), ON_CP_SAT)
def test_a_packing_search_on_cp_sat_loads_no_pandas(argv, unused, early):
    """The cover's model is a proto run on CP-SAT's compiled core: OR-Tools' modelling
    layer, which loads pandas and numpy, is not loaded (``count`` loads numpy for its own
    tallies)."""
    code, modules = _listed(early, argv)
    assert code == 0
    assert "ortools.sat.python.cp_model_helper" in modules
    assert _among(modules, ("pandas", "ortools.sat.python.cp_model", *unused)) == set()


@EARLY_LISTINGS
@pytest.mark.parametrize(("argv", "unused"), FROM_THE_RECORD)
def test_a_bundled_spec_known_valid_is_searched_without_reading_it_again(argv, unused, early):
    """``count`` and ``solve`` of a bundled spec the catalogue knows valid search its
    record (``cpmodels.spec.kinds``): no YAML, no validation, no pydantic, not even the
    spec models; a local count loads neither the cluster's side of the engine nor worker
    processes, nor numpy (nor does ``solve`` on the engine), and a packing ``solve``
    (CP-SAT) no numpy."""
    code, modules = _listed(early, argv)
    assert code == 0
    assert "cpmodels.spec.kinds" in modules
    assert _among(modules, (*VALIDATES, *READS_SPECS, *ELSEWHERE, "cpmodels.spec.models",
                            "cpmodels.spec.loading", "tqdm", *unused)) == set()


@EARLY_LISTINGS
def test_a_sweep_of_a_bundled_spec_known_valid_reads_its_record(early):
    """``sweep`` of a bundled calendar the catalogue knows valid sweeps its record, as
    ``count`` searches it: no YAML, no validation, no pydantic, no spec models (and no
    cluster, no progress bars' library when no bar can show); its tally layout, tables,
    tasks and rows are buffers of the standard library, as a count's: no numpy."""
    code, modules = _listed(early, SWEEP)
    assert code == 0
    assert "cpmodels.spec.kinds" in modules and "cpmodels.sweep" in modules
    assert _among(modules, (*VALIDATES, *READS_SPECS, "cpmodels.spec.models",
                            "cpmodels.spec.loading", "tqdm", "distributed", "numpy",
                            "cpmodels.backends.engine.placement.cluster")) == set()


@EARLY_LISTINGS
def test_a_spec_of_the_users_is_validated_before_it_is_counted(early):
    code, modules = _listed(early, USERS_COUNT)
    assert code == 0
    assert set(VALIDATES) <= modules


@EARLY_LISTINGS
def test_count_loads_the_engine_and_not_cp_sat(early):
    """... nor the progress bars' library when no bar can show (stderr is not a terminal)."""
    code, modules = _listed(early, COUNT)
    assert code == 0
    assert "cpmodels.backends.engine" in modules
    assert _among(modules, (*SOLVERS, "tqdm")) == set()


@pytest.mark.parametrize(("spec", "built"), [
    ("calendar_week", "CalendarSpec"), ("towers", "TowersSpec"),
    ("designs/weekday_pentominoes_tetrominoes", "DesignSpec")])
def test_reading_a_spec_builds_the_validator_of_its_kind_alone(spec, built):
    """A spec model builds its validator when it first validates: reading one spec builds
    that of its kind (and of the board a design names) and no other."""
    script = ("from cpmodels.spec import loading, models\n"
              "from cpmodels.spec.design import DesignSpec\n"
              f"path = loading.spec_path('specs/{spec}.yaml')\n"
              "if loading.is_design(path):\n"
              "    loading.load_board(loading.load_design(path), path)\n"
              "else:\n"
              "    loading.load_spec(path)\n"
              "for model in (models.PackingSpec, models.CalendarSpec, models.TowersSpec,"
              " DesignSpec):\n"
              "    print(model.__name__, model.__pydantic_complete__)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    complete = {name for name, flag in map(str.split, done.stdout.splitlines())
                if flag == "True"}
    assert complete == ({built, "CalendarSpec"} if built == "DesignSpec" else {built})


def test_the_table_of_commands_is_the_parsers():
    """``cpmodels.cli.COMMANDS`` names every command the whole parser has, in its order."""
    from cpmodels.cli import COMMANDS, build_parser

    parser = build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices
    assert list(choices) == [name for name, _ in COMMANDS]


@pytest.mark.parametrize("argv", [["count", "--help"], ["export-suite", "--help"],
                                  ["solve", "calendar_week", "--bogus"], ["count"],
                                  ["sweep", "calendar_day", "--jobs", "0"]])
def test_a_commands_own_parser_reads_and_answers_as_the_whole_one(argv, capsys):
    """The arguments of a named command are read by its parser alone (its module alone
    loaded): the same help, the same values, the same errors as the whole parser's."""
    from cpmodels.cli import build_parser

    said = []
    for parser in (build_parser(argv), build_parser()):
        with pytest.raises(SystemExit) as leaving:
            parser.parse_args(argv)
        said.append((leaving.value.code, capsys.readouterr()))
    assert said[0] == said[1]
    whole = build_parser().parse_args(["count", "calendar_day", "--distinct"])
    alone = build_parser(["count"]).parse_args(["count", "calendar_day", "--distinct"])
    assert vars(whole) == vars(alone)


@pytest.mark.parametrize("columns", [None, "0", "57", "wide", "200"])
def test_the_parsers_width_is_the_terminals_as_shutil_finds_it(columns, monkeypatch):
    """The parser finds the terminal's width without loading shutil, as shutil finds it."""
    import shutil

    from cpmodels.cli.parser import _columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert _columns() == shutil.get_terminal_size().columns
